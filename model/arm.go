package model

import (
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/deadline"
	"github.com/goodput-lab/goodput/control/identity"
	"github.com/goodput-lab/goodput/control/queue"
	"github.com/goodput-lab/goodput/control/readiness"
	"github.com/goodput-lab/goodput/internal/floatdur"
	"github.com/goodput-lab/goodput/internal/latency"
	"github.com/goodput-lab/goodput/internal/lognormal"
	"github.com/goodput-lab/goodput/internal/prefetch"
	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
	"github.com/goodput-lab/goodput/sim"
)

// Event kinds of an arm.
const (
	evArrival int32 = iota
	evRateChange
	evEntryTimeout // ID: attempt
	evEntryRetry   // ID: logical
	evWorkDone     // ID: attempt
	evCallRetry    // ID: attempt
	evDepDone      // ID: call
	evCallTimeout  // ID: call
	evDeadline     // ID: logical
	evTick
	evFaultStart // ID: fault index
	evFaultEnd   // ID: fault index
	evInstanceUp
	evInstanceWarm
	evTimerQueue   // ID: timer queue
	evReserve      // ID: logical; its derived call timeout
	evProbe        // ID: instance and its life
	evProbeTimeout // ID: instance and its probe number
	evKill         // ID: instance and its life
	evAction       // ID: index into the arm's action steps
)

// instance is one instance of a service: a worker pool, a queue in front of it and one
// connection pool per dependency.
type instance struct {
	svc       int32
	routable  bool
	up        bool
	warm      bool
	starting  bool // pump is running (guards re-entry)
	factor    float64
	invCap    float64 // 1 / (workers × factor), for the least-loaded router
	upAt      time.Duration
	q         *queue.Queue[int64]
	queued    int
	busy      int
	workers   int
	pools     []connPool
	ready     *readiness.Instance
	completed int       // attempts completed since the last tick
	caches    []cacheRT // the service's caches, by slot

	// Health checks (health.go).
	life          uint32 // the process's life: a kill starts the next
	removed       bool   // failed probes took it out of routing
	killing       bool   // a kill is scheduled
	probing       bool   // probe probeN waits in the queue for its answer
	probes        int    // probe items in the queue (the live one and stale ones)
	probeN        uint32 // the last probe sent
	fails, passes int    // probes in a row
	restarts      int    // restarts since the back-off was last reset
}

// connPool is one instance's bounded pool of connections to one dependency.
type connPool struct {
	inUse   int
	waiters ring // calls waiting for a connection (lazily removed)
	waiting int  // live waiters
}

// capacity is the pool's usable size on an instance working at factor (0: unbounded).
func poolCap(size int, factor float64) int {
	if size == 0 {
		return math.MaxInt
	}
	if factor >= 1 {
		return size
	}
	return max(1, int(float64(size)*factor))
}

type svcRT struct {
	insts      []int32
	routable   []int32 // instances taking traffic, for the least-loaded router
	rr         int
	workFactor float64
	fleet      *readiness.Fleet
	works      []int // active work-factor faults, most recent last
	// The first removal and the first restart by a health check are annotated.
	removedOnce, killedOnce bool
}

type depRT struct {
	busy    int
	queue   ring // calls waiting for a server (lazily removed)
	waiting int
	ln      lognormal.Dist // the service time, as the faults now have it, ready to sample
	errRate float64
	faults  []int             // active dependency faults, most recent last
	hist    latency.Histogram // service times of the tick (newSignalHist)
	// p50 is the median service time measured over the last tick that had calls (kept
	// when retries are decided by the deadline; the declared one before the first):
	// what a service's retry must expect to need.
	p50 time.Duration
}

// tickStats are counters reset every tick: the controller's and the alerts' signals.
type tickStats struct {
	offered, attempts, edgeAttempts, edgeTimeouts, goodput int
	slack                                                  latency.Histogram // newSignalHist
}

// arm runs one policy arm on its own Sim.
type arm struct {
	p    *plan
	keys []uint64 // mix(seed ^ purpose hash), by purp: the first round of every draw
	name string
	pol  *policyRT
	s    *sim.Sim
	rec  *packet.Recorder

	arrivals, classes *rand.Rand
	arrTimer          sim.Timer
	nextID            int64
	stopped           bool
	shift             float64
	shifts            []int

	sl    slabs
	svcs  []svcRT
	insts []instance
	deps  []depRT

	ledgers [numMut]*ledger

	inFlight int // admitted logical requests whose caller has no answer yet
	tk       tickStats
	al       *alertRT // nil without alert rules
	dropFn   func(int64, queue.Reason)
	maxSlack time.Duration

	// Timer queues: one per entry (attempt timeouts), then one per dependency (call
	// timeouts), then one per class (deadlines).
	tqs                                []timerQueue
	tqEntry, tqDep, tqClass, tqReserve int

	hooks   *hooks
	armDone func(arm string, events uint64) // Options.ArmDone
	hs      handles                         // the recorder's, by index

	maxEvents uint64 // Options.MaxEvents: 0, or the most events the engine may deliver

	act     *actionRT          // actions and rate limits (action.go); nil without either
	binding *constraintSampler // the binding constraint's gauges (constraint.go), from the first tick

	// Connections in use to the trigger dependency, and their integral over the tick.
	trigInUse int
	trigLast  time.Duration
	trigArea  float64
}

