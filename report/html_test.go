package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/packet"
)

// annotated is the synthetic comparison with the events a replay writes: a fault that
// starts and ends in both arms, an alert in the baseline, and the protected arm's
// transitions (already among its events).
func annotated() *packet.Packet {
	p := comparison()
	start := p.Arms[0].Start
	ev := func(t float64, kind, text string) packet.Event {
		d := time.Duration(t * float64(time.Second))
		return packet.Event{At: start.Add(d), T: d, Kind: kind, Text: text}
	}
	for i := range p.Arms {
		a := &p.Arms[i]
		extra := []packet.Event{
			ev(3, "fault", "start: payment-risk service time p50 40ms p99 410ms (storage maintenance)"),
			ev(6, "fault", "end: payment-risk service time p50 40ms p99 410ms (storage maintenance)"),
		}
		if i == 0 {
			extra = append(extra, ev(4, "alert", "queue age fired: queue_age 900ms"))
		}
		for j := range extra {
			extra[j].Arm = a.Name
		}
		a.Events = append(a.Events, extra...)
		sortEvents(a.Events)
		// The binding constraint: the pool in the slowdown, then the baseline's queue.
		for j := range a.Series {
			c := "none"
			switch {
			case j == 3 || j >= 3 && j < 6 && i == 1:
				c = "pool:checkout->payment-risk"
			case j >= 4 && j < 7 && i == 0:
				c = "queue:checkout"
			}
			a.Series[j].Constraint = c
		}
	}
	return p
}

func sortEvents(es []packet.Event) {
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && es[j].T < es[j-1].T; j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}

