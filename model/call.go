package model

import (
	"github.com/goodput-lab/goodput/internal/latency"
	"github.com/goodput-lab/goodput/internal/lognormal"

	"strconv"
	"time"

	"github.com/goodput-lab/goodput/control/breaker"
	"github.com/goodput-lab/goodput/control/deadline"
	"github.com/goodput-lab/goodput/control/identity"
)

// Dependency calls. A stage's call waits for a connection of its instance's pool and a
// server of the dependency (pool.go), is served for a drawn service time and may fail by
// the dependency's error rate; a mutation it makes goes through the dependency's ledger by
// logical identity. It times out by the dependency's timeout or the one derived from the
// deadline — the time left less the reserve, at most the policy's ceiling, as
// control/controlhttp's client derives it — and the service retries a failed call as its
// retry plan and the policy decide (retry.go).

// depRT is a dependency's state in an arm: its servers and their queue, its service time
// and error rate as the faults have them, and the service times it measures.
type depRT struct {
	busy     int
	queue    ring // calls waiting for a server (lazily removed)
	waiting  int
	ln       lognormal.Dist // the service time, as the faults now have it, ready to sample
	errRate  float64
	hangRate float64           // the share of calls that hang, as the faults have it (hang.go)
	faults   []int             // active dependency faults, most recent last
	hist     latency.Histogram // service times of the tick (newSignalHist)
	// p50 is the median service time measured over the last tick that had calls (kept
	// when retries are decided by the deadline; the declared one before the first):
	// what a service's retry must expect to need.
	p50 time.Duration
}

// startCall makes the call of attempt ai's current stage; at and lg are the attempt and
// its request.
func (a *arm) startCall(ai int32, at *attempt, lg *logical) {
	now := a.now()
	cp := &a.p.classes[lg.class]
	st := &cp.stages[at.stage]
	dp := &a.p.deps[st.dep]
	timeout := dp.timeout
	capped := false // the timeout is the ceiling's, not the deadline's (ceiling.go)
	if a.pol.derived {
		t, err := deadline.CallTimeout(a.s.At(a.deadline(lg)), a.wall(), a.pol.reserve, a.pol.ceiling)
		if err != nil {
			a.stageFailed(ai, causeExpired)
			return
		}
		timeout, capped = t, a.pol.ceiling > 0 && t >= a.pol.ceiling
	}
	// A breaker asks first: a refused call is not made, takes nothing and is not retried.
	var held heldTicket
	if a.pol.brk.guards(st.dep) {
		h, ok := a.breakerAllow(st.dep, at.inst)
		if !ok {
			a.stageFailed(ai, causeError)
			return
		}
		held = h
	}
	// Every call is an attempt at the dependency's layer; a service-level retry is also
	// counted as a retry there (edge retries are counted at the edge).
	a.hs.depCall[st.dep].Attempt(now)
	if at.tries > 0 {
		a.hs.depCall[st.dep].Retry(now)
		a.tk.attempts++
	}
	ci, c := a.sl.newCall(at.lg)
	c.lg = at.lg
	c.att = ai
	c.attGen = at.gen
	c.dep = int32(st.dep)
	c.inst = at.inst
	c.stage = at.stage
	c.mutation = uint8(st.mutation)
	c.try = at.tries
	c.num = at.num
	c.asked = now
	lg.live++
	at.call = ci
	if held.b != nil {
		a.breakerHold(ci, held)
	}
	// Every call of a request times out at the same instant, its deadline minus the
	// reserve, when timeouts are derived and cancellation is on: no other attempt of it is
	// left running, so one timer per request (evReserve, set at arrival) serves all its
	// calls that the ceiling does not cut first. Otherwise the call has its own timer.
	timed := timeout > 0 && (!(a.pol.derived && a.pol.cancel) || capped)
	in := &a.insts[at.inst]
	pl := &in.pools[st.dep]
	if pl.inUse < poolCap(dp.pool, in.factor) {
		pl.inUse++
		a.connUse(st.dep, 1)
		if dr := &a.deps[st.dep]; dp.concurrency == 0 || dr.busy < dp.concurrency {
			// Connected and served at once: the service time, drawn now, says whether the
			// timeout can fire before the answer. If it cannot, the call needs no timer.
			c.connAt = now
			d := a.serviceTime(st, c, lg)
			if timed && (d >= timeout || a.hangs(lg, c)) {
				c.tpos = a.after(a.tqDep+st.dep, timeout, ref(ci, c.gen))
			}
			a.serve(ci, c, lg, d)
			return
		}
		if timed {
			c.tpos = a.after(a.tqDep+st.dep, timeout, ref(ci, c.gen))
		}
		a.connected(ci, c, at, lg)
		return
	}
	if timed {
		c.tpos = a.after(a.tqDep+st.dep, timeout, ref(ci, c.gen))
	}
	c.state = callWaitConn
	pl.waiters.push(ref(ci, c.gen))
	pl.waiting++
	if dp.acquire > 0 && (timeout == 0 || dp.acquire < timeout) {
		a.schedule(dp.acquire, evAcquire, ref(ci, c.gen))
	}
}

