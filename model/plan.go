package model

import (
	"cmp"
	"fmt"
	"time"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/internal/draw"
	"github.com/goodput-lab/goodput/internal/lognormal"
	"github.com/goodput-lab/goodput/internal/ramp"
	"github.com/goodput-lab/goodput/internal/sample"
	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
)

// plan is a scenario compiled for the event loop: names resolved to indexes, units to
// time.Duration and float64, defaults applied. It is shared read-only by every arm.
type plan struct {
	// purposes are the hashes of the draw purposes (see purp); failoverPurp is the draw
	// that tells failover traffic from the cell's own.
	purposes     []uint64
	failoverPurp purp
	name         string
	start        time.Time
	duration     time.Duration
	tick         time.Duration
	drain        time.Duration
	lifetime     time.Duration // the longest a request's work is expected to run
	poisson      bool
	schedule     ramp.Schedule // load.schedule's rate steps: srcs[0].steps
	srcs         []sourcePlan  // the open-loop sources: load.schedule's, then the classes' own (schedule.go)
	users        []userPlan    // the closed-loop populations (users.go)
	nUsers       int           // their users in all

	classes  []classPlan
	entries  []entryPlan
	services []servicePlan
	deps     []depPlan
	caches   []cachePlan
	keys     keyPopularity
	keyPurp  purp // the draw that places a request's key in the keys' popularity
	faults   []faultPlan
	alerts   []alertPlan
	notes    []notePlan
	jobs     []jobPlan // operator jobs (job.go)

	objectives []packet.ObjectiveSpec
	layers     []string // attempt layers: entries, then services, then dependencies (orphans)
	depNames   []string
	classNames []string
	maxWorkers int  // workers of every instance the run can have: start plus scale-outs
	limited    bool // some entry has a rate limit

	// nClasses is the declared classes: p.classes holds them, then (with cells) each
	// further cell's copy of them (cell.go).
	nClasses int
	cells    *cellsPlan // nil without cells
}

type classPlan struct {
	name       string
	cum        float64 // cumulative share, for drawing the class
	deadline   time.Duration
	admission  admission.Class
	idempotent bool
	entry      int
	stages     []stagePlan
}

// Mutation kinds, indexing per-kind arrays.
const (
	mutNone = iota
	mutAuth
	mutCommit
	numMut
)

var mutationKinds = [numMut]string{"", "payment_authorizations", "order_commits"}

type stagePlan struct {
	name      string
	feature   string
	work      sample.Dist
	hasWork   bool
	dep       int // -1 for a work stage
	optional  bool
	mutation  int
	workPurp  purp // purpose of the work draw
	svcPurp   purp // purpose of the dependency service-time draw
	errPurp   purp // purpose of the dependency error draw
	shedIndex int  // index into the arm's shed feature table, -1 if not optional
	cache     int  // the cache the call reads through (index into plan.caches), -1 if none
	hangPurp  purp // purpose of the draw that hangs a call (only if its dependency can hang)
}

// retryPlan is one layer's retry policy, compiled (scenario.Retries).
type retryPlan struct {
	max                            int
	onTimeout, onError, onOverload bool
	// backoff is the wait before a retry: after attempt n, backoff.Wait(n, u) for the draw
	// u of jitterPurp if jittered (a wait without jitter is its ceiling: no draw).
	backoff    budget.Exponential
	jittered   bool
	jitterPurp purp
}

func (r retryPlan) on(c cause) bool {
	switch c {
	case causeTimeout:
		return r.onTimeout
	case causeError:
		return r.onError
	case causeOverload:
		return r.onOverload
	}
	return false
}

type entryPlan struct {
	name    string
	target  int
	timeout time.Duration
	retries retryPlan
	limited bool    // the entry has a rate limit (scenario.Entry.RateLimit)
	limit   float64 // its rate, per second; 0 pauses the entry
}

// Routers.
const (
	routeLeastLoaded = iota
	routeRoundRobin
	routeRandom
)