func render(t *testing.T, p *packet.Packet) string {
	t.Helper()
	var b bytes.Buffer
	if err := HTML(&b, p); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestHTMLGolden(t *testing.T) {
	golden(t, "report.html", []byte(render(t, annotated())))
}

func TestHTMLDeterministic(t *testing.T) {
	if render(t, annotated()) != render(t, annotated()) {
		t.Error("two renders of one packet differ")
	}
}

var svgRe = regexp.MustCompile(`(?s)<svg class="chart".*?</svg>`)

// TestHTMLCharts checks the charts' content against the packet: one line per arm (and the
// offered load on the goodput chart) with a point per tick inside the plot, the fault
// window shaded, and a marker per event, numbered as in the events table.
func TestHTMLCharts(t *testing.T) {
	p := annotated()
	page := render(t, p)
	svgs := svgRe.FindAllString(page, -1)
	if len(svgs) == 0 {
		t.Fatal("no charts")
	}
	for _, s := range svgs {
		// Inline SVG must be well-formed XML to be drawn the same everywhere.
		if err := wellFormed(s); err != nil {
			t.Errorf("chart is not well-formed: %v\n%s", err, s)
		}
	}
	goodput := chartSVG(t, page, "goodput")
	lines := regexp.MustCompile(`<polyline class="line ([a-z0-9]+)" points="([^"]*)"><title>([^<]*)</title>`).FindAllStringSubmatch(goodput, -1)
	var names []string
	for _, l := range lines {
		names = append(names, l[3])
		pts := strings.Fields(l[2])
		if ticks := int(p.Arms[0].Duration / p.Arms[0].Tick); len(pts) != ticks {
			t.Errorf("line %s has %d points, want one per tick of the run (%d; the series has %d with the drain)",
				l[3], len(pts), ticks, len(p.Arms[0].Series))
		}
		for _, pt := range pts {
			x, y, _ := strings.Cut(pt, ",")
			if xf, yf := atof(t, x), atof(t, y); xf < plotLeft || xf > plotRight || yf < plotTop || yf > plotBottom {
				t.Errorf("line %s: point %s outside the plot", l[3], pt)
			}
		}
	}
	if got, want := strings.Join(names, " "), "offered baseline protected"; got != want {
		t.Errorf("goodput chart lines %q, want %q", got, want)
	}
	if n := strings.Count(goodput, `<rect class="band"`); n != 1 {
		t.Errorf("goodput chart has %d fault bands, want 1 (3 s to 6 s)", n)
	}
	// Events: the fault start (both arms), the transition at 3 s, the alert at 4 s, another
	// transition at 7 s, the fault end at 6 s. The start and the transition, both at 3 s,
	// share a marker.
	events := regexp.MustCompile(`<tr class="kind-[a-z]+"><td class="num">(\d+)</td>`).FindAllStringSubmatch(page, -1)
	var labels []string
	for _, m := range regexp.MustCompile(`<text class="marker-label"[^>]*>([^<]+)</text>`).FindAllStringSubmatch(goodput, -1) {
		labels = append(labels, m[1])
	}
	if len(events) != 5 {
		t.Fatalf("events table has %d rows, want 5", len(events))
	}
	if got, want := strings.Join(labels, " "), "1–2 3 4 5"; got != want {
		t.Errorf("marker labels %q, want %q", got, want)
	}
	if !strings.Contains(page, `<td>all arms</td><td>fault</td><td>start: payment-risk service time`) {
		t.Error("the fault both arms share is not listed once for all arms")
	}
	// Each dependency has its calls in service, for both arms; no arm has an admission
	// limit, so that chart is left out until one does, and then has that arm's line only.
	deps := chartSVG(t, page, "payment-risk-in-service")
	if n := strings.Count(deps, "<polyline"); n != 2 {
		t.Errorf("payment-risk in service: %d lines, want 2", n)
	}
	if strings.Contains(page, `id="chart-admission-limit"`) {
		t.Error("an admission-limit chart without a limit")
	}
	limited := annotated()
	for i := range limited.Arms[1].Series {
		limited.Arms[1].Series[i].AdmissionLimit = 800 + 10*i
	}
	limit := chartSVG(t, render(t, limited), "admission-limit")
	if n := strings.Count(limit, "<polyline"); n != 1 || !strings.Contains(limit, "<title>protected</title>") {
		t.Errorf("admission-limit chart: %d lines, want the protected arm's only", n)
	}
	// The instances taking traffic, for each arm that sampled any.
	if strings.Contains(page, `id="chart-route-ready"`) {
		t.Error("a chart of the instances taking traffic when no arm sampled any")
	}
	scaled := annotated()
	for a := range scaled.Arms {
		for i := range scaled.Arms[a].Series {
			scaled.Arms[a].Series[i].Instances.RouteReady = 4 + i/3 - a
		}
	}
	if ready := chartSVG(t, render(t, scaled), "route-ready"); strings.Count(ready, "<polyline") != 2 {
		t.Errorf("route-ready chart: %d lines, want one per arm", strings.Count(ready, "<polyline"))
	}
	// The load-state strip has the protected arm only, with its three spans.
	states := chartSVG(t, page, "load-state")
	if n := strings.Count(states, `<rect class="state-`); n != 3 {
		t.Errorf("load-state strip has %d segments, want 3 (Normal, Protected, Normal)", n)
	}
	if strings.Contains(states, ">baseline<") {
		t.Error("the baseline arm, which reports no load state, has a strip")
	}
}

// chartSVG returns the svg of the figure with id chart-ID.
func chartSVG(t *testing.T, page, id string) string {
	t.Helper()
	i := strings.Index(page, `<figure id="chart-`+id+`">`)
	if i < 0 {
		t.Fatalf("no chart %s", id)
	}
	s := svgRe.FindString(page[i:])
	if s == "" {
		t.Fatalf("chart %s has no svg", id)
	}
	return s
}

func atof(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func wellFormed(s string) error {
	d := xml.NewDecoder(strings.NewReader(s))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// TestHTMLSelfContained checks that the page asks for nothing outside itself: no script,
// no src, no stylesheet link, no url() in CSS, an empty inline icon (or the browser asks
// for /favicon.ico); its only links are to the packet's files beside it and to its own
// sections.
func TestHTMLSelfContained(t *testing.T) {
	page := render(t, annotated())
	const icon = `<link rel="icon" href="data:,">`
	if strings.Count(page, icon) != 1 {
		t.Errorf("page lacks %s", icon)
	}
	for _, bad := range []string{"<script", " src=", "<link", "url(", "@import", "http://", "https://"} {
		if strings.Contains(strings.Replace(page, icon, "", 1), bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	for _, m := range regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(strings.Replace(page, icon, "", 1), -1) {
		switch h := m[1]; h {
		case packet.JSONFile, packet.SeriesFile, packet.EventsFile:
		default:
			if !strings.HasPrefix(h, "#") {
				t.Errorf("link to %q", h)
			}
		}
	}
}

// TestHTMLEscapes checks that names and texts from the scenario cannot inject markup.
func TestHTMLEscapes(t *testing.T) {
	p := annotated()
	p.Scenario = `<script>alert("x")</script>`
	p.Arms[0].Events[0].Text = `start: <img onerror=x> & more`
	page := render(t, p)
	if strings.Contains(page, "<script>") || strings.Contains(page, "<img") {
		t.Errorf("markup from the packet reached the page unescaped")
	}
	if !strings.Contains(page, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;") {
		t.Error("the scenario name is not shown, escaped")
	}
}

// TestHTMLLongRun checks that a long run's lines are decimated to the plot's pixel
// columns, keeping each column's extremes, and that a chart whose every value is the same
// is left out.
func TestHTMLLongRun(t *testing.T) {
	start := time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC)
	a := packet.Arm{Name: "only", Start: start, Tick: time.Second, Duration: 5000 * time.Second}
	for i := range 5000 {
		r := packet.Row{T: time.Duration(i) * time.Second, Offered: 100, Goodput: 90, LayerAttempts: []int64{100}}
		if i == 2500 {
			r.Goodput = 7 // a dip that must survive
		}
		a.Series = append(a.Series, r)
	}
	page := render(t, &packet.Packet{Scenario: "long", Arms: []packet.Arm{a}})
	goodput := chartSVG(t, page, "goodput")
	m := regexp.MustCompile(`<polyline class="line arm0" points="([^"]*)"`).FindStringSubmatch(goodput)
	if m == nil {
		t.Fatal("no line for the arm")
	}
	pts := strings.Fields(m[1])
	if cols := int(plotRight - plotLeft); len(pts) > 2*cols+2 {
		t.Errorf("%d points for %d columns", len(pts), cols)
	}
	if !strings.Contains(page, "only from 7/s (14:41:40)") {
		t.Errorf("the caption misses the dip: %s", regexp.MustCompile(`only from[^.;]*`).FindString(page))
	}
	if strings.Contains(page, `id="chart-amplification"`) {
		t.Error("a flat amplification chart (1× throughout) was drawn")
	}
}

func TestHTMLNoArms(t *testing.T) {
	page := render(t, &packet.Packet{Scenario: "empty"})
	if !strings.Contains(page, "no arms") {
		t.Errorf("page for an empty packet: %s", page)
	}
}

func ExampleHTML() {
	start := time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC)
	arm := packet.Arm{Name: "baseline", Start: start, Tick: time.Second, Duration: 3 * time.Second}
	for i, goodput := range []int64{90, 40, 85} {
		arm.Series = append(arm.Series, packet.Row{T: time.Duration(i) * time.Second, Offered: 100, Goodput: goodput})
	}
	var page bytes.Buffer
	if err := HTML(&page, &packet.Packet{Scenario: "example", Seed: 1, Arms: []packet.Arm{arm}}); err != nil {
		panic(err)
	}
	caption := regexp.MustCompile(`<span id="chart-goodput-desc">([^<]*)</span>`).FindStringSubmatch(page.String())
	fmt.Println(caption[1])
	// Output:
	// offered from 100/s (14:00:00) to 100/s (14:00:00); baseline from 40/s (14:00:01) to 90/s (14:00:00).
}

// BenchmarkHTML renders the page of a packet the size of Northstar's: two arms of 2,400
// one-second ticks with every gauge sampled, and 40 events.
//
//	go test -run '^$' -bench HTML -benchmem ./report
func BenchmarkHTML(b *testing.B) {
	start := time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC)
	p := &packet.Packet{Scenario: "bench", Seed: 1}
	for ai, name := range []string{"baseline", "protected"} {
		a := packet.Arm{Name: name, Start: start, Tick: time.Second, Duration: 2400 * time.Second}
		for i := range 2400 {
			wave := int64(1000 * (1 + math.Sin(float64(i*(ai+1))/37)))
			a.Series = append(a.Series, packet.Row{T: time.Duration(i) * time.Second, Offered: 9000, Goodput: 7000 + wave,
				LayerAttempts: []int64{9000 + wave}, LatencyP50: 80 * time.Millisecond, LatencyP99: time.Duration(200+wave) * time.Millisecond,
				Sampled: true, Sample: packet.Sample{QueueAgeMax: time.Duration(wave) * time.Millisecond, InFlight: int(900 + wave), State: "Normal"}})
		}
		for i := range 20 {
			t := time.Duration(i*100) * time.Second
			a.Events = append(a.Events, packet.Event{At: start.Add(t), T: t, Arm: name, Kind: "alert", Text: fmt.Sprintf("alert %d", i)})
		}
		p.Arms = append(p.Arms, a)
	}
	b.ReportAllocs()
	var n int
	for b.Loop() {
		var buf bytes.Buffer
		if err := HTML(&buf, p); err != nil {
			b.Fatal(err)
		}
		n = buf.Len()
	}
	b.ReportMetric(float64(n), "page-bytes")
}

// TestHTMLRandomPackets renders 100 random packets — one to three arms, runs of no tick to
// a few hundred, gauges sampled or not, states, dependencies, events at any time including
// before the start and after the end, odd names — and checks what must hold for any
// packet: the page renders, every chart is well-formed SVG whose points and markers lie in
// its plot, and every event is listed.
func TestHTMLRandomPackets(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	start := time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC)
	states := []string{"", "Normal", "Pressured", "Protected", "Recovering", "Degraded"}
	kinds := []string{"fault", "alert", "transition", "drain"}
	pointRe := regexp.MustCompile(`points="([^"]*)"`)
	markerRe := regexp.MustCompile(`<line class="marker" x1="([^"]*)"`)
	for n := range 100 {
		p := &packet.Packet{Scenario: fmt.Sprintf("random <%d>", n), Seed: rng.Uint64()}
		tick := time.Duration(1+rng.IntN(5)) * 500 * time.Millisecond
		ticks := rng.IntN(300)
		events := map[string]bool{} // distinct events: one shared by arms is listed once
		for ai := range 1 + rng.IntN(3) {
			a := packet.Arm{Name: fmt.Sprintf("arm %d & co", ai), Start: start, Tick: tick,
				Duration: time.Duration(ticks) * tick, DependencyNames: []string{"db", "cache"}}
			for i := range ticks + rng.IntN(3) {
				r := packet.Row{T: time.Duration(i) * tick, Offered: rng.Int64N(1000), Goodput: rng.Int64N(1000),
					LayerAttempts: []int64{rng.Int64N(3000)}, LatencyP99: time.Duration(rng.Int64N(int64(3 * time.Second)))}
				if rng.IntN(4) > 0 {
					r.Sampled = true
					r.Sample = packet.Sample{QueueAgeMax: time.Duration(rng.Int64N(int64(5 * time.Second))), InFlight: rng.IntN(5000),
						State: states[rng.IntN(len(states))], AdmissionLimit: rng.IntN(2) * rng.IntN(9000)}
					r.Dependencies = []packet.DependencyGauge{{InService: rng.IntN(500), Waiting: rng.IntN(50)}}
				}
				a.Series = append(a.Series, r)
			}
			for range rng.IntN(12) {
				at := time.Duration((rng.Float64()*1.4 - 0.2) * float64(a.Duration))
				kind := kinds[rng.IntN(len(kinds))]
				text := []string{"start: slow db", "end: slow db", "queue <age> fired", ""}[rng.IntN(4)]
				a.Events = append(a.Events, packet.Event{At: start.Add(at), T: at, Arm: a.Name, Kind: kind, Text: text})
				events[fmt.Sprint(at, kind, text)] = true
			}
			sortEvents(a.Events)
			p.Arms = append(p.Arms, a)
		}
		var b bytes.Buffer
		if err := HTML(&b, p); err != nil {
			t.Fatalf("packet %d: %v", n, err)
		}
		page := b.String()
		for _, svg := range svgRe.FindAllString(page, -1) {
			if err := wellFormed(svg); err != nil {
				t.Fatalf("packet %d: chart is not well-formed: %v", n, err)
			}
			if !strings.Contains(svg, `class="line`) {
				continue // the load-state strip
			}
			for _, m := range pointRe.FindAllStringSubmatch(svg, -1) {
				for _, pt := range strings.Fields(m[1]) {
					x, y, _ := strings.Cut(pt, ",")
					if xf, yf := atof(t, x), atof(t, y); xf < plotLeft-0.1 || xf > plotRight+0.1 || yf < plotTop-0.1 || yf > plotBottom+0.1 {
						t.Fatalf("packet %d: point %s outside the plot", n, pt)
					}
				}
			}
			// Events outside the run are listed, but only those inside have a marker.
			for _, m := range markerRe.FindAllStringSubmatch(svg, -1) {
				if x := atof(t, m[1]); x < plotLeft-0.1 || x > plotRight+0.1 {
					t.Errorf("packet %d: marker at x=%v, outside the plot", n, x)
				}
			}
			for _, m := range regexp.MustCompile(`<rect class="band" x="([^"]*)" y="[^"]*" width="([^"]*)"`).FindAllStringSubmatch(svg, -1) {
				if x, w := atof(t, m[1]), atof(t, m[2]); x < plotLeft-0.1 || x+w > plotRight+0.1 || w <= 0 {
					t.Errorf("packet %d: fault band [%v, %v] outside the plot", n, x, x+w)
				}
			}
		}
		if got := strings.Count(page, `<tr class="kind-`); got != len(events) {
			t.Errorf("packet %d: %d event rows for %d distinct events", n, got, len(events))
		}
	}
}

func TestMergeEvents(t *testing.T) {
	ev := func(arm string, at float64, kind, text string) packet.Event {
		return packet.Event{T: time.Duration(at * float64(time.Second)), Arm: arm, Kind: kind, Text: text}
	}
	arms := []packet.Arm{
		{Name: "a", Events: []packet.Event{ev("a", 0, "fault", "start: x"), ev("a", 5, "alert", "fired"), ev("a", 5, "alert", "fired")}},
		{Name: "b", Events: []packet.Event{ev("b", 0, "fault", "start: x"), ev("b", 3, "transition", "up"), ev("b", 5, "alert", "fired")}},
	}
	var got []string
	for _, e := range mergeEvents(arms) {
		got = append(got, fmt.Sprintf("%v %s %s (%s)", e.T.Seconds(), e.Kind, e.Text, e.arms))
	}
	want := []string{
		"0 fault start: x (all arms)",
		"3 transition up (b)",
		"5 alert fired (a)",
		"5 alert fired (all arms)", // an arm's repeat of its own event stays an event of its own
	}
	if diff := strings.Join(got, "\n"); diff != strings.Join(want, "\n") {
		t.Errorf("merged events:\n%s\nwant:\n%s", diff, strings.Join(want, "\n"))
	}
}

func TestAxisNumber(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		unit string
		want string
	}{
		{0, "", "0"},
		{250, "", "250"},
		{2.5, "×", "2.5×"},
		{40000, "", "40,000"},
		{999999, "", "999,999"},
		{2e6, "", "2M"},
		{2.5e6, "", "2.5M"},
		{-4e6, "", "-4M"},
	} {
		if got := axisNumber(tt.v, tt.unit); got != tt.want {
			t.Errorf("axisNumber(%v, %q) = %q, want %q", tt.v, tt.unit, got, tt.want)
		}
	}
}

