package model

import (
	"fmt"
	"slices"
	"time"

	"github.com/goodput-lab/goodput/internal/floatdur"
	"github.com/goodput-lab/goodput/internal/latency"
	"github.com/goodput-lab/goodput/scenario"
)

// Alert metrics, compiled (scenario.Alert.Metric).
const (
	alertTimeoutRate = iota
	alertQueueAge
	alertGoodputFraction
	alertAmplification
	alertLatency
	alertSuccessRate
	alertUtilisation
)

// Resources of a utilisation alert (scenario.Resource.Of).
const (
	resPool = iota
	resConcurrency
	resWorkers
	resAdmission
)

// alertPlan is one alert rule, compiled (scenario.Alert).
type alertPlan struct {
	name      string
	metric    string // as the scenario spells it, for the events' text
	kind      int    // alertTimeoutRate …
	threshold float64
	above     bool
	window    int           // ticks the metric is measured over (1: the tick)
	hold      time.Duration // for: how long the threshold must be crossed before it fires
	n, m      int           // the n_of_m form; m 0: the for form
	clearFor  time.Duration
	quantile  float64 // of a latency rule
	res, idx  int     // a utilisation rule's resource (resPool …) and its dependency or service
	callers   []int   // of resPool: the services whose stages call the dependency
	// empty is a window's value when nothing was counted in it (the rule's denominator is
	// 0), if hasEmpty; else such a window has no data and the threshold is not crossed.
	empty    float64
	hasEmpty bool
	arms     []string // the arms the rule is evaluated on; empty: every arm
}

// compileAlerts compiles the scenario's alert rules; p has its dependencies, services and
// tick compiled.
func compileAlerts(sc *scenario.Scenario, p *plan) []alertPlan {
	var out []alertPlan
	for _, a := range sc.Alerts {
		ap := alertPlan{name: a.Name, metric: a.Metric, hold: a.For.Std(), clearFor: a.ClearFor.Std(),
			window: a.WindowTicks(p.tick), arms: a.Arms}
		b := a.Above
		ap.above = true
		if b == nil {
			b, ap.above = a.Below, false
		}
		ap.threshold = b.Value // a ratio, or nanoseconds for a duration
		if a.NOfM != nil {
			ap.n, ap.m = a.NOfM.N, a.NOfM.M
		}
		switch a.Metric {
		case scenario.AlertTimeoutRate:
			ap.kind, ap.hasEmpty = alertTimeoutRate, true
		case scenario.AlertQueueAge:
			ap.kind = alertQueueAge
		case scenario.AlertGoodputFraction:
			ap.kind, ap.empty, ap.hasEmpty = alertGoodputFraction, 1, true
		case scenario.AlertAmplification:
			ap.kind, ap.empty, ap.hasEmpty = alertAmplification, 1, true
		case scenario.AlertLatencyP50:
			ap.kind, ap.quantile = alertLatency, 0.50
		case scenario.AlertLatencyP99:
			ap.kind, ap.quantile = alertLatency, 0.99
		case scenario.AlertLatencyP999:
			ap.kind, ap.quantile = alertLatency, 0.999
		case scenario.AlertSuccessRate:
			ap.kind = alertSuccessRate
		case scenario.AlertUtilisation:
			ap.kind = alertUtilisation
			r := a.Resource
			switch r.Of {
			case scenario.ResourcePool:
				ap.res, ap.idx = resPool, depIndex(p, r.Dependency)
				ap.callers = callers(p, ap.idx)
			case scenario.ResourceConcurrency:
				ap.res, ap.idx = resConcurrency, depIndex(p, r.Dependency)
			case scenario.ResourceWorkers:
				ap.res = resWorkers
				for i, s := range p.services {
					if s.name == r.Service {
						ap.idx = i
					}
				}
			case scenario.ResourceAdmission:
				ap.res = resAdmission
			}
		}
		out = append(out, ap)
	}
	return out
}

// callers are the services that call dependency d: those the classes with a stage on it
// enter at, in service order.
func callers(p *plan, d int) []int {
	calls := make([]bool, len(p.services))
	for _, c := range p.classes {
		for _, st := range c.stages {
			if st.dep == d {
				calls[p.entries[c.entry].target] = true
			}
		}
	}
	var out []int
	for s, ok := range calls {
		if ok {
			out = append(out, s)
		}
	}
	return out
}

func depIndex(p *plan, name string) int {
	for i, d := range p.deps {
		if d.name == name {
			return i
		}
	}
	return 0 // validated: the dependency is declared
}

// alertObs is one tick's measurement for a rule: num over den (counts of the tick, or a
// gauge over 1, or resources in use over capacity), or the latencies of the answers of
// the tick.
type alertObs struct {
	num, den int64
	lat      *latency.Histogram
}

