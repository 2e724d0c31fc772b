package model

import (
	"context"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
)

// twoCells is two cells a (SHARE) and b, each with 2 instances of 10 workers running 10ms
// of work and a 5ms call; FAULT is a fault line (or nothing), FAILOVER the protected arm's
// failover policy.
const twoCells = `
name: cells
clock: {duration: 40s, tick: 1s}
load:
  arrivals: uniform
  schedule: [{at: 0s, rate: 1000/s}]
classes:
  - name: c
    share: 100%
    deadline: 500ms
    stages:
      - {name: w, work: 10ms}
      - {name: call, dependency: db}
cells:
  - {name: a, share: SHARE}
  - {name: b, share: REST}
topology:
  entries:
    - {name: edge, target: app, timeout: 500ms}
  services:
    - {name: app, instances: 2, workers: 10, queue: {capacity: 100}}
  dependencies:
    - {name: db, service_time: {p50: 5ms, p99: 10ms}}
faults:
FAULT
arms:
  - name: plain
  - name: protected
    policy:
      failover: FAILOVER
`

func cellScenario(t *testing.T, share, fault, failover string) *scenario.Scenario {
	t.Helper()
	rest := map[string]string{"30%": "70%", "50%": "50%"}[share]
	src := strings.NewReplacer("SHARE", share, "REST", rest, "FAULT", fault, "FAILOVER", failover).Replace(twoCells)
	if fault == "" {
		src = strings.Replace(src, "faults:\n\n", "", 1)
	}
	return decode(t, src)
}

// TestCellsSplitByShare offers 30% of the load to cell a and 70% to b: the same requests
// in every arm, each served once, the cells' figures summing to the arm's.
func TestCellsSplitByShare(t *testing.T) {
	sc := cellScenario(t, "30%", "", "{mode: grant, below: 1%}")
	pk := fates(t, sc, 1)
	var first []packet.CellStats
	for _, a := range pk.Arms {
		if len(a.Cells) != 2 || a.Cells[0].Name != "a" || a.Cells[1].Name != "b" {
			t.Fatalf("%s: cells %+v, want a and b", a.Name, a.Cells)
		}
		var offered, goodput int64
		for _, c := range a.Cells {
			offered += c.Offered
			goodput += c.Goodput
		}
		if offered != a.Totals.Offered || goodput != a.Totals.Goodput {
			t.Errorf("%s: cells offered %d and goodput %d, want the arm's %d and %d", a.Name, offered, goodput, a.Totals.Offered, a.Totals.Goodput)
		}
		if share := float64(a.Cells[0].Offered) / float64(offered); math.Abs(share-0.3) > 0.02 {
			t.Errorf("%s: cell a offered %.3f of the load, want 0.30", a.Name, share)
		}
		if first == nil {
			first = a.Cells
		} else if a.Cells[0].Offered != first[0].Offered {
			t.Errorf("%s: cell a offered %d, the first arm %d; want the same requests in every arm", a.Name, a.Cells[0].Offered, first[0].Offered)
		}
		// Each cell's copies serve its own requests: the layers are named cell/name.
		for _, l := range a.Layers {
			if l.Name == "a/app" && math.Abs(float64(l.Attempts-a.Cells[0].Offered)) > 0 {
				t.Errorf("%s: a/app took %d attempts, want cell a's %d", a.Name, l.Attempts, a.Cells[0].Offered)
			}
		}
	}
}

// TestFailoverOnHealth slows cell a's db from 5s to 20s: at fixed instants, a fails over
// once its success rate has been below 90% for 2s, moves its traffic to b, and fails back
// 5s after it is healthy again.
func TestFailoverOnHealth(t *testing.T) {
	sc := cellScenario(t, "50%", "  - {at: 5s, for: 15s, dependency: a/db, service_time: {p50: 2s, p99: 3s}}",
		"{mode: health, below: 90%, window: 2s, for: 2s, hold: 5s}")
	p, err := compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	a, err := newArm(p, sc, sc.Arms[1], 1)
	if err != nil {
		t.Fatal(err)
	}
	a.begin()
	for _, c := range []struct {
		at  time.Duration
		out bool
	}{
		{4 * time.Second, false},
		{6 * time.Second, false}, // the first slow calls have not timed out yet
		{12 * time.Second, true},
		{20 * time.Second, true},
		{35 * time.Second, false},
	} {
		a.s.Run(c.at)
		if got := a.cells.cells[0].out; got != c.out {
			t.Errorf("at %v: cell a failed over %v, want %v (signal %.2f)", c.at, got, c.out, a.cells.cells[0].signal)
		}
	}
	if out, in := a.cells.cells[0].FailedOverOut, a.cells.cells[1].FailedOverIn; out == 0 || out != in {
		t.Errorf("a moved %d requests out, b took %d in; want the same, above 0", out, in)
	}
	// Without a failover policy nothing moves.
	pk := fates(t, sc, 1)
	if c := pk.Arms[0].Cells[0]; c.FailedOverOut != 0 || c.Failovers != 0 {
		t.Errorf("plain arm: cell a %+v, want no failover", c)
	}
	if c := pk.Arms[1].Cells[0]; c.Failovers != 1 {
		t.Errorf("protected arm: cell a failed over %d times, want 1", c.Failovers)
	}
	// Its events name the cell and the move.
	var moves []string
	for _, e := range pk.Arms[1].Events {
		if e.Kind == "failover" {
			moves = append(moves, e.Cell+" "+e.To)
		}
	}
	if want := []string{"a " + packet.FailoverOut, "a " + packet.FailoverBack}; !slices.Equal(moves, want) {
		t.Errorf("protected arm: failover events %q, want %q", moves, want)
	}
}

