package report

import (
	"slices"
	"time"

	"github.com/goodput-lab/goodput/packet"
)

// Event kinds too numerous to mark on every chart: a failover event at each move of a
// cell and at each return, a breaker event at each state change of each calling
// instance's breaker (a breaker on 40 pods makes hundreds). The events table lists them
// all; only the first chart marks a few ([notableEvents]), and only where their labels
// clear the others'.
const (
	kindFailover = "failover"
	kindBreaker  = "breaker"
)

// maxNotable bounds the markers of each of those kinds on the first chart.
const maxNotable = 4

// markedEverywhere says which events every chart marks: all but failover and breaker
// events; nil (every event) when there are none of those.
func markedEverywhere(events []event) []bool {
	if !slices.ContainsFunc(events, func(e event) bool { return sparse(e.Kind) }) {
		return nil
	}
	shown := make([]bool, len(events))
	for i, e := range events {
		shown[i] = !sparse(e.Kind)
	}
	return shown
}

func sparse(kind string) bool { return kind == kindFailover || kind == kindBreaker }

// notableEvents are the indices into events (merged from arms) of the failover and
// breaker events worth a marker, in time order: in each arm, each cell's first failover
// event (by its Cell field; the move out, since a cell starts in) and each guarded
// dependency's first trip (a breaker going from Closed to Open), at most maxNotable of
// each kind, the earliest.
func notableEvents(arms []packet.Arm, events []event) []int {
	type key struct {
		t          time.Duration
		kind, text string
	}
	at := map[key]int{} // an event's first index in the merged list
	for i, e := range events {
		k := key{e.T, e.Kind, e.Text}
		if _, ok := at[k]; !ok {
			at[k] = i
		}
	}
	picked := map[int]bool{}
	pick := func(e packet.Event) {
		if i, ok := at[key{e.T, e.Kind, e.Text}]; ok {
			picked[i] = true
		}
	}
	for _, a := range arms {
		for _, c := range a.Cells {
			if j := slices.IndexFunc(a.Events, func(e packet.Event) bool {
				return e.Kind == kindFailover && e.Cell == c.Name && e.To == packet.FailoverOut
			}); j >= 0 {
				pick(a.Events[j])
			}
		}
		for _, b := range a.Breakers {
			if j := slices.IndexFunc(a.Events, func(e packet.Event) bool {
				return e.Kind == kindBreaker && e.Dependency == b.Dependency && e.From == "Closed" && e.To == "Open"
			}); j >= 0 {
				pick(a.Events[j])
			}
		}
	}
	var out []int
	count := map[string]int{}
	for i, e := range events {
		if picked[i] && count[e.Kind] < maxNotable {
			count[e.Kind]++
			out = append(out, i)
		}
	}
	return out
}

// firstChartMarkers are the first chart's markers: those of every chart (shown) and,
// one at a time in time order, each notable event whose marker crowds no label more
// than the chart's labels were crowded without it.
func firstChartMarkers(events []event, ax timeAxis, shown []bool, notable []int) []marker {
	ms := markers(events, ax, shown)
	if len(notable) == 0 || shown == nil {
		return ms
	}
	mask := slices.Clone(shown)
	worst := crowded(ms)
	for _, i := range notable {
		mask[i] = true
		try := markers(events, ax, mask)
		if n := crowded(try); n <= worst {
			ms, worst = try, n
			continue
		}
		mask[i] = false
	}
	return ms
}

// markerLabelGap is the least space between two labels in a row, as chart.PlaceLabels
// keeps it.
const markerLabelGap = 6.0

// crowded counts the marker labels that do not clear the label before them in their row
// (chart.PlaceLabels puts a label in the last row when no row is clear), with the widths
// markers gives them.
func crowded(ms []marker) int {
	lastEnd := make([]float64, labelRows)
	for i := range lastEnd {
		lastEnd[i] = -1e9
	}
	n := 0
	for _, m := range ms {
		row := min(max(int((m.LabelY-labelRowTop)/labelRowStep+0.5), 0), labelRows-1)
		w := markerLabelWidth(m.Label)
		if m.X-w/2 < lastEnd[row]+markerLabelGap {
			n++
		}
		lastEnd[row] = m.X + w/2
	}
	return n
}
