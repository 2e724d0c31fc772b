package incident

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/goodput-lab/goodput/chart"
)

// chartSize is the impact chart's geometry, in SVG user units (the chart scales to its
// container). The page carries a wide and a narrow layout and shows one by width, so that
// labels stay legible on a phone.
type chartSize struct {
	w, h                     float64
	left, right, top, bottom float64 // margins: gridline labels, marker labels, time labels
	ticks                    int     // the most time labels
}

var (
	chartWide   = chartSize{w: 640, h: 232, left: 46, right: 14, top: 40, bottom: 26, ticks: 6}
	chartNarrow = chartSize{w: 360, h: 250, left: 38, right: 10, top: 40, bottom: 26, ticks: 5}
)

// chartView is the impact chart, laid out: every number is an SVG coordinate.
type chartView struct {
	ID          string // element ID prefix, unique in the page
	Class       string // chart-wide or chart-narrow
	Title       string // the SVG <title>: what is plotted, over which window
	Caption     string // the generated description (alt text), shown as the figure caption
	W, H        float64
	PlotLeft    float64
	PlotRight   float64
	PlotTop     float64
	PlotBottom  float64
	Grid        []chartLine
	XTicks      []chartTick
	Area        string // SVG path data of the filled area under the series
	Line        string // SVG points of the series polyline
	Markers     []chartMarker
	Peak        *chartPeak
	Unit, Label string
}

type chartLine struct {
	Y     float64
	Label string
}

type chartTick struct {
	X        float64
	Label    string
	Datetime string
}

type chartMarker struct {
	X      float64
	LabelY float64
	Anchor string // text-anchor of the label
	LabelX float64
	Label  string // "detected 09:47"
}

type chartPeak struct {
	X, Y   float64
	LabelX float64
	LabelY float64
	Anchor string
	Label  string // "Peak 52%"
}

// chartSpec is everything the chart and its caption are drawn from, computed once.
type chartSpec struct {
	series    *Series
	loc       *time.Location
	gridlines []float64
	markers   []markerSpec
	peak      Point
	ratio     string // "nine times worse than when the alert fired", or ""
}

type markerSpec struct {
	name     string // milestone name
	at       time.Time
	value    float64
	inSeries bool // the instant lies within the series
	showVal  bool // the caption states the series value there
}

// chartMarkers returns the milestones drawn as markers: the series' declared markers,
// or, when it declares none, detected and mitigated (those the document records).
func (d *Document) chartMarkers() []string {
	var names []string
	if len(d.Series.Markers) > 0 {
		for _, m := range d.Series.Markers {
			names = append(names, m.Milestone)
		}
		return names
	}
	for _, n := range []string{MilestoneDetected, MilestoneMitigated} {
		if _, ok := d.Milestone(n); ok {
			names = append(names, n)
		}
	}
	return names
}

// chart computes the chart's data; ok is false when the document has no series points.
func (d *Document) chart() (chartSpec, bool) {
	s := d.Series
	if s == nil || len(s.Points) == 0 {
		return chartSpec{}, false
	}
	spec := chartSpec{series: s, loc: d.Location()}
	spec.peak, _ = s.Max()
	lo := math.Min(0, minValue(s.Points))
	spec.gridlines = s.Gridlines
	if len(spec.gridlines) == 0 {
		spec.gridlines = chart.Gridlines(lo, spec.peak.Value)
	}
	stated := map[string]bool{}
	for _, m := range s.Markers {
		if m.Value != nil {
			stated[m.Milestone] = true
		}
	}
	var detected *markerSpec
	for _, name := range d.chartMarkers() {
		at, ok := d.Instant(name)
		if !ok {
			continue
		}
		v, in := s.ValueAt(at)
		m := markerSpec{name: name, at: at, value: v, inSeries: in,
			showVal: in && (stated[name] || name == MilestoneDetected)}
		spec.markers = append(spec.markers, m)
		if name == MilestoneDetected {
			detected = &spec.markers[len(spec.markers)-1]
		}
	}
	if detected != nil && detected.inSeries && detected.value > 0 && spec.peak.At.After(detected.at) {
		if r := spec.peak.Value / detected.value; r >= 1.5 {
			since := "at detection"
			if m, ok := d.Milestone(MilestoneDetected); ok && mentionsAlert(m.Source) {
				since = "when the alert fired"
			}
			spec.ratio = fmt.Sprintf("%s times worse than %s", spellCount(math.Round(r)), since)
		}
	}
	return spec, true
}

func mentionsAlert(s string) bool {
	s = strings.ToLower(s)
	return strings.Contains(s, "alert") || strings.Contains(s, "page")
}

