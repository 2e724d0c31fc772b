package chart

import "math"

// Label is the label of an event marker, to be placed in rows above a plot: centred on X
// (the marker's position) and Width wide (the page's estimate for its text).
type Label struct {
	X, Width float64
}

// Placed is where a label goes: its row (0 is the top one), the text anchor it is drawn
// with ("middle", "start" or "end") and the x of that anchor.
type Placed struct {
	Row    int
	Anchor string
	X      float64
}

// labelGap is the least space between two labels in one row.
const labelGap = 6.0

// PlaceLabels lays out the labels of a chart's event markers, in order, in rows above the
// plot: each label goes to the first row where it clears the last label placed in that
// row by 6 units, or to the last row when none is clear. A label is centred on its marker
// unless that would take it left of lo or right of hi: it then starts 2 units left of its
// marker, or ends 2 units right of it. The replay report and the postmortem page both lay
// their markers out with it (pass lo = −Inf and hi = +Inf for labels that are always
// centred).
func PlaceLabels(labels []Label, rows int, lo, hi float64) []Placed {
	rows = max(rows, 1)
	lastEnd := make([]float64, rows)
	for i := range lastEnd {
		lastEnd[i] = math.Inf(-1)
	}
	out := make([]Placed, len(labels))
	for i, l := range labels {
		p := Placed{Anchor: "middle", X: l.X}
		left, right := l.X-l.Width/2, l.X+l.Width/2
		if left < lo {
			p.Anchor, p.X, left, right = "start", l.X-2, l.X-2, l.X-2+l.Width
		} else if right > hi {
			p.Anchor, p.X, left, right = "end", l.X+2, l.X+2-l.Width, l.X+2
		}
		for p.Row < rows-1 && left < lastEnd[p.Row]+labelGap {
			p.Row++
		}
		lastEnd[p.Row] = right
		out[i] = p
	}
	return out
}
