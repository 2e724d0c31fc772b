package model

import (
	"slices"
	"time"

	"github.com/goodput-lab/goodput/control/readiness"
)

// The binding constraint: the resource or control that limits deadline-valid goodput at a
// tick (the case study's question "what resource or control currently limits
// deadline-valid goodput?"), named in series.csv's constraint column.
//
// bindingConstraint is the rule, a pure function of one tick's gauges (constraintGauges,
// sampled at the end of the tick like every other gauge). A resource is saturated when at
// least 95% of its capacity is in use (19 × capacity ≤ 20 × in use, in whole numbers) and
// work is waiting on it:
//
//   - dependency:D:concurrency — calls in service at D against its concurrency, with
//     callers holding a connection and waiting for a server;
//   - pool:S->D — S's connections to D in use against the pool capacity of S's instances
//     taking traffic (cold instances count the connections they can use), with calls
//     waiting for a connection;
//   - workers:S — busy workers against the workers of S's instances taking traffic, with
//     attempts queued whose oldest has waited at least a tenth of the shortest deadline of
//     the classes S serves (any queued work, without a deadline): a wait that costs the
//     deadline something, so that one worker at a sustainable 80%, with a request or two
//     behind it at the instant of the sample, is not saturated; a service whose instances
//     are all out of routing (none route-ready of some requested) is saturated with no
//     capacity at all;
//   - admission — requests in flight against the admission limit, with requests the
//     controller refused during the tick.
//
// Resources nest along the request path: an admitted request holds a worker of its
// service while it waits for a connection, and a call holds its connection while it waits
// for a server. A saturated resource with a saturated resource nested inside it (workers
// of S and a pool of S, or a pool of S to D and D's concurrency; admission and anything)
// is not the binding one: it is full of work waiting on the inner one, and more of it
// would add waiting, not goodput (the case study: "raising an application thread limit
// would … not increase useful dependency service"). Of the saturated resources left, the
// one with the most work waiting binds (sequential stages hold a service's workers
// independently, so the busier one limits more); equal counts go to the one met first
// along the request path: admission, then each service in the topology's order with its
// workers and its pools in the order its classes' stages call them, then the
// dependencies in that order.
//
// Two refinements say why a per-instance resource or a dependency is short:
//
//   - ready-capacity:S, when the binding resource is S's workers or one of S's pools and
//     fewer of S's instances take traffic than are requested (scaled out but not yet
//     route-ready, or taken out by health checks): the capacity asked for is not there;
//   - cache-misses:C, when the binding resource is a dependency (its concurrency, or a
//     pool to it whose service has all its capacity) that cache C reads through, and C
//     holds less than 95% of its entries over the instances taking traffic (cold caches
//     of new instances, entries given up under memory pressure): misses turned into
//     backend work.
//
// One condition overrides the rest: queue:S, when the oldest useful work queued at S has
// waited at least 95% of the shortest deadline of the classes S serves. Whatever is
// saturated behind it, the work S's queue hands on can then no longer be goodput: the
// queue's age, not the capacity behind it, limits goodput (the case study's "queue age
// becomes a deadline detector"). Of several such services, the one with the most queued
// work; equal counts, the first.
//
// When nothing is saturated the constraint is "none". The gauges are instantaneous, as
// every sampled gauge: a small pool or dependency at high but sustainable utilisation can
// be saturated at the instant of some samples, and the constraint then names it at those
// ticks.

// Names of the binding constraint (see bindingConstraint).
const (
	constraintNone      = "none"
	constraintAdmission = "admission"
)

// constraintGauges are one tick's gauges that bindingConstraint reads.
type constraintGauges struct {
	// Admission is the admission controller's, nil without one.
	Admission    *admissionGauge
	Services     []serviceGauge
	Dependencies []dependencyGauge
	Caches       []cacheGauge
}

// admissionGauge is the admission controller at the end of a tick.
type admissionGauge struct {
	InFlight, Limit int
	// Rejected is how many requests the controller refused during the tick.
	Rejected int
}

// serviceGauge is one service at the end of a tick. Busy, Workers and Queued are summed
// over the instances taking traffic.
type serviceGauge struct {
	Name                  string
	Requested, RouteReady int // instances
	Busy, Workers, Queued int
	// QueueAge is the age of the oldest useful queued work at any instance; Deadline the
	// shortest deadline of the classes the service serves (0: none).
	QueueAge, Deadline time.Duration
	// Calls are the dependencies its classes' stages call (indexes in
	// constraintGauges.Dependencies), in order; Pools its bounded connection pools to
	// them, in the same order.
	Calls []int
	Pools []poolGauge
}

// poolGauge is a service's connections to one dependency, over its instances taking
// traffic.
type poolGauge struct {
	Dependency               int // index in constraintGauges.Dependencies
	InUse, Capacity, Waiting int
}

// dependencyGauge is one dependency; Concurrency 0 is unbounded.
type dependencyGauge struct {
	Name                            string
	InService, Concurrency, Waiting int
}

// cacheGauge is one cache over its service's instances taking traffic: the entries held
// and those a full cache on each would hold.
type cacheGauge struct {
	Name                string
	Service, Dependency int // the service holding it and the dependency it reads through
	Held, Full          int
}

