package loadgen

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/goodput-lab/goodput/chart"
	"github.com/goodput-lab/goodput/report"
)

// Curve is a service's measured open-loop overload curve: one attack per offered rate,
// in increasing order, each of the same length. Write it with [Curve.WriteTable],
// [Curve.WriteCSV] and [Curve.WriteHTML].
type Curve struct {
	// Target is the URL attacked.
	Target string
	// Steps are the attacks, one per rate.
	Steps []CurveStep
}

// CurveStep is one attack of a [Curve]: its offered rate (per second) and its result.
type CurveStep struct {
	Rate   float64
	Result *Result
}

// curveRow is one step's figures: rates per second over the step's length, latencies.
type curveRow struct {
	rate                                                                         float64
	offered, sent, unsent, throughput, goodput, late, rejected, failed, attempts float64
	p50, p99, lateness                                                           time.Duration
}

func (s CurveStep) row() curveRow {
	t := s.Result.Total
	sec := s.Result.Duration.Seconds()
	per := func(n int64) float64 { return float64(n) / sec }
	return curveRow{rate: s.Rate, offered: per(t.Offered), sent: per(t.Sent), unsent: per(t.Unsent),
		throughput: per(t.Goodput + t.Late), goodput: per(t.Goodput), late: per(t.Late),
		rejected: per(t.Rejected), failed: per(t.Failed), attempts: per(t.Attempts),
		p50: t.Latency.P50, p99: t.Latency.P99, lateness: s.Result.Lateness.P99}
}

// curveColumns are the CSV's columns, one per curveRow field in order.
const curveColumns = "offered_rate_per_s,offered_per_s,sent_per_s,unsent_per_s,throughput_per_s,goodput_per_s,late_per_s,rejected_per_s,failed_per_s,attempts_per_s,latency_p50_ms,latency_p99_ms,lateness_p99_ms"

// WriteCSV writes one row per step: rates per second, latencies in milliseconds.
// Throughput is every 2xx (goodput and late); latency is from the intended send time.
func (c *Curve) WriteCSV(w io.Writer) error {
	b := []byte(curveColumns + "\n")
	for _, s := range c.Steps {
		r := s.row()
		for i, v := range []float64{r.rate, r.offered, r.sent, r.unsent, r.throughput, r.goodput, r.late, r.rejected, r.failed, r.attempts, ms(r.p50), ms(r.p99), ms(r.lateness)} {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendFloat(b, math.Round(v*1000)/1000, 'f', -1, 64)
		}
		b = append(b, '\n')
	}
	_, err := w.Write(b)
	return err
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// WriteTable writes the curve as a terminal table, a row per step.
func (c *Curve) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "offered/s\tsent/s\tunsent/s\tthroughput/s\tgoodput/s\tlate/s\trejected/s\tfailed/s\tattempts/s\tp50 ms\tp99 ms\tlateness p99 ms\t")
	for _, s := range c.Steps {
		r := s.row()
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", report.Float(r.rate, 0),
			report.Float(r.sent, 0), report.Float(r.unsent, 0), report.Float(r.throughput, 0), report.Float(r.goodput, 0),
			report.Float(r.late, 0), report.Float(r.rejected, 0), report.Float(r.failed, 0), report.Float(r.attempts, 0),
			report.Float(ms(r.p50), 1), report.Float(ms(r.p99), 1), report.Float(ms(r.lateness), 1))
	}
	return tw.Flush()
}

//go:embed templates/curve.html.tmpl
var templateFS embed.FS

var curveTemplate = template.Must(template.New("curve.html.tmpl").ParseFS(templateFS, "templates/curve.html.tmpl"))

// The charts' geometry, as the replay report's.
const (
	chartW, chartH      = 720.0, 240.0
	plotLeft, plotRight = 58.0, chartW - 22
	plotTop, plotBottom = 16.0, chartH - 30
)

type curvePage struct {
	Target, Meta string
	Charts       []curveChart
	Table        template.HTML
}

type curveChart struct {
	ID, Title, Unit, Caption                 string
	W, H                                     float64
	PlotLeft, PlotRight, PlotTop, PlotBottom float64
	Grid, XTicks                             []axisTick
	Lines                                    []curveLine
}

type axisTick struct {
	At    float64 // y of a gridline, x of a rate tick
	Label string
}

type curveLine struct {
	Name, Class, Points string
	Dots                []dot
}

type dot struct {
	X, Y  float64
	Title string
}

type lineDef struct {
	name, class string
	value       func(curveRow) float64
}

