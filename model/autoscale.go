package model

import (
	"fmt"
	"math"
	"time"

	"github.com/goodput-lab/goodput/internal/numfmt"
	"github.com/goodput-lab/goodput/scenario"
)

// The autoscaler (scenario.Autoscale): a rule per service, evaluated at every tick on its
// metric sampled at the tick, averaged over its window. It asks for ceil(route-ready ×
// mean ÷ target) instances, within its min and max and at most a step at a time, and
// waits its cooldown after each request. A scale-up requests instances through the same
// pipeline as a scale fault (addInstances): requested, scheduled after the rule's delay
// (plus the control plane's slowness), process-ready after its process_ready delay, then
// cold and route-ready as the readiness gate says. A scale-down, taken only when no
// instance it counts is starting, drains the idlest instances (the newest among equals):
// out of routing at once, retired once they hold nothing, their slots reused by later
// scale-ups. The control plane may fail or slow a request while the service's oldest
// queued attempt is older than its threshold.

// autoPlan is a service's autoscaler, compiled.
type autoPlan struct {
	cpu                     bool // metric cpu (else utilisation)
	target                  float64
	window                  int // ticks
	stepUp, stepDown        int
	min, max                int
	cooldown                time.Duration
	scheduled, processReady time.Duration
	cpAge                   time.Duration // the control plane's condition (0: none)
	cpFails                 bool
	cpSlow                  time.Duration
	metric                  string
}

// newAutoPlan compiles service s's rule (nil: none) with the run's tick.
func newAutoPlan(s scenario.Service, coldStartup, tick time.Duration) *autoPlan {
	as := s.Autoscale
	if as == nil {
		return nil
	}
	ap := &autoPlan{
		cpu:          as.Metric == scenario.AutoscaleCPU,
		metric:       as.Metric,
		target:       float64(as.Target),
		window:       max(1, int(as.Window.Std()/tick)),
		stepUp:       as.StepUp,
		stepDown:     as.StepDown,
		min:          as.Min,
		max:          as.Max,
		cooldown:     as.Cooldown.Std(),
		scheduled:    as.Delays.Scheduled.Std(),
		processReady: as.Delays.ProcessReady.Std(),
		cpAge:        as.ControlPlane.QueueAgeAbove.Std(),
		cpFails:      as.ControlPlane.Fails,
		cpSlow:       as.ControlPlane.SlowBy.Std(),
	}
	if ap.min == 0 {
		ap.min = s.Instances
	}
	if ap.processReady == 0 {
		ap.processReady = coldStartup
	}
	return ap
}

// created bounds the instances the rule may request over a run of d at ticks of tick.
func (ap *autoPlan) created(d, tick time.Duration) int {
	return ap.stepUp * (int(d/max(ap.cooldown, tick)) + 1)
}

// autoscaler is a service's rule's state in an arm.
type autoscaler struct {
	samples []float64 // the metric at the last window's ticks, a ring
	n, next int
	until   time.Duration // no decision before
}

// newScalers returns the arm's autoscalers, nil if no service has a rule.
func newScalers(p *plan) []autoscaler {
	var out []autoscaler
	for i, sp := range p.services {
		if sp.auto == nil {
			continue
		}
		if out == nil {
			out = make([]autoscaler, len(p.services))
		}
		out[i].samples = make([]float64, sp.auto.window)
	}
	return out
}

// autoscale retires drained instances, samples the metrics and takes the rules'
// decisions, at the tick at now.
func (a *arm) autoscale(now time.Duration) {
	var cpu []int // workers running stage work, by service, if a rule needs them
	for i := range a.scalers {
		if ap := a.p.services[i].auto; ap != nil && ap.cpu && cpu == nil {
			cpu = make([]int, len(a.p.services))
			a.sl.eachLive(nil, func(_ int32, at *attempt) {
				if at.state == attRunning && at.call < 0 && a.insts[at.inst].routable {
					cpu[a.insts[at.inst].svc]++
				}
			}, nil)
		}
	}
	for i := range a.scalers {
		ap := a.p.services[i].auto
		if ap == nil {
			continue
		}
		sc := &a.scalers[i]
		rt := &a.svcs[i]
		busy, workers, ready, current := 0, 0, 0, 0
		for _, ii := range rt.insts {
			in := &a.insts[ii]
			if in.draining && in.busy == 0 && in.queued == 0 && !a.holdsConns(in) {
				a.retireScaledIn(ii)
			}
			if in.retired || in.draining {
				continue
			}
			current++
			if in.routable {
				ready++
				busy += in.busy
				workers += in.workers
			}
		}
		if ap.cpu {
			busy = cpu[i]
		}
		sample := 1.0 // nothing route-ready: as saturated as it gets
		if workers > 0 {
			sample = float64(busy) / float64(workers)
		}
		sc.samples[sc.next] = sample
		sc.next = (sc.next + 1) % len(sc.samples)
		sc.n = min(sc.n+1, len(sc.samples))
		if sc.n < len(sc.samples) || now < sc.until || now >= a.p.duration {
			continue
		}
		sum := 0.0
		for _, v := range sc.samples {
			sum += v
		}
		mean := sum / float64(len(sc.samples))
		desired := int(math.Ceil(float64(ready)*mean/ap.target - 1e-9))
		desired = min(max(desired, ap.min), ap.max)
		switch {
		case desired > current:
			a.scaleRequest(i, now, min(ap.stepUp, desired-current), mean, current)
		case desired < current && ready == current && ap.stepDown > 0:
			a.scaleRequest(i, now, -min(ap.stepDown, current-desired), mean, current)
		}
	}
}

