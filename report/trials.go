package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/goodput-lab/goodput/trials"
)

// Trials writes a sweep's summary: for every figure and arm, the median across the trials
// and their range, and for every arm after the first its difference from the first arm in
// the same trial (median, range, and in how many trials it was better), then the
// objectives' pass counts and any failed invariants. It fits [DefaultWidth] columns;
// [Terminal.Trials] fits another width.
func Trials(w io.Writer, s *trials.Summary) error { return trialsTable(w, s, DefaultWidth) }

func trialsTable(w io.Writer, s *trials.Summary, width int) error {
	var out bytes.Buffer
	arms := s.Arms()
	armsWord := "arms"
	if len(arms) == 1 {
		armsWord = "arm"
	}
	trialsPart := fmt.Sprintf("%d trials", s.Trials)
	if !s.Complete() {
		trialsPart = fmt.Sprintf("shard %s: %d of %d trials", shardOf(s), len(s.Runs), s.Trials)
	}
	headerLine(&out, width, "goodput trials: "+s.Scenario, s.Seeds(), trialsPart, fmt.Sprintf("%d %s", len(arms), armsWord))
	if len(s.Set) > 0 {
		writeWrapped(&out, "set: "+strings.Join(s.Set, "; "), width)
	}
	armSets(&out, s, width)
	if !legend(&out, s, width) {
		_, err := w.Write(out.Bytes())
		return err
	}
	t := newSpreadTable(s)
	section := ""
	for i, f := range s.Figures {
		if !trials.Shown(i, s) {
			continue
		}
		if f.Section != section {
			section = f.Section
			t.heading(section)
		}
		var cells []string
		for _, a := range s.Spread {
			cells = append(cells, spreadCell(f, a.Figures[i], false))
		}
		for _, d := range s.Deltas {
			st := d.Figures[i]
			cells = append(cells, spreadCell(f, st.Stats, true), pairedCell(s, i, f, st))
		}
		t.row("  "+f.Label, cells...)
	}
	if hasObjectives(s) {
		t.heading("Objectives (trials passed: value)")
		for j, o := range s.Spread[0].Objectives {
			var cells []string
			for _, a := range s.Spread {
				cells = append(cells, objectiveSpreadCell(a.Objectives[j]))
			}
			t.row("  "+objectiveName(o.Name, o.Statistic), cells...)
		}
	}
	if s.HasAlerts() {
		t.heading(sectionSweepAlerts)
		for _, name := range alertNames(s) {
			t.row("  "+name, alertCells(s, name)...)
		}
	}
	var cells []string
	for _, a := range s.Spread {
		cells = append(cells, fmt.Sprintf("%d/%d", len(s.Runs)-a.InvariantFailures, len(s.Runs)))
	}
	t.row("Invariants (trials that held all)", cells...)
	t.render(&out, width)
	if anySetByInputs(s) {
		out.WriteByte('\n')
		writeWrapped(&out, "better in \""+setByInputs+"\": "+setByInputsWhy, width)
	}
	for _, r := range s.Runs {
		for _, a := range r.Arms {
			for _, inv := range a.InvariantsFailed {
				out.WriteByte('\n')
				writeWrapped(&out, fmt.Sprintf("invariant failed: seed %d, %s: %s", r.Seed, a.Name, inv), width)
			}
		}
	}
	_, err := w.Write(out.Bytes())
	return err
}

// legend ends a sweep table's header: "no trials" (and false) for a summary without runs,
// else how to read the cells.
func legend(out *bytes.Buffer, s *trials.Summary, width int) bool {
	if len(s.Runs) == 0 {
		out.WriteString("no trials\n")
		return false
	}
	text := "each cell: the median across trials [lowest – highest]"
	if arms := s.Arms(); len(arms) > 1 {
		text += fmt.Sprintf("; a difference is an arm's figure less %s's in the same trial", arms[0])
	}
	writeWrapped(out, text, width)
	out.WriteString("\n")
	return true
}

// spreadTable is the grid of a sweep's tables: a label column, a column per arm, and a
// difference and a "better in" column for each arm after the first. A cell's range is
// on a line of its own (see spreadCell); render puts it beside the median when the width
// allows.
type spreadTable struct {
	arms   []string
	deltas []string
	rows   []layoutRow
}

