package model

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/control/breaker"
	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/sim"
)

// breakerScenario is one service of two instances calling a dependency of 10 ms that
// fails 40% of calls from 5s to 15s (%s: the dependency's extra settings); the protected
// arm's breakers open at 25% failures over 2s (%s: the breaker's extra settings).
const breakerScenario = `
name: breaker
clock: {duration: 25s, tick: 1s}
load:
  arrivals: uniform
  schedule: [{at: 0s, rate: 200/s}]
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
    - {name: api, instances: 2, workers: 100}
  dependencies:
    - {name: d, service_time: {p50: 10ms, p99: 10ms}, timeout: 500ms%s}
faults:
  - {at: 5s, for: 10s, dependency: d, error_rate: 40%%}
arms:
  - {name: baseline, policy: {}}
  - name: protected
    policy:
      breakers:
        - {dependency: d, threshold: 25%%, window: 2s, min_volume: 20, open_for: 1s, max_open_for: 4s, probes: 3%s}
`

// depCalls is the calls of dependency d in arm a.
func depCalls(a *packet.Arm) int64 {
	for _, d := range a.Dependencies {
		if d.Name == "d" {
			return d.Calls
		}
	}
	return -1
}

// TestBreakerOpensOnFailures: a dependency failing 40% of calls opens every instance's
// breaker within the window; refused calls fail fast and are not made, so the protected
// arm makes fewer calls than the baseline; once the dependency heals the breakers close
// through their half-open probes.
func TestBreakerOpensOnFailures(t *testing.T) {
	pk := fates(t, decode(t, fmt.Sprintf(breakerScenario, "", "")), 1)
	base, prot := armNamed(t, pk, "baseline"), armNamed(t, pk, "protected")
	if len(base.Breakers) != 0 {
		t.Errorf("baseline has breakers %+v; want none", base.Breakers)
	}
	if len(prot.Breakers) != 1 {
		t.Fatalf("protected breakers %+v; want one for d", prot.Breakers)
	}
	b := prot.Breakers[0]
	if b.Trips < 2 || b.Refused == 0 || b.FirstTrip == nil {
		t.Fatalf("breakers %+v; want both instances' breakers tripped and calls refused", b)
	}
	if *b.FirstTrip < 5 || *b.FirstTrip > 7 {
		t.Errorf("first trip at %vs; want within the 2s window after the fault at 5s", *b.FirstTrip)
	}
	if bc, pc := depCalls(base), depCalls(prot); pc >= bc-b.Refused/2 {
		t.Errorf("protected made %d calls, baseline %d, %d refused; want the refused calls not made", pc, bc, b.Refused)
	}
	// Every instance's breaker ends closed: its last event goes to Closed.
	last := map[int]string{}
	for _, e := range prot.Events {
		if e.Kind != "breaker" {
			continue
		}
		if e.Dependency != "d" || e.Instance == nil {
			t.Fatalf("breaker event %+v names no dependency or instance", e)
		}
		last[*e.Instance] = e.To
		if e.T.Seconds() < 5 {
			t.Errorf("breaker event before the fault: %+v", e)
		}
	}
	if len(last) != 2 {
		t.Errorf("breaker events for instances %v; want both", last)
	}
	for i, s := range last {
		if s != "Closed" {
			t.Errorf("instance %d's breaker ends %s; want Closed after the dependency heals", i, s)
		}
	}
	if b.Closes < 2 {
		t.Errorf("closes %d; want each breaker closed through its probes", b.Closes)
	}
}

// breakerCases is breakerScenario with the dependency's extra settings (%s), its fault
// (%s, a fault list's entries) and the protected arm's extra policy (%s).
const breakerCases = `
name: breaker-cases
clock: {duration: 12s, tick: 1s}
load:
  arrivals: uniform
  schedule: [{at: 0s, rate: 200/s}]
classes:
  - name: request
    share: 100%%
    deadline: 1s
    stages:
      - {name: call, dependency: d}
topology:
  entries:
    - {name: clients, target: api}
  services:
    - {name: api, instances: 2, workers: 200}
  dependencies:
    - {name: d, service_time: {p50: 10ms, p99: 10ms}, timeout: 100ms%s}
faults:
  - {at: 2s, for: 8s, dependency: d%s}
arms:
  - name: protected
    policy:
      breakers: [{dependency: d, threshold: 25%%, window: 2s, min_volume: 20, open_for: 1s}]%s
`

