package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/report"
	"github.com/goodput-lab/goodput/scenario"
	"github.com/goodput-lab/goodput/trials"
)

func TestParseSweepFlags(t *testing.T) {
	tests := []struct {
		args []string
		want replayFlags
		err  string
	}{
		{args: []string{"a.yaml", "--trials", "10"}, want: replayFlags{file: "a.yaml", trials: 10, trialsSet: true}},
		{args: []string{"--trials=4", "--shard", "1/2", "--parallel", "3", "a.yaml"}, want: replayFlags{file: "a.yaml", trials: 4, trialsSet: true, shard: trials.Shard{Index: 1, Count: 2}, parallel: 3}},
		{args: []string{"a.yaml", "--trials", "0"}, err: "--trials 0: expected 1 or more"},
		{args: []string{"a.yaml", "--shard", "2/2"}, err: "shard 2/2: the index must be from 0 to 1"},
		{args: []string{"a.yaml", "--shard", "x"}, err: `shard "x": expected i/n`},
		{args: []string{"a.yaml", "--parallel", "-1"}, err: "--parallel -1: expected 1 or more"},
	}
	for _, tt := range tests {
		var stderr bytes.Buffer
		got, err := parseReplayFlags(tt.args, &stderr)
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
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: got %+v, want %+v", tt.args, got, tt.want)
		}
	}
}

// sweepEnv is fakeEnv with the scenario's trials set and every run's seed recorded.
func sweepEnv(t *testing.T, scTrials int, seeds chan<- uint64) replayEnv {
	env := fakeEnv(t, nil)
	run := env.run
	env.load = func(string) (*scenario.Scenario, error) {
		return &scenario.Scenario{Name: "fake", Seed: 5, Trials: scTrials, Arms: make([]scenario.Arm, 2)}, nil
	}
	env.run = func(ctx context.Context, sc *scenario.Scenario, seed uint64, progress func(done, total time.Duration)) (*packet.Packet, error) {
		if seeds != nil {
			seeds <- seed
		}
		return run(ctx, sc, seed, progress)
	}
	return env
}

func TestReplaySweep(t *testing.T) {
	seeds := make(chan uint64, 100)
	var stdout, stderr bytes.Buffer
	// The scenario asks for 3 trials; --seed moves the first.
	if err := replay(context.Background(), []string{"x.yaml", "--seed", "10"}, &stdout, &stderr, sweepEnv(t, 3, seeds)); err != nil {
		t.Fatal(err)
	}
	close(seeds)
	got := map[uint64]bool{}
	for s := range seeds {
		got[s] = true
	}
	if len(got) != 3 || !got[10] || !got[11] || !got[12] {
		t.Errorf("seeds run: %v, want 10, 11, 12", got)
	}
	if !strings.HasPrefix(stdout.String(), "goodput trials: fake   seeds 10–12   3 trials   2 arms") {
		t.Errorf("table: %q", strings.SplitN(stdout.String(), "\n", 2)[0])
	}

	// --trials 1 replays the one seed as usual, even when the scenario declares a sweep.
	stdout.Reset()
	if err := replay(context.Background(), []string{"x.yaml", "--trials", "1"}, &stdout, &stderr, sweepEnv(t, 3, nil)); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stdout.String(), "goodput replay: fake   seed 5") {
		t.Errorf("--trials 1: %q", strings.SplitN(stdout.String(), "\n", 2)[0])
	}
}

