package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/goodput-lab/goodput/trials"
)

// Trials writes a sweep's summary: for every figure and arm, the median across the trials
// and their range, and for every arm after the first its difference from the first arm in
// the same trial (median, range, and in how many trials it was better), then the
// objectives' pass counts and any failed invariants.
func Trials(w io.Writer, s *trials.Summary) error {
	var out bytes.Buffer
	arms := s.Arms()
	armsWord := "arms"
	if len(arms) == 1 {
		armsWord = "arm"
	}
	fmt.Fprintf(&out, "goodput trials: %s   %s", s.Scenario, s.Seeds())
	if !s.Complete() {
		fmt.Fprintf(&out, "   shard %s: %d of %d trials", shardOf(s), len(s.Runs), s.Trials)
	} else {
		fmt.Fprintf(&out, "   %d trials", s.Trials)
	}
	fmt.Fprintf(&out, "   %d %s\n", len(arms), armsWord)
	if len(s.Set) > 0 {
		fmt.Fprintf(&out, "set: %s\n", strings.Join(s.Set, "; "))
	}
	if !legend(&out, s) {
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
			t.row(section)
		}
		row := []string{"  " + f.Label}
		for _, a := range s.Spread {
			row = append(row, spreadCell(f, a.Figures[i], false))
		}
		for _, d := range s.Deltas {
			st := d.Figures[i]
			row = append(row, spreadCell(f, st.Stats, true), betterCell(f, st))
		}
		t.row(row...)
	}
	if hasObjectives(s) {
		t.row("Objectives (trials passed: value)")
		for j, o := range s.Spread[0].Objectives {
			row := []string{"  " + o.Name}
			for _, a := range s.Spread {
				row = append(row, objectiveSpreadCell(a.Objectives[j]))
			}
			t.row(row...)
		}
	}
	row := []string{"Invariants (trials that held all)"}
	for _, a := range s.Spread {
		row = append(row, fmt.Sprintf("%d/%d", len(s.Runs)-a.InvariantFailures, len(s.Runs)))
	}
	t.row(row...)
	if err := t.flush(&out); err != nil {
		return err
	}
	for _, r := range s.Runs {
		for _, a := range r.Arms {
			for _, inv := range a.InvariantsFailed {
				fmt.Fprintf(&out, "\ninvariant failed: seed %d, %s: %s", r.Seed, a.Name, inv)
			}
		}
	}
	_, err := w.Write(out.Bytes())
	return err
}

// legend ends a sweep table's header: "no trials" (and false) for a summary without runs,
// else how to read the cells.
func legend(out *bytes.Buffer, s *trials.Summary) bool {
	if len(s.Runs) == 0 {
		out.WriteString("no trials\n")
		return false
	}
	out.WriteString("each cell: the median across trials [lowest – highest]")
	if arms := s.Arms(); len(arms) > 1 {
		fmt.Fprintf(out, "; a difference is an arm's figure less %s's in the same trial", arms[0])
	}
	out.WriteString("\n\n")
	return true
}

// spreadTable is the grid of a sweep's tables: a label column, a column per arm, and a
// difference and a "better in" column for each arm after the first.
type spreadTable struct {
	buf   bytes.Buffer
	tw    *tabwriter.Writer
	width int
}

// newSpreadTable starts a table with the arms of s as its header.
func newSpreadTable(s *trials.Summary) *spreadTable {
	t := &spreadTable{}
	t.tw = tabwriter.NewWriter(&t.buf, 0, 0, 3, ' ', 0)
	head := append([]string{""}, s.Arms()...)
	for _, d := range s.Deltas {
		head = append(head, d.Arm+" − "+d.Versus, "better in")
	}
	t.width = len(head)
	t.row(head...)
	return t
}

// row adds a line; missing cells are empty, so that every line has every column.
func (t *spreadTable) row(cells ...string) {
	for len(cells) < t.width {
		cells = append(cells, "")
	}
	fmt.Fprintln(t.tw, strings.Join(cells, "\t")+"\t")
}

// flush aligns the table and appends it to out without trailing blanks.
func (t *spreadTable) flush(out *bytes.Buffer) error {
	if err := t.tw.Flush(); err != nil {
		return err
	}
	for _, l := range strings.SplitAfter(t.buf.String(), "\n") {
		if l = strings.TrimRight(l, " \n"); l != "" {
			out.WriteString(l + "\n")
		}
	}
	return nil
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
			cell += " [" + lo + " – " + hi + "]"
		}
	case o.Censored > 0:
		cell += ": –"
	default:
		return cell + ": n/a"
	}
	if note != "" {
		cell += " (" + note + ")"
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
		cell += " [" + lo + " – " + hi + "]"
	}
	if st.Missing > 0 {
		word := "missing"
		if f.Unit == "s" && !signed {
			word = "never"
		}
		cell += fmt.Sprintf(" (%s in %d)", word, st.Missing)
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
