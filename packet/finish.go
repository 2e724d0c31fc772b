package packet

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/goodput-lab/goodput/internal/latency"
)

// Finish computes the arm's packet: totals, rates, amplification, latency percentiles from
// merged histograms, per-class, per-layer and per-dependency figures, the objectives,
// the invariants and the recovery timings. Call it once, after the last event.
func (r *Recorder) Finish(objectives []ObjectiveSpec) Arm {
	for i := range r.ticks {
		r.flushTick(&r.ticks[i])
	}

	a := Arm{
		Name:            r.cfg.Arm,
		Start:           r.cfg.Start,
		Tick:            roundMS(r.tick),
		Duration:        roundS(r.end()),
		RejectedBy:      r.rejectedBy.counts(),
		ShedBy:          r.shedBy.counts(),
		Series:          r.rows,
		DependencyNames: slices.Clone(r.deps.list),
		CacheNames:      slices.Clone(r.caches.list),
		Duplicates:      r.dup,
		Transitions:     slices.Clone(r.transitions),
		Objectives:      []Objective{},
		Alerts:          r.alertResults(),
		Breakers:        r.breakerResults(),
	}
	if a.Transitions == nil {
		a.Transitions = []Transition{}
	}
	if r.dup.Other != nil {
		a.Duplicates.Other = copyMap(r.dup.Other)
	}

	// Populations by class, and their sums.
	t := &a.Totals
	all := newHist()
	for i, c := range r.cls {
		cs := ClassStats{
			Name:      r.classes.list[i],
			Offered:   c.offered,
			Admitted:  c.admitted,
			Rejected:  c.rejected,
			Goodput:   c.outcomes[Goodput],
			Late:      c.outcomes[Late],
			Expired:   c.outcomes[Expired],
			Failed:    c.outcomes[Failed],
			Ambiguous: c.outcomes[Ambiguous],
			Shed:      c.shed,
			Latency:   percentiles(&c.latency),
			QueueWait: percentiles(&c.queueWait),
			Remaining: percentiles(&c.remaining),
			Overdue:   c.overdue,
		}
		a.Classes = append(a.Classes, cs)
		t.Offered += cs.Offered
		t.Admitted += cs.Admitted
		t.Rejected += cs.Rejected
		t.Goodput += cs.Goodput
		t.Late += cs.Late
		t.Expired += cs.Expired
		t.Failed += cs.Failed
		t.Ambiguous += cs.Ambiguous
		t.Shed += cs.Shed
		all.Merge(&c.latency)
	}
	a.Latency = percentiles(&all)
	t.Unfinished = max(t.Admitted-(t.Goodput+t.Late+t.Expired+t.Failed+t.Ambiguous), 0)

	// Attempts by layer.
	for i, l := range r.lay {
		a.Layers = append(a.Layers, LayerStats{
			Name: r.layers.list[i], Attempts: l.attempts, Retries: l.retries,
			Orphans: l.orphans, CancelsCompleted: l.cancels,
		})
		t.Attempts += l.attempts
		t.Retries += l.retries
		t.Orphans += l.orphans
		t.CancelsCompleted += l.cancels
	}
	t.Suppressed = r.suppressed
	a.Retry = Retry{Retries: t.Retries, Suppressed: r.suppressed, SuppressedBy: r.suppressedBy.counts(), Budget: r.budget}
	r.derive(&a)

	// Gauges from the samples.
	conc := make([]struct {
		max, waitMax int
		sum          int64
		n            int
	}, len(r.deps.list))
	var ageSum time.Duration
	var sampled int
	first := true
	for _, row := range r.rows {
		if !row.Sampled {
			continue
		}
		sampled++
		ageSum += row.QueueAgeMax
		a.Queue.AgeMax = max(a.Queue.AgeMax, roundMS(row.QueueAgeMax))
		a.Queue.LenMax = max(a.Queue.LenMax, row.QueueLen)
		in := row.Instances
		c := &a.Capacity
		c.RequestedMax = max(c.RequestedMax, in.Requested)
		if first {
			c.RouteReadyMin, c.WarmMin = in.RouteReady, in.Warm
			first = false
		}
		c.RouteReadyMin = min(c.RouteReadyMin, in.RouteReady)
		c.RouteReadyMax = max(c.RouteReadyMax, in.RouteReady)
		c.WarmMin = min(c.WarmMin, in.Warm)
		c.WarmMax = max(c.WarmMax, in.Warm)
		if cold := in.RouteReady - in.Warm; cold > 0 {
			c.InstanceSecondsCold += float64(cold) * r.tick.Seconds()
		}
		for i, g := range row.Dependencies {
			conc[i].max = max(conc[i].max, g.InService)
			conc[i].waitMax = max(conc[i].waitMax, g.Waiting)
			conc[i].sum += int64(g.InService)
			conc[i].n++
		}
	}
	a.Samples = sampled
	a.Capacity.InstanceSecondsCold = round(a.Capacity.InstanceSecondsCold, 3)
	if sampled > 0 {
		a.Queue.AgeMean = roundMS(ageSum / time.Duration(sampled))
	}
	for i, d := range r.dep {
		ds := DependencyStats{
			Name: r.deps.list[i], Calls: d.calls,
			ConnWait: percentiles(&d.connWait), ServiceTime: percentiles(&d.service),
			ConcurrencyMax: conc[i].max, WaitingMax: conc[i].waitMax,
			PoolExhausted: d.poolExhausted,
		}
		if conc[i].n > 0 {
			ds.ConcurrencyMean = round(float64(conc[i].sum)/float64(conc[i].n), 3)
		}
		a.Dependencies = append(a.Dependencies, ds)
	}

	a.Health = slices.Clone(r.health)
	a.Caches = []CacheStats{}
	for i, c := range r.cache {
		hr, _ := ratio(c.hits, c.hits+c.misses)
		mp, _ := ratio(c.misses, t.Offered)
		cs := CacheStats{
			Name: r.caches.list[i], Hits: c.hits, Misses: c.misses, HitRatio: round(hr, 4),
			MissesPerOffered: round(mp, 4), Evictions: c.evictions, EntriesMin: -1,
		}
		for _, row := range r.rows {
			if row.Sampled && i < len(row.CacheEntries) {
				n := row.CacheEntries[i]
				if cs.EntriesMin < 0 || n < cs.EntriesMin {
					cs.EntriesMin = n
				}
				cs.EntriesMax = max(cs.EntriesMax, n)
			}
		}
		cs.EntriesMin = max(cs.EntriesMin, 0)
		a.Caches = append(a.Caches, cs)
	}

	a.Recovery = r.recovery(r.recoveryAfter(objectives))

	for _, s := range objectives {
		a.Objectives = append(a.Objectives, r.evaluate(s))
	}
	a.Invariants = r.invariants(&a)

	// The series as series.csv holds it (gauges to the microsecond), so that a packet read
	// back from its files equals this one.
	for i := range a.Series {
		row := &a.Series[i]
		row.QueueAgeMax, row.SlackP10 = roundMS(row.QueueAgeMax), roundMS(row.SlackP10)
	}
	a.Events = slices.Clone(r.events)
	slices.SortStableFunc(a.Events, func(x, y Event) int { return cmp.Compare(x.T, y.T) })
	if a.Classes == nil {
		a.Classes = []ClassStats{}
	}
	if a.Layers == nil {
		a.Layers = []LayerStats{}
	}
	if a.Dependencies == nil {
		a.Dependencies = []DependencyStats{}
	}
	return a
}

