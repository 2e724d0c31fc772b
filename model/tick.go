package model

import (
	"fmt"
	"math"
	"time"

	"github.com/goodput-lab/goodput/control/loadstate"
	"github.com/goodput-lab/goodput/control/readiness"
	"github.com/goodput-lab/goodput/internal/latency"
	"github.com/goodput-lab/goodput/packet"
)

// newSignalHist returns a histogram of durations for per-tick quantiles (the controller's
// signals), read at a bucket's upper end; the packet's percentiles come from the Recorder's.
// A bucket is one of 8 sub-buckets of a power of two of microseconds (at most 12.5% wide),
// up to 2^42 µs.
func newSignalHist() latency.Histogram { return latency.NewSteps(8, (1<<42-1)*time.Microsecond) }

// tick samples the gauges, steps the load-state machine, evaluates the alerts and
// observes the instances' readiness, once per tick.
func (a *arm) tick() {
	now := a.now()
	wall := a.wall()
	if now < a.p.duration {
		a.schedule(a.p.tick, evTick, 0)
	}
	at := now - 1 // the sample closes the tick that ends now

	var s packet.Sample
	var poolSize float64
	var busyAll, workersWarm int
	s.Dependencies = make(map[string]packet.DependencyGauge, len(a.deps))
	depWaiting := make([]int, len(a.deps))
	for ii := range a.insts {
		in := &a.insts[ii]
		if in.routable || in.queued > 0 || in.busy > 0 {
			s.QueueAgeMax = max(s.QueueAgeMax, in.q.OldestAge(wall))
			s.QueueLen += in.queued
		}
		for d := range in.pools {
			pl := &in.pools[d]
			s.PoolWaiters += pl.waiting
			depWaiting[d] += pl.waiting
			if d == a.pol.trigger && in.routable && a.p.deps[d].pool > 0 {
				poolSize += float64(poolCap(a.p.deps[d].pool, in.factor))
			}
		}
		if in.routable {
			busyAll += in.busy
			if in.warm {
				workersWarm += in.workers
			}
		}
		if in.ready != nil {
			a.observe(in, now)
		}
		in.completed = 0
		if in.caches != nil {
			a.fitCaches(int32(ii))
		}
	}
	s.CacheEntries = a.cacheEntries()
	for d := range a.deps {
		dr := &a.deps[d]
		s.Dependencies[a.p.deps[d].name] = packet.DependencyGauge{InService: dr.busy, Waiting: depWaiting[d] + dr.waiting}
	}
	s.InFlight = a.inFlight
	for i := range a.svcs {
		sum := a.svcs[i].fleet.Summary()
		s.Instances.Requested += sum.AtLeast(readiness.Requested)
		s.Instances.ProcessReady += sum.AtLeast(readiness.ProcessReady)
	}
	for ii := range a.insts {
		if a.insts[ii].routable {
			s.Instances.RouteReady++
			if a.insts[ii].warm {
				s.Instances.Warm++
			}
		}
	}
	slack, ok := a.tk.slack.UpperBound(0.10)
	if !ok {
		slack = a.maxSlack
	}
	s.SlackP10 = slack
	if a.pol.adm != nil {
		s.AdmissionLimit = a.pol.adm.Limit()
	}

	amp := 1.0
	if a.tk.offered > 0 {
		amp = float64(a.tk.attempts) / float64(a.tk.offered)
	}
	if m := a.pol.machine; m != nil {
		// Saturation is the mean over the tick of the trigger dependency's connections in
		// use over the pool capacity of the instances taking traffic.
		a.connUse(a.pol.trigger, 0)
		sat := 0.0
		if poolSize > 0 {
			sat = a.trigArea / float64(a.p.tick) / poolSize
		}
		healthy := true
		if len(a.deps) > 0 {
			dp := &a.p.deps[a.pol.trigger]
			if conc := dp.concurrency; conc > 0 {
				sat = max(sat, float64(a.deps[a.pol.trigger].busy)/float64(conc))
			}
			if p99, ok := a.deps[a.pol.trigger].hist.UpperBound(0.99); ok {
				healthy = p99 <= dp.serviceTime.P99.Std()*3/2
			}
		}
		reserve := 0.0
		if workersWarm > 0 {
			reserve = max(0, float64(workersWarm-busyAll)/float64(workersWarm))
		}
		if t, changed := m.Step(wall, loadstate.Signals{
			Amplification:        amp,
			Slack:                slack,
			QueueAge:             s.QueueAgeMax,
			DependencySaturation: sat,
			ReadyReserve:         reserve,
			TriggerHealthy:       healthy,
		}); changed {
			a.rec.Transition(now, t.From.String(), t.To.String(), t.Generation, t.Reason, t.Manual)
		}
		a.applyPolicy(wall)
		snap := m.Snapshot()
		s.State = snap.State.String()
		s.Generation = snap.Generation
	}
	s.Constraint = a.constraint(wall)
	a.rec.Sample(at, s)
	// Alerts are stamped at the tick boundary that evaluated them (the last tick's inside
	// the run).
	a.alerts(min(now, a.p.duration-1), s.QueueAgeMax)
	if a.scalers != nil {
		a.autoscale(now)
	}
	if a.cells != nil {
		a.cellTick(min(now, a.p.duration-1)) // stamped as the alerts are (cell.go)
	}

	a.tk.offered, a.tk.attempts, a.tk.edgeAttempts, a.tk.edgeTimeouts, a.tk.goodput = 0, 0, 0, 0, 0
	a.tk.slack.Reset()
	a.connUse(a.pol.trigger, 0)
	a.trigArea = 0
	for d := range a.deps {
		dr := &a.deps[d]
		if a.pol.retryByDeadline {
			if q, ok := dr.hist.UpperBound(0.5); ok {
				dr.p50 = q
			}
		}
		dr.hist.Reset()
	}
}