// TestBreakerCountsWhatTheClassifierCounts: error answers, timeouts at the call's own
// (fixed) timeout and derived timeouts cut at the policy's ceiling open the breaker;
// timeouts set by the caller's deadline (derived timeouts short of the ceiling) and a
// dependency's explicit overload rejections are Ignored by the library's classifier and
// never open it, though as many calls fail.
func TestBreakerCountsWhatTheClassifierCounts(t *testing.T) {
	for _, tc := range []struct {
		name, dep, fault, policy string
		trips                    bool
	}{
		{"error answers", "", ", error_rate: 40%", "", true},
		{"own timeouts", "", ", hang_rate: 40%", "", true},
		{"caller-deadline timeouts", "", ", hang_rate: 40%", "\n      dependency_timeout: derived\n      deadline: {reserve: 100ms}", false},
		{"derived timeouts at the ceiling", "", ", hang_rate: 40%", "\n      dependency_timeout: derived\n      deadline: {reserve: 100ms, ceiling: 300ms}", true},
		{"overload rejections", ", concurrency: 1, beyond: reject", ", service_time: {p50: 20ms, p99: 20ms}", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pk := fates(t, decode(t, fmt.Sprintf(breakerCases, tc.dep, tc.fault, tc.policy)), 1)
			a := &pk.Arms[0]
			b := a.Breakers[0]
			if got := b.Trips > 0; got != tc.trips {
				t.Errorf("trips %d (refused %d); want tripped %v", b.Trips, b.Refused, tc.trips)
			}
			if a.Totals.Failed < 300 {
				t.Errorf("%d requests failed; want the fault to fail about 40%% or more of 1600", a.Totals.Failed)
			}
		})
	}
}

// TestBreakerSameDraws: a breaker that never opens (min_volume above every window's
// calls) changes nothing of the replay, as both arms draw the same for the same calls; one
// that opens changes nothing before its first trip.
func TestBreakerSameDraws(t *testing.T) {
	never := strings.Replace(fmt.Sprintf(breakerScenario, "", ""), "min_volume: 20", "min_volume: 1000000", 1)
	pk := fates(t, decode(t, never), 7)
	base, prot := armNamed(t, pk, "baseline"), armNamed(t, pk, "protected")
	if b := prot.Breakers[0]; b.Trips != 0 || b.Refused != 0 {
		t.Fatalf("breakers %+v; want a breaker that never opens", b)
	}
	if base.Totals != prot.Totals {
		t.Errorf("totals differ with a breaker that never opens:\nbaseline  %+v\nprotected %+v", base.Totals, prot.Totals)
	}
	if !reflect.DeepEqual(base.Series, prot.Series) || !reflect.DeepEqual(base.Dependencies, prot.Dependencies) {
		t.Errorf("series or dependency figures differ with a breaker that never opens")
	}

	pk = fates(t, decode(t, fmt.Sprintf(breakerScenario, "", "")), 7)
	base, prot = armNamed(t, pk, "baseline"), armNamed(t, pk, "protected")
	first := time.Duration(*prot.Breakers[0].FirstTrip * float64(time.Second))
	rows := 0
	for i := range base.Series {
		if base.Series[i].T+time.Second > first {
			break
		}
		rows++
		if !reflect.DeepEqual(base.Series[i], prot.Series[i]) {
			t.Errorf("tick at %v, before the first trip at %v, differs:\nbaseline  %+v\nprotected %+v", base.Series[i].T, first, base.Series[i], prot.Series[i])
		}
	}
	if rows < 5 {
		t.Errorf("%d rows before the first trip at %v; want the 5 before the fault", rows, first)
	}
}

// TestBreakerStopsRetries: the client does not retry a failed call while its breaker is
// open (the probe that fails opens it again), and a refused call is no attempt and is not
// retried: the protected arm's dependency layer retries far less than the baseline's.
func TestBreakerStopsRetries(t *testing.T) {
	pk := fates(t, decode(t, fmt.Sprintf(breakerScenario, ", retries: {max: 2, on: [error]}", "")), 1)
	base, prot := armNamed(t, pk, "baseline"), armNamed(t, pk, "protected")
	if n := prot.Retry.SuppressedBy["breaker-open"]; n == 0 {
		t.Errorf("no retry suppressed as breaker-open (%+v); want the failed probes not retried", prot.Retry)
	}
	if n := base.Retry.SuppressedBy["breaker-open"]; n != 0 {
		t.Errorf("baseline: %d retries suppressed as breaker-open; want none without a breaker", n)
	}
	layer := func(a *packet.Arm) packet.LayerStats {
		for _, l := range a.Layers {
			if l.Name == "d" {
				return l
			}
		}
		t.Fatal("no layer d")
		return packet.LayerStats{}
	}
	bl, pl := layer(base), layer(prot)
	if pl.Retries*2 > bl.Retries {
		t.Errorf("retries at d: protected %d, baseline %d; want the open breakers to stop most", pl.Retries, bl.Retries)
	}
	if b := prot.Breakers[0]; pl.Attempts+b.Refused > bl.Attempts {
		t.Errorf("protected: %d attempts and %d refused at d, more than the baseline's %d attempts; want refusals neither attempted nor retried", pl.Attempts, b.Refused, bl.Attempts)
	}
}