// Evaluate fills in what [Recorder.Finish] derives from an arm's series and populations,
// by Finish's own rules, for an arm that no Recorder built (a live run's): the rates, the
// amplification by layer, in total and at its peak tick, the retry ratio, the objectives
// of specs, the recovery timings and the invariants. It reads a.Series, Tick, Duration,
// Totals, Classes, Layers (their attempts) and Duplicates. A latency
// objective takes its percentile from a.Latency (or its class's); one with a window or a
// state has no data, since the arm keeps no histogram to cut by time. Of cfg, only
// StableFraction, DrainAge and RecoveryAfter count, as for a Recorder.
func (a *Arm) Evaluate(specs []ObjectiveSpec, cfg Config) {
	r := NewRecorder(Config{Tick: a.Tick, Duration: a.Duration, StableFraction: cfg.StableFraction,
		DrainAge: cfg.DrainAge, RecoveryAfter: cfg.RecoveryAfter})
	r.rows, r.fixed = a.Series, a
	r.derive(a)
	a.Recovery = r.recovery(r.recoveryAfter(specs))
	a.Objectives = []Objective{}
	for _, s := range specs {
		a.Objectives = append(a.Objectives, r.evaluate(s))
	}
	a.Invariants = r.invariants(a)
}

// derive computes the ratios of a's totals: amplification by layer and in total (with
// its peak tick), the retry ratio and the rates per second of the run.
func (r *Recorder) derive(a *Arm) {
	t := &a.Totals
	a.Amplification.ByLayer = make(map[string]float64, len(a.Layers))
	attempts := make([]int64, len(a.Layers))
	for i := range a.Layers {
		l := &a.Layers[i]
		amp, _ := ratio(l.Attempts, t.Offered)
		l.Amplification = round(amp, 4)
		a.Amplification.ByLayer[l.Name] = l.Amplification
		attempts[i] = l.Attempts
	}
	a.Amplification.Total = maxLayerRatio(attempts, t.Offered)
	a.Amplification.Peak, a.Amplification.PeakAt = r.peakAmplification()
	rr, _ := ratio(t.Retries, t.Admitted)
	a.Retry.Ratio = round(rr, 4)

	secs := r.end().Seconds()
	rate := func(n int64) float64 {
		if secs <= 0 {
			return 0
		}
		return round(float64(n)/secs, 3)
	}
	a.Rates = Rates{
		Offered: rate(t.Offered), Admitted: rate(t.Admitted), Rejected: rate(t.Rejected),
		Attempts: rate(t.Attempts), Goodput: rate(t.Goodput), Late: rate(t.Late),
		Expired: rate(t.Expired), Shed: rate(t.Shed), Failed: rate(t.Failed),
		Ambiguous: rate(t.Ambiguous), Retries: rate(t.Retries),
	}
}

