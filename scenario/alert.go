package scenario

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Alert is a rule evaluated once per tick on each arm (or the arms it names), in the forms monitoring uses: a
// metric over a window (the last tick by default) crossing a threshold, firing once it
// has been crossed for a duration (for) or in n of the last m evaluations (n_of_m), and
// clearing once that condition has stopped holding for clear_for. Every firing and
// clearing is an "alert" event in events.jsonl, and each arm of packet.json reports, per
// rule, when it first fired (the time to detect), its flaps (fires after a clear) and its
// last clear. A window with nothing to divide by counts as 0 for timeout_rate and 1 for
// goodput_fraction and amplification; for the other metrics it has no data (no answers,
// no capacity, no admission limit), and no data does not cross the threshold.
type Alert struct {
	// Name names the alert; names are unique among the alerts.
	Name string `yaml:"name" json:"name"`
	// Metric is what the rule watches over its window: timeout_rate (edge timeouts per
	// edge attempt), queue_age (oldest useful queued work, the mean of the window's
	// samples), goodput_fraction (goodput per offered request), amplification (attempts at
	// every layer per offered request), latency_p50, latency_p99 and latency_p999
	// (completion latency, any outcome, of the requests whose callers had their answer or
	// gave up in the window, to the 12.5% bucket above it), success_rate (goodput over the
	// requests whose callers had their answer or gave up in the window: rejected at
	// admission, goodput, late, expired, failed and ambiguous, each counted when its caller
	// had the answer or gave up), or utilisation (the share of a resource in use, sampled
	// at each tick's end and summed over the window: in use over capacity).
	Metric string `yaml:"metric" json:"metric" jsonschema:"enum=timeout_rate,enum=queue_age,enum=goodput_fraction,enum=amplification,enum=latency_p50,enum=latency_p99,enum=latency_p999,enum=success_rate,enum=utilisation"`
	// Resource is what a utilisation rule watches (only with metric utilisation).
	Resource *Resource `yaml:"resource,omitempty" json:"resource,omitempty,omitzero"`
	// Window is the span the metric is measured over, ending at the tick evaluated: a
	// whole number of ticks, at most the run and 10,000 ticks (at the start of the run,
	// the ticks so far). Zero means one tick.
	Window Duration `yaml:"window,omitempty" json:"window,omitempty,omitzero"`
	// Above and Below are the thresholds (one of them), in the metric's units: a duration
	// for queue_age and the latencies, a percentage (or a ratio) for timeout_rate,
	// goodput_fraction, success_rate and utilisation, a number for amplification. The
	// threshold is crossed when the value is strictly above (below) it.
	Above *Bound `yaml:"above,omitempty" json:"above,omitempty,omitzero"`
	Below *Bound `yaml:"below,omitempty" json:"below,omitempty,omitzero"`
	// For is how long the threshold must have been crossed, tick after tick, before the
	// alert fires; zero fires on the first tick that crosses it. Not with n_of_m.
	For Duration `yaml:"for,omitempty" json:"for,omitempty,omitzero"`
	// NOfM fires the alert when the threshold was crossed in at least n of the last m
	// evaluations (one a tick), instead of for a duration; it clears when fewer than n of
	// the last m crossed it.
	NOfM *NOfM `yaml:"n_of_m,omitempty" json:"n_of_m,omitempty,omitzero"`
	// ClearFor is how long a firing alert's condition must have stopped holding before it
	// clears (a fire after that is a flap): for a for rule, the threshold not crossed, tick
	// after tick; for an n_of_m rule, fewer than n of the last m crossing it. Zero clears
	// on the first tick the condition does not hold.
	ClearFor Duration `yaml:"clear_for,omitempty" json:"clear_for,omitempty,omitzero"`
	// Arms names the arms the rule is evaluated on, e.g. [candidate]; empty means every
	// arm. An arm's packet.json reports its own rules only, so a candidate arm can carry
	// monitoring the arm as it happened did not have, on the same load and draws.
	Arms []string `yaml:"arms,omitempty" json:"arms,omitempty,omitzero"`
}

// NOfM is the n-of-m form of an alert: at least N of the last M evaluations.
type NOfM struct {
	// N is how many of the last M evaluations must cross the threshold (1 or more).
	N int `yaml:"n" json:"n"`
	// M is how many evaluations, one a tick, are looked at (N or more).
	M int `yaml:"m" json:"m"`
}

// The resources a utilisation alert watches ([Resource.Of]).
const (
	ResourcePool        = "pool"        // a dependency's connection pools, over its callers' instances that are up
	ResourceConcurrency = "concurrency" // a dependency's concurrency limit
	ResourceWorkers     = "workers"     // a service's workers, over the instances that are up
	ResourceAdmission   = "admission"   // the arm's admission limit (no data in an arm without one)
)