// scaleRequest asks the control plane for delta instances of service svc (negative:
// fewer), its rule's mean metric being mean with current instances counted.
func (a *arm) scaleRequest(svc int, now time.Duration, delta int, mean float64, current int) {
	sp := &a.p.services[svc]
	ap := sp.auto
	a.scalers[svc].until = now + ap.cooldown
	why := fmt.Sprintf("%s %.3g%% over %v, target %s", ap.metric, 100*mean, time.Duration(ap.window)*a.p.tick, numfmt.PlainPercent(ap.target))
	slow := time.Duration(0)
	if ap.cpAge > 0 {
		if age := a.queueAge(svc); age > ap.cpAge {
			if ap.cpFails {
				a.rec.Annotate(now, "autoscale", fmt.Sprintf("%s: request failed (%+d; %s): control plane overloaded: queue age %v above %v", sp.name, delta, why, age, ap.cpAge))
				return
			}
			slow = ap.cpSlow
		}
	}
	note := ""
	if slow > 0 {
		note = fmt.Sprintf("; control plane slow: +%v", slow)
	}
	if delta > 0 {
		a.addInstances(svc, delta, ap.scheduled+slow, ap.processReady)
		a.rec.Annotate(now, "autoscale", fmt.Sprintf("%s: requested %+d (%s): %d → %d instances%s", sp.name, delta, why, current, current+delta, note))
		return
	}
	victims := a.scaleInVictims(svc, -delta)
	for _, ii := range victims {
		a.insts[ii].draining = true
		a.updateRoutable(ii)
		a.svcs[svc].fleet.Remove(a.insts[ii].ready) // no longer capacity requested
	}
	a.rec.Annotate(now, "autoscale", fmt.Sprintf("%s: requested %+d (%s): %d → %d instances, draining %s", sp.name, delta, why, current, current+delta, instanceList(victims)))
}

// scaleInVictims picks n route-ready instances of service svc to drain: the fewest
// attempts queued or in service first, the newest (highest-numbered) among equals.
func (a *arm) scaleInVictims(svc, n int) []int32 {
	var out []int32
	for range n {
		pick := int32(-1)
		for _, ii := range a.svcs[svc].insts {
			in := &a.insts[ii]
			if !in.routable || in.draining {
				continue
			}
			if pick < 0 {
				pick = ii
				continue
			}
			p := &a.insts[pick]
			if l, pl := in.busy+in.queued, p.busy+p.queued; l < pl || l == pl && ii > pick {
				pick = ii
			}
		}
		if pick < 0 {
			break
		}
		a.insts[pick].draining = true // so that the next pass skips it; set again by the caller
		out = append(out, pick)
	}
	return out
}

// queueAge is the age of the oldest attempt queued at any instance of service svc.
func (a *arm) queueAge(svc int) time.Duration {
	var age time.Duration
	for _, ii := range a.svcs[svc].insts {
		in := &a.insts[ii]
		if in.queued > 0 {
			age = max(age, in.q.OldestAge(a.wall()))
		}
	}
	return age
}

// holdsConns reports whether instance in still has connections in use (orphan calls of an
// earlier life), which its slot must not be reused under.
func (a *arm) holdsConns(in *instance) bool {
	for d := range in.pools {
		if in.pools[d].inUse > 0 || in.pools[d].waiting > 0 {
			return true
		}
	}
	return false
}

// retireScaledIn ends a drained instance: its process is gone and its slot is free for a later
// scale-up (requestInstance).
func (a *arm) retireScaledIn(ii int32) {
	in := &a.insts[ii]
	in.draining, in.retired = false, true
	in.life++
	in.up, in.warm, in.probing = false, false, false
	a.updateRoutable(ii)
	a.svcs[in.svc].fleet.Remove(in.ready)
	in.ready = nil
}

// requestInstance adds an instance of service svc, cold, requested now: in a retired
// instance's slot if there is one, else a new one.
func (a *arm) requestInstance(svc int) int32 {
	rt := &a.svcs[svc]
	for _, ii := range rt.insts {
		if !a.insts[ii].retired {
			continue
		}
		in := &a.insts[ii]
		sp := &a.p.services[svc]
		q, err := newQueue(a.pol.queueCfg(sp.queueCap))
		if err != nil {
			panic(err) // the policy's config is validated when the arm is built
		}
		*in = instance{
			svc:     int32(svc),
			q:       q,
			workers: sp.workers,
			pools:   make([]connPool, len(a.p.deps)),
			factor:  1,
			invCap:  1 / float64(sp.workers),
			life:    in.life + 1,
			probeN:  in.probeN, // so that a stale probe timeout never matches a new probe
		}
		a.startCaches(ii, false)
		in.ready = rt.fleet.Request(a.wall())
		return ii
	}
	return a.newInstance(svc, false)
}

// addInstances requests n instances of service svc: scheduled after sched, then
// process-ready after ready (the scale fault's and the autoscaler's pipeline).
func (a *arm) addInstances(svc, n int, sched, ready time.Duration) {
	for range n {
		ii := a.requestInstance(svc)
		id := ref(ii, a.insts[ii].life)
		if sched > 0 {
			a.schedule(sched, evScheduled, id)
			continue
		}
		_ = a.insts[ii].ready.Scheduled(a.wall())
		a.schedule(ready, evInstanceUp, id)
	}
}

// instanceScheduled: an autoscaled instance has a place to run (id: the instance and its
// life); its process is ready after the rule's process_ready delay.
func (a *arm) instanceScheduled(id int64) {
	ii, life := unref(id)
	in := &a.insts[ii]
	if in.life != life {
		return
	}
	_ = in.ready.Scheduled(a.wall())
	a.schedule(a.p.services[in.svc].auto.processReady, evInstanceUp, id)
}