type servicePlan struct {
	name        string
	instances   int
	workers     int
	queueCap    int
	router      int
	coldStartup time.Duration
	coldFor     time.Duration
	coldFactor  float64
	routerPurp  purp
	memLimit    float64 // bytes of heap for attempts and caches; 0: no limit
	perAttempt  float64 // bytes an attempt holds
	caches      []int   // the service's caches (indexes into plan.caches)
	cacheBytes  float64 // the caches' full size together
	health      *healthPlan
	auto        *autoPlan // its autoscaler; nil without one
	// Load-dependent work (load.go): the load factor, garbage collection's overhead at a
	// full heap and its exponent (0: none), and whether either is declared.
	workLoad               *loadFactor
	gcOverhead, gcExponent float64
	loaded                 bool
	panic                  float64 // the router's panic threshold (cell_panic.go); 0: none
}

// healthPlan is a service's health check, compiled (scenario.Health).
type healthPlan struct {
	every, timeout      time.Duration
	failures, successes int
	restart             bool          // action restart (else remove)
	restartAfter        time.Duration // from the kill to the process being ready, less the back-off
	// The back-off before a restart (a zero Base: none): after the n-th restart since the
	// last reset, backoff.Wait(n, u) for the draw u of jitterPurp if jittered; reset after
	// a process has run for backoffReset.
	backoff      budget.Exponential
	backoffReset time.Duration
	jittered     bool
	jitterPurp   purp
}

type depPlan struct {
	name        string
	serviceTime scenario.Quantiles
	ln          lognormal.Dist // serviceTime, ready to sample; the arms share its table
	errRate     float64
	concurrency int
	pool        int
	acquire     time.Duration // the pool's acquire timeout (pool.go); 0: none
	timeout     time.Duration
	retries     retryPlan
	keyed       bool
	// Load-dependent behaviour (load.go, hang.go): the load factors of the service time
	// and of the error rate (nil: none), the hang rate, and whether calls beyond the
	// concurrency are rejected.
	timeLoad, errLoad *loadFactor
	hangRate          float64
	reject            bool
}

// Fault kinds.
const (
	faultDep = iota
	faultWork
	faultShift
	faultScale
	faultCrash // count or share of the target's instances (crash.go)
	faultStall
)

type faultPlan struct {
	kind        int
	at, end     time.Duration // end 0: permanent
	note        string
	target      int // dependency or service index
	serviceTime *scenario.Quantiles
	ln          lognormal.Dist // *serviceTime, ready to sample
	errRate     *float64
	hangRate    *float64 // a dependency fault's hang rate (hang.go)
	factor      float64
	add         int
	count       int     // crash, stall: instances, or
	share       float64 // their share of those up
}

// purp names one purpose of the per-request draws ("payment-risk/service"): an index into
// plan.purposes, whose hashes an arm mixes with its seed once (arm.keys).
type purp int32

// purpose registers a draw purpose by name, hashed the way sim.Streams names streams by
// component and purpose, and returns its index.
func (p *plan) purpose(name string) purp {
	p.purposes = append(p.purposes, draw.Hash(name))
	return purp(len(p.purposes) - 1)
}

