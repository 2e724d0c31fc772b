package trials

import (
	"math"
	"slices"
	"time"

	"github.com/goodput-lab/goodput/packet"
)

// Figure describes one figure a sweep records for every arm of every trial.
type Figure struct {
	// Key names the figure in trials.json (runs[].arms[].figures).
	Key string `json:"key"`
	// Section is the table's heading the figure is printed under.
	Section string `json:"section"`
	// Label is how the terminal table names it.
	Label string `json:"label"`
	// Unit is "" for counts, "ratio" for a fraction (0.5 is half), "x" for attempts per
	// offered request, "ms" or "s".
	Unit string `json:"unit"`
	// Better is +1 when a higher value is better, -1 when a lower one is, 0 when neither
	// (rejections and shed optional work are a policy's choice, not a defect).
	Better int `json:"better"`
	// Optional marks a figure that only some scenarios have (a cache hit ratio needs
	// caches): the tables and pages leave it out when no trial of any arm measured it.
	Optional bool `json:"optional,omitempty"`

	get func(a *packet.Arm) (float64, bool)
}

// figures are the figures a sweep records, in the order the table prints them. Each comes
// from the arm's packet; a figure the run could not measure (a recovery that never came) is
// missing from that trial, not zero.
var figures = sectioned([]Figure{
	count("offered", "offered", 0, func(a *packet.Arm) int64 { return a.Totals.Offered }),
	count("admitted", "admitted", 0, func(a *packet.Arm) int64 { return a.Totals.Admitted }),
	count("rejected", "rejected", 0, func(a *packet.Arm) int64 { return a.Totals.Rejected }),
	count("attempts", "attempts (physical work), summed over every layer", -1, func(a *packet.Arm) int64 { return a.Totals.Attempts }),
	count("goodput", "goodput", +1, func(a *packet.Arm) int64 { return a.Totals.Goodput }),
	count("late", "late", -1, func(a *packet.Arm) int64 { return a.Totals.Late }),
	count("expired", "expired", -1, func(a *packet.Arm) int64 { return a.Totals.Expired }),
	count("shed", "optional features shed (not requests)", 0, func(a *packet.Arm) int64 { return a.Totals.Shed }),
	count("failed", "failed", -1, func(a *packet.Arm) int64 { return a.Totals.Failed }),
	count("ambiguous", "ambiguous", -1, func(a *packet.Arm) int64 { return a.Totals.Ambiguous }),
	{Key: "goodput_fraction", Label: "goodput / offered", Unit: "ratio", Better: +1, get: func(a *packet.Arm) (float64, bool) {
		if a.Totals.Offered == 0 {
			return 0, false
		}
		return round(float64(a.Totals.Goodput)/float64(a.Totals.Offered), 6), true
	}},
	value("amplification", "amplification: the most amplified layer", "x", -1, func(a *packet.Arm) float64 { return a.Amplification.Total }),
	{Key: "amplification_peak", Label: "the most amplified layer's worst tick", Unit: "x", Better: -1, get: func(a *packet.Arm) (float64, bool) {
		return a.Amplification.Peak, a.Amplification.Peak > 0
	}},
	latency("latency_p50_ms", "p50", func(p packet.Percentiles) time.Duration { return p.P50 }),
	latency("latency_p99_ms", "p99", func(p packet.Percentiles) time.Duration { return p.P99 }),
	latency("latency_p999_ms", "p99.9", func(p packet.Percentiles) time.Duration { return p.P999 }),
	{Key: "queue_age_max_ms", Label: "oldest queue age, highest sample (ms)", Unit: "ms", Better: -1, get: func(a *packet.Arm) (float64, bool) {
		return packet.Milliseconds(a.Queue.AgeMax), a.Samples > 0
	}},
	count("retries", "retries", -1, func(a *packet.Arm) int64 { return a.Retry.Retries }),
	value("retry_ratio", "retries / admitted", "ratio", -1, func(a *packet.Arm) float64 { return a.Retry.Ratio }),
	count("suppressed", "retries suppressed (not made)", 0, func(a *packet.Arm) int64 { return a.Retry.Suppressed }),
	count("orphans", "orphaned work (finished after its caller stopped waiting)", -1, func(a *packet.Arm) int64 { return a.Totals.Orphans }),
	count("duplicates", "duplicate mutations", -1, func(a *packet.Arm) int64 { return a.Duplicates.Total() }),
	{Key: "cache_hit_ratio", Label: "cache hit ratio, every cache", Unit: "ratio", Better: +1, Optional: true, get: cacheHitRatio},
	health("instance_removals", "instances taken out of routing", func(h packet.HealthStats) int64 { return h.Removals }),
	health("instance_restarts", "instances restarted", func(h packet.HealthStats) int64 { return h.Restarts }),
	recovery("recovery_stabilize_s", "goodput stable again", func(r packet.Recovery) *time.Duration { return r.Stabilize }),
	recovery("recovery_drain_s", "queues drained", func(r packet.Recovery) *time.Duration { return r.Drain }),
	recovery("recovery_normal_s", "back to Normal", func(r packet.Recovery) *time.Duration { return r.Normal }),
})

