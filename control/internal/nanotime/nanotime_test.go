package nanotime

import (
	"testing"
	"time"
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
		{time.Time{}, -limit*1e9 + 0},            // far past saturates
		{t0.AddDate(400, 0, 0), limit*1e9 + 500}, // far future saturates
		{t0.In(time.FixedZone("X", 3600)), 500},  // the zone does not matter
	} {
		if got := c.Nanos(tc.at); got != tc.want {
			t.Errorf("Nanos(%v) = %d, want %d", tc.at, got, tc.want)
		}
	}
}
