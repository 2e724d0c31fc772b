package report

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/trials"
)

// sweep runs a synthetic sweep of the comparison's two arms, their draws seeded by the
// trial's seed.
func sweep(t *testing.T, cfg trials.Config) *trials.Summary {
	t.Helper()
	run := func(_ context.Context, seed uint64, _ func(done, total time.Duration)) (*packet.Packet, error) {
		return &packet.Packet{Scenario: "synthetic", Seed: seed, Arms: []packet.Arm{
			seededArm("baseline", false, seed), seededArm("protected", true, seed),
		}}, nil
	}
	s, err := trials.Run(context.Background(), cfg, run, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestTrialsGolden(t *testing.T) {
	for _, tt := range []struct {
		file string
		cfg  trials.Config
	}{
		{"trials.txt", trials.Config{Scenario: "synthetic", FirstSeed: 1, Trials: 5}},
		{"trials-shard.txt", trials.Config{Scenario: "synthetic", FirstSeed: 1, Trials: 5, Shard: trials.Shard{Index: 1, Count: 2}}},
	} {
		var b bytes.Buffer
		if err := Trials(&b, sweep(t, tt.cfg)); err != nil {
			t.Fatal(err)
		}
		golden(t, tt.file, b.Bytes())
	}
	s := sweep(t, trials.Config{Scenario: "synthetic", FirstSeed: 1, Trials: 5})
	for _, width := range []int{80, 120} {
		var b bytes.Buffer
		if err := (Terminal{Width: width}).Trials(&b, s); err != nil {
			t.Fatal(err)
		}
		golden(t, fmt.Sprintf("trials-%d.txt", width), b.Bytes())
	}
}

func TestTrialsTable(t *testing.T) {
	s := sweep(t, trials.Config{Scenario: "synthetic", FirstSeed: 1, Trials: 5})
	var b bytes.Buffer
	if err := (Terminal{Width: 250}).Trials(&b, s); err != nil { // wide enough for a line per figure
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"goodput trials: synthetic   seeds 1–5   5 trials   2 arms",
		"protected − baseline",
		"Objectives (trials passed: value)",
		"Invariants (trials that held all)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	// The objective's label says what it measures (wrapped at the label column's widest).
	if want := regexp.MustCompile(`\n  completion p99: p99 completion latency of admitted +0/5: 2,011\.1 \[2,005\.0 – 2,019\.3\] +5/5: 347\.1 \[346\.1 – 347\.1\]\n +checkout requests\n`); !want.MatchString(out) {
		t.Errorf("table lacks %v:\n%s", want, out)
	}
	// Every figure has a row, and every row of figures has its cells aligned: the arm
	// columns start at the same place on every line.
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for _, f := range trials.Figures() {
		found := false
		for _, l := range lines {
			if strings.HasPrefix(l, "  "+f.Label+"  ") {
				found = true
			}
		}
		if !found {
			t.Errorf("no row for %s", f.Label)
		}
	}
	head := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "baseline  ") })
	col := strings.Index(lines[head], "baseline")
	for _, l := range lines[head+1:] {
		if strings.HasPrefix(l, "  ") && len(l) > col && l[col-1] != ' ' {
			t.Errorf("cell not aligned at column %d: %q", col, l)
		}
	}

	// The goodput row shows the median and range of the runs' values.
	var good []float64
	for _, r := range s.Runs {
		good = append(good, *r.Arms[0].Figures["goodput"])
	}
	st, ok := s.Spread[0].Figure("goodput")
	if !ok || st.N != len(good) {
		t.Fatalf("goodput: %+v, %v", st, ok)
	}
	want := Float(st.Median, 0) + " [" + Float(st.Min, 0) + " – " + Float(st.Max, 0) + "]"
	if !strings.Contains(out, want) {
		t.Errorf("goodput cell %q not in the table", want)
	}
}

