package report

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/goodput-lab/goodput/scenario"
	"github.com/goodput-lab/goodput/trials"
)

func renderVary(t *testing.T, g VaryGrid) string {
	t.Helper()
	var b bytes.Buffer
	if err := VaryHTML(&b, g); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// varyLinks gives every combination of g its page, as goodput replay --vary lays the
// directories out: one level per input, the value's index then the value.
func varyLinks(g VaryGrid) []string {
	var links []string
	for i := range g.Sums {
		var dirs []string
		for k, v := range g.Combination(i) {
			dirs = append(dirs, fmt.Sprintf("%02d-%s", indexOf(g.Values[k], v), v))
		}
		links = append(links, strings.Join(dirs, "/")+"/"+TrialsHTMLFile)
	}
	return links
}

func indexOf(vals []string, v string) int {
	for i, x := range vals {
		if x == v {
			return i
		}
	}
	return -1
}

var (
	gridTable = regexp.MustCompile(`(?s)<table class="grid ([a-z]+)">.*?</table>`)
	gridCellT = regexp.MustCompile(`<td[ >]`)
	bodyRow   = regexp.MustCompile(`<tr><th scope="row">`)
)

// TestVaryHTMLGolden checks the page of two inputs (x.y = 1, 2 × z = a, b, c) with links:
// a grid per arm and difference of every figure, and per arm of every objective and the
// invariants, each of two rows (x.y, named once in the corner) and three columns (z, named
// once above them), headed by the values alone, every cell linking to its combination's
// page in row-major order.
func TestVaryHTMLGolden(t *testing.T) {
	g := varyGrid(t, []string{"x.y", "z"}, [][]string{{"1", "2"}, {"a", "b", "c"}})
	g.Links = varyLinks(g)
	page := renderVary(t, g)
	golden(t, "vary.html", []byte(page))
	if page != renderVary(t, g) {
		t.Error("two renderings differ")
	}
	for _, want := range []string{
		"<title>synthetic · goodput vary, x.y × z</title>",
		"<li>x.y = 1, 2</li>", "<li>z = a, b, c</li>",
		"seeds 1–3 · 3 trials each · 2 arms · 6 combinations",
		"set for every combination: seed=9</p>",
		`<th scope="col" class="corner" rowspan="2">x.<wbr>y</th><th scope="colgroup" class="across" colspan="3">z</th></tr>`,
		`<tr><th scope="col">a</th><th scope="col">b</th><th scope="col">c</th></tr>`,
		`<tr><th scope="row">2</th>`,
		`<h2 id="objectives">Objectives</h2>`,
		"protected − baseline</caption>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	tables := gridTable.FindAllStringSubmatch(page, -1)
	objectives := len(g.Sums[0].Spread[0].Objectives)
	if want := len(trials.Figures())*3 + (objectives+1)*2 + 2; len(tables) != want { // +1: every objective at once
		t.Errorf("%d grids, want %d", len(tables), want)
	}
	links := regexp.MustCompile(`<a href="([^"#]*)">`)
	for _, tb := range tables {
		if n := len(bodyRow.FindAllString(tb[0], -1)); n != 2 {
			t.Errorf("a %s grid has %d rows, want 2", tb[1], n)
		}
		if n := len(gridCellT.FindAllString(tb[0], -1)); n != 6 {
			t.Errorf("a %s grid has %d cells, want 6", tb[1], n)
		}
		var got []string
		for _, m := range links.FindAllStringSubmatch(tb[0], -1) {
			got = append(got, m[1])
		}
		if strings.Join(got, " ") != strings.Join(g.Links, " ") {
			t.Errorf("a %s grid links to %v, want %v", tb[1], got, g.Links)
		}
	}
	if !strings.Contains(page, `<a href="00-1/02-c/trials.html">`) {
		t.Error("no link to the page of x.y=1, z=c")
	}
}

// With one input, each figure, objective and the invariants are one table: a row headed
// by each of the input's values (the input named once, in the corner) and a column for
// each arm and difference, a cell per combination in each.
func TestVaryHTMLOneInput(t *testing.T) {
	g := varyGrid(t, []string{"x.y"}, [][]string{{"1", "2", "3"}})
	page := renderVary(t, g)
	s := g.Sums[0]
	tables := gridTable.FindAllString(page, -1)
	if want := len(trials.Figures()) + len(s.Spread[0].Objectives) + 2; len(tables) != want {
		t.Errorf("%d tables, want %d: one per figure, objective, every objective and the invariants", len(tables), want)
	}
	for _, tb := range tables {
		if n := len(bodyRow.FindAllString(tb, -1)); n != 3 {
			t.Errorf("a table has %d rows, want 3:\n%s", n, tb)
		}
		for _, want := range []string{`<th scope="col" class="corner">x.<wbr>y</th>`, `<tr><th scope="row">1</th>`, `<tr><th scope="row">3</th>`,
			`<th scope="col"><span class="swatch arm1" aria-hidden="true"></span>protected</th>`} {
			if !strings.Contains(tb, want) {
				t.Errorf("a table lacks %q:\n%s", want, tb)
			}
		}
		if strings.Contains(tb, "<caption>") || strings.Contains(tb, "x.y = ") {
			t.Errorf("a table names the input again:\n%s", tb)
		}
	}
	if strings.Contains(page, "<a href=\"0") {
		t.Error("cells link without Links")
	}
	perFigure := len(g.Sums) * (len(s.Spread) + len(s.Deltas))
	for _, f := range trials.Figures() {
		start := strings.Index(page, `<h3 id="figure-`+f.Key+`">`)
		if start < 0 {
			t.Errorf("no grid for %s", f.Key)
			continue
		}
		body, _, _ := strings.Cut(page[start+1:], "\n<h") // the figure's table, to the next heading
		if n := len(gridCellT.FindAllString(body, -1)); n != perFigure {
			t.Errorf("%s: %d cells, want %d", f.Key, n, perFigure)
		}
		if !strings.Contains(body, `<th scope="col">protected − baseline</th>`) {
			t.Errorf("%s: no column of the difference", f.Key)
		}
	}
}

// A path or value that looks like markup is shown escaped; the page has no script and
// requests nothing.
func TestVaryHTMLEscaped(t *testing.T) {
	g := varyGrid(t, []string{"<script>alert(1)</script>", "z"}, [][]string{{`<script>x</script>`, "b"}, {"1"}})
	g.Links = varyLinks(g)
	page := renderVary(t, g)
	if strings.Contains(strings.ToLower(page), "<script") {
		t.Error("a <script> reached the page unescaped")
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt; = &lt;script&gt;x&lt;/script&gt;", "%3cscript%3ex%3c/script%3e"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	const icon = `<link rel="icon" href="data:,">`
	rest := strings.Replace(page, icon, "", 1)
	for _, bad := range []string{" src=", "<link", "url(", "@import", "http://", "https://"} {
		if strings.Contains(rest, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
}

// TestVaryShade checks the shade of an arm's cell, by where its median lies between the
// grid's lowest and highest.
func TestVaryShade(t *testing.T) {
	up := trials.Figure{Key: "goodput", Better: +1}
	down := trials.Figure{Key: "late", Better: -1}
	neither := trials.Figure{Key: "rejected"}
	at := func(m float64) trials.Stats { return trials.Stats{N: 3, Median: m, Min: m, Max: m} }
	for _, tt := range []struct {
		name   string
		f      trials.Figure
		st     trials.Stats
		lo, hi float64
		want   string
	}{
		{"highest, higher better", up, at(100), 0, 100, "best"},
		{"lowest, higher better", up, at(0), 0, 100, "worst"},
		{"middle", up, at(50), 0, 100, "mid"},
		{"near the top", up, at(80), 0, 100, "good"},
		{"near the bottom", up, at(20), 0, 100, "poor"},
		{"highest, lower better", down, at(100), 0, 100, "worst"},
		{"lowest, lower better", down, at(0), 0, 100, "best"},
		{"negative values", up, at(-5), -5, -1, "worst"},
		{"highest, neither", neither, at(100), 0, 100, "n4"},
		{"lowest, neither", neither, at(0), 0, 100, "n0"},
		{"all equal", up, at(7), 7, 7, "even"},
		{"all equal, neither", neither, at(7), 7, 7, "even"},
		{"not measured", up, trials.Stats{Missing: 3}, 0, 100, "missing"},
		{"nothing measured anywhere", up, trials.Stats{Missing: 3}, 0, 0, "missing"},
	} {
		if got := shade(tt.f, tt.st, tt.lo, tt.hi); got != tt.want {
			t.Errorf("%s: shade = %q, want %q", tt.name, got, tt.want)
		}
	}
	for _, tt := range []struct {
		f    trials.Figure
		st   trials.Stats
		want string
	}{
		{up, at(5), "better"},
		{up, at(-5), "worse"},
		{down, at(5), "worse"},
		{down, at(-5), "better"},
		{up, at(0), "same"},
		{neither, at(5), ""},
		{up, trials.Stats{Missing: 2}, "missing"},
	} {
		if got := deltaShade(tt.f, tt.st); got != tt.want {
			t.Errorf("deltaShade(%s, %v) = %q, want %q", tt.f.Key, tt.st.Median, got, tt.want)
		}
	}
}

// An objective's cell is marked and classed by the trials it passed in: all, some or none.
func TestVaryPassCell(t *testing.T) {
	for _, tt := range []struct {
		passed, of        int
		class, mark, main string
	}{
		{3, 3, "pass-all", "✓", "3/3"},
		{2, 3, "pass-some", "◐", "2/3"},
		{0, 3, "pass-none", "✗", "0/3"},
	} {
		c := passGridCell(tt.passed, tt.of)
		if c.Class != tt.class || c.Mark != tt.mark || c.Main != tt.main {
			t.Errorf("%d of %d: %+v", tt.passed, tt.of, c)
		}
	}
}

// On the page, the goodput cell with the highest median of all arms and combinations is
// the best and the lowest the worst; a figure the same everywhere is left unshaded.
func TestVaryHTMLShades(t *testing.T) {
	g := varyGrid(t, []string{"x.y", "z"}, [][]string{{"1", "2"}, {"a", "b", "c"}})
	p := newVaryPage(g, true)
	find := func(key string) varyFigure {
		for _, sec := range p.Sections {
			for _, f := range sec.Figures {
				if f.ID == "figure-"+key {
					return f
				}
			}
		}
		t.Fatalf("no figure %s", key)
		return varyFigure{}
	}
	i := -1
	for j, f := range trials.Figures() {
		if f.Key == "goodput" {
			i = j
		}
	}
	lo, hi := medianRange(g, i)
	fig := find("goodput")
	var best, worst int
	for a := range g.Sums[0].Spread {
		for r, row := range fig.Grids[a].Rows {
			for c, cell := range row.Cells {
				m := g.Sums[r*3+c].Spread[a].Figures[i].Median
				if m == hi && cell.Class != "best" || m == lo && cell.Class != "worst" {
					t.Errorf("goodput %v (lowest %v, highest %v) shaded %q", m, lo, hi, cell.Class)
				}
				best += b2i(cell.Class == "best")
				worst += b2i(cell.Class == "worst")
			}
		}
	}
	if best == 0 || worst == 0 {
		t.Errorf("%d best and %d worst goodput cells", best, worst)
	}
	for _, gr := range find("offered").Grids[:len(g.Sums[0].Spread)] {
		for _, row := range gr.Rows {
			for _, c := range row.Cells {
				if c.Class != "even" {
					t.Errorf("offered, the same everywhere, shaded %q", c.Class)
				}
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A grid whose sweeps do not fit its inputs or ran other seeds is an error; one whose
// objectives differ says so instead of drawing them.
func TestVaryHTMLMismatches(t *testing.T) {
	g := varyGrid(t, []string{"x.y"}, [][]string{{"1", "2"}})
	g.Sums[1].Spread[0].Objectives[0].Name = "renamed"
	page := renderVary(t, g)
	if !strings.Contains(page, "The objectives are not the same at every combination") || strings.Contains(page, `class="grid objective"`) {
		t.Error("objectives that differ are drawn, or not said to differ")
	}
	var b bytes.Buffer
	short := g
	short.Values = [][]string{{"1"}}
	if err := VaryHTML(&b, short); err == nil {
		t.Error("one value for two sweeps: no error")
	}
	g.Sums[1].Runs[0].Seed = 99
	if err := VaryHTML(&b, g); err == nil || !strings.Contains(err.Error(), "ran seeds") {
		t.Errorf("other seeds: %v", err)
	}
	if b.Len() != 0 {
		t.Error("an error wrote part of a page")
	}
}

// The first objective grid is every objective at once: a trial counts only when the arm
// passed all of them.
func TestVaryHTMLEveryObjective(t *testing.T) {
	g := varyGrid(t, []string{"x.y"}, [][]string{{"1", "2"}})
	s := g.Sums[1]
	// In one trial the protected arm fails one objective it otherwise passes.
	s.Runs[1].Arms[1].Objectives[0].Pass = false
	if got := allPassed(s, 1); got != len(s.Runs)-1 {
		t.Errorf("protected passed every objective in %d trials, want %d", got, len(s.Runs)-1)
	}
	if got := allPassed(s, 0); got != 0 {
		t.Errorf("baseline passed every objective in %d trials, want 0", got)
	}
	p := newVaryPage(g, true)
	if f := p.Objectives[0]; f.Label != "every objective" || len(f.Grids) != 1 {
		t.Fatalf("first objective figure %q with %d grids", f.Label, len(f.Grids))
	}
	rows := p.Objectives[0].Grids[0].Rows // one input: a row per value, a column per arm
	if c := rows[0].Cells[1]; c.Main != "3/3" || c.Class != "pass-all" {
		t.Errorf("protected at x.y=1: %+v", c)
	}
	if c := rows[1].Cells[1]; c.Main != "2/3" || c.Class != "pass-some" {
		t.Errorf("protected at x.y=2: %+v", c)
	}
}

// The example grids' pages are the pages of their summaries, as this build draws them: each
// vary.html, and each combination's trials.html.
func TestVaryHTMLExample(t *testing.T) {
	for _, dir := range []string{
		filepath.Join("..", "examples", "northstar", "metastable"),
		filepath.Join("..", "examples", "northstar", "cache", "catalog"),
	} {
		t.Run(filepath.Base(dir), func(t *testing.T) { checkVaryExample(t, dir) })
	}
}

// checkVaryExample checks that a grid's pages under dir are those its JSON files render.
func checkVaryExample(t *testing.T, dir string) {
	m, err := trials.ReadGridFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	g := VaryGrid{Paths: m.Paths, Values: m.Values}
	for _, d := range m.Dirs {
		sub := filepath.Join(dir, filepath.FromSlash(d))
		s, err := trials.ReadFile(sub)
		if err != nil {
			t.Fatal(err)
		}
		g.Sums = append(g.Sums, s)
		g.Links = append(g.Links, d+"/"+TrialsHTMLFile)
		want, err := os.ReadFile(filepath.Join(sub, TrialsHTMLFile))
		if err != nil {
			t.Fatal(err)
		}
		if renderTrials(t, s) != string(want) {
			t.Errorf("%s/%s is not the page of its trials.json", sub, TrialsHTMLFile)
		}
	}
	var b bytes.Buffer
	if err := VaryHTML(&b, g); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(dir, VaryHTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("%s/%s is not the page of its grid; rewrite it with goodput merge %s --out %s", dir, VaryHTMLFile, dir, dir)
	}
}

// An objective that cannot be measured on an arm (no data) does not fail "every
// objective"; one that fails does, and a trial with nothing measured does not pass.
func TestAllPassedSkipsNoData(t *testing.T) {
	run := func(objs ...trials.ObjectiveRun) trials.Trial {
		return trials.Trial{Arms: []trials.ArmRun{{Objectives: objs}}}
	}
	ok, bad, none := trials.ObjectiveRun{Pass: true}, trials.ObjectiveRun{}, trials.ObjectiveRun{NoData: true}
	s := &trials.Summary{Runs: []trials.Trial{run(ok, none), run(ok, bad), run(none, none), run(ok, ok)}}
	if got := allPassed(s, 0); got != 2 {
		t.Errorf("allPassed = %d, want 2 (the first and the last trial)", got)
	}
}

// rateGrid is a synthetic sweep over an offered rate (load.schedule.0.rate at the given
// values, 3 trials of a 60 s run each) of a service that completes at most 1,000/s: the
// baseline arm admits everything, its goodput collapsing into late and expired work past
// saturation as its queue ages; the protected arm rejects what it cannot serve in time.
func rateGrid(t *testing.T, values ...string) VaryGrid {
	t.Helper()
	g := VaryGrid{Paths: []string{"load.schedule.0.rate"}, Values: [][]string{values}}
	for _, v := range values {
		r, err := scenario.ParseRate(v)
		if err != nil {
			t.Fatal(err)
		}
		rate := r.PerSecond()
		s := &trials.Summary{Scenario: "synthetic", Set: []string{"load.schedule.0.rate=" + v}, FirstSeed: 1, Trials: 3, Figures: trials.Figures()}
		for seed := uint64(1); seed <= 3; seed++ {
			jitter := float64(seed) - 2 // −1, 0, 1
			offered := math.Round(60 * rate * (1 + 0.01*jitter))
			failed := math.Round(offered * 0.001 * float64(seed))
			served := min(offered-failed, 60_000*(1-0.005*jitter)) // goodput and late
			base := map[string]float64{"offered": offered, "admitted": offered, "rejected": 0, "failed": failed}
			fresh := min(1, math.Pow(1000/rate, 3)) // the share still within its deadline
			base["goodput"] = math.Round(served * fresh)
			base["late"] = served - base["goodput"]
			base["expired"] = offered - served - base["failed"]
			base["queue_age_max_ms"] = math.Round(40 + 3000*max(0, rate/1000-1)*(1+0.1*jitter))
			prot := map[string]float64{"offered": offered, "rejected": math.Max(0, offered-57_000*(1-0.005*jitter)), "failed": 0, "late": 0, "queue_age_max_ms": 150 + 10*jitter}
			prot["admitted"] = offered - prot["rejected"]
			prot["goodput"] = math.Round(prot["admitted"] * 0.995)
			prot["expired"] = prot["admitted"] - prot["goodput"]
			s.Runs = append(s.Runs, trials.Trial{Seed: seed, Arms: []trials.ArmRun{runOf("baseline", base), runOf("protected", prot)}})
		}
		// Through the file, which computes the spreads from the runs.
		var b bytes.Buffer
		if err := s.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		s, err = trials.Read(b.Bytes(), "rate.json")
		if err != nil {
			t.Fatal(err)
		}
		g.Sums = append(g.Sums, s)
	}
	return g
}

// runOf is an arm's run with the given figures, the others not measured.
func runOf(name string, figs map[string]float64) trials.ArmRun {
	r := trials.ArmRun{Name: name, Figures: map[string]*float64{}}
	for _, f := range trials.Figures() {
		if v, ok := figs[f.Key]; ok {
			r.Figures[f.Key] = &v
		} else {
			r.Figures[f.Key] = nil
		}
	}
	return r
}

var (
	curveFigureT = regexp.MustCompile(`(?s)<figure id="curve-([a-z-]+)">.*?</figure>`)
	curvePoints  = regexp.MustCompile(`<polyline class="line (arm\d)" points="([^"]*)">`)
)

// TestVaryHTMLOverloadCurve checks the page of one offered rate at four values, given out
// of order: a table per figure with a row per rate, and the overload curve above them — a
// panel for throughput, goodput, queue age and each terminal outcome, each with a line
// per arm through its medians from the lowest rate to the highest and a band around it.
func TestVaryHTMLOverloadCurve(t *testing.T) {
	g := rateGrid(t, "500/s", "1000/s", "2k/s", "1500/s")
	g.Links = varyLinks(g)
	page := renderVary(t, g)
	golden(t, "vary-rate.html", []byte(page))
	if page != renderVary(t, g) {
		t.Error("two renderings differ")
	}
	for _, want := range []string{
		`<a href="#overload-curve">Overload curve</a>`,
		`<h2 id="overload-curve">Overload curve</h2>`,
		`<th scope="col" class="corner">load.<wbr>schedule.<wbr>0.<wbr>rate</th><th scope="col"><span class="swatch arm0" aria-hidden="true"></span>baseline</th>`,
		`<tr><th scope="row">2k/s</th>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<th scope=\"row\">load.schedule") || strings.Contains(page, "0.rate = 500/s</th>") {
		t.Error("a header names the input beside or instead of its value")
	}
	panels := curveFigureT.FindAllStringSubmatch(page, -1)
	var ids []string
	for _, p := range panels {
		ids = append(ids, p[1])
		lines := curvePoints.FindAllStringSubmatch(p[0], -1)
		if len(lines) != 2 || strings.Count(p[0], `<polygon class="spread`) != 2 {
			t.Errorf("panel %s: %d lines and %d bands, want one of each per arm", p[1], len(lines), strings.Count(p[0], "<polygon"))
		}
		for _, l := range lines {
			var xs []float64
			for _, pt := range strings.Fields(l[2]) {
				x, _, _ := strings.Cut(pt, ",")
				v, err := strconv.ParseFloat(x, 64)
				if err != nil {
					t.Fatalf("panel %s: point %q", p[1], pt)
				}
				xs = append(xs, v)
			}
			if len(xs) != 4 || !slices.IsSorted(xs) {
				t.Errorf("panel %s, %s: x = %v, want four rates from the lowest", p[1], l[1], xs)
			}
		}
	}
	if want := "completed goodput queue-age rejected late expired failed"; strings.Join(ids, " ") != want {
		t.Errorf("panels %v, want %s", ids, want)
	}
	if !strings.Contains(panels[0][0], `<line class="line offered"`) || strings.Contains(panels[2][0], `class="line offered"`) {
		t.Error("the offered line is not on the throughput panel, or is on the queue age's")
	}
	// Past saturation the baseline's goodput collapses while the protected arm's holds
	// (up is a lower y).
	c := newOverloadCurve(g)
	base, prot := c.Panels[1].Arms[0].Dots, c.Panels[1].Arms[1].Dots
	if !(base[1].Y < base[3].Y && prot[3].Y < base[3].Y) {
		t.Errorf("goodput: baseline %v at 1,000/s and %v at 2,000/s, protected %v", base[1], base[3], prot[3])
	}
}

// TestCurveStats checks a panel's figure trial by trial: counts per second of the run
// (count × rate ÷ offered), summed figures, and a trial missing a figure or its offered
// count left out.
func TestCurveStats(t *testing.T) {
	run := func(figs map[string]float64) trials.Trial {
		return trials.Trial{Arms: []trials.ArmRun{runOf("a", figs)}}
	}
	s := &trials.Summary{Runs: []trials.Trial{
		run(map[string]float64{"offered": 60_000, "goodput": 30_000, "late": 6_000, "queue_age_max_ms": 90}),
		run(map[string]float64{"offered": 30_000, "goodput": 27_000, "late": 0, "queue_age_max_ms": 30}),
		run(map[string]float64{"offered": 0, "goodput": 0, "late": 0, "queue_age_max_ms": 60}),
		run(map[string]float64{"offered": 60_000, "goodput": 12_000, "queue_age_max_ms": 300}), // late missing
	}}
	byID := map[string]curveFigure{}
	for _, f := range curveFigures {
		byID[f.id] = f
	}
	for _, tt := range []struct {
		fig              string
		rate             float64
		n                int
		min, median, max float64
	}{
		// 36,000 of 60,000 offered at 1,000/s is 600/s; 27,000 of 30,000 is 900/s.
		{"completed", 1000, 2, 600, 750, 900},
		{"goodput", 1000, 3, 200, 500, 900},
		{"goodput", 2000, 3, 400, 1000, 1800},
		{"queue-age", 1000, 4, 30, 75, 300},
	} {
		st := curveStats(s, 0, byID[tt.fig], tt.rate)
		if st.N != tt.n || st.Min != tt.min || st.Median != tt.median || st.Max != tt.max {
			t.Errorf("%s at %v/s: n %d, %v / %v / %v; want n %d, %v / %v / %v", tt.fig, tt.rate, st.N, st.Min, st.Median, st.Max, tt.n, tt.min, tt.median, tt.max)
		}
	}
}

// The curve is drawn only for one offered rate varied over two values or more.
func TestVaryHTMLNoCurve(t *testing.T) {
	for _, tt := range []struct {
		name   string
		paths  []string
		values [][]string
	}{
		{"not a rate", []string{"x.y"}, [][]string{{"1", "2"}}},
		{"two inputs", []string{"load.schedule.0.rate", "z"}, [][]string{{"1/s", "2/s"}, {"a"}}},
		{"a rate, not offered", []string{"arms.1.policy.retries.budget.min_per_second"}, [][]string{{"1/s", "2/s"}}},
		{"one value", []string{"load.schedule.0.rate"}, [][]string{{"9000/s"}}},
		{"one rate spelled two ways", []string{"load.schedule.0.rate"}, [][]string{{"9000/s", "9k/s"}}},
	} {
		g := varyGrid(t, tt.paths, tt.values)
		if c := newOverloadCurve(g); c != nil {
			t.Errorf("%s: a curve of %d panels", tt.name, len(c.Panels))
		}
		if page := renderVary(t, g); strings.Contains(page, "overload-curve") {
			t.Errorf("%s: the page has an overload curve", tt.name)
		}
	}
}
