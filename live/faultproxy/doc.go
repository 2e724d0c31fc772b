// Package faultproxy is the live lab's HTTP fault proxy: a reverse proxy in front of one
// dependency that applies the dependency's faults from a scenario on the run's timeline,
// and counts the calls whose work started after their caller had given up — the evidence
// that cancellation does or does not stop downstream work.
//
// # Which function to call
//
//   - [FromScenario] builds the [Schedule] of one dependency from a decoded scenario: its
//     base service time, error rate and concurrency, then each fault on it from faults:.
//     [Schedule.At] is the [Fault] in force at a time since the run's start.
//   - [New] makes a [Proxy] from a [Config] (the upstream URL, the schedule, a seed);
//     serve it with net/http. [Proxy.SetFault] and [Proxy.ClearFault] override the
//     schedule while it runs, as the control API does (see [ControlPrefix]), and
//     [Proxy.Stats] reads the counters.
//
// # A call's way through the proxy
//
// The proxy reads the call's identity (control/identity's Idempotency-Key and
// Goodput-Attempt) and absolute deadline (control/deadline's Goodput-Deadline); a
// malformed header is answered 400. It reads the body into memory (up to [MaxBody]), as
// net/http notices a caller leave only once the body is read. Under the fault's concurrency ceiling the call takes a
// slot, or beyond it waits in FIFO order (beyond: wait) or is rejected (beyond: reject).
// With the slot the dependency's work starts: the proxy counts a start after the deadline
// the call carried and a start after the caller's context ended. Then the call hangs until
// its caller gives up (the hang rate), or spends its added service time (ended early if
// the caller goes) and is answered an injected error (the error rate) or forwarded to the
// upstream. The slot is held until the answer.
//
// # Determinism
//
// Whether a call hangs, its added service time and whether it errs are drawn from a hash
// of the proxy's seed, the purpose, the call's key and its attempt number ([Draws]), as the
// replay model draws, so two runs with the same seed and the same calls draw the same
// delays whatever the order the calls arrive in. A call without an identity is numbered in
// arrival order instead, which is only reproducible if the arrivals are.
//
// # Clocks
//
// Every duration (the run's elapsed time, the added service time) is measured on the
// monotonic clock. The deadline header is wall time on the caller's clock, so the one
// check against it reads the wall clock: a caller and a proxy on one host share it.
package faultproxy
