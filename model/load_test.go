package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
)

// loadDep is one service calling one dependency of a constant-ish 10 ms; %s is the
// dependency's extra settings and the rate is set by %d.
const loadDep = `
name: load-dependent
clock: {duration: 20s, tick: 1s}
load:
  arrivals: uniform
  schedule: [{at: 0s, rate: %d/s}]
classes:
  - name: request
    share: 100%%
    deadline: 2s
    stages:
      - {name: call, dependency: d}
topology:
  entries:
    - {name: clients, target: api}
  services:
    - {name: api, instances: 2, workers: 200}
  dependencies:
    - {name: d, service_time: {p50: 10ms, p99: 10ms}%s}
arms:
  - {name: baseline, policy: {}}
`

func depStats(t *testing.T, pk *packet.Packet) packet.DependencyStats {
	t.Helper()
	for _, d := range pk.Arms[0].Dependencies {
		if d.Name == "d" {
			return d
		}
	}
	t.Fatal("no dependency d in the packet")
	return packet.DependencyStats{}
}

// TestDependencyTimeRisesWithConcurrency: a linear load factor of the concurrency leaves
// a lone call's service time as declared and lengthens it when calls overlap; a polynomial
// of the utilisation does too.
func TestDependencyTimeRisesWithConcurrency(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rate   int
		extra  string
		lo, hi time.Duration // the p50 service time
	}{
		{"no factor", 400, "", 9 * time.Millisecond, 11 * time.Millisecond},
		{"calls never overlap", 20, ", load_factor: {service_time: {of: concurrency, form: linear, a: 1}}", 9 * time.Millisecond, 11 * time.Millisecond},
		// About four in service unloaded: c = 4·(1 + 0.1·c) in service at the fixed point,
		// c ≈ 6.7, m ≈ 1.6.
		{"a few in service", 400, ", load_factor: {service_time: {of: concurrency, form: linear, a: 0.1}}", 13 * time.Millisecond, 40 * time.Millisecond},
		// c = 4·(1 + 16·(c/40)²): c ≈ 5, m ≈ 1.25.
		{"utilisation", 400, ", concurrency: 40, load_factor: {service_time: {of: utilisation, form: polynomial, a: 16, k: 2}}", 11 * time.Millisecond, 25 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := depStats(t, fates(t, decode(t, fmt.Sprintf(loadDep, tc.rate, tc.extra)), 1))
			if p50 := d.ServiceTime.P50; p50 < tc.lo || p50 > tc.hi {
				t.Errorf("p50 service time %v; want %v to %v", p50, tc.lo, tc.hi)
			}
		})
	}
}

// TestDependencyErrorsRiseWithConcurrency: the error rate's load factor multiplies the
// declared 2% as calls overlap.
func TestDependencyErrorsRiseWithConcurrency(t *testing.T) {
	failed := func(extra string) int64 {
		pk := fates(t, decode(t, fmt.Sprintf(loadDep, 400, ", error_rate: 2%"+extra)), 1)
		return pk.Arms[0].Totals.Failed
	}
	flat := failed("")
	loaded := failed(", load_factor: {error_rate: {of: concurrency, form: exponential, a: 1, b: 1}}")
	if flat == 0 || loaded < 5*flat {
		t.Errorf("failed %d with a load factor on the error rate, %d without; want at least 5 times as many", loaded, flat)
	}
}

