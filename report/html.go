package report

import (
	"bytes"
	"cmp"
	"embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/goodput-lab/goodput/chart"
	"github.com/goodput-lab/goodput/packet"
)

// HTMLFile is the report's file name in a packet directory, beside packet.json, series.csv
// and events.jsonl.
const HTMLFile = "report.html"

//go:embed templates
var templateFS embed.FS

var pageTemplate = template.Must(template.New("report.html.tmpl").
	Funcs(template.FuncMap{"stateClass": stateClass, "constraintClass": constraintClass}).
	ParseFS(templateFS, "templates/report.html.tmpl"))

// style is the page's stylesheet, inlined so that the page stands alone.
var style = func() template.CSS {
	b, err := templateFS.ReadFile("templates/style.css")
	if err != nil {
		panic(err) // embedded at build time
	}
	return template.CSS(b)
}()

// reportStyle is the stylesheet and the report page's own rules.
var reportStyle = pageStyle("report.css")

// HTML writes the replay report of p: one self-contained page (no script, no request for
// anything outside it) that a browser shows and prints as it is. It holds the key figures
// of every arm; when the arms have them, a table of their cells (offered, goodput, failed
// over out and in, refused by the destination's grant, failovers) and one of the
// dependencies their circuit breakers guard (trips, reopens, closes, refused calls by
// reason, the first trip); line charts of the per-tick series on the run's clock, one line
// per arm (goodput against offered load, amplification, oldest queued work, completion
// latency p99, requests in flight, the admission limit the controller sets, and for each
// dependency its calls in service and the callers waiting for a connection), with the
// fault windows shaded and numbered markers for the faults, alerts and transitions (and on
// the first chart, where their labels clear the others, each cell's first failover and
// each guarded dependency's first breaker trip, at most four of each); under the first
// chart, each arm's binding constraint over time (the resource or control that limits
// goodput, [packet.Sample.Constraint]); each arm's load state over time; the numbered
// events; and every figure of the terminal table ([Table]) with the objectives and
// invariants marked.
//
// A chart that has the same value throughout, in every arm, is left out (the key figures
// give it), and so are the ticks of the drain after the run's end (their work is in the
// totals). Each chart's caption, also its accessible name, says where each line is lowest
// and highest. Like [Table], the page is a pure function of the packet: identical packets
// give identical bytes.
func HTML(w io.Writer, p *packet.Packet) error {
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, newPage(p)); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// page is what the template draws.
type page struct {
	Style       template.CSS
	Tool        string // goodput replay, or goodput lab for a packet with live arms
	Scenario    string
	Seed        uint64
	Summary     string // "40m0s simulated, tick 1s, from 2026-03-10T14:00:00Z"
	Set         string // the inputs changed with --set, "" for none
	Arms        []armView
	Key         []keyRow
	Parts       []partTable // the arms' cells and breakers, when they have any
	Charts      []*lineChart
	States      *stateChart
	Events      []eventRow
	Table       []htmlRow
	Transitions []transitionRow
	Notes       []string
	Failed      []string
	Files       []string

	// ConstraintStyle is the binding constraint's band's stylesheet, on a page that has
	// the band (and only there, so that a page without one is as it was before the band).
	ConstraintStyle template.CSS
}

type armView struct {
	Name  string
	Label string // the name, with the source in a packet that says it: "baseline (live)"
	// Source is the arm's source (live, replay) when the packet says it: the tables'
	// headers show it on a line of its own under the name, so four arms fit 1280 px.
	Source string
	Class  string // arm0, arm1 …: the line colour
	// Dashed marks a replay drawn beside its live arm, in the live arm's colour.
	Dashed bool
}

// Header is the arm's name for a table's header: escaped, with a line-break opportunity
// after each underscore, so that protected_replay wraps as protected_ / replay.
func (v armView) Header() template.HTML {
	return template.HTML(strings.ReplaceAll(template.HTMLEscapeString(v.Name), "_", "_<wbr>"))
}

