package scenario

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// validBase is a small valid scenario; each case of TestValidate breaks one thing in it.
const validBase = `
name: base
clock: {duration: 1m, tick: 1s}
load:
  schedule: [{at: 0s, rate: 100/s}, {at: 30s, rate: 200/s}]
  keys: {count: 10000, zipf: 1.1}
classes:
  - name: buy
    share: 60%
    deadline: 1s
    admission: standard
    stages:
      - {name: prepare, work: 2ms}
      - {name: charge, dependency: pay, mutation: payment_authorization}
      - {name: extras, dependency: pay, optional: true, fallback: conservative}
  - name: look
    share: 40%
    deadline: 500ms
    entry: web
    stages:
      - {name: read, work: {mean: 1ms}}
      - {name: fetch, dependency: catalog, cache: items}
topology:
  entries:
    - {name: web, target: shop, timeout: 300ms, retries: {max: 1, on: [timeout]}}
  services:
    - {name: shop, instances: 2, workers: 4, queue: {capacity: 10}, cold: {rate_factor: 50%, for: 10s}, memory: {limit: 64MiB, per_attempt: 1MiB}}
  caches:
    - {name: items, service: shop, entries: 1000, entry_size: 4KiB}
  dependencies:
    - {name: pay, service_time: {p50: 10ms, p99: 40ms}, pool: {per_instance: 2}, timeout: 100ms}
    - {name: catalog, service_time: {p50: 2ms, p99: 8ms}}
faults:
  - {at: 10s, for: 10s, dependency: pay, service_time: {p50: 10ms, p99: 200ms}}
  - {at: 20s, shift: {rate: 115%}}
  - {at: 30s, scale: {service: shop, add: 2}}
  - {at: 40s, for: 5s, service: shop, work_factor: 200%}
arms:
  - {name: baseline, policy: {}}
  - name: protected
    policy:
      deadline: {propagate: true, cancel: true, reserve: 50ms}
      identity: true
      retries: {mode: budget, budget: {ratio: 2%}}
      dependency_timeout: derived
      queue: {kind: age, max_age: 500ms, target: 5ms, adaptive_lifo: true}
      admission: {adaptive: true, reserve: {continuation: 10%, lookup: 5%}}
      shed: {plan: default, features: [extras]}
      loadstate: {preset: northstar, trigger: pay}
      readiness: warm
objectives:
  - {name: p99, metric: latency_p99, class: buy, max: 800ms}
  - {name: floor, metric: goodput_rate, min: 150/s, window: {from: 10s, to: 30s}}
  - {name: dups, metric: duplicates, max: 0}
  - {name: normal, metric: time_to_normal, after: 20s, max: 30s}
alerts:
  - {name: timeouts, metric: timeout_rate, above: 2%, for: 10s}
`

func TestValidateAcceptsBase(t *testing.T) {
	if _, err := Decode("base.yaml", []byte(validBase)); err != nil {
		t.Fatalf("base scenario rejected:\n%v", err)
	}
}

