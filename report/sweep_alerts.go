package report

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/goodput-lab/goodput/trials"
)

// The sweep tables' rows for what a replay's table shows of each arm beside its figures:
// the inputs an arm's set: changes, and when each alert rule first fired.

// sectionSweepAlerts heads the alert rows of the sweep tables.
const sectionSweepAlerts = "Alerts (trials fired: first fired, seconds from the start)"

// armSets writes a line per arm of s that changes inputs (its set:), as the replay's
// table does: "arm fix sets: PATH=VALUE; …".
func armSets(out *bytes.Buffer, s *trials.Summary, width int) {
	for _, t := range armSetTexts(s) {
		writeWrapped(out, t, width)
	}
}

// armSetTexts are the lines of armSets, for the pages.
func armSetTexts(s *trials.Summary) []string {
	var out []string
	for _, a := range s.Spread {
		if len(a.Set) > 0 {
			out = append(out, "arm "+a.Arm+" sets: "+strings.Join(a.Set, "; "))
		}
	}
	return out
}

// alertSpreadCell gives the trials an alert fired in and the median and range of when it
// first fired over those: "4/5: 12.5 [11 – 14]", "0/5" when it never fired.
func alertSpreadCell(a trials.AlertSpread) string {
	cell := fmt.Sprintf("%d/%d", a.Fired, a.Of)
	st := a.FirstFired
	if st.N == 0 {
		return cell
	}
	sec := func(v float64) string { return trimZeros(Float(v, 3)) }
	cell += ": " + sec(st.Median)
	if lo, hi := sec(st.Min), sec(st.Max); lo != hi {
		cell += "\n[" + lo + " – " + hi + "]"
	}
	return cell
}

// alertNames are the alert rules of s's arms by name, in the scenario's order: every
// arm's, since a rule with arms: is evaluated on some arms only.
func alertNames(s *trials.Summary) []string {
	var names []string
	for _, a := range s.Spread {
		for _, al := range a.Alerts {
			if !slices.Contains(names, al.Name) {
				names = append(names, al.Name)
			}
		}
	}
	return names
}

// alertCells are the cells of the alert named name in s, one per arm: "–" for an arm the
// rule is not evaluated on, as the replay's table shows it.
func alertCells(s *trials.Summary, name string) []string {
	var cells []string
	for _, a := range s.Spread {
		cell := "–"
		if m := slices.IndexFunc(a.Alerts, func(al trials.AlertSpread) bool { return al.Name == name }); m >= 0 {
			cell = alertSpreadCell(a.Alerts[m])
		}
		cells = append(cells, cell)
	}
	return cells
}

// sameAlerts reports whether every sweep has the alert rules of the first, by name.
func sameAlerts(sums []*trials.Summary) bool {
	first := alertNames(sums[0])
	for _, s := range sums[1:] {
		if !slices.Equal(alertNames(s), first) {
			return false
		}
	}
	return true
}

// sameArmSets reports whether every sweep's arms have the sets of the first's.
func sameArmSets(sums []*trials.Summary) bool {
	for _, s := range sums[1:] {
		for j, a := range s.Spread {
			if j >= len(sums[0].Spread) || !slices.Equal(a.Set, sums[0].Spread[j].Set) {
				return false
			}
		}
	}
	return true
}
