package admission

import (
	"testing"
	"time"
)

// mixedWindow drives one window of fixed concurrency: as many of want
// requests as the limit admits start at start, and each sample of samples
// (cycled) is the measurement of one of them; the window closes at
// start+1s. It returns how many were admitted.
func mixedWindow(c *Controller, start time.Time, want int, samples []Sample) int {
	n := 0
	for range want {
		if c.Admit(start, Request{Class: samples[0].Class}).Admitted {
			n++
		}
	}
	for i := range n {
		s := samples[i%len(samples)]
		c.Done(start.Add(s.Latency), s)
	}
	c.Admit(start.Add(time.Second), Request{Slack: -1}) // closes the window
	return n
}

// TestSlowFailuresLowerTheLimit is issue 24's first admission finding at the
// controller: with no queueing delay measured (nobody called
// controlhttp.Started) and nothing dropped, answers that fail slowly — a
// handler whose dependency timed out after 300 ms — are an overload signal,
// and AIMD lowers the limit. Fast failures (a dependency refusing at once)
// are not: the limit stays.
func TestSlowFailuresLowerTheLimit(t *testing.T) {
	ok := Sample{Class: Standard, Latency: 20 * time.Millisecond}
	for _, tc := range []struct {
		name      string
		samples   []Sample
		wantBelow int // the limit after 10 windows is below this
		wantAbove int // and at least this
	}{
		{
			name:    "slow 503s",
			samples: append([]Sample{ok}, repeat(Sample{Class: Standard, Latency: 300 * time.Millisecond, Failed: true}, 9)...),
			// Nine in ten overloaded: each window halves the limit (the step is capped
			// at a half), 200 → 1 within 10 windows, as nothing here gets better.
			wantBelow: 4, wantAbove: 1,
		},
		{
			name:    "one slow 503 in ten",
			samples: append(repeat(ok, 9), Sample{Class: Standard, Latency: 300 * time.Millisecond, Failed: true}),
			// The step is the overloaded fraction, 0.1 (above Decrease's 0.05):
			// 200 × 0.9^10 ≈ 70.
			wantBelow: 76, wantAbove: 64,
		},
		{
			// Failures that took 300 ms of the 1.8 s their callers allowed: an error
			// retried and given up on well inside the deadline, not a full service.
			name:      "503s well inside their deadline",
			samples:   append([]Sample{ok}, repeat(Sample{Class: Standard, Latency: 300 * time.Millisecond, Failed: true, Slack: 1800 * time.Millisecond}, 9)...),
			wantBelow: 201, wantAbove: 200,
		},
		{
			name:      "503s after most of their deadline",
			samples:   append([]Sample{ok}, repeat(Sample{Class: Standard, Latency: 300 * time.Millisecond, Failed: true, Slack: 550 * time.Millisecond}, 9)...),
			wantBelow: 4, wantAbove: 1,
		},
		{
			name:      "fast 503s",
			samples:   []Sample{ok, {Class: Standard, Latency: 2 * time.Millisecond, Failed: true}, ok, {Class: Standard, Latency: 3 * time.Millisecond, Failed: true}, ok},
			wantBelow: 201, wantAbove: 200,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustNew(t, Config{Max: 200})
			at := t0
			for range 10 {
				mixedWindow(c, at, 150, tc.samples)
				at = at.Add(time.Second)
			}
			st := c.Stats()
			if st.Limit >= tc.wantBelow || st.Limit < tc.wantAbove {
				t.Errorf("limit %d after 10 windows (%d decreases), want in [%d, %d)", st.Limit, st.Decreases, tc.wantAbove, tc.wantBelow)
			}
		})
	}
}

