package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/goodput-lab/goodput/chart"
	"github.com/goodput-lab/goodput/scenario"
	"github.com/goodput-lab/goodput/trials"
)

// overloadCurve is the open-loop overload curve of a grid that varies one offered rate:
// a panel per figure, the offered rate across and each arm's median up, with the range of
// its trials as a band. [VaryHTML] draws it above the grids; newOverloadCurve lays it out.
type overloadCurve struct {
	Input  string // the path varied, a load rate
	Panels []curvePanel
}

// curvePanel is one figure's chart; every number is an SVG coordinate.
type curvePanel struct {
	ID, Title, Unit string
	Caption         string // each arm's medians: the accessible description and the caption
	W, H            float64
	PlotLeft        float64
	PlotRight       float64
	PlotTop         float64
	PlotBottom      float64
	Grid            []gridLine
	XTicks          []curveTick
	// Offered is the line where the figure equals the offered rate, on the panels of
	// completed work; nil on the others.
	Offered *curveSegment
	Arms    []curveArm
}

type curveTick struct {
	X     float64
	Label string
}

type curveSegment struct{ X1, Y1, X2, Y2 float64 }

// curveArm is one arm's line through its medians, its band from the lowest trial to the
// highest, and a dot at each median.
type curveArm struct {
	Name, Class string
	Band        string // SVG points: the highest values left to right, then the lowest back
	Line        string // SVG points
	Dots        []curveDot
}

type curveDot struct {
	X, Y  float64
	Title string
}

// LabelX is where the gridline labels end, left of the plot.
func (c *curvePanel) LabelX() float64 { return c.PlotLeft - 5 }

// TickY is the baseline of the rate labels, under the plot.
func (c *curvePanel) TickY() float64 { return c.PlotBottom + 15 }

// AxisY is the baseline of the horizontal axis' name, under the rate labels.
func (c *curvePanel) AxisY() float64 { return c.PlotBottom + 30 }

// Geometry of a panel, in SVG user units (a panel scales to its column's width).
const (
	curveW, curveH        = 400.0, 236.0
	curveLeft, curveRight = 48.0, curveW - 22
	curveTop, curveBottom = 10.0, curveH - 40
	curveListed           = 8 // a caption lists every median up to this many rates
)

// curveFigure is a panel's figure: the sum of figures of a trial, per second of the run
// when perSecond (a count over the run × the offered rate ÷ the run's offered count).
type curveFigure struct {
	id, title, unit string
	keys            []string
	perSecond       bool
	offered         bool // draw the line where the figure equals the offered rate
}

// curveFigures are the panels, in order: what the case study asks of every service's
// curve — throughput, goodput, queue age and the terminal outcomes.
var curveFigures = []curveFigure{
	{"completed", "Throughput: completed (goodput and late)", "/s", []string{"goodput", "late"}, true, true},
	{"goodput", "Goodput", "/s", []string{"goodput"}, true, true},
	{"queue-age", "Oldest queue age, max", "ms", []string{"queue_age_max_ms"}, false, false},
	{"rejected", "Rejected", "/s", []string{"rejected"}, true, false},
	{"late", "Late", "/s", []string{"late"}, true, false},
	{"expired", "Expired", "/s", []string{"expired"}, true, false},
	{"failed", "Failed", "/s", []string{"failed"}, true, false},
}

// offeredRates returns the offered rates of a grid that varies one offered rate — a path
// under load (load.schedule.N.rate) with at least two values, each a rate — in
// requests per second; nil for any other grid.
func offeredRates(g VaryGrid) []float64 {
	if len(g.Paths) != 1 || !strings.HasPrefix(g.Paths[0], "load.") || len(g.Values[0]) < 2 {
		return nil
	}
	rates := make([]float64, len(g.Values[0]))
	for i, v := range g.Values[0] {
		r, err := scenario.ParseRate(v)
		if err != nil {
			return nil
		}
		rates[i] = r.PerSecond()
	}
	return rates
}

