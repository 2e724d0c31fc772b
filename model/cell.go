package model

import (
	"cmp"
	"fmt"
	"math"
	"strings"
	"time"
	"unsafe"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
)

// Cells and failover. A scenario with cells is compiled from its expanded topology
// (scenario.ExpandCells: every cell's copies, named cell/name): the classes are compiled
// once per cell, each copy's stages calling that cell's copies, so that a request's class
// index says the cell that serves it (cell × declared classes + class). Each offered
// request draws its home cell by the shares (the same draw in every arm); an arm's
// failover policy may move it to another cell: on the home cell's health alone (mode
// health), or only within the destination's grant, its warm reserve less its current
// attempt load (mode grant). Each tick judges every cell's health and recomputes the warm
// capacity the grants come from.

// cellsPlan is the cells of a plan.
type cellsPlan struct {
	names []string
	cum   []float64 // cumulative shares, for drawing the home cell
	svcs  [][]int   // each cell's services (plan indexes)
	purp  purp      // the draws of the home cell, the moved share and the destination
}

// aliasCells prepares the class loop of compile for a scenario with cells: the
// declared names of the entries, dependencies and caches resolve to the first cell's
// copies (their aliases), which compileCellClasses then maps to each cell's.
func aliasCells(lay []scenario.CellCopy, base scenario.Topology, entries, deps, caches map[string]int) {
	if len(lay) == 0 {
		return
	}
	for i, e := range base.Entries {
		entries[e.Name] = lay[0].Entries[i]
	}
	for i, d := range base.Dependencies {
		deps[d.Name] = lay[0].Dependencies[i]
	}
	for i, c := range base.Caches {
		caches[c.Name] = lay[0].Caches[i]
	}
}

// compileCellClasses appends the classes of every cell after the first to p.classes
// (compiled for the first cell's copies) and lays out the cells.
func (p *plan) compileCellClasses(lay []scenario.CellCopy) {
	if len(lay) == 0 {
		return
	}
	cp := &cellsPlan{purp: p.purpose("load/cell")}
	var cum float64
	for _, c := range lay {
		cum += c.Share
		cp.names = append(cp.names, c.Name)
		cp.cum = append(cp.cum, cum)
		cp.svcs = append(cp.svcs, c.Services)
	}
	cp.cum[len(cp.cum)-1] = 1
	// first maps a copy of the first cell to its declared index.
	first := func(of []int) map[int]int {
		m := map[int]int{}
		for i, x := range of {
			m[x] = i
		}
		return m
	}
	entry, dep, cache := first(lay[0].Entries), first(lay[0].Dependencies), first(lay[0].Caches)
	for _, c := range lay[1:] {
		for ci := range p.nClasses {
			cl := p.classes[ci]
			cl.entry = c.Entries[entry[cl.entry]]
			cl.stages = append([]stagePlan(nil), cl.stages...)
			for si := range cl.stages {
				st := &cl.stages[si]
				if st.dep >= 0 {
					st.dep = c.Dependencies[dep[st.dep]]
				}
				if st.cache >= 0 {
					st.cache = c.Caches[cache[st.cache]]
				}
			}
			p.classes = append(p.classes, cl)
		}
	}
	p.cells = cp
}

// failoverRule is an arm's failover policy, compiled (scenario.FailoverPolicy).
type failoverRule struct {
	grant      bool
	instances  bool // the signal is healthy_instances (else success_rate)
	below      float64
	window     int // ticks of the success rate
	after      time.Duration
	hold       time.Duration
	share      float64
	headroom   float64
	rejectOver bool // a request beyond the grant is refused (else it stays in its origin)
}

// cellRT is one cell's state in an arm.
type cellRT struct {
	out              bool          // failed over
	badAt, goodAt    time.Duration // since when the signal has been unhealthy (healthy); -1 if not
	ok, all          []int         // the success rate's ring, by tick
	okTick, allTick  int           // this tick's goodput and terminal states
	slot             int
	reserve          int // the grant's warm capacity less the headroom, from the last tick
	packet.CellStats     // the cell's figures
	signal           float64
}

// cellsRT is the cells' state in an arm; nil without cells.
type cellsRT struct {
	rule  *failoverRule // nil without a failover policy
	cells []cellRT
}