// Resource is what a utilisation alert watches: a dependency's connection pools (of:
// pool: connections in use over the pools' size, summed over the instances whose process
// is up of the services that call it) or its concurrency limit (of: concurrency: calls in
// service over the limit), a service's workers (of: workers: busy workers over all
// workers of its instances that are up), or the admission limit (of: admission: admitted
// requests in flight over the limit; an arm without admission control has no data).
type Resource struct {
	// Dependency names the dependency, for of: pool and of: concurrency.
	Dependency string `yaml:"dependency,omitempty" json:"dependency,omitempty,omitzero"`
	// Service names the service, for of: workers.
	Service string `yaml:"service,omitempty" json:"service,omitempty,omitzero"`
	// Of is the resource: pool, concurrency, workers or admission.
	Of string `yaml:"of" json:"of" jsonschema:"enum=pool,enum=concurrency,enum=workers,enum=admission"`
}

// The metrics an alert watches.
const (
	AlertTimeoutRate     = "timeout_rate"
	AlertQueueAge        = "queue_age"
	AlertGoodputFraction = "goodput_fraction"
	AlertAmplification   = "amplification"
	AlertLatencyP50      = "latency_p50"
	AlertLatencyP99      = "latency_p99"
	AlertLatencyP999     = "latency_p999"
	AlertSuccessRate     = "success_rate"
	AlertUtilisation     = "utilisation"
)

var alertMetrics = []string{AlertTimeoutRate, AlertQueueAge, AlertGoodputFraction, AlertAmplification,
	AlertLatencyP50, AlertLatencyP99, AlertLatencyP999, AlertSuccessRate, AlertUtilisation}

// MaxAlertTicks is the most ticks an alert's window or n_of_m may span.
const MaxAlertTicks = 10_000

// WindowTicks is how many ticks the alert's window spans at tick period tick (1 for no
// window).
func (a Alert) WindowTicks(tick time.Duration) int {
	if a.Window <= 0 || tick <= 0 {
		return 1
	}
	return int(max(1, a.Window.Std()/tick))
}

// fits reports whether the alert can be evaluated in a run of length end at tick period
// tick: what Validate refuses of its times.
func (a Alert) fits(end, tick time.Duration) bool {
	if a.For.Std() >= end || a.ClearFor.Std() >= end || a.Window.Std() > end {
		return false
	}
	return a.NOfM == nil || time.Duration(a.NOfM.M) <= end/tick
}

func (v *validator) alerts(n topoNames) {
	seen := map[string]bool{}
	for i, a := range v.s.Alerts {
		p := fmt.Sprintf("$.alerts[%d]", i)
		switch {
		case strings.TrimSpace(a.Name) == "":
			v.addf(p+".name", "name is empty; expected a name, e.g. checkout timeouts")
		case seen[a.Name]:
			v.addf(p+".name", "alert %q appears twice; expected unique alert names (packet.json reports each by name)", a.Name)
		}
		seen[a.Name] = true
		if !oneOf(a.Metric, alertMetrics...) {
			v.addf(p+".metric", "unknown alert metric %q; expected one of %s", a.Metric, strings.Join(alertMetrics, ", "))
		}
		switch {
		case a.Above == nil && a.Below == nil:
			v.addf(p, "the alert has no threshold; expected above or below")
		case a.Above != nil && a.Below != nil:
			v.addf(p, "the alert sets both above and below; expected one")
		}
		for _, b := range []struct {
			name string
			b    *Bound
		}{{"above", a.Above}, {"below", a.Below}} {
			if b.b != nil && !alertBoundFits(a.Metric, b.b.Unit) {
				v.addf(p+"."+b.name, "%s %s does not fit metric %s; expected a duration for queue_age and the latencies, a percentage for timeout_rate, goodput_fraction, success_rate and utilisation, a number for amplification", b.name, b.b, a.Metric)
			}
		}
		v.alertResource(p, a, n)
		v.alertTimes(p, a)
		v.alertArms(p, a)
	}
}

// alertArms checks the arms an alert names: each declared, none twice.
func (v *validator) alertArms(p string, a Alert) {
	seen := map[string]bool{}
	for j, name := range a.Arms {
		ap := fmt.Sprintf("%s.arms[%d]", p, j)
		switch {
		case !slices.ContainsFunc(v.s.Arms, func(x Arm) bool { return x.Name == name }):
			v.addf(ap, "arm %q is not declared; expected one of %s", name, quoteList(armNames(v.s)))
		case seen[name]:
			v.addf(ap, "arm %q is named twice; expected each arm once", name)
		}
		seen[name] = true
	}
}

// alertBoundFits reports whether a threshold written in unit u suits alert metric m.
func alertBoundFits(m string, u BoundUnit) bool {
	switch m {
	case AlertQueueAge, AlertLatencyP50, AlertLatencyP99, AlertLatencyP999:
		return u == UnitDuration
	case AlertTimeoutRate, AlertGoodputFraction, AlertSuccessRate, AlertUtilisation:
		return u == UnitPercent || u == UnitNumber
	case AlertAmplification:
		return u == UnitNumber
	}
	return true // an unknown metric is reported on its own
}

