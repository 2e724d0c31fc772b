// Package scenario reads *.scenario.yaml files: the inputs of a goodput replay
// (offered load, request classes and their stages, a topology, faults on a
// timeline, the policy arms to compare, objectives and alerts). A scenario
// declares inputs only, never results.
//
// A service may give its instances a memory limit and a heap per attempt held;
// a cache (topology.caches) is held by each instance of a service, and a stage
// with cache set reads its dependency call through it. The cache keeps only the
// entries that fit beside the attempts, so a backlog empties it and sends more
// calls to the dependency; the hit ratio is what the replay makes of that,
// never an input.
//
// A service may also have a health check (health), as an orchestrator's
// readiness or liveness probe: every interval each instance gets a probe that
// waits in its queue like an attempt and passes if a worker picks it up within
// timeout. After failures probes in a row fail (3 by default), action remove
// takes the instance out of the router until it passes successes probes in a
// row (1 by default), and action restart kills its process, which is ready
// again after restart (the service's cold.startup by default) and then cold. So
// an instance whose queue holds more than the timeout of work fails its
// probes; whether that helps or hurts is what the replay shows. No health
// block (or a zero one) means no health check:
//
//	services:
//	  - name: checkout
//	    instances: 6
//	    workers: 16
//	    health: {interval: 10s, timeout: 1s, failures: 3, successes: 2, action: remove}
//	  - name: worker
//	    instances: 2
//	    workers: 4
//	    health: {interval: 5s, timeout: 2s, action: restart, restart: 15s}
//
// The timeout is at most the interval; successes go with remove only, restart
// with restart only. A restart may wait for a back-off first, as Kubernetes'
// CrashLoopBackOff does: backoff: {initial: 10s, max: 5m, reset: 10m} delays the
// first restart 10s and doubles the delay with each one after it, up to max,
// until a process has run for reset.
//
// Load a file with [Load], or decode bytes with [Decode]; both decode strictly
// and then run [Scenario.Validate]:
//
//	s, err := scenario.Load("examples/northstar/northstar.scenario.yaml")
//	if err != nil {
//		fmt.Fprintln(os.Stderr, err) // one "file:line:col: path: problem; expected …" per line
//		os.Exit(1)
//	}
//	fmt.Println(s.Name, s.Clock.Duration, s.Load.Schedule[0].Rate) // northstar 40m 9000/s
//
// # Quantities with units
//
// Durations, rates, shares and sizes are written with their units and decode into
// value types that say what they hold:
//
//	Duration   350ms, 1.8s, 40m, 1h30m       (a bare number is an error)
//	Rate       9000/s, 540000/min, 9k/s      (events per second)
//	Fraction   28% or 0.28                   (0 to 1)
//	Factor     115%, 1.15 or 1.15x           (a multiplier)
//	Instant    2026-03-10T14:00:00Z          (RFC 3339)
//	Size       16KiB, 2MiB, 1.5GiB, 512B     (bytes: KiB, MiB… in 1024s; kB, MB… in 1000s)
//	Quantiles  {p50: 38ms, p99: 95ms}        (a log-normal fixed by median and p99)
//	Dist       4ms, {constant: 4ms}, {mean: 5ms} or {p50: 38ms, p99: 95ms}
//
// Each has a Parse function, UnmarshalText and MarshalText (so encoding/json
// and goccy/go-yaml read and write the same spelling) and a JSONSchema method.
//
// # Strict decoding
//
// Decoding (package github.com/goodput-lab/goodput/yamlfile, which the incident and packet formats
// share) walks the goccy/go-yaml syntax tree itself, so that it can report
// every problem at once, each at its position: unknown keys (with the closest
// known key suggested), duplicate keys, values of the wrong type, quantities
// without units or with unknown ones, an empty file, a second document, YAML
// syntax errors, tabs. Anchors, aliases and merge keys (<<: *base) work; input
// that would make decoding slow (over 1 MiB, nested over 64 deep, a mapping of
// over 256 keys, or expanding through aliases to over 100,000 values) is
// refused with an error. The error is an [ErrorList]; each [Error] prints as
//
//	northstar.scenario.yaml:12:15: classes[0].deadline: "1800" has no unit; durations need a unit, e.g. 350ms, 1.8s or 40m
//
// [Unmarshal] applies the same rules to any Go value (a non-nil pointer).
//
// # Validation errors with positions
//
// Validate methods report semantic problems as [FieldError]s naming a YAML
// path ($.classes[1].share), gathered in [Errors]. After a clean decode,
// [Decode] calls Validate and turns each path into the file:line:col where that
// value is written (or, for a missing key, where its parent is).
//
// # Changing an input without editing the file
//
// [Scenario.With] returns a copy with [Override]s applied (goodput replay --set
// PATH=VALUE): the path uses the file's keys and steps into a list by an
// element's name or index, the value is spelled as in the file, and the result
// is decoded and validated as strictly as a file:
//
//	o, _ := scenario.ParseOverride("topology.dependencies.payment-risk.pool.per_instance=32")
//	s2, err := s.With(o) // err names the override and the path of any problem
//
// # JSON Schema
//
// [Schema] generates the JSON Schema of the format from the Go types, with
// their doc comments as descriptions; `goodput schema scenario` prints it for
// editors (yaml-language-server).
//
// Decoding and the value types are safe for concurrent use; a decoded
// Scenario is a plain value.
package scenario
