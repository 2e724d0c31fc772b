package report

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"goodput/trials"
)

// Vary writes a sweep run at several values of one input (goodput replay --vary): for every
// figure, a row per value with each arm's median and range across the trials and each
// arm's difference from the first arm, then the objectives' pass counts by value. sums[i]
// is the sweep at values[i]; every sweep must have the same arms and seeds. When the
// values change the objectives, the table leaves them to each value's page.
func Vary(w io.Writer, path string, values []string, sums []*trials.Summary) error {
	if len(values) != len(sums) || len(sums) == 0 {
		return fmt.Errorf("report: %d values for %d sweeps", len(values), len(sums))
	}
	first := sums[0]
	arms := first.Arms()
	sameObjectives := true
	for i, s := range sums[1:] {
		if got := s.Arms(); !slices.Equal(got, arms) {
			return fmt.Errorf("report: the sweep at %s=%s has arms %v, at %s=%s %v", path, values[i+1], got, path, values[0], arms)
		}
		if !slices.EqualFunc(s.Runs, first.Runs, func(a, b trials.Trial) bool { return a.Seed == b.Seed }) {
			return fmt.Errorf("report: the sweep at %s=%s ran %s, at %s=%s %s", path, values[i+1], s.Seeds(), path, values[0], first.Seeds())
		}
		sameObjectives = sameObjectives && len(s.Spread) > 0 && len(first.Spread) > 0 &&
			slices.EqualFunc(s.Spread[0].Objectives, first.Spread[0].Objectives, func(a, b trials.ObjectiveSpread) bool { return a.Name == b.Name })
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "goodput vary: %s   %s = %s   %s", first.Scenario, path, strings.Join(values, ", "), first.Seeds())
	if first.Complete() {
		fmt.Fprintf(&out, "   %s each", plural(first.Trials, "trial"))
	} else {
		fmt.Fprintf(&out, "   shard %s: %d of %d trials each", shardOf(first), len(first.Runs), first.Trials)
	}
	fmt.Fprintf(&out, "   %s\n", plural(len(arms), "arm"))
	var set []string // the inputs set for every value, less the one varied
	for _, o := range first.Set {
		if !strings.HasPrefix(o, path+"=") {
			set = append(set, o)
		}
	}
	if len(set) > 0 {
		fmt.Fprintf(&out, "set: %s\n", strings.Join(set, "; "))
	}
	if !legend(&out, first) {
		_, err := w.Write(out.Bytes())
		return err
	}
	t := newSpreadTable(first)
	section := ""
	for i, f := range first.Figures {
		if f.Section != section {
			section = f.Section
			t.row(section)
		}
		t.row("  " + f.Label)
		for v, s := range sums {
			cells := []string{"    " + values[v]}
			for _, a := range s.Spread {
				cells = append(cells, spreadCell(f, a.Figures[i], false))
			}
			for _, d := range s.Deltas {
				cells = append(cells, spreadCell(f, d.Figures[i].Stats, true), betterCell(f, d.Figures[i]))
			}
			t.row(cells...)
		}
	}
	if hasObjectives(first) && !sameObjectives {
		t.row("Objectives: not the same at every value; each value's trials.html has its own")
	} else if hasObjectives(first) {
		t.row("Objectives (trials passed: value)")
		for j, o := range first.Spread[0].Objectives {
			t.row("  " + o.Name)
			for v, s := range sums {
				cells := []string{"    " + values[v]}
				for _, a := range s.Spread {
					cells = append(cells, objectiveSpreadCell(a.Objectives[j]))
				}
				t.row(cells...)
			}
		}
	}
	t.row("Invariants (trials that held all)")
	for v, s := range sums {
		cells := []string{"    " + values[v]}
		for _, a := range s.Spread {
			cells = append(cells, fmt.Sprintf("%d/%d", len(s.Runs)-a.InvariantFailures, len(s.Runs)))
		}
		t.row(cells...)
	}
	if err := t.flush(&out); err != nil {
		return err
	}
	_, err := w.Write(out.Bytes())
	return err
}
