package model

import (
	"math"
	"time"

	"github.com/goodput-lab/goodput/internal/floatdur"
)

// Workers. An attempt holds a worker of its instance from the moment it leaves the queue
// until it ends: it runs its class's stages in order, work stages on the worker and call
// stages as dependency calls (call.go), optional stages shed by the load state or falling
// back on failure, and its result goes back to the entry (entry.go).

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
	if a.insts[at.inst].stalls > 0 {
		a.hold(ai, at) // a stall fault freezes the instance (crash.go)
		return
	}
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
			if sp := &a.p.services[in.svc]; sp.loaded {
				scale *= a.workLoad(in, sp)
			}
			var d float64
			for {
				if c, ok := st.work.Constant(); ok {
					d += float64(c) * scale // no draw: it would not change d
				} else {
					u := a.draw(st.workPurp, lg.id, at.num, at.stage, 0)
					d += float64(st.work.Quantile(u)) * scale
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
