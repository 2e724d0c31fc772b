// Package control is the family of goodput's overload controls. It holds no code of its own:
// each control is a package below it, and every decision takes the current time as an
// argument, so the same code runs in a real service (through [github.com/goodput-lab/goodput/control/controlhttp])
// and in the replay simulator.
//
//   - deadline: one absolute deadline in the context and over HTTP; per-call timeouts from it.
//   - identity: one logical request identity and attempt number; a dedup ledger for mutations.
//   - budget: one retry budget shared across layers, classes and tenants.
//   - admission: admission by class before expensive work, with an adaptive limit.
//   - queue: an age- and deadline-bounded queue (CoDel, adaptive LIFO).
//   - shed: typed shedding of optional features by load state.
//   - breaker: an error-rate circuit breaker over a sliding window, generation-stamped.
//   - loadstate: the Normal/Pressured/Protected/Recovering state machine.
//   - readiness: requested, scheduled, process-ready, route-ready and warm instance stages.
//   - controlhttp: net/http middleware and RoundTripper around the controls.
//
// The benchmark in this directory compares the full per-request decision path with peers:
//
//	go test -run '^$' -bench ProtectedPath -benchmem ./control/
package control
