package budget

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestMatchesMutexBudget is the differential property test of the lock-free
// Budget: driven from one goroutine by random call sequences, it must return
// exactly what refBudget, the mutex implementation it replaced (ref_test.go),
// returns — every Decision, SetRatio error, Ratio, Window, TenantWindow and
// Stats, compared after every call.
func TestMatchesMutexBudget(t *testing.T) {
	seeds := uint64(400)
	if testing.Short() || raceEnabled {
		seeds = 60
	}
	calls := 0
	var allowed, exhausted int64
	for seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 0xb0d6e7))
		cfg := Config{
			Ratio:        []float64{0, 0.02, 0.2, 0.29, 0.5, 1, 3}[r.IntN(7)],
			MinPerSecond: []float64{0, 0, 0.5, 1, 10}[r.IntN(5)],
			TTL:          []time.Duration{0, time.Second, 7 * time.Second, 10 * time.Second, time.Minute, time.Second + 30}[r.IntN(6)],
			TenantShare:  []float64{0, 0, 0, 0.25, 0.5, 1}[r.IntN(6)],
		}
		got, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		want, err := newRef(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ttl := cfg.TTL
		if ttl == 0 {
			ttl = DefaultTTL
		}
		now := t0.Add(time.Duration(r.Int64N(int64(time.Hour))) - 30*time.Minute)
		if seed%50 == 7 {
			now = time.Unix(0, math.MinInt64+int64(time.Hour)) // the far ends of UnixNano
		}
		if seed%50 == 8 {
			now = time.Unix(0, math.MaxInt64-int64(3*time.Hour))
		}
		backwards := seed%3 == 0 // a third of the sequences let time go back too
		for i := range 300 + r.IntN(1200) {
			width := int64(ttl) / Slices
			switch p := r.Float64(); {
			case p < 0.55:
				now = now.Add(time.Duration(r.Int64N(int64(ttl / 50))))
			case p < 0.6:
				// The first instant of the next bucket or slice, or the last of this one.
				w := width
				if r.IntN(2) == 0 {
					w = int64(Second / RateSlices)
				}
				now = want.next(now, w).Add(-time.Duration(r.IntN(2)))
			case p < 0.8:
				// same instant
			case p < 0.9:
				now = now.Add(time.Duration(r.Int64N(int64(ttl / 5))))
			case p < 0.97:
				now = now.Add(time.Duration(r.Int64N(int64(2 * ttl))))
			case p < 0.99 && backwards:
				now = now.Add(-time.Duration(r.Int64N(int64(ttl))))
			default:
				now = now.Add(time.Duration(r.Int64N(int64(24 * time.Hour))))
			}
			if now.UnixNano() == math.MaxInt64 || now.After(time.Unix(0, math.MaxInt64)) {
				now = time.Unix(0, math.MaxInt64) // stay where UnixNano is defined
			}
			tenant := []string{"", "a", "b", "c", "d"}[r.IntN(5)]
			what := ""
			switch op := r.IntN(100); {
			case op < 45:
				what = "Request"
				got.Request(now, tenant)
				want.Request(now, tenant)
			case op < 90:
				rt := Retry{
					Tenant:       tenant,
					Failure:      Failure(r.IntN(7)), // one beyond Canceled too
					Idempotent:   r.IntN(2) == 0,
					Deduplicated: r.IntN(3) == 0,
					Remaining:    []time.Duration{NoDeadline, 0, -time.Millisecond, time.Second, 300 * time.Millisecond}[r.IntN(5)],
					Expected:     []time.Duration{0, 100 * time.Millisecond, 400 * time.Millisecond, 2 * time.Second}[r.IntN(4)],
				}
				if r.IntN(2) == 0 { // mostly retries that reach the pool
					rt.Failure, rt.Idempotent, rt.Remaining = Transient, true, NoDeadline
				}
				what = fmt.Sprintf("Allow(%+v)", rt)
				g, w := got.Allow(now, rt), want.Allow(now, rt)
				if g != w {
					t.Fatalf("seed %d call %d (%v) at %v: %s = %+v; the mutex budget decides %+v", seed, i, cfg, now, what, g, w)
				}
				switch g.Reason {
				case ReasonAllowed:
					allowed++
				case ReasonExhausted:
					exhausted++
				}
			case op < 93:
				ratio := []float64{0, 0.001, 0.02, 0.2, 1, -1, math.NaN()}[r.IntN(7)]
				what = fmt.Sprintf("SetRatio(%v)", ratio)
				ge, we := got.SetRatio(now, ratio), want.SetRatio(now, ratio)
				if fmt.Sprint(ge) != fmt.Sprint(we) {
					t.Fatalf("seed %d call %d: %s = %v; the mutex budget returns %v", seed, i, what, ge, we)
				}
			case op < 97:
				what = "Window"
				if g, w := got.Window(now), want.Window(now); g != w {
					t.Fatalf("seed %d call %d (%v) at %v: Window = %+v; the mutex budget has %+v", seed, i, cfg, now, g, w)
				}
			default:
				what = "TenantWindow"
				if g, w := got.TenantWindow(now, tenant), want.TenantWindow(now, tenant); g != w {
					t.Fatalf("seed %d call %d (%v) at %v: TenantWindow(%q) = %+v; the mutex budget has %+v", seed, i, cfg, now, tenant, g, w)
				}
			}
			calls++
			if g, w := got.Stats(), want.Stats(); g != w {
				t.Fatalf("seed %d call %d (%v) after %s at %v: Stats = %+v; the mutex budget has %+v", seed, i, cfg, what, now, g, w)
			}
			if g, w := got.Ratio(), want.Ratio(); g != w {
				t.Fatalf("seed %d call %d: Ratio = %v; the mutex budget has %v", seed, i, g, w)
			}
		}
	}
	// The generator must reach both answers of the pool, or the test proves little.
	if allowed == 0 || exhausted < 100 {
		t.Fatalf("%d calls allowed %d retries and refused %d as exhausted; the generator misses the pool", calls, allowed, exhausted)
	}
}

