package loadstate

import (
	"testing"
	"time"
)

// Revise starts a generation in the same state and ramp step, marked manual, without
// restarting the holds: a machine that was about to leave Pressured still leaves on time.
func TestRevise(t *testing.T) {
	t0 := time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC)
	cfg := Config{
		Gates:   Gates{QueueAge: DurationGate{Warn: 100 * time.Millisecond, Hard: time.Second, Exit: 50 * time.Millisecond}},
		Sustain: time.Second,
		Hold:    Holds{Pressured: 10 * time.Second, Protected: 10 * time.Second, Recovering: 10 * time.Second},
	}
	m, err := New(cfg, t0)
	if err != nil {
		t.Fatal(err)
	}
	hot := Signals{QueueAge: 200 * time.Millisecond, TriggerHealthy: true, Amplification: 1, ReadyReserve: 1}
	calm := Signals{QueueAge: 0, TriggerHealthy: true, Amplification: 1, ReadyReserve: 1}
	m.Step(t0, hot)
	if tr, ok := m.Step(t0.Add(time.Second), hot); !ok || tr.To != Pressured {
		t.Fatalf("no Pressured: %v %v", tr, ok)
	}
	m.Step(t0.Add(2*time.Second), calm) // the hold out of Pressured starts
	gen := m.Generation()
	tr := m.Revise(t0.Add(5*time.Second), "on-call raises the pool to 40")
	if tr.From != Pressured || tr.To != Pressured || !tr.Manual || tr.Generation != gen+1 || tr.Reason != "on-call raises the pool to 40" {
		t.Fatalf("Revise = %+v", tr)
	}
	if m.State() != Pressured || m.Generation() != gen+1 || m.Policy() != DefaultPolicies().Pressured {
		t.Errorf("after Revise: %v gen %d", m.State(), m.Generation())
	}
	if log := m.Log(); log[len(log)-1] != tr {
		t.Errorf("the log ends with %+v, want %+v", log[len(log)-1], tr)
	}
	// The hold started at 2s still ends at 12s.
	if _, ok := m.Step(t0.Add(11*time.Second), calm); ok {
		t.Error("left Pressured before its hold")
	}
	if tr, ok := m.Step(t0.Add(12*time.Second), calm); !ok || tr.To != Normal {
		t.Errorf("at 12s: %v %v; want Normal (the revision kept the hold)", tr, ok)
	}
	if tr := m.Revise(t0.Add(13*time.Second), ""); tr.Reason != "manual revision" {
		t.Errorf("empty reason: %q", tr.Reason)
	}
}