// TestValidate breaks the base scenario in one place per case and checks that Validate
// reports that place (its YAML path, placed at a file position by Decode) with a message
// that says what is expected.
func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name     string
		old, new string // replace old with new in validBase
		path     string // a FieldError with this path is expected
		msg      string // and this text in its message
	}{
		{"shares", "share: 40%", "share: 30%", "$.classes", "sum to 90%"},
		{"no deadline", "    deadline: 500ms\n", "", "$.classes[1].deadline", "positive end-to-end deadline"},
		{"unknown dependency", "dependency: pay, mutation", "dependency: bank, mutation", "$.classes[0].stages[1].dependency", `"bank" is not declared`},
		{"work and dependency", "{name: prepare, work: 2ms}", "{name: prepare, work: 2ms, dependency: pay}", "$.classes[0].stages[0]", "both work and dependency"},
		{"neither", "{name: prepare, work: 2ms}", "{name: prepare}", "$.classes[0].stages[0]", "neither work nor dependency"},
		{"mutation on work", "{name: prepare, work: 2ms}", "{name: prepare, work: 2ms, mutation: order_commit}", "$.classes[0].stages[0].mutation", "dependency to be set"},
		{"optional mutation", "optional: true, fallback: conservative", "optional: true, mutation: order_commit", "$.classes[0].stages[2].mutation", "cannot be optional"},
		{"fallback on required", "{name: read, work: {mean: 1ms}}", "{name: read, work: {mean: 1ms}, fallback: skip}", "$.classes[1].stages[0].fallback", "optional: true"},
		{"duplicate stage", "{name: extras, dependency", "{name: charge, dependency", "$.classes[0].stages[2].name", "appears twice"},
		{"entry target", "target: shop", "target: store", "$.topology.entries[0].target", `"store" is not a service`},
		{"class entry", "entry: web", "entry: app", "$.classes[1].entry", `"app" is not declared`},
		{"no workers", "workers: 4", "workers: 0", "$.topology.services[0].workers", "at least 1"},
		{"negative acquire timeout", "pool: {per_instance: 2}, timeout: 100ms}", "pool: {per_instance: 2, acquire_timeout: -1ms}, timeout: 100ms}", "$.topology.dependencies[0].pool.acquire_timeout", "acquire_timeout is -1ms; expected zero"},
		{"acquire timeout without a pool", "{name: catalog, service_time: {p50: 2ms, p99: 8ms}}", "{name: catalog, service_time: {p50: 2ms, p99: 8ms}, pool: {acquire_timeout: 1ms}}", "$.topology.dependencies[1].pool.acquire_timeout", "with a bounded pool (per_instance)"},
		{"name clash", "{name: pay, service_time", "{name: shop, service_time", "$.topology.dependencies[0].name", "already used"},
		{"retry trigger", "on: [timeout]", "on: [tiemout]", "$.topology.entries[0].retries.on[0]", "timeout, error or overload"},
		{"cold factor", "rate_factor: 50%", "rate_factor: 150%", "$.topology.services[0].cold.rate_factor", "at most 100%"},
		{"schedule order", "{at: 30s, rate: 200/s}", "{at: 0s, rate: 200/s}", "$.load.schedule[1].at", "increasing time"},
		{"schedule start", "{at: 0s, rate: 100/s}", "{at: 5s, rate: 100/s}", "$.load.schedule[0].at", "start at 0s"},
		{"fault kinds", "{at: 20s, shift: {rate: 115%}}", "{at: 20s, shift: {rate: 115%}, scale: {service: shop, add: 1}}", "$.faults[1]", "exactly one"},
		{"permanent scale", "{at: 30s, scale: {service: shop, add: 2}}", "{at: 30s, for: 5s, scale: {service: shop, add: 2}}", "$.faults[2].for", "permanent"},
		{"work factor", "work_factor: 200%", "work_factor: 0", "$.faults[3].work_factor", "positive multiplier"},
		{"budget mode", "retries: {mode: budget, budget: {ratio: 2%}}", "retries: {mode: budget}", "$.arms[1].policy.retries", "no budget"},
		{"queue fields", "queue: {kind: age, max_age", "queue: {kind: fifo, max_age", "$.arms[1].policy.queue", "kind: age"},
		{"lifo needs target", "target: 5ms, adaptive_lifo: true", "adaptive_lifo: true", "$.arms[1].policy.queue.adaptive_lifo", "target"},
		{"reservations", "reserve: {continuation: 10%, lookup: 5%}", "reserve: {continuation: 60%, lookup: 50%}", "$.arms[1].policy.admission.reserve", "less than 100%"},
		{"shed feature", "features: [extras]", "features: [charge]", "$.arms[1].policy.shed.features[0]", "not an optional stage"},
		{"trigger", "trigger: pay", "trigger: shop", "$.arms[1].policy.loadstate.trigger", "not a dependency"},
		{"arm names", "{name: baseline, policy: {}}", "{name: protected, policy: {}}", "$.arms[1].name", "declared twice"},
		{"objective unit", "metric: goodput_rate, min: 150/s", "metric: goodput_rate, min: 150ms", "$.objectives[1].min", "a rate"},
		{"objective class", "class: buy, max", "class: sell, max", "$.objectives[0].class", "not declared"},
		{"objective bound", "{name: dups, metric: duplicates, max: 0}", "{name: dups, metric: duplicates}", "$.objectives[2]", "min or max"},
		{"window", "window: {from: 10s, to: 30s}", "window: {from: 30s, to: 10s}", "$.objectives[1].window.to", "not after"},
		{"alert metric", "metric: timeout_rate", "metric: errors", "$.alerts[0].metric", "unknown alert metric"},
		{"tick", "tick: 1s", "tick: 2m", "$.clock.tick", "longer than the run"},
		{"per_attempt without limit", "memory: {limit: 64MiB, per_attempt: 1MiB}", "memory: {per_attempt: 1MiB}", "$.topology.services[0].memory.per_attempt", "per_attempt needs a limit"},
		{"cache name", "{name: items, service: shop", `{name: "", service: shop`, "$.topology.caches[0].name", "name is empty"},
		{"cache twice", "    - {name: items, service: shop, entries: 1000, entry_size: 4KiB}\n", "    - {name: items, service: shop, entries: 1000, entry_size: 4KiB}\n    - {name: items, service: shop, entries: 10, entry_size: 1KiB}\n", "$.topology.caches[1].name", `cache "items" is declared twice`},
		{"cache service", "service: shop, entries", "service: shops, entries", "$.topology.caches[0].service", `service "shops" is not declared; expected one of "shop"`},
		{"no entries", "entries: 1000", "entries: 0", "$.topology.caches[0].entries", "at least 1"},
		{"too many entries", "entries: 1000", "entries: 100000001", "$.topology.caches[0].entries", "at most 100000000"},
		{"entry size with memory", "entries: 1000, entry_size: 4KiB}", "entries: 1000}", "$.topology.caches[0].entry_size", `service "shop" has a memory limit, so entry_size must be set`},
		{"zero entry size with memory", "entry_size: 4KiB", "entry_size: 0B", "$.topology.caches[0].entry_size", "entry_size must be set"},
		{"stage cache undeclared", "cache: items}", "cache: item}", "$.classes[1].stages[1].cache", `cache "item" is not declared; expected one of "items"`},
		{"stage cache without caches", "  caches:\n    - {name: items, service: shop, entries: 1000, entry_size: 4KiB}\n", "", "$.classes[1].stages[1].cache", "expected a cache declared in topology.caches"},
		{"stage cache on work", "{name: fetch, dependency: catalog, cache: items}", "{name: fetch, work: 1ms, cache: items}", "$.classes[1].stages[1].cache", "a cache is read through on the way to a dependency; expected dependency to be set"},
		{"a cache no stage reads", "{name: fetch, dependency: catalog, cache: items}", "{name: fetch, dependency: catalog}", "$.topology.caches[0].name", `"items" is read by no stage`},
		{"memory without a cache", "    - {name: items, service: shop, entries: 1000, entry_size: 4KiB}\n", "", "$.topology.services[0].memory", "holds no cache"},
		{"zipf too steep", "zipf: 1.1", "zipf: 101", "$.load.keys.zipf", "at most 100"},
		{"one dependency behind a cache", "{name: read, work: {mean: 1ms}}", "{name: read, dependency: pay, cache: items}", "$.classes[1].stages[1].cache", `already read through on the way to "pay"`},
		{"stage cache with mutation", "{name: fetch, dependency: catalog, cache: items}", "{name: fetch, dependency: catalog, cache: items, mutation: order_commit}", "$.classes[1].stages[1].cache", "no cache on a stage with a mutation"},
		{"health without interval", "memory: {limit: 64MiB, per_attempt: 1MiB}}", "memory: {limit: 64MiB, per_attempt: 1MiB}, health: {timeout: 1s, action: remove}}", "$.topology.services[0].health.interval", "health needs an interval"},
		{"health negative interval", "memory: {limit: 64MiB, per_attempt: 1MiB}}", "memory: {limit: 64MiB, per_attempt: 1MiB}, health: {interval: -1s, timeout: 1s, action: remove}}", "$.topology.services[0].health.interval", "interval is -1s; expected a positive time"},
		{"health interval too short", "memory: {limit: 64MiB, per_attempt: 1MiB}}", "memory: {limit: 64MiB, per_attempt: 1MiB}, health: {interval: 500us, timeout: 100us, action: remove}}", "$.topology.services[0].health.interval", "interval is 500µs; expected at least 1ms"},
		{"health backoff with remove", "memory: {limit: 64MiB, per_attempt: 1MiB}}", "memory: {limit: 64MiB, per_attempt: 1MiB}, health: {interval: 10s, timeout: 1s, action: remove, backoff: {initial: 10s}}}", "$.topology.services[0].health.backoff", "expected backoff only with action: restart"},
		{"health backoff without initial", "memory: {limit: 64MiB, per_attempt: 1MiB}}", "memory: {limit: 64MiB, per_attempt: 1MiB}, health: {interval: 10s, timeout: 1s, action: restart, backoff: {max: 5m}}}", "$.topology.services[0].health.backoff.initial", "initial is 0s; expected a positive delay"},
		{"health backoff max under initial", "memory: {limit: 64MiB, per_attempt: 1MiB}}", "memory: {limit: 64MiB, per_attempt: 1MiB}, health: {interval: 10s, timeout: 1s, action: restart, backoff: {initial: 1m, max: 30s}}}", "$.topology.services[0].health.backoff.max", "max is 30s; expected zero (5m) or a delay of at least initial (1m)"},
		{"health backoff negative reset", "memory: {limit: 64MiB, per_attempt: 1MiB}}", "memory: {limit: 64MiB, per_attempt: 1MiB}, health: {interval: 10s, timeout: 1s, action: restart, backoff: {initial: 10s, reset: -1m}}}", "$.topology.services[0].health.backoff.reset", "reset is -1m; expected zero (10m) or more"},
		{"health without timeout", "memory: {limit: 64MiB, per_attempt: 1MiB}}", "memory: {limit: 64MiB, per_attempt: 1MiB}, health: {interval: 10s, action: remove}}", "$.topology.services[0].health.timeout", "timeout is 0s; expected a positive time"},
		{"health timeout over interval", "memory: {limit: 64MiB, per_attempt: 1MiB}}", "memory: {limit: 64MiB, per_attempt: 1MiB}, health: {interval: 1s, timeout: 2s, action: remove}}", "$.topology.services[0].health.timeout", "timeout 2s is longer than the interval 1s"},
		{"health failures", "memory: {limit: 64MiB, per_attempt: 1MiB}}", "memory: {limit: 64MiB, per_attempt: 1MiB}, health: {interval: 10s, timeout: 1s, failures: -1, action: remove}}", "$.topology.services[0].health.failures", "failures is -1; expected zero (3) or more"},
		{"health too many successes", "memory: {limit: 64MiB, per_attempt: 1MiB}}", "memory: {limit: 64MiB, per_attempt: 1MiB}, health: {interval: 10s, timeout: 1s, successes: 1001, action: remove}}", "$.topology.services[0].health.successes", "at most 1000"},
		{"health without action", "memory: {limit: 64MiB, per_attempt: 1MiB}}", "memory: {limit: 64MiB, per_attempt: 1MiB}, health: {interval: 10s, timeout: 1s}}", "$.topology.services[0].health.action", "action is empty; expected remove"},
		{"health unknown action", "memory: {limit: 64MiB, per_attempt: 1MiB}}", "memory: {limit: 64MiB, per_attempt: 1MiB}, health: {interval: 10s, timeout: 1s, action: kill}}", "$.topology.services[0].health.action", `unknown health action "kill"; expected remove or restart`},
		{"health successes with restart", "memory: {limit: 64MiB, per_attempt: 1MiB}}", "memory: {limit: 64MiB, per_attempt: 1MiB}, health: {interval: 10s, timeout: 1s, successes: 2, action: restart}}", "$.topology.services[0].health.successes", "expected successes only with action: remove"},
		{"health restart with remove", "memory: {limit: 64MiB, per_attempt: 1MiB}}", "memory: {limit: 64MiB, per_attempt: 1MiB}, health: {interval: 10s, timeout: 1s, action: remove, restart: 30s}}", "$.topology.services[0].health.restart", "expected restart only with action: restart"},
		{"health negative restart", "memory: {limit: 64MiB, per_attempt: 1MiB}}", "memory: {limit: 64MiB, per_attempt: 1MiB}, health: {interval: 10s, timeout: 1s, action: restart, restart: -1s}}", "$.topology.services[0].health.restart", "restart is -1s; expected zero"},
		{"stage cache of another service", "memory: {limit: 64MiB, per_attempt: 1MiB}}\n  caches:\n    - {name: items, service: shop", "memory: {limit: 64MiB, per_attempt: 1MiB}}\n    - {name: back, instances: 1, workers: 1}\n  caches:\n    - {name: items, service: back", "$.classes[1].stages[1].cache", `cache "items" is held by service "back", not the class's entry target "shop"`},
		// The timeline: every time falls inside the 1-minute clock.
		{"step after the end", "{at: 30s, rate: 200/s}", "{at: 1m, rate: 200/s}", "$.load.schedule[1].at", "step at 1m is at or after the end of the run (1m); expected a time inside the run"},
		{"fault after the end", "{at: 40s, for: 5s, service: shop", "{at: 10m, for: 5s, service: shop", "$.faults[3].at", "fault at 10m is at or after the end of the run (1m); expected a time inside the run"},
		{"fault past the end", "{at: 40s, for: 5s, service: shop", "{at: 40s, for: 30s, service: shop", "$.faults[3].for", "the fault ends at 1m10s, after the end of the run (1m); expected for at most 20s (or no for: until the end)"},
		{"window after the end", "window: {from: 10s, to: 30s}", "window: {from: 2m, to: 3m}", "$.objectives[1].window.from", "from 2m is at or after the end of the run (1m)"},
		{"window past the end", "window: {from: 10s, to: 30s}", "window: {from: 10s, to: 2m}", "$.objectives[1].window.to", "to 2m is after the end of the run (1m); expected at most 1m (or no to: until the end)"},
		{"window between ticks", "window: {from: 10s, to: 30s}", "window: {from: 10200ms, to: 10900ms}", "$.objectives[1].window", "the window [10.2s, 10.9s) holds no tick (one starts every 1s), so no arm can measure it"},
		{"after after the end", "after: 20s", "after: 1m", "$.objectives[3].after", "after 1m is at or after the end of the run (1m); expected an instant inside the run"},
		{"window on time_to_normal", "after: 20s, max: 30s}", "after: 20s, max: 30s, window: {from: 10s}}", "$.objectives[3].window", "time_to_normal is measured from after to the end of the run, not over a window"},
		{"class on a series metric", "{name: dups, metric: duplicates, max: 0}", "{name: dups, metric: duplicates, class: buy, max: 0}", "$.objectives[2].class", `duplicates is recorded for all classes together, so no arm can measure it for class "buy"`},
		{"alert for the whole run", "above: 2%, for: 10s", "above: 2%, for: 1m", "$.alerts[0].for", "for 1m is not shorter than the run (1m), so the alert can never fire"},
		// Arithmetic: rates that offer nothing, and durations whose sums with the clock overflow.
		{"rate below one per run", "{at: 0s, rate: 100/s}", "{at: 0s, rate: 0.00000000001/s}", "$.load.schedule[0].rate", "rate 1e-11/s offers less than one arrival in the 1m run; expected at least one arrival per run (60/h or more), or 0/s for a pause"},
		{"uniform rate below one per run", "  schedule: [{at: 0s, rate: 100/s}", "  arrivals: uniform\n  schedule: [{at: 0s, rate: 59/h}", "$.load.schedule[0].rate", "(60/h or more)"},
		{"shift beyond the rate limit", "shift: {rate: 115%}", "shift: {rate: 100000x}", "$.faults[1].shift.rate", "takes the peak offered rate 200/s to 20000000/s (shifts that overlap multiply), more than 10,000,000/s"},
		{"drain overflows", "clock: {duration: 1m, tick: 1s}", "clock: {duration: 1m, tick: 1s, drain: 2562047h47m}", "$.clock.drain", "duration 1m plus drain 2562047h47m is beyond the clock's range (about 292 years)"},
		{"deadline overflows the default drain", "deadline: 500ms", "deadline: 2000000h", "$.classes[1].deadline", "deadline 2000000h makes the default drain (twice the longest deadline) beyond the clock's range"},
		{"attempts overflow", "timeout: 300ms, retries: {max: 1", "timeout: 2000000h, retries: {max: 1", "$.topology.entries[0].timeout", "2 attempts of timeout 2000000h and backoff 0s last beyond the clock's range"},
		{"dependency attempts overflow", "pool: {per_instance: 2}, timeout: 100ms}", "pool: {per_instance: 2}, timeout: 2000000h, retries: {max: 1}}", "$.topology.dependencies[0].timeout", "2 attempts of timeout 2000000h and backoff 0s reach beyond the clock's range: the run lasts 1m10s with its drain"},
		{"delay overflows", "cold: {rate_factor: 50%, for: 10s}", "cold: {rate_factor: 50%, for: 2562047h47m}", "$.topology.services[0].cold.for", "for 2562047h47m reaches beyond the clock's range: the run lasts 1m"},
		{"entry attempts with a drain", "clock: {duration: 1m, tick: 1s}", "clock: {duration: 1m, tick: 1s, drain: 2562047h46m16.5s}", "$.topology.entries[0].timeout", "2 attempts of timeout 300ms and backoff 0s reach beyond the clock's range"},
		{"policy delay overflows", "max_age: 500ms", "max_age: 2562047h47m", "$.arms[1].policy.queue.max_age", "max_age 2562047h47m reaches beyond the clock's range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(validBase, tc.old, tc.new, 1)
			if src == validBase {
				t.Fatalf("case does not change the scenario: %q not found", tc.old)
			}
			_, err := Decode("case.yaml", []byte(src))
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("Decode() = %v; want an ErrorList", err)
			}
			for _, e := range list {
				if e.Path == tc.path && strings.Contains(e.Msg, tc.msg) {
					if e.Line == 0 {
						t.Errorf("%s has no position: %v", tc.path, e)
					}
					return
				}
			}
			t.Errorf("no error at %s containing %q; got:\n%v", tc.path, tc.msg, err)
		})
	}
}

