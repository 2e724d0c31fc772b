package model

import (
	"math"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/internal/floatdur"
)

// A log-normal whose tail lies beyond a Duration's range saturates at floatdur.Max, in the
// table and in the exact tails alike, instead of wrapping to a negative duration (amd64) or
// turning NaN into 0; and every draw is monotone in u.
func TestLogNormalTailSaturates(t *testing.T) {
	for _, q := range []struct{ p50, p99 time.Duration }{
		{time.Millisecond, 1000 * time.Hour},
		{time.Millisecond, floatdur.Max},
		{time.Hour, floatdur.Max},
	} {
		l := newLogNormal(qs(q.p50, q.p99))
		prev := time.Duration(0)
		saturated := false
		for i := 1; i < qN; i++ {
			for _, u := range []float64{float64(i) / qN, (float64(i) + 0.5) / qN} {
				d := l.quantile(u)
				if d < prev {
					t.Fatalf("p50 %v p99 %v: quantile(%g) = %d, below quantile of a smaller u (%d)", q.p50, q.p99, u, d, prev)
				}
				prev = d
				saturated = saturated || d == floatdur.Max
			}
		}
		if d := l.quantile(math.Nextafter(1, 0)); d != floatdur.Max {
			t.Errorf("p50 %v p99 %v: quantile(1−ε) = %d, want floatdur.Max", q.p50, q.p99, d)
		}
		if !saturated {
			t.Errorf("p50 %v p99 %v: no quantile on the grid saturates; the case tests nothing", q.p50, q.p99)
		}
	}
}

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