// TestConcurrentInvariants hammers one budget from several goroutines, each
// with its own clock (so instants arrive slightly out of order), and checks
// the invariants that must survive any interleaving: every call is counted
// once, the window never holds a negative count, and no retry is allowed
// beyond the pool. Within one TTL nothing expires, so the bound is exact:
// retries ≤ Ratio × requests + MinPerSecond × TTL. Across TTLs (the window
// moving under the callers) a retry allowed in a TTL-long stretch of buckets
// was checked against a window that also covers the stretch before, so the
// bound is 2 × Ratio × requests plus a floor per stretch. Run with -race.
func TestConcurrentInvariants(t *testing.T) {
	for _, tc := range []struct {
		cfg     Config
		step    time.Duration // per call, per goroutine
		crosses bool          // whether the run spans more than one TTL
	}{
		{Config{Ratio: 0.1, TTL: 10 * time.Second}, time.Millisecond, false},
		{Config{Ratio: 0.05, MinPerSecond: 2, TTL: 10 * time.Second}, time.Millisecond, false},
		{Config{Ratio: 0.1, TTL: time.Second}, time.Millisecond, true},
		{Config{Ratio: 0.2, MinPerSecond: 10, TTL: time.Second}, time.Millisecond, true},
		{Config{Ratio: 0.1, TTL: time.Second, TenantShare: 0.5}, time.Millisecond, true},
	} {
		cfg := tc.cfg
		b := newBudget(t, cfg)
		const workers, per = 4, 3000
		var wg sync.WaitGroup
		var allowed, refused atomic.Int64
		for g := range workers {
			wg.Go(func() {
				tenant := string(rune('a' + g))
				now := t0.Add(time.Duration(g) * time.Microsecond)
				for i := range per {
					now = now.Add(tc.step)
					b.Request(now, tenant)
					d := b.Allow(now, Retry{Tenant: tenant, Failure: Timeout, Deduplicated: true, Remaining: NoDeadline})
					if d.Allowed {
						allowed.Add(1)
					} else {
						refused.Add(1)
					}
					if i%97 == 0 {
						if w := b.Window(now); w.Requests < 0 || w.Retries < 0 || w.Pool < 0 {
							t.Errorf("%+v: window %+v", cfg, w)
							return
						}
					}
				}
			})
		}
		wg.Wait()
		st := b.Stats()
		if st.Requests != workers*per || st.Retries != allowed.Load() || st.Suppressions() != refused.Load() ||
			st.Retries+st.Suppressions() != workers*per {
			t.Errorf("%+v: Stats %+v; the callers made %d deposits and saw %d allowed, %d refused",
				cfg, st, workers*per, allowed.Load(), refused.Load())
		}
		ttl := cfg.TTL
		floor := cfg.MinPerSecond * ttl.Seconds()
		bound := cfg.Ratio*float64(st.Requests) + floor + epsilon
		if tc.crosses {
			stretches := float64(per*tc.step/ttl) + 2
			bound = 2*cfg.Ratio*float64(st.Requests) + stretches*floor + epsilon
		}
		if float64(st.Retries) > bound {
			t.Errorf("%+v: %d retries allowed for %d requests, more than %.1f", cfg, st.Retries, st.Requests, bound)
		}
		if st.Retries == 0 || st.Suppressed[ReasonExhausted] == 0 {
			t.Errorf("%+v: %+v; the run should both allow and exhaust", cfg, st)
		}
		if !tc.crosses {
			// Nothing expired: the window holds every call.
			end := t0.Add(per * tc.step)
			if w := b.Window(end); w.Requests != st.Requests || w.Retries != st.Retries {
				t.Errorf("%+v: window %+v, stats %+v", cfg, w, st)
			}
		}
	}
}

// BenchmarkAgainstMutex puts one Request and one Allow of the lock-free
// Budget beside the mutex implementation it replaced (refBudget), from one
// goroutine and under b.RunParallel, in one run:
//
//	go test -run '^$' -bench AgainstMutex ./control/budget/
func BenchmarkAgainstMutex(b *testing.B) {
	type budget interface {
		Request(time.Time, string)
		Allow(time.Time, Retry) Decision
	}
	for _, impl := range []struct {
		name string
		new  func() budget
	}{
		{"mutex", func() budget { r, _ := newRef(Finagle()); return r }},
		{"lockfree", func() budget { return newBudget(b, Finagle()) }},
	} {
		retry := Retry{Failure: Timeout, Deduplicated: true, Remaining: time.Second, Expected: 200 * time.Millisecond}
		b.Run(impl.name+"/serial", func(b *testing.B) {
			bu := impl.new()
			now := t0
			b.ReportAllocs()
			for b.Loop() {
				now = now.Add(time.Microsecond)
				bu.Request(now, "")
				bu.Allow(now, retry)
			}
		})
		b.Run(impl.name+"/parallel", func(b *testing.B) {
			bu := impl.new()
			var worker atomic.Int64
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				now := t0.Add(time.Duration(worker.Add(1)))
				for pb.Next() {
					now = now.Add(time.Microsecond)
					bu.Request(now, "")
					bu.Allow(now, retry)
				}
			})
		})
	}
}