func count(key, label string, better int, f func(a *packet.Arm) int64) Figure {
	return Figure{Key: key, Label: label, Better: better, get: func(a *packet.Arm) (float64, bool) { return float64(f(a)), true }}
}

func value(key, label, unit string, better int, f func(a *packet.Arm) float64) Figure {
	return Figure{Key: key, Label: label, Unit: unit, Better: better, get: func(a *packet.Arm) (float64, bool) { return f(a), true }}
}

func latency(key, label string, f func(packet.Percentiles) time.Duration) Figure {
	return Figure{Key: key, Label: label, Unit: "ms", Better: -1, get: func(a *packet.Arm) (float64, bool) {
		return packet.Milliseconds(f(a.Latency)), a.Latency.Count > 0
	}}
}

// health figures add up what the health checks did over every service that has them;
// they are missing from an arm without health checks.
func health(key, label string, f func(packet.HealthStats) int64) Figure {
	return Figure{Key: key, Label: label, Better: -1, Optional: true, get: func(a *packet.Arm) (float64, bool) {
		var n int64
		for _, h := range a.Health {
			n += f(h)
		}
		return float64(n), len(a.Health) > 0
	}}
}

// recovery figures are missing when the arm never recovered before the end of the run, or
// when the scenario has nothing to recover from.
func recovery(key, label string, f func(packet.Recovery) *time.Duration) Figure {
	return Figure{Key: key, Label: label, Unit: "s", Better: -1, get: func(a *packet.Arm) (float64, bool) {
		v := f(a.Recovery)
		if v == nil {
			return 0, false
		}
		return packet.Seconds(*v), true
	}}
}

// sections heads the figures, by the key of the first figure under each heading; the
// terminal table of one replay (report) uses the same words where it has the same figures.
var sections = map[string]string{
	"offered":              "Logical requests by outcome, attempts and optional features shed",
	"amplification":        "Amplification (attempts per offered request)",
	"latency_p50_ms":       "Completion latency of admitted requests, any outcome (ms)",
	"queue_age_max_ms":     "Queue (sampled once a tick)",
	"retries":              "Retries (every layer), orphaned work and duplicate mutations",
	"cache_hit_ratio":      "Caches",
	"instance_removals":    "Health checks",
	"recovery_stabilize_s": "Recovery, seconds after the time_to_normal objective's after (t=0 s without one)",
}

// sectioned sets every figure's Section from sections.
func sectioned(fs []Figure) []Figure {
	sec := ""
	for i := range fs {
		if h, ok := sections[fs[i].Key]; ok {
			sec = h
		}
		fs[i].Section = sec
	}
	return fs
}

// cacheHitRatio is the share of lookups that hit, over every cache of the arm; it is
// missing when the arm looked nothing up.
func cacheHitRatio(a *packet.Arm) (float64, bool) {
	var hits, lookups int64
	for _, c := range a.Caches {
		hits += c.Hits
		lookups += c.Hits + c.Misses
	}
	if lookups == 0 {
		return 0, false
	}
	return round(float64(hits)/float64(lookups), 6), true
}

// Shown reports whether the tables and pages show figure i of the sweeps (the same
// figures in each): always, unless it is optional and no trial of any arm measured it.
func Shown(i int, sums ...*Summary) bool {
	if len(sums) == 0 || i < 0 || i >= len(sums[0].Figures) || !sums[0].Figures[i].Optional {
		return true
	}
	for _, s := range sums {
		for _, a := range s.Spread {
			if i < len(a.Figures) && a.Figures[i].N > 0 {
				return true
			}
		}
	}
	return false
}

// figureIndex maps a figure's key to its index in figures.
var figureIndex = func() map[string]int {
	m := make(map[string]int, len(figures))
	for i, f := range figures {
		m[f.Key] = i
	}
	return m
}()

// armRun extracts one arm's set, figures, objectives, failed invariants and alerts from its packet.
func armRun(a *packet.Arm) ArmRun {
	r := ArmRun{Name: a.Name, Set: a.Set, Figures: make(map[string]*float64, len(figures)), Alerts: alertRuns(a)}
	for _, f := range figures {
		if v, ok := f.get(a); ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
			r.Figures[f.Key] = &v
		} else {
			r.Figures[f.Key] = nil
		}
	}
	for _, o := range a.Objectives {
		r.Objectives = append(r.Objectives, ObjectiveRun{Name: o.Name, Metric: o.Metric, Unit: o.Unit, Statistic: o.Statistic, Pass: o.Pass, Value: o.Value, NoData: o.NoData, Censored: o.Censored})
	}
	for _, inv := range a.Invariants {
		if !inv.Pass {
			r.InvariantsFailed = append(r.InvariantsFailed, inv.Name+": "+inv.Message)
		}
	}
	return r
}

// round rounds x to d decimals.
func round(x float64, d int) float64 {
	p := math.Pow10(d)
	return math.Round(x*p) / p
}

// Figures returns the figures a sweep records, in the order the table prints them.
func Figures() []Figure { return slices.Clone(figures) }

// Value is the figure's value for arm a, in its Unit; ok is false when the arm did not
// measure it (a recovery that never came). goodput diff compares packets with it.
func (f Figure) Value(a *packet.Arm) (v float64, ok bool) {
	if f.get == nil {
		return 0, false
	}
	v, ok = f.get(a)
	if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}
