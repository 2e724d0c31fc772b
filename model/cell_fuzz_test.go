package model

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/scenario"
)

// addCells is FuzzReplay's cells mutation: two or three cells with random shares (one
// with a per-cell instance count), a shared dependency, a router's panic threshold, and a
// failover policy for each arm. The alerts and triggers that name a service or a
// dependency are moved to the first cell's copy, as a scenario with cells must name them.
func addCells(sc *scenario.Scenario, z *fuzzBytes) {
	if len(sc.Cells) > 0 {
		return
	}
	t := &sc.Topology
	n := z.between(2, 3)
	left := 100
	for i := range n {
		share := left
		if i < n-1 {
			share = z.between(1, left-(n-1-i))
		}
		left -= share
		sc.Cells = append(sc.Cells, scenario.Cell{Name: fmt.Sprintf("c%d", i), Share: scenario.Fraction(float64(share) / 100)})
	}
	if len(t.Services) > 0 && z.bool() {
		s := t.Services[z.intn(len(t.Services))]
		sc.Cells[n-1].Set = scenario.Sets{"services." + s.Name + ".instances": int64(z.between(1, 4))}
	}
	if len(t.Dependencies) > 0 && z.bool() {
		t.Dependencies[z.intn(len(t.Dependencies))].Shared = true
	}
	if len(t.Services) > 0 && z.bool() {
		t.Services[z.intn(len(t.Services))].PanicThreshold = scenario.Fraction(float64(z.between(1, 10)) / 10)
	}
	first := sc.Cells[0].Name
	qualify := func(name string, dep bool) string {
		if name == "" || strings.Contains(name, "/") {
			return name
		}
		for _, d := range t.Dependencies {
			if dep && d.Name == name && d.Shared {
				return name
			}
		}
		return scenario.CellName(first, name)
	}
	for i := range sc.Alerts {
		if r := sc.Alerts[i].Resource; r != nil {
			r.Dependency, r.Service = qualify(r.Dependency, true), qualify(r.Service, false)
		}
	}
	for i := range sc.Arms {
		pol := &sc.Arms[i].Policy
		if ls := pol.LoadState; ls != nil && ls.Trigger != "" {
			ls.Trigger = qualify(ls.Trigger, true)
		}
		if z.bool() {
			f := &scenario.FailoverPolicy{Mode: scenario.FailoverHealth, Below: scenario.Fraction(float64(z.between(1, 10)) / 10),
				Window: z.dur(sc.Clock.Tick.Std(), 3*sc.Clock.Tick.Std()+1), For: z.dur(0, 2*sc.Clock.Tick.Std()), Hold: z.dur(0, 3*sc.Clock.Tick.Std())}
			if z.bool() {
				f.Signal = scenario.SignalHealthyInstances
			}
			if z.bool() {
				f.Mode, f.Headroom = scenario.FailoverGrant, scenario.Fraction(float64(z.between(0, 5))/10)
				if z.bool() {
					f.Beyond = scenario.GrantReject
				}
			}
			if z.bool() {
				f.Share = scenario.Fraction(float64(z.between(1, 10)) / 10)
			}
			pol.Failover = f
		}
	}
}

// cellSeeds are FuzzReplay inputs that give a base cells (mutation 24): the minimal
// scenario, the small one, Northstar and Northstar with health checks, shrunk.
var cellSeeds = [][]byte{
	{0, 24, 0, 40, 1, 1, 1, 1, 1, 8, 100, 50, 100, 0, 1, 2, 1, 0},
	{2, 24, 1, 30, 20, 1, 1, 1, 1, 9, 0, 0, 0, 1, 1, 1, 0, 1, 5},
	{3, 24, 0, 50, 1, 1, 1, 1, 8, 0, 255, 255, 0, 1, 3, 1, 0, 1, 7},
	{4, 24, 1, 10, 10, 0, 1, 1, 1, 1, 5, 200, 0, 0, 1, 1, 1},
}

// TestCellSeeds checks that every cell seed gives a valid scenario with cells, and
// replays it as FuzzReplay does.
func TestCellSeeds(t *testing.T) {
	for i, in := range cellSeeds {
		z := &fuzzBytes{b: in}
		var base *scenario.Scenario
		switch k := z.intn(len(fuzzBases) + 1); k {
		case 0:
			base = minimalScenario()
		default:
			path := fuzzBases[k-1]
			var err error
			if path == "small" {
				base, err = scenario.Decode("small.scenario.yaml", []byte(small))
			} else {
				base, err = scenario.Load(filepath.Join("..", path))
			}
			if err != nil {
				t.Fatal(err)
			}
			base = shrink(base, 5*time.Second)
		}
		sc, err := copyScenario(base)
		if err != nil {
			t.Fatal(err)
		}
		for len(z.b) > 0 {
			mutate(sc, z)
		}
		if len(sc.Cells) == 0 || !slices.ContainsFunc(sc.Arms, func(a scenario.Arm) bool { return a.Policy.Failover != nil }) {
			t.Errorf("seed %d: cells %v and no arm with a failover policy", i, sc.Cells)
			continue
		}
		if err := sc.Validate(); err != nil {
			t.Errorf("seed %d: %v", i, err)
			continue
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkReplay(t, sc, 1) })
	}
}
