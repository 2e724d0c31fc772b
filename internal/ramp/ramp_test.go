package ramp

import (
	"math"
	"testing"
)

// The gap integrates the linear rate to e, rising or falling, at fixed instants; a rate
// that falls to zero first has none.
func TestGap(t *testing.T) {
	for _, tc := range []struct {
		r0, slope, e float64
		want         float64 // -1: none
	}{
		{100, 0, 1, 0.01}, // constant: e/r0
		{0, 200, 1, 0.1},  // from zero: g²·100 = 1
		{100, 100, 1.5, (math.Sqrt(10300) - 100) / 100}, // 100g + 50g² = 1.5
		{10, -10, 6, -1}, // integrates to 5 at most
		{10, -10, 5, 1},  // exactly at the zero
		{0, 0, 1, -1},
	} {
		g, ok := Gap(tc.r0, tc.slope, tc.e)
		switch {
		case tc.want < 0 && ok:
			t.Errorf("Gap(%v, %v, %v) = %v; want none", tc.r0, tc.slope, tc.e, g)
		case tc.want >= 0 && (!ok || math.Abs(g-tc.want) > 1e-12):
			t.Errorf("Gap(%v, %v, %v) = %v, %v; want %v", tc.r0, tc.slope, tc.e, g, ok, tc.want)
		}
		if ok {
			if got := tc.r0*g + tc.slope*g*g/2; math.Abs(got-tc.e) > 1e-9 {
				t.Errorf("Gap(%v, %v, %v) = %v integrates to %v", tc.r0, tc.slope, tc.e, g, got)
			}
		}
	}
	if got := Rate(10, -4, 3); got != 0 {
		t.Errorf("Rate(10, -4, 3) = %v; want 0 (not below)", got)
	}
	if got := Rate(10, 4, 0.5); got != 12 {
		t.Errorf("Rate(10, 4, 0.5) = %v; want 12", got)
	}
}