func repeat(s Sample, n int) []Sample {
	out := make([]Sample, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// TestGradientSustainedSlowdown is issue 24's second admission finding: a
// dependency 5× slower for 30 s (10 ms → 50 ms) at a fixed demand of 40
// concurrent requests. The dependency serves them all (800/s at 50 ms, so by
// Little's law 40 in flight), so the limit must stay at or above 40 through
// the slowdown. Keeping the healthy phase's minimum latency as the baseline
// for 60 windows drove it to single digits (50 → 9 in the live lab).
func TestGradientSustainedSlowdown(t *testing.T) {
	const demand = 40
	c := mustNew(t, Config{Rule: Gradient, Max: 200, Initial: 50})
	fast := []Sample{{Class: Standard, Latency: 10 * time.Millisecond}, {Class: Standard, Latency: 12 * time.Millisecond}}
	slow := []Sample{{Class: Standard, Latency: 50 * time.Millisecond}, {Class: Standard, Latency: 60 * time.Millisecond}}
	at := t0
	for range 20 {
		mixedWindow(c, at, demand, fast)
		at = at.Add(time.Second)
	}
	if got := c.Limit(); got < demand {
		t.Fatalf("healthy: limit %d below the demand %d", got, demand)
	}
	low := c.Limit()
	for w := range 30 {
		if n := mixedWindow(c, at, demand, slow); n < demand {
			t.Errorf("slow window %d: admitted %d of the %d the dependency serves (limit %d)", w, n, demand, c.Limit())
		}
		low = min(low, c.Limit())
		at = at.Add(time.Second)
	}
	if low < demand {
		t.Errorf("the limit fell to %d during the slowdown; the dependency serves %d in flight", low, demand)
	}
	t.Logf("lowest limit during the slowdown %d, at its end %d", low, c.Limit())
}

// TestGradientStillShedsQueueing: the baseline follows a slower dependency,
// but not overload that hurts. A dependency of 20 slots at 10 ms, a demand
// of 200 concurrent requests and a 50 ms caller deadline: with more than 100
// in flight every answer is late (dropped), so the limit must come down to
// about 100 and stay there, probing just above it, however long the
// queueing lasts (the queueing that becomes the baseline does not let it
// drift up).
func TestGradientStillShedsQueueing(t *testing.T) {
	c := mustNew(t, Config{Rule: Gradient, Max: 400, Initial: 200})
	at := t0
	lo, hi := 400, 0
	for w := range 120 {
		n := 0
		for range 200 {
			if c.Admit(at, Request{Class: Standard}).Admitted {
				n++
			}
		}
		lat := 10 * time.Millisecond * time.Duration(max(n, 20)) / 20
		for range n {
			c.Done(at.Add(lat), Sample{Class: Standard, Latency: lat, Dropped: lat > 50*time.Millisecond})
		}
		c.Admit(at.Add(time.Second), Request{Slack: -1})
		at = at.Add(time.Second)
		if w >= 30 {
			lo, hi = min(lo, c.Limit()), max(hi, c.Limit())
		}
	}
	if lo < 80 || hi > 115 {
		t.Errorf("limit between %d and %d after the first 30 windows; want it within [80, 115] around the 100 that meet the deadline", lo, hi)
	}
}

// TestReservesAreLent is issue 24's single-class finding: with only Standard
// traffic no slot is reserved for classes that never come, so Standard work
// reaches Max without a single "reserved" refusal. Once continuations ask,
// the reserve is honoured again for the admissions after them, and lent
// again a window after they stop.
func TestReservesAreLent(t *testing.T) {
	c := mustNew(t, Config{Max: 100})
	at := t0
	n := 0
	for ; n < 200; n++ {
		d := c.Admit(at, Request{Class: Standard})
		if !d.Admitted {
			if d.Reason != ReasonLimit || n != 100 {
				t.Fatalf("standard-only: request %d refused for %v; want the first refusal at Max 100, for the limit", n, d.Reason)
			}
			break
		}
	}
	if st := c.Stats(); st.Decisions[Standard][ReasonReserved] != 0 || st.InFlight != 100 {
		t.Fatalf("standard-only: %+v", st)
	}
	// A continuation asks: the limit is full of borrowers, so it waits for
	// one to finish; from then on Standard keeps to its 85 %.
	if d := c.Admit(at, Request{Class: Continuation}); d.Reason != ReasonLimit {
		t.Fatalf("continuation with the limit full: %+v", d)
	}
	at = at.Add(10 * time.Millisecond)
	for range 20 {
		c.Done(at, Sample{Class: Standard, Latency: 10 * time.Millisecond})
	}
	for i := range 10 {
		if d := c.Admit(at, Request{Class: Standard}); d.Admitted != (i < 5) || !d.Admitted && d.Reason != ReasonReserved {
			t.Fatalf("standard %d with 80+%d in flight and a continuation in demand: %+v; want admitted up to 85, then reserved", i, i, d)
		}
	}
	for range 15 {
		if d := c.Admit(at, Request{Class: Continuation}); !d.Admitted {
			t.Fatalf("continuation refused with its reserve kept: %+v (in flight %d)", d, c.InFlight())
		}
	}
	// The continuations finish and none asks for a window: the reserve is
	// lent again.
	at = at.Add(20 * time.Millisecond)
	for range 15 {
		c.Done(at, Sample{Class: Continuation, Latency: 20 * time.Millisecond})
	}
	if d := c.Admit(at, Request{Class: Standard}); d.Reason != ReasonReserved {
		t.Fatalf("standard right after the continuations: %+v; want reserved", d)
	}
	at = at.Add(time.Second)
	for range 15 {
		if d := c.Admit(at, Request{Class: Standard}); !d.Admitted {
			t.Fatalf("standard a window after the last continuation: %+v (in flight %d)", d, c.InFlight())
		}
	}
	// Sheddable work borrows Standard's band too, but not while Standard asks.
	if d := c.Admit(at, Request{Class: Sheddable}); d.Reason != ReasonLimit {
		t.Fatalf("sheddable at the limit: %+v", d)
	}
}

// TestClosedClassBorrowsNothing: a share of 0 closes a class for good, lent
// reserves or not.
func TestClosedClassBorrowsNothing(t *testing.T) {
	c := mustNew(t, Config{Max: 10, Share: [NumClasses]float64{1, 1, 0.5, 0}})
	if d := c.Admit(t0, Request{Class: Sheddable}); d.Reason != ReasonReserved {
		t.Fatalf("sheddable with share 0: %+v", d)
	}
	for i := range 10 {
		if d := c.Admit(t0, Request{Class: Standard}); !d.Admitted {
			t.Fatalf("standard %d alone: %+v", i, d)
		}
	}
}
