package model

import (
	"time"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/internal/floatdur"
)

// Arrivals. Open-loop requests arrive by the rate schedule (Poisson or uniform, scaled by
// a failover shift); each draws its class, and the policy's admission (or a load state
// that froze failover) may refuse it at the door. An admitted one becomes a logical
// request, with its deadline timer, and goes to its entry (entry.go).

// currentRate is the arrival rate now, per second: the schedule's, times the shift.
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
