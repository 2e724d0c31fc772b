package report

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/goodput-lab/goodput/packet"
)

// withParts is the annotated comparison with two cells in each arm and circuit breakers
// on payment-risk in the protected arm, with their events: each cell's failovers and
// failbacks, and the breakers of three instances tripping, one of them reopening and
// closing, one twice.
func withParts() *packet.Packet {
	p := annotated()
	start := p.Arms[0].Start
	ev := func(arm string, t float64, kind, text string) packet.Event {
		d := time.Duration(t * float64(time.Second))
		return packet.Event{At: start.Add(d), T: d, Arm: arm, Kind: kind, Text: text}
	}
	breaker := func(t float64, instance int, from, to string) packet.Event {
		e := ev("protected", t, "breaker", fmt.Sprintf("payment-risk breaker of instance %d: %s → %s", instance, from, to))
		inst := instance
		e.Dependency, e.From, e.To, e.Instance = "payment-risk", from, to, &inst
		return e
	}
	failover := func(arm string, t float64, cell, to, what string) packet.Event {
		e := ev(arm, t, "failover", cell+": "+what)
		e.Cell, e.To = cell, to
		return e
	}
	p.Arms[0].Cells = []packet.CellStats{
		{Name: "eu-west", Offered: 5000, Goodput: 2100, FailedOverOut: 1800, FailedOverIn: 600, Failovers: 1},
		{Name: "eu-central", Offered: 5000, Goodput: 4300, FailedOverOut: 600, FailedOverIn: 1800, Failovers: 2},
	}
	p.Arms[1].Cells = []packet.CellStats{
		{Name: "eu-west", Offered: 5000, Goodput: 3400, FailedOverOut: 900, Failovers: 1},
		{Name: "eu-central", Offered: 5000, Goodput: 5900, FailedOverIn: 900, RefusedByGrant: 1300},
	}
	first := 3.25
	p.Arms[1].Breakers = []packet.BreakerStats{
		{Dependency: "payment-risk", Refused: 812, RefusedBy: map[string]int64{"breaker-open": 790, "probe-limit": 22},
			Trips: 4, Reopens: 1, Closes: 2, FirstTrip: &first},
		{Dependency: "ledger", RefusedBy: map[string]int64{}},
	}
	p.Arms[0].Events = append(p.Arms[0].Events,
		failover("baseline", 3.5, "eu-west", packet.FailoverOut, "fails over 100% of its traffic (success rate 40% below 90%)"),
		failover("baseline", 5, "eu-central", packet.FailoverOut, "fails over 100% of its traffic (success rate 60% below 90%)"),
		failover("baseline", 7, "eu-central", packet.FailoverBack, "fails back (success rate 100%, at or above 90% for 1s)"),
		failover("baseline", 8, "eu-central", packet.FailoverOut, "fails over 100% of its traffic (success rate 70% below 90%)"),
	)
	p.Arms[1].Events = append(p.Arms[1].Events,
		failover("protected", 3.5, "eu-west", packet.FailoverOut, "fails over 100% of its traffic (success rate 40% below 90%)"),
		breaker(3.25, 0, "Closed", "Open"), breaker(3.5, 1, "Closed", "Open"), breaker(4, 0, "Open", "HalfOpen"),
		breaker(4.25, 0, "HalfOpen", "Open"), breaker(5, 2, "Closed", "Open"), breaker(5.5, 0, "Open", "HalfOpen"),
		breaker(5.75, 0, "HalfOpen", "Closed"), breaker(6.5, 0, "Closed", "Open"),
	)
	for i := range p.Arms {
		sortEvents(p.Arms[i].Events)
	}
	return p
}

