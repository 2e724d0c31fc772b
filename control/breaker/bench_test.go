package breaker

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/sony/gobreaker/v2"
)

// BenchmarkAllowRecord measures one Allow and one Record on a closed breaker,
// from one goroutine and under b.RunParallel.
func BenchmarkAllowRecord(b *testing.B) {
	b.Run("serial", func(b *testing.B) {
		br := mustNew(b, Config{})
		now := t0
		b.ReportAllocs()
		for b.Loop() {
			now = now.Add(time.Microsecond)
			t, err := br.Allow(now)
			if err != nil {
				b.Fatal(err)
			}
			br.Record(now, t, Success)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		br := mustNew(b, Config{})
		var worker atomic.Int64
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			// Each goroutine keeps its own clock; instants that fall behind
			// another goroutine's are clamped by the breaker.
			now := t0.Add(time.Duration(worker.Add(1)) * time.Nanosecond)
			for pb.Next() {
				now = now.Add(time.Microsecond)
				t, err := br.Allow(now)
				if err != nil {
					b.Error(err)
					return
				}
				br.Record(now, t, Success)
			}
		})
	})
}

// BenchmarkAllowOpen measures the fast rejection of an open breaker.
func BenchmarkAllowOpen(b *testing.B) {
	br := mustNew(b, Config{})
	br.ForceOpen(t0)
	now := t0
	b.ReportAllocs()
	for b.Loop() {
		now = now.Add(time.Microsecond)
		if _, err := br.Allow(now); err == nil {
			b.Fatal("allowed while open")
		}
	}
}

// BenchmarkGobreaker is the reference: sony/gobreaker v2 Execute of a no-op
// (it reads time.Now twice per call), configured as close to AI-2 as it
// allows (a 30 s rolling interval of 3 s buckets, 25% over at least 20).
func BenchmarkGobreaker(b *testing.B) {
	newCB := func() *gobreaker.CircuitBreaker[struct{}] {
		return gobreaker.NewCircuitBreaker[struct{}](gobreaker.Settings{
			Name:         "ai2",
			Interval:     30 * time.Second,
			BucketPeriod: 3 * time.Second,
			Timeout:      10 * time.Second,
			MaxRequests:  3,
			ReadyToTrip: func(c gobreaker.Counts) bool {
				return c.Requests >= 20 && float64(c.TotalFailures) >= 0.25*float64(c.Requests)
			},
		})
	}
	noop := func() (struct{}, error) { return struct{}{}, nil }
	b.Run("serial", func(b *testing.B) {
		cb := newCB()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := cb.Execute(noop); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		cb := newCB()
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := cb.Execute(noop); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