// applyPolicy hands the load-state policy generation in force at wall, if it is new, to
// the controls that own its levers (see policyRT.sync).
func (a *arm) applyPolicy(wall time.Time) {
	if err := a.pol.sync(wall); err != nil {
		panic(err) // the machine's config is validated when the arm is built
	}
}

// ---- faults ----

func (a *arm) faultStart(i int) {
	f := &a.p.faults[i]
	now := a.now()
	switch f.kind {
	case faultDep:
		dr := &a.deps[f.target]
		dr.faults = append(dr.faults, i)
		a.applyDepFaults(f.target)
		a.rec.Annotate(now, "fault", describeFault(a.p, f, true))
	case faultWork:
		sv := &a.svcs[f.target]
		sv.works = append(sv.works, i)
		a.applyWorkFaults(f.target)
		a.rec.Annotate(now, "fault", describeFault(a.p, f, true))
	case faultShift:
		a.shifts = append(a.shifts, i)
		a.applyShifts()
		a.rec.Annotate(now, "fault", describeFault(a.p, f, true))
	case faultScale:
		a.scaleOut(f)
		a.rec.Annotate(now, "fault", describeFault(a.p, f, true))
	case faultCrash:
		what := a.crash(f)
		a.rec.Annotate(now, "fault", describeFault(a.p, f, true)+": "+what)
	case faultStall:
		what := a.stall(i)
		a.rec.Annotate(now, "fault", describeFault(a.p, f, true)+": "+what)
	}
}

func (a *arm) faultEnd(i int) {
	f := &a.p.faults[i]
	remove := func(list []int) []int {
		for k, v := range list {
			if v == i {
				return append(list[:k], list[k+1:]...)
			}
		}
		return list
	}
	switch f.kind {
	case faultDep:
		a.deps[f.target].faults = remove(a.deps[f.target].faults)
		a.applyDepFaults(f.target)
	case faultWork:
		a.svcs[f.target].works = remove(a.svcs[f.target].works)
		a.applyWorkFaults(f.target)
	case faultShift:
		a.shifts = remove(a.shifts)
		a.applyShifts()
	case faultStall:
		a.unstall(i)
	}
	a.rec.Annotate(a.now(), "fault", describeFault(a.p, f, false))
}

func (a *arm) applyDepFaults(d int) {
	dr := &a.deps[d]
	dp := &a.p.deps[d]
	dr.ln, dr.errRate = dp.ln, dp.errRate
	for _, fi := range dr.faults {
		f := &a.p.faults[fi]
		if f.serviceTime != nil {
			dr.ln = f.ln
		}
		if f.errRate != nil {
			dr.errRate = *f.errRate
		}
	}
	a.applyDepHang(d)
}

func (a *arm) applyWorkFaults(s int) {
	sv := &a.svcs[s]
	sv.workFactor = 1
	for _, fi := range sv.works {
		sv.workFactor = a.p.faults[fi].factor
	}
}

func (a *arm) applyShifts() {
	a.shift = 1
	for _, fi := range a.shifts {
		a.shift *= a.p.faults[fi].factor
	}
	a.rescheduleArrival()
}

