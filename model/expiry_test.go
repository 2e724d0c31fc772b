package model

import (
	"testing"
	"time"
)

// TestExpiredCountedWhenTheCallerGaveUp checks that a request whose caller gave up is
// counted, in the series, in the tick the caller gave up in, not in the tick its orphaned
// work ends in: requests offered in the first second expire at their 400ms deadline
// (the entry waits 500ms), while the server works on each of them for 3s.
func TestExpiredCountedWhenTheCallerGaveUp(t *testing.T) {
	sc := decode(t, `
name: orphans
clock: {duration: 10s, tick: 1s}
load: {arrivals: uniform, schedule: [{at: 0s, rate: 50/s}, {at: 1s, rate: 0/s}]}
classes: [{name: c, share: 100%, deadline: 400ms, stages: [{name: w, work: 3s}]}]
topology:
  entries: [{name: e, target: s, timeout: 500ms}]
  services: [{name: s, instances: 1, workers: 100}]
arms:
  - name: baseline
    policy: {}
  - name: deadline
    policy: {deadline: {propagate: true}}
`)
	p := fates(t, sc, 1)
	for _, a := range p.Arms {
		if a.Totals.Expired == 0 || a.Totals.Expired != a.Totals.Admitted {
			t.Fatalf("%s: %d of %d admitted requests expired, want all", a.Name, a.Totals.Expired, a.Totals.Admitted)
		}
		var early int64
		for _, row := range a.Series {
			if row.Expired == 0 {
				continue
			}
			if row.T >= 2*time.Second {
				t.Errorf("%s: %d expired counted in the tick at %v; the callers gave up before 1.4s", a.Name, row.Expired, row.T)
			}
			early += row.Expired
			if row.LatencyP99 == 0 {
				t.Errorf("%s: the tick at %v counts %d expired but has no latency", a.Name, row.T, row.Expired)
			}
		}
		if early != a.Totals.Expired {
			t.Errorf("%s: %d expired in the first two ticks, %d in all", a.Name, early, a.Totals.Expired)
		}
		if a.Name == "baseline" && a.Totals.Orphans == 0 {
			t.Errorf("baseline: no orphans; the test needs work that outlives its caller")
		}
	}
}
