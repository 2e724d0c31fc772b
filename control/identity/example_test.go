package identity_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/goodput-lab/goodput/control/identity"
)

// A payment authorisation times out at the caller after the provider has
// authorised it; the caller retries. Without deduplication the provider
// authorises twice, and the ledger counts the duplicate. With it, the retry is
// suppressed and the ambiguous outcome is resolved by a status lookup keyed
// by the original identity, never by a new authorisation.
func ExampleLedger() {
	t0 := time.Date(2026, 3, 14, 14, 12, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(2026, 1))
	req := identity.First(identity.NewKey(rng))

	for _, dedupe := range []bool{false, true} {
		provider, _ := identity.NewLedger(identity.Config{Dedupe: dedupe, TTL: time.Hour})

		_, apply := provider.Execute(t0, req.Key) // attempt 1
		if apply {
			provider.Complete(req.Key, true) // authorised at +410ms; the caller gave up at +350ms
		}
		retry := req.Retry()
		_, apply = provider.Execute(t0.Add(400*time.Millisecond), retry.Key)
		fmt.Printf("dedupe=%v: attempt %d applied=%v", dedupe, retry.Attempt, apply)
		if apply {
			provider.Complete(retry.Key, true)
		} else {
			o, _ := provider.Lookup(req.Key)
			fmt.Printf(", lookup by original key: %v after %d execution", o.Status, o.Executions)
		}
		s := provider.Stats()
		fmt.Printf("; authorisations %d, duplicates %d\n", s.Executions, s.Duplicates)
	}
	// Output:
	// dedupe=false: attempt 2 applied=true; authorisations 2, duplicates 1
	// dedupe=true: attempt 2 applied=false, lookup by original key: succeeded after 1 execution; authorisations 1, duplicates 0
}

func ExampleExtract() {
	rng := rand.New(rand.NewPCG(1, 2))
	h := http.Header{}
	identity.Inject(h, identity.First(identity.NewKey(rng)).Retry())
	fmt.Println(identity.Header+":", h.Get(identity.Header))
	fmt.Println(identity.AttemptHeader+":", h.Get(identity.AttemptHeader))

	r, ok, err := identity.Extract(h)
	fmt.Println(r, ok, err)

	h.Set(identity.Header, "order 42")
	_, _, err = identity.Extract(h)
	fmt.Println(err)
	// Output:
	// Idempotency-Key: "c4f5a58656eef5109dcec3ad077dec6c"
	// Goodput-Attempt: 2
	// c4f5a58656eef5109dcec3ad077dec6c#2 true <nil>
	// identity: Idempotency-Key "order 42": byte " " at offset 5 not allowed; want letters, digits or - _ . ~ : + / =
}