// armViews names and colours arms: a replay beside its live arm ([packet.ReplayName])
// has the live arm's colour and a dashed line; an arm whose packet
// says its source has it in its label.
func armViews(arms []packet.Arm) []armView {
	out := make([]armView, len(arms))
	colour := 0
	for i, a := range arms {
		v := armView{Name: a.Name, Label: a.Name, Source: a.Source}
		if a.Source != "" {
			v.Label += " (" + a.Source + ")"
		}
		if a.Source == packet.SourceReplay {
			if j := slices.IndexFunc(arms[:i], func(l packet.Arm) bool { return l.IsLive() && packet.ReplayName(l.Name) == a.Name }); j >= 0 {
				v.Class, v.Dashed = out[j].Class, true
			}
		}
		if v.Class == "" {
			v.Class = armClass(colour)
			colour++
		}
		out[i] = v
	}
	return out
}

// keyRow is one figure of the key-figures table, a cell per arm.
type keyRow struct {
	Label string
	Cells []cell
}

type cell struct {
	Text  string
	Class string // pass, fail or ""
}

// htmlRow is a row of the full table: a section heading (Section set) or a figure with two
// cells (total, per second) per arm.
type htmlRow struct {
	Section string
	Label   string
	Indent  int
	Cells   []cell
}

type eventRow struct {
	N     int
	Clock string // "14:02:17"
	T     string // "137"
	Arms  string // "baseline", or "all arms"
	Kind  string
	Text  string
}

type transitionRow struct {
	Arm, Clock, T, From, To, Reason string
	Generation                      uint64
	Manual                          bool
}

// Columns is the number of columns of the full table: the label and two per arm.
func (pg *page) Columns() int { return 1 + 2*len(pg.Arms) }

func newPage(p *packet.Packet) *page {
	set := slices.Clone(p.Set)
	for _, a := range p.Arms {
		if len(a.Set) > 0 {
			set = append(set, "arm "+a.Name+": "+strings.Join(a.Set, ", "))
		}
	}
	pg := &page{Style: reportStyle, Scenario: p.Scenario, Seed: p.Seed, Summary: summary(p), Set: strings.Join(set, "; "),
		Files: []string{packet.JSONFile, packet.SeriesFile, packet.EventsFile}}
	if len(p.Arms) == 0 {
		return pg
	}
	pg.Arms = armViews(p.Arms)
	pg.Tool = tool(p.Arms)
	pg.Key = keyFigures(p.Arms)
	for _, b := range breakdowns(p.Arms) {
		pg.Parts = append(pg.Parts, b.table(pg.Arms))
	}
	events := mergeEvents(p.Arms)
	for i, e := range events {
		pg.Events = append(pg.Events, eventRow{N: i + 1, Clock: clock(e.At), T: Float(packet.Seconds(e.T), 0),
			Arms: e.arms, Kind: e.Kind, Text: e.Text})
	}
	axis := newTimeAxis(p.Arms)
	shown := markedEverywhere(events)
	marks := annotations{bands: faultBands(events, axis), markers: markers(events, axis, shown)}
	// The first chart also marks a few failover and breaker events.
	first := annotations{bands: marks.bands, markers: firstChartMarkers(events, axis, shown, notableEvents(p.Arms, events))}
	for _, def := range chartDefs(p.Arms) {
		m := marks
		if len(pg.Charts) == 0 {
			m = first
		}
		if c := layoutLineChart(def, p.Arms, pg.Arms, axis, m); c != nil {
			if len(pg.Charts) == 0 {
				// The first chart carries the binding constraint's band.
				if b := layoutConstraints(p.Arms, axis, c.H); b != nil {
					c.Constraints = b
					c.H += b.height()
					pg.ConstraintStyle = constraintStyle
				}
			}
			pg.Charts = append(pg.Charts, c)
		}
	}
	pg.States = layoutStates(p.Arms, axis)
	for _, r := range build(p.Arms).rows {
		pg.Table = append(pg.Table, htmlTableRow(r))
	}
	for _, a := range p.Arms {
		for _, x := range a.Transitions {
			pg.Transitions = append(pg.Transitions, transitionRow{Arm: a.Name, Clock: clock(x.At), T: Float(packet.Seconds(x.T), 1),
				From: x.From, To: x.To, Generation: x.Generation, Reason: x.Reason, Manual: x.Manual})
		}
		for _, o := range a.Objectives {
			if o.Note != "" {
				pg.Notes = append(pg.Notes, fmt.Sprintf("%s · %s: %s", a.Name, o.Name, o.Note))
			}
		}
		for _, inv := range a.Invariants {
			if !inv.Pass {
				pg.Failed = append(pg.Failed, fmt.Sprintf("%s · %s: %s", a.Name, inv.Name, inv.Message))
			}
		}
	}
	return pg
}

