package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/model"
	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
)

const northstarScenario = "../../examples/northstar/northstar.scenario.yaml"

func TestParseBudgetFlags(t *testing.T) {
	tests := []struct {
		args   []string
		memory int64
		reqs   int64
		dry    bool
		err    string
	}{
		{args: []string{"a.yaml"}, memory: 4 << 30, reqs: 1_000_000_000},
		{args: []string{"a.yaml", "--max-memory", "16GiB", "--max-requests", "5000000000", "--dry-run"}, memory: 16 << 30, reqs: 5_000_000_000, dry: true},
		{args: []string{"--max-memory=1.5GiB", "a.yaml"}, memory: 3 << 29, reqs: 1_000_000_000},
		{args: []string{"a.yaml", "--max-memory", "500MB"}, memory: 500_000_000, reqs: 1_000_000_000},
		{args: []string{"a.yaml", "--max-memory", "16"}, err: `"16" has no unit`},
		{args: []string{"a.yaml", "--max-memory", "16gib"}, err: `unknown unit "gib"`},
		{args: []string{"a.yaml", "--max-memory", "0B"}, err: "is zero"},
		{args: []string{"a.yaml", "--max-memory", "-1GiB"}, err: "negative"},
		{args: []string{"a.yaml", "--max-requests", "0"}, err: "expected a whole number of requests, 1 or more"},
		{args: []string{"a.yaml", "--max-requests", "1e9"}, err: "expected a whole number of requests"},
		{args: []string{"a.yaml", "--max-requests", "many"}, err: "expected a whole number of requests"},
	}
	for _, tt := range tests {
		var stderr bytes.Buffer
		f, err := parseReplayFlags(tt.args, &stderr)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, errUsage) {
				t.Errorf("%q: error %v, want a usage error containing %q", tt.args, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		if got := f.budget.MaxMemory.bytes(); got != tt.memory {
			t.Errorf("%q: max memory %d, want %d", tt.args, got, tt.memory)
		}
		if got := f.budget.requests(); got != tt.reqs {
			t.Errorf("%q: max requests %d, want %d", tt.args, got, tt.reqs)
		}
		if f.budget.DryRun != tt.dry {
			t.Errorf("%q: dry run %v, want %v", tt.args, f.budget.DryRun, tt.dry)
		}
	}
	var stderr bytes.Buffer
	parseReplayFlags([]string{"-h"}, &stderr)
	for _, want := range []string{"-max-memory SIZE", "(default 4GiB)", "-max-requests N", "-dry-run"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("replay -h lacks %q:\n%s", want, stderr.String())
		}
	}
}

// budgetEnv loads real scenarios and estimates them with the model, and runs the fake
// model, counting its runs.
func budgetEnv(t *testing.T, runs *int) replayEnv {
	return replayEnv{
		load:     scenario.Load,
		estimate: model.Estimate,
		run: func(ctx context.Context, sc *scenario.Scenario, seed uint64, progress func(done, total time.Duration)) (*packet.Packet, error) {
			*runs++
			return fakePacket(sc, seed), nil
		},
	}
}

// TestReplayBudget: a run above --max-memory or --max-requests is refused before it
// starts, with the estimate and the flag that allows it (exit status 1); the same run
// within a raised budget goes ahead.
func TestReplayBudget(t *testing.T) {
	small := smallCost(t)
	tests := []struct {
		name string
		args []string
		runs int
		err  []string // what the error says; none: no error
	}{
		{
			name: "the issue's 10,000,000/s Northstar: its shift fault peaks above what validation allows",
			args: []string{northstarScenario, "--set", "load.schedule.0.rate=10000000/s"},
			err:  []string{"faults[4].shift.rate: rate 115% takes the peak offered rate 10000000/s to 11500000/s", "more than 10,000,000/s"},
		},
		{
			name: "Northstar at 8,000,000/s: above both budgets",
			args: []string{northstarScenario, "--set", "load.schedule.0.rate=8000000/s"},
			err: []string{"replay " + northstarScenario + ": the run needs about ", " GiB at its peak (", " M requests in flight in each of 2 arms), above --max-memory 4GiB",
				"offers about 21.4 G logical requests an arm, above --max-requests 1,000,000,000", "raise --max-memory and --max-requests to run it"},
		},
		{
			name: "memory raised, requests still above",
			args: []string{northstarScenario, "--set", "load.schedule.0.rate=8000000/s", "--max-memory", "1TiB"},
			err:  []string{"the run offers about 21.4 G logical requests an arm, above --max-requests 1,000,000,000; raise --max-requests to run it"},
		},
		{
			name: "both raised",
			args: []string{smallScenario, "--max-memory", "1TiB", "--max-requests", "1000000000000"},
			runs: 1,
		},
		{
			name: "requests above a low budget",
			args: []string{smallScenario, "--max-requests", "1000"},
			err:  []string{"the run offers about 9.", " k logical requests an arm, above --max-requests 1,000; raise --max-requests to run it"},
		},
		{
			name: "memory above a low budget",
			args: []string{smallScenario, "--max-memory", "1MiB"},
			err:  []string{"the run needs about ", " MiB at its peak (", "requests in flight in each of 2 arms), above --max-memory 1MiB; raise --max-memory to run it"},
		},
		{
			name: "a sweep's memory is per trial times the trials at once",
			args: []string{smallScenario, "--trials", "4", "--parallel", "1", "--max-memory", scenario.Size(small.Memory * 3 / 2).String()},
			runs: 4,
		},
		{
			name: "four trials at once",
			args: []string{smallScenario, "--trials", "4", "--parallel", "4", "--max-memory", scenario.Size(small.Memory * 3 / 2).String()},
			err:  []string{"in each of 2 arms, 4 trials at once), above --max-memory"},
		},
		{
			name: "at once, but fewer trials than --parallel",
			args: []string{smallScenario, "--trials", "2", "--parallel", "8", "--max-memory", scenario.Size(small.Memory * 3 / 2).String()},
			err:  []string{"in each of 2 arms, 2 trials at once), above --max-memory"},
		},
		{
			name: "a --vary value above the budget",
			args: []string{smallScenario, "--trials", "2", "--vary", "load.schedule.0.rate=150/s,9000000/s"},
			err:  []string{"at its peak with load.schedule.0.rate=9000000/s (", "raise --max-memory"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs := 0
			var stdout, stderr bytes.Buffer
			err := replay(context.Background(), append(tt.args, "--quiet"), &stdout, &stderr, budgetEnv(t, &runs))
			if runs != tt.runs {
				t.Errorf("%d runs, want %d", runs, tt.runs)
			}
			if len(tt.err) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			if code := exitCode(err); code != 1 {
				t.Errorf("exit status %d, want 1", code)
			}
			for _, want := range tt.err {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q:\n%v", want, err)
				}
			}
		})
	}
}