// saturated reports whether inUse is at least 95% of a positive capacity.
func saturated(inUse, capacity int) bool { return capacity > 0 && 20*inUse >= 19*capacity }

// Kinds of saturated resource, by how deep along the request path they are.
const (
	bindAdmission = iota
	bindWorkers
	bindPool
	bindDependency
)

// resource is a saturated resource, a candidate for the binding constraint.
type resource struct {
	kind     int
	svc, dep int // the service (workers, pool) and the dependency (pool, dependency)
	waiting  int
}

// bindingConstraint names the resource or control that limits goodput at the tick g
// describes (see the rule above).
func bindingConstraint(g *constraintGauges) string {
	q, most := -1, 0
	for i, s := range g.Services {
		if s.Deadline > 0 && s.Queued > 0 && 20*s.QueueAge >= 19*s.Deadline && (q < 0 || s.Queued > most) {
			q, most = i, s.Queued
		}
	}
	if q >= 0 {
		return "queue:" + g.Services[q].Name
	}

	var sat []resource // in path order
	if a := g.Admission; a != nil && a.Rejected > 0 && saturated(a.InFlight, a.Limit) {
		sat = append(sat, resource{kind: bindAdmission, svc: -1, dep: -1, waiting: a.Rejected})
	}
	for si, s := range g.Services {
		waited := s.Queued > 0 && (s.Deadline == 0 || 10*s.QueueAge >= s.Deadline)
		if (s.Requested > 0 && s.RouteReady == 0) || (waited && saturated(s.Busy, s.Workers)) {
			sat = append(sat, resource{kind: bindWorkers, svc: si, dep: -1, waiting: s.Queued})
		}
		for _, p := range s.Pools {
			if p.Waiting > 0 && saturated(p.InUse, p.Capacity) {
				sat = append(sat, resource{kind: bindPool, svc: si, dep: p.Dependency, waiting: p.Waiting})
			}
		}
	}
	for di, d := range g.Dependencies {
		if d.Waiting > 0 && saturated(d.InService, d.Concurrency) {
			sat = append(sat, resource{kind: bindDependency, svc: -1, dep: di, waiting: d.Waiting})
		}
	}

	win := -1
	for i, r := range sat {
		if nestsSaturated(g, sat, r) {
			continue
		}
		if win < 0 || r.waiting > sat[win].waiting {
			win = i
		}
	}
	if win < 0 {
		return constraintNone
	}
	r := sat[win]
	switch r.kind {
	case bindAdmission:
		return constraintAdmission
	case bindWorkers:
		if s := &g.Services[r.svc]; s.RouteReady < s.Requested {
			return "ready-capacity:" + s.Name
		}
		return "workers:" + g.Services[r.svc].Name
	case bindPool:
		s := &g.Services[r.svc]
		if s.RouteReady < s.Requested {
			return "ready-capacity:" + s.Name
		}
		if c := shortCache(g, r.svc, r.dep); c != "" {
			return c
		}
		return "pool:" + s.Name + "->" + g.Dependencies[r.dep].Name
	}
	if c := shortCache(g, -1, r.dep); c != "" {
		return c
	}
	return "dependency:" + g.Dependencies[r.dep].Name + ":concurrency"
}

// nestsSaturated reports whether a saturated resource nested inside r is among sat.
func nestsSaturated(g *constraintGauges, sat []resource, r resource) bool {
	for _, x := range sat {
		switch {
		case x.kind <= r.kind:
		case r.kind == bindAdmission:
			return true
		case r.kind == bindWorkers && x.kind == bindPool && x.svc == r.svc:
			return true
		case r.kind == bindWorkers && x.kind == bindDependency && calls(g, r.svc, x.dep):
			return true
		case r.kind == bindPool && x.kind == bindDependency && x.dep == r.dep:
			return true
		}
	}
	return false
}

// calls reports whether service svc calls dependency dep.
func calls(g *constraintGauges, svc, dep int) bool {
	return slices.Contains(g.Services[svc].Calls, dep)
}

// shortCache names the first cache reading through dep (at service svc, or any service
// for svc < 0) that holds less than 95% of its full entries, as cache-misses:NAME, or "".
func shortCache(g *constraintGauges, svc, dep int) string {
	for _, c := range g.Caches {
		if c.Dependency == dep && (svc < 0 || c.Service == svc) && c.Full > 0 && 20*c.Held < 19*c.Full {
			return "cache-misses:" + c.Name
		}
	}
	return ""
}

// ---- sampling ----

// constraintSampler gathers the gauges of the binding-constraint rule from an arm, once a
// tick, into buffers it keeps.
type constraintSampler struct {
	g         constraintGauges
	adm       admissionGauge
	depOrder  []int   // the plan's dependency of each of g.Dependencies
	svcPools  [][]int // by service: the plan's dependency of each of its pool gauges
	caches    []int   // the plan's cache of each of g.Caches
	admRefuse uint64  // the admission controller's refusals up to the last tick
}