// alertResource checks a utilisation rule's resource: present only on utilisation, of a
// known kind, naming a declared dependency or service that has that resource.
func (v *validator) alertResource(p string, a Alert, n topoNames) {
	r := a.Resource
	switch {
	case a.Metric == AlertUtilisation && r == nil:
		v.addf(p, "utilisation needs a resource; expected e.g. resource: {dependency: payments, of: pool}")
		return
	case r == nil:
		return
	case a.Metric != AlertUtilisation:
		v.addf(p+".resource", "resource is only read by metric utilisation; expected metric: utilisation (or no resource)")
		return
	}
	p += ".resource"
	t := v.s.Topology
	dep := func() (Dependency, bool) {
		if r.Service != "" {
			v.addf(p+".service", "of: %s is a dependency's; expected dependency, not service", r.Of)
		}
		i, ok := n.deps[r.Dependency]
		switch {
		case r.Dependency == "":
			v.addf(p+".dependency", "of: %s needs a dependency; expected one of %s", r.Of, quoteList(dependencyNames(t)))
		case !ok:
			v.addf(p+".dependency", "dependency %q is not declared; expected one of %s", r.Dependency, quoteList(dependencyNames(t)))
		default:
			return t.Dependencies[i], true
		}
		return Dependency{}, false
	}
	switch r.Of {
	case ResourcePool:
		if d, ok := dep(); ok && d.Pool.PerInstance <= 0 {
			v.addf(p+".dependency", "dependency %q has no connection pool (pool.per_instance), so its pool has no share in use; expected a dependency with a pool, or of: concurrency", r.Dependency)
		}
	case ResourceConcurrency:
		if d, ok := dep(); ok && d.Concurrency <= 0 {
			v.addf(p+".dependency", "dependency %q has no concurrency limit, so no share of it is in use; expected a dependency with concurrency, or of: pool", r.Dependency)
		}
	case ResourceWorkers:
		if r.Dependency != "" {
			v.addf(p+".dependency", "of: workers is a service's; expected service, not dependency")
		}
		if _, ok := n.services[r.Service]; !ok {
			v.addf(p+".service", "service %q is not declared; expected one of %s", r.Service, quoteList(serviceNames(t)))
		}
	case ResourceAdmission:
		if r.Dependency != "" || r.Service != "" {
			v.addf(p, "of: admission is the arm's admission limit; expected neither dependency nor service")
		}
	default:
		v.addf(p+".of", "unknown resource %q; expected pool, concurrency (of a dependency), workers (of a service) or admission", r.Of)
	}
}

// alertTimes checks an alert's window, for, n_of_m and clear_for against the run and its
// tick.
func (v *validator) alertTimes(p string, a Alert) {
	run := v.s.Clock.Duration
	switch {
	case a.Window < 0:
		v.addf(p+".window", "window is %s; expected a positive span (or omit it for one tick)", a.Window)
	case v.end == 0 || a.Window == 0:
	case a.Window.Std() > v.end:
		v.addf(p+".window", "window %s is longer than the run (%s); expected at most the run", a.Window, run)
	case a.Window.Std()%v.tick != 0:
		v.addf(p+".window", "window %s is not a whole number of ticks (%s); expected a multiple of the tick", a.Window, Duration(v.tick))
	case a.Window.Std()/v.tick > MaxAlertTicks:
		v.addf(p+".window", "window %s spans %d ticks of %s; expected at most %d ticks", a.Window, a.Window.Std()/v.tick, Duration(v.tick), MaxAlertTicks)
	}
	switch {
	case a.For < 0:
		v.addf(p+".for", "for is %s; expected zero or more", a.For)
	case v.outside(a.For):
		v.addf(p+".for", "for %s is not shorter than the run (%s), so the alert can never fire; expected a shorter time the condition must hold", a.For, run)
	}
	if m := a.NOfM; m != nil {
		q := p + ".n_of_m"
		switch {
		case a.For != 0:
			v.addf(q, "the alert sets both for and n_of_m; expected one form")
		case m.N < 1:
			v.addf(q+".n", "n is %d; expected at least 1 evaluation that crosses the threshold", m.N)
		case m.M < m.N:
			v.addf(q+".m", "m is %d, fewer than n (%d); expected m of at least n evaluations", m.M, m.N)
		case m.M > MaxAlertTicks:
			v.addf(q+".m", "m is %d; expected at most %d evaluations", m.M, MaxAlertTicks)
		case v.end > 0 && time.Duration(m.M) > v.end/v.tick:
			v.addf(q+".m", "m is %d evaluations of one tick (%s), longer than the run (%s); expected at most %d", m.M, Duration(v.tick), run, v.end/v.tick)
		}
	}
	switch {
	case a.ClearFor < 0:
		v.addf(p+".clear_for", "clear_for is %s; expected zero or more", a.ClearFor)
	case v.outside(a.ClearFor):
		v.addf(p+".clear_for", "clear_for %s is not shorter than the run (%s), so the alert could never clear; expected a shorter time", a.ClearFor, run)
	}
}