func armClass(i int) string { return fmt.Sprintf("arm%d", i%armColours) }

// armColours is the number of line colours the stylesheet defines (.arm0 … .arm5); more
// arms reuse them.
const armColours = 6

// clock is an instant as the charts label it: UTC, to the second.
func clock(t time.Time) string { return t.UTC().Format("15:04:05") }

// keyFigures are the figures the page opens with.
func keyFigures(arms []packet.Arm) []keyRow {
	row := func(label string, f func(a packet.Arm) cell) keyRow {
		r := keyRow{Label: label}
		for _, a := range arms {
			r.Cells = append(r.Cells, f(a))
		}
		return r
	}
	text := func(s string) cell { return cell{Text: s} }
	rows := []keyRow{
		row("goodput / offered", func(a packet.Arm) cell { return text(percent(a.Totals.Goodput, a.Totals.Offered)) }),
		row("goodput per second, mean over the run", func(a packet.Arm) cell { return text(perSecond(a.Totals.Goodput, a.Duration)) }),
		row("amplification (attempts per offered, the most amplified layer)", func(a packet.Arm) cell { return text(times(a.Amplification.Total)) }),
		row("completion latency mean, admitted requests (ms)", func(a packet.Arm) cell { return text(meanCell(a.Latency)) }),
		row("completion latency p99, admitted requests (ms)", func(a packet.Arm) cell { return text(msCell(a.Latency.Count, a.Latency.P99)) }),
		row("oldest queue age, highest sample (ms)", func(a packet.Arm) cell { return text(sampled(a, a.Queue.AgeMax)) }),
		row("duplicate mutations", func(a packet.Arm) cell { return text(Int(a.Duplicates.Total())) }),
		row("ambiguous", func(a packet.Arm) cell { return text(Int(a.Totals.Ambiguous)) }),
	}
	if slices.ContainsFunc(arms, func(a packet.Arm) bool { return len(a.Objectives) > 0 }) {
		rows = append(rows, row("objectives met", func(a packet.Arm) cell {
			met := 0
			for _, o := range a.Objectives {
				if o.Pass {
					met++
				}
			}
			c := cell{Text: fmt.Sprintf("%d of %d", met, len(a.Objectives)), Class: "pass"}
			if met < len(a.Objectives) {
				c.Class = "fail"
			}
			return c
		}))
	}
	return rows
}

// htmlTableRow turns a row of the terminal table into a row of the page's table: the
// label's indent becomes a level, and a cell that starts with ✓ or ✗ is marked.
func htmlTableRow(r tableRow) htmlRow {
	if r.cells == nil {
		return htmlRow{Section: r.label}
	}
	label := strings.TrimLeft(r.label, " ")
	h := htmlRow{Label: label, Indent: (len(r.label)-len(label))/2 - 1}
	for _, c := range r.cells {
		x := cell{Text: c}
		switch {
		case strings.HasPrefix(c, "✓"):
			x.Class = "pass"
		case strings.HasPrefix(c, "✗"):
			x.Class = "fail"
		}
		h.Cells = append(h.Cells, x)
	}
	return h
}

// event is an annotation or transition, merged across arms: faults happen in every arm
// alike and are listed once.
type event struct {
	packet.Event
	arms string
	last int // the index of the last arm merged in
}

// mergeEvents returns every arm's events in time order, an event that several arms share
// (same instant, kind and text) once, naming the arms it happened in.
func mergeEvents(arms []packet.Arm) []event {
	type same struct {
		t          time.Duration
		kind, text string
	}
	var all []event
	index := map[same]int{}
	for ai, a := range arms {
		for _, e := range a.Events {
			k := same{e.T, e.Kind, e.Text}
			if i, ok := index[k]; ok && all[i].last != ai {
				all[i].arms += ", " + a.Name
				all[i].last = ai
				continue
			}
			index[k] = len(all) // an arm's repeat of its own event is an event of its own
			all = append(all, event{Event: e, arms: a.Name, last: ai})
		}
	}
	slices.SortStableFunc(all, func(x, y event) int { return cmp.Compare(x.T, y.T) })
	if len(arms) > 1 {
		every := strings.Join(armNames(arms), ", ")
		for i := range all {
			if all[i].arms == every {
				all[i].arms = "all arms"
			}
		}
	}
	return all
}

