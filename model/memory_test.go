package model

import (
	"context"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/scenario"
)

// footprint is what an arm holds for its work in flight, in objects: the slabs' high-water
// marks (requests' records, overflow attempts and calls), the capacity of its timer queues
// and of its pools' and dependencies' waiting lists, and the most events pending in its
// engine and keys remembered by its idempotency ledgers at any tick seen.
type footprint struct {
	records, attempts, calls, timers, waiting, pending, ledger int
}

// observe adds what the arm holds now to f's high-water marks.
func (f *footprint) observe(a *arm) {
	f.records = max(f.records, int(a.sl.recs.n))
	f.attempts = max(f.attempts, int(a.sl.atts.n))
	f.calls = max(f.calls, int(a.sl.calls.n))
	timers, waiting, ledger := 0, 0, 0
	for i := range a.tqs {
		timers += len(a.tqs[i].buf)
	}
	for i := range a.insts {
		for j := range a.insts[i].pools {
			waiting += len(a.insts[i].pools[j].waiters.buf)
		}
	}
	for i := range a.deps {
		waiting += len(a.deps[i].queue.buf)
	}
	for _, l := range a.ledgers {
		if l != nil {
			ledger += l.l.Stats().Live
		}
	}
	f.timers = max(f.timers, timers)
	f.waiting = max(f.waiting, waiting)
	f.pending = max(f.pending, a.s.Pending())
	f.ledger = max(f.ledger, ledger)
}

// TestMemoryFollowsWorkInFlight checks that an arm's memory is bounded by its work in
// flight, not by the number of requests it has handled: the small scenario replayed for
// 20 s and for 80 s (its faults all in the first 20 s, the same load after them) offers
// about five times the requests in the longer run, and each arm's footprint stays about
// what the first 20 s needed. Slabs that stopped recycling requests, or timer queues or
// waiting lists that kept dead entries, would grow with the requests.
func TestMemoryFollowsWorkInFlight(t *testing.T) {
	measure := func(d time.Duration) (offered []int64, fps []footprint) {
		sc := decode(t, small)
		sc.Clock.Duration = scenario.Duration(d)
		// A third arm retries as the baseline does, with identity: its keyed dependency
		// remembers the repeated requests in its ledger.
		keyed := sc.Arms[0]
		keyed.Name, keyed.Policy.Identity = "keyed", true
		sc.Arms = append(sc.Arms, keyed)
		p, err := compile(sc)
		if err != nil {
			t.Fatal(err)
		}
		for _, ad := range sc.Arms {
			a, err := newArm(p, sc, ad, 5)
			if err != nil {
				t.Fatal(err)
			}
			var f footprint
			pa, err := a.run(context.Background(), func(time.Duration) { f.observe(a) })
			if err != nil {
				t.Fatal(err)
			}
			f.observe(a)
			offered = append(offered, pa.Totals.Offered)
			fps = append(fps, f)
		}
		return offered, fps
	}
	shortOff, short := measure(20 * time.Second)
	longOff, long := measure(80 * time.Second)
	for i := range short {
		t.Logf("arm %d: offered %d → %d; footprint %+v → %+v", i, shortOff[i], longOff[i], short[i], long[i])
		if longOff[i] < 4*shortOff[i] {
			t.Fatalf("arm %d: offered %d in 80 s against %d in 20 s; want at least 4×", i, longOff[i], shortOff[i])
		}
		// A quarter more, and a little, for the fluctuations of a longer run.
		within := func(name string, s, l int) {
			if l > s+s/4+8 {
				t.Errorf("arm %d: %s %d after 80 s against %d after 20 s: it grows with the requests", i, name, l, s)
			}
		}
		s, l := short[i], long[i]
		within("records", s.records, l.records)
		within("overflow attempts", s.attempts, l.attempts)
		within("overflow calls", s.calls, l.calls)
		within("timer queue capacity", s.timers, l.timers)
		within("waiting list capacity", s.waiting, l.waiting)
		within("pending events", s.pending, l.pending)
		within("ledger keys", s.ledger, l.ledger)
	}
	if short[2].ledger == 0 {
		t.Errorf("the keyed arm's ledger remembered no key: the test no longer exercises it")
	}
}