// connected starts call ci (c), which holds a connection, for its attempt at of request lg:
// at the dependency if a server is free, else in its queue.
func (a *arm) connected(ci int32, c *call, at *attempt, lg *logical) {
	c.connAt = a.now()
	at.connWait += c.connAt - c.asked
	dr := &a.deps[c.dep]
	if conc := a.p.deps[c.dep].concurrency; conc > 0 && dr.busy >= conc {
		if a.p.deps[c.dep].reject {
			a.rejectCall(ci, c)
			return
		}
		c.state = callWaitServer
		dr.queue.push(ref(ci, c.gen))
		dr.waiting++
		return
	}
	a.serve(ci, c, lg, a.serviceTime(a.stage(lg, c), c, lg))
}

// stage is the stage of request lg that call c makes.
func (a *arm) stage(lg *logical, c *call) *stagePlan {
	return &a.p.classes[lg.class].stages[c.stage]
}

// serviceTime draws the service time of call c (of stage st of request lg) at its
// dependency, as it stands now.
func (a *arm) serviceTime(st *stagePlan, c *call, lg *logical) time.Duration {
	d := a.deps[c.dep].ln.Sample(a.draw(st.svcPurp, lg.id, c.num, c.stage, c.try))
	if lf := a.p.deps[c.dep].timeLoad; lf != nil {
		d = a.loadedTime(lf, c.dep, d)
	}
	return d
}

// serve starts call ci (c) of request lg at its dependency, to take d (from serviceTime).
func (a *arm) serve(ci int32, c *call, lg *logical, d time.Duration) {
	now := a.now()
	dr := &a.deps[c.dep]
	dr.busy++
	c.state = callServing
	if r := a.errRate(c.dep, dr); r > 0 {
		st := a.stage(lg, c)
		c.err = a.draw(st.errPurp, lg.id, c.num, c.stage, c.try) < r
	}
	if c.hung = !c.callerGone && a.hangs(lg, c); c.hung {
		return // never answered: it waits for its caller to give up
	}
	a.hs.dep[c.dep].Call(now, c.connAt-c.asked, d)
	if c.dep == int32(a.pol.trigger) || a.pol.retryByDeadline {
		dr.hist.Record(d)
	}
	a.schedule(d, evDepDone, ref(ci, c.gen))
}

func (a *arm) depDone(id int64) {
	ci, gen := unref(id)
	c, r := a.sl.callRec(ci)
	if c.gen != gen || c.state != callServing {
		return
	}
	now := a.now()
	lg := &r.lg
	if m := c.mutation; m != mutNone && !c.err {
		apply := true
		if l := a.ledgers[m]; l != nil && lg.execs[m] > 0 {
			// The dependency honours the logical identity: the repeat is answered from its
			// idempotency record instead of being applied again.
			apply = l.execute(a.wall(), identity.Key(strconv.FormatInt(identityOf(lg.id), 36)), !lg.recorded[m])
			lg.recorded[m] = true
		}
		if apply {
			lg.mutated = true
			lg.execs[m]++
			if lg.execs[m] > 1 {
				a.rec.Duplicate(now, mutationKinds[m])
			}
		}
	}
	a.releaseServer(c.dep)
	a.releaseConn(c.inst, c.dep)
	c.state = callDone
	at := a.sl.attOf(r, c.att)
	live := !c.callerGone && at.gen == c.attGen && at.call == ci
	if !live || at.abandoned {
		a.hs.depCall[c.dep].Orphan(now)
	}
	li := c.lg
	failed := c.err
	if live && a.pol.brk != nil {
		bc := breaker.Call{Status: statusAnswerOK}
		if failed {
			bc.Status = statusAnswerFailed
		}
		a.breakerRecord(ci, c, bc)
	}
	if live && !failed && len(a.p.caches) > 0 {
		// The answer reached a caller still waiting for it (an orphan's is dropped).
		if cc := a.stage(lg, c).cache; cc >= 0 {
			a.fill(c.inst, cc)
		}
	}
	a.freeCall(ci, c, lg)
	lg.live--
	if live {
		at.call = -1
		if failed {
			a.callFailed(c.att, causeError)
		} else {
			at.stage++
			a.runStage(c.att, at, lg)
		}
	}
	a.settle(li, lg)
}

