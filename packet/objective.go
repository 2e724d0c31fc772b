package packet

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ObjectiveSpec declares one objective to evaluate on an arm. The model maps the scenario's
// objectives to specs; Min and Max are in the metric's unit:
//
//	metric          unit  value
//	latency_p50     ms    completion latency percentile of admitted requests (Class, or all
//	latency_p99     ms    classes merged), from HdrHistograms. With a window or a State the
//	latency_p999    ms    spec must also be in Config.Objectives (recorded live).
//	goodput_rate    /s    goodput per second over the window: the mean (Stat "" or "mean")
//	                      or the worst tick of the run (Stat "min"; not a drain's tick)
//	goodput_fraction x    goodput / offered over the window
//	duplicates      count duplicate mutations of every kind in the window
//	queue_age_max   ms    largest sampled oldest-queue age in the window
//	amplification   x     attempts / offered over the window at the most amplified layer
//	                      (see Amplification)
//	retry_ratio     x     retries / admitted over the window
//	time_to_normal  s     from After until the load state is Normal for good (see Recovery)
//
// The window is the ticks starting in [From, To) (To zero: to the end of the run), further
// restricted to the ticks whose sampled load state is State when State is set.
type ObjectiveSpec struct {
	Name   string
	Metric string
	Class  string
	// Min and Max bound the value (nil: no bound). Both may be set.
	Min, Max *float64
	From, To time.Duration
	State    string
	After    time.Duration
	// Stat selects the aggregate of goodput_rate: "" or "mean", or "min".
	Stat string
}

func isLatencyMetric(m string) bool {
	return m == "latency_p50" || m == "latency_p99" || m == "latency_p999"
}

func latencyQuantile(m string) float64 {
	switch m {
	case "latency_p50":
		return 50
	case "latency_p999":
		return 99.9
	}
	return 99
}

// statistic says what the value of objective s is, in words: the statistic and the
// requests or ticks it is taken over ([Objective.Statistic]); "" for an unknown metric.
func statistic(s ObjectiveSpec) string {
	over := span(s, "over")
	switch {
	case isLatencyMetric(s.Metric):
		who := "admitted requests"
		if s.Class != "" {
			who = "admitted " + s.Class + " requests"
		}
		q := strings.TrimPrefix(s.Metric, "latency_")
		if q == "p999" {
			q = "p99.9"
		}
		str := q + " completion latency of " + who
		if s.From != 0 || s.To != 0 || s.State != "" {
			str += " ending " + span(s, "")
		}
		return str
	case s.Metric == "goodput_rate" && s.Stat == "min":
		return "goodput per second, lowest tick " + over
	case s.Metric == "goodput_rate":
		return "goodput per second, mean " + over
	case s.Metric == "goodput_fraction":
		return "goodput / offered " + over
	case s.Metric == "duplicates":
		return "duplicate mutations " + over
	case s.Metric == "queue_age_max":
		return "oldest queue age, highest sample " + over
	case s.Metric == "amplification":
		return "attempts per offered request at the most amplified layer " + over
	case s.Metric == "retry_ratio":
		return "retries per admitted request " + over
	case s.Metric == "time_to_normal":
		return "seconds from t=" + secondsText(s.After) + " s until the load state is Normal for good"
	}
	return ""
}

// span names the window of s after the word over ("over the run", "over t=180–540 s",
// "over the ticks in Normal, from t=180 s on"), or without it ("in t=180–540 s", "while
// in Normal") for what is recorded as requests end rather than by tick.
func span(s ObjectiveSpec, over string) string {
	var w string
	switch {
	case s.From == 0 && s.To == 0:
	case s.To == 0:
		w = "from t=" + secondsText(s.From) + " s on"
	default:
		w = "t=" + secondsText(s.From) + "–" + secondsText(s.To) + " s"
	}
	var parts []string
	switch {
	case s.State != "" && over != "":
		parts = append(parts, over+" the ticks in "+s.State)
	case s.State != "":
		parts = append(parts, "while in "+s.State)
	case w == "" && over != "":
		return over + " the run"
	case s.To == 0:
		return w
	default:
		return cmp.Or(over, "in") + " " + w
	}
	if w != "" {
		parts = append(parts, w)
	}
	return strings.Join(parts, ", ")
}

// secondsText writes d in seconds, as few decimals as it needs: 180, 1.5.
func secondsText(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) }

