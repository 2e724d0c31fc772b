package report

import (
	"strings"
	"testing"

	"github.com/goodput-lab/goodput/trials"
)

// scopeAlert adds to arm 0 of s a rule the other arms do not evaluate (arms:), fired in
// none of the trials.
func scopeAlert(s *trials.Summary) {
	s.Spread[0].Alerts = append(s.Spread[0].Alerts, trials.AlertSpread{Name: "baseline only", Of: len(s.Runs), FirstFired: trials.Stats{Missing: len(s.Runs)}})
}

// The sweep page shows the alert rules as the sweep table does: a row per rule, the trials
// it fired in and the median first firing, the range beneath, – for an arm the rule is
// scoped off; a sweep without alerts has no Alerts block (trials.html is unchanged).
func TestTrialsHTMLAlerts(t *testing.T) {
	s := alertSweep(t, trials.Config{Scenario: "synthetic", FirstSeed: 1, Trials: 5}, 0)
	scopeAlert(s)
	page := renderTrials(t, s)
	golden(t, "trials-alerts.html", []byte(page))
	for _, want := range []string{
		"<h2>Alerts</h2>",
		`<tr><th scope="row">queue age</th><td>5/5: 3.25<br><small>[3 – 3.75]</small></td><td>3/5: 5</td></tr>`,
		`<tr><th scope="row">pool exhausted</th><td>0/5</td><td>0/5</td></tr>`,
		`<tr><th scope="row">baseline only</th><td>0/5</td><td>–</td></tr>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if page := renderTrials(t, sweep(t, trials.Config{Scenario: "synthetic", FirstSeed: 1, Trials: 5})); strings.Contains(page, "Alerts") {
		t.Error("a sweep without alerts has an Alerts block")
	}
}

// alertGrid is a grid of x.y = 1, 2 over the alerted sweeps, the second shifted 10 s.
func alertGrid(t *testing.T) VaryGrid {
	g := VaryGrid{Paths: []string{"x.y"}, Values: [][]string{{"1", "2"}}, Links: []string{"00-1/trials.html", "01-2/trials.html"}}
	for i := range 2 {
		g.Sums = append(g.Sums, alertSweep(t, trials.Config{Scenario: "synthetic", Set: []string{"x.y=" + g.Values[0][i]}, FirstSeed: 1, Trials: 3}, 10*i))
	}
	return g
}

// The grid page has an Alerts section with a figure per rule and the cells of the grid's
// table (each linking to its combination's page), listed in the contents; when the
// combinations' rules differ, a note leaves them to each combination's page; a grid
// without alerts has no Alerts section.
func TestVaryHTMLAlerts(t *testing.T) {
	g := alertGrid(t)
	for _, s := range g.Sums {
		scopeAlert(s)
	}
	page := renderVary(t, g)
	golden(t, "vary-alerts.html", []byte(page))
	for _, want := range []string{
		`<a href="#objectives">Objectives</a> · <a href="#alerts">Alerts</a> · `,
		`<h2 id="alerts">Alerts</h2>`,
		`<h3 id="alert-1">queue age `,
		`<td><a href="00-1/trials.html">3/3: 3.5<br><small>[3.25 – 3.75]</small></a></td><td><a href="00-1/trials.html">2/3: 5</a></td>`,
		`<td><a href="01-2/trials.html">3/3: 13.5<br><small>[13.25 – 13.75]</small></a></td>`,
		`<h3 id="alert-3">baseline only `,
		`<td><a href="00-1/trials.html">0/3</a></td><td class="missing"><a href="00-1/trials.html">–</a></td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	g.Sums[1].Spread[0].Alerts = g.Sums[1].Spread[0].Alerts[:2]
	page = renderVary(t, g)
	if !strings.Contains(page, "The alert rules are not the same at every combination") || strings.Contains(page, `id="alert-1"`) {
		t.Error("rules that differ by combination are not left to the combinations' pages")
	}
	if page := renderVary(t, varyGrid(t, []string{"x.y"}, [][]string{{"1", "2"}})); strings.Contains(page, "Alerts") {
		t.Error("a grid without alerts has an Alerts section")
	}
}

// With two inputs, each rule has a grid per arm, as a figure does.
func TestVaryHTMLAlertGrids(t *testing.T) {
	g := VaryGrid{Paths: []string{"x.y", "z"}, Values: [][]string{{"1"}, {"a", "b"}}}
	for i := range 2 {
		g.Sums = append(g.Sums, alertSweep(t, trials.Config{Scenario: "synthetic", FirstSeed: 1, Trials: 3}, 10*i))
	}
	p := newVaryPage(g, true)
	if len(p.Alerts) != 2 {
		t.Fatalf("%d alert figures, want 2", len(p.Alerts))
	}
	f := p.Alerts[0]
	if len(f.Grids) != 2 || f.Grids[1].Caption != "protected" || f.Grids[0].Kind != "alert" {
		t.Fatalf("queue age: %d grids, %+v", len(f.Grids), f.Grids)
	}
	if c := f.Grids[0].Rows[0].Cells[1]; c.Main != "3/3: 13.5" || len(c.Small) != 1 || c.Small[0] != "[13.25 – 13.75]" {
		t.Errorf("baseline at z=b: %+v", c)
	}
}
