package loadstate

import (
	"testing"
	"time"
)

// BenchmarkPolicy measures the per-request lookup of the policy in force,
// from one goroutine and under b.RunParallel.
func BenchmarkPolicy(b *testing.B) {
	m := mustNew(b, northstar())
	m.Override(t14, Recovering, "bench") // the ramp's admission applies
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if m.Policy().AdmissionScale != 0.5 {
				b.Fatal("wrong policy")
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if m.Snapshot().Generation != 2 {
					b.Error("wrong generation")
					return
				}
			}
		})
	})
}

// BenchmarkStep measures a control-interval Step that makes no transition.
func BenchmarkStep(b *testing.B) {
	m := mustNew(b, northstar())
	s := calm
	s.QueueAge = 220 * time.Millisecond // between exit and warn: gates evaluated, no transition
	now := t14
	b.ReportAllocs()
	for b.Loop() {
		now = now.Add(time.Second)
		if _, ok := m.Step(now, s); ok {
			b.Fatal("unexpected transition")
		}
	}
}