func minValue(pts []Point) float64 {
	m := pts[0].Value
	for _, p := range pts[1:] {
		m = math.Min(m, p.Value)
	}
	return m
}

// ChartCaption returns the impact chart's description, generated from the series, its
// gridlines and the milestones drawn on it, in the form
//
//	Gridlines 0/30/60%. Dashed: detected 09:47 at 6%, mitigated 13:01. Peak 52% — nine times worse than when the alert fired.
//
// The ratio is the series' peak over its value at detection, rounded to a whole number
// (spelled out up to ten) and left out below 1.5. An authored [Series.Caption] that says
// something else is appended as a sentence of its own. It returns "" when the document
// has no series points. The HTML page uses it as the chart's alt text and caption.
func (d *Document) ChartCaption() string {
	spec, ok := d.chart()
	if !ok {
		return ""
	}
	return d.chartCaption(spec)
}

func (d *Document) chartCaption(spec chartSpec) string {
	unit := spec.series.Unit
	var b strings.Builder
	grid := make([]string, len(spec.gridlines))
	for i, g := range spec.gridlines {
		grid[i] = FormatNumber(g)
	}
	fmt.Fprintf(&b, "Gridlines %s%s.", strings.Join(grid, "/"), unitSuffix(unit))
	if len(spec.markers) > 0 {
		parts := make([]string, len(spec.markers))
		for i, m := range spec.markers {
			parts[i] = milestoneWords(m.name) + " " + d.clock(m.at)
			if m.showVal {
				parts[i] += " at " + formatSeriesValue(m.value, unit)
			}
		}
		fmt.Fprintf(&b, " Dashed: %s.", strings.Join(parts, ", "))
	}
	fmt.Fprintf(&b, " Peak %s", formatSeriesValue(spec.peak.Value, unit))
	if spec.ratio != "" {
		b.WriteString(" — " + spec.ratio)
	}
	b.WriteString(".")
	if c := strings.TrimSpace(spec.series.Caption); c != "" {
		if exp, err := d.Expand(c); err == nil {
			c = exp
		}
		if !samePhrase(c, spec.ratio) {
			b.WriteString(" " + capitalise(strings.TrimSpace(c)))
			if !strings.HasSuffix(c, ".") && !strings.HasSuffix(c, "!") && !strings.HasSuffix(c, "?") {
				b.WriteString(".")
			}
		}
	}
	return b.String()
}

// samePhrase compares two phrases ignoring case, spacing and final punctuation.
func samePhrase(a, b string) bool {
	norm := func(s string) string {
		return strings.Join(strings.Fields(strings.TrimRight(strings.ToLower(s), ".!? ")), " ")
	}
	return norm(a) == norm(b)
}

// milestoneWords names a milestone in running text: "impact start", "detected".
func milestoneWords(name string) string { return strings.ReplaceAll(name, "_", " ") }

// unitSuffix is the unit as written after a number: "%" directly, others after a space.
func unitSuffix(unit string) string {
	switch unit {
	case "":
		return ""
	case "%":
		return "%"
	}
	return " " + unit
}

// formatSeriesValue formats a series value for a caption or label: percentages as
// [FormatPercent], other values to three significant digits.
func formatSeriesValue(v float64, unit string) string {
	if unit == "%" {
		return FormatPercent(v)
	}
	return FormatNumber(chart.RoundSig(v, 3)) + unitSuffix(unit)
}

// spellCount writes a whole number as a word up to ten ("nine"), in digits beyond.
func spellCount(n float64) string {
	words := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}
	if n >= 0 && n <= 10 {
		return words[int(n)]
	}
	return FormatNumber(n)
}

