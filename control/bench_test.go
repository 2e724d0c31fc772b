package control_test

import (
	"testing"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	gobreaker "github.com/sony/gobreaker/v2"
	"golang.org/x/time/rate"
)

// BenchmarkProtectedPath compares goodput's full per-request decision path with the cost of
// single controls in peer libraries, side by side in one run. goodput and gobreaker run from
// one goroutine; their -parallel variants share one instance between GOMAXPROCS goroutines
// under b.RunParallel, as the handlers of one server do, and their -handlers variants
// between eight goroutines per GOMAXPROCS, as a busy server's handlers outnumber its cores:
//
//	go test -run '^$' -bench ProtectedPath -benchmem ./control/
func BenchmarkProtectedPath(b *testing.B) {
	noop := func() error { return nil }

	newGobreaker := func() *gobreaker.CircuitBreaker[struct{}] {
		return gobreaker.NewCircuitBreaker[struct{}](gobreaker.Settings{Name: "bench", Interval: 30 * time.Second})
	}
	gbFn := func() (struct{}, error) { return struct{}{}, noop() }

	b.Run("gobreaker", func(b *testing.B) {
		cb := newGobreaker()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := cb.Execute(gbFn); err != nil {
				b.Fatal(err)
			}
		}
	})
	gobreakerParallel := func(par int) func(b *testing.B) {
		return func(b *testing.B) {
			cb := newGobreaker()
			b.ReportAllocs()
			b.SetParallelism(par)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := cb.Execute(gbFn); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
	}
	b.Run("gobreaker-parallel", gobreakerParallel(1))
	b.Run("gobreaker-handlers", gobreakerParallel(handlersPerCPU))
	b.Run("rate", func(b *testing.B) {
		lim := rate.NewLimiter(rate.Inf, 1)
		t0 := time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			if !lim.AllowN(t0.Add(time.Duration(i)*time.Microsecond), 1) {
				b.Fatal("rejected")
			}
		}
	})
	b.Run("failsafe", func(b *testing.B) {
		rp := retrypolicy.NewBuilder[any]().WithMaxRetries(2).Build()
		cb := circuitbreaker.NewBuilder[any]().WithFailureRateThreshold(0.25, 20, 30*time.Second).Build()
		exec := failsafe.With[any](rp, cb)
		b.ReportAllocs()
		for b.Loop() {
			if err := exec.Run(noop); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("goodput", benchGoodputSerial)
	b.Run("goodput-parallel", benchGoodputPath)
	b.Run("goodput-handlers", benchGoodputHandlers)
}
