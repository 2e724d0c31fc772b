package nanotime

import (
	"testing"
	"time"

	"github.com/goodput-lab/goodput/control/internal/clocktest"
)

// TestEpoch compares Epoch.Since with time.Time.Sub over bases and instants with and without
// monotonic readings, near and far, and with the wall clock stepped.
func TestEpoch(t *testing.T) {
	t0 := time.Date(2026, 3, 10, 14, 0, 0, 500, time.UTC)
	now := time.Now()
	instants := []time.Time{
		{}, t0, t0.Add(1800 * time.Millisecond), t0.Add(-time.Nanosecond), t0.In(time.FixedZone("X", 3600)),
		t0.AddDate(250, 0, 0), t0.AddDate(-300, 0, 0), time.Unix(1<<62, 0), time.Unix(-1<<62, 0),
		now, now.Add(time.Second), now.Add(-3 * time.Millisecond), now.Round(0), now.Round(0).Add(time.Hour),
	}
	for _, d := range []time.Duration{-time.Hour, time.Hour} {
		if u, ok := clocktest.WallStep(now.Add(time.Second), d); ok {
			instants = append(instants, u)
		}
	}
	for _, base := range instants {
		e := NewEpoch(base)
		if !e.Base().Equal(base) {
			t.Errorf("Base() = %v, want %v", e.Base(), base)
		}
		for _, at := range instants {
			if got, want := e.Since(at), at.Sub(base); got != want {
				t.Errorf("NewEpoch(%v).Since(%v) = %v, want %v", base, at, got, want)
			}
		}
	}
}