// compile turns a validated scenario into a plan.
func compile(sc *scenario.Scenario) (*plan, error) {
	if err := sc.Validate(); err != nil {
		return nil, fmt.Errorf("model: invalid scenario: %w", err)
	}
	base := sc.Topology
	var lay []scenario.CellCopy
	if len(sc.Cells) > 0 {
		var err error
		if sc, lay, err = sc.ExpandCells(); err != nil {
			return nil, fmt.Errorf("model: %w", err)
		}
	}
	p := &plan{
		name:     sc.Name,
		start:    sc.Clock.Start.Time(),
		duration: sc.Clock.Duration.Std(),
		tick:     sc.Clock.Tick.Std(),
		drain:    sc.Clock.Drain.Std(),
		poisson:  sc.Load.Arrivals != scenario.ArrivalsUniform,
	}
	if p.tick <= 0 {
		p.tick = time.Second
	}
	p.failoverPurp = p.purpose("load/failover")
	p.srcs = []sourcePlan{compileSchedule(sc.Load.Schedule, p.duration, -1, "arrivals")}
	p.schedule = p.srcs[0].steps

	depIdx := map[string]int{}
	for i, d := range sc.Topology.Dependencies {
		depIdx[d.Name] = i
		p.deps = append(p.deps, depPlan{
			name:        d.Name,
			serviceTime: d.ServiceTime,
			ln:          newLogNormal(d.ServiceTime),
			errRate:     float64(d.ErrorRate),
			concurrency: d.Concurrency,
			pool:        d.Pool.PerInstance,
			acquire:     d.Pool.AcquireTimeout.Std(),
			timeout:     d.Timeout.Std(),
			retries:     p.retries(d.Retries, d.Name),
			keyed:       d.Keyed,
		})
		p.depNames = append(p.depNames, d.Name)
	}
	svcIdx := map[string]int{}
	for i, s := range sc.Topology.Services {
		svcIdx[s.Name] = i
		sp := servicePlan{
			name:        s.Name,
			instances:   s.Instances,
			workers:     s.Workers,
			queueCap:    s.Queue.Capacity,
			coldStartup: s.Cold.Startup.Std(),
			coldFor:     s.Cold.For.Std(),
			coldFactor:  float64(s.Cold.RateFactor),
			routerPurp:  p.purpose(s.Name + "/router"),
			memLimit:    float64(s.Memory.Limit),
			perAttempt:  float64(s.Memory.PerAttempt),
			panic:       float64(s.PanicThreshold),
		}
		if sp.coldFactor == 0 {
			sp.coldFactor = 1
		}
		if h := s.Health; h.Interval > 0 {
			hp := &healthPlan{
				every:        h.Interval.Std(),
				timeout:      h.Timeout.Std(),
				failures:     cmp.Or(h.Failures, 3),
				successes:    cmp.Or(h.Successes, 1),
				restart:      h.Action == scenario.HealthRestart,
				restartAfter: h.Restart.Std(),
			}
			if hp.restartAfter == 0 {
				hp.restartAfter = sp.coldStartup
			}
			if b := h.Backoff; b.Initial > 0 {
				hp.backoff = b.Exponential()
				hp.backoff.Max = cmp.Or(hp.backoff.Max, 5*time.Minute)
				hp.backoffReset = cmp.Or(b.Reset.Std(), 10*time.Minute)
				if hp.jittered = hp.backoff.Jitter != budget.NoJitter; hp.jittered {
					hp.jitterPurp = p.purpose(s.Name + "/restart")
				}
			}
			sp.health = hp
		}
		switch s.Router {
		case scenario.RouterRoundRobin:
			sp.router = routeRoundRobin
		case scenario.RouterRandom:
			sp.router = routeRandom
		default:
			sp.router = routeLeastLoaded
		}
		sp.auto = newAutoPlan(s, sp.coldStartup, p.tick)
		p.services = append(p.services, sp)
		p.maxWorkers += s.Instances * s.Workers
		if sp.auto != nil {
			p.maxWorkers += (sp.auto.max - s.Instances) * s.Workers
		}
	}
	p.keys = newKeyPopularity(sc.Load.Keys.Count, sc.Load.Keys.Zipf)
	p.keyPurp = p.purpose("load/key")
	cacheIdx := map[string]int{}
	for i, c := range sc.Topology.Caches {
		cacheIdx[c.Name] = i
		sp := &p.services[svcIdx[c.Service]]
		p.caches = append(p.caches, cachePlan{
			name:      c.Name,
			slot:      len(sp.caches),
			entries:   c.Entries,
			entrySize: float64(c.EntrySize),
		})
		sp.caches = append(sp.caches, i)
		sp.cacheBytes += float64(c.Entries) * float64(c.EntrySize)
	}
	entryIdx := map[string]int{}
	for i, e := range sc.Topology.Entries {
		entryIdx[e.Name] = i
		p.entries = append(p.entries, entryPlan{
			name:    e.Name,
			target:  svcIdx[e.Target],
			timeout: e.Timeout.Std(),
			retries: p.retries(e.Retries, e.Name),
		})
		if r := e.RateLimit; r != nil {
			p.entries[i].limited, p.entries[i].limit = true, r.PerSecond()
			p.limited = true
		}
	}

	aliasCells(lay, base, entryIdx, depIdx, cacheIdx)
	var cum float64
	var longest time.Duration
	shared := 0 // the last class drawn by the shares
	for ci, c := range sc.Classes {
		if len(c.Schedule) > 0 {
			p.srcs = append(p.srcs, compileSchedule(c.Schedule, p.duration, ci, "arrivals/"+c.Name))
		} else {
			cum += float64(c.Share)
			shared = ci
		}
		cp := classPlan{
			name:       c.Name,
			cum:        cum,
			deadline:   c.Deadline.Std(),
			idempotent: c.Idempotent,
		}
		longest = max(longest, cp.deadline)
		if c.Admission != "" {
			cl, err := admission.ParseClass(c.Admission)
			if err != nil {
				return nil, fmt.Errorf("model: class %s: %w", c.Name, err)
			}
			cp.admission = cl
		} else {
			cp.admission = admission.Standard
		}
		if c.Entry != "" {
			cp.entry = entryIdx[c.Entry]
		}
		svc := p.services[p.entries[cp.entry].target].name
		for _, st := range c.Stages {
			sp := stagePlan{name: st.Name, feature: st.Feature, dep: -1, optional: st.Optional, shedIndex: -1, cache: -1}
			if st.Cache != "" {
				sp.cache = cacheIdx[st.Cache]
			}
			if sp.feature == "" {
				sp.feature = st.Name
			}
			if st.Dependency != "" {
				sp.dep = depIdx[st.Dependency]
				sp.svcPurp = p.purpose(st.Dependency + "/service")
				sp.errPurp = p.purpose(st.Dependency + "/error")
			} else {
				sp.work = sample.New(st.Work)
				sp.hasWork = true
				sp.workPurp = p.purpose(svc + "/work/" + st.Name)
			}
			switch st.Mutation {
			case scenario.MutationPaymentAuthorization:
				sp.mutation = mutAuth
			case scenario.MutationOrderCommit:
				sp.mutation = mutCommit
			}
			cp.stages = append(cp.stages, sp)
		}
		p.classes = append(p.classes, cp)
		p.classNames = append(p.classNames, c.Name)
	}
	if len(p.classes) > 0 {
		for i := shared; i < len(p.classes); i++ {
			p.classes[i].cum = 1 // absorb rounding in the shares
		}
	}
	p.nClasses = len(p.classes)
	p.compileCellClasses(lay)
	p.compileUsers(sc.Load.Users)

	for _, f := range sc.Faults {
		fp := faultPlan{at: f.At.Std(), note: f.Note}
		if f.For > 0 {
			fp.end = fp.at + f.For.Std()
		}
		switch {
		case f.Scale != nil:
			fp.kind = faultScale
			fp.target = svcIdx[f.Scale.Service]
			fp.add = f.Scale.Add
			fp.end = 0
			p.maxWorkers += f.Scale.Add * p.services[fp.target].workers
		case f.Crash != nil:
			fp.kind = faultCrash
			fp.target = svcIdx[f.Service]
			fp.count, fp.share = f.Crash.Count, float64(f.Crash.Share)
		case f.Stall != nil:
			fp.kind = faultStall
			fp.target = svcIdx[f.Service]
			fp.count, fp.share = f.Stall.Count, float64(f.Stall.Share)
		case f.Shift != nil:
			fp.kind = faultShift
			fp.factor = float64(f.Shift.Rate)
		case f.Service != "":
			fp.kind = faultWork
			fp.target = svcIdx[f.Service]
			fp.factor = float64(f.WorkFactor)
		default:
			fp.kind = faultDep
			fp.target = depIdx[f.Dependency]
			fp.serviceTime = f.ServiceTime
			if f.ServiceTime != nil {
				fp.ln = newLogNormal(*f.ServiceTime)
			}
			if f.ErrorRate != nil {
				e := float64(*f.ErrorRate)
				fp.errRate = &e
			}
		}
		p.faults = append(p.faults, fp)
	}

	// A request's work lasts at most about twice the longest deadline plus every entry's
	// attempts (timeouts and backoffs); the default drain gives it at least that long.
	p.lifetime = 2 * longest
	for _, e := range p.entries {
		p.lifetime += time.Duration(e.retries.max+1)*e.timeout + e.retries.backoff.Total(e.retries.max+1)
	}
	if p.drain <= 0 {
		p.drain = max(p.lifetime, 10*time.Second)
	}

	for _, e := range p.entries {
		p.layers = append(p.layers, e.name)
	}
	for _, s := range p.services {
		p.layers = append(p.layers, s.name)
	}
	p.layers = append(p.layers, p.depNames...)

	p.compileLoad(sc)
	p.objectives = Objectives(sc)
	p.alerts = compileAlerts(sc, p)
	p.notes = compileNotes(sc)
	p.compileJobs(sc)
	return p, nil
}

