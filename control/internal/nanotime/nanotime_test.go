package nanotime

import (
	"testing"
	"time"

	"github.com/goodput-lab/goodput/control/internal/clocktest"
)

func TestNanos(t *testing.T) {
	var c Clock
	t0 := time.Date(2026, 3, 10, 14, 0, 0, 500, time.UTC)
	for _, tc := range []struct {
		at   time.Time
		want int64
	}{
		{t0, 500},
		{t0.Add(1500 * time.Millisecond), 1_500_000_500},
		{t0.Add(-time.Second), -999_999_500},
		{time.Time{}, -limit},                   // far past saturates
		{t0.AddDate(400, 0, 0), limit},          // far future saturates
		{t0.In(time.FixedZone("X", 3600)), 500}, // the zone does not matter
	} {
		if got := c.Nanos(tc.at); got != tc.want {
			t.Errorf("Nanos(%v) = %d, want %d", tc.at, got, tc.want)
		}
	}
}

// TestNanosMonotonic steps the wall clock between readings: the clock follows the monotonic
// reading, as t.Sub does.
func TestNanosMonotonic(t *testing.T) {
	now := time.Now()
	var c Clock
	c.Nanos(now)
	for _, step := range []time.Duration{-time.Hour, time.Hour, -24 * time.Hour} {
		u, ok := clocktest.WallStep(now.Add(2*time.Second), step)
		if !ok {
			t.Skip("time.Time layout not recognised")
		}
		if got, want := c.Nanos(u), int64(2*time.Second)+int64(now.Nanosecond()); got != want {
			t.Errorf("wall clock stepped by %v: Nanos = %v, want %v", step, time.Duration(got), time.Duration(want))
		}
	}
}
