package model

import (
	"math"
	"slices"
	"time"
	"unsafe"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
)

// Cost is what a replay of a scenario will take, estimated from the scenario alone
// without running it: get one with [Estimate], and compare it with a budget before
// calling [Run]. The per-arm figures are upper bounds of what an arm measures (its
// offered requests, its attempts, the events its engine delivers, its records in flight
// at once), except Events, which is what a run typically takes; Memory and Wall are
// figures for the whole run, every arm together.
type Cost struct {
	// Arms is the number of arms; they run at the same time, each on its own goroutine.
	Arms int
	// Requests is the logical requests an arm is offered: the integral of the rate
	// schedules (load.schedule's and the classes' own, ramps included) over the clock,
	// with the shift faults' multipliers, plus every burst's arrivals and the users at
	// the most they can send (one request a mean think time each), plus six standard
	// deviations of a Poisson count (a draw above it has a chance below 1e-9).
	Requests int64
	// ByClass is Requests by class, in the scenario's order (each with its own margin, so
	// they add up to a little more than Requests).
	ByClass []int64
	// Attempts bounds an arm's attempts at every layer: for each request, every attempt
	// its entry may send (1 + the entry's retries), counted by the entry and by the
	// service it reaches, each making every try of every dependency stage of its class
	// (1 + the dependency's retries); a job's re-submissions (at most its class's requests,
	// and what its rate sends to the end) count as requests here and in the events.
	Attempts int64
	// Events is what an arm's engine typically delivers: every request answered at its
	// first attempt, one event for its arrival and one for each dependency call and each
	// run of consecutive work stages, no timeout firing; plus the ticks, health probes and
	// faults. A run with timeouts and retries delivers more, up to EventsMax.
	Events int64
	// EventsMax bounds an arm's events: per request its arrival, its deadline and reserve
	// timers, and for every attempt its timeout, its retry's backoff and, per stage, one
	// event of work or, for every try of a call, its answer, its timeout and its retry's
	// backoff; plus the ticks, every health probe with its timeout and kill, the instances'
	// start and warm-up, the faults and the rate changes.
	EventsMax int64
	// PeakRate is the highest offered rate, per second, the shift faults included.
	PeakRate float64
	// Lifetime is the longest a caller keeps a request, over the arms: its entry's
	// attempts with their timeouts and backoffs, cut at the class's deadline by a policy
	// that propagates it; the whole run (the clock and the drain) where neither bounds it.
	Lifetime time.Duration
	// InFlight bounds the logical requests an arm holds at once, over the arms: the peak
	// rate over Lifetime (with the Poisson margin), plus the requests that abandoned work
	// keeps alive after their caller left, which the topology bounds: an attempt in a
	// worker or a queue place of an instance (every instance a scale fault may add
	// counted), a call holding a pool's connection, or, without a pool, living its service
	// time (its 1 − 1e-6 quantile, the faults' included; a call that may hang, its
	// timeout). An entry without a timeout keeps a request as long as its attempt can run:
	// a count-bounded queue's wait, its work and each call cut at its timeout, under every
	// plan of the arm (its sets and actions). An unbounded queue, or a dependency queue that
	// no pool bounds, bounds nothing: InFlight is then Requests.
	InFlight int64
	// BytesPerRequest is the memory one request in flight takes: its record (the request
	// with room for one attempt and one call), an attempt and a call of overflow, a key in
	// an idempotency ledger, and, doubled for the rings that grow by doubling, two pending
	// events, three timers, a place in an instance queue and one in a waiting list.
	// TestEstimateBytesPerRequest checks it against the heap of a replay.
	BytesPerRequest int64
	// Memory is the whole run's peak memory, every arm together: InFlight ×
	// BytesPerRequest per arm, plus each arm's fixed costs (the series' rows, one a tick,
	// and the recorder's histograms).
	Memory int64
}

// EventsPerSecond is the rate at which one arm's goroutine is assumed to deliver events
// when [Cost.Wall] turns events into time: a conservative figure, about half of what the
// Northstar replay runs at per arm on the project's 2-vCPU VM (10.5–13.1 M events/s over
// both arms; docs/benchmarks.md).
const EventsPerSecond = 3_000_000

// Wall is the wall time the run is expected to take with procs goroutines running at
// once: every arm's Events at [EventsPerSecond] each, the arms sharing min(procs, arms)
// processors.
func (c Cost) Wall(procs int) time.Duration {
	par := max(1, min(procs, c.Arms))
	s := float64(c.Events) * float64(c.Arms) / (EventsPerSecond * float64(par))
	return time.Duration(math.Min(s*float64(time.Second), math.MaxInt64))
}

