package budget

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// event is one deposit or allowed retry as the naive model records it, at
// its effective instant: the latest instant seen so far, since time going
// backwards counts as no time passed.
type event struct {
	at     time.Time
	retry  bool
	tenant string
}

// scenario draws a random configuration and a random sequence of calls:
// mostly small steps forward, sometimes backwards, sometimes a jump of many
// TTLs, with occasional ratio changes.
type scenario struct {
	cfg   Config
	calls []call
}

type call struct {
	now      time.Time
	deposit  bool
	tenant   string
	setRatio float64 // > 0: SetRatio to this before the call
}

func drawScenario(r *rand.Rand, changeRatio bool) scenario {
	cfg := Config{
		Ratio:        []float64{0, 0.02, 0.2, 0.29, 0.5, 1, 3}[r.IntN(7)],
		MinPerSecond: []float64{0, 0, 0.5, 1, 10}[r.IntN(5)],
		TTL:          []time.Duration{time.Second, 7 * time.Second, 10 * time.Second, time.Minute, time.Second + 30}[r.IntN(5)],
		TenantShare:  []float64{0, 0, 0.25, 0.5, 1}[r.IntN(5)],
	}
	now := t0
	var calls []call
	for range 400 + r.IntN(800) {
		switch p := r.Float64(); {
		case p < 0.85:
			now = now.Add(time.Duration(r.Int64N(int64(cfg.TTL / 20))))
		case p < 0.95:
			now = now.Add(-time.Duration(r.Int64N(int64(cfg.TTL))))
		case p < 0.99:
			now = now.Add(time.Duration(r.Int64N(int64(3 * cfg.TTL))))
		default:
			now = now.Add(time.Duration(r.Int64N(int64(24 * time.Hour))))
		}
		c := call{now: now, deposit: r.Float64() < 0.7, tenant: []string{"", "a", "b", "c"}[r.IntN(4)]}
		if changeRatio && r.Float64() < 0.01 {
			c.setRatio = []float64{0.001, 0.02, 0.2, 1}[r.IntN(4)]
		}
		calls = append(calls, c)
	}
	return scenario{cfg: cfg, calls: calls}
}

// TestMatchesNaiveModel checks every decision of the ring against a naive
// model that keeps every event and counts the ones in the current bucket
// window.
func TestMatchesNaiveModel(t *testing.T) {
	for seed := range uint64(200) {
		sc := drawScenario(rand.New(rand.NewPCG(seed, 1)), true)
		b := newBudget(t, sc.cfg)
		ttl := sc.cfg.TTL
		width := int64(ttl) / Slices
		reserve := sc.cfg.MinPerSecond * ttl.Seconds()
		ratio := sc.cfg.Ratio
		// The first call moves the window: buckets and slices count from the
		// start of its bucket, which a bucket of the Unix epoch's would begin.
		base := sc.calls[0].now.Add(-time.Duration(sc.calls[0].now.UnixNano() - floorDiv(sc.calls[0].now.UnixNano(), width)*width))
		slice := int64(Second / RateSlices)
		var log []event
		var latest time.Time
		for i, c := range sc.calls {
			if c.now.After(latest) || latest.IsZero() {
				latest = c.now
			}
			if c.setRatio > 0 {
				if err := b.SetRatio(c.now, c.setRatio); err != nil {
					t.Fatal(err)
				}
				ratio = c.setRatio
			}
			if c.deposit {
				b.Request(c.now, c.tenant)
				log = append(log, event{at: latest, tenant: c.tenant})
				continue
			}
			// Naive: count the events whose bucket is within Slices of now's,
			// and those whose slice is within RateSlices+1 of now's.
			since := func(at time.Time) int64 { return int64(at.Sub(base)) }
			cur, q := floorDiv(since(latest), width), floorDiv(since(latest), slice)
			var reqs, rets, trets, rreqs, rrets int64
			// Effective instants never decrease, so the window is a suffix of the log.
			for j := len(log) - 1; j >= 0; j-- {
				e := log[j]
				inWindow := floorDiv(since(e.at), width) > cur-Slices
				k := floorDiv(since(e.at), slice)
				if !inWindow && k < q-RateSlices {
					break
				}
				switch {
				case e.retry && k >= q-RateSlices:
					rrets++
				case !e.retry && k >= q-RateSlices:
					rreqs++
				}
				if !inWindow {
					continue
				}
				if e.retry {
					rets++
					if e.tenant == c.tenant {
						trets++
					}
				} else {
					reqs++
				}
			}
			pool := ratio*float64(reqs) + reserve
			recent := max(1, ratio*float64(rreqs)+sc.cfg.MinPerSecond)
			want := ReasonAllowed
			switch {
			case sc.cfg.TenantShare > 0 && float64(trets+1) > sc.cfg.TenantShare*pool+epsilon:
				want = ReasonTenantShare
			case float64(rets+1) > pool+epsilon || float64(rrets+1) > recent+epsilon:
				want = ReasonExhausted
			}
			got := b.Allow(c.now, Retry{Tenant: c.tenant, Failure: Transient, Idempotent: true, Remaining: NoDeadline})
			if got.Reason != want {
				t.Fatalf("seed %d call %d (%+v, cfg %+v): Allow = %v; naive model says %v (reqs %d rets %d tenant rets %d pool %.3f; last second reqs %d rets %d pool %.3f)",
					seed, i, c, sc.cfg, got.Reason, want, reqs, rets, trets, pool, rreqs, rrets, recent)
			}
			if got.Allowed {
				log = append(log, event{at: latest, retry: true, tenant: c.tenant})
			}
		}
	}
}