// What a tick's evaluation did to a rule.
const (
	alertSteady = iota
	alertFired
	alertCleared
)

// alertEval evaluates one alert rule on the measurements of one tick after another: the
// metric over its window against the threshold, then the rule's form (for or n_of_m) and
// its clear condition. It knows nothing of the arm, so it can be fed any series.
type alertEval struct {
	p    *alertPlan
	tick time.Duration

	// The window of more than one tick: the last p.window ticks' measurements, the next
	// to be replaced at pos, and their sums.
	nums, dens     []int64
	sumNum, sumDen int64
	lats           []latency.Histogram // the window's ticks
	latSum         latency.Histogram   // their sum
	pos            int

	crossed time.Duration // how long the threshold has been crossed, tick after tick
	recent  []bool        // n_of_m: whether each of the last m evaluations crossed it
	next    int           // the oldest of recent
	count   int           // how many of recent crossed it
	firing  bool
	calm    time.Duration // how long a firing rule's condition has not held
}

func newAlertEval(p *alertPlan, tick time.Duration) alertEval {
	e := alertEval{p: p, tick: tick}
	if p.window > 1 {
		if p.kind == alertLatency {
			e.lats = make([]latency.Histogram, p.window)
			for i := range e.lats {
				e.lats[i] = newSignalHist()
			}
			e.latSum = newSignalHist()
		} else {
			e.nums, e.dens = make([]int64, p.window), make([]int64, p.window)
		}
	}
	if p.m > 0 {
		e.recent = make([]bool, p.m)
	}
	return e
}

// step evaluates the rule on the tick measured by o and returns whether it fired or
// cleared, and the metric's value over the window (meaningful when ok).
func (e *alertEval) step(o alertObs) (change int, v float64, ok bool) {
	v, ok = e.measure(o)
	crossed := ok && (e.p.above && v > e.p.threshold || !e.p.above && v < e.p.threshold)
	if crossed {
		e.crossed += e.tick
	} else {
		e.crossed = 0
	}
	// holds is the condition a firing rule keeps firing on; fires the one it starts on.
	holds, fires := crossed, e.crossed >= max(e.p.hold, e.tick)
	if e.p.m > 0 {
		if e.recent[e.next] {
			e.count--
		}
		e.recent[e.next] = crossed
		if crossed {
			e.count++
		}
		e.next = (e.next + 1) % len(e.recent)
		holds = e.count >= e.p.n
		fires = holds
	}
	switch {
	case !e.firing && fires:
		e.firing, e.calm = true, 0
		return alertFired, v, ok
	case e.firing && holds:
		e.calm = 0
	case e.firing:
		e.calm += e.tick
		if e.calm >= max(e.p.clearFor, e.tick) {
			e.firing = false
			return alertCleared, v, ok
		}
	}
	return alertSteady, v, ok
}

// measure adds the tick to the window and returns the metric over it; ok is false when
// the window has no data.
func (e *alertEval) measure(o alertObs) (float64, bool) {
	if e.p.kind == alertLatency {
		return e.latency(o.lat)
	}
	num, den := o.num, o.den
	if e.nums != nil {
		i := e.pos
		e.sumNum += num - e.nums[i]
		e.sumDen += den - e.dens[i]
		e.nums[i], e.dens[i] = num, den
		e.pos = (i + 1) % len(e.nums)
		num, den = e.sumNum, e.sumDen
	}
	if den == 0 {
		return e.p.empty, e.p.hasEmpty
	}
	return float64(num) / float64(den), true
}

// latency returns the rule's quantile of the latencies over the window (h the tick's), in
// nanoseconds: the upper bound of its bucket.
func (e *alertEval) latency(h *latency.Histogram) (float64, bool) {
	if e.lats == nil {
		q, ok := h.UpperBound(e.p.quantile)
		return float64(q), ok
	}
	old := &e.lats[e.pos]
	e.latSum.Subtract(old)
	old.Reset()
	old.Merge(h)
	e.latSum.Merge(h)
	e.pos = (e.pos + 1) % len(e.lats)
	q, ok := e.latSum.UpperBound(e.p.quantile)
	return float64(q), ok
}

// alertRT is an arm's alert rules at run time: their evaluators, and the answers callers
// had in the current tick, for the latency and success-rate rules.
type alertRT struct {
	evals    []alertEval
	answers  bool              // some rule reads the answers
	answered int64             // callers that had their answer (a rejection too) or gave up in the tick
	lat      latency.Histogram // completion latency of the admitted requests among them
}

// newAlertRT returns the runtime of p's alert rules evaluated on the named arm, nil
// without any.
func newAlertRT(p *plan, arm string) *alertRT {
	if len(p.alertNames(arm)) == 0 {
		return nil
	}
	r := &alertRT{lat: newSignalHist()}
	for i := range p.alerts {
		ap := &p.alerts[i]
		if !ap.appliesTo(arm) {
			continue
		}
		r.evals = append(r.evals, newAlertEval(ap, p.tick))
		r.answers = r.answers || ap.kind == alertLatency || ap.kind == alertSuccessRate
	}
	return r
}

