package budget

import (
	"testing"
	"time"
)

// BenchmarkAllow measures the budget's work for one request that is retried
// once: a Request (deposit) and an Allow (decision), with time advancing by
// 10µs per operation so buckets expire as they would at 100,000 requests/s.
// Half of the retries are allowed (Ratio 0.5), half refused as exhausted.
func BenchmarkAllow(b *testing.B) {
	r := Retry{Tenant: "t1", Failure: Timeout, Deduplicated: true, Remaining: 900 * time.Millisecond, Expected: 300 * time.Millisecond}
	for _, bc := range []struct {
		name string
		cfg  Config
	}{
		{"ratio", Config{Ratio: 0.5, TTL: 10 * time.Second}},
		{"ratio+tenants", Config{Ratio: 0.5, TTL: 10 * time.Second, TenantShare: 0.5}},
	} {
		b.Run(bc.name+"/serial", func(b *testing.B) {
			bud := newBudget(b, bc.cfg)
			now := t0
			b.ReportAllocs()
			for b.Loop() {
				now = now.Add(10 * time.Microsecond)
				bud.Request(now, r.Tenant)
				bud.Allow(now, r)
			}
		})
		b.Run(bc.name+"/parallel", func(b *testing.B) {
			bud := newBudget(b, bc.cfg)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				now := t0
				for pb.Next() {
					now = now.Add(10 * time.Microsecond)
					bud.Request(now, r.Tenant)
					bud.Allow(now, r)
				}
			})
		})
	}
	// A retry refused before the budget is consulted (overload response).
	b.Run("refused/serial", func(b *testing.B) {
		bud := newBudget(b, Finagle())
		ov := Retry{Failure: Overload}
		b.ReportAllocs()
		for b.Loop() {
			bud.Allow(t0, ov)
		}
	})
}