func TestReplaySweepJSONOutAndMerge(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole")
	var stdout, stderr bytes.Buffer
	if err := replay(context.Background(), []string{"x.yaml", "--trials", "5", "--json", "--out", whole}, &stdout, &stderr, sweepEnv(t, 0, nil)); err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(filepath.Join(whole, trials.File))
	if err != nil {
		t.Fatal(err)
	}
	if stdout.String() != string(file) {
		t.Error("--json did not write trials.json to stdout")
	}
	if want := "goodput: wrote trials.json and trials.html to " + whole + "\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}

	var shards []string
	for i := range 3 {
		d := filepath.Join(dir, "shard", string(rune('0'+i)))
		args := []string{"x.yaml", "--trials", "5", "--shard", string(rune('0'+i)) + "/3", "--out", d, "--quiet"}
		stdout.Reset()
		stderr.Reset()
		if err := replay(context.Background(), args, &stdout, &stderr, sweepEnv(t, 0, nil)); err != nil {
			t.Fatal(err)
		}
		if stdout.Len()+stderr.Len() != 0 {
			t.Errorf("--quiet printed %q %q", stdout.String(), stderr.String())
		}
		shards = append(shards, d)
	}
	merged := filepath.Join(dir, "merged")
	stdout.Reset()
	if err := run(append([]string{"merge", "--out", merged}, shards...), &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(merged, trials.File))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(file) {
		t.Error("the merged shards' trials.json differs from the whole sweep's")
	}
	for _, d := range []string{whole, merged} {
		page, err := os.ReadFile(filepath.Join(d, report.TrialsHTMLFile))
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		s, err := trials.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		if err := report.TrialsHTML(&want, s); err != nil {
			t.Fatal(err)
		}
		if string(page) != want.String() {
			t.Errorf("%s: trials.html is not the page of its trials.json", d)
		}
	}
	s, err := trials.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	var table bytes.Buffer
	if err := report.Trials(&table, s); err != nil {
		t.Fatal(err)
	}
	if stdout.String() != table.String() {
		t.Errorf("merge printed:\n%s\nwant the sweep's table:\n%s", stdout.String(), table.String())
	}

	// A missing shard is named.
	err = run([]string{"merge", shards[0], shards[2]}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "missing shard 1/3") {
		t.Errorf("merge without shard 1: %v", err)
	}
	if err := run([]string{"merge"}, &stdout, &stderr); !errors.Is(err, errUsage) {
		t.Errorf("merge with no arguments: %v", err)
	}
	if err := run([]string{"merge", filepath.Join(dir, "nothing")}, &stdout, &stderr); err == nil {
		t.Error("merge of a missing file: no error")
	}
}

func TestReplaySweepInvariantFailure(t *testing.T) {
	env := sweepEnv(t, 2, nil)
	run := env.run
	env.run = func(ctx context.Context, sc *scenario.Scenario, seed uint64, progress func(done, total time.Duration)) (*packet.Packet, error) {
		p, err := run(ctx, sc, seed, progress)
		if err == nil && seed == 6 {
			p.Arms[1].Invariants = append(p.Arms[1].Invariants, packet.Invariant{Name: "conservation", Message: "off by one"})
		}
		return p, err
	}
	var stdout, stderr bytes.Buffer
	err := replay(context.Background(), []string{"x.yaml"}, &stdout, &stderr, env)
	if err == nil || !strings.Contains(err.Error(), "seed 6, protected: conservation: off by one") {
		t.Errorf("error %v", err)
	}
	if !strings.Contains(stdout.String(), "invariant failed: seed 6, protected: conservation: off by one") {
		t.Errorf("the table does not name the failure:\n%s", stdout.String())
	}
}

// TestSweepEndToEnd runs a real sweep of the small scenario: two trials, whole and in two
// shards merged, give the same trials.json, and each trial's figures are those of a plain
// replay of its seed.
func TestSweepEndToEnd(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := replay(context.Background(), []string{smallScenario, "--trials", "2", "--out", dir, "--quiet"}, &stdout, &stderr, realEnv); err != nil {
		t.Fatal(err)
	}
	s, err := trials.ReadFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Runs) != 2 || s.Runs[0].Seed != 3 || s.Runs[1].Seed != 4 {
		t.Fatalf("runs %+v", s.Runs)
	}
	for _, r := range s.Runs {
		p, err := runModel(context.Background(), mustLoad(t, smallScenario), r.Seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range p.Arms {
			if got := *r.Arms[i].Figures["goodput"]; got != float64(a.Totals.Goodput) {
				t.Errorf("seed %d %s: goodput %v in the sweep, %d replayed alone", r.Seed, a.Name, got, a.Totals.Goodput)
			}
		}
	}
	if *s.Runs[0].Arms[0].Figures["goodput"] == *s.Runs[1].Arms[0].Figures["goodput"] {
		t.Error("two seeds gave the same goodput")
	}
	var parts []string
	for i, sh := range []string{"0/2", "1/2"} {
		d := filepath.Join(t.TempDir(), string(rune('a'+i)))
		if err := replay(context.Background(), []string{smallScenario, "--trials", "2", "--shard", sh, "--out", d, "--quiet"}, &stdout, &stderr, realEnv); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, d)
	}
	merged := t.TempDir()
	if err := run(append([]string{"merge", "--quiet", "--out", merged}, parts...), &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(dir, trials.File))
	b, _ := os.ReadFile(filepath.Join(merged, trials.File))
	if len(a) == 0 || string(a) != string(b) {
		t.Error("merged shards differ from the whole sweep")
	}
}

