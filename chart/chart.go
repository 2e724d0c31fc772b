// Package chart lays out line charts on a time axis, for pages that draw them as SVG:
// gridline values at round steps ([Gridlines]), time labels at round steps in a display
// zone ([TimeTicks]), the points worth drawing when a series has more points than its plot
// has pixel columns ([Decimate]), the rows of event markers' labels ([PlaceLabels]) and
// coordinates written short ([Num]).
//
// It computes numbers only; each page draws them with its own template. The postmortem
// page's impact chart (package incident) and the replay report (package report) use it.
package chart

import (
	"math"
	"strconv"
	"time"
)

// Gridlines returns two to four evenly spaced gridline values from lo (or the step below
// it) to the first step at or above hi, with a step of 1, 2, 2.5, 3 or 5 times a power of
// ten. Among the candidates it takes the one that spans the least, and of those the one
// with the fewest lines: Gridlines(0, 52) is [0 30 60].
func Gridlines(lo, hi float64) []float64 {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return []float64{0, 1}
	}
	if hi <= lo {
		hi = lo + 1
	}
	span := hi - lo
	if math.IsInf(span, 0) || span < 1e-300 {
		return []float64{lo, hi}
	}
	exp := math.Floor(math.Log10(span))
	var best []float64
	bestWidth := math.Inf(1)
	for e := exp - 1; e <= exp+1; e++ {
		for _, m := range []float64{1, 2, 2.5, 3, 5} {
			step := m * math.Pow(10, e)
			start := math.Floor(lo/step+1e-9) * step
			n := int(math.Ceil((hi-start)/step - 1e-9))
			if n < 2 || n > 3 {
				continue
			}
			width := float64(n) * step
			if width < bestWidth-1e-9*span || math.Abs(width-bestWidth) <= 1e-9*span && n+1 < len(best) {
				bestWidth = width
				best = best[:0:0]
				for k := 0; k <= n; k++ {
					best = append(best, RoundSig(start+float64(k)*step, 10))
				}
			}
		}
	}
	return best
}

// RoundSig rounds x to digits significant digits; zero, NaN and infinities are returned as
// they are.
func RoundSig(x float64, digits int) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	f, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', digits, 64), 64)
	return f
}

// Tick is a time label of the horizontal axis.
type Tick struct {
	At    time.Time
	Label string // "14:05"; "14:05:30" for steps under a minute, "2 Jan" for a day or more
}

// tickSteps are the round steps TimeTicks chooses from.
var tickSteps = []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second,
	30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute,
	30 * time.Minute, time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
	48 * time.Hour, 7 * 24 * time.Hour}

// TimeTicks returns at most max ticks between t0 and t1 at the smallest round step that
// fits, aligned to the display zone's midnight and labelled in that zone.
func TimeTicks(t0, t1 time.Time, loc *time.Location, max int) []Tick {
	span := t1.Sub(t0)
	step := tickSteps[len(tickSteps)-1]
	for _, s := range tickSteps {
		if int(span/s)+1 <= max {
			step = s
			break
		}
	}
	layout := "15:04"
	switch {
	case step < time.Minute:
		layout = "15:04:05"
	case step >= 24*time.Hour:
		layout = "2 Jan"
	}
	l0 := t0.In(loc)
	day := time.Date(l0.Year(), l0.Month(), l0.Day(), 0, 0, 0, 0, loc)
	var out []Tick
	for t := day; !t.After(t1) && len(out) < 4*max; t = t.Add(step) {
		if t.Before(t0) {
			continue
		}
		out = append(out, Tick{At: t, Label: t.In(loc).Format(layout)})
	}
	return out
}

// MaxPoints is how many points of a series Decimate leaves as they are.
const MaxPoints = 1200

// Decimate returns pts unchanged when there are at most [MaxPoints] of them (or columns is
// not positive); otherwise, for each pixel column (the integer part of x), the column's
// lowest and highest point by value, in time order, so that spikes survive. pts must be
// in time order; x and value read a point's horizontal coordinate and its value.
func Decimate[P any](pts []P, columns int, x, value func(P) float64) []P {
	if len(pts) <= MaxPoints || columns <= 0 {
		return pts
	}
	out := make([]P, 0, 2*columns+2)
	col, lo, hi := -1, 0, 0 // the current column and the indices of its extremes
	flush := func() {
		switch {
		case col < 0:
		case lo < hi:
			out = append(out, pts[lo], pts[hi])
		case lo == hi:
			out = append(out, pts[lo])
		default:
			out = append(out, pts[hi], pts[lo])
		}
	}
	for i, p := range pts {
		if c := int(x(p)); c != col {
			flush()
			col, lo, hi = c, i, i
			continue
		}
		if v := value(p); v < value(pts[lo]) {
			lo = i
		} else if v > value(pts[hi]) {
			hi = i
		}
	}
	flush()
	return out
}

// Round1 rounds a coordinate to one decimal.
func Round1(x float64) float64 { return math.Round(x*10) / 10 }

// Num writes a coordinate with at most one decimal, for SVG attributes and path data
// ("12.3", "640"; never "-0").
func Num(x float64) string {
	r := Round1(x)
	if r == 0 {
		r = 0 // not -0
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}
