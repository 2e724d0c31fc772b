package budget

import (
	"math"
	"time"

	"github.com/goodput-lab/goodput/internal/floatdur"
)

// Backoff returns the wait before the retry that follows attempt (the number
// of the attempt that just failed, 1 for the first try, as in
// identity.Request.Attempt), with full jitter: a uniform draw from
// [0, min(max, base×2^(attempt−1))). The draw u ∈ [0, 1) is passed in, so the
// caller decides where randomness comes from (a seeded math/rand/v2 stream in
// the simulator). A u outside [0, 1) is clamped into it; an attempt below 1
// counts as 1; max ≤ 0 means no cap; base ≤ 0 means no wait.
//
// Jitter spreads retries out so they do not arrive together; it does not
// create capacity. Only [Budget.Allow] bounds how many retries there are.
// Backoff is [Exponential] with multiplier 2 and [FullJitter].
func Backoff(attempt int, base, max time.Duration, u float64) time.Duration {
	return Exponential{Base: base, Multiplier: 2, Max: max, Jitter: FullJitter}.Wait(attempt, u)
}

// Jitter is how a backoff spreads the waits of callers that failed together,
// as "Exponential Backoff and Jitter" (AWS Architecture Blog, 2015) defines
// the modes.
type Jitter uint8

const (
	// NoJitter waits the ceiling itself: callers that failed together retry
	// together.
	NoJitter Jitter = iota
	// FullJitter waits a uniform draw from [0, ceiling).
	FullJitter
	// EqualJitter waits half the ceiling and a uniform draw from the other
	// half: [ceiling/2, ceiling).
	EqualJitter
)

// Exponential is a capped exponential backoff with jitter. The ceiling of the
// wait after attempt n (from 1) is Base×Multiplier^(n−1), at most Max; the
// wait is the ceiling spread by Jitter. Multiplier 1 is a constant backoff;
// below 1 (0 included) counts as 1. Max ≤ 0 means no cap; Base ≤ 0 means no
// wait. The zero value never waits.
type Exponential struct {
	Base       time.Duration
	Multiplier float64
	Max        time.Duration
	Jitter     Jitter
}

// Ceiling returns the largest wait after attempt (below 1 counts as 1): Base
// grown by Multiplier per attempt after the first, capped at Max, and
// saturated at the largest Duration. A multiplier of 2 grows by shifts, so
// its ceilings are exact; another grows by floating-point multiplications
// (squarings: a few, even for a large attempt), which every platform rounds
// alike.
func (e Exponential) Ceiling(attempt int) time.Duration {
	if e.Base <= 0 {
		return 0
	}
	ceil := e.Base
	if n := max(attempt, 1) - 1; n > 0 && e.Multiplier > 1 {
		if e.Multiplier == 2 {
			ceil = NoDeadline // the largest Duration
			if n < 63 && e.Base <= ceil>>n {
				ceil = e.Base << n
			}
		} else {
			ceil = floatdur.Trunc(float64(e.Base) * pow(e.Multiplier, n))
		}
	}
	if e.Max > 0 && ceil > e.Max {
		ceil = e.Max
	}
	return ceil
}

// pow returns m^n for m > 1 and n ≥ 1 by squaring, stopping once the result
// is beyond any Duration (+Inf is beyond too).
func pow(m float64, n int) float64 {
	r := 1.0
	for {
		if n&1 == 1 {
			r *= m
		}
		n >>= 1
		if n == 0 || r > math.MaxInt64 {
			return r
		}
		m *= m
	}
}

// Wait returns the wait after attempt for the uniform draw u ∈ [0, 1): the
// [Exponential.Ceiling] spread by the jitter ([Jitter.Spread]).
func (e Exponential) Wait(attempt int, u float64) time.Duration {
	return e.Jitter.Spread(e.Ceiling(attempt), u)
}

// Spread returns the wait for ceiling ceil and the uniform draw u ∈ [0, 1): ceil
// itself, a draw below it (full) or half of it and a draw below the other half
// (equal). A u outside [0, 1) is clamped into it (NaN counts as 0); NoJitter
// ignores it.
func (j Jitter) Spread(ceil time.Duration, u float64) time.Duration {
	switch j {
	case FullJitter:
		return below(ceil, u)
	case EqualJitter:
		half := ceil / 2
		return half + below(ceil-half, u)
	}
	return ceil
}

// Total returns the longest the waits after attempts 1 to n can take
// together: the sum of their ceilings, saturated at the largest Duration.
func (e Exponential) Total(n int) time.Duration {
	var sum time.Duration
	for k := 1; k <= n; k++ {
		c := e.Ceiling(k)
		if c > NoDeadline-sum {
			return NoDeadline
		}
		sum += c
		if e.Multiplier <= 1 || (e.Max > 0 && c == e.Max) {
			// Every later ceiling is c.
			rest := time.Duration(n - k)
			if c > 0 && rest > (NoDeadline-sum)/c {
				return NoDeadline
			}
			return sum + rest*c
		}
	}
	return sum
}

// below is a uniform draw u from [0, ceil): u ≤ 0 (or NaN) gives 0, u ≥ 1
// just below ceil.
func below(ceil time.Duration, u float64) time.Duration {
	if ceil <= 0 || !(u > 0) { // also catches NaN
		return 0
	}
	if u >= 1 {
		u = math.Nextafter(1, 0)
	}
	f := u * float64(ceil)
	if f >= float64(ceil) { // rounding near the top of a large ceil
		return ceil - 1
	}
	return floatdur.Trunc(f)
}