// Memory sizes used by the estimate, in bytes: the records of package model and what
// the engine, the timer queues and the ledger keep for a request.
const (
	pendingEventBytes = 64 // an engine slot (sim's slot, 56 bytes) and its wheel link
	timerBytes        = int64(unsafe.Sizeof(tqEntry{}))
	ledgerKeyBytes    = 128 // a key (a base-36 identity), its record and its share of the map
	waitingBytes      = 8   // a ref in a ring
	queueItemBytes    = 16  // an item of control/queue's ring
	// fixed costs of an arm's recorder: its histograms (HdrHistograms of latency, queue
	// wait and remaining deadline per class, service time per dependency, and the
	// per-tick ring) and what every run allocates whatever its load.
	armBaseBytes  = 4 << 20
	histBytes     = 64 << 10 // one HdrHistogram at the recorder's precision
	rowExtraBytes = 16       // per name of a row's slices (layer attempts, gauges)
)

// bytesPerRequest is Cost.BytesPerRequest.
func bytesPerRequest() int64 {
	objects := int64(unsafe.Sizeof(record{})+unsafe.Sizeof(attempt{})+unsafe.Sizeof(call{})) + ledgerKeyBytes
	return objects + 2*(2*pendingEventBytes+3*timerBytes+queueItemBytes+waitingBytes)
}

// Estimate estimates what a replay of sc costs (see [Cost]), without running it. It
// validates sc as [Run] does and returns its errors. Each arm is costed on its own
// inputs: the file's, or, for an arm with a set: or actions, every plan it replays
// (estimateArms).
func Estimate(sc *scenario.Scenario) (Cost, error) {
	p, err := compile(sc)
	if err != nil {
		return Cost{}, err
	}
	return estimateArms(p, sc)
}

// estimatePlan is the cost of replaying arms on plan p, each arm's figures the most of
// any of them and Memory their sum. ps are all the plans the arms replay (p among them):
// an attempt's life is bounded over them, since work in progress at an action keeps what
// it started with.
func estimatePlan(p *plan, ps []*plan, arms []scenario.Arm) Cost {
	c := Cost{Arms: len(arms), BytesPerRequest: bytesPerRequest()}
	mean, peak := p.offered()
	own, ownPeak := p.ownOffered()
	c.PeakRate = peak + ownPeak
	c.Requests = poissonBound(mean + sum(own))
	perReq := 0.0    // typical events per request of load.schedule's, by share
	ownEvents := 0.0 // typical events of the other load
	var maxEvents, attempts float64
	for i := range p.nClasses {
		share := p.share(i)
		n := poissonBound(mean*share + own[i])
		c.ByClass = append(c.ByClass, n)
		resent := p.jobRequests(i, n)
		// With cells a request runs in one cell's copy of its class: the costliest bounds it.
		var tries, typical, calls, perAttempt float64
		for k := i; k < len(p.classes); k += p.nClasses {
			t, ty, ca, pa := p.classCost(&p.classes[k])
			tries, typical, calls, perAttempt = max(tries, t), max(typical, ty), max(calls, ca), max(perAttempt, pa)
		}
		perReq += share * typical
		ownEvents += (own[i] + resent) * typical
		attempts += (float64(n) + resent) * tries * (2 + calls)
		maxEvents += (float64(n) + resent) * (3 + tries*perAttempt) // arrival, deadline, reserve
	}
	fixed := p.fixedEvents()
	c.Attempts = ceil64(attempts)
	c.Events = ceil64(perReq*mean + ownEvents + fixed)
	c.EventsMax = ceil64(maxEvents + fixed)

	whole := p.duration + p.drain
	for _, ad := range arms {
		life := callerLife(ps, ad.Policy)
		// A job's requests come beside the offered ones, and, each re-submitting one that
		// ended, never more of them than the offered requests.
		rate := c.PeakRate + jobRate(p, ad.Name)
		inflight := float64(c.Requests)
		if life < whole {
			c.Lifetime = max(c.Lifetime, life)
			orphans, ok := 0.0, true
			for _, q := range ps {
				o, bounded := q.orphans(rate)
				orphans, ok = math.Max(orphans, o), ok && bounded
			}
			if ok {
				inflight = math.Min(inflight, float64(poissonBound(rate*life.Seconds()))+orphans)
			}
		} else {
			c.Lifetime = whole
		}
		c.InFlight = max(c.InFlight, ceil64(inflight))
		c.Memory = ceil64(float64(c.Memory) + inflight*float64(c.BytesPerRequest) + float64(p.fixedBytes()) + p.breakerBytes(ad.Policy, inflight) + float64(p.cellBytes(ad.Policy.Failover)) + jobBytes(p, c.ByClass, ad.Name))
	}
	return c
}