// evaluate computes one objective from the recorder's state.
func (r *Recorder) evaluate(s ObjectiveSpec) Objective {
	o := Objective{Name: s.Name, Metric: s.Metric, Statistic: statistic(s)}
	var (
		value float64
		ok    = true
		note  string
	)
	switch {
	case isLatencyMetric(s.Metric):
		o.Unit = "ms"
		value, ok, note = r.latencyValue(s)
	case s.Metric == "goodput_rate":
		o.Unit = "/s"
		value, ok, note = r.windowValue(s, func(sum rowSum) (float64, bool) {
			if sum.seconds == 0 {
				return 0, false
			}
			if s.Stat == "min" {
				return sum.minGoodputRate, !math.IsInf(sum.minGoodputRate, 1)
			}
			return float64(sum.goodput) / sum.seconds, true
		})
		if s.Stat != "" && s.Stat != "mean" && s.Stat != "min" {
			ok, note = false, fmt.Sprintf("unknown stat %q (want mean or min)", s.Stat)
		}
	case s.Metric == "goodput_fraction":
		o.Unit = "x"
		value, ok, note = r.windowValue(s, func(sum rowSum) (float64, bool) {
			return ratio(sum.goodput, sum.offered)
		})
	case s.Metric == "duplicates":
		value, ok, note = r.windowValue(s, func(sum rowSum) (float64, bool) {
			return float64(sum.duplicates), true
		})
	case s.Metric == "queue_age_max":
		o.Unit = "ms"
		value, ok, note = r.windowValue(s, func(sum rowSum) (float64, bool) {
			return ms(sum.queueAgeMax), sum.sampled > 0
		})
	case s.Metric == "amplification":
		o.Unit = "x"
		value, ok, note = r.windowValue(s, func(sum rowSum) (float64, bool) {
			return maxLayerRatio(sum.layerAttempts, sum.offered), sum.offered > 0
		})
	case s.Metric == "retry_ratio":
		o.Unit = "x"
		value, ok, note = r.windowValue(s, func(sum rowSum) (float64, bool) {
			return ratio(sum.retries, sum.admitted)
		})
	case s.Metric == "time_to_normal":
		o.Unit = "s"
		if !slices.ContainsFunc(r.rows, func(row Row) bool { return row.Sampled }) {
			ok, note = false, "no tick sampled the load state or the queues"
			break
		}
		if s.After >= r.end() {
			ok, note = false, fmt.Sprintf("the run ends at %v, before t=%v", r.end(), s.After)
			break
		}
		rc := r.recovery(s.After)
		if rc.Normal == nil {
			end := r.end()
			value = seconds(max(end-s.After, 0))
			ok = true
			note = "never returned to Normal for good before the end of the run; value is the time observed"
			// A bound can only pass on a measured value.
			o.Value, o.Target, o.Op = value, bound(s), op(s)
			o.Note, o.Censored = note, true
			return o
		}
		value = seconds(*rc.Normal)
		if rc.StateSource == "derived" {
			note = "no load state reported: Normal means stabilised and drained"
		}
	default:
		ok, note = false, fmt.Sprintf("unknown metric %q", s.Metric)
	}
	o.Value, o.Target, o.Op, o.Note = round(value, 4), bound(s), op(s), note
	if !ok {
		o.Value = 0
		o.NoData = true
		return o
	}
	o.Pass = true
	if s.Min != nil && !(o.Value >= *s.Min) {
		o.Pass = false
	}
	if s.Max != nil && !(o.Value <= *s.Max) {
		o.Pass = false
	}
	if s.Min == nil && s.Max == nil {
		o.Pass = false
		o.Note = joinNote(o.Note, "no bound declared")
	}
	return o
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func bound(s ObjectiveSpec) float64 {
	if s.Max != nil {
		return round(*s.Max, 4)
	}
	if s.Min != nil {
		return round(*s.Min, 4)
	}
	return 0
}

func op(s ObjectiveSpec) string {
	switch {
	case s.Max != nil && s.Min != nil:
		return "in"
	case s.Max != nil:
		return "<="
	case s.Min != nil:
		return ">="
	}
	return ""
}

func ratio(a, b int64) (float64, bool) {
	if b == 0 {
		return 0, false
	}
	return float64(a) / float64(b), true
}

func (r *Recorder) latencyValue(s ObjectiveSpec) (float64, bool, string) {
	if r.fixed != nil {
		return fixedLatency(r.fixed, s)
	}
	q := latencyQuantile(s.Metric)
	if s.From != 0 || s.To != 0 || s.State != "" {
		for _, w := range r.winLat {
			if w.spec.Name == s.Name && w.spec.Metric == s.Metric && w.spec.Class == s.Class &&
				w.spec.From == s.From && w.spec.To == s.To && w.spec.State == s.State {
				h := &w.h
				if h.Count() == 0 {
					return 0, false, "no requests completed in the window"
				}
				return usToMS(h.ValueAtPercentile(q)), true, ""
			}
		}
		return 0, false, "a latency objective with a window or state must be listed in Config.Objectives"
	}
	h := newHist()
	if s.Class != "" {
		i, ok := r.classes.idx[s.Class]
		if !ok {
			return 0, false, fmt.Sprintf("unknown class %q", s.Class)
		}
		h.Merge(&r.cls[i].latency)
	} else {
		for i := range r.cls {
			h.Merge(&r.cls[i].latency)
		}
	}
	if h.Count() == 0 {
		return 0, false, "no requests completed"
	}
	return usToMS(h.ValueAtPercentile(q)), true, ""
}

// fixedLatency is latencyValue for an arm [Arm.Evaluate] evaluates, from its percentiles.
func fixedLatency(a *Arm, s ObjectiveSpec) (float64, bool, string) {
	if s.From != 0 || s.To != 0 || s.State != "" {
		return 0, false, "latency in a window or state needs the run's histograms, which this arm does not keep"
	}
	p := a.Latency
	if s.Class != "" {
		i := slices.IndexFunc(a.Classes, func(c ClassStats) bool { return c.Name == s.Class })
		if i < 0 {
			return 0, false, fmt.Sprintf("unknown class %q", s.Class)
		}
		p = a.Classes[i].Latency
	}
	if p.Count == 0 {
		return 0, false, "no requests completed"
	}
	v := map[string]time.Duration{"latency_p50": p.P50, "latency_p99": p.P99, "latency_p999": p.P999}[s.Metric]
	return usToMS(int64(v / time.Microsecond)), true, ""
}

func usToMS(us int64) float64 { return round(float64(us)/1000, 3) }

// rowSum aggregates the series rows of an objective's window.
type rowSum struct {
	ticks, sampled                       int
	seconds                              float64
	offered, admitted, attempts, retries int64
	layerAttempts                        []int64
	goodput, duplicates                  int64
	queueAgeMax                          time.Duration
	minGoodputRate                       float64
}

func (r *Recorder) windowValue(s ObjectiveSpec, f func(rowSum) (float64, bool)) (float64, bool, string) {
	if s.Class != "" {
		// The series is kept for all classes together, not per class.
		return 0, false, fmt.Sprintf("%s is recorded for all classes together; omit class", s.Metric)
	}
	sum := rowSum{minGoodputRate: math.Inf(1)}
	for _, row := range r.rows {
		if row.T < s.From || (s.To > 0 && row.T >= s.To) {
			continue
		}
		if s.State != "" && (!row.Sampled || row.State != s.State) {
			continue
		}
		sum.ticks++
		sum.seconds += r.tick.Seconds()
		sum.offered += row.Offered
		sum.admitted += row.Admitted
		sum.attempts += row.Attempts
		for i, n := range row.LayerAttempts {
			for len(sum.layerAttempts) <= i {
				sum.layerAttempts = append(sum.layerAttempts, 0)
			}
			sum.layerAttempts[i] += n
		}
		sum.retries += row.Retries
		sum.goodput += row.Goodput
		sum.duplicates += row.Duplicates
		if row.Sampled {
			sum.sampled++
			sum.queueAgeMax = max(sum.queueAgeMax, row.QueueAgeMax)
		}
		if row.T < r.end() { // as for the amplification peak, the drain's ticks are left out
			sum.minGoodputRate = min(sum.minGoodputRate, float64(row.Goodput)/r.tick.Seconds())
		}
	}
	if sum.ticks == 0 {
		if s.State != "" {
			return 0, false, fmt.Sprintf("no tick in state %s", s.State)
		}
		return 0, false, "no tick in the window"
	}
	v, ok := f(sum)
	if !ok {
		return 0, false, "no data in the window"
	}
	return v, true, ""
}