func armNames(arms []packet.Arm) []string {
	n := make([]string, len(arms))
	for i, a := range arms {
		n[i] = a.Name
	}
	return n
}

// summary describes the run: "40m0s simulated, tick 1s, from 2026-03-10T14:00:00Z".
func summary(p *packet.Packet) string {
	if len(p.Arms) == 0 {
		return ""
	}
	a := p.Arms[0]
	span, tick := a.Duration, a.Tick
	how := "simulated"
	live := slices.ContainsFunc(p.Arms, func(a packet.Arm) bool { return a.IsLive() })
	switch {
	case live && slices.ContainsFunc(p.Arms, func(a packet.Arm) bool { return !a.IsLive() }):
		how = "run live and simulated"
	case live:
		how = "run live"
	}
	s := fmt.Sprintf("%v %s, tick %v", span, how, tick)
	if !a.Start.IsZero() {
		s += ", from " + a.Start.UTC().Format(time.RFC3339)
	}
	return s
}

// ---- line charts ----

// chartDef is one chart of the page: a value per tick per arm.
type chartDef struct {
	id, title, unit string
	// offered also draws the first arm's offered load, dashed, on the same axis.
	offered bool
	// value reads the plotted value of arm a's row r; ok is false when the row has none (a
	// tick not sampled, or with nothing to measure).
	value func(a *packet.Arm, r *packet.Row, tick time.Duration) (v float64, ok bool)
}

// chartDefs are the page's charts, in order: the fixed ones (the instances taking traffic
// among them), then the admission limit, for
// each dependency its calls in service and the callers waiting for a connection, and, when
// there are caches, their hit ratio and each one's entries.
func chartDefs(arms []packet.Arm) []chartDef {
	defs := []chartDef{
		{id: "goodput", title: "Goodput and offered load", unit: "/s", offered: true,
			value: func(_ *packet.Arm, r *packet.Row, tick time.Duration) (float64, bool) {
				return perTick(r.Goodput, tick), true
			}},
		{id: "amplification", title: "Attempts per offered request (most amplified layer)", unit: "×",
			value: func(_ *packet.Arm, r *packet.Row, _ time.Duration) (float64, bool) { return r.Amplification() }},
		{id: "queue-age", title: "Oldest queued work", unit: "ms",
			value: func(_ *packet.Arm, r *packet.Row, _ time.Duration) (float64, bool) {
				return float64(r.QueueAgeMax) / float64(time.Millisecond), r.Sampled
			}},
		{id: "latency", title: "Completion latency p99, requests answered or given up in the tick", unit: "ms",
			value: func(_ *packet.Arm, r *packet.Row, _ time.Duration) (float64, bool) {
				return float64(r.LatencyP99) / float64(time.Millisecond), r.LatencyP99 > 0 || r.LatencyP50 > 0
			}},
		{id: "in-flight", title: "Requests in flight", unit: "",
			value: func(_ *packet.Arm, r *packet.Row, _ time.Duration) (float64, bool) {
				return float64(r.InFlight), r.Sampled
			}},
		{id: "route-ready", title: "Instances taking traffic", unit: "",
			value: func(_ *packet.Arm, r *packet.Row, _ time.Duration) (float64, bool) {
				return float64(r.Instances.RouteReady), r.Sampled
			}},
		{id: "admission-limit", title: "Admission limit, as the controller sets it", unit: "",
			value: func(_ *packet.Arm, r *packet.Row, _ time.Duration) (float64, bool) {
				return float64(r.AdmissionLimit), r.Sampled && r.AdmissionLimit > 0
			}},
	}
	gauge := func(dep string, f func(packet.DependencyGauge) int) func(*packet.Arm, *packet.Row, time.Duration) (float64, bool) {
		return func(a *packet.Arm, r *packet.Row, _ time.Duration) (float64, bool) {
			j := slices.Index(a.DependencyNames, dep)
			if !r.Sampled || j < 0 || j >= len(r.Dependencies) {
				return 0, false
			}
			return float64(f(r.Dependencies[j])), true
		}
	}
	for _, dep := range union(arms, func(a packet.Arm) []string { return a.DependencyNames }) {
		defs = append(defs,
			chartDef{id: slug(dep) + "-in-service", title: "Calls in service at " + dep,
				value: gauge(dep, func(g packet.DependencyGauge) int { return g.InService })},
			chartDef{id: slug(dep) + "-waiting", title: "Callers waiting for a connection to " + dep,
				value: gauge(dep, func(g packet.DependencyGauge) int { return g.Waiting })})
	}
	caches := union(arms, func(a packet.Arm) []string { return a.CacheNames })
	if len(caches) > 0 {
		defs = append(defs, chartDef{id: "cache-hit-ratio", title: "Cache hit ratio, every cache's lookups in the tick", unit: "%",
			value: func(_ *packet.Arm, r *packet.Row, _ time.Duration) (float64, bool) {
				n := r.CacheHits + r.CacheMisses
				return 100 * float64(r.CacheHits) / float64(max(n, 1)), n > 0
			}})
	}
	for _, c := range caches {
		if !slices.ContainsFunc(arms, func(a packet.Arm) bool {
			return slices.ContainsFunc(a.Series, func(r packet.Row) bool { return len(r.CacheEntries) > 0 })
		}) {
			break // a recorder that never sampled its caches' entries
		}
		defs = append(defs, chartDef{id: slug(c) + "-entries", title: "Entries held in " + c + ", over every instance",
			value: func(a *packet.Arm, r *packet.Row, _ time.Duration) (float64, bool) {
				j := slices.Index(a.CacheNames, c)
				if !r.Sampled || j < 0 || j >= len(r.CacheEntries) {
					return 0, false
				}
				return float64(r.CacheEntries[j]), true
			}})
	}
	return defs
}