// classCost is what one request of class cl costs: its entry's tries, and per try its
// typical events, dependency calls and events at most.
func (p *plan) classCost(cl *classPlan) (tries, typical, calls, perAttempt float64) {
	tries = float64(1 + p.entries[cl.entry].retries.max)
	typical, perAttempt = 1, 2 // arrival; an attempt's timeout and its retry's backoff
	for j, st := range cl.stages {
		switch {
		case st.hasWork:
			if j == 0 || !cl.stages[j-1].hasWork {
				typical++
			}
			perAttempt++
		default:
			t := float64(1 + p.deps[st.dep].retries.max)
			typical++
			calls += t
			perAttempt += 3 * t // answer, timeout, retry's backoff
		}
	}
	return tries, typical, calls, perAttempt
}

// offered returns the expected requests load.schedule offers over the clock and its peak
// rate: its steps (constant or ramping) and the shift faults' multipliers, integrated
// piece by piece.
func (p *plan) offered() (mean, peak float64) { return p.srcOffered(&p.srcs[0]) }

// srcOffered is offered for source sp, its bursts left out.
func (p *plan) srcOffered(sp *sourcePlan) (mean, peak float64) {
	cuts := []time.Duration{0, p.duration}
	for _, st := range sp.steps {
		cuts = append(cuts, st.At)
	}
	for _, f := range p.faults {
		if f.kind == faultShift {
			cuts = append(cuts, f.at, f.end)
		}
	}
	slices.Sort(cuts)
	for i := 0; i+1 < len(cuts); i++ {
		from, to := cuts[i], min(cuts[i+1], p.duration)
		if to <= from {
			continue
		}
		factor := 1.0
		for _, f := range p.faults {
			if f.kind == faultShift && f.at <= from && (f.end == 0 || f.end > from) {
				factor *= f.factor
			}
		}
		if st := sp.step(from); st != nil && st.Slope != 0 {
			mean += sp.mean(from, to) * factor
			peak = max(peak, max(sp.rateAt(from), sp.rateAt(to-1))*factor)
			continue
		}
		r := sp.rateAt(from)
		for _, f := range p.faults {
			if f.kind == faultShift && f.at <= from && (f.end == 0 || f.end > from) {
				r *= f.factor
			}
		}
		mean += r * (to - from).Seconds()
		peak = max(peak, r)
	}
	return mean, peak
}

