package sim

import (
	"testing"

	"github.com/goodput-lab/goodput/internal/floatdur"
)

// TestDrawsSaturate checks that exponential draws beyond a Duration's range saturate at
// floatdur.Max, as they do on every architecture, instead of wrapping to a negative
// duration (amd64's conversion of an out-of-range float gives math.MinInt64).
func TestDrawsSaturate(t *testing.T) {
	r := NewStreams(1).Stream("test")
	saturated := 0
	for range 100_000 {
		e := Exponential(r, floatdur.Max)
		if e < 0 {
			t.Fatalf("Exponential(Max) = %d, negative", e)
		}
		if e == floatdur.Max {
			saturated++
		}
	}
	if saturated == 0 {
		t.Error("no draw of Exponential(Max) saturated; the case tests nothing")
	}
}