func mustLoad(t *testing.T, path string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// A sweep's bar adds up the trials: each trial counts for its simulated time, and a trial
// reporting twice, or going back, adds nothing more.
func TestTrialProgress(t *testing.T) {
	var nilTP *trialProgress
	nilTP.update(trialKey{0, 1}, time.Second) // a nil one is a no-op
	if nilTP.forVariant(0) != nil {
		t.Error("a nil trialProgress gives a progress function")
	}
	nilTP.finish()

	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var buf syncBuffer
	tp := &trialProgress{bar: newProgress(&buf, func() time.Time { return clock }, 0), total: 4 * time.Minute, done: map[trialKey]time.Duration{}}
	v0, v1 := tp.forVariant(0), tp.forVariant(1)
	v0(1, 10*time.Second, time.Minute)
	v0(2, 20*time.Second, time.Minute)
	v0(1, 5*time.Second, time.Minute)
	v0(1, time.Minute, time.Minute)
	v1(1, 15*time.Second, time.Minute) // the same seed of another --vary value is another trial
	if tp.sum != 95*time.Second || tp.bar.done != 95*time.Second {
		t.Errorf("sum %v, bar at %v; want 1m35s", tp.sum, tp.bar.done)
	}
	tp.finish()
	if !strings.Contains(buf.String(), "replaying") {
		t.Errorf("no bar: %q", buf.String())
	}
}

func TestReplaySweepPackets(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"x.yaml", "--trials", "2", "--packets", "--out", dir, "--quiet"}
	if err := replay(context.Background(), args, &stdout, &stderr, sweepEnv(t, 0, nil)); err != nil {
		t.Fatal(err)
	}
	for _, seed := range []uint64{5, 6} {
		var want bytes.Buffer
		if err := fakePacket(&scenario.Scenario{Name: "fake"}, seed).WriteJSON(&want); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, seedDir(seed), packet.JSONFile))
		if err != nil || string(got) != want.String() {
			t.Errorf("seed %d: packet.json %v", seed, err)
		}
		if _, err := os.Stat(filepath.Join(dir, seedDir(seed), report.HTMLFile)); err != nil {
			t.Errorf("seed %d: %v", seed, err)
		}
	}
	if _, err := parseReplayFlags([]string{"x.yaml", "--trials", "2", "--packets"}, &stderr); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "give --out") {
		t.Errorf("--packets without --out: %v", err)
	}
}

// Any --shard makes a sweep, even of one trial in one shard, so that merge finds the
// trials.json it reads.
func TestReplayOneShardOfOneTrial(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := replay(context.Background(), []string{"x.yaml", "--trials", "1", "--shard", "0/1", "--out", dir, "--quiet"}, &stdout, &stderr, sweepEnv(t, 0, nil)); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"merge", "--quiet", dir}, &stdout, &stderr); err != nil {
		t.Errorf("merge of the one shard: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, packet.JSONFile)); err == nil {
		t.Error("a one-trial shard wrote a packet.json instead of a sweep's files")
	}
}

