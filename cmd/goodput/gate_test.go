package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
)

// gateObjectives are the objectives the gate tests' fake model reports for an arm and a
// seed: baseline fails every one (the last only by a lower bound); protected passes all
// but p99 at seed 6.
func gateObjectives(arm string, seed uint64) []packet.Objective {
	goodput := packet.Objective{Name: "goodput", Metric: "goodput_fraction", Unit: "x", Op: ">=", Target: 0.9, Value: 0.95, Pass: true}
	p99 := packet.Objective{Name: "p99", Metric: "latency_p99", Unit: "ms", Op: "<=", Target: 500, Value: 257, Pass: true}
	normal := packet.Objective{Name: "normal", Metric: "time_to_normal", Unit: "s", Op: "<=", Target: 600, Value: 53, Pass: true}
	switch {
	case arm == "baseline":
		goodput.Value, goodput.Pass = 0.341, false
		p99.Value, p99.Pass = 600.1, false
		normal.Value, normal.Pass, normal.Censored = 900, false, true
		normal.Note = "never returned to Normal for good before the end of the run; value is the time observed"
	case seed == 6:
		p99.Value, p99.Pass = 612.3, false
	}
	return []packet.Objective{goodput, p99, normal}
}

// gateEnv is fakeEnv with a scenario of two arms and three objectives, whose packets
// carry gateObjectives; runs counts the runs.
func gateEnv(t *testing.T, mutate func(*packet.Packet)) (env replayEnv, runs *int) {
	runs = new(int)
	env = fakeEnv(t, func(p *packet.Packet) {
		*runs++
		for i := range p.Arms {
			p.Arms[i].Objectives = gateObjectives(p.Arms[i].Name, p.Seed)
		}
		if mutate != nil {
			mutate(p)
		}
	})
	env.load = func(string) (*scenario.Scenario, error) {
		return &scenario.Scenario{
			Name: "fake", Seed: 5,
			Arms:       []scenario.Arm{{Name: "baseline"}, {Name: "protected"}},
			Objectives: []scenario.Objective{{Name: "goodput"}, {Name: "p99"}, {Name: "normal"}},
		}, nil
	}
	return env, runs
}

func TestParseFailOnObjectives(t *testing.T) {
	var stderr bytes.Buffer
	f, err := parseReplayFlags([]string{"x.yaml", "--fail-on-objectives", "protected", "--fail-on-objectives", "baseline, protected", "--junit", "j.xml"}, &stderr)
	if err != nil || !slices.Equal(f.failOn, []string{"protected", "baseline"}) || f.junit != "j.xml" {
		t.Errorf("failOn %q, junit %q, err %v", f.failOn, f.junit, err)
	}
	for _, bad := range []string{"", ",", "a,", " ,b"} {
		if _, err := parseReplayFlags([]string{"x.yaml", "--fail-on-objectives", bad}, &stderr); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "expected ARM[,ARM…]") {
			t.Errorf("--fail-on-objectives %q: %v", bad, err)
		}
	}
}

