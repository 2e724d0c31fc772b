package model

import (
	"time"

	"github.com/goodput-lab/goodput/control/queue"
	"github.com/goodput-lab/goodput/control/readiness"
	"github.com/goodput-lab/goodput/internal/prefetch"
)

// Routing and queues. A service's router picks one of its routable instances for an
// attempt (round robin, random, or the less loaded of two), the instance queues it in
// front of its workers, and pump starts queued attempts as workers come free (worker.go).
// An instance's queue holds health probes too (health.go).

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

	// Stall faults and the autoscaler (crash.go, autoscale.go).
	stalls   int     // stall faults holding it; starting is held true meanwhile
	held     []int64 // attempts (refs) stopped before their next stage by a stall
	draining bool    // scaled in: out of routing, retired once it holds nothing
	retired  bool    // scaled in and gone; its slot may be reused by a scale-up
}

// svcRT is a service's state in an arm: its instances and those taking traffic, its
// readiness fleet and the faults on its work.
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

// route picks an instance of service svc for attempt ai (at) of request lg and queues it
// there.
func (a *arm) route(ai int32, at *attempt, lg *logical, svc int) {
	sp := &a.p.services[svc]
	if sp.panic > 0 && a.panicking(svc) {
		a.panicRoute(ai, at, lg, svc) // panic mode (cell_panic.go)
		return
	}
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