// TestValidateAcceptsMemoryAndCaches checks what the memory and cache rules allow.
func TestValidateAcceptsMemoryAndCaches(t *testing.T) {
	for _, tc := range []struct{ name, old, new string }{
		{"limit without per_attempt", "memory: {limit: 64MiB, per_attempt: 1MiB}", "memory: {limit: 64MiB}"},
		{"no memory, no entry size", "memory: {limit: 64MiB, per_attempt: 1MiB}}\n  caches:\n    - {name: items, service: shop, entries: 1000, entry_size: 4KiB}", "}\n  caches:\n    - {name: items, service: shop, entries: 1000}"},
		{"optional cached stage", "{name: fetch, dependency: catalog, cache: items}", "{name: fetch, dependency: catalog, cache: items, optional: true}"},
		{"stage on the named service", "{name: fetch, dependency: catalog, cache: items}", "{name: fetch, service: shop, dependency: catalog, cache: items}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(validBase, tc.old, tc.new, 1)
			if src == validBase {
				t.Fatalf("case does not change the scenario: %q not found", tc.old)
			}
			if _, err := Decode("case.yaml", []byte(src)); err != nil {
				t.Errorf("rejected:\n%v", err)
			}
		})
	}
}

// TestValidateAcceptsHealth checks what the health rules allow: no health check (a zero
// block), the defaults, a timeout equal to the interval, and each action with its own
// fields.
func TestValidateAcceptsHealth(t *testing.T) {
	const mem = "memory: {limit: 64MiB, per_attempt: 1MiB}}"
	for _, tc := range []struct{ name, health string }{
		{"empty block", "{}"},
		{"zero fields", "{interval: 0s, timeout: 0s}"},
		{"defaults", "{interval: 10s, timeout: 1s, action: remove}"},
		{"timeout equal to interval", "{interval: 2s, timeout: 2s, action: restart}"},
		{"remove with counts", "{interval: 10s, timeout: 1s, failures: 1000, successes: 1000, action: remove}"},
		{"restart with failures and restart", "{interval: 10s, timeout: 1s, failures: 1, action: restart, restart: 30s}"},
		{"restart zero", "{interval: 10s, timeout: 1s, action: restart, restart: 0s}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(validBase, mem, "memory: {limit: 64MiB, per_attempt: 1MiB}, health: "+tc.health+"}", 1)
			if src == validBase {
				t.Fatalf("case does not change the scenario: %q not found", mem)
			}
			if _, err := Decode("case.yaml", []byte(src)); err != nil {
				t.Errorf("rejected:\n%v", err)
			}
		})
	}
}