// peakAmplification is the largest amplification of one tick of the run, and the start of
// that tick (see [Amplification.Peak]).
func (r *Recorder) peakAmplification() (peak float64, at time.Duration) {
	for i := range r.rows {
		row := &r.rows[i]
		if v, ok := row.Amplification(); ok && row.T < r.end() && v > peak {
			peak, at = v, roundS(row.T)
		}
	}
	return peak, at
}

// recoveryAfter is the instant recovery is measured from: RecoveryAfter, else the first
// time_to_normal objective's After, else 0.
func (r *Recorder) recoveryAfter(objectives []ObjectiveSpec) time.Duration {
	if r.cfg.RecoveryAfter != 0 {
		return r.cfg.RecoveryAfter
	}
	for _, s := range objectives {
		if s.Metric == "time_to_normal" {
			return s.After
		}
	}
	return 0
}

// maxLayerRatio is the amplification of the most amplified layer: max attempts / offered,
// rounded to four decimals; 0 when nothing was offered.
func maxLayerRatio(attempts []int64, offered int64) float64 {
	if offered == 0 {
		return 0
	}
	var m int64
	for _, n := range attempts {
		m = max(m, n)
	}
	return round(float64(m)/float64(offered), 4)
}

// end is the length of the run: the configured Duration, or the end of the last tick when
// Duration is zero.
func (r *Recorder) end() time.Duration {
	if r.cfg.Duration > 0 {
		return r.cfg.Duration
	}
	return time.Duration(len(r.rows)) * r.tick
}

// recovery computes the recovery timings measured from after.
func (r *Recorder) recovery(after time.Duration) Recovery {
	rc := Recovery{
		After:       roundS(after),
		StableFrac:  r.stableFrac,
		DrainAge:    roundMS(r.drainAge),
		StateSource: "derived",
	}
	for _, row := range r.rows {
		if row.Sampled && row.State != "" {
			rc.StateSource = "loadstate"
			break
		}
	}
	// holdsFrom returns the time from after at which ok starts holding for every remaining
	// counted tick, or nil if it does not hold on the last one (or no tick counts).
	holdsFrom := func(ok func(Row) (holds, counts bool)) *time.Duration {
		from := after
		seen, last := false, false
		for _, row := range r.rows {
			end := row.T + r.tick
			if end <= after {
				continue
			}
			h, counts := ok(row)
			if !counts {
				continue
			}
			seen, last = true, h
			if !h {
				from = end
			}
		}
		if !seen || !last {
			return nil
		}
		v := roundS(from - after)
		return &v
	}
	rc.Stabilize = holdsFrom(func(row Row) (bool, bool) {
		if row.Offered == 0 {
			return true, false
		}
		return float64(row.Goodput) >= r.stableFrac*float64(row.Offered), true
	})
	rc.Drain = holdsFrom(func(row Row) (bool, bool) {
		return row.QueueAgeMax <= r.drainAge, row.Sampled
	})
	if rc.StateSource == "loadstate" {
		rc.Normal = holdsFrom(func(row Row) (bool, bool) {
			return row.State == "Normal", row.Sampled
		})
	} else if rc.Stabilize != nil && rc.Drain != nil {
		v := max(*rc.Stabilize, *rc.Drain)
		rc.Normal = &v
	}
	return rc
}

