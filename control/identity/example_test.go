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

	// A bare key, as many clients send it, and a quoted one with a space.
	for _, v := range []string{"8e03978e-40d5-43e8-bc93-6894a57f9324", `"order 42"`, "order 42"} {
		h.Set(identity.Header, v)
		r, _, err := identity.Extract(h)
		fmt.Printf("%q %v\n", r.Key, err)
	}
	// Output:
	// Idempotency-Key: "c4f5a58656eef5109dcec3ad077dec6c"
	// Goodput-Attempt: 2
	// c4f5a58656eef5109dcec3ad077dec6c#2 true <nil>
	// "8e03978e-40d5-43e8-bc93-6894a57f9324" <nil>
	// "order 42" <nil>
	// "" identity: Idempotency-Key "order 42": byte " " at offset 5 not allowed in a bare key; want letters, digits or !#$%&'*+-.^_`|~:/=, or a quoted string
}

// A checkout makes two calls to the payment provider on behalf of one
// logical request: each gets its own key, derived from the request's and the
// operation, so a provider that deduplicates by key does not answer the
// capture with the authorisation. A retry keeps the call's key.
func ExampleRequest_Derive() {
	checkout := identity.First("order-7")
	authorise := checkout.Derive("POST/authorise")
	capture := checkout.Derive("POST/capture")
	fmt.Println(authorise, capture, authorise.Retry())
	// Output:
	// order-7:POST/authorise#1 order-7:POST/capture#1 order-7:POST/authorise#2
}