// TestValidateNegativeSizes checks the rules on sizes that a file cannot write (the
// decoder refuses a negative size) but a scenario built in Go can hold.
func TestValidateNegativeSizes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(s *Scenario)
		path   string
		msg    string
	}{
		{"limit", func(s *Scenario) { s.Topology.Services[0].Memory.Limit = -1 }, "$.topology.services[0].memory.limit", "limit is -1B; expected zero (no limit) or more"},
		{"per_attempt", func(s *Scenario) { s.Topology.Services[0].Memory.PerAttempt = -2048 }, "$.topology.services[0].memory.per_attempt", "per_attempt is -2KiB; expected zero or more"},
		{"entry_size", func(s *Scenario) { s.Topology.Caches[0].EntrySize = -1 << 20 }, "$.topology.caches[0].entry_size", "entry_size is -1MiB; expected zero or more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Decode("base.yaml", []byte(validBase))
			if err != nil {
				t.Fatal(err)
			}
			tc.change(s)
			var errs Errors
			if !errors.As(s.Validate(), &errs) {
				t.Fatalf("Validate() = %v; want Errors", s.Validate())
			}
			for _, e := range errs {
				if e.Path == tc.path && strings.Contains(e.Msg, tc.msg) {
					return
				}
			}
			t.Errorf("no error at %s containing %q; got:\n%v", tc.path, tc.msg, errs)
		})
	}
}

