package model

import (
	"math"
	"time"
	"unsafe"

	"github.com/goodput-lab/goodput/scenario"
)

// The estimate's bound on how long one attempt can live (Estimate, callerLife), for an
// entry without a timeout: its caller then keeps the request as long as its attempts run,
// which the topology bounds when every part of an attempt is bounded — the wait in a
// count-bounded FIFO queue for a worker, each work stage, and each dependency call, which
// its timeout ends whether it is served, waits for a connection or hangs. An arm's plans
// are the one it starts with and one per action, and the bound takes each part at its
// longest over them, since work in progress keeps what it started with.

// tailU is the draw at which the estimate takes a distribution's tail (its 1 − 1e-6
// quantile), as it does for the dependencies' service times.
const tailU = 1 - 1e-6

// attemptLife bounds how long an attempt of class ci can run under policy pol, over the
// arm's plans ps: false when some part of it is unbounded (an unbounded or reordering
// queue, a dependency call without a timeout, a stall without an end).
func attemptLife(ps []*plan, ci int, pol scenario.Policy) (time.Duration, bool) {
	if pol.Queue.Kind == scenario.QueueAge && pol.Queue.MaxAge == 0 {
		return 0, false // CoDel's adaptive LIFO may leave an attempt queued indefinitely
	}
	var service float64 // seconds: the attempt's time on a worker
	queued, workers := 0, math.MaxInt
	var stalls time.Duration
	for _, p := range ps {
		cl := &p.classes[ci]
		s := p.entries[cl.entry].target
		sp := &p.services[s]
		if sp.queueCap == 0 && (pol.Queue.Kind != scenario.QueueAge || pol.Queue.MaxAge == 0) {
			return 0, false
		}
		queued = max(queued, sp.queueCap)
		workers = min(workers, sp.workers)
		wf := 1.0 // the work-factor faults, all at once
		var st time.Duration
		for _, f := range p.faults {
			switch {
			case f.kind == faultWork && f.target == s:
				wf *= max(f.factor, 1)
			case f.kind == faultStall && f.target == s:
				if f.end == 0 {
					return 0, false
				}
				st += f.end - f.at
			}
		}
		stalls = max(stalls, st)
		load := 1.0
		if lf := sp.workLoad; lf != nil {
			load = lf.at(sp.workers, sp.workers)
		}
		if sp.gcOverhead > 0 {
			load /= 1 - sp.gcOverhead
		}
		scale := wf * load / min(sp.coldFactor, 1)
		var d float64
		for _, stg := range cl.stages {
			if stg.hasWork {
				d += stg.work.Quantile(tailU).Seconds() * scale
				continue
			}
			dp := &p.deps[stg.dep]
			t := dp.timeout
			if pol.DependencyTimeout == scenario.TimeoutDerived {
				t = cl.deadline // the time left before the deadline, at most
			}
			if t <= 0 {
				return 0, false
			}
			tries := dp.retries.max + 1
			d += (time.Duration(tries)*t + dp.retries.backoff.Total(dp.retries.max)).Seconds()
		}
		service = max(service, d)
	}
	// In a FIFO of at most queued attempts before it, with workers that each finish an
	// attempt within service, an attempt waits at most queued/workers + 1 services; an
	// age-bounded queue drops it at its max age.
	wait := float64(queued/workers+1) * service
	if pol.Queue.Kind == scenario.QueueAge {
		wait = math.Min(wait, pol.Queue.MaxAge.Std().Seconds())
	}
	life := (wait+service)*float64(time.Second) + float64(stalls)
	if !(life < float64(math.MaxInt64/4)) {
		return 0, false
	}
	return time.Duration(life), true
}

// jobBytes bounds what the jobs of arm name hold at once beside its requests: each job's
// list of the requests it will re-submit, at most all of its class's.
func jobBytes(p *plan, byClass []int64, name string) float64 {
	n := 0.0
	for _, j := range p.jobs {
		if j.arms(name) {
			n += float64(byClass[j.class]) * float64(unsafe.Sizeof(jobItem{}))
		}
	}
	return n
}

// jobRate is the peak rate at which the jobs of arm name send requests, all at once.
func jobRate(p *plan, name string) float64 {
	r := 0.0
	for _, j := range p.jobs {
		if j.arms(name) {
			r += j.rate
		}
	}
	return r
}

// jobRequests bounds the requests the jobs of class ci re-submit in an arm, of the n it is
// offered: each job at most every one of them, and no more than its rate sends from its
// instant to the end of the run. Jobs are not offered load: they count in the attempts and
// events, not in the requests.
func (p *plan) jobRequests(ci int, n int64) float64 {
	r := 0.0
	for _, j := range p.jobs {
		if j.class == ci {
			r += math.Min(float64(n), math.Ceil(j.rate*(p.duration-j.at).Seconds())+1)
		}
	}
	return r
}