// newCellsRT is the cells' state of an arm with failover policy f (nil: none).
func newCellsRT(p *plan, f *scenario.FailoverPolicy) *cellsRT {
	if p.cells == nil {
		return nil
	}
	rt := &cellsRT{cells: make([]cellRT, len(p.cells.names))}
	if f != nil {
		window := cmp.Or(f.Window.Std(), 30*time.Second)
		share := float64(f.Share)
		if share == 0 {
			share = 1
		}
		rt.rule = &failoverRule{
			grant:      f.Mode == scenario.FailoverGrant,
			instances:  f.Signal == scenario.SignalHealthyInstances,
			below:      float64(f.Below),
			window:     max(1, int((window+p.tick-1)/p.tick)),
			after:      f.For.Std(),
			hold:       cmp.Or(f.Hold.Std(), time.Minute),
			share:      share,
			headroom:   float64(f.Headroom),
			rejectOver: f.Beyond == scenario.GrantReject,
		}
	}
	for i := range rt.cells {
		c := &rt.cells[i]
		c.Name = p.cells.names[i]
		c.badAt, c.goodAt = -1, -1
		c.signal = 1
		if rt.rule != nil && !rt.rule.instances {
			c.ok, c.all = make([]int, rt.rule.window), make([]int, rt.rule.window)
		}
	}
	return rt
}

// cellBytes bounds what the cells of an arm with failover policy f hold: each cell's
// state and the success rate's ring of window ticks (for the work-budget estimate).
func (p *plan) cellBytes(f *scenario.FailoverPolicy) int64 {
	if p.cells == nil {
		return 0
	}
	window := int64(1)
	if f != nil {
		window = int64(cmp.Or(f.Window.Std(), 30*time.Second)/p.tick) + 1
	}
	return int64(len(p.cells.names)) * (int64(unsafe.Sizeof(cellRT{})) + 2*8*window)
}

// servicesNamed are the services a path step into topology.services names (a name, else
// an index): the one service, or with cells every cell's copy of the declared one.
func (p *plan) servicesNamed(step string) []int {
	if p.cells == nil {
		if s := named(step, len(p.services), func(i int) string { return p.services[i].name }); s >= 0 {
			return []int{s}
		}
		return nil
	}
	first := p.cells.svcs[0]
	k := named(step, len(first), func(i int) string {
		return strings.TrimPrefix(p.services[first[i]].name, p.cells.names[0]+"/")
	})
	if k < 0 {
		return nil
	}
	var out []int
	for _, svcs := range p.cells.svcs {
		out = append(out, svcs[k])
	}
	return out
}

// drawCell is the cell a uniform draw u picks by the shares.
func (cp *cellsPlan) drawCell(u float64) int {
	c := 0
	for c < len(cp.cum)-1 && u >= cp.cum[c] {
		c++
	}
	return c
}

// cellRoute places request id of declared class ci, offered at now: it returns the
// class index of the cell that serves it, or -1 when it was refused (recorded here).
func (a *arm) cellRoute(now time.Duration, ci int, id int64) int {
	cp, rt := a.p.cells, a.cells
	home := cp.drawCell(a.draw(cp.purp, id, 0, 0, 0))
	h := &rt.cells[home]
	h.Offered++
	serve := home
	if r := rt.rule; r != nil && h.out && (r.share >= 1 || a.draw(cp.purp, id, 1, 0, 0) < r.share) {
		switch d := a.destination(home, a.draw(cp.purp, id, 2, 0, 0)); {
		case d < 0:
			// Every other cell has failed over too: the request stays.
		case a.pol.freezeFailover:
			h.FailoverFrozen++
		case r.grant && !a.grants(d):
			rt.cells[d].RefusedByGrant++
			if r.rejectOver {
				a.reject(now, ci, id, "failover-refused")
				return -1
			}
		default:
			serve = d
			h.FailedOverOut++
			rt.cells[d].FailedOverIn++
		}
	}
	return serve*a.p.nClasses + ci
}

// destination is the cell a request moved out of cell from goes to: one of the cells
// that have not failed over, by their shares, for the uniform draw u; -1 if none.
func (a *arm) destination(from int, u float64) int {
	rt := a.cells
	total := 0.0
	for c := range rt.cells {
		if c != from && !rt.cells[c].out {
			total += a.cellShare(c)
		}
	}
	if total == 0 {
		return -1
	}
	x, last := u*total, -1
	for c := range rt.cells {
		if c == from || rt.cells[c].out {
			continue
		}
		last = c
		if x -= a.cellShare(c); x < 0 {
			return c
		}
	}
	return last
}