// newConstraintSampler lays out the gauges of plan p: services in the topology's order,
// each with the pools its classes' stages call in their order, the dependencies in the
// order of the first stage calling each (then any no stage calls), and the caches the
// stages read through.
func newConstraintSampler(p *plan) *constraintSampler {
	cs := &constraintSampler{svcPools: make([][]int, len(p.services))}
	svcCalls := make([][]int, len(p.services))
	var depOrder []int
	seenDep := make([]bool, len(p.deps))
	seenCache := make([]bool, len(p.caches))
	cs.g.Services = make([]serviceGauge, len(p.services))
	for i := range p.services {
		cs.g.Services[i].Name = p.services[i].name
	}
	for _, cp := range p.classes {
		svc := p.entries[cp.entry].target
		sg := &cs.g.Services[svc]
		if sg.Deadline == 0 || cp.deadline > 0 && cp.deadline < sg.Deadline {
			sg.Deadline = cp.deadline
		}
		for _, st := range cp.stages {
			if st.dep < 0 {
				continue
			}
			if !seenDep[st.dep] {
				seenDep[st.dep] = true
				depOrder = append(depOrder, st.dep)
			}
			if !slices.Contains(svcCalls[svc], st.dep) {
				svcCalls[svc] = append(svcCalls[svc], st.dep)
				if p.deps[st.dep].pool > 0 {
					cs.svcPools[svc] = append(cs.svcPools[svc], st.dep)
				}
			}
			if c := st.cache; c >= 0 && !seenCache[c] {
				seenCache[c] = true
				cs.caches = append(cs.caches, c)
				cs.g.Caches = append(cs.g.Caches, cacheGauge{Name: p.caches[c].name, Service: svc, Dependency: st.dep})
			}
		}
	}
	for d := range p.deps {
		if !seenDep[d] {
			depOrder = append(depOrder, d)
		}
	}
	// Gauges index dependencies in path order; translate the pools' and caches' indexes.
	pos := make([]int, len(p.deps))
	for k, d := range depOrder {
		pos[d] = k
		cs.g.Dependencies = append(cs.g.Dependencies, dependencyGauge{Name: p.deps[d].name, Concurrency: p.deps[d].concurrency})
	}
	for i := range cs.g.Services {
		for _, d := range svcCalls[i] {
			cs.g.Services[i].Calls = append(cs.g.Services[i].Calls, pos[d])
		}
		for _, d := range cs.svcPools[i] {
			cs.g.Services[i].Pools = append(cs.g.Services[i].Pools, poolGauge{Dependency: pos[d]})
		}
	}
	for i := range cs.g.Caches {
		cs.g.Caches[i].Dependency = pos[cs.g.Caches[i].Dependency]
	}
	cs.depOrder = depOrder
	return cs
}

// constraint samples the arm's gauges at wall and returns the binding constraint's name.
// It reads the arm's state and changes nothing of it.
func (a *arm) constraint(wall time.Time) string {
	if a.binding == nil {
		a.binding = newConstraintSampler(a.p)
	}
	cs := a.binding
	g := &cs.g
	for i := range g.Services {
		s := &g.Services[i]
		s.Requested = a.svcs[i].fleet.Summary().AtLeast(readiness.Requested)
		s.RouteReady, s.Busy, s.Workers, s.Queued, s.QueueAge = 0, 0, 0, 0, 0
		for k := range s.Pools {
			s.Pools[k].InUse, s.Pools[k].Capacity, s.Pools[k].Waiting = 0, 0, 0
		}
	}
	for k := range g.Caches {
		g.Caches[k].Held, g.Caches[k].Full = 0, 0
	}
	for ii := range a.insts {
		in := &a.insts[ii]
		s := &g.Services[in.svc]
		if in.routable || in.queued > 0 || in.busy > 0 {
			s.QueueAge = max(s.QueueAge, in.q.OldestAge(wall))
		}
		if !in.routable {
			continue
		}
		s.RouteReady++
		s.Busy += in.busy
		s.Workers += in.workers
		s.Queued += in.queued
		for k, d := range cs.svcPools[in.svc] {
			pl := &in.pools[d]
			pg := &s.Pools[k]
			pg.InUse += pl.inUse
			pg.Capacity += poolCap(a.p.deps[d].pool, in.factor)
			pg.Waiting += pl.waiting
		}
		if len(in.caches) > 0 {
			for k, ci := range cs.caches {
				if c := &g.Caches[k]; c.Service == int(in.svc) {
					cp := &a.p.caches[ci]
					c.Held += in.caches[cp.slot].held
					c.Full += cp.entries
				}
			}
		}
	}
	for k, d := range cs.depOrder {
		dr := &a.deps[d]
		g.Dependencies[k].InService, g.Dependencies[k].Waiting = dr.busy, dr.waiting
	}
	g.Admission = nil
	if adm := a.pol.adm; adm != nil {
		refused := adm.Stats().Rejected()
		cs.adm = admissionGauge{InFlight: adm.InFlight(), Limit: adm.Limit(), Rejected: int(refused - cs.admRefuse)}
		cs.admRefuse = refused
		g.Admission = &cs.adm
	}
	return bindingConstraint(g)
}
