package incident

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/expr-lang/expr"

	"github.com/goodput-lab/goodput/packet"
)

// ReadPacket reads a replay packet (packet.json, as written by `goodput replay`, through
// [packet.ReadJSON]) and returns the environment replay claims are evaluated in: the
// packet's top-level fields (scenario, seed, arms …) plus each arm under its name, with
// every field of packet.json (totals, amplification, duplicates, rates_per_s, recovery,
// latency …) under its JSON name, durations in the file's ms or s.
func ReadPacket(path string) (map[string]any, error) {
	p, err := packet.ReadJSON(path)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := p.WriteJSON(&buf); err != nil {
		return nil, err
	}
	var top map[string]any
	if err := json.Unmarshal(buf.Bytes(), &top); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	arms, _ := top["arms"].([]any)
	if len(arms) == 0 {
		return nil, fmt.Errorf("%s has no arms; expected a top-level \"arms\" list whose entries have name, totals, amplification and duplicates", path)
	}
	env := map[string]any{}
	for k, v := range top {
		env[k] = v
	}
	byName := map[string]any{}
	for i, a := range arms {
		arm, _ := a.(map[string]any)
		name, _ := arm["name"].(string)
		if arm == nil || !identRe.MatchString(name) {
			return nil, fmt.Errorf("%s: arms[%d] has no name that is an identifier (such as baseline or protected)", path, i)
		}
		if _, clash := top[name]; clash {
			return nil, fmt.Errorf("%s: arm name %q is also a top-level field", path, name)
		}
		byName[name] = arm
		env[name] = arm
	}
	env["arm"] = byName
	return env, nil
}

var identRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

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
	env, err := ReadPacket(path)
	if errors.Is(err, fs.ErrNotExist) {
		cmd := "goodput replay " + d.resolve(r.Scenario) + " --out " + filepath.Dir(path)
		c.warnf("replay.packet", "%s does not exist yet; run %s to produce it; %d replay claims not checked", path, cmd, len(r.Claims))
		return
	}
	if err != nil {
		c.errf("replay.packet", "%v", err)
		return
	}
	var armNames []string
	for name := range env["arm"].(map[string]any) {
		armNames = append(armNames, name)
	}
	slices.Sort(armNames)
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
