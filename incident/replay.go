package incident

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/expr-lang/expr"
)

// maxPacketSize bounds how much of a packet.json Check reads.
const maxPacketSize = 64 << 20

// Packet is the part of a replay packet (packet.json) that replay claims can refer to.
// Fields the incident package does not know are ignored.
type Packet struct {
	Scenario string      `json:"scenario"`
	Seed     json.Number `json:"seed"`
	Arms     []PacketArm `json:"arms"`
}

// PacketArm is one arm of a replay (baseline, protected …).
type PacketArm struct {
	Name          string             `json:"name"`
	Totals        map[string]float64 `json:"totals"`
	Amplification struct {
		Total   float64            `json:"total"`
		ByLayer map[string]float64 `json:"by_layer"`
	} `json:"amplification"`
	Duplicates map[string]float64 `json:"duplicates"`
}

// packetTotals are the totals every arm has (missing ones read as 0 in claims).
var packetTotals = []string{"offered", "admitted", "rejected", "attempts", "goodput", "late", "expired", "shed", "failed", "ambiguous"}

// ReadPacket reads a packet.json.
func ReadPacket(path string) (*Packet, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) > maxPacketSize {
		return nil, fmt.Errorf("%s is larger than %d MiB", path, maxPacketSize>>20)
	}
	var p Packet
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%s is not a packet: %v", path, err)
	}
	if len(p.Arms) == 0 {
		return nil, fmt.Errorf("%s has no arms; expected a top-level \"arms\" list with name, totals, amplification and duplicates", path)
	}
	for i, a := range p.Arms {
		if !identRe.MatchString(a.Name) {
			return nil, fmt.Errorf("%s: arms[%d] has name %q; expected an identifier such as baseline or protected", path, i, a.Name)
		}
	}
	return &p, nil
}

var identRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// env returns the packet as the environment of replay-claim expressions.
func (p *Packet) env() map[string]any {
	env := map[string]any{"scenario": p.Scenario, "seed": p.Seed.String()}
	arms := map[string]any{}
	for _, a := range p.Arms {
		totals := map[string]any{}
		for _, k := range packetTotals {
			totals[k] = a.Totals[k]
		}
		for k, v := range a.Totals {
			totals[k] = v
		}
		byLayer := map[string]any{}
		for k, v := range a.Amplification.ByLayer {
			byLayer[k] = v
		}
		dups := map[string]any{"payment_authorizations": a.Duplicates["payment_authorizations"], "order_commits": a.Duplicates["order_commits"]}
		arm := map[string]any{
			"name":          a.Name,
			"totals":        totals,
			"amplification": map[string]any{"total": a.Amplification.Total, "by_layer": byLayer},
			"duplicates":    dups,
		}
		arms[a.Name] = arm
		env[a.Name] = arm
	}
	env["arms"] = arms
	return env
}

var memberRe = regexp.MustCompile(`\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b`)

func (c *checker) replay() {
	d := c.doc
	r := d.Replay
	if r == nil {
		return
	}
	if strings.TrimSpace(r.Scenario) == "" {
		c.errf("replay.scenario", "missing; expected the path of the *.scenario.yaml file, relative to this document")
	} else if _, err := os.Stat(d.resolve(r.Scenario)); err != nil {
		c.warnf("replay.scenario", "%s does not exist (yet)", d.resolve(r.Scenario))
	}
	for i, cl := range r.Claims {
		p := fmt.Sprintf("replay.claims[%d]", i)
		if strings.TrimSpace(cl.Assert) == "" {
			c.errf(p+".assert", "missing; expected a boolean expression such as protected.duplicates.payment_authorizations == 0")
		}
		if cl.Text != "" {
			occ := c.find(cl.Text)
			if len(occ) == 0 {
				c.errf(p+".text", "%q does not occur in the document's prose; copy the statement exactly", cl.Text)
			}
			for _, o := range occ {
				c.cover(o.field.path, o.start, o.start+len(cl.Text))
			}
		}
	}
	if r.Packet == "" {
		if len(r.Claims) > 0 {
			c.warnf("replay", "has claims but no packet; name the replay's packet.json so that they are checked")
		}
		return
	}
	path := d.resolve(r.Packet)
	pk, err := ReadPacket(path)
	if errors.Is(err, fs.ErrNotExist) {
		cmd := "goodput replay " + d.resolve(r.Scenario)
		c.warnf("replay.packet", "%s does not exist yet; run %s to produce it; %d replay claims not checked", path, cmd, len(r.Claims))
		return
	}
	if err != nil {
		c.errf("replay.packet", "%v", err)
		return
	}
	env := pk.env()
	var armNames []string
	for _, a := range pk.Arms {
		armNames = append(armNames, a.Name)
	}
	for i, cl := range r.Claims {
		if strings.TrimSpace(cl.Assert) == "" {
			continue
		}
		p := fmt.Sprintf("replay.claims[%d].assert", i)
		prog, err := expr.Compile(cl.Assert, expr.Env(env), expr.AsBool())
		if err != nil {
			c.errf(p, "%s; the packet's arms are %s", firstLine(err.Error()), strings.Join(armNames, ", "))
			continue
		}
		out, err := expr.Run(prog, env)
		if err != nil {
			c.errf(p, "%s", firstLine(err.Error()))
			continue
		}
		if ok, _ := out.(bool); ok {
			continue
		}
		var vals []string
		for _, m := range slices.Compact(memberRe.FindAllString(cl.Assert, -1)) {
			if v, err := expr.Eval(m, env); err == nil {
				vals = append(vals, fmt.Sprintf("%s = %v", m, formatAny(v)))
			}
		}
		c.errf(p, "the replay packet (%s) contradicts %q: %s", path, cl.Assert, strings.Join(vals, ", "))
	}
}

func formatAny(v any) string {
	if f, ok := v.(float64); ok {
		return FormatNumber(f)
	}
	return fmt.Sprint(v)
}