// answer counts an admitted request's answer to its caller (or the caller giving up)
// after lat, for the rules that read them; r may be nil.
func (r *alertRT) answer(lat time.Duration) {
	if r != nil && r.answers {
		r.answered++
		r.lat.Record(lat)
	}
}

// refuse counts a request rejected at admission: an answer, not a success, and no
// completion latency (as in the packet's latency); r may be nil.
func (r *alertRT) refuse() {
	if r != nil && r.answers {
		r.answered++
	}
}

// alerts evaluates the scenario's alert rules on the tick that ends now, at (the instant
// the events are stamped), with the tick's sampled queue age; it records each rule that
// fires or clears.
func (a *arm) alerts(at time.Duration, queueAge time.Duration) {
	r := a.al
	if r == nil {
		return
	}
	for i := range r.evals {
		e := &r.evals[i]
		switch change, v, _ := e.step(a.alertObs(e.p, queueAge)); change {
		case alertFired:
			a.rec.AlertFired(at, i, fmt.Sprintf("%s fired: %s %s", e.p.name, e.p.metric, formatAlertValue(e.p.kind, v)))
		case alertCleared:
			a.rec.AlertCleared(at, i, e.p.name+" resolved")
		}
	}
	if r.answers {
		r.answered = 0
		r.lat.Reset()
	}
}

// alertObs measures rule p's metric on the tick that ends now.
func (a *arm) alertObs(p *alertPlan, queueAge time.Duration) alertObs {
	tk := &a.tk
	switch p.kind {
	case alertTimeoutRate:
		return alertObs{num: int64(tk.edgeTimeouts), den: int64(tk.edgeAttempts)}
	case alertQueueAge:
		return alertObs{num: int64(queueAge), den: 1}
	case alertGoodputFraction:
		return alertObs{num: int64(tk.goodput), den: int64(tk.offered)}
	case alertAmplification:
		return alertObs{num: int64(tk.attempts), den: int64(tk.offered)}
	case alertLatency:
		return alertObs{lat: &a.al.lat}
	case alertSuccessRate:
		return alertObs{num: int64(tk.goodput), den: a.al.answered}
	}
	return a.utilisation(p)
}

// utilisation samples a utilisation rule's resource: in use over capacity.
func (a *arm) utilisation(p *alertPlan) alertObs {
	var o alertObs
	switch p.res {
	case resConcurrency:
		o.num, o.den = int64(a.deps[p.idx].busy), int64(a.p.deps[p.idx].concurrency)
	case resPool:
		size := a.p.deps[p.idx].pool
		for _, s := range p.callers {
			for _, ii := range a.svcs[s].insts {
				if in := &a.insts[ii]; in.up {
					o.num += int64(in.pools[p.idx].inUse)
					o.den += int64(poolCap(size, in.factor))
				}
			}
		}
	case resWorkers:
		for _, ii := range a.svcs[p.idx].insts {
			if in := &a.insts[ii]; in.up {
				o.num += int64(in.busy)
				o.den += int64(in.workers)
			}
		}
	case resAdmission:
		if adm := a.pol.adm; adm != nil {
			o.num, o.den = int64(adm.InFlight()), int64(adm.Limit())
		}
	}
	return o
}

// formatAlertValue writes an alert metric's value for an event's text.
func formatAlertValue(kind int, v float64) string {
	switch kind {
	case alertQueueAge, alertLatency:
		return floatdur.Trunc(v).Round(time.Millisecond).String()
	case alertAmplification:
		return fmt.Sprintf("%.2fx", v)
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}

// alertBytes is what an arm's alert rules hold: each window's ticks (a latency
// histogram, or two counts, a tick) and each n_of_m's evaluations.
func (p *plan) alertBytes() int64 {
	var n int64
	for _, a := range p.alerts {
		per := int64(16)
		if a.kind == alertLatency {
			h := newSignalHist()
			per = h.Bytes()
		}
		if a.window > 1 {
			n += int64(a.window) * per
		}
		n += int64(a.m)
	}
	return n
}

// alertNames are the names of the rules evaluated on the named arm, in order, for its
// Recorder.
func (p *plan) alertNames(arm string) []string {
	var names []string
	for _, a := range p.alerts {
		if a.appliesTo(arm) {
			names = append(names, a.name)
		}
	}
	return names
}

// appliesTo reports whether the rule is evaluated on the named arm.
func (a *alertPlan) appliesTo(arm string) bool {
	return len(a.arms) == 0 || slices.Contains(a.arms, arm)
}