// newOverloadCurve lays out the overload curve of g, or returns nil when g does not vary
// one offered rate or has no trials.
func newOverloadCurve(g VaryGrid) *overloadCurve {
	rates := offeredRates(g)
	if rates == nil || len(g.Sums[0].Runs) == 0 {
		return nil
	}
	// The rates in increasing order, as the combinations' indices.
	order := make([]int, len(rates))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(rates[a], rates[b]) })
	xlo, xhi := rates[order[0]], rates[order[len(order)-1]]
	if !(xhi > xlo) {
		return nil // one rate, spelled several ways: no curve to draw
	}
	xgrid := chart.Gridlines(xlo, xhi)
	xlo, xhi = min(xlo, xgrid[0]), max(xhi, xgrid[len(xgrid)-1])
	px := func(x float64) float64 { return curveLeft + (curveRight-curveLeft)*(x-xlo)/(xhi-xlo) }

	c := &overloadCurve{Input: g.Paths[0]}
	arms := g.Sums[0].Arms()
	for _, f := range curveFigures {
		p := curvePanel{ID: f.id, Title: f.title, Unit: f.unit, W: curveW, H: curveH,
			PlotLeft: curveLeft, PlotRight: curveRight, PlotTop: curveTop, PlotBottom: curveBottom}
		// Each arm's spread at each rate, in the rates' order.
		spread := make([][]trials.Stats, len(arms))
		hi := 0.0
		for a := range arms {
			for _, v := range order {
				st := curveStats(g.Sums[v], a, f, rates[v])
				spread[a] = append(spread[a], st)
				if st.N > 0 {
					hi = max(hi, st.Max)
				}
			}
		}
		if f.offered {
			hi = max(hi, xhi)
		}
		ygrid := chart.Gridlines(0, hi)
		ylo, yhi := min(0, ygrid[0]), max(hi, ygrid[len(ygrid)-1])
		py := func(y float64) float64 { return curveBottom - (curveBottom-curveTop)*(y-ylo)/(yhi-ylo) }
		for _, y := range ygrid {
			p.Grid = append(p.Grid, gridLine{Y: chart.Round1(py(y)), Label: axisNumber(y, f.unit)})
		}
		for _, x := range xgrid {
			p.XTicks = append(p.XTicks, curveTick{X: chart.Round1(px(x)), Label: axisNumber(x, "")})
		}
		if f.offered {
			p.Offered = &curveSegment{X1: chart.Round1(px(xlo)), Y1: chart.Round1(py(xlo)), X2: chart.Round1(px(xhi)), Y2: chart.Round1(py(xhi))}
		}
		var caption []string
		for a, name := range arms {
			ca := curveArm{Name: name, Class: armClass(a)}
			var upper, lower, line, said []string
			for k, st := range spread[a] {
				if st.N == 0 {
					continue
				}
				x, rate := px(rates[order[k]]), valueText(rates[order[k]], "/s")
				pt := func(y float64) string { return chart.Num(x) + "," + chart.Num(py(y)) }
				upper, lower, line = append(upper, pt(st.Max)), append(lower, pt(st.Min)), append(line, pt(st.Median))
				title := fmt.Sprintf("%s at %s: %s", name, rate, valueText(st.Median, f.unit))
				if st.Min != st.Max {
					title += fmt.Sprintf(" (trials %s – %s)", valueText(st.Min, f.unit), valueText(st.Max, f.unit))
				}
				ca.Dots = append(ca.Dots, curveDot{X: chart.Round1(x), Y: chart.Round1(py(st.Median)), Title: title})
				said = append(said, valueText(st.Median, f.unit)+" at "+rate)
			}
			if len(line) == 0 {
				continue
			}
			slices.Reverse(lower)
			ca.Band = strings.Join(append(upper, lower...), " ")
			ca.Line = strings.Join(line, " ")
			p.Arms = append(p.Arms, ca)
			if len(said) > curveListed {
				said = []string{said[0], "…", said[len(said)-1]}
			}
			caption = append(caption, name+" "+strings.Join(said, ", "))
		}
		if len(p.Arms) == 0 {
			continue // no trial measured it
		}
		p.Caption = "Median " + strings.Join(caption, "; ") + "."
		c.Panels = append(c.Panels, p)
	}
	if len(c.Panels) == 0 {
		return nil
	}
	return c
}

// curveStats is the spread over the trials of s of figure f of arm a, at offered rate
// rate: each trial's sum of f's figures, per second of the run when f is a rate. A trial
// missing one of them, or (for a rate) its offered count, is missing.
func curveStats(s *trials.Summary, a int, f curveFigure, rate float64) trials.Stats {
	vals := make([]*float64, len(s.Runs))
	for r, run := range s.Runs {
		figs := run.Arms[a].Figures
		sum, ok := 0.0, true
		for _, k := range f.keys {
			if v := figs[k]; v != nil {
				sum += *v
			} else {
				ok = false
			}
		}
		if f.perSecond {
			if off := figs["offered"]; off != nil && *off > 0 {
				sum *= rate / *off
			} else {
				ok = false
			}
		}
		if ok && !math.IsNaN(sum) && !math.IsInf(sum, 0) {
			vals[r] = &sum
		}
	}
	return trials.StatsOf(f.id, vals)
}
