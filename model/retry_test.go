package model

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
)

// withPropagatingArm adds to sc an arm "propagate" that decides retries by the deadline
// without a budget (deadlines propagated, derived call timeouts, reserve 20ms).
func withPropagatingArm(t *testing.T, sc *scenario.Scenario) *scenario.Scenario {
	t.Helper()
	extra := decode(t, `
name: extra
clock: {duration: 1s, tick: 500ms}
load: {schedule: [{at: 0s, rate: 1/s}]}
classes: [{name: c, share: 100%, deadline: 1s, stages: [{name: w, work: {mean: 1ms}}]}]
topology:
  entries: [{name: e, target: s, timeout: 1s}]
  services: [{name: s, instances: 1, workers: 1}]
arms:
  - name: propagate
    policy: {deadline: {propagate: true, reserve: 20ms}, dependency_timeout: derived}
`)
	sc.Arms = append(sc.Arms, extra.Arms[0])
	return sc
}

// TestRetryNeedsTime pins what a retry must have left before its deadline when retries
// are decided by the deadline, with a budget (the small scenario's protected arm) or
// without one (an arm that only propagates deadlines): reserve 20ms, no backoff, and the
// pay dependency's median service time declared 10ms. A service's retry of a pay call
// needs the reserve and pay's median; an entry's retry of a buy request needs the reserve
// and the medians of the calls its required stages make (pay's: extras is optional).
// With less, the retried call would be given no time or less than it usually takes,
// after a budget had spent a token on it.
func TestRetryNeedsTime(t *testing.T) {
	sc := withPropagatingArm(t, decode(t, small))
	p, err := compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	const us = time.Microsecond
	tests := []struct {
		name  string
		left  time.Duration
		entry bool
		want  bool
	}{
		{"call: the reserve, the median and a microsecond", 30*time.Millisecond + us, false, true},
		{"call: exactly the reserve and the median", 30 * time.Millisecond, false, true},
		{"call: short of the median", 30*time.Millisecond - us, false, false},
		{"call: only the reserve (its timeout would be zero)", 20 * time.Millisecond, false, false},
		{"entry: exactly the reserve and the required calls' medians", 30 * time.Millisecond, true, true},
		{"entry: short of them", 30*time.Millisecond - us, true, false},
		{"entry: only the reserve", 20 * time.Millisecond, true, false},
	}
	for _, arm := range []string{"protected", "propagate"} {
		for _, tt := range tests {
			t.Run(arm+"/"+tt.name, func(t *testing.T) {
				a, err := newArm(p, sc, sc.Arms[armIndex(sc, arm)], 1)
				if err != nil {
					t.Fatal(err)
				}
				if got := a.deps[0].p50; got != 10*time.Millisecond {
					t.Fatalf("pay's median before any tick: %v, want the declared 10ms", got)
				}
				if a.pol.budget != nil {
					for range 100 { // deposits, so that a token remains
						a.pol.budget.Request(a.wall(), "")
					}
				}
				_, lg := a.sl.newLogical()
				lg.class = 0 // buy: deadline 300ms, a pay call (required) and a flaky one (optional)
				cp := &p.classes[lg.class]
				lg.t0 = tt.left - cp.deadline
				took := a.deps[0].p50 // what callFailed passes for a pay call
				if tt.entry {
					took = a.tryTakes(cp) // what entryRetry passes
					if took != 10*time.Millisecond {
						t.Fatalf("a buy attempt is expected to take %v, want pay's median 10ms", took)
					}
				}
				rp := retryPlan{max: 1, onTimeout: true} // a first retry, at once
				ask := retryAsk{cause: causeTimeout, left: a.deadline(lg) - a.now(), takes: took, idempotent: cp.idempotent}
				if _, got := a.retry(a.retryRule(&rp), ask); got != tt.want {
					t.Errorf("retry with %v left: allowed %v, want %v", tt.left, got, tt.want)
				}
				if a.pol.budget == nil {
					return
				}
				want := int64(0)
				if tt.want {
					want = 1
				}
				if got := a.pol.budget.Stats().Retries; got != want {
					t.Errorf("tokens used %d, want %d", got, want)
				}
			})
		}
	}
}