// TestRetriesBounded checks the budget's promise in terms of time rather
// than buckets: whenever a retry is allowed at (effective) instant T, the
// retries allowed in the last TTL less one bucket, [T−TTL+width, T], number
// at most Ratio × the requests in (T−TTL, T] plus MinPerSecond×TTL, and each
// tenant's at most TenantShare of that.
func TestRetriesBounded(t *testing.T) {
	for seed := range uint64(200) {
		sc := drawScenario(rand.New(rand.NewPCG(seed, 2)), false)
		b := newBudget(t, sc.cfg)
		ttl := sc.cfg.TTL
		width := time.Duration(int64(ttl) / Slices)
		floor := sc.cfg.MinPerSecond * ttl.Seconds()
		var log []event
		var latest time.Time
		allowed := 0
		for i, c := range sc.calls {
			if c.now.After(latest) || latest.IsZero() {
				latest = c.now
			}
			if c.deposit {
				b.Request(c.now, c.tenant)
				log = append(log, event{at: latest, tenant: c.tenant})
				continue
			}
			if !b.Allow(c.now, Retry{Tenant: c.tenant, Failure: Timeout, Deduplicated: true, Remaining: NoDeadline}).Allowed {
				continue
			}
			allowed++
			log = append(log, event{at: latest, retry: true, tenant: c.tenant})
			T := latest
			var reqs, rets, trets int64
			for j := len(log) - 1; j >= 0 && log[j].at.After(T.Add(-ttl)); j-- {
				e := log[j]
				if e.retry && !e.at.Before(T.Add(-ttl+width)) {
					rets++
					if e.tenant == c.tenant {
						trets++
					}
				}
				if !e.retry {
					reqs++
				}
			}
			bound := sc.cfg.Ratio*float64(reqs) + floor
			if float64(rets) > bound+epsilon {
				t.Fatalf("seed %d call %d: %d retries in the window ending %v, more than %.2f×%d requests + %.1f floor",
					seed, i, rets, T.Sub(t0), sc.cfg.Ratio, reqs, floor)
			}
			// The rate bound: the retries in [T−1s, T] number at most
			// max(1, Ratio × the requests in [T−1s−slice, T] + MinPerSecond).
			var sreqs, srets int64
			for j := len(log) - 1; j >= 0 && !log[j].at.Before(T.Add(-Second-Second/RateSlices)); j-- {
				switch {
				case !log[j].retry:
					sreqs++
				case !log[j].at.Before(T.Add(-Second)):
					srets++
				}
			}
			if sb := max(1, sc.cfg.Ratio*float64(sreqs)+sc.cfg.MinPerSecond); float64(srets) > sb+epsilon {
				t.Fatalf("seed %d call %d: %d retries in the second ending %v, more than max(1, %.2f×%d requests in it and the slice before + %.1f)",
					seed, i, srets, T.Sub(t0), sc.cfg.Ratio, sreqs, sc.cfg.MinPerSecond)
			}
			if sc.cfg.TenantShare > 0 && float64(trets) > sc.cfg.TenantShare*bound+epsilon {
				t.Fatalf("seed %d call %d: tenant %q has %d retries, more than %.2f of %.2f", seed, i, c.tenant, trets, sc.cfg.TenantShare, bound)
			}
		}
		if testing.Verbose() && seed < 3 {
			fmt.Printf("seed %d: %+v, %d calls, %d retries allowed\n", seed, sc.cfg, len(sc.calls), allowed)
		}
	}
}

func FuzzParseReason(f *testing.F) {
	for r := range NumReasons {
		f.Add(r.String())
	}
	f.Add("Reason(7)")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseReason(s)
		if err != nil {
			return
		}
		if r >= NumReasons || r.String() != s {
			t.Fatalf("ParseReason(%q) = %v, which does not print back", s, r)
		}
	})
}
