// Package overload is the live overload benchmark: a checkout service on loopback calling
// one risk dependency through the live lab's fault proxy, driven open loop by the lab's
// load generator, with a fault on the timeline, to compare how variants of the checkout's
// resilience code keep goodput while the dependency is slow or failing.
//
// # Which function to call
//
//   - [Run] runs one [Case] against one [Variant]: it starts a stub dependency, a
//     live/faultproxy in front of it (the dependency's concurrency ceiling and the case's
//     fault, on the run's timeline) and the checkout built by the variant, sends the
//     case's load with live/loadgen, stops every part and returns a [Result].
//   - [Cases] are the benchmark's three cases (slow-1800ms, slow-600ms, errors-40pct);
//     [Naive] and [Goodput] are two variants (the third, failsafe-go, is in the tests,
//     so that this package does not link failsafe-go).
//   - [Measure] turns a run's timeline ([Bucket]s) into the benchmark's [Metrics]; it
//     reads no clock.
//
// BenchmarkOverload runs every case against every variant:
//
//	go test -run '^$' -bench Overload -benchtime 1x ./live/overload/
//
// # Metrics
//
// The run is cut into buckets of [Tick] (500 ms). goodput/s is the 2xx answers that came
// before the caller's deadline, counted in the bucket of their answer, over the fault's
// buckets, per second. recovery-s is the time from the fault's end to the start of the
// first two consecutive buckets whose goodput is each at least 95% of what was offered in
// them (an answer counts in the bucket it came in, an offer in the bucket it was sent in);
// when that never happens it is capped at the time from the fault's end to the run's end.
// attempts/req is the calls the dependency received (counted at the fault proxy, by arrival)
// per logical request offered, over the fault's buckets.
package overload
