package scenario

import (
	"strings"
	"testing"
)

// cellBase is a valid scenario with two cells; each case of TestCellErrors replaces one
// piece of it.
const cellBase = `name: cells
clock: {duration: 1m}
load: {schedule: [{at: 0s, rate: 100/s}]}
classes:
  - name: buy
    share: 100%
    deadline: 1s
    stages:
      - {name: charge, dependency: pay}
      - {name: log, dependency: ledger}
cells:
  - {name: west, share: 60%}
  - {name: east, share: 40%, set: {services.shop.instances: 1}}
topology:
  entries:
    - {name: web, target: shop, timeout: 500ms}
  services:
    - {name: shop, instances: 2, workers: 4, panic_threshold: 50%}
  dependencies:
    - {name: pay, service_time: {p50: 10ms, p99: 40ms}}
    - {name: ledger, service_time: {p50: 10ms, p99: 40ms}, shared: true}
faults:
  - {at: 10s, for: 20s, dependency: west/pay, service_time: {p50: 1s, p99: 2s}}
arms:
  - name: baseline
    policy: {failover: {mode: health, below: 90%}}
  - name: protected
    policy: {failover: {mode: grant, below: 90%, headroom: 10%, beyond: reject}}
`

func TestCellsDecode(t *testing.T) {
	sc, err := Decode("c.scenario.yaml", []byte(cellBase))
	if err != nil {
		t.Fatal(err)
	}
	x, lay, err := sc.ExpandCells()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range x.Topology.Services {
		names = append(names, s.Name)
	}
	for _, d := range x.Topology.Dependencies {
		names = append(names, d.Name)
	}
	if got := strings.Join(names, " "); got != "west/shop east/shop ledger west/pay east/pay" {
		t.Errorf("expanded names %q", got)
	}
	if x.Topology.Services[1].Instances != 1 || x.Topology.Services[0].Instances != 2 {
		t.Errorf("east's set not applied: %+v", x.Topology.Services)
	}
	if lay[1].Dependencies[1] != lay[0].Dependencies[1] || lay[1].Dependencies[0] == lay[0].Dependencies[0] {
		t.Errorf("layout %+v: want ledger shared, pay per cell", lay)
	}
	if x.Topology.Entries[1].Target != "east/shop" || x.Faults[0].Dependency != "west/pay" {
		t.Errorf("entries %+v faults %+v", x.Topology.Entries, x.Faults)
	}
}

// TestCellFaultEveryCell: a fault naming a per-cell dependency without a cell is one
// fault per cell; one naming a shared dependency stays one.
func TestCellFaultEveryCell(t *testing.T) {
	src := strings.Replace(cellBase, "dependency: west/pay,", "dependency: pay,", 1)
	src = strings.Replace(src, "faults:\n", "faults:\n  - {at: 5s, dependency: ledger, error_rate: 5%}\n", 1)
	sc, err := Decode("c.scenario.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	x, _, err := sc.ExpandCells()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range x.Faults {
		got = append(got, f.Dependency)
	}
	if strings.Join(got, " ") != "ledger west/pay east/pay" {
		t.Errorf("faults on %q", got)
	}
}