// invariants checks the conservation laws on a finished arm.
func (r *Recorder) invariants(a *Arm) []Invariant {
	t := a.Totals
	var out []Invariant

	// offered = admitted + rejected, in total and for every class.
	inv := Invariant{Name: "offered = admitted + rejected", Pass: t.Offered == t.Admitted+t.Rejected}
	inv.Message = fmt.Sprintf("%d = %d + %d", t.Offered, t.Admitted, t.Rejected)
	var bad []string
	for _, c := range a.Classes {
		if c.Offered != c.Admitted+c.Rejected {
			bad = append(bad, fmt.Sprintf("%s: %d ≠ %d + %d", c.Name, c.Offered, c.Admitted, c.Rejected))
		}
	}
	if len(bad) > 0 {
		inv.Pass = false
		inv.Message += "; " + strings.Join(bad, "; ")
	}
	out = append(out, inv)

	// Exactly one terminal state per admitted request.
	term := t.Goodput + t.Late + t.Expired + t.Failed + t.Ambiguous
	inv = Invariant{Name: "admitted = goodput + late + expired + failed + ambiguous", Pass: t.Admitted == term}
	inv.Message = fmt.Sprintf("%d = %d + %d + %d + %d + %d", t.Admitted, t.Goodput, t.Late, t.Expired, t.Failed, t.Ambiguous)
	bad = bad[:0]
	for _, c := range a.Classes {
		ct := c.Goodput + c.Late + c.Expired + c.Failed + c.Ambiguous
		switch {
		case ct < c.Admitted:
			bad = append(bad, fmt.Sprintf("%s: %d admitted without a terminal state", c.Name, c.Admitted-ct))
		case ct > c.Admitted:
			bad = append(bad, fmt.Sprintf("%s: %d terminal states more than admitted", c.Name, ct-c.Admitted))
		}
	}
	if len(bad) > 0 {
		inv.Pass = false
		inv.Message += "; " + strings.Join(bad, "; ")
	}
	out = append(out, inv)

	// Retries are attempts: never more retries than attempts at a layer.
	inv = Invariant{Name: "retries ≤ attempts at every layer", Pass: true, Message: fmt.Sprintf("%d retries of %d attempts", t.Retries, t.Attempts)}
	for _, l := range a.Layers {
		if l.Retries > l.Attempts {
			inv.Pass = false
			inv.Message += fmt.Sprintf("; %s: %d retries > %d attempts", l.Name, l.Retries, l.Attempts)
		}
	}
	out = append(out, inv)

	// Duplicate mutations are counted under their kind. Whether there may be any is an
	// objective (the baseline is expected to produce some); the invariant is that every
	// duplicate the model reports lands in a named count, not in an unknown kind.
	d := a.Duplicates
	inv = Invariant{Name: "duplicates counted by kind", Pass: len(d.Other) == 0}
	inv.Message = fmt.Sprintf("%d duplicate payment authorisations, %d duplicate order commits", d.PaymentAuthorizations, d.OrderCommits)
	for _, k := range sortedKeys(d.Other) {
		inv.Message += fmt.Sprintf(", %d of unknown kind %q", d.Other[k], k)
	}
	out = append(out, inv)
	return out
}

// percentiles summarises a histogram of microseconds.
func percentiles(h *latency.Histogram) Percentiles {
	n := h.Count()
	if n == 0 {
		return Percentiles{}
	}
	us := func(p float64) time.Duration { return time.Duration(h.ValueAtPercentile(p)) * time.Microsecond }
	return Percentiles{
		Count: n,
		P50:   us(50),
		P90:   us(90),
		P99:   us(99),
		P999:  us(99.9),
		Max:   time.Duration(h.Max()) * time.Microsecond,
		Mean:  fromMS(round(h.Mean()/1000, 3)),
	}
}

func copyMap(m map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
