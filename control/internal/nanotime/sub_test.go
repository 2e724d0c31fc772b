package nanotime

import (
	"math"
	"testing"
	"time"
)

// TestSub compares Sub with time.Time.Sub on instants with and without monotonic readings,
// near each other and at the extremes, where time.Time.Sub saturates.
func TestSub(t *testing.T) {
	t0 := time.Date(2026, 3, 10, 14, 0, 0, 500, time.UTC)
	wall := time.Now()
	mono := wall.Add(0) // keeps the monotonic reading
	instants := []time.Time{
		{}, t0, t0.Add(1800 * time.Millisecond), t0.Add(-time.Nanosecond), t0.In(time.FixedZone("X", 3600)),
		t0.AddDate(250, 0, 0), t0.AddDate(-250, 0, 0), t0.AddDate(300, 0, 0), t0.AddDate(-300, 0, 0),
		time.Unix(math.MaxInt64/2, 999_999_999), time.Unix(-math.MaxInt64/2, 0),
		time.Unix(math.MaxInt64-1e10, 0), time.Unix(math.MinInt64+1e11, 0),
		mono, mono.Add(time.Second), mono.Add(-3 * time.Millisecond), wall.Round(0), wall.Round(0).Add(time.Hour),
		time.Unix(0, math.MaxInt64), time.Unix(0, math.MinInt64),
	}
	for _, a := range instants {
		for _, b := range instants {
			if got, want := Sub(a, b), a.Sub(b); got != want {
				t.Errorf("Sub(%v, %v) = %v, want %v", a, b, got, want)
			}
		}
	}
}

func BenchmarkSub(b *testing.B) {
	t0 := time.Date(2026, 3, 10, 14, 0, 0, 500, time.UTC)
	t1 := t0.Add(1800 * time.Millisecond)
	b.Run("nanotime", func(b *testing.B) {
		var d time.Duration
		for b.Loop() {
			d += Sub(t1, t0)
		}
		_ = d
	})
	b.Run("time", func(b *testing.B) {
		var d time.Duration
		for b.Loop() {
			d += t1.Sub(t0)
		}
		_ = d
	})
}