// TestValidateWindowTicks checks the rule that an objective's window holds a tick: the ticks
// start at 0, tick, 2·tick, … before the end of the run, and a window is the ticks that
// start in [from, to).
func TestValidateWindowTicks(t *testing.T) {
	for _, tc := range []struct {
		name           string
		tick, from, to time.Duration
		ok             bool
	}{
		{"the first tick", 7 * time.Second, 0, time.Nanosecond, true},
		{"one tick exactly", 7 * time.Second, 14 * time.Second, 14*time.Second + 1, true},
		{"just before a tick", 7 * time.Second, 13 * time.Second, 14 * time.Second, false},
		{"between ticks", 7 * time.Second, 15 * time.Second, 20 * time.Second, false},
		{"the last tick", 7 * time.Second, 56 * time.Second, 0, true},
		{"after the last tick", 7 * time.Second, 57 * time.Second, 0, false},
		{"after the last tick, to the end", 7 * time.Second, 57 * time.Second, time.Minute, false},
		{"default tick", 0, 59 * time.Second, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Decode("base.yaml", []byte(validBase))
			if err != nil {
				t.Fatal(err)
			}
			s.Clock.Tick = Duration(tc.tick)
			s.Objectives[1].Window = &Window{From: Duration(tc.from), To: Duration(tc.to)}
			err = s.Validate()
			var errs Errors
			errors.As(err, &errs)
			found := false
			for _, e := range errs {
				found = found || e.Path == "$.objectives[1].window" && strings.Contains(e.Msg, "holds no tick")
			}
			if found == tc.ok {
				t.Errorf("tick %v, window [%v, %v): Validate() = %v; want a window error: %v", tc.tick, tc.from, tc.to, err, !tc.ok)
			}
		})
	}
}