// newSpreadTable starts a table with the arms of s as its header.
func newSpreadTable(s *trials.Summary) *spreadTable {
	t := &spreadTable{arms: s.Arms()}
	for _, d := range s.Deltas {
		t.deltas = append(t.deltas, d.Arm+" − "+d.Versus)
	}
	return t
}

func (t *spreadTable) heading(label string) {
	t.rows = append(t.rows, layoutRow{label: label, heading: true})
}

// row adds a line: the cells of the arms, then a difference and "better in" for each
// delta; missing cells are empty.
func (t *spreadTable) row(label string, cells ...string) {
	t.rows = append(t.rows, layoutRow{label: label, cells: cells})
}

// render lays the table out to width: a column per arm and two per difference with each
// cell on one line, else with each range under its median, else stacked (a line per arm
// and difference under each figure's label), on one line or two.
func (t *spreadTable) render(out *bytes.Buffer, width int) {
	const minLabel = 20
	for _, stacked := range []bool{false, true} {
		for _, folded := range []bool{false, true} {
			min := minLabel
			if stacked && folded {
				min = 0 // the last resort
			}
			if t.grid(stacked, folded).render(out, width, min) {
				return
			}
		}
	}
}

func (t *spreadTable) grid(stacked, folded bool) *grid {
	cell := func(c string) string {
		if folded {
			return c
		}
		return strings.ReplaceAll(c, "\n", " ")
	}
	g := &grid{}
	if stacked {
		g.groups = []colGroup{{units: []string{""}}} // no header: the lines name the arms
	} else {
		for _, a := range t.arms {
			g.groups = append(g.groups, colGroup{name: a, units: []string{""}})
		}
		for _, d := range t.deltas {
			g.groups = append(g.groups, colGroup{name: d, units: []string{""}}, colGroup{name: "better in", units: []string{""}})
		}
	}
	for _, r := range t.rows {
		if r.heading {
			g.heading(r.label)
			continue
		}
		if !stacked {
			c := make([]string, len(r.cells))
			for i := range r.cells {
				c[i] = cell(r.cells[i])
			}
			g.row(r.label, c...)
			continue
		}
		g.rows = append(g.rows, layoutRow{label: r.label, heading: true, hang: 4}) // under it, the arms at 2
		indent := r.label[:len(r.label)-len(strings.TrimLeft(r.label, " "))] + "  "
		for i, a := range t.arms {
			if i < len(r.cells) {
				g.row(indent+a, cell(r.cells[i]))
			}
		}
		for i, d := range t.deltas {
			if k := len(t.arms) + 2*i; k+1 < len(r.cells) {
				c := cell(r.cells[k])
				if bw := betterWords(r.cells[k+1]); bw != "" && folded {
					c += "\n" + bw
				} else if bw != "" {
					c += ", " + bw
				}
				g.row(indent+d, c)
			}
		}
	}
	return g
}

// betterWords spells out a "better in" cell for a line without the column's header.
func betterWords(cell string) string {
	switch cell {
	case "":
		return ""
	case "same":
		return "same in every trial"
	case setByInputs:
		return "set by the inputs"
	}
	return "better in " + cell
}

func shardOf(s *trials.Summary) string {
	if s.Shard == nil {
		return "0/1"
	}
	return s.Shard.String()
}

func hasObjectives(s *trials.Summary) bool {
	for _, a := range s.Spread {
		if len(a.Objectives) > 0 {
			return true
		}
	}
	return false
}

// objectiveSpreadCell gives the trials an objective passed in and its value's median and
// range: "10/10: 8,681.1 [8,667.0 – 8,695.3]".
func objectiveSpreadCell(o trials.ObjectiveSpread) string {
	cell := fmt.Sprintf("%d/%d", o.Passed, o.Of)
	st := o.Value
	v := objectiveFormat(o)
	note := objectiveNote(o, v)
	switch {
	case st.N > 0:
		cell += ": " + v(st.Median)
		if lo, hi := v(st.Min), v(st.Max); lo != hi {
			cell += "\n[" + lo + " – " + hi + "]"
		}
	case o.Censored > 0:
		cell += ": –"
	default:
		return cell + ": n/a"
	}
	if note != "" {
		cell += "\n(" + note + ")"
	}
	return cell
}

// objectiveFormat formats the values of objective o in its unit.
func objectiveFormat(o trials.ObjectiveSpread) func(float64) string {
	if o.Unit == "" {
		return func(x float64) string { return figureValue(trials.Figure{}, x, false) } // a count, or the median of two
	}
	return func(x float64) string { return objectiveValue(o.Metric, o.Unit, x) }
}

