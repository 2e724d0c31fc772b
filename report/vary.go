package report

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/goodput-lab/goodput/trials"
)

// VaryGrid is a sweep run at every combination of the values of one or more inputs
// (goodput replay --vary, given once per input): the table ([Vary]) and the page
// ([VaryHTML]) show each figure across the combinations.
type VaryGrid struct {
	// Paths are the inputs varied, in the order given; Values[k] are the values of
	// Paths[k].
	Paths  []string
	Values [][]string
	// Sums holds one sweep per combination, in row-major order: the last input's value
	// changes fastest. Every sweep must have the same arms and seeds.
	Sums []*trials.Summary
	// Links are the combinations' pages (trials.html) relative to the grid's page, in the
	// order of Sums; nil when there are none.
	Links []string
}

// Combination returns the values of combination i, one per input.
func (g VaryGrid) Combination(i int) []string {
	vals := make([]string, len(g.Paths))
	for k := len(g.Paths) - 1; k >= 0; k-- {
		n := len(g.Values[k])
		vals[k] = g.Values[k][i%n]
		i /= n
	}
	return vals
}

// check reports a grid whose sweeps do not fit its inputs, or differ in arms or seeds,
// and whether every sweep has the same objectives.
func (g VaryGrid) check() (sameObjectives bool, err error) {
	n := 1
	for _, v := range g.Values {
		n *= len(v)
	}
	if len(g.Paths) == 0 || len(g.Values) != len(g.Paths) || n == 0 || len(g.Sums) != n || (g.Links != nil && len(g.Links) != n) {
		return false, fmt.Errorf("report: %d sweeps for %d inputs of %d combinations", len(g.Sums), len(g.Paths), n)
	}
	first := g.Sums[0]
	arms := first.Arms()
	sameObjectives = true
	for i, s := range g.Sums[1:] {
		at := g.label(i+1, "=")
		if got := s.Arms(); !slices.Equal(got, arms) {
			return false, fmt.Errorf("report: the sweep at %s has arms %v, at %s %v", at, got, g.label(0, "="), arms)
		}
		if !slices.EqualFunc(s.Runs, first.Runs, func(a, b trials.Trial) bool { return a.Seed == b.Seed }) {
			return false, fmt.Errorf("report: the sweep at %s ran %s, at %s %s", at, s.Seeds(), g.label(0, "="), first.Seeds())
		}
		sameObjectives = sameObjectives && len(s.Spread) > 0 && len(first.Spread) > 0 &&
			slices.EqualFunc(s.Spread[0].Objectives, first.Spread[0].Objectives, func(a, b trials.ObjectiveSpread) bool { return a.Name == b.Name })
	}
	return sameObjectives, nil
}

// Label names combination i as its overrides: "PATH=VALUE, PATH2=VALUE2".
func (g VaryGrid) Label(i int) string { return g.label(i, "=") }

// label names combination i: "PATH=VALUE, …" with sep "=", or its values alone ("7, 22")
// with sep "".
func (g VaryGrid) label(i int, sep string) string {
	vals := g.Combination(i)
	if sep == "" {
		return strings.Join(vals, ", ")
	}
	for k, v := range vals {
		vals[k] = g.Paths[k] + sep + v
	}
	return strings.Join(vals, ", ")
}

// setElsewhere lists the overrides every combination shares: the first sweep's, less
// the inputs varied.
func (g VaryGrid) setElsewhere() []string {
	var set []string
	for _, o := range g.Sums[0].Set {
		if !slices.ContainsFunc(g.Paths, func(p string) bool { return strings.HasPrefix(o, p+"=") }) {
			set = append(set, o)
		}
	}
	return set
}

// Vary writes the table of g: for every figure, a row per combination with each arm's
// median and range across the trials and each arm's difference from the first arm (its
// "better in" marked [setByInputs] where the seeds did not move the figure), then
// the objectives' pass counts by combination. When the combinations change the
// objectives, the table leaves them to each combination's page. It fits [DefaultWidth]
// columns; [Terminal.Vary] fits another width.
func Vary(w io.Writer, g VaryGrid) error { return varyTable(w, g, DefaultWidth) }

