package budget

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestExponential pins the waits of capped exponential backoffs at fixed draws: a constant
// one (multiplier 1, or 0), doubling and tripling ones with a cap, a multiplier that is not
// an integer, and the three jitters, of which equal keeps the wait in the upper half of
// the ceiling.
func TestExponential(t *testing.T) {
	ms := time.Millisecond
	constant := Exponential{Base: 100 * ms, Multiplier: 1}
	doubling := Exponential{Base: 100 * ms, Multiplier: 2, Max: time.Second}
	tripling := Exponential{Base: 10 * ms, Multiplier: 3}
	for _, tc := range []struct {
		name    string
		e       Exponential
		attempt int
		u       float64
		want    time.Duration
	}{
		{"constant, first", constant, 1, 0.3, 100 * ms},
		{"constant, fifth", constant, 5, 0.3, 100 * ms},
		{"multiplier 0 is constant", Exponential{Base: 100 * ms}, 4, 0.3, 100 * ms},
		{"multiplier below 1 is constant", Exponential{Base: 100 * ms, Multiplier: 0.5}, 4, 0.3, 100 * ms},
		{"doubling, first", doubling, 1, 0.3, 100 * ms},
		{"doubling, second", doubling, 2, 0.3, 200 * ms},
		{"doubling, fourth", doubling, 4, 0.3, 800 * ms},
		{"doubling, capped", doubling, 5, 0.3, time.Second},
		{"doubling, attempt 0 counts as 1", doubling, 0, 0.3, 100 * ms},
		{"tripling, third", tripling, 3, 0.3, 90 * ms},
		{"tripling, fifth", tripling, 5, 0.3, 810 * ms},
		{"by 1.5, third", Exponential{Base: 100 * ms, Multiplier: 1.5}, 3, 0.3, 225 * ms},
		{"full jitter, a quarter", Exponential{Base: 100 * ms, Multiplier: 2, Max: time.Second, Jitter: FullJitter}, 3, 0.25, 100 * ms},
		{"full jitter, u 0", Exponential{Base: 100 * ms, Multiplier: 2, Jitter: FullJitter}, 3, 0, 0},
		{"full jitter, u 1 is clamped below", Exponential{Base: 100 * ms, Multiplier: 2, Jitter: FullJitter}, 1, 1, 100*ms - 1},
		{"equal jitter, u 0: half", Exponential{Base: 100 * ms, Multiplier: 2, Jitter: EqualJitter}, 3, 0, 200 * ms},
		{"equal jitter, a half", Exponential{Base: 100 * ms, Multiplier: 2, Jitter: EqualJitter}, 3, 0.5, 300 * ms},
		{"equal jitter, u 1 is clamped below", Exponential{Base: 100 * ms, Multiplier: 2, Jitter: EqualJitter}, 3, 1, 400*ms - 1},
		{"equal jitter, capped", Exponential{Base: 100 * ms, Multiplier: 2, Max: time.Second, Jitter: EqualJitter}, 9, 0.5, 750 * ms},
		{"equal jitter, odd ceiling", Exponential{Base: 3, Jitter: EqualJitter}, 1, 0, 1},
		{"no jitter ignores u", Exponential{Base: 100 * ms, Multiplier: 2}, 2, math.NaN(), 200 * ms},
		{"no base, no wait", Exponential{Multiplier: 2, Max: time.Second, Jitter: EqualJitter}, 3, 0.5, 0},
		{"uncapped, saturated", Exponential{Base: time.Second, Multiplier: 10}, 40, 0.5, NoDeadline},
		{"uncapped by 1.0001 at a huge attempt, saturated", Exponential{Base: 1, Multiplier: 1.0001}, 1 << 40, 0.5, NoDeadline},
		{"doubling, uncapped, saturated", Exponential{Base: 100 * ms, Multiplier: 2}, 200, 0.5, NoDeadline},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.e.Wait(tc.attempt, tc.u)
			if d := got - tc.want; d < -1 || d > 1 { // float rounding
				t.Errorf("%+v.Wait(%d, %v) = %v, want %v", tc.e, tc.attempt, tc.u, got, tc.want)
			}
		})
	}
}

// TestExponentialTotal checks the longest the first n waits take together.
func TestExponentialTotal(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		e    Exponential
		n    int
		want time.Duration
	}{
		{Exponential{Base: 100 * ms, Multiplier: 1}, 3, 300 * ms},
		{Exponential{Base: 100 * ms, Multiplier: 2, Max: time.Second}, 6, 3500 * ms}, // 100+200+400+800+1000+1000
		{Exponential{Base: 100 * ms, Multiplier: 2, Max: time.Second, Jitter: FullJitter}, 0, 0},
		{Exponential{Base: 10 * ms, Multiplier: 3}, 4, 400 * ms},
		{Exponential{Base: time.Second, Multiplier: 10}, 11, NoDeadline},
		{Exponential{Base: time.Hour, Multiplier: 1}, math.MaxInt, NoDeadline},
		{Exponential{}, 5, 0},
	} {
		if got := tc.e.Total(tc.n); got != tc.want {
			t.Errorf("%+v.Total(%d) = %v, want %v", tc.e, tc.n, got, tc.want)
		}
	}
}

// TestExponentialBounds checks, over random backoffs and draws, that a wait is the ceiling
// without jitter, in [0, ceiling) with full jitter and in [ceiling/2, ceiling) with equal
// jitter; that ceilings never fall from one attempt to the next and never pass the cap;
// and that Backoff is the doubling, fully jittered Exponential.
func TestExponentialBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for range 20_000 {
		e := Exponential{
			Base:       time.Duration(r.Int64N(int64(time.Second))),
			Multiplier: []float64{0, 1, 1.5, 2, 3, 10}[r.IntN(6)],
			Max:        time.Duration(r.Int64N(int64(time.Hour))) * time.Duration(r.IntN(2)),
			Jitter:     Jitter(r.IntN(3)),
		}
		attempt, u := r.IntN(80)-2, r.Float64()
		ceil := e.Ceiling(attempt)
		if next := e.Ceiling(attempt + 1); next < ceil {
			t.Fatalf("%+v: ceiling %v after attempt %d, %v after the next", e, ceil, attempt, next)
		}
		if e.Max > 0 && ceil > e.Max || ceil < 0 {
			t.Fatalf("%+v: ceiling %v after attempt %d", e, ceil, attempt)
		}
		got := e.Wait(attempt, u)
		lo, hi := ceil, ceil // [lo, hi]
		switch e.Jitter {
		case FullJitter:
			lo, hi = 0, max(ceil-1, 0)
		case EqualJitter:
			lo, hi = ceil/2, max(ceil-1, 0)
		}
		if got < lo || got > hi {
			t.Fatalf("%+v.Wait(%d, %v) = %v, outside [%v, %v]", e, attempt, u, got, lo, hi)
		}
		if b := Backoff(attempt, e.Base, e.Max, u); b != (Exponential{Base: e.Base, Multiplier: 2, Max: e.Max, Jitter: FullJitter}).Wait(attempt, u) {
			t.Fatalf("Backoff(%d, %v, %v, %v) = %v, not the doubling Exponential's", attempt, e.Base, e.Max, u, b)
		}
	}
}