// slug makes a name part of an element ID: lower case, every run of characters other than
// letters and digits a hyphen.
func slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

func perTick(n int64, tick time.Duration) float64 { return float64(n) / tick.Seconds() }

// Geometry of a chart, in SVG user units (the chart scales to the page's width).
const (
	chartW, chartH      = 720.0, 240.0
	plotLeft, plotRight = 58.0, chartW - 22
	plotTop, plotBottom = 48.0, chartH - 26
	timeTicks           = 9
	markerGap           = 9.0 // events closer than this share one marker
	// Marker labels sit in rows above the plot: a label goes to the first row where it
	// clears the labels before it.
	labelRows, labelRowTop, labelRowStep = 3, 12.0, 14.0
)

// timeAxis maps the shared clock onto a chart's width.
type timeAxis struct {
	start    time.Time     // the wall instant of virtual time 0
	from, to time.Duration // the span shown
	tick     time.Duration
}

func newTimeAxis(arms []packet.Arm) timeAxis {
	a := arms[0]
	ax := timeAxis{start: a.Start, tick: a.Tick}
	if ax.tick <= 0 {
		ax.tick = time.Second
	}
	for _, a := range arms {
		ax.to = max(ax.to, a.Duration)
	}
	if ax.to == 0 { // a packet without its duration: as far as the series go
		for _, a := range arms {
			if n := len(a.Series); n > 0 {
				ax.to = max(ax.to, a.Series[n-1].T+ax.tick)
			}
		}
	}
	if ax.to <= ax.from {
		ax.to = ax.from + ax.tick
	}
	return ax
}

// rows returns the rows of a's series that the axis shows: the ticks of the run's clock,
// not those of the drain after its end (work finishing then is in the totals).
func (ax timeAxis) rows(a packet.Arm) []packet.Row {
	n := len(a.Series)
	for n > 0 && a.Series[n-1].T >= ax.to {
		n--
	}
	return a.Series[:n]
}

// ticks are the time labels under a chart, in UTC.
func (ax timeAxis) ticks() []xTick {
	var out []xTick
	for _, tk := range chart.TimeTicks(ax.start.Add(ax.from), ax.start.Add(ax.to), time.UTC, timeTicks) {
		out = append(out, xTick{X: chart.Round1(ax.x(tk.At.Sub(ax.start))), Label: tk.Label,
			Datetime: tk.At.UTC().Format(time.RFC3339)})
	}
	return out
}

// x is the horizontal coordinate of virtual time d.
func (ax timeAxis) x(d time.Duration) float64 {
	return plotLeft + (plotRight-plotLeft)*float64(d-ax.from)/float64(ax.to-ax.from)
}