// retries compiles the retry policy of the layer named layer; a jittered backoff draws
// by the purpose "layer/backoff".
func (p *plan) retries(r scenario.Retries, layer string) retryPlan {
	rp := retryPlan{max: r.Max, backoff: r.Backoff.Exponential()}
	if rp.jittered = rp.backoff.Jitter != budget.NoJitter; rp.jittered {
		rp.jitterPurp = p.purpose(layer + "/backoff")
	}
	if len(r.On) == 0 {
		rp.onTimeout, rp.onError, rp.onOverload = true, true, true
	}
	for _, on := range r.On {
		switch on {
		case scenario.RetryOnTimeout:
			rp.onTimeout = true
		case scenario.RetryOnError:
			rp.onError = true
		case scenario.RetryOnOverload:
			rp.onOverload = true
		}
	}
	return rp
}

// Objectives maps a scenario's objectives to the packet's specs, in order: what a replay
// measures and what [packet.Arm.Evaluate] measures for an arm no replay built (a live run's).
func Objectives(sc *scenario.Scenario) []packet.ObjectiveSpec {
	var out []packet.ObjectiveSpec
	for _, o := range sc.Objectives {
		out = append(out, objectiveSpec(o))
	}
	return out
}

// objectiveSpec maps a scenario objective to the packet's spec, converting its bounds to
// the metric's unit: milliseconds for latency and queue age, seconds for time to normal,
// per second for rates and plain ratios for the rest.
func objectiveSpec(o scenario.Objective) packet.ObjectiveSpec {
	conv := func(b *scenario.Bound) *float64 {
		if b == nil {
			return nil
		}
		v := b.Value
		if b.Unit == scenario.UnitDuration {
			switch o.Metric {
			case scenario.MetricTimeToNormal:
				v = b.Duration().Seconds()
			default:
				v = float64(b.Duration()) / float64(time.Millisecond)
			}
		}
		return &v
	}
	s := packet.ObjectiveSpec{
		Name: o.Name, Metric: o.Metric, Class: o.Class, State: o.State,
		Min: conv(o.Min), Max: conv(o.Max), After: o.After.Std(), Stat: o.Stat,
	}
	if o.Window != nil {
		s.From, s.To = o.Window.From.Std(), o.Window.To.Std()
	}
	return s
}

// newLogNormal is the log-normal of a scenario.Quantiles distribution, ready to sample.
func newLogNormal(q scenario.Quantiles) lognormal.Dist {
	return lognormal.New(q.P50.Std(), q.P99.Std())
}