// handles are the Recorder's handles for the plan's names, by index, so that the hot path
// records without looking names up.
type handles struct {
	class               []packet.ClassRecorder
	entry, svc, depCall []packet.LayerRecorder
	dep                 []packet.DependencyRecorder
	cache               []packet.CacheRecorder
	health              []packet.HealthRecorder // by service; the zero handle for one without a check
}

func newHandles(r *packet.Recorder, p *plan) handles {
	var h handles
	for _, c := range p.classes {
		h.class = append(h.class, r.Class(c.name))
	}
	for _, e := range p.entries {
		h.entry = append(h.entry, r.Layer(e.name))
	}
	for _, s := range p.services {
		h.svc = append(h.svc, r.Layer(s.name))
	}
	for _, d := range p.deps {
		h.depCall = append(h.depCall, r.Layer(d.name))
		h.dep = append(h.dep, r.Dependency(d.name))
	}
	for _, c := range p.caches {
		h.cache = append(h.cache, r.Cache(c.name))
	}
	h.health = make([]packet.HealthRecorder, len(p.services))
	for i, s := range p.services {
		if s.health != nil {
			h.health[i] = r.Health(s.name)
		}
	}
	return h
}

// terminal records the terminal state of an admitted request.
func (a *arm) terminal(now time.Duration, lg *logical, out packet.Outcome, lat time.Duration) {
	a.hs.class[lg.class].Terminal(now, out, lat)
	a.al.answer(lat)
	a.terminalHook(lg, out)
}

// settled records the terminal state of a request whose caller gave up (see giveUp): in
// the tick the caller gave up in, not the one its orphaned work ended in.
func (a *arm) settled(lg *logical, out packet.Outcome) {
	a.hs.class[lg.class].Settle(lg.giveUpAt, out)
	a.terminalHook(lg, out)
}

func (a *arm) terminalHook(lg *logical, out packet.Outcome) {
	if a.hooks != nil && a.hooks.terminal != nil {
		a.hooks.terminal(a.name, lg.id, out)
	}
}

func (a *arm) now() time.Duration { return a.s.Elapsed() }
func (a *arm) wall() time.Time    { return a.s.Now() }

// schedule delivers an event to the arm after d. Timers are never cancelled: a handler
// ignores an event whose object's generation or state has moved on, which is cheaper than
// the engine's cancellation for the many timeouts that never matter.
func (a *arm) schedule(d time.Duration, kind int32, id int64) {
	at := a.now() + d // a time in the past counts as now, as for Schedule
	if d > 0 && at < 0 {
		at = floatdur.Max // a saturated draw of a heavy tail: after the run, not now
	}
	a.s.ScheduleAt(at, a, kind, id)
}

// splitmix64's finaliser.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// draw returns a uniform number in (0, 1) for one purpose of one logical request and one
// (attempt, stage, try). It depends on nothing else, so both arms draw the same number for
// the same thing however differently their runs have gone (common random numbers).
func (a *arm) draw(pu purp, lg int64, att, stage, try int32) float64 {
	h := mix(a.keys[pu] ^ uint64(lg))
	h = mix(h ^ (uint64(uint32(att)) | uint64(uint16(stage))<<32 | uint64(uint16(try))<<48))
	return (float64(h>>11) + 0.5) * (1.0 / (1 << 53))
}

// Handle dispatches the arm's events, from the engine or (with a nil Sim) from a timer
// queue.
func (a *arm) Handle(_ *sim.Sim, e sim.Event) {
	id := e.ID
	switch e.Kind {
	case evArrival:
		a.arrival()
	case evRateChange:
		a.rescheduleArrival()
	case evEntryTimeout:
		a.entryTimeout(id)
	case evEntryRetry:
		a.entryRetryFire(id)
	case evWorkDone:
		a.workDone(id)
	case evCallRetry:
		a.callRetryFire(id)
	case evDepDone:
		a.depDone(id)
	case evCallTimeout:
		a.callTimeout(id)
	case evDeadline:
		a.deadlineFire(id)
	case evTick:
		a.tick()
	case evFaultStart:
		a.faultStart(int(id))
	case evFaultEnd:
		a.faultEnd(int(id))
	case evInstanceUp:
		a.instanceUp(id)
	case evInstanceWarm:
		a.instanceWarm(id)
	case evTimerQueue:
		a.fireQueue(int(id))
	case evReserve:
		a.reserveFire(id)
	case evProbe:
		a.probeFire(id)
	case evProbeTimeout:
		a.probeTimeout(id)
	case evKill:
		a.kill(id)
	case evAction:
		a.action(int(id))
	}
}