func describeFault(p *plan, f *faultPlan, start bool) string {
	var what string
	switch f.kind {
	case faultDep:
		what = p.deps[f.target].name
		if f.serviceTime != nil {
			what += fmt.Sprintf(" service time p50 %v p99 %v", f.serviceTime.P50, f.serviceTime.P99)
		}
		if f.errRate != nil {
			what += fmt.Sprintf(" error rate %.1f%%", 100**f.errRate)
		}
		what += describeHang(f)
	case faultWork:
		what = fmt.Sprintf("%s work ×%.2f", p.services[f.target].name, f.factor)
	case faultShift:
		what = fmt.Sprintf("offered rate ×%.2f", f.factor)
	case faultScale:
		what = fmt.Sprintf("%s scale-out: %d instances requested", p.services[f.target].name, f.add)
	case faultCrash, faultStall:
		what = p.services[f.target].name + map[bool]string{true: " crash", false: " stall"}[f.kind == faultCrash]
		if f.count > 0 {
			what += fmt.Sprintf(" of %d instances", f.count)
		} else {
			what += fmt.Sprintf(" of %.1f%% of the instances", 100*f.share)
		}
	}
	if f.note != "" {
		what += " (" + f.note + ")"
	}
	if start {
		return "start: " + what
	}
	return "end: " + what
}

// ---- instances ----

func (a *arm) newInstance(svc int, warm bool) int32 {
	sp := &a.p.services[svc]
	ii := int32(len(a.insts))
	q, err := newQueue(a.pol.queueCfg(sp.queueCap))
	if err != nil {
		panic(err) // the policy's config is validated when the arm is built
	}
	a.insts = append(a.insts, instance{
		svc:     int32(svc),
		q:       q,
		workers: sp.workers,
		pools:   make([]connPool, len(a.p.deps)),
		factor:  1,
		invCap:  1 / float64(sp.workers),
	})
	a.startCaches(ii, warm)
	in := &a.insts[ii]
	rt := &a.svcs[svc]
	rt.insts = append(rt.insts, ii)
	in.ready = rt.fleet.Request(a.wall())
	if warm {
		in.up, in.warm = true, true
		a.updateRoutable(ii)
		_ = in.ready.ProcessReady(a.wall())
		in.ready.Observe(a.wall(), readiness.Observation{CacheWarm: 1, Throughput: 0})
		a.startProbes(ii)
	}
	return ii
}

// scaleOut requests a scale fault's instances: scheduled at once, process-ready after
// the service's cold startup.
func (a *arm) scaleOut(f *faultPlan) {
	a.addInstances(f.target, f.add, 0, a.p.services[f.target].coldStartup)
}

// instanceUp: the process is ready (id: the instance and its life). It works cold
// (slower, fewer usable connections) for the service's Cold.For; the policy's readiness
// gate decides whether it takes traffic now.
func (a *arm) instanceUp(id int64) {
	ii, life := unref(id)
	in := &a.insts[ii]
	if in.life != life {
		return
	}
	sp := &a.p.services[in.svc]
	in.up = true
	in.upAt = a.now()
	_ = in.ready.ProcessReady(a.wall())
	if sp.coldFor > 0 {
		in.factor = sp.coldFactor
		in.invCap = 1 / (float64(in.workers) * in.factor)
		a.schedule(sp.coldFor, evInstanceWarm, id)
	} else {
		in.warm = true
		in.factor = 1
		in.invCap = 1 / float64(in.workers)
	}
	a.observe(in, a.now())
	a.updateRoutable(ii)
	a.startProbes(ii)
}

func (a *arm) instanceWarm(id int64) {
	ii, life := unref(id)
	in := &a.insts[ii]
	if in.life != life {
		return
	}
	in.warm = true
	in.factor = 1
	in.invCap = 1 / float64(in.workers)
	a.observe(in, a.now())
	a.updateRoutable(ii)
	for d := range in.pools {
		a.grantConns(ii, int32(d))
	}
	a.pump(ii)
}

// observe reports an instance's warm-up to its readiness tracker: the fraction of its cold
// period done stands for cache warmth, and the usable connections and the attempts it
// completed in the last tick are what a canary would show.
func (a *arm) observe(in *instance, now time.Duration) {
	if !in.up {
		return
	}
	warmth := 1.0
	if !in.warm {
		sp := &a.p.services[in.svc]
		warmth = math.Min(1, float64(now-in.upAt)/float64(max(sp.coldFor, 1)))
	}
	conns := 0
	for d := range in.pools {
		if size := a.p.deps[d].pool; size > 0 {
			conns += poolCap(size, in.factor)
		}
	}
	in.ready.Observe(a.wall(), readiness.Observation{
		Connections: conns,
		CacheWarm:   warmth,
		Throughput:  float64(in.completed) / a.p.tick.Seconds(),
	})
}
