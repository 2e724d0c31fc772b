package model

import (
	"fmt"
	"math"
	"strings"

	"github.com/goodput-lab/goodput/control/queue"
)

// Instance faults (scenario.Fault's Crash and Stall). A crash kills the processes of some
// of a service's instances, as a health check's restart does (terminate), and brings them
// back after the fault's recovery time through the readiness stages, cold. A stall freezes
// some instances: they keep their place in routing and take attempts into their queues,
// but no worker takes anything from a queue (the instance's starting flag is held, which
// pump and enqueue's bypass respect), probes wait there, and an attempt in service that
// reaches its next stage is held (instance.held) until the stall ends.

// instanceFaults is an arm's state of its stall faults: the instances each one froze.
type instanceFaults struct {
	stalled map[int][]int32 // by fault index
}

// pickInstances returns the instances a crash or stall fault f hits: its count, or its
// share (rounded up, at least one) of the service's instances whose process is up, the
// lowest-numbered of those first.
func (a *arm) pickInstances(f *faultPlan) []int32 {
	var up []int32
	for _, ii := range a.svcs[f.target].insts {
		if a.insts[ii].up {
			up = append(up, ii)
		}
	}
	n := f.count
	if n == 0 {
		n = max(1, int(math.Ceil(f.share*float64(len(up))-1e-9)))
	}
	return up[:min(n, len(up))]
}

// crash kills the instances fault f picks and schedules their recovery.
func (a *arm) crash(f *faultPlan) string {
	rt := &a.svcs[f.target]
	picked := a.pickInstances(f)
	for _, ii := range picked { // all out of routing first: what fails is retried elsewhere
		a.insts[ii].up = false
		a.updateRoutable(ii)
	}
	killed := 0
	for _, ii := range picked {
		killed += a.terminate(ii)
		in := &a.insts[ii]
		rt.fleet.Remove(in.ready)
		in.ready = rt.fleet.Request(a.wall())
		_ = in.ready.Scheduled(a.wall())
		if f.end > 0 {
			a.schedule(f.end-f.at, evInstanceUp, ref(ii, in.life))
		}
	}
	return fmt.Sprintf("%s crash: instances %s down, the %d attempts they held failed", a.p.services[f.target].name, instanceList(picked), killed)
}

// stall freezes the instances fault fi picks.
func (a *arm) stall(fi int) string {
	f := &a.p.faults[fi]
	picked := a.pickInstances(f)
	for _, ii := range picked {
		in := &a.insts[ii]
		in.stalls++
		in.starting = true
	}
	if a.ix.stalled == nil {
		a.ix.stalled = map[int][]int32{}
	}
	a.ix.stalled[fi] = picked
	return fmt.Sprintf("%s stall: instances %s frozen", a.p.services[f.target].name, instanceList(picked))
}

// unstall ends stall fault fi: its instances that no other stall holds take up their
// held attempts and their queues again.
func (a *arm) unstall(fi int) {
	picked := a.ix.stalled[fi]
	delete(a.ix.stalled, fi)
	for _, ii := range picked {
		in := &a.insts[ii]
		if in.stalls--; in.stalls > 0 {
			continue
		}
		in.starting = false
		held := in.held
		in.held = nil
		for _, id := range held {
			ai, gen := unref(id)
			at := a.sl.att(ai)
			if at.gen != gen || at.state != attRunning || at.inst != ii {
				continue // failed or cancelled meanwhile
			}
			a.runStage(ai, at, a.sl.lg(at.lg))
		}
		a.pump(ii)
	}
}

// hold keeps attempt ai (at), on a stalled instance, from its next stage until the stall
// ends.
func (a *arm) hold(ai int32, at *attempt) {
	in := &a.insts[at.inst]
	in.held = append(in.held, ref(ai, at.gen))
}

// terminate ends the life of instance ii's process: it leaves routing, the calls it has
// made are given up, the attempts it holds fail with an error, its queue is emptied and
// its caches are lost. It returns the number of attempts that failed. The caller starts
// the next life (kill, crash).
func (a *arm) terminate(ii int32) int {
	in := &a.insts[ii]
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
	in.held = nil
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
	return killed
}

// instanceList formats instance numbers for an annotation, e.g. "#0, #1".
func instanceList(iis []int32) string {
	if len(iis) == 0 {
		return "(none)"
	}
	var b strings.Builder
	for k, ii := range iis {
		if k > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "#%d", ii)
	}
	return b.String()
}