// ownOffered returns, by class, the expected requests of the load besides load.schedule's
// rates, and its peak rate: the classes' own schedules, every source's bursts (load.
// schedule's by the shares; as a rate, a burst's arrivals over its within, at least 1s),
// and the users at the most they can send, one request a mean think time each (answers
// taking no time).
func (p *plan) ownOffered() (own []float64, peak float64) {
	own = make([]float64, len(p.classes))
	for k := range p.srcs {
		sp := &p.srcs[k]
		if k > 0 {
			m, pk := p.srcOffered(sp)
			own[sp.class] += m
			peak += pk
		}
		for _, b := range sp.bursts {
			if sp.class >= 0 {
				own[sp.class] += float64(b.n)
			} else {
				for i := range p.nClasses {
					own[i] += float64(b.n) * p.share(i)
				}
			}
			peak += float64(b.n) / max(b.within.Seconds(), 1)
		}
	}
	for _, u := range p.users {
		r := float64(u.count) / u.thinkMean.Seconds()
		own[u.class] += r * p.duration.Seconds()
		peak += r
	}
	return own, peak
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

// share is class i's share of the offered load (with cells, the declared class's for
// each cell's copy of it: a bound on the copy's share).
func (p *plan) share(i int) float64 {
	i %= p.nClasses
	if i == 0 {
		return p.classes[0].cum
	}
	return p.classes[i].cum - p.classes[i-1].cum
}

// callerLife is the longest an entry keeps a request under policy pol, over the arm's
// plans ps (the first is the scenario's): every attempt's timeout, or for an entry
// without one the longest its attempt can run (attemptLife), and every retry's backoff,
// cut at the class's deadline when the policy propagates it; the whole run where neither
// bounds it.
func callerLife(ps []*plan, pol scenario.Policy) time.Duration {
	p := ps[0]
	whole := p.duration + p.drain
	var life time.Duration
	for ci, cl := range p.classes {
		var l time.Duration
		for _, q := range ps {
			e := q.entries[q.classes[ci].entry]
			t := e.timeout
			if t == 0 {
				a, ok := attemptLife(ps, ci, pol)
				if !ok {
					a = whole
				}
				t = min(a, whole)
			}
			all := float64(e.retries.max+1)*float64(t) + float64(e.retries.backoff.Total(e.retries.max))
			l = max(l, time.Duration(math.Min(all, float64(whole))))
		}
		if pol.Deadline.Propagate {
			l = min(l, cl.deadline)
		}
		life = max(life, min(l, whole))
	}
	return life
}

// orphans bounds the requests kept alive by work their caller abandoned (see
// Cost.InFlight), with the peak offered rate peak; false when the topology bounds
// nothing.
func (p *plan) orphans(peak float64) (float64, bool) {
	insts := make([]int, len(p.services)) // every instance the run can have
	for i, s := range p.services {
		insts[i] = s.instances
		if s.auto != nil {
			insts[i] = s.auto.max // an autoscaler's instances at most at once
		}
	}
	for _, f := range p.faults {
		if f.kind == faultScale {
			insts[f.target] += f.add
		}
	}
	n := 0.0
	for i, s := range p.services {
		if s.queueCap == 0 {
			return 0, false
		}
		n += float64(insts[i] * (s.workers + s.queueCap))
	}
	for d, dp := range p.deps {
		callers, rate := 0, 0.0 // instances that may call d, and d's peak rate of calls
		for i, cl := range p.classes {
			share := p.share(i)
			tries := float64(1 + p.entries[cl.entry].retries.max)
			for _, st := range cl.stages {
				if st.dep == d {
					callers = max(callers, insts[p.entries[cl.entry].target])
					rate += peak * share * tries * float64(1+dp.retries.max)
				}
			}
		}
		switch {
		case dp.pool > 0:
			n += float64(callers * dp.pool)
		case dp.concurrency > 0:
			return 0, false // an unbounded queue at the dependency
		default:
			tail := dp.ln.QuantileNS(1 - 1e-6)
			hangs := dp.hangRate > 0
			for _, f := range p.faults {
				if f.kind == faultDep && f.target == d && f.serviceTime != nil {
					tail = max(tail, f.ln.QuantileNS(1-1e-6))
				}
				if f.kind == faultDep && f.target == d && f.hangRate != nil && *f.hangRate > 0 {
					hangs = true
				}
			}
			if hangs {
				// A hung call lives until its caller's timeout gives it up.
				if dp.timeout <= 0 {
					return 0, false
				}
				tail = max(tail, float64(dp.timeout))
			}
			n += rate * tail / float64(time.Second)
		}
	}
	return n, true
}

// fixedEvents bounds the events that do not come with requests: ticks, health probes
// (each with its timeout and a kill), instances starting and warming up, faults, rate
// changes and notes.
func (p *plan) fixedEvents() float64 {
	n := float64(p.duration/p.tick) + 1 + 2*float64(len(p.faults)) + float64(len(p.schedule)) + float64(len(p.notes))
	for _, sp := range p.srcs[1:] {
		n += float64(len(sp.steps))
	}
	insts := 0
	for _, s := range p.services {
		insts += s.instances
		if s.auto != nil {
			// At most max at once; each instance it requests is scheduled, starts and
			// warms up.
			insts += s.auto.max - s.instances
			n += 3 * float64(s.auto.created(p.duration, p.tick))
		}
	}
	for _, f := range p.faults {
		switch f.kind {
		case faultScale:
			insts += f.add
			n += 2 * float64(f.add)
		case faultCrash:
			n += 2 * float64(p.services[f.target].instances+f.count) // each back up and warm
		}
	}
	for _, s := range p.services {
		if h := s.health; h != nil {
			probes := float64(insts) * (float64((p.duration+p.drain)/h.every) + 1)
			n += 5 * probes // probe, timeout, kill, start, warm
		}
	}
	return n
}

// fixedBytes is what an arm holds whatever its load: the recorder's histograms, the
// series, one row a tick, and the alert rules' windows.
func (p *plan) fixedBytes() int64 {
	ticks := int64(p.duration/p.tick) + 1
	names := int64(len(p.layers) + len(p.deps) + len(p.caches))
	hists := int64(3*len(p.classes) + len(p.deps) + len(p.objectives) + 8)
	return armBaseBytes + hists*histBytes + ticks*(rowBytes+names*rowExtraBytes) + p.alertBytes()
}

// rowBytes is one row of the series.
const rowBytes = int64(unsafe.Sizeof(packet.Row{}))

// poissonBound is the mean of a Poisson count plus six standard deviations, rounded up.
func poissonBound(mean float64) int64 {
	if mean <= 0 {
		return 0
	}
	return ceil64(mean + 6*math.Sqrt(mean) + 1)
}

// ceil64 rounds x up to an int64, saturating.
func ceil64(x float64) int64 {
	if !(x < math.MaxInt64) {
		return math.MaxInt64
	}
	return int64(math.Ceil(x))
}