func TestCellErrors(t *testing.T) {
	for _, tt := range []struct {
		name, from, to, want string
	}{
		{"shares", "{name: east, share: 40%,", "{name: east, share: 30%,",
			"c.scenario.yaml:11:1: cells: cell shares sum to 90%; expected them to sum to 100%"},
		{"one cell", "  - {name: west, share: 60%}\n  - {name: east, share: 40%, set: {services.shop.instances: 1}}\n", "  - {name: west, share: 100%}\n",
			"cells: one cell; expected at least two cells"},
		{"duplicate cell", "{name: east, share: 40%,", "{name: west, share: 40%,",
			`c.scenario.yaml:13:12: cells[1].name: cell "west" is declared twice`},
		{"a slash", "{name: east, share: 40%,", "{name: e/ast, share: 40%,",
			`cells[1].name: name "e/ast" has a "/"`},
		{"unknown cell", "dependency: west/pay,", "dependency: north/pay,",
			`c.scenario.yaml:23:37: faults[0].dependency: cell "north" is not declared; expected one of "west", "east" (as cell/pay)`},
		{"unknown copy", "dependency: west/pay,", "dependency: west/pya,",
			`faults[0].dependency: dependency "west/pya" is not declared`},
		{"a per-cell set naming an unknown path", "set: {services.shop.instances: 1}", "set: {services.shp.instances: 1}",
			`c.scenario.yaml:13:60: cells[1].set['services.shp.instances']: set topology.services.shp.instances=1: topology.services has no element named "shp" (its elements are shop)`},
		{"a per-cell set with a bad value", "set: {services.shop.instances: 1}", "set: {services.shop.instances: 0}",
			`cells[1].set['services.shop.instances']: set topology.services.shop.instances=0: topology.services[0].instances: instances is 0; expected at least 1`},
		{"a per-cell set on a shared dependency", "set: {services.shop.instances: 1}", "set: {dependencies.ledger.timeout: 1s}",
			`cells[1].set: cell "east" changes dependency "ledger", which every cell shares`},
		{"a bare alert name", "faults:\n", "alerts:\n  - {name: pool, metric: utilisation, above: 90%, resource: {of: concurrency, dependency: pay}}\nfaults:\n",
			`alerts[0].resource.dependency: "pay" has a copy in every cell; expected one cell's copy, e.g. west/pay`},
		{"a bare trigger", "policy: {failover: {mode: health, below: 90%}}", "policy: {failover: {mode: health, below: 90%}, loadstate: {trigger: pay}}",
			`arms[0].policy.loadstate.trigger: "pay" has a copy in every cell`},
		{"a class naming a copy", "{name: charge, dependency: pay}", "{name: charge, dependency: west/pay}",
			`classes[0].stages[0].dependency: dependency "west/pay" names a cell's copy`},
		{"unknown mode", "{mode: health, below: 90%}", "{mode: healthy, below: 90%}",
			`c.scenario.yaml:26:31: arms[0].policy.failover.mode: unknown failover mode "healthy"; expected health or grant`},
		{"no threshold", "{mode: health, below: 90%}", "{mode: health}",
			`arms[0].policy.failover.below: below is 0%; expected the share under which a cell is unhealthy`},
		{"headroom without grant", "{mode: health, below: 90%}", "{mode: health, below: 90%, headroom: 5%}",
			`arms[0].policy.failover.headroom: headroom is the grant's; expected mode: grant or no headroom`},
		{"beyond", "beyond: reject", "beyond: drop",
			`arms[1].policy.failover.beyond: unknown beyond "drop"; expected origin or reject`},
		{"a short window", "{mode: health, below: 90%}", "{mode: health, below: 90%, window: 10ms}",
			`arms[0].policy.failover.window: window 10ms is shorter than a tick (1s)`},
		{"panic threshold", "panic_threshold: 50%", "panic_threshold: 150%",
			`topology.services[0].panic_threshold`},
		{"an arm setting the cells", "policy: {failover: {mode: health, below: 90%}}", "policy: {failover: {mode: health, below: 90%}}\n    set: {cells.east.share: 50%}",
			`arms[0].set['cells.east.share']: arm "baseline" may not set cells.east.share: every arm is offered the same cells`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(cellBase, tt.from) {
				t.Fatalf("the base has no %q", tt.from)
			}
			src := strings.Replace(cellBase, tt.from, tt.to, 1)
			_, err := Decode("c.scenario.yaml", []byte(src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error:\n%v\nwant one containing\n%s", err, tt.want)
			}
		})
	}
}

// TestNoCellsErrors: failover and shared need cells.
func TestNoCellsErrors(t *testing.T) {
	src := strings.Replace(cellBase, "cells:\n  - {name: west, share: 60%}\n  - {name: east, share: 40%, set: {services.shop.instances: 1}}\n", "", 1)
	src = strings.Replace(src, "west/pay", "pay", 1)
	_, err := Decode("c.scenario.yaml", []byte(src))
	for _, want := range []string{
		"topology.dependencies[1].shared: shared is set, but the scenario has no cells",
		"arms[0].policy.failover: failover moves traffic between cells, but the scenario has no cells",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error:\n%v\nwant one containing\n%s", err, want)
		}
	}
}