// TestWorkLoadAt checks the multiplier of a stage's work at fixed instants: the load
// factor of the other busy workers, garbage collection's 1/(1 − overhead·h^k).
func TestWorkLoadAt(t *testing.T) {
	lin := newLoadFactor(&scenarioLinear)
	util := &loadFactor{m: scenarioLinear, util: true}
	for _, tc := range []struct {
		name string
		in   instance
		sp   servicePlan
		want float64
	}{
		{"nothing declared", instance{busy: 3, workers: 4}, servicePlan{}, 1},
		{"alone", instance{busy: 1, workers: 4}, servicePlan{workLoad: lin}, 1},
		{"three others", instance{busy: 4, workers: 4}, servicePlan{workLoad: lin}, 1 + 0.5*3},
		{"utilisation 3/4", instance{busy: 4, workers: 4}, servicePlan{workLoad: util}, 1 + 0.5*0.75},
		{"heap half full", instance{busy: 3, queued: 47}, servicePlan{memLimit: 100, perAttempt: 1, gcOverhead: 0.5, gcExponent: 1}, 1 / (1 - 0.25)},
		{"heap half full, square", instance{busy: 3, queued: 47}, servicePlan{memLimit: 100, perAttempt: 1, gcOverhead: 0.5, gcExponent: 2}, 1 / (1 - 0.125)},
		{"heap over full", instance{busy: 3, queued: 500}, servicePlan{memLimit: 100, perAttempt: 1, gcOverhead: 0.9, gcExponent: 3}, 10},
		{"both", instance{busy: 2, queued: 48, workers: 4}, servicePlan{workLoad: lin, memLimit: 100, perAttempt: 1, gcOverhead: 0.5, gcExponent: 1}, 1.5 / 0.75},
	} {
		var a arm
		if got := a.workLoad(&tc.in, &tc.sp); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// gcBacklog is one instance of 4 workers at 5 ms a stage (800/s) offered 700/s, slowed to
// half speed for 10 s: a backlog builds up to its queue's 200. Its heap holds 200
// attempts; with garbage collection the backlog cuts the capacity below the offered load,
// so it stays after the slowdown.
const gcBacklog = `
name: gc-backlog
clock: {duration: 60s, tick: 1s}
load:
  arrivals: uniform
  schedule: [{at: 0s, rate: 700/s}]
classes:
  - name: request
    share: 100%%
    deadline: 1s
    stages:
      - {name: work, work: 5ms}
topology:
  entries:
    - {name: clients, target: api}
  services:
    - name: api
      instances: 1
      workers: 4
      queue: {capacity: 200}
%s
faults:
  - {at: 10s, for: 10s, service: api, work_factor: 200%%}
arms:
  - {name: baseline, policy: {}}
`

// TestGCCutsGoodput: with garbage collection the heap the backlog fills cuts the
// instance's capacity and goodput stays low after the slowdown; without, the backlog
// drains and goodput recovers.
func TestGCCutsGoodput(t *testing.T) {
	after := func(gc string) int64 {
		pk := fates(t, decode(t, fmt.Sprintf(gcBacklog, gc)), 1)
		var n int64
		for _, r := range pk.Arms[0].Series[30:] {
			n += r.Goodput
		}
		return n
	}
	plain, gc := after(""), after("      memory: {limit: 200MiB, per_attempt: 1MiB, gc: {overhead: 80%, exponent: 1}}")
	if plain < 25*600 {
		t.Errorf("goodput %d in the last 30 s without garbage collection; want about 700/s", plain)
	}
	if gc > plain/2 {
		t.Errorf("goodput %d in the last 30 s with garbage collection, %d without; want less than half", gc, plain)
	}
}

// hangTimeouts is a dependency of 8 servers that hangs 20% of 100 calls/s; arm long gives
// up on a call after 2 s, arm short after 50 ms; requests have 1 s.
const hangTimeouts = `
name: hang
clock: {duration: 20s, tick: 1s}
load:
  arrivals: uniform
  schedule: [{at: 0s, rate: 100/s}]
classes:
  - name: request
    share: 100%
    deadline: 1s
    stages:
      - {name: call, dependency: d}
topology:
  entries:
    - {name: clients, target: api}
  services:
    - {name: api, instances: 2, workers: 200}
  dependencies:
    - {name: d, service_time: {p50: 5ms, p99: 10ms}, concurrency: 8, hang_rate: 20%, timeout: 2s}
arms:
  - {name: long, policy: {}}
  - {name: short, set: {topology.dependencies.d.timeout: 50ms}, policy: {}}
`

// TestHungCallsHoldSlotsUntilTimeout: hung calls hold the dependency's servers until their
// caller's timeout: with a 2 s timeout the 20 hung calls a second fill its 8 servers and
// the rest wait, until the wait (which counts against the timeout) shortens the hold
// enough: about 1.6 s, beyond the deadline. With 50 ms they hold about one server, the
// others are served at once and the goodput recovers.
func TestHungCallsHoldSlotsUntilTimeout(t *testing.T) {
	pk := fates(t, decode(t, hangTimeouts), 1)
	long, short := pk.Arms[0], pk.Arms[1]
	dep := func(a packet.Arm) packet.DependencyStats { return a.Dependencies[0] }
	if c := dep(long).ConcurrencyMax; c != 8 {
		t.Errorf("long: concurrency max %d; want the 8 servers all held", c)
	}
	if w := dep(long).WaitingMax; w < 50 {
		t.Errorf("long: waiting max %d; want calls queued behind the hung ones", w)
	}
	if w := dep(short).WaitingMax; w > 4 {
		t.Errorf("short: waiting max %d; want next to nothing queued", w)
	}
	if long.Totals.Goodput*2 > short.Totals.Goodput {
		t.Errorf("goodput %d with a 2s timeout, %d with 50ms; want the short timeout to recover the capacity", long.Totals.Goodput, short.Totals.Goodput)
	}
	if short.Totals.Goodput < 1400 {
		t.Errorf("short: goodput %d of 2000; want about the 80%% that do not hang", short.Totals.Goodput)
	}
}

// ceiling is a dependency of 2 servers, shared by the two instances of its caller, offered
// about 4 calls at once; beyond its ceiling it rejects (%s), and its calls are retried by
// the layered plan in one arm and under a retry budget in the other.
const ceiling = `
name: ceiling
clock: {duration: 10s, tick: 1s}
load:
  arrivals: uniform
  schedule: [{at: 0s, rate: 200/s}]
classes:
  - name: request
    share: 100%%
    deadline: 1s
    idempotent: true
    stages:
      - {name: call, dependency: d}
topology:
  entries:
    - {name: clients, target: api}
  services:
    - {name: api, instances: 2, workers: 100}
  dependencies:
    - {name: d, service_time: {p50: 20ms, p99: 20ms}, concurrency: 2%s, retries: {max: 2}}
arms:
  - {name: layered, policy: {}}
  - name: budget
    policy: {retries: {mode: budget, budget: {ratio: 100%%}}}
`

// TestCeilingRejectsAsOverload: beyond its ceiling the dependency answers at once, nothing
// waits at it, and the answers are overloads, which the retry budget refuses to retry;
// with beyond: wait the same calls queue.
func TestCeilingRejectsAsOverload(t *testing.T) {
	for _, tc := range []struct {
		beyond string
		reject bool
	}{{"", false}, {", beyond: wait", false}, {", beyond: reject", true}} {
		pk := fates(t, decode(t, fmt.Sprintf(ceiling, tc.beyond)), 1)
		for _, a := range pk.Arms {
			d := a.Dependencies[0]
			name := strings.TrimPrefix(tc.beyond, ", ") + " " + a.Name
			if d.ConcurrencyMax > 2 {
				t.Errorf("%s: concurrency max %d above the ceiling of 2", name, d.ConcurrencyMax)
			}
			if tc.reject && d.WaitingMax != 0 {
				t.Errorf("%s: waiting max %d; want nothing waiting at a dependency that rejects", name, d.WaitingMax)
			}
			if !tc.reject && d.WaitingMax == 0 {
				t.Errorf("%s: nothing waited; want calls queued beyond the ceiling", name)
			}
			over := a.Retry.SuppressedBy["overload"]
			switch {
			case tc.reject && a.Name == "budget" && over == 0:
				t.Errorf("%s: no retry suppressed as overload; want the rejections refused by the budget", name)
			case !tc.reject && over != 0:
				t.Errorf("%s: %d retries suppressed as overload; want none", name, over)
			case tc.reject && a.Name == "layered" && a.Totals.Failed == 0:
				t.Errorf("%s: nothing failed; want rejected calls failing their requests after the retries", name)
			}
		}
	}
}

var scenarioLinear = scenario.LoadFactor{Of: scenario.LoadOfConcurrency, Form: scenario.LoadLinear, A: 0.5}

// loadSeeds are inputs of addLoadBehaviour, one of each kind: a service's load factor,
// garbage collection, a dependency's load factors, a hang rate, a fault of one and a
// ceiling that rejects.
var loadSeeds = [][]byte{
	{0, 5, 0, 1, 19},
	{1, 50, 200, 10, 60, 20},
	{2, 0, 10, 1, 2, 5, 1, 3, 0, 0},
	{3, 1, 3},
	{4, 2, 3, 20, 50},
	{2, 3, 4, 1},
}

// TestFuzzAddsLoadBehaviour: each load seed changes the scenario it is given, which stays
// valid and replays under FuzzReplay's checks.
func TestFuzzAddsLoadBehaviour(t *testing.T) {
	for i, in := range loadSeeds {
		sc := minimalScenario()
		sc.Topology.Dependencies = []scenario.Dependency{{
			Name: "d0", ServiceTime: scenario.Quantiles{P50: scenario.Duration(5 * time.Millisecond), P99: scenario.Duration(20 * time.Millisecond)},
			Concurrency: 4, Pool: scenario.Pool{PerInstance: 4}, Timeout: scenario.Duration(100 * time.Millisecond),
		}}
		sc.Classes[0].Stages = append(sc.Classes[0].Stages, scenario.Stage{Name: "call", Dependency: "d0"})
		before, err := json.Marshal(sc)
		if err != nil {
			t.Fatal(err)
		}
		addLoadBehaviour(sc, &fuzzBytes{b: in})
		after, err := json.Marshal(sc)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(before, after) {
			t.Errorf("seed %d changes nothing", i)
			continue
		}
		if err := sc.Validate(); err != nil {
			t.Errorf("seed %d: %v", i, err)
			continue
		}
		checkReplay(t, sc, 1)
	}
}

// busyWorkers is one instance of 8 workers at 5 ms a stage offered 800/s: about 4 busy.
const busyWorkers = `
name: busy-workers
clock: {duration: 10s, tick: 1s}
load:
  arrivals: uniform
  schedule: [{at: 0s, rate: 800/s}]
classes:
  - name: request
    share: 100%%
    deadline: 1s
    stages:
      - {name: work, work: 5ms}
topology:
  entries:
    - {name: clients, target: api}
  services:
    - {name: api, instances: 1, workers: 8%s}
arms:
  - {name: baseline, policy: {}}
`

// TestWorkRisesWithBusyWorkers: a service's load factor lengthens its stage work with the
// instance's other busy workers: c = 4·(1 + 0.1·c) busy at the fixed point, c ≈ 6.7, so
// the work takes about 1.6 times as long.
func TestWorkRisesWithBusyWorkers(t *testing.T) {
	p50 := func(extra string) time.Duration {
		return fates(t, decode(t, fmt.Sprintf(busyWorkers, extra)), 1).Arms[0].Latency.P50
	}
	plain := p50("")
	loaded := p50(", load_factor: {service_time: {of: concurrency, form: linear, a: 0.1}}")
	if plain > 6*time.Millisecond || loaded < 7*time.Millisecond || loaded > 15*time.Millisecond {
		t.Errorf("p50 latency %v with the load factor, %v without; want about 8 ms and 5 ms", loaded, plain)
	}
}