// smallCost is the estimate of the small scenario.
func smallCost(t *testing.T) model.Cost {
	t.Helper()
	sc, err := scenario.Load(smallScenario)
	if err != nil {
		t.Fatal(err)
	}
	c, err := model.Estimate(sc)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestReplayDryRun: --dry-run prints the estimate, says whether the run is within the
// budget and runs nothing, whatever the budget.
func TestReplayDryRun(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{northstarScenario, "--dry-run"}, []string{
			"goodput replay --dry-run: " + northstarScenario, "arms                 2",
			"requests an arm      up to 24,", "(peak rate 10,350.0/s)", "in flight an arm     up to ", "(a caller keeps one up to 2s)",
			"wall time: about ", "budget: --max-memory 4GiB, --max-requests 1,000,000,000: within the budget"}},
		{[]string{northstarScenario, "--dry-run", "--set", "load.schedule.0.rate=8000000/s"}, []string{"above the budget: the run would be refused"}},
		{[]string{smallScenario, "--dry-run", "--trials", "3", "--parallel", "3"}, []string{"sweep: 3 trials, 3 at once: about "}},
		{[]string{smallScenario, "--dry-run", "--vary", "load.schedule.0.rate=100/s,200/s"}, []string{"load.schedule.0.rate=100/s:\n", "load.schedule.0.rate=200/s:\n", "sweep: 1 trials of each of 2 scenarios"}},
	}
	for _, tt := range tests {
		runs := 0
		var stdout, stderr bytes.Buffer
		if err := replay(context.Background(), tt.args, &stdout, &stderr, budgetEnv(t, &runs)); err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		if runs != 0 {
			t.Errorf("%q: %d runs, want none", tt.args, runs)
		}
		for _, want := range tt.want {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("%q: output lacks %q:\n%s", tt.args, want, stdout.String())
			}
		}
	}
}

// TestReplaySlowNotice: a run expected to take over a minute says so on stderr before it
// starts, unless --quiet; a shorter one says nothing.
func TestReplaySlowNotice(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{northstarScenario, "--set", "clock.duration=3h"}, "goodput: this replay has about 1.4 G events; expect about 4 minutes on this machine\n"},
		{[]string{northstarScenario, "--set", "clock.duration=3h", "--quiet"}, ""},
		{[]string{northstarScenario, "--set", "clock.duration=20m"}, ""},
		{[]string{northstarScenario, "--trials", "3", "--parallel", "1"}, "goodput: this replay has about 919 M events; expect about 3 minutes on this machine\n"},
	}
	for _, tt := range tests {
		runs := 0
		var stdout, stderr bytes.Buffer
		if err := replay(context.Background(), tt.args, &stdout, &stderr, budgetEnv(t, &runs)); err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		got := stderr.String()
		if tt.want == "" && got != "" || !strings.HasPrefix(got, tt.want) {
			t.Errorf("%q: stderr %q, want %q", tt.args, got, tt.want)
		}
	}
}

func TestAbout(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{aboutBytes(0), "0 B"}, {aboutBytes(512), "512 B"}, {aboutBytes(9.3 * (1 << 30)), "9.3 GiB"}, {aboutBytes(300 << 20), "300 MiB"},
		{aboutCount(950), "950"}, {aboutCount(12_400_000), "12.4 M"}, {aboutCount(600e6), "600 M"}, {aboutCount(1.2e9), "1.2 G"},
		{aboutDuration(40 * time.Second), "about 40 seconds"}, {aboutDuration(61 * time.Second), "about 1 minute"},
		{aboutDuration(10 * time.Minute), "about 10 minutes"}, {aboutDuration(3 * time.Hour), "about 3 hours"}, {aboutDuration(100 * time.Hour), "about 4 days"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