// ---- arrivals ----

func (a *arm) currentRate() float64 { return a.p.rateAt(a.now()) * a.shift }

// rescheduleArrival replaces the pending arrival after a rate change. Poisson arrivals are
// memoryless, so drawing afresh from now is exact.
func (a *arm) rescheduleArrival() {
	if a.arrTimer != 0 {
		a.s.Cancel(a.arrTimer)
		a.arrTimer = 0
	}
	a.scheduleArrival()
}

func (a *arm) scheduleArrival() {
	if a.stopped {
		return
	}
	r := a.currentRate()
	if r <= 0 {
		return // the next rate change schedules again
	}
	var gap float64
	if a.p.poisson {
		gap = a.arrivals.ExpFloat64() / r
	} else {
		gap = 1 / r
	}
	d := floatdur.Trunc(gap * float64(time.Second))
	if d >= a.p.duration-a.now() { // not a.now()+d, which overflows for a saturated gap
		return
	}
	a.arrTimer = a.s.Schedule(d, a, evArrival, 0)
}

func (a *arm) arrival() {
	a.arrTimer = 0
	now := a.now()
	u := a.classes.Float64()
	ci := 0
	for ci < len(a.p.classes)-1 && u >= a.p.classes[ci].cum {
		ci++
	}
	cp := &a.p.classes[ci]
	id := a.nextID
	a.nextID++
	a.scheduleArrival()

	a.hs.class[ci].Offered(now)
	a.tk.offered++
	if a.shift > 1 && a.pol.freezeFailover && a.draw(a.p.failoverPurp, id, 0, 0, 0) < (a.shift-1)/a.shift {
		// This request came with the regional failover; the load state has frozen
		// failover into the cell, so the cell refuses it and it stays in its origin.
		a.reject(now, cp, id, "failover-frozen")
		return
	}
	if a.act != nil && a.act.limited(int(cp.entry), now) {
		a.reject(now, cp, id, "rate-limited")
		return
	}
	if adm := a.pol.adm; adm != nil {
		d := adm.Admit(a.wall(), admission.Request{Class: cp.admission, Slack: cp.deadline})
		if !d.Admitted {
			a.reject(now, cp, id, d.Reason.String())
			return
		}
	}
	a.hs.class[ci].Admitted(now)
	li, lg := a.sl.newLogical()
	lg.class = int16(ci)
	lg.entry = int16(cp.entry)
	lg.id = id
	lg.t0 = now
	lg.admitted = a.pol.adm != nil
	a.inFlight++
	if a.pol.budget != nil {
		a.pol.budget.Request(a.wall(), "")
	}
	if a.pol.propagate {
		if a.pol.derived && a.pol.cancel && a.pol.reserve > 0 && a.pol.reserve < cp.deadline {
			// The reserve timer comes first; it sets the deadline timer if still needed.
			a.after(a.tqReserve+ci, cp.deadline-a.pol.reserve, ref(li, lg.gen))
		} else {
			a.after(a.tqClass+ci, cp.deadline, ref(li, lg.gen))
		}
	}
	a.sendAttempt(li, lg)
}

func (a *arm) reject(now time.Duration, cp *classPlan, id int64, reason string) {
	a.rec.Rejected(now, cp.name, reason)
	a.al.refuse()
	if a.hooks != nil && a.hooks.rejected != nil {
		a.hooks.rejected(a.name, id)
	}
}

// deadline is the request's absolute deadline, since the start.
func (a *arm) deadline(lg *logical) time.Duration { return lg.t0 + a.p.classes[lg.class].deadline }

// ---- the entry ----

// sendAttempt sends a new attempt of logical li (lg) to the entry's target service.
func (a *arm) sendAttempt(li int32, lg *logical) {
	now := a.now()
	ep := &a.p.entries[lg.entry]
	lg.attempts++
	a.hs.entry[lg.entry].Attempt(now)
	a.tk.attempts++
	a.tk.edgeAttempts++
	if lg.attempts > 1 {
		a.hs.entry[lg.entry].Retry(now)
	}
	ai, at := a.sl.newAttempt(li)
	at.lg = li
	at.num = lg.attempts
	lg.cur = ai
	lg.live++
	timeout := ep.timeout
	if a.pol.propagate {
		left := a.deadline(lg) - now
		if timeout == 0 || left < timeout {
			timeout = left
		}
	}
	if timeout > 0 {
		at.tpos = a.after(a.tqEntry+int(lg.entry), timeout, ref(ai, at.gen))
	}
	a.route(ai, at, lg, ep.target)
}