// TestGrantBoundedByReserve sets cell b's instances at fixed states: the grant is the
// workers of its warm instances taking traffic less the headroom, minus the attempts
// queued or in service, and a cold instance adds nothing to it.
func TestGrantBoundedByReserve(t *testing.T) {
	sc := cellScenario(t, "50%", "", "{mode: grant, below: 90%, headroom: 10%}")
	p, err := compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	a, err := newArm(p, sc, sc.Arms[1], 1)
	if err != nil {
		t.Fatal(err)
	}
	b := p.cells.svcs[1][0] // b/app
	i0, i1 := &a.insts[a.svcs[b].insts[0]], &a.insts[a.svcs[b].insts[1]]
	for _, c := range []struct {
		name         string
		busy, queued int
		cold         bool
		reserve      int
		grants       bool
	}{
		{"idle", 0, 0, false, 18, true},
		{"just below", 10, 7, false, 18, true},
		{"at the reserve", 10, 8, false, 18, false},
		{"queued counts", 2, 30, false, 18, false},
		{"one instance cold", 0, 8, true, 9, true},
		{"cold, at the reserve", 5, 4, true, 9, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			i0.busy, i0.queued, i1.busy, i1.queued = c.busy, 0, 0, c.queued
			i1.warm = !c.cold
			a.cellTick(time.Second)
			if got := a.cells.cells[1].reserve; got != c.reserve {
				t.Errorf("reserve %d, want %d", got, c.reserve)
			}
			if got := a.grants(1); got != c.grants {
				t.Errorf("grants %v with %d attempts held, want %v", got, c.busy+c.queued, c.grants)
			}
		})
	}
	i0.busy, i1.queued, i1.warm = 0, 0, true
}

// TestFailoverExample runs examples/failover: the baseline exports eu-west's overload
// into eu-central, which fails over too; the grant keeps eu-central healthy, refuses
// what it cannot carry and ends with more goodput.
func TestFailoverExample(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the failover example")
	}
	src, err := os.ReadFile("../examples/failover/failover.scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pk, err := Run(context.Background(), decode(t, string(src)), Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	base, prot := pk.Arms[0], pk.Arms[1]
	if base.Cells[1].Failovers == 0 || base.Cells[1].FailedOverIn == 0 {
		t.Errorf("baseline eu-central %+v; want it to take eu-west's traffic and fail over itself", base.Cells[1])
	}
	c := prot.Cells[1]
	if c.Failovers != 0 || c.RefusedByGrant == 0 || c.FailedOverIn == 0 {
		t.Errorf("protected eu-central %+v; want traffic taken within its grant, some refused, no failover", c)
	}
	if lost := c.Offered + c.FailedOverIn - c.FailedOverOut - c.Goodput; float64(lost) > 0.01*float64(c.Offered) {
		t.Errorf("protected eu-central lost %d of its requests; want at most 1%%", lost)
	}
	if prot.Totals.Goodput <= base.Totals.Goodput {
		t.Errorf("goodput: protected %d, baseline %d; want protected above", prot.Totals.Goodput, base.Totals.Goodput)
	}
}

