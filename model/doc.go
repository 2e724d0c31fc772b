// Package model is goodput's service model: the parts of an online service that a
// scenario composes — entries (edges, clients) with per-attempt timeouts and retries, a
// router over service instances, each with a worker pool, a queue and bounded connection
// pools, dependencies with log-normal service times and bounded concurrency, mutations
// keyed by logical identity — driven on the discrete-event engine in package sim, under
// the policy of each arm of the experiment.
//
// Nothing in the model is specific to one incident: a scenario declares the topology, the
// request classes and the stages each runs, the faults on the timeline and the arms; the
// model runs those inputs and records what happens in a [packet.Recorder]. Every figure
// of the packet comes from these mechanisms.
//
// # Mechanisms
//
//   - Open-loop arrivals (Poisson or uniform) follow the rate schedules (load.schedule's,
//     drawn among the classes by their shares, and each class's own), constant or ramping,
//     with bursts beside them; a request's latency is measured from its intended send time.
//     Closed-loop users send a request, wait for its answer and think before the next.
//   - An entry sends a logical request as attempts, each with its own timeout. A retry is a
//     new attempt; without cancellation the earlier attempt keeps running (an orphan).
//   - A router picks an instance; the instance queues the attempt (count-bounded FIFO, or
//     control/queue's age- and deadline-bounded queue) until one of its workers is free.
//     A worker is held for the whole attempt, dependency calls included.
//   - A dependency call first waits for a connection of the instance's pool (the wait
//     counts against the call's timeout), then for a server of the dependency; its service
//     time is log-normal and follows the fault timeline. A call whose caller gave up runs
//     on, holding its connection and server, unless cancellation is on.
//   - Mutations (payment authorisation, order commit) take effect when the dependency
//     finishes them and go through control/identity's Ledger by logical identity:
//     duplicates are counted, and a request whose mutation ran but whose caller got no
//     answer is ambiguous.
//   - A stage may read its dependency call through a cache of its instance: a hit answers
//     it at once, a miss makes the call and a successful call fills one entry. A cache
//     holds the most popular of the load's keys it has filled, so it hits
//     H(entries)/H(keys) of lookups (Zipf harmonic numbers). An instance's memory holds its
//     attempts (queued or in service) and its caches: every tick the caches give up what
//     no longer fits beside the attempts, and refill only through misses, as does the
//     empty cache of an instance a scale fault adds.
//   - A service may health-check its instances, as an orchestrator's probes do: a probe
//     waits in the instance's queue like an attempt and passes if a worker takes it within
//     its timeout. After enough failures in a row the instance is taken out of routing
//     until it passes again (remove), or its process is killed (restart): what it holds
//     fails at once, its calls in service run on as orphans (or are cancelled, under a
//     policy that cancels), its caches are lost, and it comes back cold after the restart
//     time.
//   - Declared load factors multiply a dependency's service time and error rate by a
//     function of the calls in service (or that over its concurrency), and a service's
//     work by one of its busy workers, when the call or stage starts; a service's garbage
//     collection makes its work take 1/(1 − overhead·h^k) as long as its attempts fill
//     the heap (load.go). A dependency may hang a share of calls, which hold their server
//     and connection until the caller's timeout or cancellation, and may reject calls
//     beyond its concurrency with an overload at once (hang.go).
//   - A regional failover (a shift fault) brings extra traffic; a load state that freezes
//     failover refuses that share at the door (offered, then rejected as failover-frozen).
//   - Policies wire in the control packages: control/budget (one retry budget for every
//     layer), control/deadline (per-call timeouts from the absolute deadline),
//     control/admission (an adaptive concurrency limit with class reservations),
//     control/queue, control/shed, control/loadstate (stepped every tick with measured
//     signals) and control/readiness (when scaled-out instances take traffic).
//
// # Attempts and amplification
//
// A layer's attempts are the physical tries it originates: an entry counts every attempt it
// sends (first tries and retries); a service counts the extra tries it makes of its
// dependency calls (a call's first try is part of the attempt that makes it). Their sum per
// offered request is the seed's physical-attempt amplification, (1 + edge retries) ×
// (1 + service retries). Calls per dependency are in the packet's dependency figures;
// dependency layers carry only their orphans and completed cancellations.
//
// # Speed
//
// Each logical request lives in a record with room for one attempt and one dependency call
// of its own (the others, rarer, come from overflow slabs); records and slabs are chunked,
// with free lists. Events carry an index and a generation, and timers are never cancelled:
// an event for an object that has moved on is ignored. Timeouts of one kind and length
// expire in the order they were set, so each kind keeps them in a FIFO with one engine
// event for the earliest live one.
//
// # Common random numbers
//
// Arrivals and the class of each request come from named streams (sim.Streams); every
// per-request draw (a work time, a dependency's service time, an error, a routing choice)
// is a hash of the seed, a purpose name ("payment-risk/service") and the logical request,
// attempt, stage and try it is for. Both arms therefore draw the same number for the same
// thing however differently their runs unfold. Closed-loop users are the exception: their
// think draws are keyed by user and request number, but each arm answers them at its own
// pace, so arms with users do not share offered load.
//
// # A short program
//
//	sc, err := scenario.Load("examples/northstar/northstar.scenario.yaml")
//	if err != nil {
//		return err
//	}
//	pk, err := model.Run(ctx, sc, model.Options{Seed: sc.Seed})
//	if err != nil {
//		return err
//	}
//	for _, arm := range pk.Arms {
//		fmt.Println(arm.Name, arm.Totals.Goodput)
//	}
//
// Run runs the arms in parallel, one goroutine each; an arm's Sim, Recorder and controls
// are its own.
package model