func (a *arm) entryTimeout(id int64) {
	ai, gen := unref(id)
	at := a.sl.att(ai)
	if at.gen != gen {
		return
	}
	lg := a.sl.lg(at.lg)
	if lg.cur != ai || lg.state != lgActive {
		return
	}
	a.tk.edgeTimeouts++
	lg.cur = -1
	li := at.lg
	if a.pol.cancel {
		a.cancelAttempt(ai)
	} else {
		at.abandoned = true
	}
	if a.pol.propagate && a.now() >= a.deadline(lg) {
		a.giveUp(li, causeExpired)
	} else {
		a.entryRetry(li, causeTimeout)
	}
	a.settle(li, lg)
}

// freeAttempt frees attempt ai (at) of request lg and marks its entry timeout, if still
// queued, dead.
func (a *arm) freeAttempt(ai int32, at *attempt, lg *logical) {
	if at.tpos != 0 {
		a.tqs[a.tqEntry+int(lg.entry)].kill(at.tpos, ref(ai, at.gen))
	}
	a.sl.freeAttempt(ai, at, lg)
}

// respond delivers the result of finished attempt ai (at) of request lg to its entry.
func (a *arm) respond(ai int32, at *attempt, lg *logical) {
	li := at.lg
	res := at.result
	deliver := !at.abandoned && lg.cur == ai && lg.state == lgActive
	if !deliver && res == causeNone {
		a.hs.svc[a.insts[at.inst].svc].Orphan(a.now())
	}
	a.freeAttempt(ai, at, lg)
	lg.live--
	if deliver {
		lg.cur = -1
		if res == causeNone {
			a.succeed(lg)
		} else {
			a.entryRetry(li, res)
		}
	}
	a.settle(li, lg)
}

// entryRetry decides, after the attempt the entry waited for failed with c, whether the
// entry retries or gives up.
func (a *arm) entryRetry(li int32, c cause) {
	lg := a.sl.lg(li)
	ep := &a.p.entries[lg.entry]
	cp := &a.p.classes[lg.class]
	if int(lg.attempts) > ep.retries.max || !ep.retries.on(c) {
		a.giveUp(li, c)
		return
	}
	if !a.allowRetry(lg, c, ep.retries.backoff, a.tryTakes(cp), cp) {
		a.giveUp(li, c)
		return
	}
	if ep.retries.backoff > 0 {
		a.schedule(ep.retries.backoff, evEntryRetry, ref(li, lg.gen))
		return
	}
	a.sendAttempt(li, lg)
}

// allowRetry asks the policy whether a retry after c may be made; refusals are counted.
// The retry must have at least its backoff, the policy's reserve and took left before the
// deadline, took being what its try is expected to take (see tryTakes and depRT.p50), and
// never less than a nanosecond: a try with nothing but the reserve left would be given no
// time at all (its calls' timeouts are the time left less the reserve). A budget makes
// the same comparison ([budget.Retry.Expected]) and also takes a token.
func (a *arm) allowRetry(lg *logical, c cause, backoff, took time.Duration, cp *classPlan) bool {
	now := a.now()
	left := budget.NoDeadline
	if a.pol.propagate {
		left = a.deadline(lg) - now
	}
	expected := backoff + a.pol.reserve + max(took, time.Nanosecond)
	if b := a.pol.budget; b != nil {
		d := b.Allow(a.wall(), budget.Retry{
			Failure:      failureOf(c),
			Idempotent:   cp.idempotent,
			Deduplicated: a.pol.identity,
			Remaining:    left,
			Expected:     expected,
		})
		if !d.Allowed {
			a.rec.Suppressed(now, d.Reason.String())
			return false
		}
		return true
	}
	if a.pol.propagate && left < expected {
		a.rec.Suppressed(now, budget.ReasonDeadline.String())
		return false
	}
	return true
}

// tryTakes is what an entry's new attempt of class cp is expected to take: the median
// service times of the dependencies its required stages call, one after another (optional
// stages may be shed, and work and queueing vary with the load).
func (a *arm) tryTakes(cp *classPlan) time.Duration {
	var d time.Duration
	for i := range cp.stages {
		if st := &cp.stages[i]; !st.optional && st.dep >= 0 {
			d += a.deps[st.dep].p50
		}
	}
	return d
}

func failureOf(c cause) budget.Failure {
	switch c {
	case causeTimeout:
		return budget.Timeout
	case causeError:
		return budget.Transient
	case causeOverload:
		return budget.Overload
	case causeExpired:
		return budget.Canceled
	}
	return budget.Unclassified
}

func (a *arm) entryRetryFire(id int64) {
	li, gen := unref(id)
	lg := a.sl.lg(li)
	if lg.gen != gen || lg.state != lgActive {
		return
	}
	a.sendAttempt(li, lg)
}

