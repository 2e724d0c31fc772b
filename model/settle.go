package model

import (
	"time"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/packet"
)

// Settling. A request ends once for its caller (succeed, or giveUp at a failure, a
// refused retry or the deadline) and once for the packet: its terminal state is recorded
// when the caller has its answer and nothing of it runs any more (settle), because work
// still running may yet apply a mutation and make the outcome ambiguous.

// terminal records the terminal state of an admitted request.
func (a *arm) terminal(now time.Duration, lg *logical, out packet.Outcome, lat time.Duration) {
	if a.jobs != nil && jobOf(lg) >= 0 {
		a.jobOutcome(lg, out)
		return
	}
	a.hs.class[lg.class].Terminal(now, out, lat)
	a.al.answer(lat)
	a.terminalHook(lg, out)
}

// settled records the terminal state of a request whose caller gave up (see giveUp): in
// the tick the caller gave up in, not the one its orphaned work ended in.
func (a *arm) settled(lg *logical, out packet.Outcome) {
	if a.jobs != nil && jobOf(lg) >= 0 {
		a.jobOutcome(lg, out)
		return
	}
	a.hs.class[lg.class].Settle(lg.giveUpAt, out)
	a.terminalHook(lg, out)
}

// terminalHook passes a request's terminal state to the hooks, and to the jobs that
// collect it.
func (a *arm) terminalHook(lg *logical, out packet.Outcome) {
	if a.cells != nil {
		a.cellTerminal(lg, out)
	}
	if a.jobs != nil && jobCounts(out) {
		a.jobCollect(int(lg.class), lg.id, lg)
	}
	if a.hooks != nil && a.hooks.terminal != nil {
		a.hooks.terminal(a.name, lg.id, out)
	}
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
	} else if a.jobs == nil || jobOf(lg) < 0 {
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
	if a.jobs == nil || jobOf(lg) < 0 {
		a.hs.class[lg.class].GaveUp(now, now-lg.t0)
		a.al.answer(now - lg.t0)
	}
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
	if a.jobs != nil && jobOf(lg) >= 0 {
		return // a job's request: not in flight, not admitted, no user's
	}
	a.inFlight--
	if lg.admitted {
		a.admitter(lg).Done(a.wall(), admission.Sample{Class: cp.admission, QueueDelay: time.Duration(lg.queueDelUs) * time.Microsecond, Latency: lat, Dropped: dropped})
	}
	a.userAnswered(lg.id)
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
