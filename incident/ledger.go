package incident

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/goodput-lab/goodput/packet"
)

// constraintReplays checks the constraint ledger's rows that name what the linked replay
// shows ([ConstraintReplay]) against the replay's series: a row whose arm names another
// binding constraint for most of the sampled ticks of its interval is an error.
func (c *checker) constraintReplays() {
	d := c.doc
	type row struct {
		path     string
		r        *ConstraintReplay
		from, to time.Duration
	}
	var rows []row
	for i, x := range d.Constraints {
		if x.Replay == nil {
			continue
		}
		p := fmt.Sprintf("constraints[%d].replay", i)
		r := x.Replay
		ok := true
		if strings.TrimSpace(r.Arm) == "" {
			c.errf(p+".arm", "missing; expected the name of the replay's arm, such as baseline")
			ok = false
		}
		if strings.TrimSpace(r.Constraint) == "" {
			c.errf(p+".constraint", "missing; expected a binding constraint as series.csv names it, such as pool:checkout->payment-risk or none")
			ok = false
		}
		from, okFrom := c.offset(p+".from", r.From)
		to, okTo := c.offset(p+".to", r.To)
		if okFrom && okTo && to <= from {
			c.errf(p+".to", "%s is not after from (%s); expected the end of the interval", r.To, r.From)
			ok = false
		}
		if ok && okFrom && okTo {
			rows = append(rows, row{p, r, from, to})
		}
	}
	if len(rows) == 0 {
		return
	}
	if d.Replay == nil || d.Replay.Packet == "" {
		c.warnf(rows[0].path, "the ledger names what the replay shows, but the document links no replay packet (replay.packet); %d ledger rows not checked", len(rows))
		return
	}
	path := d.resolve(d.Replay.Packet)
	p, err := packet.Read(filepath.Dir(path))
	if errors.Is(err, fs.ErrNotExist) {
		c.warnf("replay.packet", "%s does not exist yet; %d constraint-ledger rows not checked", filepath.Dir(path), len(rows))
		return
	}
	if err != nil {
		c.errf("replay.packet", "%v", err)
		return
	}
	for _, x := range rows {
		i := slices.IndexFunc(p.Arms, func(a packet.Arm) bool { return a.Name == x.r.Arm })
		if i < 0 {
			var names []string
			for _, a := range p.Arms {
				names = append(names, a.Name)
			}
			c.errf(x.path+".arm", "%q is not an arm of %s; its arms are %s", x.r.Arm, path, strings.Join(names, ", "))
			continue
		}
		c.checkConstraint(x.path, &p.Arms[i], x.r.Constraint, x.from, x.to)
	}
}

// offset parses a ledger row's from or to, a Go duration of at least zero.
func (c *checker) offset(path, s string) (time.Duration, bool) {
	if strings.TrimSpace(s) == "" {
		c.errf(path, "missing; expected a duration from the start of the replay's clock, such as 2m")
		return 0, false
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		c.errf(path, "%q is not a duration of at least zero; expected one such as 0s, 90s or 1h30m", s)
		return 0, false
	}
	return d, true
}

// checkConstraint compares a ledger row's constraint with arm a's over [from, to).
func (c *checker) checkConstraint(path string, a *packet.Arm, want string, from, to time.Duration) {
	ticks := map[string]int{}
	n, named := 0, 0
	for _, r := range a.Series {
		if r.T < from || r.T >= to || !r.Sampled {
			continue
		}
		n++
		if r.Constraint != "" {
			named++
			ticks[r.Constraint]++
		}
	}
	switch {
	case n == 0:
		end := time.Duration(0)
		if k := len(a.Series); k > 0 {
			end = a.Series[k-1].T + a.Tick
		}
		c.errf(path, "arm %s has no sampled tick from %v to %v; its series runs from 0s to %v", a.Name, from, to, end)
		return
	case named == 0:
		c.errf(path, "arm %s names no binding constraint (its series.csv has no constraint column: a packet of an older goodput, or a live run); replay the scenario again", a.Name)
		return
	}
	if 2*ticks[want] > n {
		return
	}
	names := slices.Collect(maps.Keys(ticks))
	slices.SortFunc(names, func(x, y string) int { return cmp.Or(ticks[y]-ticks[x], cmp.Compare(x, y)) })
	var most []string
	for _, name := range names[:min(3, len(names))] {
		most = append(most, fmt.Sprintf("%s %d", name, ticks[name]))
	}
	c.errf(path+".constraint", "the replay's %s arm names %s for %d of its %d ticks from %v to %v, not most of them; it names %s",
		a.Name, want, ticks[want], n, from, to, strings.Join(most, ", "))
}