func (a *arm) deadlineFire(id int64) {
	li, gen := unref(id)
	lg := a.sl.lg(li)
	if lg.gen != gen || lg.state != lgActive {
		return
	}
	if ai := lg.cur; ai >= 0 {
		lg.cur = -1
		at := a.sl.att(ai)
		if a.pol.cancel {
			a.cancelAttempt(ai)
		} else {
			at.abandoned = true
		}
	}
	a.giveUp(li, causeExpired)
	a.settle(li, lg)
}

// succeed records the caller's successful answer to request lg: goodput before the
// deadline, late after.
func (a *arm) succeed(lg *logical) {
	now := a.now()
	cp := &a.p.classes[lg.class]
	lg.state = lgRecorded
	lat := now - lg.t0
	out := packet.Goodput
	if now > a.deadline(lg) {
		out = packet.Late
	} else {
		a.tk.goodput++
	}
	a.terminal(now, lg, out, lat)
	a.clientDone(lg, cp, lat, false)
}

// giveUp records that the caller has no successful answer. The terminal state is recorded
// once no work of the request is left (see settle), because work still running may yet
// apply a mutation and make the outcome ambiguous.
func (a *arm) giveUp(li int32, c cause) {
	now := a.now()
	lg := a.sl.lg(li)
	if lg.state != lgActive {
		return
	}
	lg.state = lgClientDone
	lg.cause = c
	lg.giveUpAt = now
	a.hs.class[lg.class].GaveUp(now, now-lg.t0)
	a.al.answer(now - lg.t0)
	if ai := lg.cur; ai >= 0 {
		lg.cur = -1
		if a.pol.cancel {
			a.cancelAttempt(ai)
		} else {
			a.sl.att(ai).abandoned = true
		}
	}
	a.clientDone(lg, &a.p.classes[lg.class], now-lg.t0, true)
}

func (a *arm) clientDone(lg *logical, cp *classPlan, lat time.Duration, dropped bool) {
	a.inFlight--
	if lg.admitted {
		a.admitter(lg).Done(a.wall(), admission.Sample{Class: cp.admission, QueueDelay: time.Duration(lg.queueDelUs) * time.Microsecond, Latency: lat, Dropped: dropped})
	}
}

// settle records a given-up request's terminal state once nothing of it runs any more,
// and frees the request when it is recorded and idle. lg is request li.
func (a *arm) settle(li int32, lg *logical) {
	if lg.live == 0 {
		a.settleIdle(li, lg)
	}
}

// settleIdle is settle for a request of which nothing runs any more.
func (a *arm) settleIdle(li int32, lg *logical) {
	if lg.state == lgClientDone {
		out := packet.Failed
		switch {
		case lg.mutated:
			out = packet.Ambiguous
		case lg.cause == causeExpired || lg.giveUpAt >= a.deadline(lg):
			out = packet.Expired
		}
		a.settled(lg, out)
		lg.state = lgRecorded
	}
	if lg.state == lgRecorded {
		a.sl.freeLogical(li, lg)
	}
}

// ---- routing and instances ----

// route picks an instance of service svc for attempt ai (at) of request lg and queues it
// there.
func (a *arm) route(ai int32, at *attempt, lg *logical, svc int) {
	sp := &a.p.services[svc]
	rt := &a.svcs[svc]
	pick := int32(-1)
	n := len(rt.insts)
	switch sp.router {
	case routeRoundRobin:
		for k := 0; k < n; k++ {
			rt.rr++
			ii := rt.insts[rt.rr%n]
			if a.insts[ii].routable {
				pick = ii
				break
			}
		}
	case routeRandom:
		u := a.draw(sp.routerPurp, lg.id, at.num, 0, 0)
		start := int(u * float64(n))
		for k := 0; k < n; k++ {
			ii := rt.insts[(start+k)%n]
			if a.insts[ii].routable {
				pick = ii
				break
			}
		}
	default:
		// Least loaded of two instances drawn at random (power of two choices, as Envoy's
		// least-request balancer): load is attempts queued or in service per unit of the
		// instance's capacity.
		cands := rt.routable
		switch m := len(cands); m {
		case 0:
		case 1:
			pick = cands[0]
		default:
			u := a.draw(sp.routerPurp, lg.id, at.num, 0, 0) * float64(m)
			i := int(u)
			j := int((u - float64(i)) * float64(m-1))
			if j >= i {
				j++
			}
			x, y := &a.insts[cands[i]], &a.insts[cands[j]]
			if float64(y.busy+y.queued+1)*y.invCap < float64(x.busy+x.queued+1)*x.invCap {
				pick = cands[j]
			} else {
				pick = cands[i]
			}
		}
	}
	if pick < 0 {
		// No instance takes traffic: the service refuses the attempt.
		at.inst = rt.insts[0]
		a.finishAttempt(ai, at, lg, causeOverload, false)
		return
	}
	at.inst = pick
	// The attempt reaches the service: one attempt at the service's layer. (An edge retry
	// is counted as a retry once, at the edge that made it.)
	a.hs.svc[svc].Attempt(a.now())
	a.enqueue(ai, at, lg)
}