// TestTablePartsGolden pins the cells' and the breakers' blocks under the comparison
// table at the default width and at 80 columns, where they keep their columns.
func TestTablePartsGolden(t *testing.T) {
	for _, width := range []int{DefaultWidth, 80} {
		var b bytes.Buffer
		if err := (Terminal{Width: width}).Table(&b, withParts()); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		name := "table-parts.txt"
		if width != DefaultWidth {
			name = fmt.Sprintf("table-parts-%d.txt", width)
		}
		golden(t, name, b.Bytes())
		for _, l := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(l); n > width {
				t.Errorf("width %d: a line of %d: %q", width, n, l)
			}
		}
		for _, want := range []string{"\nCells (goodput of held", "\nCircuit breakers (every calling instance's breaker"} {
			if !strings.Contains(out, want) {
				t.Errorf("width %d: the table lacks %q", width, want)
			}
		}
		for _, tt := range []struct{ title, arm, part, want string }{
			// baseline eu-west held 5,000 − 1,800 + 600 = 3,800 and served 2,100 of them
			{"Cells", "baseline", "eu-west", "5,000 55.3% 1,800 600 0 1"},
			{"Cells", "baseline", "eu-central", "5,000 69.4% 600 1,800 0 2"},
			{"Cells", "protected", "eu-west", "5,000 82.9% 900 0 0 1"},
			// protected eu-central held all it took in, and its grant refused 1,300
			{"Cells", "protected", "eu-central", "5,000 100.0% 0 900 1,300 0"},
			{"Circuit breakers", "protected", "payment-risk", "4 1 2 812 3.25"},
			{"Circuit breakers", "protected", "ledger", "0 0 0 0 never"},
		} {
			if got := blockRow(out, tt.title, tt.arm, tt.part); got != tt.want {
				t.Errorf("width %d: %s, %s, %s: %q, want %q", width, tt.title, tt.arm, tt.part, got, tt.want)
			}
		}
		// The breakers' block names only the arm that has breakers; the reasons are the
		// page's.
		block := out[strings.Index(out, "\nCircuit breakers")+1:]
		block = block[:strings.Index(block, "\n\n")]
		if strings.Contains(block, "baseline") || strings.Contains(block, "probe-limit") {
			t.Errorf("width %d: the breakers' block:\n%s", width, block)
		}
	}
}

// blockRow is the figures of part in arm's rows of the terminal block headed title, as
// one space-separated string ("" if there is no such row).
func blockRow(out, title, arm, part string) string {
	i := strings.Index(out, "\n"+title+" (")
	if i < 0 {
		return ""
	}
	block := out[i+1:]
	if end := strings.Index(block, "\n\n"); end >= 0 {
		block = block[:end]
	}
	j := strings.Index(block, "\n  "+arm+"\n")
	if j < 0 {
		return ""
	}
	for _, l := range strings.Split(block[j+len(arm)+4:], "\n") {
		if !strings.HasPrefix(l, "    ") {
			break
		}
		if strings.HasPrefix(l, "    "+part+" ") {
			return strings.Join(strings.Fields(l)[1:], " ")
		}
	}
	return ""
}

// TestTablePartsStacked: too narrow for their columns, the blocks give each part's
// figures a line each, within the width.
func TestTablePartsStacked(t *testing.T) {
	var b bytes.Buffer
	if err := (Terminal{Width: 50}).Table(&b, withParts()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	block := out[strings.Index(out, "\nCells"):]
	var squeezed strings.Builder // each line's indent, then its words one blank apart
	for _, l := range strings.Split(block, "\n") {
		if n := utf8.RuneCountInString(l); n > 50 {
			t.Errorf("a line of %d: %q", n, l)
		}
		squeezed.WriteString(l[:len(l)-len(strings.TrimLeft(l, " "))] + strings.Join(strings.Fields(l), " ") + "\n")
	}
	for _, want := range []string{
		"\n  baseline\n    eu-west\n      offered 5,000\n      goodput of held 55.3%\n      failed over out 1,800\n",
		"\n  protected\n    payment-risk\n      trips 4\n      reopens 1\n      closes 2\n      refused calls 812\n      first trip (s) 3.25\n",
	} {
		if !strings.Contains(squeezed.String(), want) {
			t.Errorf("the stacked blocks lack %q:\n%s", want, block)
		}
	}
}

// TestTableNoParts: a packet without cells or breakers has neither block.
func TestTableNoParts(t *testing.T) {
	var b bytes.Buffer
	if err := Table(&b, annotated()); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"\nCells", "\nCircuit breakers"} {
		if strings.Contains(b.String(), s) {
			t.Errorf("a table without cells or breakers has %q", s)
		}
	}
	if page := render(t, annotated()); strings.Contains(page, `id="cells"`) || strings.Contains(page, `id="breakers"`) {
		t.Error("a page without cells or breakers has their tables")
	}
}

// TestCellHeld: a cell's goodput is a share of the requests it held, at fixed figures.
func TestCellHeld(t *testing.T) {
	for _, tt := range []struct {
		c    packet.CellStats
		want string
	}{
		{packet.CellStats{Offered: 100, Goodput: 90}, "90.0%"},
		{packet.CellStats{Offered: 100, Goodput: 40, FailedOverOut: 50}, "80.0%"},
		{packet.CellStats{Offered: 100, Goodput: 150, FailedOverIn: 50}, "100.0%"},
		{packet.CellStats{Offered: 100, Goodput: 30, FailedOverOut: 60, FailedOverIn: 20, RefusedByGrant: 70}, "50.0%"},
		{packet.CellStats{}, "–"},
	} {
		if got := percent(tt.c.Goodput, cellHeld(tt.c)); got != tt.want {
			t.Errorf("%+v: %s, want %s", tt.c, got, tt.want)
		}
	}
}

