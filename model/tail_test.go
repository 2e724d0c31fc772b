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
