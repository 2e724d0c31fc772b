// Package identity gives one logical request a single identity that every
// attempt at every layer carries, plus the number of the attempt, so that a
// dependency can apply a mutation (a payment authorisation, an order commit)
// at most once however many times it is tried, and so that duplicates are
// counted when it does not.
//
// # Which function to call
//
//   - Where a logical request starts (the edge, or the client of a mutation),
//     [NewKey] draws a fresh [Key] from a seeded math/rand/v2 stream, and
//     [First] makes the [Request] of its first attempt.
//   - Every retry, at any layer, is [Request.Retry]: the same Key, the next
//     Attempt. A retry never gets a new key.
//   - Between processes, [Inject] writes the Idempotency-Key and
//     Goodput-Attempt headers and [Extract] reads and validates them; inside a
//     process, [NewContext] and [FromContext] carry the Request.
//   - The dependency that owns a mutation keeps a [Ledger]: [Ledger.Execute]
//     before applying the mutation, [Ledger.Complete] when its result is
//     known, and [Ledger.Lookup] to answer a status query. An ambiguous
//     outcome (authorised, but the response was lost) is resolved by looking
//     up the original key, never by a new authorisation.
//
// # Headers
//
// [Header] (Idempotency-Key) carries the key as a structured-field string, as
// in the IETF httpapi Idempotency-Key draft: "8e03978e40d543e8bc936894a57f9324"
// with the quotes, " and \ escaped by a backslash. [Extract] also accepts
// the bare form that many APIs use (a token or a UUID, unquoted). A key is 1
// to [MaxKeyLen] bytes of printable ASCII; UUIDs, hex, base64 and ULIDs all
// fit the bare form. [AttemptHeader] (Goodput-Attempt) carries the attempt
// number, 1 to [MaxAttempt]; when it is absent the request is a first attempt.
//
// # One key per operation
//
// A logical request that makes several mutations (a checkout's payment
// authorisation and its capture) gives each its own key with
// [Request.Derive]: the logical key and the operation's name, the same every
// time, so the dependency tells the operations apart and still recognises a
// retry of each. package controlhttp's Transport does this for every call.
//
// # A short program
//
//	rng := rand.New(rand.NewPCG(seed, 7)) // one stream per component and purpose
//	req := identity.First(identity.NewKey(rng))
//	identity.Inject(out.Header, req)
//	// ... the call times out; the retry keeps the identity:
//	identity.Inject(retryOut.Header, req.Retry())
//
//	// In the payment dependency:
//	ledger, _ := identity.NewLedger(identity.Config{Dedupe: true, TTL: time.Hour})
//	if _, apply := ledger.Execute(now, req.Key); apply {
//		ok := authorise(...)
//		ledger.Complete(req.Key, ok)
//	}
//
// Everything that takes a time takes it as an argument, now; nothing reads a
// clock. A Ledger is safe for concurrent use; the other functions keep no
// state.
package identity