// TestCellFrozenColumn: the column of requests a frozen failover kept in is there only
// when some cell has any.
func TestCellFrozenColumn(t *testing.T) {
	p := withParts()
	if b := cellBreakdown(p.Arms); strings.Contains(b.note, "frozen") || len(b.cols) != 7 {
		t.Errorf("without frozen requests: %d columns, note %q", len(b.cols), b.note)
	}
	p.Arms[1].Cells[0].FailoverFrozen = 77
	b := cellBreakdown(p.Arms)
	if len(b.cols) != 8 || b.cols[6].name != "kept in, frozen" || b.arms[1].rows[0].cells[6] != "77" || b.arms[0].rows[0].cells[6] != "0" {
		t.Errorf("with frozen requests: %+v", b)
	}
}

var partRowRe = regexp.MustCompile(`<tr>(?:<th scope="rowgroup"[^>]*>.*?</th>)?<th scope="row">([^<]*)</th>((?:<td>[^<]*</td>)+)</tr>`)

// partRows are the rows of the page's table in section id: the part and its cells.
func partRows(t *testing.T, page, id string) []string {
	t.Helper()
	i := strings.Index(page, `<section id="`+id+`"`)
	if i < 0 {
		t.Fatalf("the page has no section %s", id)
	}
	sec := page[i : i+strings.Index(page[i:], "</section>")]
	var rows []string
	for _, m := range partRowRe.FindAllStringSubmatch(sec, -1) {
		cells := strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(m[2], "<td>"), "</td>"), "</td><td>", " ")
		rows = append(rows, m[1]+": "+cells)
	}
	return rows
}

// TestHTMLParts: the page has a table of the cells and one of the breakers, after the key
// figures, with the columns the terminal leaves out (the cells' goodput, the refusals by
// reason); it is pinned as a golden file.
func TestHTMLParts(t *testing.T) {
	page := render(t, withParts())
	golden(t, "report-parts.html", []byte(page))
	if k, c, b, o := strings.Index(page, `id="key-figures"`), strings.Index(page, `id="cells"`), strings.Index(page, `id="breakers"`), strings.Index(page, `id="over-time"`); !(k < c && c < b && b < o) {
		t.Errorf("sections at %d (key figures), %d (cells), %d (breakers), %d (over time)", k, c, b, o)
	}
	if got, want := strings.Join(partRows(t, page, "cells"), "\n"), strings.Join([]string{
		"eu-west: 5,000 2,100 55.3% 1,800 600 0 1",
		"eu-central: 5,000 4,300 69.4% 600 1,800 0 2",
		"eu-west: 5,000 3,400 82.9% 900 0 0 1",
		"eu-central: 5,000 5,900 100.0% 0 900 1,300 0",
	}, "\n"); got != want {
		t.Errorf("cells:\n%s\nwant:\n%s", got, want)
	}
	if got, want := strings.Join(partRows(t, page, "breakers"), "\n"), "payment-risk: 4 1 2 812 790 22 3.25\nledger: 0 0 0 0 0 0 never"; got != want {
		t.Errorf("breakers:\n%s\nwant:\n%s", got, want)
	}
	for _, want := range []string{
		`<th scope="colgroup" colspan="2">failed over</th>`,
		`<th scope="colgroup" colspan="3">refused</th>`,
		`<tr><th scope="col">calls</th><th scope="col">breaker-open</th><th scope="col">probe-limit</th></tr>`,
		`<th scope="rowgroup" rowspan="2" class="arm"><span class="swatch arm1" aria-hidden="true"></span>protected</th><th scope="row">payment-risk</th>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Contains(page[strings.Index(page, `id="breakers"`):strings.Index(page, `id="over-time"`)], ">baseline<") {
		t.Error("the breakers' table has a row for the baseline, which has no breakers")
	}
}

// TestNumberRuns: the events a marker stands for, as their numbers.
func TestNumberRuns(t *testing.T) {
	for _, tt := range []struct {
		idx  []int
		want string
	}{
		{[]int{0}, "1"}, {[]int{2, 3, 4}, "3–5"}, {[]int{2, 3, 4, 7}, "3–5,8"}, {[]int{1, 5}, "2,6"}, {[]int{0, 1, 3, 4}, "1–2,4–5"},
	} {
		if got := numberRuns(tt.idx); got != tt.want {
			t.Errorf("numberRuns(%v) = %q, want %q", tt.idx, got, tt.want)
		}
	}
}