// lineChart is a laid-out chart: every number is an SVG coordinate.
type lineChart struct {
	ID, Title, Unit string
	Caption         string // generated description: the accessible name and the figure caption
	W, H            float64
	PlotLeft        float64
	PlotRight       float64
	PlotTop         float64
	PlotBottom      float64
	Grid            []gridLine
	XTicks          []xTick
	Bands           []band
	Markers         []marker
	Lines           []seriesLine
	// Constraints is the binding constraint's band under the plot (the first chart's,
	// when an arm names constraints), or nil.
	Constraints *constraintBand
}

type gridLine struct {
	Y     float64
	Label string
}

type xTick struct {
	X        float64
	Label    string
	Datetime string
}

// band shades a fault's window.
type band struct {
	X, W  float64
	Title string
}

// marker is a dashed vertical line at one or more numbered events.
type marker struct {
	X, LabelY float64
	Label     string // "3" or "4–6": the events' numbers in the events table
	Title     string
}

type seriesLine struct {
	Name   string
	Class  string // arm0 … or offered
	Dashed bool   // a replay beside its live arm
	Points string // SVG points
}

// LabelX is where the gridline labels end, left of the plot.
func (c *lineChart) LabelX() float64 { return c.PlotLeft - 6 }

// TickY is the baseline of the time labels, under the plot.
func (c *lineChart) TickY() float64 { return c.PlotBottom + 18 }

// PlotHeight is the plot's height, for the fault bands.
func (c *lineChart) PlotHeight() float64 { return c.PlotBottom - c.PlotTop }

// MarkerTop is where a marker's dashed line starts, just under its label.
func (c *lineChart) MarkerTop(m marker) float64 { return m.LabelY + 4 }

// point is a value at a virtual time.
type point struct {
	t time.Duration
	v float64
}

// annotations are what every line chart draws behind its lines: the fault windows and
// the event markers.
type annotations struct {
	bands   []band
	markers []marker
}

// layoutLineChart lays out def over arms, or returns nil when no arm has a value for it or
// every value is the same.
func layoutLineChart(def chartDef, arms []packet.Arm, views []armView, ax timeAxis, marks annotations) *lineChart {
	type line struct {
		name, class string
		dashed      bool
		pts         []point
	}
	var lines []line
	if def.offered {
		l := line{name: "offered", class: "offered"}
		rows := ax.rows(arms[0])
		for i := range rows {
			l.pts = append(l.pts, point{rows[i].T, perTick(rows[i].Offered, ax.tick)})
		}
		lines = append(lines, l)
	}
	drawn := false
	for i, a := range arms {
		l := line{name: views[i].Label, class: views[i].Class, dashed: views[i].Dashed}
		rows := ax.rows(a)
		for j := range rows {
			r := &rows[j]
			if v, ok := def.value(&arms[i], r, ax.tick); ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
				l.pts = append(l.pts, point{r.T, v})
			}
		}
		drawn = drawn || len(l.pts) > 0
		lines = append(lines, l)
	}
	if !drawn {
		return nil
	}
	lo, hi := 0.0, math.Inf(-1)
	first, flat := math.NaN(), true
	for _, l := range lines {
		for _, p := range l.pts {
			lo, hi = min(lo, p.v), max(hi, p.v)
			if math.IsNaN(first) {
				first = p.v
			}
			flat = flat && p.v == first
		}
	}
	if flat {
		return nil // one value throughout, in every arm: the key figures say it
	}
	grid := chart.Gridlines(lo, hi)
	lo, hi = min(lo, grid[0]), max(hi, grid[len(grid)-1])
	c := &lineChart{ID: def.id, Title: def.title, Unit: def.unit, W: chartW, H: chartH,
		PlotLeft: plotLeft, PlotRight: plotRight, PlotTop: plotTop, PlotBottom: plotBottom}
	y := func(v float64) float64 { return plotBottom - (plotBottom-plotTop)*(v-lo)/(hi-lo) }
	for _, g := range grid {
		c.Grid = append(c.Grid, gridLine{Y: chart.Round1(y(g)), Label: axisNumber(g, def.unit)})
	}
	c.XTicks = ax.ticks()
	c.Bands, c.Markers = marks.bands, marks.markers
	// A tick's value is drawn at the middle of the tick.
	px := func(p point) float64 { return ax.x(p.t + ax.tick/2) }
	var caption []string
	for _, l := range lines {
		if len(l.pts) == 0 {
			continue
		}
		drawn := chart.Decimate(l.pts, int(plotRight-plotLeft), px, func(p point) float64 { return p.v })
		var b strings.Builder
		for i, p := range drawn {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(chart.Num(px(p)) + "," + chart.Num(y(p.v)))
		}
		c.Lines = append(c.Lines, seriesLine{Name: l.name, Class: l.class, Dashed: l.dashed, Points: b.String()})
		caption = append(caption, describeLine(l.name, l.pts, def.unit, ax))
	}
	c.Caption = strings.Join(caption, "; ") + "."
	return c
}