// cellShare is cell c's share of the offered load.
func (a *arm) cellShare(c int) float64 {
	cum := a.p.cells.cum
	if c == 0 {
		return cum[0]
	}
	return cum[c] - cum[c-1]
}

// grants reports whether cell d admits one more moved request: its attempt load (the
// attempts queued or in service at its instances) is below its warm reserve.
func (a *arm) grants(d int) bool {
	load := 0
	for _, s := range a.p.cells.svcs[d] {
		for _, ii := range a.svcs[s].insts {
			in := &a.insts[ii]
			load += in.busy + in.queued
		}
	}
	return load < a.cells.cells[d].reserve
}

// cellTerminal counts a request's terminal state in the cell that served it.
func (a *arm) cellTerminal(lg *logical, out packet.Outcome) {
	c := &a.cells.cells[int(lg.class)/a.p.nClasses]
	c.allTick++
	if out == packet.Goodput {
		c.Goodput++
		c.okTick++
	}
}

// cellTick judges each cell's health, fails it over or back, and recomputes the warm
// reserve of the grants.
func (a *arm) cellTick(now time.Duration) {
	rt := a.cells
	r := rt.rule
	for i := range rt.cells {
		c := &rt.cells[i]
		if r == nil {
			c.okTick, c.allTick = 0, 0
			continue
		}
		c.signal = a.cellSignal(i)
		if r.grant {
			warm := 0
			for _, s := range a.p.cells.svcs[i] {
				for _, ii := range a.svcs[s].insts {
					if in := &a.insts[ii]; in.up && in.routable && in.warm {
						warm += in.workers
					}
				}
			}
			c.reserve = int(math.Floor(float64(warm) * (1 - r.headroom)))
		}
		bad := c.signal < r.below
		switch {
		case !c.out && bad:
			if c.badAt < 0 {
				c.badAt = now
			}
			if now-c.badAt >= r.after {
				c.out, c.goodAt = true, -1
				c.Failovers++
				a.rec.Failover(now, c.Name, packet.FailoverOut, fmt.Sprintf("%s: fails over %s of its traffic (%s %s below %s)", c.Name, pct(r.share), a.signalName(), pct(c.signal), pct(r.below)))
			}
		case !c.out:
			c.badAt = -1
		case c.out && !bad:
			if c.goodAt < 0 {
				c.goodAt = now
			}
			if now-c.goodAt >= r.hold {
				c.out, c.badAt = false, -1
				a.rec.Failover(now, c.Name, packet.FailoverBack, fmt.Sprintf("%s: fails back (%s %s, at or above %s for %v)", c.Name, a.signalName(), pct(c.signal), pct(r.below), r.hold))
			}
		default:
			c.goodAt = -1
		}
	}
}

// cellSignal is cell i's health signal at a tick: its success rate over the window (1
// when no request ended in it), or the share of its running instances taking traffic.
func (a *arm) cellSignal(i int) float64 {
	c := &a.cells.cells[i]
	if a.cells.rule.instances {
		up, routable := 0, 0
		for _, s := range a.p.cells.svcs[i] {
			for _, ii := range a.svcs[s].insts {
				if in := &a.insts[ii]; !in.retired && !in.draining {
					up++
					if in.routable {
						routable++
					}
				}
			}
		}
		if up == 0 {
			return 0
		}
		return float64(routable) / float64(up)
	}
	c.ok[c.slot], c.all[c.slot] = c.okTick, c.allTick
	c.slot = (c.slot + 1) % len(c.ok)
	c.okTick, c.allTick = 0, 0
	ok, all := 0, 0
	for k := range c.ok {
		ok += c.ok[k]
		all += c.all[k]
	}
	if all == 0 {
		return 1
	}
	return float64(ok) / float64(all)
}

func (a *arm) signalName() string {
	if a.cells.rule.instances {
		return "healthy instances"
	}
	return "success rate"
}

// pct formats a share as a percentage with one decimal at most.
func pct(x float64) string { return scenario.Fraction(math.Round(x*1000) / 1000).String() }

// cellStats are the cells' figures for the packet; nil without cells.
func (a *arm) cellStats() []packet.CellStats {
	if a.cells == nil {
		return nil
	}
	out := make([]packet.CellStats, len(a.cells.cells))
	for i := range a.cells.cells {
		out[i] = a.cells.cells[i].CellStats
	}
	return out
}
