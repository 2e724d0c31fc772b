// Package admission decides, before a request's expensive work starts,
// whether the service takes it: an adaptive concurrency limit with capacity
// reserved for the most valuable classes of work.
//
// Cheap rejection at the boundary beats accepting work and abandoning it deep
// in a dependency. In the Northstar incident, existing payment continuations
// and status lookups keep reserved capacity while new low-value work receives
// a bounded overload response first; the limit follows the measured queueing
// delay so that admitted work stays below useful service capacity.
//
// Nothing in this package reads a clock: [Controller.Admit] and
// [Controller.Done] take the current instant, so a real service (passing
// the wall clock's instant) and the discrete-event simulator (passing virtual time) run the
// same code.
//
// # Which method to call
//
//   - [New] builds a [Controller] from a [Config]; the zero Config is valid.
//   - [Controller.Admit] is called once per request, with its [Class], the
//     slack left before its deadline and the service time it expects to need.
//     The [Decision] says whether it was admitted and, if not, a [Reason]
//     code, a Retry-After and (through [Decision.Err]) a sentinel error such
//     as [ErrLimit].
//   - [Controller.Done] is called exactly once for every admitted request,
//     with its measured queueing delay and latency. It releases the slot and
//     feeds the adaptive rule.
//   - [Controller.SetStatic], [Controller.SetScale] and
//     [Controller.SetClassOpen] are the levers of the load-state machine and
//     of manual command: a pinned limit, a staged ramp, a closed class.
//
// # Classes and reserved capacity
//
// Classes are ordered by value: [Continuation], [Lookup], [Standard],
// [Sheddable]. Each class may fill the limit only up to its share
// ([Config.Share], by default 100 %, 95 %, 85 % and 60 %), so as in-flight work
// grows sheddable work is refused first, then new checkouts, and the last
// slots stay reserved for lookups and continuations: with the limit full of
// Standard work, a Continuation is still admitted.
//
// Reserves are work-conserving: the slots kept for more valuable classes are
// lent while those classes have no demand (nothing in flight and no request
// within a window), as Kubernetes' API Priority and Fairness lends idle
// seats. A service with only Standard traffic fills the whole limit; the
// first Continuation takes the reserve back for what is admitted after it.
//
// # The adaptive limit
//
// Samples are grouped into windows ([Config.Window], optionally also closed
// by a sample count). At the end of each window the [Rule] moves the limit
// between [Config.Min] and [Config.Max]: [AIMD] steps down 5 % when the
// window's mean queueing delay exceeds the 20 ms target and up 1 % (at least
// one slot) otherwise, as DAGOR does; [Gradient] scales the limit by
// (baseline latency + target) / mean latency and adds √limit of headroom, as
// Envoy's and Netflix's gradient limiters do. Windows with many overloaded
// samples count as congested under either rule.
//
// The signals need no help from the handler. A [Sample] carries what a
// middleware measures itself: the latency, whether the request was dropped
// (abandoned, or answered after its deadline) and whether it failed (a 5xx).
// A dropped request, and a failure slower than the baseline plus the target
// (a handler that gave up on a dependency that timed out), are overload
// signals: more than [Config.DropRatio] of them in a window lowers the
// limit. A fast failure is not: refusing more work does not make a failing
// dependency succeed. The queueing delay, which only the handler can
// measure, sharpens AIMD when it is given and is not needed.
//
// # Why the baseline decays
//
// A gradient rule compares latency with a baseline, the latency without
// queueing. Kept for long, a baseline measured while the dependency was fast
// turns a dependency that is merely slower into apparent queueing, and the
// limit ratchets down to a few slots while the dependency could serve
// hundreds (Little's law at the new latency). Three known remedies:
//
//   - Netflix concurrency-limits' Gradient2 compares a short average with a
//     long exponential average (about 600 samples), so a sustained change
//     becomes the new normal; the long average also absorbs slowly growing
//     queueing.
//   - Envoy's adaptive concurrency filter re-measures the minimum latency
//     periodically by pinning the concurrency to a few requests for a
//     while: an unqueued measurement, paid for by refusing most traffic of
//     the instance during it.
//   - Uber's Cinnamon drives rejection with a PID controller and has an
//     auto-tuner reset a drifting latency target, and accepts the reset
//     only when in-flight requests and throughput still rise together
//     (positive covariance), so queueing is not taken for the new normal.
//
// This package takes Gradient2's idea applied to the minimum: the baseline
// falls at once to a lower window minimum and rises towards a higher one by
// 1/[Config.MinLatencyWindows] of the gap per window, so after a few times
// MinLatencyWindows windows a slower dependency is the new baseline and the
// limit stops falling. Envoy's re-measurement was rejected because a
// service with one controller would refuse nearly all its callers for the
// measurement; Cinnamon's covariance test needs many windows of throughput
// history for one decision. What keeps the decaying baseline from taking
// harmful queueing for the new normal is the second signal, which has no
// baseline: queueing that makes requests late or fail slowly keeps cutting
// the limit however long it lasts. Queueing that still meets deadlines is
// left alone: it costs latency, not goodput.
//
// # A short program
//
//	ctl, err := admission.New(admission.Config{Max: 200})
//	if err != nil {
//		return err
//	}
//	d := ctl.Admit(now, admission.Request{
//		Class:    admission.Standard,
//		Slack:    deadline.Sub(now),
//		Expected: 300 * time.Millisecond,
//	})
//	if !d.Admitted {
//		return d.Err() // reply 503 with Retry-After: d.RetryAfter and the reason d.Reason
//	}
//	start := now
//	// ... queue, then serve the request ...
//	ctl.Done(end, admission.Sample{
//		Class:      admission.Standard,
//		QueueDelay: served.Sub(start),
//		Latency:    end.Sub(start),
//	})
//
// A [Controller] is safe for concurrent use. Admit and Done take no lock on
// their common path (atomic counters and a compare-and-swap for the
// in-flight slot; the lock is taken once per window, to run the rule) and do
// not allocate; from one goroutine they decide exactly as a mutex-guarded
// controller would (see [Controller] for the fine print).
package admission
