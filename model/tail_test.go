package model

import (
	"testing"
	"time"
)

// A shift that leaves a rate far below one arrival per run draws gaps beyond a Duration's
// range. They saturate, so no arrival comes during the shift; before, amd64 wrapped them
// to math.MinInt64, "now", and the arm sent request after request at the shift's start
// (forever with uniform arrivals).
func TestTinyShiftOffersNothing(t *testing.T) {
	for _, arrivals := range []string{"poisson", "uniform"} {
		t.Run(arrivals, func(t *testing.T) {
			sc := decode(t, `
name: tiny-shift
clock: {duration: 30s, tick: 1s}
load:
  arrivals: `+arrivals+`
  schedule: [{at: 0s, rate: 50/s}]
classes:
  - {name: c, share: 100%, deadline: 1s, stages: [{name: w, work: 1ms}]}
topology:
  entries: [{name: edge, target: app}]
  services: [{name: app, instances: 1, workers: 4}]
faults:
  - {at: 10s, for: 10s, shift: {rate: 0.0000000000001x}}
arms:
  - {name: only, policy: {}}
`)
			pk := fates(t, sc, 1)
			for _, row := range pk.Arms[0].Series {
				in := row.T >= 10*time.Second && row.T < 20*time.Second
				if in && row.Offered != 0 {
					t.Errorf("t=%v: offered %d during the shift, want 0", row.T, row.Offered)
				}
				if !in && row.T > 0 && row.T < 29*time.Second && row.Offered == 0 {
					t.Errorf("t=%v: offered nothing outside the shift", row.T)
				}
			}
		})
	}
}