func TestFailOnObjectives(t *testing.T) {
	tests := []struct {
		name string
		args []string
		exit int
		err  string // the whole error, "" for none
	}{
		{name: "no gate", args: nil, exit: 0},
		{name: "passing arm", args: []string{"--fail-on-objectives", "protected"}, exit: 0},
		{
			name: "failing arm", args: []string{"--fail-on-objectives", "protected,baseline"}, exit: 3,
			err: "gate failed: replay: 3 objectives failed (--fail-on-objectives protected,baseline): " +
				"baseline: goodput: value 0.341, target ≥ 0.9; baseline: p99: value 600.1 ms, target ≤ 500 ms; " +
				"baseline: normal: value at least 900 s, target ≤ 600 s",
		},
		{
			name: "sweep: any failed trial fails", args: []string{"--trials", "3", "--fail-on-objectives", "protected"}, exit: 3,
			err: "gate failed: replay: objective failed (--fail-on-objectives protected): protected: p99: failed in 1 of 3 trials (seed 6 value 612.3 ms), target ≤ 500 ms",
		},
		{name: "sweep: no failed trial", args: []string{"--trials", "3", "--seed", "7", "--fail-on-objectives", "protected"}, exit: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			env, _ := gateEnv(t, nil)
			var stdout, stderr bytes.Buffer
			args := append([]string{"x.yaml", "--out", dir, "--junit", filepath.Join(dir, "junit.xml")}, tt.args...)
			err := replay(context.Background(), args, &stdout, &stderr, env)
			if exitCode(err) != tt.exit {
				t.Fatalf("exit %d (%v), want %d", exitCode(err), err, tt.exit)
			}
			if tt.err != "" && err.Error() != tt.err {
				t.Errorf("error\n %s\nwant\n %s", err, tt.err)
			}
			// Everything is written before the gate fails.
			if !strings.Contains(stdout.String(), "Objectives") {
				t.Errorf("no table on stdout:\n%s", stdout.String())
			}
			if _, err := os.Stat(filepath.Join(dir, "junit.xml")); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestFailOnObjectivesErrors(t *testing.T) {
	ctx := context.Background()
	var stdout, stderr bytes.Buffer

	env, runs := gateEnv(t, nil)
	err := replay(ctx, []string{"x.yaml", "--fail-on-objectives", "protected,guarded"}, &stdout, &stderr, env)
	if want := `usage: replay: --fail-on-objectives: fake has no arm "guarded"; its arms are baseline, protected`; err == nil || err.Error() != want || *runs != 0 {
		t.Errorf("unknown arm: %v after %d runs, want %q before any", err, *runs, want)
	}

	env, _ = gateEnv(t, nil)
	load := env.load
	env.load = func(path string) (*scenario.Scenario, error) {
		sc, err := load(path)
		sc.Objectives = nil
		return sc, err
	}
	err = replay(ctx, []string{"x.yaml", "--fail-on-objectives", "protected"}, &stdout, &stderr, env)
	if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "fake declares no objectives to gate on") {
		t.Errorf("no objectives: %v", err)
	}

	// A failed invariant stays an error (exit 1), even with a failed gate beside it.
	for _, args := range [][]string{{"x.yaml"}, {"x.yaml", "--trials", "2"}} {
		env, _ = gateEnv(t, func(p *packet.Packet) { p.Arms[0].Invariants[0].Pass = false })
		err = replay(ctx, append(args, "--fail-on-objectives", "baseline"), &stdout, &stderr, env)
		if exitCode(err) != 1 || !strings.Contains(err.Error(), "invariant failed") {
			t.Errorf("%q: invariant and gate: exit %d (%v), want 1", args, exitCode(err), err)
		}
	}
}

// TestGateVaryEndToEnd gates a real grid of the small scenario: each --vary value's arm is
// its own suite, named for the value, and the message names the value.
func TestGateVaryEndToEnd(t *testing.T) {
	junit := filepath.Join(t.TempDir(), "junit.xml")
	var stdout, stderr bytes.Buffer
	args := []string{smallScenario, "--trials", "2", "--vary", "load.schedule.0.rate=100/s,150/s", "--fail-on-objectives", "baseline", "--junit", junit, "--quiet"}
	err := replay(context.Background(), args, &stdout, &stderr, realEnv)
	if exitCode(err) != 3 || !strings.Contains(err.Error(), "baseline (load.schedule.0.rate=150/s): goodput: failed in 2 of 2 trials (seed 3 value ") {
		t.Fatalf("exit %d: %v", exitCode(err), err)
	}
	doc := readJUnit(t, junit)
	var names []string
	for _, s := range doc.Suites {
		names = append(names, s.Name)
	}
	want := []string{"baseline (load.schedule.0.rate=100/s)", "protected (load.schedule.0.rate=100/s)", "baseline (load.schedule.0.rate=150/s)", "protected (load.schedule.0.rate=150/s)"}
	if !slices.Equal(names, want) {
		t.Errorf("suites %q, want %q", names, want)
	}
}

// TestGateEndToEnd gates a real replay of the small scenario: its baseline misses both
// objectives and its protected arm misses goodput ≥ 90%.
func TestGateEndToEnd(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := run([]string{"replay", smallScenario, "--quiet", "--fail-on-objectives", "protected"}, &stdout, &stderr)
	if exitCode(err) != 3 || !strings.HasPrefix(err.Error(), "gate failed: replay: objective failed (--fail-on-objectives protected): protected: goodput: value 0.8") ||
		!strings.HasSuffix(err.Error(), ", target ≥ 0.9") {
		t.Errorf("exit %d: %v", exitCode(err), err)
	}
	err = run([]string{"replay", smallScenario, "--quiet", "--set", "objectives.goodput.min=80%", "--fail-on-objectives", "protected"}, &stdout, &stderr)
	if err != nil {
		t.Errorf("with goodput ≥ 80%%: %v", err)
	}
}

func TestTestCaseMessage(t *testing.T) {
	many := testCase{name: "p99", objective: true, target: "≤ 500 ms", trials: 8}
	for seed := range uint64(7) {
		many.failures = append(many.failures, trialFailure{seed: seed + 1, text: "value 600 ms"})
	}
	inv := testCase{name: "conservation", trials: 3, failures: []trialFailure{{seed: 6, text: "off by one"}}}
	tests := []struct {
		c     testCase
		sweep bool
		want  string
	}{
		{many, true, "failed in 7 of 8 trials (seed 1 value 600 ms, seed 2 value 600 ms, seed 3 value 600 ms, seed 4 value 600 ms, seed 5 value 600 ms, and 2 more), target ≤ 500 ms"},
		{many, false, "value 600 ms, target ≤ 500 ms"},
		{inv, true, "failed in 1 of 3 trials (seed 6: off by one)"},
		{inv, false, "off by one"},
	}
	for _, tt := range tests {
		if got := tt.c.message(tt.sweep); got != tt.want {
			t.Errorf("%s, sweep %v:\n got %s\nwant %s", tt.c.name, tt.sweep, got, tt.want)
		}
	}
	for _, o := range []struct {
		o      packet.Objective
		value  string
		target string
	}{
		{packet.Objective{Unit: "/s", Op: ">=", Target: 7800, Value: 7712.4}, "value 7712.4/s", "≥ 7800/s"},
		{packet.Objective{Unit: "", Op: "<=", Target: 0, Value: 3}, "value 3", "≤ 0"},
		{packet.Objective{Unit: "x", Op: "in", Target: 1.5, Value: 1.6}, "value 1.6", "within bounds, maximum 1.5"},
		{packet.Objective{Unit: "ms", Op: "<=", Target: 500, NoData: true}, "no value", "≤ 500 ms"},
	} {
		if v, tg := objectiveValue(o.o), objectiveTarget(o.o); v != o.value || tg != o.target {
			t.Errorf("%+v: %q, %q; want %q, %q", o.o, v, tg, o.value, o.target)
		}
	}
}