// WriteHTML writes the curve as a page that needs nothing else (SVG, no script): the
// rates (offered, throughput, goodput, attempts), the terminal outcomes and the latency
// percentiles, each by offered rate, and the table.
func (c *Curve) WriteHTML(w io.Writer) error {
	var rows []curveRow
	for _, s := range c.Steps {
		rows = append(rows, s.row())
	}
	p := curvePage{Target: c.Target}
	if len(c.Steps) > 0 {
		r := c.Steps[0].Result
		p.Meta = fmt.Sprintf("%d steps of %s each · at most %s in flight · seed %d", len(c.Steps), r.Duration, report.Int(int64(r.MaxInFlight)), r.Seed)
	}
	perS := func(f func(curveRow) float64) func(curveRow) float64 { return f }
	p.Charts = append(p.Charts,
		layoutCurve("rates", "Throughput and goodput by offered rate", "/s", rows, []lineDef{
			{"offered", "offered", perS(func(r curveRow) float64 { return r.offered })},
			{"attempts", "arm3", perS(func(r curveRow) float64 { return r.attempts })},
			{"throughput (2xx)", "arm0", perS(func(r curveRow) float64 { return r.throughput })},
			{"goodput (2xx before the deadline)", "arm1", perS(func(r curveRow) float64 { return r.goodput })},
		}),
		layoutCurve("outcomes", "Terminal outcomes by offered rate", "/s", rows, []lineDef{
			{"goodput", "arm1", func(r curveRow) float64 { return r.goodput }},
			{"late", "arm5", func(r curveRow) float64 { return r.late }},
			{"rejected", "arm2", func(r curveRow) float64 { return r.rejected }},
			{"failed", "arm3", func(r curveRow) float64 { return r.failed }},
			{"unsent", "offered", func(r curveRow) float64 { return r.unsent }},
		}),
		layoutCurve("latency", "Latency from the intended send time by offered rate", "ms", rows, []lineDef{
			{"p50", "arm1", func(r curveRow) float64 { return ms(r.p50) }},
			{"p99", "arm0", func(r curveRow) float64 { return ms(r.p99) }},
			{"generator lateness p99", "offered", func(r curveRow) float64 { return ms(r.lateness) }},
		}),
	)
	var tb bytes.Buffer
	if err := c.WriteTable(&tb); err != nil {
		return err
	}
	p.Table = template.HTML("<pre>" + template.HTMLEscapeString(tb.String()) + "</pre>")
	var buf bytes.Buffer
	if err := curveTemplate.Execute(&buf, p); err != nil {
		return fmt.Errorf("loadgen: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

func layoutCurve(id, title, unit string, rows []curveRow, lines []lineDef) curveChart {
	c := curveChart{ID: id, Title: title, Unit: unit, W: chartW, H: chartH,
		PlotLeft: plotLeft, PlotRight: plotRight, PlotTop: plotTop, PlotBottom: plotBottom}
	xhi, yhi := 1.0, 1.0
	for _, r := range rows {
		xhi = max(xhi, r.rate)
		for _, l := range lines {
			yhi = max(yhi, l.value(r))
		}
	}
	xg, yg := chart.Gridlines(0, xhi), chart.Gridlines(0, yhi)
	xlo, xhi := xg[0], xg[len(xg)-1]
	ylo, yhi := yg[0], yg[len(yg)-1]
	x := func(v float64) float64 { return plotLeft + (plotRight-plotLeft)*(v-xlo)/(xhi-xlo) }
	y := func(v float64) float64 { return plotBottom - (plotBottom-plotTop)*(v-ylo)/(yhi-ylo) }
	for _, g := range yg {
		c.Grid = append(c.Grid, axisTick{At: chart.Round1(y(g)), Label: report.Float(g, decimalsFor(g))})
	}
	for _, g := range xg {
		c.XTicks = append(c.XTicks, axisTick{At: chart.Round1(x(g)), Label: report.Float(g, decimalsFor(g)) + "/s"})
	}
	var caption []string
	for _, l := range lines {
		cl := curveLine{Name: l.name, Class: l.class}
		var pts []string
		for _, r := range rows {
			v := l.value(r)
			pts = append(pts, chart.Num(x(r.rate))+","+chart.Num(y(v)))
			cl.Dots = append(cl.Dots, dot{X: chart.Round1(x(r.rate)), Y: chart.Round1(y(v)),
				Title: fmt.Sprintf("%s at %s/s offered: %s", l.name, report.Float(r.rate, 0), withUnit(v, unit))})
		}
		cl.Points = strings.Join(pts, " ")
		c.Lines = append(c.Lines, cl)
		if len(rows) > 0 {
			last := rows[len(rows)-1]
			caption = append(caption, fmt.Sprintf("%s %s at %s/s offered", l.name, withUnit(l.value(last), unit), report.Float(last.rate, 0)))
		}
	}
	c.Caption = strings.Join(caption, "; ") + "."
	return c
}

// withUnit writes v with its unit: "60/s", "700 ms".
func withUnit(v float64, unit string) string {
	s := report.Float(v, decimalsFor(v))
	if strings.HasPrefix(unit, "/") {
		return s + unit
	}
	return s + " " + unit
}

// decimalsFor is how many decimals a label of v needs: none from 10 up.
func decimalsFor(v float64) int {
	switch v = math.Abs(v); {
	case v == 0 || v >= 10:
		return 0
	case v >= 1:
		return 1
	}
	return 2
}
