package budget_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/goodput-lab/goodput/control/budget"
)

// In the Northstar protected policy, a second of 8,600 admitted requests
// buys at most 172 retries (2%), whatever the number of failures asking for
// one; overload responses, non-idempotent operations and retries that could
// not finish before the deadline are refused before they touch the budget.
func ExampleBudget() {
	t0 := time.Date(2026, 3, 14, 14, 12, 0, 0, time.UTC)
	b, _ := budget.New(budget.Protected())
	for i := range 8600 {
		b.Request(t0.Add(time.Duration(i)*time.Second/8600), "")
	}
	now := t0.Add(999 * time.Millisecond)
	w := b.Window(now)
	fmt.Printf("window: %d requests, pool %.0f retries\n", w.Requests, w.Pool)
	fmt.Printf("last second: %d requests, pool %.0f retries\n", w.RecentRequests, w.RecentPool)

	timedOut := budget.Retry{
		Failure:      budget.Timeout,
		Deduplicated: true, // carries its Idempotency-Key
		Remaining:    900 * time.Millisecond,
		Expected:     300 * time.Millisecond,
	}
	allowed := 0
	for range 1000 {
		if b.Allow(now, timedOut).Allowed {
			allowed++
		}
	}
	fmt.Printf("retries allowed: %d of 1000\n", allowed)

	overloaded := budget.Retry{Failure: budget.Overload, Idempotent: true, Remaining: time.Second}
	payment := budget.Retry{Failure: budget.Timeout, Remaining: time.Second} // no identity: not safe to repeat
	late := timedOut
	late.Remaining = 200 * time.Millisecond
	for _, r := range []budget.Retry{overloaded, payment, late, timedOut} {
		fmt.Println(b.Allow(now, r).Err())
	}
	s := b.Stats()
	fmt.Printf("tokens used %d; suppressed: exhausted %d, overload %d, not-idempotent %d, deadline %d\n",
		s.Retries, s.Suppressed[budget.ReasonExhausted], s.Suppressed[budget.ReasonOverload],
		s.Suppressed[budget.ReasonNotIdempotent], s.Suppressed[budget.ReasonDeadline])
	// Output:
	// window: 8600 requests, pool 172 retries
	// last second: 8600 requests, pool 172 retries
	// retries allowed: 172 of 1000
	// budget: overload response not retried
	// budget: operation neither idempotent nor deduplicated
	// budget: not enough deadline left for an attempt
	// budget: exhausted
	// tokens used 172; suppressed: exhausted 829, overload 1, not-idempotent 1, deadline 1
}

// The load-state machine tightens the shared budget when it enters
// Protected; the deposits already in the window buy retries at the new ratio
// at once.
func ExampleBudget_SetRatio() {
	t0 := time.Date(2026, 3, 14, 14, 12, 0, 0, time.UTC)
	b, _ := budget.New(budget.Config{Ratio: 0.2, TTL: 10 * time.Second})
	for range 1000 {
		b.Request(t0, "")
	}
	fmt.Printf("Normal: pool %.0f\n", b.Window(t0).Pool)
	_ = b.SetRatio(t0.Add(time.Second), 0.02)
	fmt.Printf("Protected: pool %.0f\n", b.Window(t0.Add(time.Second)).Pool)
	// Output:
	// Normal: pool 200
	// Protected: pool 20
}

// Full jitter: each wait is a uniform draw below a ceiling that doubles per
// attempt up to the cap. The draws come from a seeded stream, so a replay
// waits exactly as long.
func ExampleBackoff() {
	rng := rand.New(rand.NewPCG(2026, 3))
	for attempt := 1; attempt <= 6; attempt++ {
		ceiling := min(400*time.Millisecond, 25*time.Millisecond<<(attempt-1))
		wait := budget.Backoff(attempt, 25*time.Millisecond, 400*time.Millisecond, rng.Float64())
		fmt.Printf("after attempt %d: wait %v (below %v)\n", attempt, wait.Round(time.Millisecond), ceiling)
	}
	// Output:
	// after attempt 1: wait 13ms (below 25ms)
	// after attempt 2: wait 3ms (below 50ms)
	// after attempt 3: wait 35ms (below 100ms)
	// after attempt 4: wait 15ms (below 200ms)
	// after attempt 5: wait 125ms (below 400ms)
	// after attempt 6: wait 301ms (below 400ms)
}

// A budget that banked tokens through a healthy minute at 400 requests/s
// spends them no faster than the request rate earns them when every call
// starts failing: 20% of the 440 requests of a second and a slice (the rate
// bound's span) plus the floor of 10, in each second, not the 820 banked.
func ExampleBudget_incident() {
	t0 := time.Date(2026, 3, 14, 14, 12, 0, 0, time.UTC)
	b, _ := budget.New(budget.Finagle()) // 20%, 10/s floor, 10 s TTL
	now := t0
	for range 60 * 400 { // healthy: no retries
		b.Request(now, "")
		now = now.Add(time.Second / 400)
	}
	w := b.Window(now)
	fmt.Printf("banked: pool %.0f retries, %.0f available at once\n", w.Pool, w.Available())
	retry := budget.Retry{Failure: budget.Transient, Idempotent: true, Remaining: budget.NoDeadline}
	for sec := 1; sec <= 3; sec++ {
		allowed := 0
		for range 400 { // every call fails and asks for a retry
			b.Request(now, "")
			if b.Allow(now, retry).Allowed {
				allowed++
			}
			now = now.Add(time.Second / 400)
		}
		fmt.Printf("second %d: %d retries\n", sec, allowed)
	}
	// Output:
	// banked: pool 820 retries, 90 available at once
	// second 1: 98 retries
	// second 2: 98 retries
	// second 3: 98 retries
}