// --set changes an input for the replay, the packet records it, and a sweep's digest is of
// the changed scenario, so its shards do not merge with the unchanged one's.
func TestReplaySet(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{smallScenario, "--set", "topology.services.server.instances=4", "--set", "topology.entries.clients.timeout=250ms", "--out", dir}
	if err := replay(context.Background(), args, &stdout, &stderr, realEnv); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "\nset: topology.services.server.instances=4; topology.entries.clients.timeout=250ms\n") {
		t.Errorf("the table does not say what was set:\n%s", stdout.String()[:300])
	}
	b, err := os.ReadFile(filepath.Join(dir, packet.JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"set": [
    "topology.services.server.instances=4",
    "topology.entries.clients.timeout=250ms"
  ],`) {
		t.Errorf("packet.json does not record the overrides:\n%s", string(b)[:400])
	}
	// The same replay from an edited file gives the same arms.
	sc := mustLoad(t, smallScenario)
	sc.Topology.Services[0].Instances = 4
	sc.Topology.Entries[0].Timeout = scenario.Duration(250 * time.Millisecond)
	want, err := runModel(context.Background(), sc, sc.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got packet.Packet
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Arms[0].Totals != want.Arms[0].Totals || got.Arms[1].Totals != want.Arms[1].Totals {
		t.Errorf("--set replay %+v, edited scenario %+v", got.Arms[0].Totals, want.Arms[0].Totals)
	}

	err = replay(context.Background(), []string{smallScenario, "--set", "topology.services.nope.instances=4"}, &stdout, &stderr, realEnv)
	if err == nil || !strings.Contains(err.Error(), smallScenario+": scenario: --set topology.services.nope.instances=4: topology.services has no element named \"nope\" (its elements are server)") {
		t.Errorf("bad path: %v", err)
	}
	if _, err := parseReplayFlags([]string{"x.yaml", "--set", "novalue"}, &stderr); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "expected PATH=VALUE") {
		t.Errorf("--set without =: %v", err)
	}

	// Sweeps: the set is recorded, and shards with and without it do not merge.
	a, b2 := t.TempDir(), t.TempDir()
	if err := replay(context.Background(), []string{smallScenario, "--trials", "2", "--shard", "0/2", "--set", "topology.services.server.instances=4", "--out", a, "--quiet"}, &stdout, &stderr, realEnv); err != nil {
		t.Fatal(err)
	}
	if err := replay(context.Background(), []string{smallScenario, "--trials", "2", "--shard", "1/2", "--out", b2, "--quiet"}, &stdout, &stderr, realEnv); err != nil {
		t.Fatal(err)
	}
	s, err := trials.ReadFile(a)
	if err != nil || len(s.Set) != 1 || s.Set[0] != "topology.services.server.instances=4" {
		t.Errorf("trials.json set %v, %v", s.Set, err)
	}
	if err := run([]string{"merge", a, b2}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "not one sweep") {
		t.Errorf("merged shards of different inputs: %v", err)
	}
}

func TestParseVary(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want *varySpec
		err  string
	}{
		{in: "load.schedule.0.rate=8000/s,9000/s", want: &varySpec{"load.schedule.0.rate", []string{"8000/s", "9000/s"}}},
		{in: "a.b= 1 , 2 ,3", want: &varySpec{"a.b", []string{"1", "2", "3"}}},
		{in: "a={p50: 1ms, p99: 5ms},{p50: 2ms, p99: 9ms}", want: &varySpec{"a", []string{"{p50: 1ms, p99: 5ms}", "{p50: 2ms, p99: 9ms}"}}},
		{in: `a=[x, y],"q,r"`, want: &varySpec{"a", []string{"[x, y]", `"q,r"`}}},
		{in: "a=1", want: &varySpec{"a", []string{"1"}}},
		{in: "a=1,,2", err: "value 2 is empty"},
		{in: "a=1,2,1", err: "1 is given twice"},
		{in: "novalues", err: "expected PATH=V1,V2"},
		{in: "a=it's slow,fast", want: &varySpec{"a", []string{"it's slow", "fast"}}},
		{in: `a="x\",y",z`, want: &varySpec{"a", []string{`"x\",y"`, "z"}}},
		{in: "a='p,q',r", want: &varySpec{"a", []string{"'p,q'", "r"}}},
		{in: "a=x],y", err: "a ] closes nothing"},
		{in: "a={x: 1,y", err: "a bracket or quote is not closed"},
		{in: "seed=1,2", err: "a sweep sets the seed itself"},
		{in: "trials=1,2", err: "a sweep sets the trials itself"},
	} {
		got, err := parseVary(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("parseVary(%q): error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseVary(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
	if got := varyDir(3, "9000/s"); got != "03-9000_s" {
		t.Errorf("varyDir = %q", got)
	}
	if got := varyDir(1, "130%"); got != "01-130pct" {
		t.Errorf("varyDir = %q", got)
	}
	var stderr bytes.Buffer
	if _, err := parseReplayFlags([]string{"x.yaml", "--vary", "a=1,2", "--json"}, &stderr); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "--json writes one summary") {
		t.Errorf("--vary with --json: %v", err)
	}
	if _, err := parseReplayFlags([]string{"x.yaml", "--vary", "a=1,2", "--vary", "a=3"}, &stderr); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "a is already varied") {
		t.Errorf("one input varied twice: %v", err)
	}
	f, err := parseReplayFlags([]string{"x.yaml", "--vary", "a=1,2", "--vary", "b=x,y,z"}, &stderr)
	if err != nil || len(f.vary) != 2 || f.vary[1].Path != "b" || len(f.vary[1].Values) != 3 {
		t.Errorf("two inputs: %+v, %v", f.vary, err)
	}
}

// --vary given for two inputs runs every combination, each like a sweep with both --set:
// the same trials.json bytes, in a directory per value nested by input, and one table
// with a row per combination.
func TestReplayVaryGrid(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{smallScenario, "--trials", "1", "--vary", "topology.services.server.instances=1,3", "--vary", "load.schedule.0.rate=100/s,150/s,200/s", "--out", dir}
	if err := replay(context.Background(), args, &stdout, &stderr, realEnv); err != nil {
		t.Fatal(err)
	}
	out := stdout.String()
	if got, want := flatHeader(out), "goodput vary: small topology.services.server.instances = 1, 3 × load.schedule.0.rate = 100/s, 150/s, 200/s seed 3 1 trial each 2 arms"; got != want {
		t.Errorf("table header: %q, want %q", got, want)
	}
	if !strings.Contains(out, "\n  goodput\n    1, 100/s   ") || !strings.Contains(out, "\n    3, 200/s   ") {
		t.Errorf("no rows by combination:\n%s", out)
	}
	page, err := os.ReadFile(filepath.Join(dir, report.VaryHTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	if link := `href="` + varyDir(1, "3") + "/" + varyDir(2, "200/s") + "/" + report.TrialsHTMLFile + `"`; !strings.Contains(string(page), link) {
		t.Errorf("%s does not link the last combination's page (%s)", report.VaryHTMLFile, link)
	}
	for i, inst := range []string{"1", "3"} {
		for j, rate := range []string{"100/s", "150/s", "200/s"} {
			sub := filepath.Join(dir, varyDir(i, inst), varyDir(j, rate))
			got, err := os.ReadFile(filepath.Join(sub, trials.File))
			if err != nil {
				t.Fatal(err)
			}
			one := t.TempDir()
			set := []string{"--set", "topology.services.server.instances=" + inst, "--set", "load.schedule.0.rate=" + rate}
			if err := replay(context.Background(), append([]string{smallScenario, "--trials", "1", "--shard", "0/1", "--out", one, "--quiet"}, set...), &stdout, &stderr, realEnv); err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(one, trials.File))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("%s, %s: trials.json differs from the sweep with both --set", inst, rate)
			}
		}
	}
}

// --vary runs the sweep once for each value, each like a sweep with that --set: the same
// trials.json bytes, in a directory per value, and one table by value.
func TestReplayVary(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{smallScenario, "--trials", "2", "--vary", "topology.services.server.instances=1,3", "--out", dir}
	if err := replay(context.Background(), args, &stdout, &stderr, realEnv); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stdout.String(), "goodput vary: small   topology.services.server.instances = 1, 3   seeds 3–4   2 trials each   2 arms\n") {
		t.Errorf("table header: %q", strings.SplitN(stdout.String(), "\n", 2)[0])
	}
	if !strings.Contains(stdout.String(), "\n  goodput\n    1   ") || !strings.Contains(stdout.String(), "\n    3   ") {
		t.Errorf("no rows by value:\n%s", stdout.String())
	}
	for i, v := range []string{"1", "3"} {
		got, err := os.ReadFile(filepath.Join(dir, varyDir(i, v), trials.File))
		if err != nil {
			t.Fatal(err)
		}
		one := t.TempDir()
		if err := replay(context.Background(), []string{smallScenario, "--trials", "2", "--set", "topology.services.server.instances=" + v, "--out", one, "--quiet"}, &stdout, &stderr, realEnv); err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(one, trials.File))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("value %s: trials.json differs from the sweep with --set", v)
		}
		if _, err := os.Stat(filepath.Join(dir, varyDir(i, v), report.TrialsHTMLFile)); err != nil {
			t.Error(err)
		}
	}
	err := replay(context.Background(), []string{smallScenario, "--vary", "topology.services.server.instances=1,x"}, &stdout, &stderr, realEnv)
	if err == nil || !strings.Contains(err.Error(), smallScenario+": --vary topology.services.server.instances=x: ") {
		t.Errorf("a bad value: %v", err)
	}
	// One input under two paths: the second always wins, so combinations repeat.
	err = replay(context.Background(), []string{smallScenario, "--vary", "topology.services.server.instances=1,4", "--vary", "topology.services.0.instances=2,3"}, &stdout, &stderr, realEnv)
	if err == nil || !strings.Contains(err.Error(), "topology.services.server.instances=1, topology.services.0.instances=2 and topology.services.server.instances=4, topology.services.0.instances=2 give the same scenario") {
		t.Errorf("one input under two paths: %v", err)
	}
	var many []string
	for i := range 14 {
		many = append(many, "--vary", fmt.Sprintf("a.b%d=1,2", i))
	}
	err = replay(context.Background(), append([]string{smallScenario}, many...), &stdout, &stderr, realEnv)
	if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "more than 10000 combinations") {
		t.Errorf("14 inputs of two values: %v", err)
	}
}

// --set applies once under --vary: renaming an arm and then varying an input works as it
// does without --vary.
func TestReplayVaryWithSet(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{smallScenario, "--trials", "1", "--set", "arms.protected.name=guarded", "--vary", "load.schedule.0.rate=100/s,150/s"}
	if err := replay(context.Background(), args, &stdout, &stderr, realEnv); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "\nset: arms.protected.name=guarded\n") || !strings.Contains(stdout.String(), "guarded −") {
		t.Errorf("table:\n%s", stdout.String()[:400])
	}
}

// A grid run in shards merges, combination by combination, into exactly the files the
// unsharded grid writes: every trials.json and trials.html, vary.json and vary.html.
func TestMergeGrid(t *testing.T) {
	dir := t.TempDir()
	vary := []string{"--vary", "topology.services.server.instances=1,3", "--vary", "load.schedule.0.rate=100/s,150/s"}
	grid := func(out string, extra ...string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		args := append(append([]string{smallScenario, "--trials", "3", "--out", out, "--quiet"}, vary...), extra...)
		if err := replay(context.Background(), args, &stdout, &stderr, realEnv); err != nil {
			t.Fatal(err)
		}
	}
	whole, s0, s1 := filepath.Join(dir, "whole"), filepath.Join(dir, "s0"), filepath.Join(dir, "s1")
	grid(whole)
	grid(s0, "--shard", "0/2")
	grid(s1, "--shard", "1/2")

	merged := filepath.Join(dir, "merged")
	var stdout, stderr bytes.Buffer
	if err := run([]string{"merge", "--out", merged, s0, s1}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if got := flatHeader(stdout.String()); !strings.HasPrefix(got, "goodput vary: small topology.services.server.instances = 1, 3 × load.schedule.0.rate = 100/s, 150/s seeds 3–5") {
		t.Errorf("merge printed %q", got)
	}
	want := treeFiles(t, whole)
	if len(want) != 2+4*2 {
		t.Errorf("the grid wrote %d files, want vary.json, vary.html and 4 × (trials.json, trials.html)", len(want))
	}
	got := treeFiles(t, merged)
	for name, b := range want {
		if got[name] != b {
			t.Errorf("%s: the merged grid's differs from the whole grid's", name)
		}
	}
	if len(got) != len(want) {
		t.Errorf("merged %d files, the whole grid %d", len(got), len(want))
	}

	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"a shard missing", []string{"merge", s0}, "00-1/00-100_s: merge: trials: 1 of 3 trials are missing (seeds 4): missing shard 1/2"},
		{"a grid and a sweep", []string{"merge", s0, filepath.Join(s1, "00-1", "00-100_s")}, "1 of the 2 shards are grids"},
		{"--json", []string{"merge", "--json", s0, s1}, "--json writes one summary"},
	} {
		err := run(tt.args, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	// A shard named by its manifest merges as its directory does.
	stdout.Reset()
	if err := run([]string{"merge", "--quiet", "--out", filepath.Join(dir, "again"), filepath.Join(s0, trials.GridFile), s1}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if again := treeFiles(t, filepath.Join(dir, "again")); len(again) != len(want) || again["vary.html"] != want["vary.html"] {
		t.Error("merging by the manifest's path wrote another grid")
	}
	// A manifest whose directories are swapped names the sweeps wrongly: refused.
	swapped := filepath.Join(dir, "swapped")
	for name, b := range treeFiles(t, whole) {
		if name == trials.GridFile {
			b = strings.Replace(strings.Replace(b, "00-1/00-100_s", "TMP", 1), "00-1/01-150_s", "00-1/00-100_s", 1)
			b = strings.Replace(b, "TMP", "00-1/01-150_s", 1)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(swapped, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(swapped, name), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := run([]string{"merge", swapped, s0}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "is not the grid of") {
		t.Errorf("a shard with its directories swapped, against another: %v", err)
	}
	if err := run([]string{"merge", swapped}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "holds the sweep of") {
		t.Errorf("a shard with its directories swapped: %v", err)
	}
	other := filepath.Join(dir, "other")
	var o1, o2 bytes.Buffer
	if err := replay(context.Background(), []string{smallScenario, "--trials", "3", "--shard", "1/2", "--out", other, "--quiet", "--vary", "topology.services.server.instances=1,2", "--vary", "load.schedule.0.rate=100/s,150/s"}, &o1, &o2, realEnv); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"merge", s0, other}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "is not the grid of") {
		t.Errorf("another grid: %v", err)
	}
}

// treeFiles reads every file under dir, by its path relative to dir.
func treeFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// FuzzParseVary checks that --vary's parser never panics, and that what it accepts is an
// input with one or more values, none empty and none twice, whose text is all in the
// flag's (values come from splitting it, not from elsewhere).
func FuzzParseVary(f *testing.F) {
	for _, s := range []string{
		"load.schedule.0.rate=8000/s,9000/s",
		"a={p50: 1ms, p99: 5ms},{p50: 2ms, p99: 9ms}",
		`a=[x, y],"q,r"`,
		`a="x\",y",z`,
		"a='p,q',r",
		"a=it's slow,fast",
		"a=1,,2",
		"a={,}",
		"a=]",
		"seed=1,2",
		"=1",
		"a",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		vs, err := parseVary(s)
		if err != nil {
			return
		}
		if vs.Path == "" || len(vs.Values) == 0 {
			t.Fatalf("parseVary(%q) = %+v", s, vs)
		}
		for i, v := range vs.Values {
			if v == "" || slices.Index(vs.Values, v) < i || !strings.Contains(s, v) {
				t.Fatalf("parseVary(%q): value %d is %q", s, i, v)
			}
		}
	})
}

// flatHeader is a table's header, the lines before "set:" or the legend, joined with
// single blanks: the table wraps it to the width.
func flatHeader(out string) string {
	var words []string
	for _, l := range strings.Split(out, "\n") {
		if l == "" || strings.HasPrefix(l, "set: ") || strings.HasPrefix(l, "each cell:") {
			break
		}
		words = append(words, strings.Fields(l)...)
	}
	return strings.Join(words, " ")
}
