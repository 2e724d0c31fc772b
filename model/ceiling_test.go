package model

import (
	"fmt"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/packet"
)

// ceilingScenario is 19 checkouts offered over the first second (one each 50 ms from 50 ms), each with a 60 s deadline,
// calling a dependency that hangs every call, retried twice on a timeout; the arm derives
// its call timeouts from the deadline less a 100 ms reserve (%s: the rest of its deadline
// policy, %s: its breakers).
const ceilingScenario = `
name: ceiling
clock: {duration: 10s, tick: 1s}
load:
  arrivals: uniform
  schedule: [{at: 0s, rate: 20/s}, {at: 1s, rate: 0/s}]
classes:
  - name: checkout
    share: 100%%
    deadline: 60s
    stages:
      - {name: pay, dependency: d}
topology:
  entries:
    - {name: web, target: api}
  services:
    - {name: api, instances: 1, workers: 100}
  dependencies:
    - {name: d, service_time: {p50: 10ms, p99: 10ms}, hang_rate: 100%%, timeout: 1s, retries: {max: 2, on: [timeout]}}
arms:
  - name: derived
    policy:
      dependency_timeout: derived
      deadline: {propagate: true, reserve: 100ms%s}%s
`

// TestDerivedTimeoutCeiling is the table of when a hung call of a request with most of a
// 60 s deadline left ends: at the ceiling (2 s, three tries: 6 s), at the library's 30 s
// default when none is declared (the retry then gets the 29.9 s the deadline leaves, short
// of the ceiling), or at the deadline less the reserve with none; with or without
// cancellation (the request's reserve timer, or each call's own).
func TestDerivedTimeoutCeiling(t *testing.T) {
	for _, tc := range []struct {
		name, deadline string
		calls          int64         // calls per request
		latency        time.Duration // every request's, to the millisecond
	}{
		{"2s ceiling, cancel", ", cancel: true, ceiling: 2s", 3, 6 * time.Second},
		{"2s ceiling, no cancel", ", ceiling: 2s", 3, 6 * time.Second},
		{"default ceiling", ", cancel: true", 2, 59900 * time.Millisecond},
		{"no ceiling", ", cancel: true, ceiling: none", 1, 59900 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := fates(t, decode(t, fmt.Sprintf(ceilingScenario, tc.deadline, "")), 1).Arms[0]
			if a.Totals.Admitted != 19 || a.Totals.Failed != 19 {
				t.Fatalf("totals %+v; want 19 admitted, all failed", a.Totals)
			}
			if got := layerAttempts(&a, "d"); got != tc.calls*19 {
				t.Errorf("%d calls; want %d per request", got, tc.calls)
			}
			l := a.Classes[0].Latency
			near := func(d time.Duration) bool { return (d - tc.latency).Abs() <= tc.latency/1000 }
			if !near(l.P50) || !near(l.P99) {
				t.Errorf("latency p50 %v, p99 %v; want every request ending at %v", l.P50, l.P99, tc.latency)
			}
		})
	}
}

// TestCeilingTimeoutsTripBreaker: a call cut at the ceiling is the dependency's timeout,
// which the breaker counts as a failure, so hung calls open it (and the open breaker stops
// the retries); without a ceiling every timeout is the caller's deadline's, which the
// breaker ignores.
func TestCeilingTimeoutsTripBreaker(t *testing.T) {
	const brk = "\n      breakers: [{dependency: d, threshold: 25%, window: 10s, min_volume: 5, open_for: 1m}]"
	for _, tc := range []struct {
		name, deadline string
		trips          bool
		firstTrip      float64 // seconds, when it trips
	}{
		{"2s ceiling", ", cancel: true, ceiling: 2s", true, 2.25},
		{"no ceiling", ", cancel: true, ceiling: none", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := fates(t, decode(t, fmt.Sprintf(ceilingScenario, tc.deadline, brk)), 1).Arms[0]
			b := a.Breakers[0]
			if got := b.Trips > 0; got != tc.trips {
				t.Fatalf("trips %d; want tripped %v", b.Trips, tc.trips)
			}
			if !tc.trips {
				return
			}
			if b.FirstTrip == nil || *b.FirstTrip != tc.firstTrip {
				t.Errorf("first trip at %v; want %vs, at the fifth call cut at the ceiling", ptrOr(b.FirstTrip), tc.firstTrip)
			}
			// The open breaker stops retries: no request makes its three tries.
			if got := layerAttempts(&a, "d"); got >= 3*19 {
				t.Errorf("%d calls; want fewer than three per request with the breaker open", got)
			}
			if a.Totals.Suppressed == 0 {
				t.Errorf("no retries suppressed; want the open breaker to stop them")
			}
		})
	}
}

// layerAttempts is the attempts made at layer name of arm a (a dependency's: its calls,
// answered or not).
func layerAttempts(a *packet.Arm, name string) int64 {
	for _, l := range a.Layers {
		if l.Name == name {
			return l.Attempts
		}
	}
	return -1
}

// ptrOr is *p, or -1 for nil.
func ptrOr(p *float64) float64 {
	if p == nil {
		return -1
	}
	return *p
}
