package model

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/goodput-lab/goodput/control/queue"
	"github.com/goodput-lab/goodput/internal/floatdur"
)

// Health checks. An instance of a service with a health check is probed every interval,
// from the moment its process is ready, at a phase of its own. A probe waits in the
// instance's queue like an attempt and takes no work: it passes when a worker picks it up
// within the timeout, and fails when it is still waiting then, or when the queue refuses
// or drops it. So an instance whose queue holds more than the timeout of work fails its
// probes while it keeps serving.
//
// After failures probes in a row fail, the action is taken. remove takes the instance out
// of routing until it passes successes probes in a row (it drains meanwhile, so it
// usually comes back, and the others carry its share while it is out). restart kills the
// process: the attempts it holds, queued or in service, fail with an error (their callers
// see a reset connection at once and may retry), its dependency calls in service run on as
// orphans (or are cancelled, if the policy propagates cancellation), and its caches are
// lost. It is ready again after
// the restart time and cold for the service's cold period, as a new instance is. Events of
// an earlier life of the instance are ignored (instance.life).

// probeItem is the queue item of instance ii's probe n: negative, unlike an attempt's
// ref. Probe numbers wrap at 2^31 (see nextProbe).
func probeItem(ii int32, n uint32) int64 { return -1 - int64(uint64(n)<<32|uint64(uint32(ii))) }

// probeOf decodes a probe's queue item.
func probeOf(id int64) (ii int32, n uint32) {
	x := uint64(-1 - id)
	return int32(uint32(x)), uint32(x >> 32)
}

// startProbes schedules the first probe of instance ii, whose process has just become
// ready. The phase spreads the instances' probes over the interval (the golden ratio's
// sequence), as independent kubelets would.
func (a *arm) startProbes(ii int32) {
	hp := a.p.services[a.insts[ii].svc].health
	if hp == nil {
		return
	}
	_, frac := math.Modf(float64(ii+1) * 0.6180339887498949)
	a.schedule(floatdur.Trunc(frac*float64(hp.every)), evProbe, ref(ii, a.insts[ii].life))
}

// probeFire sends the next probe of an instance (id: its ref and life).
func (a *arm) probeFire(id int64) {
	ii, life := unref(id)
	in := &a.insts[ii]
	if in.life != life || !in.up {
		return
	}
	hp := a.p.services[in.svc].health
	a.schedule(hp.every, evProbe, id)
	if in.probing {
		// The last probe has waited a whole interval, its timeout at least: it failed
		// (its timeout, due at this instant too, has not been handled yet).
		in.probing = false
		a.probeResult(ii, false)
		if in.life != life {
			return
		}
	}
	in.probeN = (in.probeN + 1) & (1<<31 - 1)
	if in.queued+in.probes == 0 && in.busy < in.workers {
		a.probeResult(ii, true) // a worker answers at once
		return
	}
	if err := in.q.Push(a.wall(), probeItem(ii, in.probeN), time.Time{}); err != nil {
		a.probeResult(ii, false) // the queue refuses it (full)
		return
	}
	in.probes++
	in.probing = true
	a.schedule(hp.timeout, evProbeTimeout, ref(ii, in.probeN))
}

// probeTimeout fails a probe still waiting at its timeout (id: instance and probe number).
func (a *arm) probeTimeout(id int64) {
	ii, n := unref(id)
	in := &a.insts[ii]
	if !in.probing || in.probeN != n {
		return
	}
	in.probing = false
	a.probeResult(ii, false)
}

// probeOut is probe item id leaving its queue: a worker takes it (pass), or the queue
// drops it (too old, or CoDel: fail). It has a verdict only if it is the probe still
// waiting for one.
func (a *arm) probeOut(id int64, pass bool) {
	ii, n := probeOf(id)
	in := &a.insts[ii]
	in.probes--
	if in.probing && in.probeN == n {
		in.probing = false
		a.probeResult(ii, pass)
	}
}