// TestHTMLLabGolden pins the page of a lab's packet: every arm drawn, the replays dashed
// in their live arm's colour, each arm's source in its label.
func TestHTMLLabGolden(t *testing.T) {
	page := render(t, labPacket())
	golden(t, "report-lab.html", []byte(page))
	if err := wellFormed(chartSVG(t, page, "goodput")); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<p class="kicker">goodput lab</p>`,
		`<line class="line arm0" x1="1" y1="6" x2="23" y2="6"/></svg>baseline (live)</span>`,
		`<line class="line arm0" stroke-dasharray="7 3" x1="1" y1="6" x2="23" y2="6"/></svg>baseline_replay (replay)</span>`,
		`<line class="line arm1" stroke-dasharray="7 3" x1="1" y1="6" x2="23" y2="6"/></svg>protected_replay (replay)</span>`,
		`<polyline class="line arm1" stroke-dasharray="7 3" points=`,
		`<title>protected (live)</title></polyline>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	goodput := chartSVG(t, page, "goodput")
	if n := strings.Count(goodput, "<polyline"); n != 5 {
		t.Errorf("the goodput chart has %d lines, want offered and the 4 arms'", n)
	}
	if strings.Contains(chartSVG(t, page, "queue-age"), "(live)") {
		t.Error("the queue-age chart draws a live arm, which samples no queue")
	}
}