// TestPanicMode takes 3 of 4 instances out of routing: without panic mode the router
// sends every attempt to the one left; with a 50% threshold (1 of 4 healthy is below it)
// it spreads them over all four, and with 2 of 4 healthy (not below 50%) it does not.
func TestPanicMode(t *testing.T) {
	const src = `
name: panic
clock: {duration: 10s}
load: {schedule: [{at: 0s, rate: 100/s}]}
classes: [{name: c, share: 100%, deadline: 1s, stages: [{name: w, work: 1s}]}]
topology:
  entries: [{name: edge, target: app}]
  services: [{name: app, instances: 4, workers: 1, PANIC}]
arms: [{name: only}]
`
	for _, c := range []struct {
		name     string
		panic    string
		out      int // instances out of routing
		spread   bool
		panicked bool
	}{
		{"no panic mode", "queue: {capacity: 0}", 3, false, false},
		{"one of four healthy", "panic_threshold: 50%", 3, true, true},
		{"two of four healthy", "panic_threshold: 50%", 2, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, a := firstArm(t, decode(t, strings.Replace(src, "PANIC", c.panic, 1)))
			for ii := range c.out {
				a.insts[ii].removed = true
				a.updateRoutable(int32(ii))
			}
			if got := a.panicking(0); got != c.panicked {
				t.Fatalf("panicking %v, want %v", got, c.panicked)
			}
			for id := range int64(40) {
				a.offer(0, 0, id)
			}
			onOut := 0
			for ii := range c.out {
				onOut += a.insts[ii].busy + a.insts[ii].queued
			}
			if got := onOut > 0; got != c.spread {
				t.Errorf("%d of 40 attempts on the %d instances out of routing; want spread %v", onOut, c.out, c.spread)
			}
		})
	}
}

// TestFailoverFrozenAndRefused offers requests at a fixed instant with cell a failed
// over: a load state that froze failover keeps them in a (counted as frozen); a grant
// that cell b cannot give refuses them, and with beyond: reject they are rejected.
func TestFailoverFrozenAndRefused(t *testing.T) {
	for _, c := range []struct {
		name, policy     string
		frozen, reserve0 bool
		moved, frozenN   bool
		refused, reject  bool
	}{
		{"moved", "{mode: health, below: 90%}", false, false, true, false, false, false},
		{"frozen", "{mode: health, below: 90%}", true, false, false, true, false, false},
		{"frozen grant", "{mode: grant, below: 90%}", true, false, false, true, false, false},
		{"beyond the grant, stays", "{mode: grant, below: 90%}", false, true, false, false, true, false},
		{"beyond the grant, rejected", "{mode: grant, below: 90%, beyond: reject}", false, true, false, false, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := cellScenario(t, "50%", "", c.policy)
			p, err := compile(sc)
			if err != nil {
				t.Fatal(err)
			}
			a, err := newArm(p, sc, sc.Arms[1], 1)
			if err != nil {
				t.Fatal(err)
			}
			a.cells.cells[0].out = true
			a.cells.cells[1].reserve = 1000
			if c.reserve0 {
				a.cells.cells[1].reserve = 0
			}
			a.pol.freezeFailover = c.frozen
			for id := range int64(100) {
				a.offer(0, 0, id)
			}
			ca, cb := a.cells.cells[0], a.cells.cells[1]
			if got := ca.FailedOverOut > 0 && ca.FailedOverOut == cb.FailedOverIn; got != c.moved {
				t.Errorf("moved out %d, in %d; want moved %v", ca.FailedOverOut, cb.FailedOverIn, c.moved)
			}
			if got := ca.FailoverFrozen > 0; got != c.frozenN {
				t.Errorf("frozen %d, want some %v", ca.FailoverFrozen, c.frozenN)
			}
			if got := cb.RefusedByGrant > 0; got != c.refused {
				t.Errorf("refused by b's grant %d, want some %v", cb.RefusedByGrant, c.refused)
			}
			rejected := a.rec.Finish(nil).RejectedBy["failover-refused"]
			if got := rejected > 0 && rejected == cb.RefusedByGrant; got != c.reject {
				t.Errorf("rejected failover-refused %d, want %v", rejected, c.reject)
			}
		})
	}
}

// TestCellsActionScales: an action that sets a declared service's instances scales every
// cell's copy of it.
func TestCellsActionScales(t *testing.T) {
	sc := cellScenario(t, "50%", "", "{mode: health, below: 90%}")
	sc.Actions = []scenario.Action{{At: scenario.Duration(10 * time.Second), Set: scenario.Sets{"topology.services.app.instances": int64(3)}}}
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	p, err := compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	a, _, err := armOf(p, sc, sc.Arms[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	a.begin()
	a.s.Run(15 * time.Second)
	for c, svcs := range a.p.cells.svcs {
		up := 0
		for _, ii := range a.svcs[svcs[0]].insts {
			if in := &a.insts[ii]; in.up && !in.retired {
				up++
			}
		}
		if up != 3 {
			t.Errorf("cell %s: %d instances up after the action, want 3", a.p.cells.names[c], up)
		}
	}
}