// TestRetryRuleDecide pins the retry decision at fixed values: a layer whose plan allows
// two retries of timeouts and errors after 10ms, and a try expected to take 5ms, under a
// policy that keeps nothing, propagates deadlines with a 20ms reserve, or has a budget.
// The retry needs the backoff, the reserve and the try's 5ms (at least a nanosecond for
// the try) left: 35ms. Under a budget the verdict asks for a token with that comparison
// in the ask; the budget makes it.
func TestRetryRuleDecide(t *testing.T) {
	const ms = time.Millisecond
	rp := retryPlan{max: 2, onTimeout: true, onError: true, backoff: budget.Exponential{Base: 10 * ms, Multiplier: 1}}
	layered := retryPolicy{}
	propagate := retryPolicy{propagate: true, reserve: 20 * ms}
	budgeted := retryPolicy{propagate: true, budgeted: true, deduplicated: true, reserve: 20 * ms}
	budgetedOnly := retryPolicy{budgeted: true, deduplicated: true, reserve: 20 * ms}
	yes := retryVerdict{retry: true, backoff: 10 * ms}
	token := func(f budget.Failure, idem bool, left time.Duration) retryVerdict {
		return retryVerdict{retry: true, backoff: 10 * ms, token: true, ask: budget.Retry{
			Failure: f, Idempotent: idem, Deduplicated: true, Remaining: left, Expected: 35 * ms,
		}}
	}
	tests := []struct {
		name   string
		policy retryPolicy
		ask    retryAsk
		want   retryVerdict
	}{
		{"first retry, no deadline looked at", layered, retryAsk{cause: causeTimeout, left: -ms, takes: 5 * ms}, yes},
		{"second retry", layered, retryAsk{cause: causeError, retries: 1, takes: 5 * ms}, yes},
		{"the plan's retries made", layered, retryAsk{cause: causeTimeout, retries: 2, takes: 5 * ms}, retryVerdict{reason: retryLimit}},
		{"a failure the plan does not retry", layered, retryAsk{cause: causeOverload, takes: 5 * ms}, retryVerdict{reason: retryNotOn}},
		{"the limit before the trigger", propagate, retryAsk{cause: causeOverload, retries: 2}, retryVerdict{reason: retryLimit}},
		{"exactly the time the retry needs", propagate, retryAsk{cause: causeTimeout, left: 35 * ms, takes: 5 * ms}, yes},
		{"a nanosecond short", propagate, retryAsk{cause: causeTimeout, left: 35*ms - 1, takes: 5 * ms}, retryVerdict{reason: retryDeadline}},
		{"past the deadline", propagate, retryAsk{cause: causeError, left: -ms, takes: 5 * ms}, retryVerdict{reason: retryDeadline}},
		{"a try expected to take nothing still needs a nanosecond", propagate, retryAsk{cause: causeTimeout, left: 30 * ms, takes: 0}, retryVerdict{reason: retryDeadline}},
		{"a try expected to take nothing, with a nanosecond", propagate, retryAsk{cause: causeTimeout, left: 30*ms + 1, takes: 0}, yes},
		{"a budget asked, time enough", budgeted, retryAsk{cause: causeTimeout, left: 50 * ms, takes: 5 * ms, idempotent: true}, token(budget.Timeout, true, 50*ms)},
		{"a budget asked, time short: the budget refuses", budgeted, retryAsk{cause: causeError, left: 10 * ms, takes: 5 * ms}, token(budget.Transient, false, 10*ms)},
		{"a budget without propagation sees no deadline", budgetedOnly, retryAsk{cause: causeTimeout, left: -ms, takes: 5 * ms}, token(budget.Timeout, false, budget.NoDeadline)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := retryRule{plan: &rp, policy: tt.policy}
			if got := r.decide(tt.ask); got != tt.want {
				t.Errorf("decide(%+v) = %+v, want %+v", tt.ask, got, tt.want)
			}
		})
	}
	// An exponential backoff with equal jitter: after the second try (one retry made) its
	// ceiling is 20ms, and the draw 0.5 waits 15ms, which the retry must have left too.
	grow := retryPlan{max: 2, onTimeout: true, backoff: budget.Exponential{Base: 10 * ms, Multiplier: 2, Jitter: budget.EqualJitter}, jittered: true}
	for _, tt := range []struct {
		name string
		ask  retryAsk
		want retryVerdict
	}{
		{"first retry, u 0", retryAsk{cause: causeTimeout, left: 35 * ms, takes: 5 * ms, u: 0}, retryVerdict{retry: true, backoff: 5 * ms}},
		{"second retry, u 0.5", retryAsk{cause: causeTimeout, retries: 1, left: 40 * ms, takes: 5 * ms, u: 0.5}, retryVerdict{retry: true, backoff: 15 * ms}},
		{"second retry, u 0.5, a nanosecond short", retryAsk{cause: causeTimeout, retries: 1, left: 40*ms - 1, takes: 5 * ms, u: 0.5}, retryVerdict{reason: retryDeadline}},
	} {
		t.Run("exponential/"+tt.name, func(t *testing.T) {
			r := retryRule{plan: &grow, policy: propagate}
			if got := r.decide(tt.ask); got != tt.want {
				t.Errorf("decide(%+v) = %+v, want %+v", tt.ask, got, tt.want)
			}
		})
	}
	for c, want := range map[cause]budget.Failure{causeTimeout: budget.Timeout, causeError: budget.Transient, causeOverload: budget.Overload, causeExpired: budget.Canceled, causeNone: budget.Unclassified} {
		if got := failureOf(c); got != want {
			t.Errorf("failureOf(%d) = %v, want %v", c, got, want)
		}
	}
}