func TestTrialsOneArmAndNoRuns(t *testing.T) {
	run := func(_ context.Context, seed uint64, _ func(done, total time.Duration)) (*packet.Packet, error) {
		return &packet.Packet{Scenario: "one", Seed: seed, Arms: []packet.Arm{seededArm("only", false, seed)}}, nil
	}
	s, err := trials.Run(context.Background(), trials.Config{Scenario: "one", FirstSeed: 0, Trials: 2}, run, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Trials(&b, s); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); strings.Contains(out, "−") && strings.Contains(out, "better in") || !strings.Contains(out, "1 arm\n") {
		t.Errorf("one arm:\n%s", out)
	}
	empty, err := trials.Run(context.Background(), trials.Config{Scenario: "one", Trials: 1, Shard: trials.Shard{Index: 1, Count: 2}}, run, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := Trials(&b, empty); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "no trials") {
		t.Errorf("empty shard:\n%s", out)
	}
}

func TestFigureValue(t *testing.T) {
	tests := []struct {
		unit   string
		v      float64
		signed bool
		want   string
	}{
		{"", 1234567, false, "1,234,567"},
		{"", 2.5, false, "2.5"},
		{"", -3, true, "−3"},
		{"", 3, true, "+3"},
		{"", 0, true, "0"},
		{"ratio", 0.5486, false, "54.9%"},
		{"ratio", 0.427, true, "+42.7 pp"},
		{"x", 1.5616, false, "1.562×"},
		{"ms", 2000.94, false, "2,000.9"},
		{"s", 198.4, false, "198"},
		{"x", 0, true, "0.000×"},
		{"x", -0.0001, true, "0.000×"},
		{"ratio", 0.00001, true, "0.0 pp"},
		{"ratio", -0.00001, true, "0.0 pp"},
		{"ms", -0.04, true, "0.0"},
		{"ms", -0.06, true, "−0.1"},
	}
	for _, tt := range tests {
		if got := figureValue(trials.Figure{Unit: tt.unit}, tt.v, tt.signed); got != tt.want {
			t.Errorf("figureValue(%q, %v, %v) = %q, want %q", tt.unit, tt.v, tt.signed, got, tt.want)
		}
	}
}

