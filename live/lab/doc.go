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
//     audits the database by query and converts each arm with Arm. `goodput lab` calls it.
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
// # Parts in one process
//
// Run starts every part in the calling process, on real loopback sockets and real HTTP,
// each on goroutines of its own; so the generator's CPU figure (the process's) includes the
// service's, the proxies' and the stubs', and the CPU each part used is known only
// roughly. Running each part in a process of its own (a re-exec of the goodput binary
// per part) is a later option.
package lab