// TestValidateAcceptsTimeline checks what the timeline rules allow: a fault that ends at
// the end of the run, a window to the end, a pause (0/s) in the schedule, one arrival per
// run, and an alert that must hold for less than the run.
func TestValidateAcceptsTimeline(t *testing.T) {
	for _, tc := range []struct{ name, old, new string }{
		{"fault to the end", "{at: 40s, for: 5s, service: shop", "{at: 40s, for: 20s, service: shop"},
		{"fault without for", "{at: 40s, for: 5s, service: shop", "{at: 59s, service: shop"},
		{"window to the end", "window: {from: 10s, to: 30s}", "window: {from: 10s, to: 1m}"},
		{"window from the last tick", "window: {from: 10s, to: 30s}", "window: {from: 59s}"},
		{"a pause", "{at: 30s, rate: 200/s}", "{at: 30s, rate: 0/s}"},
		{"one arrival per run", "{at: 30s, rate: 200/s}", "{at: 30s, rate: 1/min}"},
		{"alert just shorter than the run", "above: 2%, for: 10s", "above: 2%, for: 59s"},
		{"after the last instant", "after: 20s", "after: 59s"},
		{"a heavy tail", "service_time: {p50: 2ms, p99: 8ms}", "service_time: {p50: 2ms, p99: 2562047h}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(validBase, tc.old, tc.new, 1)
			if src == validBase {
				t.Fatalf("case does not change the scenario: %q not found", tc.old)
			}
			if _, err := Decode("case.yaml", []byte(src)); err != nil {
				t.Errorf("rejected:\n%v", err)
			}
		})
	}
}