// probeResult counts a probe of instance ii and takes the health check's action when
// enough in a row have failed. A restart is an event of its own at this instant, so that
// it never runs inside the queue's Pop or the worker loop that reported the probe.
func (a *arm) probeResult(ii int32, pass bool) {
	in := &a.insts[ii]
	hp := a.p.services[in.svc].health
	h := a.hs.health[in.svc]
	h.Probe(pass)
	if pass {
		in.fails = 0
		in.passes++
		if in.removed && in.passes >= hp.successes {
			in.removed = false
			h.Returned()
			a.updateRoutable(ii)
		}
		return
	}
	in.passes = 0
	in.fails++
	if in.fails < hp.failures {
		return
	}
	if hp.restart {
		in.fails = 0
		if !in.killing {
			in.killing = true
			a.schedule(0, evKill, ref(ii, in.life))
		}
		return
	}
	if !in.removed {
		in.removed = true
		h.Removed()
		if rt := &a.svcs[in.svc]; !rt.removedOnce {
			rt.removedOnce = true
			a.rec.Annotate(a.now(), "health", fmt.Sprintf("%s: the first instance taken out of routing (%d): %d probes in a row failed", a.p.services[in.svc].name, ii, hp.failures))
		}
		a.updateRoutable(ii)
	}
}

// kill ends the life of instance ii's process (id: its ref and life) and starts the next.
func (a *arm) kill(id int64) {
	ii, life := unref(id)
	in := &a.insts[ii]
	if in.life != life || !in.up {
		return
	}
	sp := &a.p.services[in.svc]
	in.life++
	in.killing = false
	in.up, in.warm, in.removed, in.probing = false, false, false, false
	in.fails, in.passes = 0, 0
	a.updateRoutable(ii) // first, so that the retries of what fails go elsewhere

	// The calls it has made, in three passes. Those waiting for a connection or a server are
	// never served; they go first, so that a connection or server the others free is not
	// given to one of them. Those in service are cancelled at the dependency if the policy
	// propagates cancellation (the reset connection is what it propagates); otherwise they
	// run on as orphans, and their places in the pool come back when they end (as a rule
	// long before the process is ready again).
	calls := a.callsOf(ii)
	for _, pass := range []uint8{callWaitConn, callWaitServer, callServing} {
		for _, id := range calls {
			ci, gen := unref(id)
			c := a.sl.call(ci)
			if c.gen != gen || c.state != pass || c.inst != ii {
				continue // freed meanwhile, or not in this pass
			}
			li := c.lg
			lg := a.sl.lg(li)
			switch c.state {
			case callWaitConn:
				in.pools[c.dep].waiting--
			case callWaitServer:
				a.deps[c.dep].waiting--
				a.releaseConn(ii, c.dep)
			case callServing:
				if !a.pol.cancel && !c.hung { // a hung call ends with its caller
					c.callerGone = true
					continue
				}
				a.releaseServer(c.dep)
				a.releaseConn(ii, c.dep)
				a.hs.depCall[c.dep].CancelCompleted(a.now())
			}
			c.state = callDone
			a.freeCall(ci, c, lg)
			lg.live--
			a.settle(li, lg)
		}
	}
	for d := range in.pools {
		in.pools[d].waiters = ring{} // only dead refs are left in it
	}

	// The attempts it holds fail with an error: those in service, then those queued, all of
	// them whatever the queue's policy would have dropped first (a cancelled one is only
	// discarded).
	killed := 0
	for _, id := range a.runningOn(ii) {
		ai, gen := unref(id)
		at := a.sl.att(ai)
		if at.gen != gen || at.state != attRunning || at.inst != ii {
			continue // freed meanwhile
		}
		at.call = -1
		in.busy--
		killed++
		a.finishAttempt(ai, at, a.sl.lg(at.lg), causeError, false)
	}
	q := in.q
	nq, err := newQueue(a.pol.queueCfg(sp.queueCap))
	if err != nil {
		panic(err) // the policy's config is validated when the arm is built
	}
	in.q = nq
	fail := func(id int64) {
		if id < 0 {
			in.probes--
			return
		}
		in.queued--
		ai, _ := unref(id)
		at := a.sl.att(ai)
		if at.cancelled {
			a.discard(ai)
			return
		}
		killed++
		a.finishAttempt(ai, at, a.sl.lg(at.lg), causeError, false)
	}
	drop := func(id int64, _ queue.Reason) { fail(id) }
	for {
		id, ok := q.Pop(a.wall(), drop)
		if !ok {
			break
		}
		fail(id)
	}
	in.completed = 0
	for slot := range in.caches {
		in.caches[slot].held, in.caches[slot].hit = 0, 0
	}
	a.hs.health[in.svc].Restarted(killed)
	rt := &a.svcs[in.svc]
	if !rt.killedOnce {
		rt.killedOnce = true
		a.rec.Annotate(a.now(), "health", fmt.Sprintf("%s: the first instance restarted (%d): %d probes in a row failed; the %d attempts it held failed", sp.name, ii, sp.health.failures, killed))
	}
	rt.fleet.Remove(in.ready)
	in.ready = rt.fleet.Request(a.wall())
	_ = in.ready.Scheduled(a.wall())
	a.schedule(a.restartJitter(ii, sp.health, a.restartDelay(in, sp.health))+sp.health.restartAfter, evInstanceUp, ref(ii, in.life))
}

