package scenario

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func northstar(t *testing.T) *Scenario {
	t.Helper()
	sc, err := Load("../examples/northstar/northstar.scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestParseOverride(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Override
		err  bool
	}{
		{in: "a.b=3", want: Override{Path: "a.b", Value: "3"}},
		{in: " a.b = {p50: 1ms} ", want: Override{Path: "a.b", Value: "{p50: 1ms}"}},
		{in: "a.b=", want: Override{Path: "a.b", Value: ""}},
		{in: "a.b", err: true},
		{in: "=3", err: true},
	} {
		got, err := ParseOverride(tt.in)
		if tt.err != (err != nil) || got != tt.want {
			t.Errorf("ParseOverride(%q) = %v, %v", tt.in, got, err)
		}
	}
}

// A scenario with no override comes back equal: the JSON round trip loses nothing.
func TestWithNothingIsTheSame(t *testing.T) {
	for _, path := range []string{
		"../examples/northstar/northstar.scenario.yaml",
		"../examples/single-server/single-server.scenario.yaml",
		"testdata/valid/anchors.scenario.yaml",
		"testdata/valid/cache.scenario.yaml",
	} {
		sc, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := sc.With()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !reflect.DeepEqual(got, sc) {
			t.Errorf("%s: the scenario changed on its way through With", path)
		}
	}
}

func TestWith(t *testing.T) {
	sc := northstar(t)
	got, err := sc.With(
		Override{Path: "topology.dependencies.payment-risk.pool.per_instance", Value: "32"},
		Override{Path: "topology.dependencies.payment-risk.timeout", Value: "500ms"},
		Override{Path: "faults.2.service_time", Value: "{p50: 40ms, p99: 300ms}"},
		Override{Path: "arms.baseline.policy.retries.budget", Value: "{ratio: 5%}"},
		Override{Path: "arms.baseline.policy.retries.mode", Value: "budget"},
		Override{Path: "classes.new_checkout.stages.risk-check.optional", Value: "true"},
		Override{Path: "seed", Value: "7"},
	)
	if err != nil {
		t.Fatal(err)
	}
	dep := got.Topology.Dependencies[0]
	if dep.Pool.PerInstance != 32 || dep.Timeout.Std() != 500*time.Millisecond {
		t.Errorf("payment-risk: pool %d, timeout %v", dep.Pool.PerInstance, dep.Timeout)
	}
	if p99 := got.Faults[2].ServiceTime.P99.Std(); p99 != 300*time.Millisecond {
		t.Errorf("fault 2 p99 %v", p99)
	}
	if r := got.Arms[0].Policy.Retries; r.Mode != RetryModeBudget || r.Budget == nil || float64(r.Budget.Ratio) != 0.05 {
		t.Errorf("baseline retries %+v", r)
	}
	if !got.Classes[0].Stages[1].Optional || got.Seed != 7 {
		t.Errorf("risk-check optional %v, seed %d", got.Classes[0].Stages[1].Optional, got.Seed)
	}
	// The original is untouched.
	if sc.Topology.Dependencies[0].Pool.PerInstance != 22 || sc.Arms[0].Policy.Retries.Budget != nil {
		t.Error("With changed the scenario it was called on")
	}
}

func TestWithErrors(t *testing.T) {
	sc := northstar(t)
	for _, tt := range []struct {
		o    Override
		want string
	}{
		{Override{Path: "topology.dependencies.nope.timeout", Value: "1s"}, `topology.dependencies has no element named "nope" (its elements are payment-risk, fraud, payment, order-store)`},
		{Override{Path: "faults.9.note", Value: "x"}, `faults has no element named "9" (an index from 0 to 4)`},
		{Override{Path: "seed.x", Value: "1"}, `seed is a value, not a mapping or list, so it has no "x"`},
		{Override{Path: "topology..x", Value: "1"}, "an empty step in the path after \"topology\""},
		{Override{Path: "topology.dependencies.payment-risk.timeout", Value: "500"}, "topology.dependencies[0].timeout"},
		{Override{Path: "topology.dependencies.payment-risk.poool", Value: "3"}, "poool"},
		{Override{Path: "clock.duration", Value: "[1, "}, "the value is not YAML"},
		{Override{Path: "classes.new_checkout.share", Value: "50%"}, "share"},
	} {
		_, err := sc.With(tt.o)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.o, err, tt.want)
			continue
		}
		if !strings.Contains(err.Error(), "--set "+tt.o.String()) {
			t.Errorf("%s: the error does not name the override: %v", tt.o, err)
		}
		if strings.Contains(err.Error(), ":1:") {
			t.Errorf("%s: the error has a position in the re-encoded scenario: %v", tt.o, err)
		}
	}
}