// freeCall frees call ci (c) of request lg and marks its timeout, if still queued, dead.
func (a *arm) freeCall(ci int32, c *call, lg *logical) {
	if a.pol.brk != nil {
		a.breakerFree(ci, c)
	}
	if c.tpos != 0 {
		a.tqs[a.tqDep+int(c.dep)].kill(c.tpos, ref(ci, c.gen))
	}
	a.sl.freeCall(ci, c, lg)
}

// reserveFire is the derived call timeout of a request: its deadline minus the reserve has
// come, so the call its current attempt waits for times out.
func (a *arm) reserveFire(id int64) {
	li, gen := unref(id)
	lg := a.sl.lg(li)
	if lg.gen != gen || lg.state != lgActive {
		return
	}
	a.after(a.tqClass+int(lg.class), a.pol.reserve, id)
	if lg.cur < 0 {
		return
	}
	at := a.sl.att(lg.cur)
	if at.state != attRunning || at.call < 0 {
		return
	}
	c := a.sl.call(at.call)
	a.callTimeout(ref(at.call, c.gen))
}

func (a *arm) callTimeout(id int64) {
	ci, gen := unref(id)
	c := a.sl.call(ci)
	if c.gen != gen || c.state == callDone {
		return
	}
	ai := c.att
	at := a.sl.att(ai)
	if at.gen != c.attGen || at.call != ci {
		return
	}
	at.call = -1
	li := c.lg
	lg := a.sl.lg(li)
	if a.pol.brk != nil {
		a.breakerRecord(ci, c, a.breakerTimeout(c))
	}
	switch {
	case c.state == callWaitConn:
		// Nothing was sent: the caller stops waiting for a connection.
		a.insts[c.inst].pools[c.dep].waiting--
		c.state = callDone
		a.freeCall(ci, c, lg)
		lg.live--
	case c.hung:
		a.dropHung(ci) // the caller gives up the call that never answers
	case a.pol.cancel:
		a.cancelCall(ci)
	default:
		c.callerGone = true // the dependency works on: an orphan
	}
	a.callFailed(ai, causeTimeout)
	a.settle(li, lg)
}

// cancelCall stops a call whose caller gave up: its connection and server are released.
func (a *arm) cancelCall(ci int32) {
	c := a.sl.call(ci)
	li := c.lg
	switch c.state {
	case callWaitConn:
		a.insts[c.inst].pools[c.dep].waiting--
	case callWaitServer:
		a.deps[c.dep].waiting--
		a.releaseConn(c.inst, c.dep)
		a.hs.depCall[c.dep].CancelCompleted(a.now())
	case callServing:
		a.releaseServer(c.dep)
		a.releaseConn(c.inst, c.dep)
		a.hs.depCall[c.dep].CancelCompleted(a.now())
	case callRejected:
		a.releaseConn(c.inst, c.dep)
	}
	c.state = callDone
	lg := a.sl.lg(li)
	a.freeCall(ci, c, lg)
	lg.live--
}

// callFailed decides after a failed call whether the service retries it.
func (a *arm) callFailed(ai int32, c cause) {
	at := a.sl.att(ai)
	lg := a.sl.lg(at.lg)
	cp := &a.p.classes[lg.class]
	st := &cp.stages[at.stage]
	dp := &a.p.deps[st.dep]
	if at.tries < int32(dp.retries.max) && dp.retries.on(c) && a.breakerOpen(st.dep, at.inst) {
		// The client does not retry while its breaker is open.
		a.rec.Suppressed(a.now(), reasonBreakerOpen)
		a.stageFailed(ai, c)
		return
	}
	backoff, ok := a.retry(a.retryRule(&dp.retries), retryAsk{
		cause:      c,
		retries:    int(at.tries),
		left:       a.deadline(lg) - a.now(),
		takes:      a.deps[st.dep].p50,
		idempotent: cp.idempotent,
		u:          a.jitter(&dp.retries, lg, at.num, at.stage, at.tries),
	})
	if !ok {
		a.stageFailed(ai, c)
		return
	}
	at.tries++
	if backoff > 0 {
		a.schedule(backoff, evCallRetry, ref(ai, at.gen))
		return
	}
	a.startCall(ai, at, lg)
}

func (a *arm) callRetryFire(id int64) {
	ai, gen := unref(id)
	at := a.sl.att(ai)
	if at.gen != gen || at.state != attRunning {
		return
	}
	a.startCall(ai, at, a.sl.lg(at.lg))
}