// describeLine says where a line is lowest and highest: "baseline from 0/s (14:02:37) to
// 10,350/s (14:20:00)".
func describeLine(name string, pts []point, unit string, ax timeAxis) string {
	lo, hi := pts[0], pts[0]
	for _, p := range pts[1:] {
		if p.v < lo.v {
			lo = p
		}
		if p.v > hi.v {
			hi = p
		}
	}
	at := func(p point) string { return clock(ax.start.Add(p.t)) }
	return fmt.Sprintf("%s from %s (%s) to %s (%s)", name, valueText(lo.v, unit), at(lo), valueText(hi.v, unit), at(hi))
}

// valueText writes a chart value with its unit, to three significant digits.
func valueText(v float64, unit string) string {
	s := trimZeros(Float(chart.RoundSig(v, 3), decimals(v)))
	switch unit {
	case "", "/s", "×":
		return s + unit
	}
	return s + " " + unit
}

// decimals is how many decimals three significant digits of v need.
func decimals(v float64) int {
	v = math.Abs(v)
	switch {
	case v == 0 || v >= 100:
		return 0
	case v >= 10:
		return 1
	case v >= 1:
		return 2
	}
	return 3
}

// axisNumber labels a gridline: millions as "4M", so that the label fits left of the plot.
func axisNumber(v float64, unit string) string {
	suffix := ""
	if math.Abs(v) >= 1e6 { // "4,000,000" would not fit left of the plot
		v, suffix = v/1e6, "M"
	}
	s := trimZeros(Float(v, decimals(v))) + suffix
	if unit == "×" {
		return s + "×"
	}
	return s
}

// faultBands shades the windows of faults that the events show starting and ending
// ("start: X" … "end: X").
func faultBands(events []event, ax timeAxis) []band {
	var out []band
	for i, e := range events {
		what, ok := strings.CutPrefix(e.Text, "start: ")
		if e.Kind != "fault" || !ok {
			continue
		}
		for _, f := range events[i+1:] {
			if f.Kind == "fault" && f.Text == "end: "+what && f.arms == e.arms {
				// The part of the window inside the run.
				x0 := max(ax.x(e.T), plotLeft)
				x1 := min(ax.x(f.T), plotRight)
				if x1 > x0 {
					out = append(out, band{X: chart.Round1(x0), W: chart.Round1(x1 - x0),
						Title: fmt.Sprintf("%s–%s %s", clock(e.At), clock(f.At), what)})
				}
				break
			}
		}
	}
	return out
}

// markers places one dashed line per group of shown events closer than markerGap on the
// chart, labelled with the events' numbers ("3", "4–6", or "4,7" for a group that leaves
// out an event between its own); labels that would overlap go to the next row. Events
// outside the charts' span (a drain's, after the end) have no marker. shown[i] says
// whether event i is marked; nil marks every event.
func markers(events []event, ax timeAxis, shown []bool) []marker {
	var out []marker
	var labels []chart.Label
	var titles []string
	var group []int // the numbers (indices) of the events in the group
	flush := func() {
		if len(titles) == 0 {
			return
		}
		x := chart.Round1(ax.x(events[group[0]].T))
		label := numberRuns(group)
		labels = append(labels, chart.Label{X: x, Width: markerLabelWidth(label)})
		out = append(out, marker{X: x, Label: label, Title: strings.Join(titles, "\n")})
		titles, group = titles[:0], group[:0]
	}
	for i, e := range events {
		t := e.T
		if t < ax.from || t > ax.to || shown != nil && !shown[i] {
			continue // listed in the events table, but outside the charts' span or not marked
		}
		x := ax.x(t)
		if len(titles) > 0 && x-ax.x(events[group[0]].T) >= markerGap {
			flush()
		}
		group = append(group, i)
		titles = append(titles, fmt.Sprintf("%d. %s %s: %s", i+1, clock(e.At), e.arms, e.Text))
	}
	flush()
	for i, p := range chart.PlaceLabels(labels, labelRows, math.Inf(-1), math.Inf(1)) {
		out[i].LabelY = labelRowTop + labelRowStep*float64(p.Row)
	}
	return out
}