// restartDelay is the ceiling of the back-off before instance in, just killed, starts
// again: initial for its first restart since a process of it ran for the reset period,
// growing by the multiplier (doubling by default) with each restart after that, up to max.
// restartJitter spreads it.
func (a *arm) restartDelay(in *instance, hp *healthPlan) time.Duration {
	if hp.backoff.Base == 0 {
		return 0
	}
	if a.now()-in.upAt >= hp.backoffReset {
		in.restarts = 0
	}
	in.restarts++
	return hp.backoff.Ceiling(in.restarts)
}

// restartJitter spreads the back-off ceiling d of instance ii's restart by the health
// check's jitter, with a draw keyed by the instance and its new life: the same in every
// arm for the same restart.
func (a *arm) restartJitter(ii int32, hp *healthPlan, d time.Duration) time.Duration {
	if !hp.jittered {
		return d
	}
	return hp.backoff.Jitter.Spread(d, a.draw(hp.jitterPurp, int64(ii), int32(a.insts[ii].life), 0, 0))
}

// callsOf lists the live calls instance ii has made, as refs.
func (a *arm) callsOf(ii int32) []int64 {
	var out []int64
	a.sl.eachLive(nil, nil, func(i int32, c *call) {
		if c.state != callDone && c.inst == ii {
			out = append(out, ref(i, c.gen))
		}
	})
	return out
}

// runningOn lists the attempts in service on instance ii, as refs.
func (a *arm) runningOn(ii int32) []int64 {
	var out []int64
	a.sl.eachLive(nil, func(i int32, at *attempt) {
		if at.state == attRunning && at.inst == ii {
			out = append(out, ref(i, at.gen))
		}
	}, nil)
	return out
}

// updateRoutable puts instance ii in its router's list, or takes it out, as its state
// says: its process is ready, the policy's readiness gate lets it take traffic, and no
// failed health check has removed it.
func (a *arm) updateRoutable(ii int32) {
	in := &a.insts[ii]
	want := in.up && (in.warm || !a.pol.readyWarm) && !in.removed
	if in.routable == want {
		return
	}
	in.routable = want
	rt := &a.svcs[in.svc]
	if want {
		rt.routable = append(rt.routable, ii)
		return
	}
	rt.routable = slices.DeleteFunc(rt.routable, func(j int32) bool { return j == ii })
}
