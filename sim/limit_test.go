package sim

import (
	"testing"
	"time"
)

// TestRunLimit: RunLimit stops a run whose events never end (a handler that schedules
// itself at once) after n events, and runs a finite one to its end as Run does.
func TestRunLimit(t *testing.T) {
	tests := []struct {
		name      string
		delay     time.Duration // the handler's delay before its next event; <0: none
		n         uint64
		done      bool
		processed uint64
		now       time.Duration
	}{
		{"endless at one instant", 0, 100, false, 100, 0},
		{"endless in time, stopped by n", time.Millisecond, 50, false, 50, 49 * time.Millisecond},
		{"finite", -1, 100, true, 1, time.Second},
		{"until first", time.Millisecond, 5000, true, 1001, time.Second},
		{"no budget", 0, 0, false, 0, 0},
	}
	for _, tt := range tests {
		s := New(time.Time{})
		var h HandlerFunc
		h = func(s *Sim, e Event) {
			if tt.delay >= 0 {
				s.Schedule(tt.delay, h, 0, 0)
			}
		}
		s.Schedule(0, h, 0, 0)
		done := s.RunLimit(time.Second, tt.n)
		if done != tt.done || s.Processed() != tt.processed || s.Elapsed() != tt.now {
			t.Errorf("%s: RunLimit = %v, %d events, clock %v; want %v, %d, %v", tt.name, done, s.Processed(), s.Elapsed(), tt.done, tt.processed, tt.now)
		}
	}
}
