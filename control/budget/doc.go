// Package budget is the one retry budget for a logical request's whole path:
// every layer, request class and tenant that would retry asks the same
// [Budget], so retries cannot multiply layer by layer (3 × 3 × 3) and their
// total stays a bounded fraction of the first attempts.
//
// Retries are admitted work, not a client entitlement. A retry is allowed only
// when the failure is classified transient, the operation is idempotent or
// deduplicated by its logical identity, enough of the deadline remains for an
// attempt to be useful, the tenant is within its share, and a token remains.
// An explicit overload response is never retried. [Backoff] spreads the
// retries that are allowed, with full jitter; [Exponential], with another
// growth or jitter.
//
// # Which method to call
//
//   - [Budget.Request] for every first attempt: it deposits into the budget.
//   - [Budget.Allow] before every retry: it returns a [Decision], takes a
//     token when the retry is allowed, and otherwise gives the [Reason]
//     (exhausted, deadline, overload, ...), counted in [Budget.Stats].
//   - [Budget.SetRatio] when the load state changes (e.g. 0.2 in Normal,
//     0.02 in Protected).
//
// # Model
//
// The budget is Finagle's RetryBudget: deposits expire after a TTL, a retry
// is allowed while the retries in the window stay within Ratio times the
// requests in the window plus a floor of MinPerSecond×TTL. It adds a rate
// bound: the retries of any second stay within Ratio times the requests of
// that second and a tenth before it plus MinPerSecond (at least one), so tokens banked while
// healthy are not spent in a burst when an incident starts. [Finagle] and
// [Protected] are presets. Every method takes the current instant as an
// argument and measures time from the first instant with time.Time.Sub
// (monotonic for instants of time.Now); nothing reads a clock, so the
// simulator and a real service run the same code. Allow and Request do not
// allocate.
//
// # A short program
//
//	b, _ := budget.New(budget.Protected()) // 2% of requests, no floor
//	b.Request(now, "tenant-a")             // a first attempt
//	// ... it timed out; before retrying:
//	wait := budget.Backoff(req.Attempt, 25*time.Millisecond, time.Second, rng.Float64())
//	d := b.Allow(now, budget.Retry{
//		Tenant:       "tenant-a",
//		Failure:      budget.Timeout,
//		Deduplicated: true, // the retry keeps the request's Idempotency-Key
//		Remaining:    deadline.Remaining(dl, now),
//		Expected:     wait + 120*time.Millisecond, // backoff + an attempt's p90
//	})
//	if !d.Allowed {
//		return d.Err() // budget: exhausted, budget: not enough deadline left, ...
//	}
//	// retry req.Retry() after wait
//
// A Budget is safe for concurrent use. Without a tenant share, Request and
// Allow take no lock (an atomic add for a deposit, a compare-and-swap for a
// token; the lock is taken once per bucket, to move the window), and from one
// goroutine they decide exactly as a mutex-guarded budget would (see [Budget]
// for the fine print).
package budget
