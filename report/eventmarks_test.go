package report

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/packet"
)

var (
	eventRowRe   = regexp.MustCompile(`<tr class="kind-[a-z]+"><td class="num">(\d+)</td><td><time>[^<]*</time></td><td class="num">[^<]*</td><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td></tr>`)
	markerTextRe = regexp.MustCompile(`<text class="marker-label"[^>]*>([^<]+)</text>`)
)

// eventNumbers maps "kind: text (arms)" of each row of the page's events table to its
// number (the first, for a text listed twice), and counts the rows.
func eventNumbers(page string) (map[string]string, int) {
	n := map[string]string{}
	rows := eventRowRe.FindAllStringSubmatch(page, -1)
	for _, m := range rows {
		if k := fmt.Sprintf("%s: %s (%s)", m[3], m[4], m[2]); n[k] == "" {
			n[k] = m[1]
		}
	}
	return n, len(rows)
}

func markerLabels(svg string) []string {
	var out []string
	for _, m := range markerTextRe.FindAllStringSubmatch(svg, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestHTMLNotableMarkers: the first chart marks each cell's first failover and each
// dependency's first breaker trip in each arm, beside the faults, alerts and transitions
// every chart marks; no chart marks the later failover and breaker events, which the
// events table lists.
func TestHTMLNotableMarkers(t *testing.T) {
	page := render(t, withParts())
	num, rows := eventNumbers(page)
	if rows != 17 {
		t.Fatalf("%d events listed, want 17 (5 of the annotated packet, 4 + 1 failovers merged to 4, 8 breaker)", len(num))
	}
	n := func(key string) string {
		t.Helper()
		s, ok := num[key]
		if !ok {
			t.Fatalf("no event %q among %v", key, num)
		}
		return s
	}
	westOut := n("failover: eu-west: fails over 100% of its traffic (success rate 40% below 90%) (all arms)")
	centralOut := n("failover: eu-central: fails over 100% of its traffic (success rate 60% below 90%) (baseline)")
	trip := n("breaker: payment-risk breaker of instance 0: Closed → Open (protected)")
	later := []string{
		n("failover: eu-central: fails back (success rate 100%, at or above 90% for 1s) (baseline)"),
		n("failover: eu-central: fails over 100% of its traffic (success rate 70% below 90%) (baseline)"),
		n("breaker: payment-risk breaker of instance 1: Closed → Open (protected)"),
		n("breaker: payment-risk breaker of instance 2: Closed → Open (protected)"),
	}
	// Faults, alerts and transitions: at 3 s (the fault's start and a transition), 4 s,
	// 6 s and 7 s.
	everywhere := []string{"1–2", n("alert: queue age fired: queue_age 900ms (baseline)"),
		n("fault: end: payment-risk service time p50 40ms p99 410ms (storage maintenance) (all arms)"),
		n("transition: signals clear (protected)")}
	if got, want := markerLabels(chartSVG(t, page, "goodput")), []string{"1–2", trip, westOut, everywhere[1], centralOut, everywhere[2], everywhere[3]}; !slices.Equal(got, want) {
		t.Errorf("the first chart's markers %q, want %q", got, want)
	}
	for _, id := range []string{"amplification", "queue-age", "latency"} {
		if got := markerLabels(chartSVG(t, page, id)); !slices.Equal(got, everywhere) {
			t.Errorf("%s: markers %q, want %q", id, got, everywhere)
		}
	}
	for _, l := range later {
		for _, svg := range svgRe.FindAllString(page, -1) {
			if slices.Contains(markerLabels(svg), l) {
				t.Errorf("event %s, neither a cell's first failover nor a first trip, has a marker", l)
			}
		}
	}
}

// TestNotableBounded: a breaker storm (forty instances' breakers of six dependencies,
// each tripping and reopening over and over) gives the first chart at most maxNotable
// breaker markers, and none that crowd its labels more than they were.
func TestNotableBounded(t *testing.T) {
	p := annotated()
	a := &p.Arms[1]
	rng := rand.New(rand.NewPCG(5, 6))
	for dep := range 6 {
		name := fmt.Sprintf("dep-%d", dep)
		a.Breakers = append(a.Breakers, packet.BreakerStats{Dependency: name, RefusedBy: map[string]int64{}})
		for inst := range 40 {
			for k := range 3 {
				d := time.Duration((2 + rng.Float64()*7) * float64(time.Second))
				from, to := "Closed", "Open"
				if k > 0 {
					from = "HalfOpen"
				}
				i := inst
				a.Events = append(a.Events, packet.Event{At: a.Start.Add(d), T: d, Arm: a.Name, Kind: "breaker",
					Text: fmt.Sprintf("%s breaker of instance %d: %s → %s", name, inst, from, to), Dependency: name, From: from, To: to, Instance: &i})
			}
		}
	}
	sortEvents(a.Events)
	events := mergeEvents(p.Arms)
	ax := newTimeAxis(p.Arms)
	shown := markedEverywhere(events)
	notable := notableEvents(p.Arms, events)
	if len(notable) != maxNotable {
		t.Fatalf("%d notable events, want %d (the earliest of six first trips)", len(notable), maxNotable)
	}
	base := markers(events, ax, shown)
	first := firstChartMarkers(events, ax, shown, notable)
	if len(first) > len(base)+maxNotable {
		t.Errorf("%d markers on the first chart, %d elsewhere", len(first), len(base))
	}
	if crowded(first) > crowded(base) {
		t.Errorf("the first chart's labels are crowded %d times, the others' %d", crowded(first), crowded(base))
	}
	titles := 0
	for _, m := range first {
		titles += strings.Count(m.Title, "breaker of instance")
	}
	if titles == 0 || titles > maxNotable {
		t.Errorf("%d breaker events marked, want 1 to %d", titles, maxNotable)
	}
}

// TestNotableCrowded: a notable event whose marker would crowd labels that are full
// already is left unmarked.
func TestNotableCrowded(t *testing.T) {
	start := time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC)
	a := packet.Arm{Name: "only", Start: start, Tick: time.Second, Duration: 100 * time.Second,
		Cells: []packet.CellStats{{Name: "west"}}}
	ev := func(t time.Duration, kind, text string) packet.Event {
		return packet.Event{At: start.Add(t), T: t, Arm: "only", Kind: kind, Text: text}
	}
	// 999 events before the start (listed, not marked), then pairs of alerts 3 s (19.2
	// units) apart: labels "1000–1001", "1002–1003" … 63 units wide, more than three rows
	// hold.
	for i := range 999 {
		a.Events = append(a.Events, ev(-time.Duration(1000-i)*time.Millisecond, "alert", fmt.Sprint("early ", i)))
	}
	for i := range 8 {
		t := 40*time.Second + time.Duration(i)*3*time.Second
		a.Events = append(a.Events, ev(t, "alert", fmt.Sprint("a ", i)), ev(t, "alert", fmt.Sprint("b ", i)))
	}
	// A failover between the second pair and the third, where only the third row is clear
	// and the next pair's label needs it.
	out := ev(44*time.Second+500*time.Millisecond, "failover", "west: fails over 100% of its traffic")
	out.Cell, out.To = "west", packet.FailoverOut
	a.Events = append(a.Events, out)
	sortEvents(a.Events)
	arms := []packet.Arm{a}
	events := mergeEvents(arms)
	ax := newTimeAxis(arms)
	shown := markedEverywhere(events)
	notable := notableEvents(arms, events)
	if len(notable) != 1 {
		t.Fatalf("notable %v", notable)
	}
	base := markers(events, ax, shown)
	if crowded(base) == 0 {
		t.Fatal("the alerts' labels are not crowded: the test does not test")
	}
	first := firstChartMarkers(events, ax, shown, notable)
	if len(first) != len(base) || crowded(first) != crowded(base) {
		t.Errorf("the failover was marked: %d markers (%d crowded), without it %d (%d)", len(first), crowded(first), len(base), crowded(base))
	}
	// In the clear, it is marked.
	i := slices.IndexFunc(a.Events, func(e packet.Event) bool { return e.Kind == "failover" })
	moved := a.Events[i]
	moved.T, moved.At = 80*time.Second, start.Add(80*time.Second)
	arms[0].Events = append(slices.Delete(slices.Clone(a.Events), i, i+1), moved)
	events = mergeEvents(arms)
	shown = markedEverywhere(events)
	if first := firstChartMarkers(events, ax, shown, notableEvents(arms, events)); len(first) != len(markers(events, ax, shown))+1 {
		t.Errorf("a failover in the clear: %d markers, want one more than %d", len(first), len(markers(events, ax, shown)))
	}
}

// TestNotableRandom renders 60 random packets with cells and breakers and their events at
// any time (before the start and after the end too) and checks what must hold for any:
// the charts after the first mark no failover or breaker event, the first marks at most
// maxNotable of each kind and crowds its labels no more than the others, and the tables
// have a row per arm and part.
func TestNotableRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	start := time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC)
	marked := 0 // failover and breaker events on the first charts
	for n := range 60 {
		p := &packet.Packet{Scenario: fmt.Sprint("random ", n)}
		ticks := 1 + rng.IntN(200)
		rows := 0
		for ai := range 1 + rng.IntN(3) {
			a := packet.Arm{Name: fmt.Sprint("arm ", ai), Start: start, Tick: time.Second, Duration: time.Duration(ticks) * time.Second}
			for i := range ticks {
				a.Series = append(a.Series, packet.Row{T: time.Duration(i) * time.Second, Offered: 100, Goodput: rng.Int64N(100)})
			}
			for c := range rng.IntN(4) {
				a.Cells = append(a.Cells, packet.CellStats{Name: fmt.Sprint("cell-", c), Offered: rng.Int64N(1000), Goodput: rng.Int64N(1000)})
			}
			for d := range rng.IntN(4) {
				a.Breakers = append(a.Breakers, packet.BreakerStats{Dependency: fmt.Sprint("dep-", d), Trips: rng.Int64N(9), RefusedBy: map[string]int64{}})
			}
			rows += len(a.Cells) + len(a.Breakers)
			for range rng.IntN(60) {
				at := time.Duration((rng.Float64()*1.4 - 0.2) * float64(a.Duration))
				e := packet.Event{At: start.Add(at), T: at, Arm: a.Name}
				switch k := rng.IntN(3); {
				case k == 0 && len(a.Cells) > 0:
					e.Kind, e.Cell, e.To = "failover", a.Cells[rng.IntN(len(a.Cells))].Name, packet.FailoverOut
					e.Text = e.Cell + ": fails over"
				case k == 1 && len(a.Breakers) > 0:
					e.Kind, e.Dependency, e.From, e.To = "breaker", a.Breakers[rng.IntN(len(a.Breakers))].Dependency, "Closed", "Open"
					e.Text = e.Dependency + " breaker: Closed → Open"
				default:
					e.Kind, e.Text = "alert", "fired"
				}
				a.Events = append(a.Events, e)
			}
			sortEvents(a.Events)
			p.Arms = append(p.Arms, a)
		}
		events := mergeEvents(p.Arms)
		ax := newTimeAxis(p.Arms)
		shown := markedEverywhere(events)
		base := markers(events, ax, shown)
		first := firstChartMarkers(events, ax, shown, notableEvents(p.Arms, events))
		if crowded(first) > crowded(base) {
			t.Errorf("packet %d: the first chart crowded %d times, the others %d", n, crowded(first), crowded(base))
		}
		// A marker's title has a line per event: "3. 14:00:07 arm 0: cell-1: fails over".
		is := map[string]func(string) bool{
			"failover": func(l string) bool { return strings.HasSuffix(l, ": fails over") },
			"breaker":  func(l string) bool { return strings.Contains(l, " breaker: Closed → Open") },
		}
		count := func(ms []marker, kind string) int {
			k := 0
			for _, m := range ms {
				for _, l := range strings.Split(m.Title, "\n") {
					if is[kind](l) {
						k++
					}
				}
			}
			return k
		}
		for _, kind := range []string{"failover", "breaker"} {
			if c := count(base, kind); c != 0 {
				t.Errorf("packet %d: %d %s events marked on every chart", n, c, kind)
			}
			c := count(first, kind)
			if c > maxNotable {
				t.Errorf("packet %d: %d %s events marked on the first chart", n, c, kind)
			}
			marked += c
		}
		page := render(t, p)
		got := 0
		for _, id := range []string{"cells", "breakers"} {
			if strings.Contains(page, `<section id="`+id+`"`) {
				got += len(partRows(t, page, id))
			}
		}
		if got != rows {
			t.Errorf("packet %d: %d rows in the tables of cells and breakers, want %d", n, got, rows)
		}
		for _, svg := range svgRe.FindAllString(page, -1) {
			if err := wellFormed(svg); err != nil {
				t.Fatalf("packet %d: %v", n, err)
			}
		}
	}
	if marked == 0 {
		t.Error("no first chart marks a failover or breaker event: the test does not test")
	}
}

