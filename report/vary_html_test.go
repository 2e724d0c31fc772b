package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

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
