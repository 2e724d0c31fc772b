package trials

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
)

func TestParseShard(t *testing.T) {
	tests := []struct {
		in   string
		want Shard
		err  string
	}{
		{in: "0/4", want: Shard{0, 4}},
		{in: "3/4", want: Shard{3, 4}},
		{in: " 1 / 2 ", want: Shard{1, 2}},
		{in: "0/1", want: Shard{0, 1}},
		{in: "4/4", err: "the index must be from 0 to 3"},
		{in: "-1/4", err: "the index must be from 0 to 3"},
		{in: "0/0", err: "the number of shards must be 1 or more"},
		{in: "1", err: "expected i/n"},
		{in: "a/4", err: `index "a" is not a whole number`},
		{in: "1/b", err: `count "b" is not a whole number`},
	}
	for _, tt := range tests {
		got, err := ParseShard(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseShard(%q) = %v, %v; want an error containing %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestShardSeeds(t *testing.T) {
	tests := []struct {
		shard  Shard
		first  uint64
		trials int
		want   []uint64
	}{
		{Shard{}, 7, 3, []uint64{7, 8, 9}},
		{Shard{0, 1}, 7, 3, []uint64{7, 8, 9}},
		{Shard{0, 2}, 1, 5, []uint64{1, 3, 5}},
		{Shard{1, 2}, 1, 5, []uint64{2, 4}},
		{Shard{3, 4}, 0, 3, nil},
	}
	for _, tt := range tests {
		if got := tt.shard.Seeds(tt.first, tt.trials); !slices.Equal(got, tt.want) {
			t.Errorf("%v.Seeds(%d, %d) = %v, want %v", tt.shard, tt.first, tt.trials, got, tt.want)
		}
	}
}

// The shards of a sweep cover every seed exactly once, whatever the numbers.
func TestShardsPartitionTheSweep(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		first, trials, n := rng.Uint64N(1000), 1+rng.IntN(60), 1+rng.IntN(12)
		seen := map[uint64]int{}
		for i := range n {
			for _, s := range (Shard{i, n}).Seeds(first, trials) {
				seen[s]++
			}
		}
		if len(seen) != trials {
			t.Fatalf("first %d, %d trials, %d shards: %d seeds covered", first, trials, n, len(seen))
		}
		for k := range trials {
			if seen[first+uint64(k)] != 1 {
				t.Fatalf("first %d, %d trials, %d shards: seed %d run %d times", first, trials, n, first+uint64(k), seen[first+uint64(k)])
			}
		}
	}
}

func ptr(v float64) *float64 { return &v }

func TestStats(t *testing.T) {
	tests := []struct {
		name string
		vals []*float64
		want Stats
	}{
		{"none", nil, Stats{Key: "k"}},
		{"all missing", []*float64{nil, nil}, Stats{Key: "k", Missing: 2}},
		{"one", []*float64{ptr(5)}, Stats{Key: "k", N: 1, Min: 5, Median: 5, Max: 5, Mean: 5}},
		{"odd", []*float64{ptr(3), ptr(1), ptr(2)}, Stats{Key: "k", N: 3, Min: 1, Median: 2, Max: 3, Mean: 2, SD: 1}},
		{"even", []*float64{ptr(4), ptr(1), nil, ptr(2), ptr(3)}, Stats{Key: "k", N: 4, Missing: 1, Min: 1, Median: 2.5, Max: 4, Mean: 2.5, SD: 1.290994}},
	}
	for _, tt := range tests {
		if got := stats("k", tt.vals); got != tt.want {
			t.Errorf("%s: stats = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// fakeRun is a RunFunc whose two arms' figures depend on the seed: the protected arm has
// more goodput and fewer late requests, except in seeds divisible by 5.
func fakeRun(ctx context.Context, seed uint64, progress func(done, total time.Duration)) (*packet.Packet, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := &packet.Packet{Scenario: "fake", Seed: seed}
	for a, name := range []string{"baseline", "protected"} {
		r := packet.NewRecorder(packet.Config{Arm: name, Duration: 2 * time.Second, Tick: time.Second})
		n := 20 + int(seed%7)
		for i := range n {
			at := time.Duration(i) * 50 * time.Millisecond
			r.Offered(at, "c")
			r.Admitted(at, "c")
			r.Attempt(at, "edge")
			out := packet.Goodput
			if (i+int(seed))%4 == 0 && (a == 0 || seed%5 == 0) {
				out = packet.Late
			}
			r.Terminal(at+10*time.Millisecond, "c", out, 10*time.Millisecond)
		}
		p.Arms = append(p.Arms, r.Finish([]packet.ObjectiveSpec{{Name: "no late", Metric: "goodput_fraction", Min: ptr(1)}}))
	}
	if progress != nil {
		progress(2*time.Second, 2*time.Second)
	}
	return p, nil
}

func encode(t *testing.T, s *Summary) string {
	t.Helper()
	var b bytes.Buffer
	if err := s.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestRun(t *testing.T) {
	cfg := Config{Scenario: "fake", Digest: "sha256:x", FirstSeed: 3, Trials: 10}
	s, err := Run(context.Background(), cfg, fakeRun, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Complete() || len(s.Runs) != 10 || s.Runs[0].Seed != 3 || s.Runs[9].Seed != 12 {
		t.Fatalf("runs: %d, complete %v", len(s.Runs), s.Complete())
	}
	if got := s.Arms(); !slices.Equal(got, []string{"baseline", "protected"}) {
		t.Fatalf("arms %v", got)
	}
	// Every figure's spread is that of the runs' values.
	for j, sp := range s.Spread {
		for i, f := range figures {
			var vals []float64
			for _, r := range s.Runs {
				if v := r.Arms[j].Figures[f.Key]; v != nil {
					vals = append(vals, *v)
				}
			}
			st := sp.Figures[i]
			if st.Key != f.Key || st.N != len(vals) || st.Missing != len(s.Runs)-len(vals) {
				t.Fatalf("%s %s: stats %+v for %d values", sp.Arm, f.Key, st, len(vals))
			}
			if len(vals) > 0 && (st.Min != slices.Min(vals) || st.Max != slices.Max(vals) || st.Median < st.Min || st.Median > st.Max) {
				t.Errorf("%s %s: stats %+v, values %v", sp.Arm, f.Key, st, vals)
			}
		}
	}
	// The deltas count trials: late is lower in the protected arm except when seed%5 == 0
	// (seeds 5 and 10), where both arms are the same.
	late := s.Deltas[0].Figures[figureIndex["late"]]
	if late.Better != 8 || late.Same != 2 || late.Worse != 0 || late.N != 10 {
		t.Errorf("late delta %+v, want better 8, same 2", late)
	}
	good := s.Deltas[0].Figures[figureIndex["goodput"]]
	if good.Better != 8 || good.Min != 0 || good.Max <= 0 {
		t.Errorf("goodput delta %+v", good)
	}
	if o := s.Spread[1].Objectives[0]; o.Name != "no late" || o.Passed != 8 || o.Of != 10 {
		t.Errorf("protected objective %+v, want 8 of 10", o)
	}
	if o := s.Spread[0].Objectives[0]; o.Passed != 0 {
		t.Errorf("baseline objective %+v, want 0 passed", o)
	}
}

// A sweep's summary does not depend on how many trials ran at once, nor on how it was
// sharded: the merged shards are byte-identical to the whole.
func TestSummaryIndependentOfParallelismAndShards(t *testing.T) {
	cfg := Config{Scenario: "fake", Digest: "sha256:x", FirstSeed: 1, Trials: 9}
	whole, err := Run(context.Background(), cfg, fakeRun, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := encode(t, whole)
	for _, par := range []int{0, 2, 4, 16} {
		c := cfg
		c.Parallel = par
		s, err := Run(context.Background(), c, fakeRun, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := encode(t, s); got != want {
			t.Fatalf("parallel %d: summary differs", par)
		}
	}
	for _, n := range []int{2, 3, 4, 12} {
		var parts []*Summary
		for i := range n {
			c := cfg
			c.Shard, c.Parallel = Shard{i, n}, 2
			s, err := Run(context.Background(), c, fakeRun, nil)
			if err != nil {
				t.Fatal(err)
			}
			if s.Complete() || *s.Shard != c.Shard {
				t.Fatalf("shard %v: complete %v, shard %v", c.Shard, s.Complete(), s.Shard)
			}
			// Through the file, as the CLI merges.
			back, err := Read([]byte(encode(t, s)), fmt.Sprintf("shard-%d.json", i))
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, back)
		}
		slices.Reverse(parts)
		m, err := Merge(parts...)
		if err != nil {
			t.Fatal(err)
		}
		if got := encode(t, m); got != want {
			t.Fatalf("%d shards merged differ from the whole sweep", n)
		}
	}
}

func TestRunProgressAndErrors(t *testing.T) {
	var mu = make(chan struct{}, 1)
	seen := map[uint64]bool{}
	progress := func(seed uint64, done, total time.Duration) {
		mu <- struct{}{}
		seen[seed] = true
		<-mu
	}
	cfg := Config{Scenario: "fake", FirstSeed: 1, Trials: 4, Parallel: 2}
	if _, err := Run(context.Background(), cfg, fakeRun, progress); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 4 {
		t.Errorf("progress reported seeds %v", seen)
	}

	boom := func(ctx context.Context, seed uint64, p func(done, total time.Duration)) (*packet.Packet, error) {
		if seed == 3 || seed == 6 {
			return nil, errors.New("boom")
		}
		return fakeRun(ctx, seed, p)
	}
	for _, par := range []int{1, 3} {
		cfg := Config{Scenario: "fake", FirstSeed: 1, Trials: 8, Parallel: par}
		_, err := Run(context.Background(), cfg, boom, nil)
		if err == nil || err.Error() != "seed 3: boom" {
			t.Errorf("parallel %d: error %v, want seed 3: boom", par, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, cfg, fakeRun, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := Run(context.Background(), Config{Trials: 0}, fakeRun, nil); err == nil {
		t.Error("0 trials: no error")
	}
	if _, err := Run(context.Background(), Config{Trials: 2, Shard: Shard{2, 2}}, fakeRun, nil); err == nil {
		t.Error("shard 2/2: no error")
	}
	// Seeds past the largest are refused before any trial runs.
	ran := false
	counting := func(ctx context.Context, seed uint64, p func(done, total time.Duration)) (*packet.Packet, error) {
		ran = true
		return fakeRun(ctx, seed, p)
	}
	_, err := Run(context.Background(), Config{FirstSeed: math.MaxUint64, Trials: 2}, counting, nil)
	if err == nil || !strings.Contains(err.Error(), "run past the largest seed") || ran {
		t.Errorf("seeds past 2^64-1: error %v, a trial ran: %v", err, ran)
	}
	nothing := func(context.Context, uint64, func(done, total time.Duration)) (*packet.Packet, error) {
		return nil, nil
	}
	if _, err := Run(context.Background(), Config{Trials: 1}, nothing, nil); err == nil || !strings.Contains(err.Error(), "seed 0: the replay returned no packet") {
		t.Errorf("no packet: %v", err)
	}
}

func TestMergeErrors(t *testing.T) {
	run := func(c Config) *Summary {
		s, err := Run(context.Background(), c, fakeRun, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := Config{Scenario: "fake", Digest: "sha256:a", FirstSeed: 1, Trials: 6}
	shard := func(c Config, i, n int) *Summary { c.Shard = Shard{i, n}; return run(c) }
	other := base
	other.Digest = "sha256:b"
	longer := base
	longer.Trials = 7
	tests := []struct {
		name  string
		parts []*Summary
		err   string
	}{
		{"nothing", nil, "nothing to merge"},
		{"missing shard", []*Summary{shard(base, 0, 3), shard(base, 2, 3)}, "2 of 6 trials are missing (seeds 2, 5): missing shard 1/3"},
		{"repeated shard", []*Summary{shard(base, 0, 2), shard(base, 0, 2), shard(base, 1, 2)}, "seed 1 is in part 1 and in part 2"},
		{"another scenario", []*Summary{shard(base, 0, 2), shard(other, 1, 2)}, "part 2 is of scenario fake (sha256:b), part 1 of fake (sha256:a): not one sweep"},
		{"another sweep", []*Summary{shard(base, 0, 2), shard(longer, 1, 2)}, "part 2 is 7 trials from seed 1, part 1 is 6 from seed 1"},
		{"another model", []*Summary{shard(base, 0, 2), func() *Summary { s := shard(base, 1, 2); s.ModelVersion = 3; return s }()}, "part 2 was replayed by model version 3, part 1 by version 0: replay the older shards again"},
	}
	for _, tt := range tests {
		_, err := Merge(tt.parts...)
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.err)
		}
	}
	// A shard of a sweep that declares far more trials than are at hand is refused, and
	// the message names the first missing seeds only.
	big := shard(base, 0, 2)
	big.Trials = 300_000_000
	if _, err := Merge(big); err == nil || !strings.Contains(err.Error(), "299999997 of 300000000 trials are missing (seeds 2, 4, 6, 7, 8, 9, 10, 11, 12, 13, …)") {
		t.Errorf("huge sweep: %v", err)
	}
	// Shards of different counts still merge when together they hold each seed once.
	if _, err := Merge(shard(base, 0, 2), shard(longer, 0, 1)); err == nil {
		t.Error("merged shards of different sweeps")
	}
	if m, err := Merge(run(base)); err != nil || !m.Complete() {
		t.Errorf("merging a whole sweep: %v", err)
	}
}

func TestReadErrors(t *testing.T) {
	good := func() string {
		s, err := Run(context.Background(), Config{Scenario: "fake", Digest: "d", FirstSeed: 1, Trials: 2}, fakeRun, nil)
		if err != nil {
			t.Fatal(err)
		}
		return encode(t, s)
	}()
	tests := []struct {
		name, in, err string
	}{
		{"empty", "", "f.json: empty file"},
		{"syntax", "{\n  \"scenario\": ,\n}", "f.json:2:15: invalid character ','"},
		{"type", "{\n  \"trials\": \"2\"\n}", "f.json:2:13: trials is a JSON string; expected int"},
		{"unknown field", "{\"scenario\": \"x\", \"extra\": 1}", `f.json:1:19: unknown field "extra"`},
		{"truncated", good[:len(good)/2], "the file ends inside the JSON"},
		{"two objects", good + "{}", "unexpected data after the trials.json object"},
		{"not a summary", "{}", `no "scenario"`},
		{"old figures", strings.Replace(good, `"key": "late"`, `"key": "tardy"`, 1), "are not this version's"},
		{"seed outside", strings.Replace(good, `"seed": 2`, `"seed": 9`, 1), "run of seed 9 is outside the sweep (seeds 1 to 2)"},
		{"seed twice", strings.Replace(good, `"seed": 2`, `"seed": 1`, 1), "seed 1 was run twice"},
		{"arm renamed", replaceNth(good, `"name": "protected"`, `"name": "other"`, 2), `arm 2 is "other", in the run of seed 1 it is "protected"`},
		{"unknown figure", strings.Replace(good, `"goodput": `, `"goodness": `, 1), `unknown figure "goodness"`},
		{"no trials", strings.Replace(good, `"trials": 2`, `"trials": 0`, 1), "0 trials; expected 1 or more"},
		{"shard mismatch", strings.Replace(good, `"trials": 2,`, `"trials": 2, "shard": {"index": 1, "count": 2},`, 1), "run of seed 1 does not belong to shard 1/2"},
		{"huge figure", strings.Replace(good, `"goodput": `, `"goodput": 1e303, "x": `, 1), "figure goodput is 1e+303; expected a finite value of at most 1e+15"},
		{"objectives differ between arms", replaceNth(good, `"name": "no late"`, `"name": "other"`, 2), `arm protected: objective 1 is "other", not "no late" as in arm baseline`},
	}
	for _, tt := range tests {
		_, err := Read([]byte(tt.in), "f.json")
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.err)
		}
	}
	// A censored value is a failing lower bound: with no data, a pass or below zero it is
	// refused.
	for _, edit := range []func(o *ObjectiveRun){
		func(o *ObjectiveRun) { o.NoData = true },
		func(o *ObjectiveRun) { o.Pass = true },
		func(o *ObjectiveRun) { o.Value = -5 },
	} {
		s, err := Read([]byte(good), "f.json")
		if err != nil {
			t.Fatal(err)
		}
		o := &s.Runs[0].Arms[0].Objectives[0]
		o.Pass, o.Censored = false, true
		edit(o)
		if _, err := Read([]byte(encode(t, s)), "f.json"); err == nil || !strings.Contains(err.Error(), `f.json: run of seed 1, arm "baseline", objective "no late": censored with no_data, pass or a negative value`) {
			t.Errorf("censored %+v: %v", *o, err)
		}
	}
	s, err := Read([]byte(good), "f.json")
	if err != nil {
		t.Fatal(err)
	}
	if encode(t, s) != good {
		t.Error("a summary read back does not write the same bytes")
	}
	// A shard of 0/1 is the whole sweep.
	if s, err := Read([]byte(strings.Replace(good, `"trials": 2,`, `"trials": 2, "shard": {"index": 0, "count": 1},`, 1)), "f.json"); err != nil || s.Shard != nil || encode(t, s) != good {
		t.Errorf("shard 0/1: %v, %v", err, s.Shard)
	}
	// Spreads edited by hand are recomputed from the runs.
	edited := strings.Replace(good, `"invariant_failures": 0`, `"invariant_failures": 5`, 1)
	if s, err := Read([]byte(edited), "f.json"); err != nil || encode(t, s) != good {
		t.Errorf("edited spread: %v", err)
	}
}

// replaceNth replaces the n-th (from 1) occurrence of old in s.
func replaceNth(s, old, new string, n int) string {
	i := -1
	for range n {
		j := strings.Index(s[i+1:], old)
		if j < 0 {
			return s
		}
		i += 1 + j
	}
	return s[:i] + new + s[i+len(old):]
}

func TestDigest(t *testing.T) {
	sc := &scenario.Scenario{Name: "a", Seed: 1, Trials: 3, Clock: scenario.Clock{Duration: scenario.Duration(time.Minute)}}
	d1, err := Digest(sc)
	if err != nil {
		t.Fatal(err)
	}
	c := *sc
	c.Seed, c.Trials = 9, 40
	if d2, _ := Digest(&c); d2 != d1 {
		t.Error("seed and trials changed the digest")
	}
	c.Clock.Duration = scenario.Duration(2 * time.Minute)
	if d3, _ := Digest(&c); d3 == d1 {
		t.Error("another duration has the same digest")
	}
	if sc.Seed != 1 || sc.Trials != 3 {
		t.Error("Digest changed its argument")
	}
}

func FuzzRead(f *testing.F) {
	s, err := Run(context.Background(), Config{Scenario: "fake", Digest: "d", FirstSeed: 1, Trials: 3, Shard: Shard{0, 2}}, fakeRun, nil)
	if err != nil {
		f.Fatal(err)
	}
	var b bytes.Buffer
	if err := s.WriteJSON(&b); err != nil {
		f.Fatal(err)
	}
	f.Add(b.String())
	f.Add("{}")
	f.Add(`{"scenario":"x","trials":1,"figures":[],"runs":[{"seed":0,"arms":[{"name":"a","figures":{}}]}]}`)
	f.Add(`{"scenario":"x","first_seed":18446744073709551615,"trials":2}`)
	f.Add(`{"scenario":"x","trials":3,"shard":{"index":0,"count":0}}`)
	f.Add(strings.Replace(b.String(), `"goodput": `, `"goodput": 1e303, "x": `, 1))
	f.Add(strings.Replace(b.String(), `"trials": 3,`, `"trials": 300000000,`, 1))
	if al, err := Run(context.Background(), Config{Scenario: "fake", Digest: "d", FirstSeed: 1, Trials: 2}, alertRun, nil); err == nil {
		b.Reset()
		if err := al.WriteJSON(&b); err == nil {
			f.Add(b.String()) // alerts and an arm's set
			f.Add(strings.Replace(b.String(), `"first_fired": 11`, `"first_fired": -1`, 1))
		}
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := Read([]byte(in), "f.json")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.json") {
				t.Fatalf("error without the file's name: %v", err)
			}
			return
		}
		// A summary that reads writes bytes that read back to the same bytes.
		var out bytes.Buffer
		if err := s.WriteJSON(&out); err != nil {
			t.Fatal(err)
		}
		s2, err := Read(out.Bytes(), "g.json")
		if err != nil {
			t.Fatalf("re-reading: %v", err)
		}
		var out2 bytes.Buffer
		if err := s2.WriteJSON(&out2); err != nil {
			t.Fatal(err)
		}
		if out.String() != out2.String() {
			t.Fatal("not stable")
		}
		if _, err := Merge(s); err != nil && s.Complete() {
			t.Fatalf("a complete summary does not merge: %v", err)
		}
	})
}

func TestFigureLookup(t *testing.T) {
	s, err := Run(context.Background(), Config{Scenario: "fake", Trials: 2}, fakeRun, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range Figures() {
		if st, ok := s.Spread[0].Figure(f.Key); !ok || st != s.Spread[0].Figures[i] {
			t.Errorf("Spread.Figure(%q) = %+v, %v", f.Key, st, ok)
		}
		if ds, ok := s.Deltas[0].Figure(f.Key); !ok || ds != s.Deltas[0].Figures[i] {
			t.Errorf("Delta.Figure(%q) = %+v, %v", f.Key, ds, ok)
		}
	}
	if _, ok := s.Spread[0].Figure("nope"); ok {
		t.Error("found an unknown figure")
	}
}

// The example sweep of Northstar reads, and writes back the same bytes: the format has
// not drifted from what the command wrote.
func TestExampleSweepReads(t *testing.T) {
	const path = "../examples/northstar/trials/trials.json"
	s, err := ReadFile("../examples/northstar/trials")
	if err != nil {
		t.Fatal(err)
	}
	if !s.Complete() || s.Scenario != "northstar" || len(s.Runs) != 10 {
		t.Fatalf("%s: scenario %s, %d runs of %d", path, s.Scenario, len(s.Runs), s.Trials)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := encode(t, s); got != string(want) {
		t.Errorf("%s does not write back the same bytes; rewrite it from its runs with goodput merge examples/northstar/trials --out examples/northstar/trials (or replay the sweep: goodput replay examples/northstar/northstar.scenario.yaml --trials 10 --out examples/northstar/trials)", path)
	}
	sc, err := scenario.Load("../examples/northstar/northstar.scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if d, err := Digest(sc); err != nil || d != s.Digest {
		t.Errorf("the example sweep's digest %s is not the scenario's %s (%v): regenerate it", s.Digest, d, err)
	}
}

// The confidence interval of a mean difference, against Student's t by hand: for 2, 4, 6
// (mean 4, sd 2, n 3) the 97.5% quantile of t with 2 degrees of freedom is 4.302653, so
// the interval is 4 ± 4.302653·2/√3.
func TestMeanCI95(t *testing.T) {
	lo, hi := meanCI95(stats("k", []*float64{ptr(2), ptr(4), ptr(6)}))
	half := 4.302653 * 2 / math.Sqrt(3)
	if math.Abs(lo-(4-half)) > 1e-5 || math.Abs(hi-(4+half)) > 1e-5 {
		t.Errorf("CI = [%v, %v], want 4 ± %v", lo, hi, half)
	}
	if lo, hi := meanCI95(stats("k", []*float64{ptr(2)})); lo != 0 || hi != 0 {
		t.Errorf("one value: CI = [%v, %v], want none", lo, hi)
	}
	// With many trials the interval narrows towards the normal's 1.96 sd/√n.
	var vals []*float64
	for i := range 1000 {
		vals = append(vals, ptr(float64(i%10)))
	}
	st := stats("k", vals)
	lo, hi = meanCI95(st)
	if want := 1.96 * st.SD / math.Sqrt(1000); math.Abs((hi-lo)/2-want) > 0.002*want {
		t.Errorf("1000 values: half-width %v, want about %v", (hi-lo)/2, want)
	}
}

// A sweep records the model version its packets were replayed by, keeps it through a
// file and a merge, and refuses packets of two versions.
func TestModelVersion(t *testing.T) {
	versioned := func(v func(seed uint64) int) RunFunc {
		return func(ctx context.Context, seed uint64, progress func(done, total time.Duration)) (*packet.Packet, error) {
			p, err := fakeRun(ctx, seed, progress)
			if p != nil {
				p.ModelVersion = v(seed)
			}
			return p, err
		}
	}
	cfg := Config{Scenario: "fake", Digest: "d", FirstSeed: 1, Trials: 4}
	s, err := Run(context.Background(), cfg, versioned(func(uint64) int { return 7 }), nil)
	if err != nil || s.ModelVersion != 7 {
		t.Fatalf("sweep of version 7: %+v, %v", s, err)
	}
	back, err := Read([]byte(encode(t, s)), "f.json")
	if err != nil || back.ModelVersion != 7 || !strings.Contains(encode(t, s), `"model_version": 7,`) {
		t.Errorf("read back: version %d, %v", back.ModelVersion, err)
	}
	m, err := Merge(back)
	if err != nil || m.ModelVersion != 7 {
		t.Errorf("merged: %v, %v", m, err)
	}
	_, err = Run(context.Background(), cfg, versioned(func(seed uint64) int { return 7 + int(seed/3) }), nil)
	if err == nil || !strings.Contains(err.Error(), "seed 1 was replayed by model version 7, seed 3 by version 8") {
		t.Errorf("mixed versions: %v", err)
	}
}

// The cache hit ratio is an optional figure: measured over every cache of an arm, missing
// in an arm that looked nothing up, and shown only when some trial of some arm measured it.
func TestCacheHitRatioShown(t *testing.T) {
	withCaches := func(ctx context.Context, seed uint64, progress func(done, total time.Duration)) (*packet.Packet, error) {
		p, err := fakeRun(ctx, seed, progress)
		if err == nil {
			p.Arms[1].Caches = []packet.CacheStats{{Name: "a", Hits: 3, Misses: 1}, {Name: "b", Hits: 0, Misses: 4}}
		}
		return p, err
	}
	i := figureIndex["cache_hit_ratio"]
	for _, tt := range []struct {
		name  string
		run   RunFunc
		shown bool
	}{
		{"no caches", fakeRun, false},
		{"caches in one arm", withCaches, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Run(context.Background(), Config{Scenario: "fake", Trials: 2}, tt.run, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := Shown(i, s); got != tt.shown {
				t.Errorf("shown %v, want %v", got, tt.shown)
			}
			if !Shown(figureIndex["goodput"], s) {
				t.Error("goodput not shown")
			}
			base, prot := s.Runs[0].Arms[0].Figures["cache_hit_ratio"], s.Runs[0].Arms[1].Figures["cache_hit_ratio"]
			if base != nil || (prot != nil) != tt.shown || (prot != nil && *prot != 0.375) {
				t.Errorf("cache hit ratio: baseline %v, protected %v; want missing, and 3 of 8 lookups where there are caches", base, prot)
			}
		})
	}
}

// A summary written before an optional figure existed (its scenarios could not measure it)
// still reads, with the figure missing from every run, and writes back what this version's
// sweep writes; one that lacks a figure every sweep measures is refused.
func TestReadBeforeOptionalFigures(t *testing.T) {
	s, err := Run(context.Background(), Config{Scenario: "fake", Digest: "d", FirstSeed: 1, Trials: 2}, fakeRun, nil)
	if err != nil {
		t.Fatal(err)
	}
	now := encode(t, s)
	var old map[string]any
	if err := json.Unmarshal([]byte(now), &old); err != nil {
		t.Fatal(err)
	}
	drop := map[string]bool{"instance_removals": true, "instance_restarts": true}
	var kept []any
	for _, f := range old["figures"].([]any) {
		if !drop[f.(map[string]any)["key"].(string)] {
			kept = append(kept, f)
		}
	}
	old["figures"] = kept
	for _, r := range old["runs"].([]any) {
		for _, a := range r.(map[string]any)["arms"].([]any) {
			for k := range drop {
				delete(a.(map[string]any)["figures"].(map[string]any), k)
			}
		}
	}
	b, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Read(b, "old.json")
	if err != nil {
		t.Fatalf("a summary from before the health figures: %v", err)
	}
	if enc := encode(t, got); enc != now {
		t.Errorf("read back, it writes\n%s\nwant what this version writes\n%s", enc, now)
	}

	old["figures"] = kept[1:] // without "offered" too
	if b, err = json.Marshal(old); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(b, "old.json"); err == nil || !strings.Contains(err.Error(), "are not this version's") {
		t.Errorf("a summary without offered: %v", err)
	}
}

// A figure identical in every trial for every arm is set by the inputs; one the seeds move
// in any arm, one missing from a trial, and any figure of a single trial are not.
func TestSetByInputs(t *testing.T) {
	s, err := Run(context.Background(), Config{Scenario: "fake", Trials: 3}, fakeRun, nil)
	if err != nil {
		t.Fatal(err)
	}
	idx := func(key string) int { return figureIndex[key] }
	if !s.SetByInputs(idx("rejected")) {
		t.Error("rejected (0 in every trial of both arms) is not set by the inputs")
	}
	if s.SetByInputs(idx("offered")) {
		t.Error("offered (20 + seed mod 7) is set by the inputs")
	}
	if s.SetByInputs(idx("late")) {
		t.Error("late (the baseline's moves with the seed) is set by the inputs")
	}
	// One trial misses the figure in one arm: not identical in every trial.
	k := idx("rejected")
	s.Runs[1].Arms[1].Figures["rejected"] = nil
	s.compute()
	if s.SetByInputs(k) {
		t.Error("a figure missing from a trial is set by the inputs")
	}
	one, err := Run(context.Background(), Config{Scenario: "fake", Trials: 1}, fakeRun, nil)
	if err != nil {
		t.Fatal(err)
	}
	if one.SetByInputs(k) {
		t.Error("a figure of one trial is set by the inputs")
	}
	if s.SetByInputs(-1) || s.SetByInputs(len(s.Figures)) {
		t.Error("a figure out of range is set by the inputs")
	}
}