func varyTable(w io.Writer, g VaryGrid, width int) error {
	sameObjectives, err := g.check()
	if err != nil {
		return err
	}
	first := g.Sums[0]
	arms := first.Arms()
	head := make([]string, len(g.Paths))
	for k, p := range g.Paths {
		head[k] = p + " = " + strings.Join(g.Values[k], ", ")
	}
	var out bytes.Buffer
	each := plural(first.Trials, "trial") + " each"
	if !first.Complete() {
		each = fmt.Sprintf("shard %s: %d of %d trials each", shardOf(first), len(first.Runs), first.Trials)
	}
	parts := []string{"goodput vary: " + first.Scenario}
	for k, h := range head {
		if k > 0 {
			h = "×   " + h
		}
		parts = append(parts, h)
	}
	parts = append(parts, first.Seeds(), each, plural(len(arms), "arm"))
	headerLine(&out, width, parts...)
	if set := g.setElsewhere(); len(set) > 0 {
		writeWrapped(&out, "set: "+strings.Join(set, "; "), width)
	}
	if sameArmSets(g.Sums) {
		armSets(&out, first, width)
	} else {
		writeWrapped(&out, "the arms' sets differ by value: each value's trials.json has its own", width)
	}
	if !legend(&out, first, width) {
		_, err = w.Write(out.Bytes())
		return err
	}
	t := newSpreadTable(first)
	section := ""
	for i, f := range first.Figures {
		if !trials.Shown(i, g.Sums...) {
			continue
		}
		if f.Section != section {
			section = f.Section
			t.heading(section)
		}
		t.heading("  " + f.Label)
		for v, s := range g.Sums {
			var cells []string
			for _, a := range s.Spread {
				cells = append(cells, spreadCell(f, a.Figures[i], false))
			}
			for _, d := range s.Deltas {
				cells = append(cells, spreadCell(f, d.Figures[i].Stats, true), pairedCell(s, i, f, d.Figures[i]))
			}
			t.row("    "+g.label(v, ""), cells...)
		}
	}
	if hasObjectives(first) && !sameObjectives {
		t.heading("Objectives: not the same at every value; each value's trials.html has its own")
	} else if hasObjectives(first) {
		t.heading("Objectives (trials passed: value)")
		for j, o := range first.Spread[0].Objectives {
			t.heading("  " + objectiveName(o.Name, o.Statistic))
			for v, s := range g.Sums {
				var cells []string
				for _, a := range s.Spread {
					cells = append(cells, objectiveSpreadCell(a.Objectives[j]))
				}
				t.row("    "+g.label(v, ""), cells...)
			}
		}
	}
	if first.HasAlerts() && !sameAlerts(g.Sums) {
		t.heading("Alerts: not the same at every value; each value's trials.json has its own")
	} else if first.HasAlerts() {
		t.heading(sectionSweepAlerts)
		for _, name := range alertNames(first) {
			t.heading("  " + name)
			for v, s := range g.Sums {
				t.row("    "+g.label(v, ""), alertCells(s, name)...)
			}
		}
	}
	t.heading("Invariants (trials that held all)")
	for v, s := range g.Sums {
		var cells []string
		for _, a := range s.Spread {
			cells = append(cells, fmt.Sprintf("%d/%d", len(s.Runs)-a.InvariantFailures, len(s.Runs)))
		}
		t.row("    "+g.label(v, ""), cells...)
	}
	t.render(&out, width)
	if slices.ContainsFunc(g.Sums, anySetByInputs) {
		out.WriteByte('\n')
		writeWrapped(&out, "better in \""+setByInputs+"\": "+setByInputsWhy+" A value's cell is so marked when the figure is identical in every trial at that value.", width)
	}
	_, err = w.Write(out.Bytes())
	return err
}