// The README's example: a whole mapping as the value.
func TestWithReadmeExample(t *testing.T) {
	got, err := northstar(t).With(
		Override{Path: "topology.dependencies.payment-risk.pool.per_instance", Value: "32"},
		Override{Path: "arms.baseline.policy.retries", Value: "{mode: budget, budget: {ratio: 5%}}"},
	)
	if err != nil {
		t.Fatal(err)
	}
	if r := got.Arms[0].Policy.Retries; r.Mode != RetryModeBudget || r.Budget == nil || float64(r.Budget.Ratio) != 0.05 {
		t.Errorf("baseline retries %+v", r)
	}
}

// A value means what it would mean written in the file: its text is not re-spelled, and
// the file's rules (tags, aliases, limits) apply to it.
func TestWithValueAsInTheFile(t *testing.T) {
	sc := northstar(t)
	for _, tt := range []struct{ value, want string }{
		{"0x10", "0x10"},
		{"1_000", "1_000"},
		{"1.10", "1.10"},
		{"007", "007"},
		{"it's slow, fast", "it's slow, fast"},
		{`"quoted, with comma"`, "quoted, with comma"},
		{"a # not a comment?", "a # not a comment?"},
	} {
		got, err := sc.With(Override{Path: "faults.0.note", Value: tt.value})
		if err != nil {
			t.Errorf("note=%s: %v", tt.value, err)
			continue
		}
		if got.Faults[0].Note != tt.want {
			t.Errorf("note=%s: got %q, want %q", tt.value, got.Faults[0].Note, tt.want)
		}
	}
	for _, tt := range []struct{ value, want string }{
		{"!!binary aGVsbG8=", "faults[0].note"},
		{"[a, b", "the value is not YAML"},
		{"a\nb", "the value must be on one line"},
		{"&x [1,1,1,1,1,1,1,1,1,1]", "faults[0].note"},
	} {
		_, err := sc.With(Override{Path: "faults.0.note", Value: tt.value})
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "--set faults.0.note=") {
			t.Errorf("note=%q: error %v, want one containing %q and naming the override", tt.value, err, tt.want)
		}
	}
	// An alias bomb in a value meets the file's limit on expansion, quickly.
	bomb := "[&a [x,x,x,x,x,x,x,x,x,x], &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a], &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b], &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c], &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d], [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]]"
	if _, err := sc.With(Override{Path: "faults.0.note", Value: bomb}); err == nil {
		t.Error("an alias bomb was accepted")
	}
	// An empty value is null: an optional list goes away, a required value is missing.
	if got, err := sc.With(Override{Path: "alerts", Value: ""}); err != nil || len(got.Alerts) != 0 {
		t.Errorf("alerts= : %v, %d alerts", err, len(got.Alerts))
	}
}

// Sizes and caches change like any other input, and a bad size names the override.
func TestWithCache(t *testing.T) {
	sc, err := Load("testdata/valid/cache.scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got, err := sc.With(
		Override{Path: "topology.caches.item-cache.entry_size", Value: "32KiB"},
		Override{Path: "topology.services.server.memory.limit", Value: "1.5GiB"},
	)
	if err != nil {
		t.Fatal(err)
	}
	if c, m := got.Topology.Caches[0], got.Topology.Services[0].Memory; c.EntrySize != 32<<10 || m.Limit != 3<<29 || m.PerAttempt != 1<<20 {
		t.Errorf("entry_size %v, memory %+v", c.EntrySize, m)
	}
	for _, tt := range []struct {
		o    Override
		want string
	}{
		{Override{Path: "topology.caches.item-cache.entry_size", Value: "32"}, `topology.caches[0].entry_size: "32" has no unit`},
		{Override{Path: "topology.caches.item-cache.entry_size", Value: "0B"}, "topology.caches[0].entry_size: service \"server\" has a memory limit"},
		{Override{Path: "topology.services.server.memory", Value: "{per_attempt: 1MiB}"}, "per_attempt needs a limit"},
	} {
		_, err := sc.With(tt.o)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "--set "+tt.o.String()) {
			t.Errorf("%s: error %v, want one containing %q and naming the override", tt.o, err, tt.want)
		}
	}
}