// markerLabelWidth is the width of a marker's label: bold 11 px digits are about 6.5 px
// wide.
func markerLabelWidth(label string) float64 { return 7 * float64(len([]rune(label))) }

// numberRuns writes ascending event indices as their numbers in the events table, a run
// of consecutive ones as its first and last: [3 4 5 8] is "4–6,9".
func numberRuns(idx []int) string {
	var parts []string
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d–%d", idx[i]+1, idx[j]+1))
		} else {
			parts = append(parts, fmt.Sprint(idx[i]+1))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// ---- load states ----

// stateChart is a strip per arm that reports a load state, coloured by state.
type stateChart struct {
	W, H     float64
	Rows     []stateRow
	XTicks   []xTick
	TickY    float64
	Legend   []string // the states shown, in the machine's order
	Caption  string
	PlotLeft float64
}

type stateRow struct {
	Arm      string
	Y, H     float64
	LabelY   float64
	Segments []segment
}

type segment struct {
	X, W  float64
	State string
	Title string
}

// stateClass is the CSS class of a load state: state-normal, state-pressured,
// state-protected, state-recovering, or state-other for a state of another machine.
func stateClass(state string) string {
	if slices.Contains(stateOrder, state) {
		return "state-" + strings.ToLower(state)
	}
	return "state-other"
}

// stateOrder is the load-state machine's order, for the legend.
var stateOrder = []string{"Normal", "Pressured", "Protected", "Recovering"}

func layoutStates(arms []packet.Arm, ax timeAxis) *stateChart {
	const rowH, gap, top = 18.0, 8.0, 6.0
	sc := &stateChart{W: chartW, PlotLeft: plotLeft}
	seen := map[string]bool{}
	var caption []string
	for _, a := range arms {
		var segs []segment
		var spans []string
		var cur string
		var from time.Duration
		end := func(to time.Duration) {
			if cur == "" {
				return
			}
			x0, x1 := ax.x(from), ax.x(to)
			title := fmt.Sprintf("%s %s–%s", cur, clock(ax.start.Add(from)), clock(ax.start.Add(to)))
			segs = append(segs, segment{X: chart.Round1(x0), W: chart.Round1(x1 - x0), State: cur, Title: title})
			spans = append(spans, title)
		}
		rows := ax.rows(a)
		for j := range rows {
			r := &rows[j]
			state := ""
			if r.Sampled {
				state = r.State
			}
			if state != cur {
				end(r.T)
				cur, from = state, r.T
			}
		}
		if n := len(rows); n > 0 {
			end(min(rows[n-1].T+ax.tick, ax.to))
		}
		if len(segs) == 0 {
			continue
		}
		for _, s := range segs {
			seen[s.State] = true
		}
		y := top + float64(len(sc.Rows))*(rowH+gap)
		sc.Rows = append(sc.Rows, stateRow{Arm: a.Name, Y: y, H: rowH, LabelY: y + rowH/2 + 4, Segments: segs})
		caption = append(caption, a.Name+": "+strings.Join(spans, ", "))
	}
	if len(sc.Rows) == 0 {
		return nil
	}
	for _, s := range stateOrder {
		if seen[s] {
			sc.Legend = append(sc.Legend, s)
			delete(seen, s)
		}
	}
	sc.Legend = append(sc.Legend, sortedKeys(seen)...) // states of another machine

	sc.H = top + float64(len(sc.Rows))*(rowH+gap) + 20
	sc.TickY = sc.H - 6
	sc.XTicks = ax.ticks()
	sc.Caption = strings.Join(caption, "; ") + "."
	return sc
}

// LabelX is where the arm names end, left of the strips.
func (s *stateChart) LabelX() float64 { return s.PlotLeft - 6 }
