package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/goodput-lab/goodput/trials"
)

// VaryHTMLFile is the name of the grid page goodput replay --vary writes under --out.
const VaryHTMLFile = "vary.html"

var varyTemplate = template.Must(template.New("vary.html.tmpl").
	Funcs(template.FuncMap{"breakable": breakable}).
	ParseFS(templateFS, "templates/vary.html.tmpl"))

// breakable is an input's path, escaped, with a line break allowed after each dot: a
// corner or a heading of a narrow grid wraps between the path's names, not inside one.
func breakable(path string) template.HTML {
	names := strings.Split(path, ".")
	for i, n := range names {
		names[i] = template.HTMLEscapeString(n)
	}
	return template.HTML(strings.Join(names, ".<wbr>"))
}

// varyStyle is the report's stylesheet and the grid page's own rules.
var varyStyle = pageStyle("vary.css")

// VaryHTML writes the page of g: the map of where each arm holds and where it breaks
// across the inputs varied. Every grid has a column for each value of the last input and
// a row for each combination of the others; with one input, a row per value and a column
// per arm and difference. When the one input is an offered rate (load.schedule.N.rate),
// the page first draws the open-loop overload curve: each arm's
// throughput, goodput, queue age and terminal outcomes across the rates, the trials'
// range as a band around the median. For each objective, a grid per arm of the
// trials it passed in and its median value; for each alert rule (when the sweeps have
// alerts), a grid per arm of the trials it fired in and when it first fired; for every
// figure of [Trials], a grid per arm of its median and range across the trials, shaded
// from worst to best over every cell of every arm, and a grid per arm after the first of
// its difference from the first arm; then
// the trials that held every invariant. Each cell links to its combination's trials.html
// when g.Links are given. Like [TrialsHTML], the page stands alone (no script, no request)
// and identical grids give identical bytes. A grid whose sweeps do not match is an error.
func VaryHTML(w io.Writer, g VaryGrid) error {
	sameObjectives, err := g.check()
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := varyTemplate.Execute(&buf, newVaryPage(g, sameObjectives)); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// varyPage is what the grid page's template draws.
type varyPage struct {
	Style    template.CSS
	Scenario string
	Varied   string // "x.y × z", for the title
	Meta     string
	Inputs   []string // "x.y = 1, 2", one per input
	Set      string   // the overrides every combination shares
	Layout   string   // how a grid lays out the combinations
	Trials   int
	First    string
	Deltas   bool
	Links    bool
	Arms     []armView
	Contents []contentsLink
	// Curve is the open-loop overload curve, drawn when the grid varies one offered rate.
	Curve *overloadCurve
	// ObjectivesDiffer: the combinations have different objectives, left to their pages.
	ObjectivesDiffer bool
	Objectives       []varyFigure
	// AlertsDiffer: the combinations have different alert rules, left to their pages.
	AlertsDiffer bool
	// Alerts are a figure per alert rule; none for a grid without alerts.
	Alerts     []varyFigure
	Sections   []varySection
	Invariants []gridView
}

type contentsLink struct{ ID, Title string }

type varySection struct {
	ID, Title string
	Figures   []varyFigure
}

// varyFigure is one figure or objective: its heading and a grid per arm (and difference).
type varyFigure struct {
	ID, Label, Note string
	Grids           []gridView
}

// gridView is one grid: a value per combination. With two inputs or more, it is one arm's
// (or difference's): a row for each combination of all the inputs but the last (named in
// the corner) and a column for each value of the last (named once, Across). With one
// input, it is every arm's and difference's: a row for each value of the input (named in
// the corner) and a column for each arm and difference.
type gridView struct {
	Caption string
	Swatch  string // the arm's colour class; "" for a difference
	Kind    string // arm, delta, objective or invariants: the table's class
	Corner  string // the inputs of the rows
	Across  string // the input of the columns; "" when the columns are the arms
	Columns []gridHead
	Rows    []gridRow
}

// gridHead heads a column: a value alone, or an arm (with its colour) or difference.
type gridHead struct{ Label, Swatch string }

type gridRow struct {
	Header string
	Cells  []gridCell
}

// gridCell is one combination's cell: a symbol (objectives), the main line, a second line
// at full size (an objective's value), small lines beneath (range, notes), its shade class
// and its combination's page.
type gridCell struct {
	Class, Link, Mark, Main, Value string
	Small                          []string
}

func newVaryPage(g VaryGrid, sameObjectives bool) *varyPage {
	first := g.Sums[0]
	arms := first.Arms()
	p := &varyPage{Style: varyStyle, Scenario: first.Scenario, Varied: strings.Join(g.Paths, " × "),
		Trials: len(first.Runs), Links: g.Links != nil}
	meta := []string{first.Seeds()}
	if first.Complete() {
		meta = append(meta, plural(first.Trials, "trial")+" each")
	} else {
		meta = append(meta, fmt.Sprintf("shard %s: %d of %d trials each", shardOf(first), len(first.Runs), first.Trials))
	}
	meta = append(meta, plural(len(arms), "arm"), plural(len(g.Sums), "combination"))
	p.Meta = strings.Join(meta, " · ")
	for k, path := range g.Paths {
		p.Inputs = append(p.Inputs, path+" = "+strings.Join(g.Values[k], ", "))
	}
	set := g.setElsewhere()
	if sameArmSets(g.Sums) {
		set = append(set, armSetTexts(first)...)
	}
	p.Set = strings.Join(set, "; ")
	switch last := len(g.Paths) - 1; last {
	case 0:
		p.Layout = "Each figure is a table with a row for each value of " + g.Paths[0] + " and a column for each arm and each difference between arms."
	case 1:
		p.Layout = "Each grid is one arm's or difference's, with a row for each value of " + g.Paths[0] + " and a column for each value of " + g.Paths[1] + "."
	default:
		p.Layout = "Each grid is one arm's or difference's, with a row for each combination of " + strings.Join(g.Paths[:last], ", ") + " and a column for each value of " + g.Paths[last] + "."
	}
	if len(first.Runs) == 0 {
		return p
	}
	p.First = arms[0]
	p.Deltas = len(first.Deltas) > 0
	for i, a := range arms {
		p.Arms = append(p.Arms, armView{Name: a, Class: armClass(i)})
	}

	if p.Curve = newOverloadCurve(g); p.Curve != nil {
		p.Contents = append(p.Contents, contentsLink{ID: "overload-curve", Title: "Overload curve"})
	}
	if hasObjectives(first) {
		p.Contents = append(p.Contents, contentsLink{ID: "objectives", Title: "Objectives"})
		p.ObjectivesDiffer = !sameObjectives
	}
	if hasObjectives(first) && sameObjectives {
		// First the region where each arm meets every objective at once.
		all := varyFigure{ID: "objectives-all", Label: "every objective", Note: "the trials in which all that could be measured passed"}
		var cols []gridColumn
		for a, arm := range p.Arms {
			cols = append(cols, gridColumn{arm.Name, arm.Class, "objective", func(v int) gridCell {
				s := g.Sums[v]
				return passGridCell(allPassed(s, a), len(s.Runs))
			}})
		}
		all.Grids = gridViews(g, cols)
		p.Objectives = append(p.Objectives, all)
		for j, o := range first.Spread[0].Objectives {
			fig := varyFigure{ID: fmt.Sprintf("objective-%d", j+1), Label: objectiveName(o.Name, o.Statistic), Note: o.Metric}
			var cols []gridColumn
			for a, arm := range p.Arms {
				cols = append(cols, gridColumn{arm.Name, arm.Class, "objective", func(v int) gridCell {
					return objectiveGridCell(g.Sums[v].Spread[a].Objectives[j])
				}})
			}
			fig.Grids = gridViews(g, cols)
			p.Objectives = append(p.Objectives, fig)
		}
	}

	if p.Alerts, p.AlertsDiffer = varyAlerts(g, p.Arms); p.Alerts != nil || p.AlertsDiffer {
		p.Contents = append(p.Contents, contentsLink{ID: "alerts", Title: "Alerts"})
	}

	for i, f := range first.Figures {
		if !trials.Shown(i, g.Sums...) {
			continue
		}
		if len(p.Sections) == 0 || p.Sections[len(p.Sections)-1].Title != f.Section {
			id := fmt.Sprintf("section-%d", len(p.Sections)+1)
			p.Sections = append(p.Sections, varySection{ID: id, Title: f.Section})
			p.Contents = append(p.Contents, contentsLink{ID: id, Title: f.Section})
		}
		fig := varyFigure{ID: "figure-" + f.Key, Label: f.Label, Note: betterNote(f.Better)}
		lo, hi := medianRange(g, i)
		var cols []gridColumn
		for a, arm := range p.Arms {
			cols = append(cols, gridColumn{arm.Name, arm.Class, "arm", func(v int) gridCell {
				st := g.Sums[v].Spread[a].Figures[i]
				return spreadGridCell(spreadOf(f, st, false), shade(f, st, lo, hi))
			}})
		}
		for d, delta := range first.Deltas {
			cols = append(cols, gridColumn{delta.Arm + " − " + delta.Versus, "", "delta", func(v int) gridCell {
				ds := g.Sums[v].Deltas[d].Figures[i]
				c := spreadGridCell(spreadOf(f, ds.Stats, true), deltaShade(f, ds.Stats))
				switch b := pairedCell(g.Sums[v], i, f, ds); b {
				case "":
				case "same":
					c.Small = append(c.Small, "same in every trial")
				case setByInputs:
					c.Small = append(c.Small, "set by the inputs: identical in every trial")
				default:
					c.Small = append(c.Small, "better in "+b)
				}
				return c
			}})
		}
		fig.Grids = gridViews(g, cols)
		sec := &p.Sections[len(p.Sections)-1]
		sec.Figures = append(sec.Figures, fig)
	}

	p.Contents = append(p.Contents, contentsLink{ID: "invariants", Title: "Invariants"})
	var cols []gridColumn
	for a, arm := range p.Arms {
		cols = append(cols, gridColumn{arm.Name, arm.Class, "invariants", func(v int) gridCell {
			s := g.Sums[v]
			return passGridCell(len(s.Runs)-s.Spread[a].InvariantFailures, len(s.Runs))
		}})
	}
	p.Invariants = gridViews(g, cols)
	return p
}

// allPassed counts the trials of s in which arm a passed every objective it could be
// measured on (an arm without a load state has no Normal to measure in), and at least one.
func allPassed(s *trials.Summary, a int) int {
	n := 0
	for _, r := range s.Runs {
		obj := r.Arms[a].Objectives
		measured := slices.ContainsFunc(obj, func(o trials.ObjectiveRun) bool { return !o.NoData })
		if measured && !slices.ContainsFunc(obj, func(o trials.ObjectiveRun) bool { return !o.Pass && !o.NoData }) {
			n++
		}
	}
	return n
}

// gridColumn is one arm's or difference's value at every combination v: cell(v).
type gridColumn struct {
	caption, swatch, kind string
	cell                  func(v int) gridCell
}

// gridViews lays out the columns' cells. With two inputs or more, a grid per column,
// row-major: each row holds one combination of the inputs before the last, each column one
// value of the last. With one input, one grid: a row per value, a column per arm and
// difference, so that the input's values read down and the arms side by side.
func gridViews(g VaryGrid, cols []gridColumn) []gridView {
	link := func(c gridCell, v int) gridCell {
		if g.Links != nil {
			c.Link = g.Links[v]
		}
		return c
	}
	last := len(g.Paths) - 1
	if last == 0 {
		gv := gridView{Kind: cols[0].kind, Corner: g.Paths[0]}
		for _, c := range cols {
			gv.Columns = append(gv.Columns, gridHead{Label: c.caption, Swatch: c.swatch})
		}
		for v, val := range g.Values[0] {
			row := gridRow{Header: val}
			for _, c := range cols {
				row.Cells = append(row.Cells, link(c.cell(v), v))
			}
			gv.Rows = append(gv.Rows, row)
		}
		return []gridView{gv}
	}
	n := len(g.Values[last])
	var out []gridView
	for _, c := range cols {
		gv := gridView{Caption: c.caption, Swatch: c.swatch, Kind: c.kind,
			Corner: strings.Join(g.Paths[:last], ", "), Across: g.Paths[last]}
		for _, val := range g.Values[last] {
			gv.Columns = append(gv.Columns, gridHead{Label: val})
		}
		for r := 0; r*n < len(g.Sums); r++ {
			row := gridRow{Header: strings.Join(g.Combination(r * n)[:last], ", ")}
			for k := range n {
				v := r*n + k
				row.Cells = append(row.Cells, link(c.cell(v), v))
			}
			gv.Rows = append(gv.Rows, row)
		}
		out = append(out, gv)
	}
	return out
}

// spreadGridCell is a figure's cell: the median, and its range and notes beneath.
func spreadGridCell(v spreadView, class string) gridCell {
	c := gridCell{Class: class, Main: v.Median}
	for _, s := range []string{v.Range, v.Note} {
		if s != "" {
			c.Small = append(c.Small, s)
		}
	}
	return c
}

// objectiveGridCell is an objective's cell: the trials it passed in, marked ✓ (all),
// ◐ (some) or ✗ (none), and its value's median, range and notes.
func objectiveGridCell(o trials.ObjectiveSpread) gridCell {
	ov := objectiveOf(o)
	c := passGridCell(o.Passed, o.Of)
	c.Value = ov.Value
	for _, s := range []string{ov.Range, ov.Note} {
		if s != "" {
			c.Small = append(c.Small, s)
		}
	}
	return c
}

// passGridCell counts the trials that passed: "✓ 3/3", "◐ 2/3" or "✗ 0/3", classed
// pass-all, pass-some or pass-none.
func passGridCell(passed, of int) gridCell {
	c := gridCell{Main: fmt.Sprintf("%d/%d", passed, of)}
	switch {
	case passed == of:
		c.Class, c.Mark = "pass-all", "✓"
	case passed > 0:
		c.Class, c.Mark = "pass-some", "◐"
	default:
		c.Class, c.Mark = "pass-none", "✗"
	}
	return c
}

// medianRange returns the lowest and highest median of figure i over every arm of every
// combination that measured it (0, 0 for none).
func medianRange(g VaryGrid, i int) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range g.Sums {
		for _, a := range s.Spread {
			if st := a.Figures[i]; st.N > 0 {
				lo, hi = min(lo, st.Median), max(hi, st.Median)
			}
		}
	}
	if lo > hi {
		return 0, 0
	}
	return lo, hi
}

