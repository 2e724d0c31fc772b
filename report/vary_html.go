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

var varyTemplate = template.Must(template.New("vary.html.tmpl").ParseFS(templateFS, "templates/vary.html.tmpl"))

// varyStyle is the report's stylesheet and the grid page's own rules.
var varyStyle = pageStyle("vary.css")

// VaryHTML writes the page of g: the map of where each arm holds and where it breaks
// across the inputs varied. Every grid has a column for each value of the last input and
// a row for each combination of the others. For each objective, a grid per arm of the
// trials it passed in and its median value; for every figure of [Trials], a grid per arm
// of its median and range across the trials, shaded from worst to best over every cell of
// every arm, and a grid per arm after the first of its difference from the first arm; then
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
	Rows     string   // what a grid's rows are
	Last     string   // the input of a grid's columns
	Trials   int
	First    string
	Deltas   bool
	Links    bool
	Arms     []armView
	Contents []contentsLink
	// ObjectivesDiffer: the combinations have different objectives, left to their pages.
	ObjectivesDiffer bool
	Objectives       []varyFigure
	Sections         []varySection
	Invariants       []gridView
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

// gridView is one grid: a value per combination, in a row for each combination of all the
// inputs but the last and a column for each value of the last.
type gridView struct {
	Caption string
	Swatch  string // the arm's colour class; "" for a difference
	Kind    string // arm, delta, objective or invariants: the table's class
	Columns []string
	Rows    []gridRow
}

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
		Last: g.Paths[len(g.Paths)-1], Trials: len(first.Runs), Links: g.Links != nil}
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
	p.Set = strings.Join(g.setElsewhere(), "; ")
	if len(g.Paths) == 1 {
		p.Rows = "a single row"
	} else {
		p.Rows = "a row for each combination of " + strings.Join(g.Paths[:len(g.Paths)-1], ", ")
	}
	if len(first.Runs) == 0 {
		return p
	}
	p.First = arms[0]
	p.Deltas = len(first.Deltas) > 0
	for i, a := range arms {
		p.Arms = append(p.Arms, armView{Name: a, Class: armClass(i)})
	}

	if hasObjectives(first) {
		p.Contents = append(p.Contents, contentsLink{ID: "objectives", Title: "Objectives"})
		p.ObjectivesDiffer = !sameObjectives
	}
	if hasObjectives(first) && sameObjectives {
		// First the region where each arm meets every objective at once.
		all := varyFigure{ID: "objectives-all", Label: "every objective", Note: "the trials in which all that could be measured passed"}
		for a, arm := range p.Arms {
			all.Grids = append(all.Grids, newGridView(g, arm.Name, arm.Class, "objective", func(v int) gridCell {
				s := g.Sums[v]
				return passGridCell(allPassed(s, a), len(s.Runs))
			}))
		}
		p.Objectives = append(p.Objectives, all)
		for j, o := range first.Spread[0].Objectives {
			fig := varyFigure{ID: fmt.Sprintf("objective-%d", j+1), Label: objectiveName(o.Name, o.Statistic), Note: o.Metric}
			for a, arm := range p.Arms {
				fig.Grids = append(fig.Grids, newGridView(g, arm.Name, arm.Class, "objective", func(v int) gridCell {
					return objectiveGridCell(g.Sums[v].Spread[a].Objectives[j])
				}))
			}
			p.Objectives = append(p.Objectives, fig)
		}
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
		for a, arm := range p.Arms {
			fig.Grids = append(fig.Grids, newGridView(g, arm.Name, arm.Class, "arm", func(v int) gridCell {
				st := g.Sums[v].Spread[a].Figures[i]
				return spreadGridCell(spreadOf(f, st, false), shade(f, st, lo, hi))
			}))
		}
		for d, delta := range first.Deltas {
			fig.Grids = append(fig.Grids, newGridView(g, delta.Arm+" − "+delta.Versus, "", "delta", func(v int) gridCell {
				ds := g.Sums[v].Deltas[d].Figures[i]
				c := spreadGridCell(spreadOf(f, ds.Stats, true), deltaShade(f, ds.Stats))
				switch b := betterCell(f, ds); b {
				case "":
				case "same":
					c.Small = append(c.Small, "same in every trial")
				default:
					c.Small = append(c.Small, "better in "+b)
				}
				return c
			}))
		}
		sec := &p.Sections[len(p.Sections)-1]
		sec.Figures = append(sec.Figures, fig)
	}

	p.Contents = append(p.Contents, contentsLink{ID: "invariants", Title: "Invariants"})
	for a, arm := range p.Arms {
		p.Invariants = append(p.Invariants, newGridView(g, arm.Name, arm.Class, "invariants", func(v int) gridCell {
			s := g.Sums[v]
			return passGridCell(len(s.Runs)-s.Spread[a].InvariantFailures, len(s.Runs))
		}))
	}
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

// newGridView lays out cell(v) for every combination v: row-major, so that each row holds
// one combination of the inputs before the last and each column one value of the last.
func newGridView(g VaryGrid, caption, swatch, kind string, cell func(v int) gridCell) gridView {
	last := len(g.Paths) - 1
	cols := len(g.Values[last])
	gv := gridView{Caption: caption, Swatch: swatch, Kind: kind}
	for _, v := range g.Values[last] {
		gv.Columns = append(gv.Columns, g.Paths[last]+" = "+v)
	}
	for r := 0; r*cols < len(g.Sums); r++ {
		row := gridRow{Header: g.Paths[0]} // one input: the row is the input's values
		if last > 0 {
			vals := g.Combination(r * cols)[:last]
			for k := range vals {
				vals[k] = g.Paths[k] + " = " + vals[k]
			}
			row.Header = strings.Join(vals, ", ")
		}
		for c := range cols {
			v := r*cols + c
			cl := cell(v)
			if g.Links != nil {
				cl.Link = g.Links[v]
			}
			row.Cells = append(row.Cells, cl)
		}
		gv.Rows = append(gv.Rows, row)
	}
	return gv
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