// enqueue queues attempt ai (at) of request lg at its instance.
func (a *arm) enqueue(ai int32, at *attempt, lg *logical) {
	in := &a.insts[at.inst]
	now := a.now()
	at.enq = now
	at.state = attQueued
	var dl time.Time
	if a.pol.propagate {
		dl = a.s.At(a.deadline(lg))
	}
	if ii := at.inst; in.queued+in.probes == 0 && in.busy < in.workers && !in.starting {
		// An idle worker and nothing queued: the attempt starts at once. Bypass counts it
		// through the queue as Push and Pop would (pump is not running, so nothing else
		// would start first).
		switch err := in.q.Bypass(a.wall(), dl); err {
		case nil:
			in.starting = true
			a.start(ai, at, lg)
			in.starting = false
			a.pump(ii) // attempts queued meanwhile, as pump's loop would take them
			return
		case queue.ErrDeadline:
			a.finishAttempt(ai, at, lg, causeExpired, false)
			return
		}
	}
	if err := in.q.Push(a.wall(), ref(ai, at.gen), dl); err != nil {
		c := causeOverload
		if err == queue.ErrDeadline {
			c = causeExpired
		}
		a.finishAttempt(ai, at, lg, c, false)
		return
	}
	in.queued++
	a.pump(at.inst)
}

// pump starts queued attempts on free workers.
func (a *arm) pump(ii int32) {
	in := &a.insts[ii]
	if in.starting {
		return
	}
	in.starting = true
	for in.busy < in.workers && in.queued+in.probes > 0 {
		id, ok := in.q.Pop(a.wall(), a.dropFn)
		if !ok {
			break
		}
		if id < 0 {
			a.probeOut(id, true)
			continue
		}
		in.queued--
		if next, ok := in.q.Peek(); ok && next >= 0 {
			a.prefetchAttempt(next)
		}
		ai, _ := unref(id)
		at, r := a.sl.attRec(ai)
		if at.cancelled {
			a.discard(ai)
			continue
		}
		a.start(ai, at, &r.lg)
	}
	in.starting = false
}

// dropped is called by an instance queue for an attempt it drops (expired, too old,
// CoDel): the service answers it with an overload (or expiry) error at once.
func (a *arm) dropped(id int64, r queue.Reason) {
	if id < 0 {
		a.probeOut(id, false)
		return
	}
	ai, _ := unref(id)
	at := a.sl.att(ai)
	a.insts[at.inst].queued--
	if at.cancelled {
		a.discard(ai)
		return
	}
	c := causeOverload
	if r == queue.ReasonExpired || r == queue.ReasonDeadline {
		c = causeExpired
	}
	a.finishAttempt(ai, at, a.sl.lg(at.lg), c, false)
}

// discard frees a cancelled attempt taken out of a queue.
func (a *arm) discard(ai int32) {
	at := a.sl.att(ai)
	li := at.lg
	lg := a.sl.lg(li)
	a.hs.svc[a.insts[at.inst].svc].CancelCompleted(a.now())
	a.freeAttempt(ai, at, lg)
	lg.live--
	a.settle(li, lg)
}

// start runs attempt ai (at) of request lg, just taken from its queue, on a worker.
func (a *arm) start(ai int32, at *attempt, lg *logical) {
	now := a.now()
	in := &a.insts[at.inst]
	in.busy++
	at.state = attRunning
	wait := now - at.enq
	a.hs.class[lg.class].QueueWait(now, wait)
	left := a.deadline(lg) - now
	a.hs.class[lg.class].Remaining(now, left)
	a.tk.slack.Record(max(left, 0))
	at.enqWait = wait
	at.stage = 0
	a.runStage(ai, at, lg)
}

// runStage runs the attempt's stages from at.stage on until one has to wait. at and lg are
// attempt ai and its request: the hot path passes the pointers it holds rather than look
// them up again.
func (a *arm) runStage(ai int32, at *attempt, lg *logical) {
	cp := &a.p.classes[lg.class]
	for int(at.stage) < len(cp.stages) {
		st := &cp.stages[at.stage]
		if st.optional && a.pol.shedding(lg.class, at.stage) {
			a.hs.class[lg.class].Shed(a.now(), st.feature)
			at.stage++
			continue
		}
		if st.hasWork {
			// Consecutive work stages run back to back on the worker: one event for all.
			in := &a.insts[at.inst]
			scale := a.svcs[in.svc].workFactor / in.factor
			var d float64
			for {
				if st.work.kind == scenario.DistConstant {
					d += float64(st.work.constant) * scale // no draw: it would not change d
				} else {
					u := a.draw(st.workPurp, lg.id, at.num, at.stage, 0)
					d += float64(st.work.quantile(u)) * scale
				}
				next := int(at.stage) + 1
				if next >= len(cp.stages) || !cp.stages[next].hasWork {
					break
				}
				if cp.stages[next].optional && a.pol.shedding(lg.class, int32(next)) {
					break // shed on its own, by runStage
				}
				at.stage++
				st = &cp.stages[at.stage]
			}
			a.schedule(floatdur.Trunc(d), evWorkDone, ref(ai, at.gen))
			return
		}
		if st.cache >= 0 && a.lookup(&a.insts[at.inst], st, lg, at) {
			at.stage++
			continue
		}
		at.tries = 0
		a.startCall(ai, at, lg)
		return
	}
	a.finishAttempt(ai, at, lg, causeNone, true)
}

