package model

import (
	"cmp"
	"math"
	"time"

	"github.com/goodput-lab/goodput/internal/floatdur"
	"github.com/goodput-lab/goodput/scenario"
)

// Load-dependent behaviour (scenario.LoadFactors, scenario.GC). A dependency's service
// time and error rate, and a service's stage work, are multiplied by m(x) of the load
// when the call or the stage starts: x is the others in service then (the dependency's
// calls in service, from every caller; the instance's busy workers), or that over the
// capacity. A service with garbage collection also spends the share g = overhead·h^k of
// its time collecting, h the heap's occupancy by the attempts the instance holds, so its
// work takes 1/(1 − g) as long. Work in progress is not re-timed when the load changes.

// loadFactor is a scenario.LoadFactor compiled: the multiplier and whether its load is a
// utilisation.
type loadFactor struct {
	m    scenario.LoadFactor
	util bool
}

// newLoadFactor compiles f; nil for none.
func newLoadFactor(f *scenario.LoadFactor) *loadFactor {
	if f == nil {
		return nil
	}
	return &loadFactor{m: *f, util: f.Of == scenario.LoadOfUtilisation}
}

// at is the multiplier with n others in service, of capacity capacity.
func (l *loadFactor) at(n, capacity int) float64 {
	x := float64(max(n, 0))
	if l.util {
		x /= float64(max(capacity, 1))
	}
	return l.m.At(x)
}

// compileLoad compiles the scenario's load-dependent behaviour into p: the dependencies'
// load factors, ceilings and hang rates (the faults' too, with the draw purpose of a
// stage calling a dependency that can hang), and the services' load factors and garbage
// collection. It adds nothing to a scenario that declares none of it.
func (p *plan) compileLoad(sc *scenario.Scenario) {
	hangs := make([]bool, len(p.deps))
	for i, d := range sc.Topology.Dependencies {
		dp := &p.deps[i]
		dp.hangRate = float64(d.HangRate)
		dp.reject = d.Beyond == scenario.BeyondReject
		if lf := d.LoadFactor; lf != nil {
			dp.timeLoad, dp.errLoad = newLoadFactor(lf.ServiceTime), newLoadFactor(lf.ErrorRate)
		}
		hangs[i] = dp.hangRate > 0
	}
	for i, f := range sc.Faults {
		if f.HangRate != nil && p.faults[i].kind == faultDep {
			h := float64(*f.HangRate)
			p.faults[i].hangRate = &h
			hangs[p.faults[i].target] = true
		}
	}
	for i, s := range sc.Topology.Services {
		sp := &p.services[i]
		if lf := s.LoadFactor; lf != nil {
			sp.workLoad = newLoadFactor(lf.ServiceTime)
		}
		if g := s.Memory.GC; g.Overhead > 0 && sp.memLimit > 0 {
			sp.gcOverhead, sp.gcExponent = float64(g.Overhead), cmp.Or(g.Exponent, 1)
		}
		sp.loaded = sp.workLoad != nil || sp.gcOverhead > 0
	}
	for ci := range p.classes {
		for si := range p.classes[ci].stages {
			if st := &p.classes[ci].stages[si]; st.dep >= 0 && hangs[st.dep] {
				st.hangPurp = p.purpose(p.deps[st.dep].name + "/hang")
			}
		}
	}
}

// loadedTime is service time d of a call to dependency dep under its load factor lf,
// with the calls now in service at the dependency (the call not yet among them).
func (a *arm) loadedTime(lf *loadFactor, dep int32, d time.Duration) time.Duration {
	return floatdur.Trunc(float64(d) * lf.at(a.deps[dep].busy, a.p.deps[dep].concurrency))
}

// errRate is the error rate of a call dependency dep (dr) has just started serving: as
// its faults have it, under its load factor with the other calls in service.
func (a *arm) errRate(dep int32, dr *depRT) float64 {
	if lf := a.p.deps[dep].errLoad; lf != nil && dr.errRate > 0 {
		return min(1, dr.errRate*lf.at(dr.busy-1, a.p.deps[dep].concurrency))
	}
	return dr.errRate
}

// workLoad is the multiplier of a stage's work starting now on instance in of service
// sp: its load factor with the instance's other busy workers, and its garbage
// collection's cost for the heap the attempts it holds fill.
func (a *arm) workLoad(in *instance, sp *servicePlan) float64 {
	m := 1.0
	if lf := sp.workLoad; lf != nil {
		m = lf.at(in.busy-1, in.workers)
	}
	if sp.gcOverhead > 0 {
		m /= 1 - sp.gcOverhead*math.Pow(heapFill(in, sp), sp.gcExponent)
	}
	return m
}

// heapFill is the share of instance in's heap the attempts it holds (queued or in
// service) fill, at most 1.
func heapFill(in *instance, sp *servicePlan) float64 {
	return min(1, float64(in.queued+in.busy)*sp.perAttempt/sp.memLimit)
}
