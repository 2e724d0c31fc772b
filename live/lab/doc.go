// Package lab turns a live run of the lab into a packet: the load generator's result
// (live/loadgen) and the evidence the lab gathers beside it (the fault proxies' counters,
// duplicate orders found in the store, the lab's own CPU) become a [packet.Arm] with
// Source "live", on the scenario's clock, so that the report, `goodput diff` and incident
// claims read it as they read a replay's.
//
// # Which function to call
//
//   - [Run] runs a scenario's arms live on loopback, one after the other (each arm has the
//     machine to itself, on the scenario's clock from its own load start): the stub
//     dependencies, a fault proxy per dependency, the reference service (live/demo) under
//     the arm's policy and the scenario's load (live/loadgen); then it stops every part,
//     audits the database by query and converts each arm with Arm. `goodput lab` calls it,
//     with each part but the generator in a process of its own.
//   - [RunPart] runs one such part in its process: `goodput lab part` calls it.
//   - [Arm] converts one arm's run: [loadgen.Result] plus [LiveCounts] to a packet arm,
//     with its populations, per-tick series, objectives (evaluated by the replay's own code,
//     [packet.Arm.Evaluate]) and invariants.
//   - [Objectives] maps a scenario's objectives to the specs Arm evaluates.
//   - [Join] puts a live packet and the replay of the same scenario in one packet, the live
//     arms under the scenario's arm names and the replay's beside them as NAME_replay
//     ([packet.ReplayName]), all on one clock.
//
// # How the populations map
//
// The generator is the entry layer. A logical request is offered at its intended send
// time. A final 429 or 503 from the service is a rejection (by its Goodput-Reject-Reason,
// or "status 503" without one); every other request is admitted: a 2xx before the
// deadline is goodput, after it late, anything else failed (by the generator's cause,
// in Live.FailedBy), and a request the generator could not send before its deadline
// (every worker busy) is expired: the caller gave up at its deadline. So
// Offered = Sent + Unsent and Admitted = Sent − Rejected + Unsent.
//
// What a live run does not measure is absent, not zero: the arm has no samples (queue
// age, in flight, load state, instances), so the report shows a dash and recovery that
// needs them is nil; queue wait and remaining deadline have a count of 0; latency
// objectives in a window or a load state have no data (the generator keeps no histogram
// to cut by time). The latency percentiles are the generator's HdrHistograms'; their mean,
// which it does not keep, is 0. Attempts are the entry layer's (the generator's), by tick; the calls
// each fault proxy received are in Live.Proxies, not in the layers, whose amplification
// the series must give tick by tick (with classes through several entries, a tick's
// attempts are not split by entry, so the series has no per-tick amplification).
//
// # Parts in processes of their own
//
// With [Options.Executable] (`goodput lab` sets it to its own binary), Run starts the
// stubs, the proxies and the service of each arm each in a child process of its own,
// `goodput lab part`, serving on a loopback listener the parent opened and passed down (so
// the ports are the parent's, and a port in use is the parent's error). Each child is
// started in order (stubs, proxies, then the service) and waited for until it serves,
// within [PartStartTimeout], with an error naming the part and quoting its stderr
// otherwise. The parent then sends every part one start instant t0 (a wall clock instant
// a moment ahead, on stdin) and starts the generator at it: the proxies' schedules count
// from t0, and each proxy judges every call against its caller's deadline, t0 plus the
// deadline of the call's logical request in the load plan, which it rebuilds from the
// same scenario, seed and identity prefix as the generator's (the order is prefix-ID).
// The payment stub counts its duplicate authorisations by tick from t0. The end of a
// part's stdin stops it (the service first, waiting for its handlers), and it writes its
// counters on stdout; the parent audits the database itself, by query, before and after.
//
// Each part's CPU over the run is its rusage at exit less its CPU at t0; the generator's
// is the parent's (getrusage). The packet's [packet.Overhead] has the generator's, the
// proxies' and stubs' together, and the service's, each also per request; its CPU share
// is the lab's (generator, proxies, stubs) over the run's time on every core.
//
// No part outlives the parent: each runs in a process group of its own (so a terminal's
// Ctrl-C reaches the parent only, which stops them), on Linux with a parent-death signal,
// and on any error or interrupt the parent kills every part's process group and waits for
// it. Without Options.Executable, as in the package's own tests, every part runs in the
// calling process on goroutines of its own, and the generator's CPU includes theirs.
package lab