// TestTruncate shortens the Northstar example to its first two minutes: the result is
// valid, keeps what begins before 2m, ends what runs past it at 2m, and leaves the
// original as it was.
func TestTruncate(t *testing.T) {
	s, err := Load("../examples/northstar/northstar.scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	before, _ := json.Marshal(s)
	short := s.Truncate(2 * time.Minute)
	if err := short.Validate(); err != nil {
		t.Fatalf("Truncate(2m) is invalid:\n%v", err)
	}
	if got := short.Clock.Duration.Std(); got != 2*time.Minute {
		t.Errorf("duration %v, want 2m", got)
	}
	for _, f := range short.Faults {
		if f.At >= short.Clock.Duration || f.For > short.Clock.Duration-f.At {
			t.Errorf("fault at %v for %v outlasts the run", f.At, f.For)
		}
	}
	if len(short.Faults) != 2 || len(short.Faults) >= len(s.Faults) {
		t.Errorf("%d of %d faults kept, want the 2 that begin before 2m", len(short.Faults), len(s.Faults))
	}
	for _, o := range short.Objectives {
		if o.After >= short.Clock.Duration || o.Window != nil && (o.Window.From >= short.Clock.Duration || o.Window.To > short.Clock.Duration) {
			t.Errorf("objective %q is outside the run", o.Name)
		}
	}
	if after, _ := json.Marshal(s); string(after) != string(before) {
		t.Error("Truncate changed the scenario it was called on")
	}
	for _, d := range []time.Duration{0, 40 * time.Minute, time.Hour} {
		if c := s.Truncate(d); c == s || c.Clock.Duration != s.Clock.Duration || len(c.Faults) != len(s.Faults) {
			t.Errorf("Truncate(%v) is not an unchanged copy", d)
		}
	}
}