// TestBreakerNewProcess: an instance whose process crashes while its breaker is open
// comes back with a new client, whose breaker starts closed; the timeline says so, and
// the change is no close.
func TestBreakerNewProcess(t *testing.T) {
	src := strings.Replace(fmt.Sprintf(breakerScenario, "", ""),
		"faults:\n", "faults:\n  - {at: 7500ms, for: 1s, service: api, crash: {count: 1}}\n", 1)
	pk := fates(t, decode(t, src), 1)
	prot := armNamed(t, pk, "protected")
	var restarted []packet.Event
	for _, e := range prot.Events {
		if e.Kind == "breaker" && strings.Contains(e.Text, "a new process") {
			restarted = append(restarted, e)
		}
	}
	if len(restarted) != 1 {
		t.Fatalf("%d breaker events of a new process (%v); want the crashed instance's", len(restarted), restarted)
	}
	if e := restarted[0]; *e.Instance != 0 || e.To != "Closed" || e.From == "Closed" || e.T < 7500*time.Millisecond || e.T > 9*time.Second {
		t.Errorf("event %+v; want instance 0's open breaker replaced by a closed one at the crash", e)
	}
}

// breakerSeeds are inputs of mutate that add a breaker (case 25): on the minimal scenario
// they make a dependency for it; with every field drawn, and with every field left to the
// library's defaults; and with the arm's timeouts derived under a ceiling of about 155ms.
var breakerSeeds = [][]byte{
	{25, 10, 3, 50, 0, 0, 1, 2, 1, 100, 4, 5, 1, 50, 1, 3, 2},
	{25, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0},
	{25, 2, 5, 100, 0, 0, 0, 0, 0, 1, 255, 0, 2, 0},
	{25, 5, 3, 0, 0, 0, 0, 0, 0, 3, 128},
}

// TestFuzzAddsBreaker: each breaker seed adds a breaker to the minimal scenario, which
// stays valid and replays under FuzzReplay's checks.
func TestFuzzAddsBreaker(t *testing.T) {
	for i, in := range breakerSeeds {
		sc := minimalScenario()
		z := &fuzzBytes{b: in}
		mutate(sc, z)
		if n := len(sc.Arms[0].Policy.Breakers); n != 1 {
			t.Errorf("seed %d adds %d breakers; want 1", i, n)
			continue
		}
		if err := sc.Validate(); err != nil {
			t.Errorf("seed %d: %v", i, err)
			continue
		}
		if c := sc.Arms[0].Policy.Deadline.Ceiling; (i == 3) != (c > 0) {
			t.Errorf("seed %d: ceiling %v; want one for seed 3 only", i, c)
		}
		checkReplay(t, sc, 1)
	}
}

// TestBreakerPacketRoundTrip: the breakers' figures and events survive packet.json and
// events.jsonl.
func TestBreakerPacketRoundTrip(t *testing.T) {
	pk := fates(t, decode(t, fmt.Sprintf(breakerScenario, "", "")), 1)
	dir := t.TempDir()
	if err := pk.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	back, err := packet.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, got := armNamed(t, pk, "protected"), armNamed(t, back, "protected")
	if !reflect.DeepEqual(want.Breakers, got.Breakers) {
		t.Errorf("breakers read back %+v; wrote %+v", got.Breakers, want.Breakers)
	}
	var events []packet.Event
	for _, e := range got.Events {
		if e.Kind == "breaker" {
			events = append(events, e)
		}
	}
	if len(events) == 0 || events[0].Dependency != "d" || events[0].Instance == nil || events[0].From != "Closed" || events[0].To != "Open" {
		t.Errorf("breaker events read back %+v; want the first a trip of d's breaker of an instance", events)
	}
}

// TestBreakerCallOutcomes is the table of what the arm tells the breaker's classifier of
// each way a call ends, and the outcome the library's default classifier makes of it.
func TestBreakerCallOutcomes(t *testing.T) {
	fixed, derived := &arm{pol: &policyRT{}}, &arm{pol: &policyRT{derived: true}}
	// A derived timeout with a 2 s ceiling, timing out at 10 s: a call asked for at 8 s was
	// given the ceiling, one asked for at 8.5 s the time its deadline left.
	capped := &arm{pol: &policyRT{derived: true, ceiling: 2 * time.Second}, s: sim.New(time.Time{})}
	capped.s.Run(10 * time.Second)
	atCeiling, short := &call{asked: 8 * time.Second}, &call{asked: 8500 * time.Millisecond}
	for _, tc := range []struct {
		name string
		call breaker.Call
		want breaker.Outcome
	}{
		{"answer", breaker.Call{Status: statusAnswerOK}, breaker.Success},
		{"error answer", breaker.Call{Status: statusAnswerFailed}, breaker.Failure},
		{"timeout at the dependency's own timeout", fixed.breakerTimeout(&call{}), breaker.Failure},
		{"timeout derived from the caller's deadline, no ceiling", derived.breakerTimeout(&call{}), breaker.Ignored},
		{"derived timeout cut at the ceiling", capped.breakerTimeout(atCeiling), breaker.Failure},
		{"derived timeout short of the ceiling", capped.breakerTimeout(short), breaker.Ignored},
		{"overload rejection, as a client sees it", breaker.Call{Status: 429, Overload: true}, breaker.Ignored},
		{"freed unanswered (cancelled, crashed)", breaker.Call{Err: context.Canceled}, breaker.Ignored},
	} {
		if got := breaker.DefaultClassify(tc.call); got != tc.want {
			t.Errorf("%s: %+v is %v; want %v", tc.name, tc.call, got, tc.want)
		}
	}
}
