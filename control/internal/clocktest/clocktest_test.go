package clocktest

import (
	"testing"
	"time"
)

func TestWallStep(t *testing.T) {
	now := time.Now()
	for _, d := range []time.Duration{-time.Hour, -time.Second, 0, 3 * time.Second, 24 * time.Hour} {
		u, ok := WallStep(now, d)
		if !ok {
			t.Fatalf("WallStep(now, %v): layout of time.Time not recognised", d)
		}
		if got := u.Sub(now); got != 0 {
			t.Errorf("WallStep(now, %v).Sub(now) = %v, want 0 (same monotonic reading)", d, got)
		}
		if got := u.Round(0).Sub(now.Round(0)); got != d {
			t.Errorf("wall readings differ by %v, want %v", got, d)
		}
		if later := u.Add(time.Second); later.Sub(now) != time.Second {
			t.Errorf("a second after the step is %v after now on the monotonic clock", later.Sub(now))
		}
	}
	if _, ok := WallStep(now.Round(0), time.Second); ok {
		t.Error("WallStep of an instant without a monotonic reading succeeded")
	}
}
