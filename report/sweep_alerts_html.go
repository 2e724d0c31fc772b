package report

import (
	"strconv"
	"strings"

	"github.com/goodput-lab/goodput/trials"
)

// The sweep pages' Alerts blocks: the cells of the sweep tables' alert rows
// (alertNames, alertCells), split into the lines a page's cell draws.

// alertView is one arm's cell of an alert rule on a sweep page: the trials it fired in
// and the median of when it first fired (Main), the range beneath it (Small; none when
// the rule never fired or fired at one instant), "–" for an arm it is not evaluated on.
type alertView struct {
	Main  string
	Small []string
}

// trialAlert is one alert rule's row on the sweep page: a cell per arm.
type trialAlert struct {
	Name  string
	Cells []alertView
}

// alertViewOf splits a cell of alertCells into its lines.
func alertViewOf(cell string) alertView {
	lines := strings.Split(cell, "\n")
	return alertView{Main: lines[0], Small: lines[1:]}
}

// trialAlerts are the rows of s's alert rules, nil for a sweep without alerts.
func trialAlerts(s *trials.Summary) []trialAlert {
	if !s.HasAlerts() {
		return nil
	}
	var out []trialAlert
	for _, name := range alertNames(s) {
		row := trialAlert{Name: name}
		for _, c := range alertCells(s, name) {
			row.Cells = append(row.Cells, alertViewOf(c))
		}
		out = append(out, row)
	}
	return out
}

// alertGridCell is combination v's cell of the alert named name on arm a of grid g.
func alertGridCell(g VaryGrid, v, a int, name string) gridCell {
	av := alertViewOf(alertCells(g.Sums[v], name)[a])
	c := gridCell{Main: av.Main, Small: av.Small}
	if av.Main == "–" {
		c.Class = "missing"
	}
	return c
}

// varyAlerts are the grid page's alert figures, a grid per arm (one grid with a column
// per arm for one input) of each rule; nil for a grid without alerts or whose
// combinations have different rules (differ reports that).
func varyAlerts(g VaryGrid, arms []armView) (figs []varyFigure, differ bool) {
	first := g.Sums[0]
	if !first.HasAlerts() {
		return nil, false
	}
	if !sameAlerts(g.Sums) {
		return nil, true
	}
	for j, name := range alertNames(first) {
		fig := varyFigure{ID: "alert-" + strconv.Itoa(j+1), Label: name, Note: "trials fired: first fired, seconds from the start"}
		var cols []gridColumn
		for a, arm := range arms {
			cols = append(cols, gridColumn{arm.Name, arm.Class, "alert", func(v int) gridCell {
				return alertGridCell(g, v, a, name)
			}})
		}
		fig.Grids = gridViews(g, cols)
		figs = append(figs, fig)
	}
	return figs, false
}