func (a *arm) workDone(id int64) {
	ai, gen := unref(id)
	at, r := a.sl.attRec(ai)
	if at.gen != gen || at.state != attRunning {
		return
	}
	at.stage++
	a.runStage(ai, at, &r.lg)
}

// finishAttempt ends attempt ai (at) of request lg with result c (causeNone: success),
// frees its worker if it held one, and sends the response to the entry.
func (a *arm) finishAttempt(ai int32, at *attempt, lg *logical, c cause, held bool) {
	at.state = attDone
	at.result = c
	if lg.cur == ai {
		lg.queueDelUs = int32(min((at.enqWait+at.connWait)/time.Microsecond, math.MaxInt32))
	}
	ii := at.inst
	if held {
		in := &a.insts[ii]
		in.busy--
		in.completed++
	}
	a.respond(ai, at, lg)
	if held {
		a.pump(ii)
	}
}

// cancelAttempt stops an attempt whose caller gave up (cancellation policy): a queued one
// is discarded when it reaches the head of its queue; a running one stops now, with its
// dependency call.
func (a *arm) cancelAttempt(ai int32) {
	at := a.sl.att(ai)
	switch at.state {
	case attQueued:
		at.cancelled = true
	case attRunning:
		if ci := at.call; ci >= 0 {
			at.call = -1
			a.cancelCall(ci)
		}
		ii := at.inst
		in := &a.insts[ii]
		in.busy--
		lg := a.sl.lg(at.lg)
		a.hs.svc[in.svc].CancelCompleted(a.now())
		at.state = attDone
		a.freeAttempt(ai, at, lg)
		lg.live--
		a.pump(ii)
	case attDone:
		at.abandoned = true // its response is on the way; it is not delivered
	}
}

// ---- dependency calls ----

