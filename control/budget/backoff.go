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
func Backoff(attempt int, base, max time.Duration, u float64) time.Duration {
	if base <= 0 || !(u > 0) { // also catches NaN
		return 0
	}
	if attempt < 1 {
		attempt = 1
	}
	ceil := NoDeadline // the largest Duration
	if shift := attempt - 1; shift < 63 && base <= ceil>>shift {
		ceil = base << shift
	}
	if max > 0 && ceil > max {
		ceil = max
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