// TestNotableFailoverByCell: a cell's first failover is found by the event's cell field
// and its move out, not by its text: an event naming west in its text but no cell is
// not west's, a fail-back is not a first failover, and an event of east whose text
// names west is east's.
func TestNotableFailoverByCell(t *testing.T) {
	start := time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC)
	a := packet.Arm{Name: "only", Start: start, Tick: time.Second, Duration: 100 * time.Second,
		Cells: []packet.CellStats{{Name: "west"}, {Name: "east"}}}
	ev := func(t time.Duration, cell, to, text string) packet.Event {
		return packet.Event{At: start.Add(t), T: t, Arm: "only", Kind: "failover", Text: text, Cell: cell, To: to}
	}
	a.Events = []packet.Event{
		ev(10*time.Second, "", "", "west: fails over 100% of its traffic"),
		ev(20*time.Second, "east", packet.FailoverBack, "east: fails back"),
		ev(30*time.Second, "east", packet.FailoverOut, "west: the text is not what says the cell"),
		ev(40*time.Second, "west", packet.FailoverOut, "the west cell fails over"),
	}
	arms := []packet.Arm{a}
	events := mergeEvents(arms)
	var got []string
	for _, i := range notableEvents(arms, events) {
		got = append(got, events[i].Text)
	}
	if want := []string{"west: the text is not what says the cell", "the west cell fails over"}; !slices.Equal(got, want) {
		t.Errorf("notable failovers %q, want %q", got, want)
	}
}