// layoutChart places the series, gridlines, markers, peak and time labels.
func (d *Document) layoutChart(spec chartSpec, id string, size chartSize) *chartView {
	s := spec.series
	pts := s.Points
	t0, t1 := pts[0].At, pts[len(pts)-1].At
	if !t1.After(t0) {
		t1 = t0.Add(time.Minute)
	}
	lo := math.Min(spec.gridlines[0], minValue(pts))
	hi := math.Max(spec.gridlines[len(spec.gridlines)-1], spec.peak.Value)
	if hi <= lo {
		hi = lo + 1
	}
	v := &chartView{ID: id, W: size.w, H: size.h, PlotLeft: size.left, PlotRight: size.w - size.right,
		PlotTop: size.top, PlotBottom: size.h - size.bottom, Unit: s.Unit, Label: s.Label}
	pw, ph := v.PlotRight-v.PlotLeft, v.PlotBottom-v.PlotTop
	x := func(t time.Time) float64 { return v.PlotLeft + pw*float64(t.Sub(t0))/float64(t1.Sub(t0)) }
	y := func(val float64) float64 { return v.PlotBottom - ph*(val-lo)/(hi-lo) }

	for _, g := range spec.gridlines {
		v.Grid = append(v.Grid, chartLine{Y: chart.Round1(y(g)), Label: FormatNumber(g) + unitSuffixShort(s.Unit)})
	}
	drawn := chart.Decimate(pts, int(pw), func(p Point) float64 { return x(p.At) }, func(p Point) float64 { return p.Value })
	var line, area strings.Builder
	base := y(math.Max(lo, math.Min(0, hi)))
	fmt.Fprintf(&area, "M%s,%s", chart.Num(x(drawn[0].At)), chart.Num(base))
	for i, p := range drawn {
		if i > 0 {
			line.WriteByte(' ')
		}
		fmt.Fprintf(&line, "%s,%s", chart.Num(x(p.At)), chart.Num(y(p.Value)))
		fmt.Fprintf(&area, " L%s,%s", chart.Num(x(p.At)), chart.Num(y(p.Value)))
	}
	fmt.Fprintf(&area, " L%s,%s Z", chart.Num(x(drawn[len(drawn)-1].At)), chart.Num(base))
	v.Line, v.Area = line.String(), area.String()

	for _, tk := range chart.TimeTicks(t0, t1, spec.loc, size.ticks) {
		v.XTicks = append(v.XTicks, chartTick{X: chart.Round1(x(tk.At)), Label: tk.Label, Datetime: tk.At.UTC().Format(time.RFC3339)})
	}

	// Marker labels sit above the plot, on a second row when they would overlap.
	var labels []chart.Label
	var texts []string
	for _, m := range spec.markers {
		if !m.inSeries {
			continue
		}
		label := milestoneWords(m.name) + " " + d.clock(m.at)
		labels = append(labels, chart.Label{X: chart.Round1(x(m.at)), Width: 6.4 * float64(len([]rune(label)))})
		texts = append(texts, label)
	}
	for i, p := range chart.PlaceLabels(labels, 2, 2, size.w-2) {
		v.Markers = append(v.Markers, chartMarker{X: labels[i].X, LabelX: chart.Round1(p.X), LabelY: 14 + 13*float64(p.Row), Anchor: p.Anchor, Label: texts[i]})
	}

	px, py := chart.Round1(x(spec.peak.At)), chart.Round1(y(spec.peak.Value))
	pk := &chartPeak{X: px, Y: py, Label: "Peak " + formatSeriesValue(spec.peak.Value, s.Unit), LabelY: chart.Round1(py + 4)}
	if px > v.PlotRight-6.8*float64(len(pk.Label))-12 {
		pk.Anchor, pk.LabelX = "end", chart.Round1(px-8)
	} else {
		pk.Anchor, pk.LabelX = "start", chart.Round1(px+8)
	}
	v.Peak = pk
	v.Title = fmt.Sprintf("Impact chart: %s (%s), %s – %s %s", cmpOr(s.Label, "impact"), cmpOr(s.Unit, "value"),
		t0.In(spec.loc).Format("15:04"), t1.In(spec.loc).Format("15:04"), spec.loc.String())
	v.Caption = d.chartCaption(spec)
	return v
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// unitSuffixShort is the unit on an axis label: "%" only; other units are in the title.
func unitSuffixShort(unit string) string {
	if unit == "%" {
		return "%"
	}
	return ""
}

// RenderChartSVG writes the impact chart as a standalone SVG file (for Markdown pages,
// see [RenderOptions.ChartHref]). It returns an error when the document has no series
// points.
func RenderChartSVG(w io.Writer, doc *Document) error {
	spec, ok := doc.chart()
	if !ok {
		return fmt.Errorf("incident: %s has no impact series to draw", doc.name())
	}
	var buf bytes.Buffer
	buf.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	if err := templates.ExecuteTemplate(&buf, "chart-file", doc.layoutChart(spec, "chart", chartWide)); err != nil {
		return fmt.Errorf("incident: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// LabelX is where the gridline labels end, left of the plot.
func (v *chartView) LabelX() float64 { return v.PlotLeft - 6 }

// TickY is the baseline of the time labels, under the plot.
func (v *chartView) TickY() float64 { return v.PlotBottom + 18 }

// MarkerTop is where a marker's dashed line starts, just under its label.
func (v *chartView) MarkerTop(labelY float64) float64 { return labelY + 5 }
