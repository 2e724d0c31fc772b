package floatdur

import (
	"math"
	"testing"
	"time"
)

func TestTruncAndRound(t *testing.T) {
	below := math.Nextafter(limit, 0) // 2⁶³ − 1024, the largest float64 below 2⁶³
	for _, tc := range []struct {
		name       string
		ns         float64
		trunc, rnd time.Duration
		inRange    bool
	}{
		{"zero", 0, 0, 0, true},
		{"negative zero", math.Copysign(0, -1), 0, 0, true},
		{"whole", 1500, 1500, 1500, true},
		{"fraction truncates toward zero", 2.7, 2, 3, true},
		{"half rounds away from zero", 2.5, 2, 3, true},
		{"negative fraction", -2.7, -2, -3, true},
		{"negative half", -2.5, -2, -3, true},
		{"one second", 1e9, time.Second, time.Second, true},
		{"seconds times a float", 0.35 * float64(time.Second), time.Duration(0.35 * float64(time.Second)), 350 * time.Millisecond, true},
		{"largest below 2^63", below, time.Duration(1<<63 - 1024), time.Duration(1<<63 - 1024), true},
		{"smallest above -2^63", -below, -time.Duration(1<<63 - 1024), -time.Duration(1<<63 - 1024), true},
		{"2^63", limit, Max, Max, false},
		{"-2^63", -limit, Min, Min, false},
		{"MaxInt64 as a float", math.MaxInt64, Max, Max, false},
		{"1e300", 1e300, Max, Max, false},
		{"-1e300", -1e300, Min, Min, false},
		{"+Inf", math.Inf(1), Max, Max, false},
		{"-Inf", math.Inf(-1), Min, Min, false},
		{"NaN", math.NaN(), 0, 0, false},
		{"largest float64", math.MaxFloat64, Max, Max, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Trunc(tc.ns); got != tc.trunc {
				t.Errorf("Trunc(%g) = %d, want %d", tc.ns, got, tc.trunc)
			}
			if got := Round(tc.ns); got != tc.rnd {
				t.Errorf("Round(%g) = %d, want %d", tc.ns, got, tc.rnd)
			}
			if got := InRange(tc.ns); got != tc.inRange {
				t.Errorf("InRange(%g) = %v, want %v", tc.ns, got, tc.inRange)
			}
		})
	}
}

// TestMinNegates checks the documented reason Min is not math.MinInt64.
func TestMinNegates(t *testing.T) {
	if -Min != Max {
		t.Errorf("-Min = %d, want Max %d", -Min, Max)
	}
}

// TestInRangeMatchesConversion checks that within the range Trunc is exactly the plain
// conversion the call sites used before, over values across the whole range.
func TestInRangeMatchesConversion(t *testing.T) {
	for e := -10; e < 63; e++ {
		for _, m := range []float64{1, 1.2345678901, 1.5, 1.9999999} {
			for _, s := range []float64{1, -1} {
				ns := s * m * math.Ldexp(1, e)
				if !InRange(ns) {
					continue
				}
				if got, want := Trunc(ns), time.Duration(ns); got != want {
					t.Errorf("Trunc(%g) = %d, want time.Duration(%g) = %d", ns, got, ns, want)
				}
				if got, want := Round(ns), time.Duration(math.Round(ns)); got != want {
					t.Errorf("Round(%g) = %d, want %d", ns, got, want)
				}
			}
		}
	}
}
