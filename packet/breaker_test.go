package packet

import (
	"slices"
	"testing"
	"time"
)

// TestBreakerFigures: the breakers' figures count trips, reopens and closes (not a new
// process's breaker), the refusals by reason and the first trip; the timeline lists the
// trips, the closes and a new process's breaker, not the half-open probe cycles, at most
// MaxBreakerEvents of them, then one note, while the figures count every change.
func TestBreakerFigures(t *testing.T) {
	r := NewRecorder(Config{Arm: "a", Tick: time.Second, Duration: time.Minute})
	r.Breakers("pay", "bank")
	r.BreakerRefused(2*time.Second, "pay", "breaker-open")
	r.BreakerRefused(2*time.Second, "pay", "probe-limit")
	r.BreakerRefused(3*time.Second, "pay", "breaker-open")
	r.BreakerState(1500*time.Millisecond, "pay", 3, "Closed", "Open", false)
	r.BreakerState(2*time.Second, "pay", 3, "Open", "HalfOpen", false)
	r.BreakerState(2*time.Second, "pay", 3, "HalfOpen", "Open", false)
	r.BreakerState(3*time.Second, "pay", 3, "Open", "HalfOpen", false)
	r.BreakerState(3*time.Second, "pay", 3, "HalfOpen", "Closed", false)
	r.BreakerState(4*time.Second, "pay", 1, "HalfOpen", "Closed", true)
	var listed []string
	for _, e := range r.events {
		listed = append(listed, e.From+" → "+e.To)
	}
	if want := []string{"Closed → Open", "HalfOpen → Closed", "HalfOpen → Closed"}; !slices.Equal(listed, want) {
		t.Errorf("timeline lists %q; want the trip, the close and the new process's breaker", listed)
	}
	for range MaxBreakerEvents - 3 {
		r.BreakerState(5*time.Second, "pay", 2, "Closed", "Open", false)
	}
	r.BreakerState(6*time.Second, "pay", 2, "Open", "HalfOpen", false) // counted, not listed
	r.BreakerState(6*time.Second, "pay", 2, "HalfOpen", "Open", false)
	r.BreakerState(7*time.Second, "pay", 2, "Closed", "Open", false) // beyond the list
	a := r.Finish(nil)
	if len(a.Breakers) != 2 || a.Breakers[1].Dependency != "bank" || a.Breakers[1].Trips != 0 {
		t.Fatalf("breakers %+v; want pay and bank, bank idle", a.Breakers)
	}
	b := a.Breakers[0]
	if b.Trips != MaxBreakerEvents-1 || b.Reopens != 2 || b.Closes != 1 || b.Refused != 3 ||
		b.RefusedBy["breaker-open"] != 2 || b.RefusedBy["probe-limit"] != 1 || b.FirstTrip == nil || *b.FirstTrip != 1.5 {
		t.Errorf("pay's figures %+v", b)
	}
	n, notes := 0, 0
	for _, e := range a.Events {
		if e.Kind != "breaker" {
			continue
		}
		if e.Instance == nil {
			notes++
			continue
		}
		n++
		if e.Dependency != "pay" {
			t.Errorf("event %+v names no dependency", e)
		}
	}
	if n != MaxBreakerEvents || notes != 1 {
		t.Errorf("%d breaker events and %d notes; want %d and 1", n, notes, MaxBreakerEvents)
	}
}
