package model

import (
	"fmt"
	"testing"

	"github.com/goodput-lab/goodput/packet"
)

// breakerScenario is one service of two instances calling a dependency of 10 ms that
// fails 40% of calls from 5s to 15s (%s: the dependency's extra settings); the protected
// arm's breakers open at 25% failures over 2s (%s: the breaker's extra settings).
const breakerScenario = `
name: breaker
clock: {duration: 25s, tick: 1s}
load:
  arrivals: uniform
  schedule: [{at: 0s, rate: 200/s}]
classes:
  - name: request
    share: 100%%
    deadline: 2s
    stages:
      - {name: call, dependency: d}
topology:
  entries:
    - {name: clients, target: api}
  services:
    - {name: api, instances: 2, workers: 100}
  dependencies:
    - {name: d, service_time: {p50: 10ms, p99: 10ms}, timeout: 500ms%s}
faults:
  - {at: 5s, for: 10s, dependency: d, error_rate: 40%%}
arms:
  - {name: baseline, policy: {}}
  - name: protected
    policy:
      breakers:
        - {dependency: d, threshold: 25%%, window: 2s, min_volume: 20, open_for: 1s, max_open_for: 4s, probes: 3%s}
`

// depCalls is the calls of dependency d in arm a.
func depCalls(a *packet.Arm) int64 {
	for _, d := range a.Dependencies {
		if d.Name == "d" {
			return d.Calls
		}
	}
	return -1
}

// TestBreakerOpensOnFailures: a dependency failing 40% of calls opens every instance's
// breaker within the window; refused calls fail fast and are not made, so the protected
// arm makes fewer calls than the baseline; once the dependency heals the breakers close
// through their half-open probes.
func TestBreakerOpensOnFailures(t *testing.T) {
	pk := fates(t, decode(t, fmt.Sprintf(breakerScenario, "", "")), 1)
	base, prot := armNamed(t, pk, "baseline"), armNamed(t, pk, "protected")
	if len(base.Breakers) != 0 {
		t.Errorf("baseline has breakers %+v; want none", base.Breakers)
	}
	if len(prot.Breakers) != 1 {
		t.Fatalf("protected breakers %+v; want one for d", prot.Breakers)
	}
	b := prot.Breakers[0]
	if b.Trips < 2 || b.Refused == 0 || b.FirstTrip == nil {
		t.Fatalf("breakers %+v; want both instances' breakers tripped and calls refused", b)
	}
	if *b.FirstTrip < 5 || *b.FirstTrip > 7 {
		t.Errorf("first trip at %vs; want within the 2s window after the fault at 5s", *b.FirstTrip)
	}
	if bc, pc := depCalls(base), depCalls(prot); pc >= bc-b.Refused/2 {
		t.Errorf("protected made %d calls, baseline %d, %d refused; want the refused calls not made", pc, bc, b.Refused)
	}
	// Every instance's breaker ends closed: its last event goes to Closed.
	last := map[int]string{}
	for _, e := range prot.Events {
		if e.Kind != "breaker" {
			continue
		}
		if e.Dependency != "d" || e.Instance == nil {
			t.Fatalf("breaker event %+v names no dependency or instance", e)
		}
		last[*e.Instance] = e.To
		if e.T.Seconds() < 5 {
			t.Errorf("breaker event before the fault: %+v", e)
		}
	}
	if len(last) != 2 {
		t.Errorf("breaker events for instances %v; want both", last)
	}
	for i, s := range last {
		if s != "Closed" {
			t.Errorf("instance %d's breaker ends %s; want Closed after the dependency heals", i, s)
		}
	}
	if b.Closes < 2 {
		t.Errorf("closes %d; want each breaker closed through its probes", b.Closes)
	}
}
