package report

import (
	"fmt"
	"html/template"
	"slices"
	"strings"
	"time"

	"github.com/goodput-lab/goodput/chart"
	"github.com/goodput-lab/goodput/packet"
)

// constraintBand is the band under the goodput chart that shows each arm's binding
// constraint ([packet.Sample.Constraint]) over time: a strip per arm that names one,
// coloured by the kind of constraint (workers, pool, dependency …) and labelled with the
// name where a stretch is wide enough.
type constraintBand struct {
	Top      float64 // where the band starts, under the chart's time labels
	Rows     []stateRow
	Labels   []constraintLabel
	Legend   []constraintKey
	Caption  string // each arm's constraints and the share of its ticks each held
	PlotLeft float64
}

// constraintLabel is a constraint's name written inside its stretch of a strip.
type constraintLabel struct {
	X, Y float64
	Text string
}

// constraintKey is one entry of the band's legend: a constraint named somewhere, with
// the class of its kind's colour.
type constraintKey struct {
	Name, Class string
}

// LabelX is where the arm names end, left of the strips.
func (b *constraintBand) LabelX() float64 { return b.PlotLeft - 6 }

// HeadingY is the baseline of the band's heading, above its strips.
func (b *constraintBand) HeadingY() float64 { return b.Top + 10 }

// constraintStyle is the band's stylesheet: a colour per kind of constraint.
var constraintStyle = func() template.CSS {
	b, err := templateFS.ReadFile("templates/constraint.css")
	if err != nil {
		panic(err) // embedded at build time
	}
	return template.CSS(b)
}()

// Geometry of the band, in the chart's units.
const (
	bandHeading = 14.0 // the heading's line
	bandRowH    = 14.0
	bandRowGap  = 4.0
	bandBottom  = 6.0
	labelCharW  = 6.2 // about the width of a character of the 11 px labels
)

// constraintKinds are the kinds of constraint the stylesheet colours, in the legend's
// order: along the request path from the edge, then none.
var constraintKinds = []string{"admission", "ready-capacity", "queue", "workers", "pool", "dependency", "cache-misses", "none"}

// constraintClass is the CSS class of a binding constraint's kind: constraint-pool for
// pool:checkout->payment-risk, constraint-none for none, constraint-other for a kind the
// stylesheet does not know.
func constraintClass(name string) string {
	kind, _, _ := strings.Cut(name, ":")
	if slices.Contains(constraintKinds, kind) {
		return "constraint-" + kind
	}
	return "constraint-other"
}

// layoutConstraints lays out the band of the arms that name binding constraints, starting
// at top, or returns nil when none does.
func layoutConstraints(arms []packet.Arm, ax timeAxis, top float64) *constraintBand {
	b := &constraintBand{Top: top, PlotLeft: plotLeft}
	seen := map[string]bool{}
	var caption []string
	y := top + bandHeading
	for _, a := range arms {
		var segs []segment
		var cur string
		var from time.Duration
		ticks := map[string]int{}
		var order []string // the names in the order the arm first names them
		end := func(to time.Duration) {
			if cur == "" {
				return
			}
			x0, x1 := ax.x(from), ax.x(to)
			title := fmt.Sprintf("%s %s–%s", cur, clock(ax.start.Add(from)), clock(ax.start.Add(to)))
			segs = append(segs, segment{X: chart.Round1(x0), W: chart.Round1(x1 - x0), State: cur, Title: title})
			if float64(len([]rune(cur)))*labelCharW+6 <= x1-x0 {
				b.Labels = append(b.Labels, constraintLabel{X: chart.Round1((x0 + x1) / 2), Y: y + bandRowH/2 + 4, Text: cur})
			}
		}
		rows := ax.rows(a)
		n := 0
		for j := range rows {
			r := &rows[j]
			name := ""
			if r.Sampled {
				name = r.Constraint
			}
			if name != "" {
				if ticks[name] == 0 {
					order = append(order, name)
				}
				ticks[name]++
				n++
			}
			if name != cur {
				end(r.T)
				cur, from = name, r.T
			}
		}
		if len(rows) > 0 {
			end(min(rows[len(rows)-1].T+ax.tick, ax.to))
		}
		if len(segs) == 0 {
			continue
		}
		for _, s := range segs {
			seen[s.State] = true
		}
		b.Rows = append(b.Rows, stateRow{Arm: a.Name, Y: y, H: bandRowH, LabelY: y + bandRowH/2 + 4, Segments: segs})
		y += bandRowH + bandRowGap
		// The caption says how long each constraint held, most ticks first.
		slices.SortStableFunc(order, func(p, q string) int { return ticks[q] - ticks[p] })
		var parts []string
		for _, name := range order {
			parts = append(parts, fmt.Sprintf("%s %s%% of ticks", name, Float(100*float64(ticks[name])/float64(n), 0)))
		}
		caption = append(caption, a.Name+": "+strings.Join(parts, ", "))
	}
	if len(b.Rows) == 0 {
		return nil
	}
	names := sortedKeys(seen)
	for _, kind := range append(slices.Clone(constraintKinds), "") {
		for _, name := range names {
			if k, _, _ := strings.Cut(name, ":"); k == kind || kind == "" && constraintClass(name) == "constraint-other" {
				b.Legend = append(b.Legend, constraintKey{Name: name, Class: constraintClass(name)})
			}
		}
	}
	b.Caption = "Binding constraint, " + strings.Join(caption, "; ") + "."
	return b
}

// height is how much the band adds under its chart.
func (b *constraintBand) height() float64 {
	return bandHeading + float64(len(b.Rows))*(bandRowH+bandRowGap) - bandRowGap + bandBottom
}
