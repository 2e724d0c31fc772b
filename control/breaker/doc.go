// Package breaker provides an error-rate circuit breaker over a sliding
// window, driven by explicit time.
//
// A [Breaker] counts the outcomes of calls to one dependency in a window of
// rolling buckets. When the window holds at least MinVolume results and the
// fraction of failures reaches Threshold, the breaker opens and refuses calls
// with [ErrOpen]. After OpenFor it turns half-open and lets HalfOpenProbes
// probe calls through at once (more get [ErrProbeLimit]); that many
// successes close it, one failure opens it again for twice as long, up to
// MaxOpenFor, as Envoy's ejection time and resilience4j's backoff interval
// grow. The zero [Config] is a generic breaker: 50% failures over 10 s, open
// 500 ms at first and at most 2 s, so calls flow again within about 2 s of a
// dependency's recovery.
//
// # Outcomes
//
// Not every failed call is the dependency failing. [Breaker.Classify] turns
// what a client saw ([Call]) into an [Outcome] with [Config.Classify], by
// default [DefaultClassify]: an explicit overload answer (429, or
// Goodput-Overload: no-retry) and a timeout the caller's own deadline caused
// are Ignored, so a dependency that sheds part of its load, or callers with
// short deadlines, do not open the breaker; 5xx, transport errors and
// timeouts of the call's own ceiling are Failures.
//
// # Which method to call
//
// Call [Breaker.Allow] before each call and, if it grants a [Ticket], call
// [Breaker.Record] with the call's [Outcome] ([Breaker.Classify] gives it). Every state change and every manual
// override ([Breaker.ForceOpen], [Breaker.ForceClosed], [Breaker.Reset])
// starts a new generation; a result recorded with a ticket of an earlier
// generation is ignored, as in sony/gobreaker, so a slow call granted before
// the breaker opened cannot count against (or for) the next generation.
//
// # Time
//
// Every method takes the current instant as an argument, as the explicit-time
// methods of golang.org/x/time/rate do, and measures durations with
// time.Time.Sub, so instants of time.Now are compared on the monotonic clock
// and a step of the wall clock changes nothing. The breaker reads no clock,
// starts no goroutine and sets no timer, so the discrete-event simulator
// drives it with virtual time and a service drives it with time.Now (see
// control/controlhttp). Time must not run backwards; an earlier instant is
// taken as the latest one seen.
//
// # Sliding window
//
// The window is divided into Buckets buckets that roll one at a time, so a
// burst of failures just before a bucket boundary still counts after it. A
// tumbling window that resets all counts at once (sony/gobreaker issue #21)
// can read 90% errors in one interval and 9% in the next for the same
// traffic.
//
// # A short program
//
//	b, err := breaker.New(breaker.Config{})
//	if err != nil {
//		return err
//	}
//	// per call, now being the instant the service reads (time.Now):
//	t, err := b.Allow(now)
//	if err != nil {
//		return err // breaker.ErrOpen or breaker.ErrProbeLimit: fail fast
//	}
//	resp, err := callProvider(ctx)
//	c := breaker.Call{Err: err, CallerDeadline: ctx.Err() != nil}
//	if resp != nil {
//		c.Status, c.Overload = resp.StatusCode, resp.StatusCode == 429
//	}
//	b.Record(done, t, b.Classify(c)) // done: the instant the call returned
//
// A Breaker is safe for concurrent use. Allow and Record on a closed breaker
// take no lock (an atomic pointer to the current generation, an atomic
// maximum for the latest instant, an atomic add for a success); failures,
// probes and transitions take the lock. They allocate nothing except the new
// generation of a transition. From one goroutine they decide exactly as a
// mutex-guarded breaker would (see [Breaker] for the fine print).
package breaker