func renderTrials(t *testing.T, s *trials.Summary) string {
	t.Helper()
	var b bytes.Buffer
	if err := TrialsHTML(&b, s); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestTrialsHTMLGolden(t *testing.T) {
	s := sweep(t, trials.Config{Scenario: "synthetic", FirstSeed: 1, Trials: 5})
	page := renderTrials(t, s)
	golden(t, "trials.html", []byte(page))
	if page != renderTrials(t, s) {
		t.Error("two renderings differ")
	}
}

// The page draws, for every figure and arm measured in two trials or more, a strip with a
// dot per trial inside it and its median tick; the dots' titles name the seeds.
func TestTrialsHTMLStrips(t *testing.T) {
	s := sweep(t, trials.Config{Scenario: "synthetic", FirstSeed: 1, Trials: 5})
	page := renderTrials(t, s)
	strips := regexp.MustCompile(`(?s)<svg class="strip"[^>]*>.*?</svg>`).FindAllString(page, -1)
	if want := len(trials.Figures()) * len(s.Spread); len(strips) != want {
		t.Errorf("%d strips, want %d", len(strips), want)
	}
	dot := regexp.MustCompile(`cx="([0-9.]+)"`)
	for _, sv := range strips {
		if err := wellFormed(sv); err != nil {
			t.Fatalf("strip not well formed: %v\n%s", err, sv)
		}
		cx := dot.FindAllStringSubmatch(sv, -1)
		if len(cx) != 5 {
			t.Errorf("%d dots, want one per trial: %s", len(cx), sv)
		}
		for _, m := range cx {
			if x := atof(t, m[1]); x < stripPad || x > stripW-stripPad {
				t.Errorf("dot at %v outside the strip", x)
			}
		}
		for seed := 1; seed <= 5; seed++ {
			if !strings.Contains(sv, fmt.Sprintf("<title>seed %d: ", seed)) {
				t.Errorf("no dot titled seed %d", seed)
			}
		}
		if strings.Count(sv, `class="median`) != 1 {
			t.Error("no median tick")
		}
	}
	// The goodput strip of the baseline puts its lowest trial at the left end and its
	// highest at the right.
	st, _ := s.Spread[0].Figure("goodput")
	for _, r := range s.Runs {
		v := *r.Arms[0].Figures["goodput"]
		want := ""
		switch v {
		case st.Min:
			want = fmt.Sprintf(`cx="%v" cy="6" r="3"><title>seed %d: `, stripPad, r.Seed)
		case st.Max:
			want = fmt.Sprintf(`cx="%v" cy="6" r="3"><title>seed %d: `, stripW-stripPad, r.Seed)
		default:
			continue
		}
		if !strings.Contains(page, want) {
			t.Errorf("no %q", want)
		}
	}
}

func TestTrialsHTMLSelfContainedAndEscaped(t *testing.T) {
	s := sweep(t, trials.Config{Scenario: `<script>alert("x")</script>`, FirstSeed: 1, Trials: 2})
	page := renderTrials(t, s)
	if strings.Contains(page, "<script>") {
		t.Error("the scenario name reached the page unescaped")
	}
	if !strings.Contains(page, "&lt;script&gt;") {
		t.Error("the scenario name is not shown, escaped")
	}
	const icon = `<link rel="icon" href="data:,">`
	rest := strings.Replace(page, icon, "", 1)
	for _, bad := range []string{"<script", " src=", "<link", "url(", "@import", "http://", "https://"} {
		if strings.Contains(rest, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	for _, m := range regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(rest, -1) {
		if m[1] != trials.File {
			t.Errorf("link to %q", m[1])
		}
	}
	empty, err := trials.Run(context.Background(), trials.Config{Scenario: "e", Trials: 1, Shard: trials.Shard{Index: 1, Count: 2}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := renderTrials(t, empty); !strings.Contains(p, "No trials.") {
		t.Error("an empty shard's page does not say it has no trials")
	}
}

// The example sweep's page is the page of its trials.json, as this build draws it.
func TestTrialsHTMLExample(t *testing.T) {
	dir := filepath.Join("..", "examples", "northstar", "trials")
	s, err := trials.ReadFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(dir, TrialsHTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	if renderTrials(t, s) != string(want) {
		t.Errorf("%s/%s is not the page of its trials.json; rewrite it with goodput merge %s --out %s", dir, TrialsHTMLFile, dir, dir)
	}
}

// A difference missing from some trials says so on the page, beside its confidence interval.
func TestTrialsHTMLMissingAndCI(t *testing.T) {
	s := sweep(t, trials.Config{Scenario: "synthetic", FirstSeed: 1, Trials: 4})
	page := newTrialsPage(s)
	var found bool
	for _, sec := range page.Sections {
		for _, r := range sec.Rows {
			for _, d := range r.Deltas {
				if strings.Contains(d.Note, "mean, 95% CI") {
					found = true
				}
			}
		}
	}
	if !found {
		t.Error("no difference shows its confidence interval")
	}
	// Take one trial's goodput away from the protected arm.
	s.Runs[2].Arms[1].Figures["goodput"] = nil
	back, err := trials.Read([]byte(encodeSummary(t, s)), "s.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, sec := range newTrialsPage(back).Sections {
		for _, r := range sec.Rows {
			if r.Label != "goodput" {
				continue
			}
			if n := r.Deltas[0].Note; !strings.HasPrefix(n, "missing in 1; mean, 95% CI: ") {
				t.Errorf("goodput difference note %q", n)
			}
			if n := r.Arms[1].Note; n != "missing in 1" {
				t.Errorf("protected goodput note %q", n)
			}
		}
	}
}

func encodeSummary(t *testing.T, s *trials.Summary) string {
	t.Helper()
	var b bytes.Buffer
	if err := s.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// varyGrid runs the synthetic sweep at every combination of the inputs' values (as
// goodput replay --vary does, "seed=9" set for all), each combination's draws shifted so
// that its figures differ.
func varyGrid(t *testing.T, paths []string, values [][]string) VaryGrid {
	t.Helper()
	g := VaryGrid{Paths: paths, Values: values}
	n := 1
	for _, v := range values {
		n *= len(v)
	}
	for i := range n {
		set := []string{"seed=9"}
		for k, v := range g.Combination(i) {
			set = append(set, paths[k]+"="+v)
		}
		run := func(_ context.Context, seed uint64, _ func(done, total time.Duration)) (*packet.Packet, error) {
			s := seed + 100*uint64(i)
			return &packet.Packet{Scenario: "synthetic", Seed: seed, Arms: []packet.Arm{
				seededArm("baseline", false, s), seededArm("protected", true, s),
			}}, nil
		}
		s, err := trials.Run(context.Background(), trials.Config{Scenario: "synthetic", Set: set, FirstSeed: 1, Trials: 3}, run, nil)
		if err != nil {
			t.Fatal(err)
		}
		g.Sums = append(g.Sums, s)
	}
	return g
}

func TestVaryGolden(t *testing.T) {
	var b bytes.Buffer
	g := varyGrid(t, []string{"x.y"}, [][]string{{"1", "2"}})
	if err := Vary(&b, g); err != nil {
		t.Fatal(err)
	}
	golden(t, "vary.txt", b.Bytes())
	out := b.String()
	if !strings.Contains(out, "\nset: seed=9\n") {
		t.Error("the header does not list the inputs set for every value")
	}
	g.Values[0] = g.Values[0][:1]
	if err := Vary(&b, g); err == nil {
		t.Error("one value for two sweeps: no error")
	}
}

// TestVaryGridGolden checks the table of two inputs varied together: a row per
// combination, the last input changing fastest.
func TestVaryGridGolden(t *testing.T) {
	g := varyGrid(t, []string{"x.y", "z"}, [][]string{{"1", "2"}, {"a", "b", "c"}})
	if got, want := g.Combination(4), []string{"2", "b"}; !slices.Equal(got, want) {
		t.Errorf("combination 4 = %v, want %v", got, want)
	}
	var b bytes.Buffer
	if err := Vary(&b, g); err != nil {
		t.Fatal(err)
	}
	golden(t, "vary-grid.txt", b.Bytes())
	out := b.String()
	for _, want := range []string{
		"goodput vary: synthetic   x.y = 1, 2   ×   z = a, b, c   seeds 1–3",
		"\nset: seed=9\n",
		"\n    1, a ", "\n    2, c ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "\n    1, c ") > strings.Index(out, "\n    2, a ") {
		t.Error("rows not in row-major order")
	}
}

// Values that change the objectives leave them to each value's page; values run on other
// seeds are refused.
func TestVaryMismatches(t *testing.T) {
	g := varyGrid(t, []string{"x.y"}, [][]string{{"1", "2"}})
	g.Sums[1].Spread[0].Objectives[0].Name = "renamed"
	var b bytes.Buffer
	if err := Vary(&b, g); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Objectives: not the same at every value") {
		t.Errorf("table:\n%s", b.String())
	}
	g.Sums[1].Runs[0].Seed = 99
	if err := Vary(&b, g); err == nil || !strings.Contains(err.Error(), "ran seeds") || !strings.Contains(err.Error(), "x.y=2") {
		t.Errorf("other seeds: %v", err)
	}
}

// TestTrialsCensoredObjective checks that a time to Normal that had not come by the end of
// a trial is kept out of the objective's median and range and reported as a lower bound,
// in trials.json, the table and the page.
func TestTrialsCensoredObjective(t *testing.T) {
	s := sweep(t, trials.Config{Scenario: "synthetic", FirstSeed: 1, Trials: 5})
	j := -1
	for m, o := range s.Runs[0].Arms[1].Objectives {
		if o.Metric == "time_to_normal" {
			j = m
		}
	}
	if j < 0 {
		t.Fatal("no time_to_normal objective")
	}
	for r, v := range map[int]float64{1: 5, 3: 4} { // seeds 2 and 4 never recover: 5 s and 4 s observed
		o := &s.Runs[r].Arms[1].Objectives[j]
		o.Pass, o.Value, o.Censored = false, v, true
	}
	back, err := trials.Read([]byte(encodeSummary(t, s)), "s.json")
	if err != nil {
		t.Fatal(err)
	}
	ob := back.Spread[1].Objectives[j]
	if ob.Censored != 2 || ob.Bound != 4 || ob.Value.N != 3 || ob.Value.Missing != 2 || ob.Passed > 3 {
		t.Fatalf("spread of the censored objective: %+v", ob)
	}
	var b bytes.Buffer
	if err := Trials(&b, back); err != nil {
		t.Fatal(err)
	}
	if want := "(not by the end in 2: ≥ 4)"; !strings.Contains(b.String(), want) {
		t.Errorf("table lacks %q:\n%s", want, b.String())
	}
	page := newTrialsPage(back)
	if n := page.Objectives[j].Cells[1].Note; n != "not by the end in 2: ≥ 4" {
		t.Errorf("page note %q", n)
	}

	// Every trial censored: no median, only the bound.
	for r := range back.Runs {
		o := &back.Runs[r].Arms[1].Objectives[j]
		o.Pass, o.Value, o.Censored = false, 6-float64(r)/2, true
	}
	back, err = trials.Read([]byte(encodeSummary(t, back)), "s.json")
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := Trials(&b, back); err != nil {
		t.Fatal(err)
	}
	if want := "0/5: – (not by the end in 5: ≥ 4)"; !strings.Contains(b.String(), want) {
		t.Errorf("table lacks %q:\n%s", want, b.String())
	}
}

// A sweep whose arms have no cache prints no Caches section, in the table or the page.
func TestTrialsWithoutCaches(t *testing.T) {
	run := func(_ context.Context, seed uint64, _ func(done, total time.Duration)) (*packet.Packet, error) {
		a := seededArm("only", false, seed)
		a.Caches = nil
		return &packet.Packet{Scenario: "one", Seed: seed, Arms: []packet.Arm{a}}, nil
	}
	s, err := trials.Run(context.Background(), trials.Config{Scenario: "one", Trials: 2}, run, nil)
	if err != nil {
		t.Fatal(err)
	}
	var table, page bytes.Buffer
	if err := Trials(&table, s); err != nil {
		t.Fatal(err)
	}
	if err := TrialsHTML(&page, s); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"table": table.String(), "page": page.String()} {
		if strings.Contains(out, "Caches") || strings.Contains(out, "cache hit ratio") {
			t.Errorf("the %s shows caches for arms without any", name)
		}
		if !strings.Contains(out, "goodput / offered") {
			t.Errorf("the %s lacks goodput / offered", name)
		}
	}
}

// A figure identical in every trial for every arm (the synthetic sweep's return to Normal:
// 0 s and 1 s in each seed, set by its timeline) is marked set by the inputs in the table
// and on the page, not counted as better in 0/5 or 5/5; a figure the seeds move keeps its
// count.
func TestTrialsSetByInputs(t *testing.T) {
	s := sweep(t, trials.Config{Scenario: "synthetic", FirstSeed: 1, Trials: 5})
	var b bytes.Buffer
	if err := (Terminal{Width: 250}).Trials(&b, s); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`\n  back to Normal +0 +1 +\+1 +inputs\n`),
		regexp.MustCompile(`\n  goodput +8,767 \[[^\]]*\] +9,797 \[[^\]]*\] +\+1,016 \[[^\]]*\] +5/5\n`),
		regexp.MustCompile(`\nbetter in "inputs": identical in every trial for every arm\. `),
	} {
		if !want.MatchString(out) {
			t.Errorf("table lacks %v:\n%s", want, out)
		}
	}
	b.Reset()
	if err := (Terminal{Width: 40}).Trials(&b, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "set by the inputs\n") || strings.Contains(b.String(), "better in 0/5") {
		t.Errorf("the stacked table does not spell out set by inputs:\n%s", b.String())
	}
	b.Reset()
	if err := TrialsHTML(&b, s); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, row := range strings.Split(page, "<tr>") {
		if strings.Contains(row, ">back to Normal</th>") && !strings.Contains(row, "<td>set by inputs</td>") {
			t.Errorf("the page does not mark back to Normal set by inputs: %s", row)
		}
		if strings.Contains(row, ">goodput</th>") && !strings.Contains(row, "<td>5/5</td>") {
			t.Errorf("the page's goodput row lost its count: %s", row)
		}
	}
	if !strings.Contains(page, "<p>Set by inputs: identical in every trial for every arm.") {
		t.Error("the page does not explain set by inputs")
	}
}