// TestRetryTokensAllUsed replays the small scenario's protected arm (no backoff anywhere,
// so a retry allowed is made at once) over ten seeds: every token the budget takes pays
// for a retry made, and some retries are refused for lack of time.
func TestRetryTokensAllUsed(t *testing.T) {
	sc := decode(t, small)
	suppressed := 0
	for seed := uint64(1); seed <= 10; seed++ {
		pk, err := Run(t.Context(), sc, Options{Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		a := pk.Arms[armIndex(sc, "protected")]
		if rb := a.Retry.Budget; rb == nil || rb.TokensUsed != a.Retry.Retries {
			t.Errorf("seed %d: tokens used %+v for %d retries", seed, rb, a.Retry.Retries)
		}
		suppressed += int(a.Retry.SuppressedBy["deadline"])
	}
	if suppressed == 0 {
		t.Error("no retry refused for lack of time in ten seeds")
	}
}

// TestRetryMedianMeasured checks that the medians retries expect are measured once the
// run has ticked, for every dependency and not only the load state's trigger: after the
// small scenario's arms have run, a deadline-deciding arm's medians are bucket bounds of
// the measured service times, not the declared values; the baseline arm, whose retries
// do not look at the deadline, keeps the declared ones.
func TestRetryMedianMeasured(t *testing.T) {
	sc := withPropagatingArm(t, decode(t, small))
	p, err := compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	declared := []time.Duration{10 * time.Millisecond, 5 * time.Millisecond} // pay, flaky
	for _, tt := range []struct {
		arm      string
		measured bool
	}{{"baseline", false}, {"protected", true}, {"propagate", true}} {
		a, err := newArm(p, sc, sc.Arms[armIndex(sc, tt.arm)], 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.run(t.Context(), func(time.Duration) {}); err != nil {
			t.Fatal(err)
		}
		for d, decl := range declared {
			got := a.deps[d].p50
			name := fmt.Sprintf("%s: %s's median after the run", tt.arm, sc.Topology.Dependencies[d].Name)
			h := newSignalHist()
			h.Record(got - time.Microsecond)
			if b, _ := h.UpperBound(1); tt.measured != (got == b && got != decl) {
				t.Errorf("%s is %v (measured: %v)", name, got, tt.measured)
			}
			if got < decl/2 || got > decl*5/2 {
				t.Errorf("%s is %v, want near its declared %v", name, got, decl)
			}
		}
	}
}

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// flaky is a scenario whose retries come at every point of the deadline: a required
// dependency fails fast half the time and is retried on errors by the service, and
// its caller's entry retries too, under a budget that never runs short or under
// propagated deadlines alone.
const flaky = `
name: flaky
clock: {duration: 20s, tick: 500ms}
load: {schedule: [{at: 0s, rate: 300/s}]}
classes:
  - {name: pay, share: 100%, deadline: 120ms, idempotent: true, stages: [{name: charge, dependency: bank}, {name: log, dependency: bank}]}
topology:
  entries: [{name: app, target: api, timeout: 100ms, retries: {max: 2}}]
  services: [{name: api, instances: 2, workers: 8}]
  dependencies:
    - {name: bank, service_time: {p50: 20ms, p99: 60ms}, error_rate: 50%, timeout: 80ms, retries: {max: 3, on: [error]}}
arms:
  - name: budget
    policy: {deadline: {propagate: true, cancel: true, reserve: 10ms}, retries: {mode: budget, budget: {ratio: 100%, min_per_second: 100000/s}}, dependency_timeout: derived}
  - name: propagate
    policy: {deadline: {propagate: true, cancel: true, reserve: 10ms}, dependency_timeout: derived}
`

// TestSmallGolden pins what the arms of the small scenario (with one more that
// propagates deadlines without a budget) and of the flaky one come to at seed 1: every
// population, the retries and their suppressions, the budget's counts and the
// duplicates, so that a change of mechanism shows as a diff of
// testdata/small.golden.json (go test ./model -run SmallGolden -update rewrites it). The
// file records the model's Version: an outcome that changes under the same Version fails,
// even with -update, until Version is raised.
func TestSmallGolden(t *testing.T) {
	type armSummary struct {
		Scenario, Name string
		Totals         packet.Totals
		Retry          packet.Retry
		Duplicates     packet.Duplicates
	}
	type goldenFile struct {
		ModelVersion int          `json:"model_version"`
		Arms         []armSummary `json:"arms"`
	}
	got := goldenFile{ModelVersion: Version}
	for _, sc := range []*scenario.Scenario{withPropagatingArm(t, decode(t, small)), decode(t, flaky)} {
		pk, err := Run(t.Context(), sc, Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if pk.ModelVersion != Version {
			t.Errorf("the packet's model version is %d, want %d", pk.ModelVersion, Version)
		}
		for _, a := range pk.Arms {
			got.Arms = append(got.Arms, armSummary{sc.Name, a.Name, a.Totals, a.Retry, a.Duplicates})
		}
	}
	path := filepath.Join("testdata", "small.golden.json")
	var want goldenFile
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	} else if !*update {
		t.Fatalf("%v (go test -run SmallGolden -update writes it)", err)
	}
	enc := func(v any) []byte {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		return append(b, '\n')
	}
	changed := want.Arms != nil && !bytes.Equal(enc(got.Arms), enc(want.Arms))
	switch {
	case changed && want.ModelVersion == Version:
		t.Fatalf("the small scenarios' outcome changed but model.Version is still %d: raise it, then rerun with -update:\n%s", Version, enc(got.Arms))
	case *update:
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, enc(got), 0o644); err != nil {
			t.Fatal(err)
		}
	case changed || want.ModelVersion != Version:
		t.Errorf("%s was written by model version %d, this is %d (rerun with -update if the change is meant):\n%s", path, want.ModelVersion, Version, enc(got))
	}
}

// TestRetryBudgetAndDeadlineAgree checks that a budget that never runs short decides
// retries exactly as propagated deadlines alone do: the flaky scenario's two arms, which
// differ only in that, end every request the same way and make the same retries.
func TestRetryBudgetAndDeadlineAgree(t *testing.T) {
	sc := decode(t, flaky)
	for seed := uint64(1); seed <= 3; seed++ {
		pk, err := Run(t.Context(), sc, Options{Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		b, p := pk.Arms[0], pk.Arms[1]
		if b.Totals != p.Totals || b.Retry.Retries != p.Retry.Retries || b.Retry.Suppressed != p.Retry.Suppressed {
			t.Errorf("seed %d: with a budget %+v, %d retries, %d suppressed; without %+v, %d, %d", seed, b.Totals, b.Retry.Retries, b.Retry.Suppressed, p.Totals, p.Retry.Retries, p.Retry.Suppressed)
		}
		if b.Retry.Budget.TokensUsed != b.Retry.Retries {
			t.Errorf("seed %d: %d tokens for %d retries", seed, b.Retry.Budget.TokensUsed, b.Retry.Retries)
		}
	}
}