// shadeSteps are the shades of a figure with a better direction, worst to best.
var shadeSteps = []string{"worst", "poor", "mid", "good", "best"}

// shade classes an arm's cell of figure f by where its median lies between lo and hi,
// the lowest and highest medians of f over the grid: "worst", "poor", "mid", "good" or
// "best" by f.Better, or "n0" (lowest) to "n4" (highest) for a figure neither way better.
// It is "even" when every median is the same, and "missing" when st has none.
func shade(f trials.Figure, st trials.Stats, lo, hi float64) string {
	switch {
	case st.N == 0:
		return "missing"
	case !(hi > lo):
		return "even"
	}
	step := int(math.Round(4 * (st.Median - lo) / (hi - lo)))
	step = min(max(step, 0), 4)
	switch f.Better {
	case 0:
		return fmt.Sprintf("n%d", step)
	case -1:
		step = 4 - step
	}
	return shadeSteps[step]
}

// deltaShade classes a difference's cell by its median: "better" or "worse" than the
// first arm by f.Better, "same" for none, "" for a figure neither way better and
// "missing" when st has no median.
func deltaShade(f trials.Figure, st trials.Stats) string {
	switch {
	case st.N == 0:
		return "missing"
	case f.Better == 0:
		return ""
	case st.Median == 0:
		return "same"
	case (st.Median > 0) == (f.Better > 0):
		return "better"
	}
	return "worse"
}

// betterNote says which way figure f is better.
func betterNote(better int) string {
	switch better {
	case 1:
		return "higher is better"
	case -1:
		return "lower is better"
	}
	return "neither higher nor lower is better"
}
