// Package deadline carries one absolute deadline for a logical request across
// the edge, the service and its dependencies: in a [context.Context] inside a
// process and in two HTTP headers between processes.
//
// A deadline is an instant, not a duration. Every layer works out how much of
// it is left from the instant it is looking at the request, so time spent
// queueing, retrying or crossing the network upstream is never handed out a
// second time downstream. Nothing in this package reads a clock: every
// function takes the current instant, now, as an argument, so the same code
// runs in a real service (which passes the wall clock's instant) and in the discrete-event
// simulator (which passes virtual time).
//
// # Which function to call
//
//   - At the edge of a service, [Extract] reads the deadline the caller sent
//     (or applies [Config.Default], 30 s unless set, when there is none; and
//     cuts it to [Config.Max], 60 s unless set) and [NewContext] puts it in
//     the request's context so that cancellation reaches every goroutine
//     working on the request.
//   - Before each call to a dependency, [CallTimeout] derives the per-call
//     timeout from the time [Remaining] before the deadline, minus a reserve
//     for the rest of the path. It returns [ErrExpired] or [ErrInsufficient] instead of
//     a timeout when the call cannot finish in time, so the caller can give up
//     before doing the work.
//   - On the outgoing request, [Inject] writes both headers.
//
// # Headers
//
// [Header] (Goodput-Deadline) carries the absolute deadline as an RFC 3339
// UTC timestamp with nanoseconds, for example 2026-03-14T14:12:01.8Z.
// [TimeoutHeader] (Goodput-Timeout) carries the time left when the request was
// sent, in the format of gRPC's grpc-timeout header: 1 to 8 ASCII digits and a
// unit, H (hours), M (minutes), S (seconds), m (milliseconds), u (microseconds)
// or n (nanoseconds), for example 350m. A receiver prefers the absolute header
// and subtracts [Config.SkewMargin] from it to allow for clock skew between
// hosts; it falls back to the relative header (which is immune to skew but
// ignores the time spent in transit) when the absolute one is absent.
//
// # A short program
//
//	cfg := deadline.Config{SkewMargin: 20 * time.Millisecond, Default: 2 * time.Second, Max: 30 * time.Second}
//	d, _, err := deadline.Extract(r.Header, now, cfg)
//	if err != nil { /* 400: malformed deadline header */ }
//	ctx, cancel := deadline.NewContext(r.Context(), d)
//	defer cancel()
//	timeout, err := deadline.CallTimeout(d, now, 50*time.Millisecond, 0)
//	if err != nil { /* do not call: the answer would arrive too late */ }
//	callCtx, cancelCall := context.WithTimeout(ctx, timeout)
//	defer cancelCall()
//	out, _ := http.NewRequestWithContext(callCtx, "POST", dependencyURL, body)
//	deadline.Inject(out.Header, d, now)
//	resp, err := client.Do(out)
//
// The functions are safe for concurrent use; they keep no state.
package deadline