// startCall makes the call of attempt ai's current stage; at and lg are the attempt and
// its request.
func (a *arm) startCall(ai int32, at *attempt, lg *logical) {
	now := a.now()
	cp := &a.p.classes[lg.class]
	st := &cp.stages[at.stage]
	dp := &a.p.deps[st.dep]
	timeout := dp.timeout
	if a.pol.derived {
		t, err := deadline.CallTimeout(a.s.At(a.deadline(lg)), a.wall(), a.pol.reserve, 0)
		if err != nil {
			a.stageFailed(ai, causeExpired)
			return
		}
		timeout = t
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
	// Every call of a request times out at the same instant, its deadline minus the
	// reserve, when timeouts are derived and cancellation is on: no other attempt of it is
	// left running, so one timer per request (evReserve, set at arrival) serves all its
	// calls. Otherwise the call has its own timer.
	timed := timeout > 0 && !(a.pol.derived && a.pol.cancel)
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
			if timed && d >= timeout {
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
}

// connected starts call ci (c), which holds a connection, for its attempt at of request lg:
// at the dependency if a server is free, else in its queue.
func (a *arm) connected(ci int32, c *call, at *attempt, lg *logical) {
	c.connAt = a.now()
	at.connWait += c.connAt - c.asked
	dr := &a.deps[c.dep]
	if conc := a.p.deps[c.dep].concurrency; conc > 0 && dr.busy >= conc {
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
	return a.deps[c.dep].ln.Sample(a.draw(st.svcPurp, lg.id, c.num, c.stage, c.try))
}

// serve starts call ci (c) of request lg at its dependency, to take d (from serviceTime).
func (a *arm) serve(ci int32, c *call, lg *logical, d time.Duration) {
	now := a.now()
	dr := &a.deps[c.dep]
	dr.busy++
	c.state = callServing
	if dr.errRate > 0 {
		st := a.stage(lg, c)
		c.err = a.draw(st.errPurp, lg.id, c.num, c.stage, c.try) < dr.errRate
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
			apply = l.execute(a.wall(), identity.Key(strconv.FormatInt(lg.id, 36)), !lg.recorded[m])
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
	if c.tpos != 0 {
		a.tqs[a.tqDep+int(c.dep)].kill(c.tpos, ref(ci, c.gen))
	}
	a.sl.freeCall(ci, c, lg)
}

// releaseServer frees a server of dependency dep for the first live call waiting for one.
func (a *arm) releaseServer(dep int32) {
	dr := &a.deps[dep]
	dr.busy--
	if dr.waiting > 0 {
		a.serveWaiting(dr)
	}
}

// serveWaiting starts the first live call in dr's queue, dropping dead ones before it.
func (a *arm) serveWaiting(dr *depRT) {
	for dr.waiting > 0 {
		id, ok := dr.queue.pop()
		if !ok {
			dr.waiting = 0
			break
		}
		ci, gen := unref(id)
		c, r := a.sl.callRec(ci)
		if c.gen != gen || c.state != callWaitServer {
			continue
		}
		dr.waiting--
		a.serve(ci, c, &r.lg, a.serviceTime(a.stage(&r.lg, c), c, &r.lg))
		break
	}
}

// connUse tracks the connections in use to the trigger dependency, all instances together,
// integrated over time for the tick's mean saturation.
func (a *arm) connUse(dep int, delta int) {
	if dep != a.pol.trigger {
		return
	}
	now := a.now()
	a.trigArea += float64(a.trigInUse) * float64(now-a.trigLast)
	a.trigLast = now
	a.trigInUse += delta
}

// releaseConn returns a connection of instance ii's pool to dep, to a waiting call if any.
func (a *arm) releaseConn(ii int32, dep int32) {
	pl := &a.insts[ii].pools[dep]
	pl.inUse--
	a.connUse(int(dep), -1)
	if pl.waiting > 0 {
		a.grantConns(ii, dep)
	}
}

// grantConns hands free connections of a pool to its waiting calls.
func (a *arm) grantConns(ii int32, dep int32) {
	in := &a.insts[ii]
	pl := &in.pools[dep]
	if pl.waiting == 0 {
		return
	}
	limit := poolCap(a.p.deps[dep].pool, in.factor)
	for pl.waiting > 0 && pl.inUse < limit {
		id, ok := pl.waiters.pop()
		if !ok {
			pl.waiting = 0
			break
		}
		if next, ok := pl.waiters.peek(); ok {
			a.prefetchCall(next)
		}
		ci, gen := unref(id)
		c, r := a.sl.callRec(ci)
		if c.gen != gen || c.state != callWaitConn {
			continue
		}
		pl.waiting--
		pl.inUse++
		a.connUse(int(dep), 1)
		a.connected(ci, c, a.sl.attOf(r, c.att), &r.lg)
	}
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
	switch {
	case c.state == callWaitConn:
		// Nothing was sent: the caller stops waiting for a connection.
		a.insts[c.inst].pools[c.dep].waiting--
		c.state = callDone
		a.freeCall(ci, c, lg)
		lg.live--
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
	if int(at.tries) < dp.retries.max && dp.retries.on(c) && a.allowRetry(lg, c, dp.retries.backoff, a.deps[st.dep].p50, cp) {
		at.tries++
		if dp.retries.backoff > 0 {
			a.schedule(dp.retries.backoff, evCallRetry, ref(ai, at.gen))
			return
		}
		a.startCall(ai, at, lg)
		return
	}
	a.stageFailed(ai, c)
}

func (a *arm) callRetryFire(id int64) {
	ai, gen := unref(id)
	at := a.sl.att(ai)
	if at.gen != gen || at.state != attRunning {
		return
	}
	a.startCall(ai, at, a.sl.lg(at.lg))
}

// stageFailed ends a stage that failed: an optional one falls back and the attempt goes
// on; a required one fails the attempt.
func (a *arm) stageFailed(ai int32, c cause) {
	at := a.sl.att(ai)
	lg := a.sl.lg(at.lg)
	st := &a.p.classes[lg.class].stages[at.stage]
	if st.optional {
		at.stage++
		a.runStage(ai, at, lg)
		return
	}
	if c == causeTimeout {
		c = causeError // the service answers its caller with an error
	}
	a.finishAttempt(ai, at, lg, c, true)
}

// prefetchAttempt asks for attempt ref id's object to be loaded: it is next in a FIFO and
// will be read when its turn comes, by then most likely out of cache. A record's own
// attempt brings its whole record (the request and call are read with it).
func (a *arm) prefetchAttempt(id int64) {
	if i, _ := unref(id); i >= inline {
		prefetch.Object(a.sl.recs.at(i - inline))
	} else {
		prefetch.Object(a.sl.atts.at(i))
	}
}

// prefetchCall is prefetchAttempt for call ref id.
func (a *arm) prefetchCall(id int64) {
	if i, _ := unref(id); i >= inline {
		prefetch.Object(a.sl.recs.at(i - inline))
	} else {
		prefetch.Object(a.sl.calls.at(i))
	}
}