// objectiveNote says in how many trials objective o had no value, and in how many its
// value was only a lower bound, with the least of those bounds: the value's median and
// range leave both out.
func objectiveNote(o trials.ObjectiveSpread, v func(float64) string) string {
	var notes []string
	if n := o.Value.Missing - o.Censored; n > 0 {
		notes = append(notes, fmt.Sprintf("n/a in %d", n))
	}
	if o.Censored > 0 {
		notes = append(notes, fmt.Sprintf("not by the end in %d: ≥ %s", o.Censored, v(o.Bound)))
	}
	return strings.Join(notes, "; ")
}

// spreadCell formats a figure's median and range in its unit; a figure missing from some
// trials says in how many (a recovery that never came: "never in 2").
func spreadCell(f trials.Figure, st trials.Stats, signed bool) string {
	if st.N == 0 {
		return "–"
	}
	med, lo, hi := figureValue(f, st.Median, signed), figureValue(f, st.Min, signed), figureValue(f, st.Max, signed)
	cell := med
	if lo != hi {
		cell += "\n[" + lo + " – " + hi + "]"
	}
	if st.Missing > 0 {
		word := "missing"
		if f.Unit == "s" && !signed {
			word = "never"
		}
		cell += fmt.Sprintf("\n(%s in %d)", word, st.Missing)
	}
	return cell
}

// FigureValue formats one value of f as the sweep tables do (signed for a difference);
// goodput diff prints its figures with it.
func FigureValue(f trials.Figure, v float64, signed bool) string { return figureValue(f, v, signed) }

// figureValue formats one value of f: counts whole, ratios as percentages (differences of
// ratios in percentage points), attempts per offered as ×, milliseconds to 0.1, seconds whole.
func figureValue(f trials.Figure, v float64, signed bool) string {
	var s string
	switch f.Unit {
	case "ratio":
		s = Float(100*v, 1)
		if signed {
			s += " pp"
		} else {
			s += "%"
		}
	case "x":
		s = Float(v, 3) + "×"
	case "ms":
		s = Float(v, 1)
	case "s":
		s = Float(v, 0)
	default:
		s = Float(v, 0)
		if v != float64(int64(v)) && v < 1e6 && v > -1e6 {
			s = Float(v, 1) // a median between two counts
		}
	}
	if !signed || strings.Trim(s, "0.,% p×-") == "" {
		return s // a difference that rounds to zero has no sign
	}
	if strings.HasPrefix(s, "-") {
		return "−" + s[1:]
	}
	return "+" + s
}

// setByInputs is the "better in" cell of a figure identical in every trial for every arm
// ([trials.Summary.SetByInputs]): its difference is not a paired result. The table's
// note ([setByInputsWhy]) and the stacked layout spell it out; it is as narrow as the
// column's "better in" heading.
const setByInputs = "inputs"

// pairedCell is the "better in" cell of figure i of s, f, whose difference is st:
// [setByInputs] for a figure the seeds did not move, else [betterCell].
func pairedCell(s *trials.Summary, i int, f trials.Figure, st trials.DeltaStats) string {
	if s.SetByInputs(i) {
		return setByInputs
	}
	return betterCell(f, st)
}

// setByInputsWhy is what a figure marked [setByInputs] is, for the table's note and the
// page's.
const setByInputsWhy = "identical in every trial for every arm. The seeds' draws do not move such a figure, and its difference is not a paired result: it follows from the scenario's inputs (the fault timeline, a controller's holds and ramp)."

// anySetByInputs reports whether a figure the tables show of s is marked [setByInputs].
func anySetByInputs(s *trials.Summary) bool {
	if len(s.Deltas) == 0 {
		return false
	}
	for i := range s.Figures {
		if trials.Shown(i, s) && s.SetByInputs(i) {
			return true
		}
	}
	return false
}

// betterCell counts the trials in which the arm did better than the first ("10/10"), or
// says "same" when it did the same in every one.
func betterCell(f trials.Figure, st trials.DeltaStats) string {
	switch {
	case f.Better == 0 || st.N == 0:
		return ""
	case st.Same == st.N:
		return "same"
	}
	return fmt.Sprintf("%d/%d", st.Better, st.N)
}
