package sim

import (
	"math"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/internal/floatdur"
)

// TestDrawsSaturate checks that draws beyond a Duration's range saturate at floatdur.Max,
// as they do on every architecture, instead of wrapping to a negative duration (amd64's
// conversion of an out-of-range float gives math.MinInt64).
func TestDrawsSaturate(t *testing.T) {
	heavy := NewLogNormal(time.Millisecond, floatdur.Max) // sigma ≈ 12.9: the tail overflows
	for _, tc := range []struct {
		name string
		got  time.Duration
		want time.Duration
	}{
		{"log-normal quantile near 1", heavy.Quantile(1 - 1e-9), floatdur.Max},
		{"log-normal quantile at 1", heavy.Quantile(1), floatdur.Max},
		{"log-normal quantile at 0", heavy.Quantile(0), 0},
		{"log-normal mean", heavy.Mean(), floatdur.Max},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %d, want %d", tc.name, tc.got, tc.want)
		}
	}
	r := NewStreams(1).Stream("test")
	saturated := 0
	for range 100_000 {
		d := heavy.Sample(r)
		if d < 0 {
			t.Fatalf("LogNormal.Sample = %d, negative", d)
		}
		if d == floatdur.Max {
			saturated++
		}
		if e := Exponential(r, floatdur.Max); e < 0 {
			t.Fatalf("Exponential(Max) = %d, negative", e)
		}
	}
	// P(z > (ln 2⁶³ − ln 1e6)/sigma = z99) is 1%.
	if want := 1000.0; math.Abs(float64(saturated)-want) > 5*math.Sqrt(want) {
		t.Errorf("%d of 100000 draws saturated, want about %v", saturated, want)
	}
}
