package breaker_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/goodput-lab/goodput/control/breaker"
)

// The AI-2 breaker of the payment-provider postmortem opens at 25% errors over
// 30 seconds, refuses calls for OpenFor, then lets probes through.
func Example() {
	b, err := breaker.New(breaker.AI2())
	if err != nil {
		panic(err)
	}
	start := time.Date(2025, 9, 12, 14, 0, 0, 0, time.UTC)

	// One call in four fails, second by second.
	now := start
	for i := 0; b.State(now) == breaker.Closed; i++ {
		now = start.Add(time.Duration(i) * 100 * time.Millisecond)
		t, err := b.Allow(now)
		if err != nil {
			break
		}
		b.Record(now, t, i%4 != 3)
	}
	st := b.Stats()
	fmt.Printf("%s at +%v, generation %d\n", st.State, now.Sub(start), st.Generation)

	_, err = b.Allow(now.Add(time.Second))
	fmt.Println(err, errors.Is(err, breaker.ErrOpen))

	// Ten seconds later three probes succeed and the breaker closes.
	now = now.Add(10 * time.Second)
	for range 3 {
		t, err := b.Allow(now)
		if err != nil {
			panic(err)
		}
		b.Record(now, t, true)
	}
	fmt.Println(b.State(now), "generation", b.Generation())
	// Output:
	// Open at +1.9s, generation 2
	// breaker: open true
	// Closed generation 4
}

// A result that arrives after the breaker has changed generation is ignored.
func ExampleBreaker_Record_stale() {
	b, _ := breaker.New(breaker.Config{})
	now := time.Date(2025, 9, 12, 14, 0, 0, 0, time.UTC)

	slow, _ := b.Allow(now) // a slow call, generation 1
	b.ForceOpen(now)        // an operator opens the breaker: generation 2
	b.Reset(now)            // and closes it again: generation 3

	b.Record(now.Add(30*time.Second), slow, false)
	st := b.Stats()
	fmt.Println(slow.Generation(), st.Generation, st.Failures, st.Stale)
	// Output:
	// 1 3 0 1
}
