package model

import (
	"math/rand/v2"
	"time"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/internal/floatdur"
	"github.com/goodput-lab/goodput/sim"
)

// Arrivals. Open-loop requests arrive from their sources (load.schedule's and each class's
// own; schedule.go), Poisson or uniform, scaled by a failover shift, plus the sources'
// bursts; closed-loop users send theirs (users.go). Each draws its class (by the shares,
// for load.schedule's), and the policy's admission (or a load state that froze failover)
// may refuse it at the door. An admitted one becomes a logical request, with its deadline
// timer, and goes to its entry (entry.go).

// sourceRT is an open-loop source's state in an arm.
type sourceRT struct {
	timer    sim.Timer  // the pending arrival, 0 if none
	arrivals *rand.Rand // the gaps between arrivals
	classes  *rand.Rand // the classes drawn by the shares (load.schedule's source only)
	bursts   *rand.Rand // the classes its bursts draw by the shares (load.schedule's source only)
}

// newSources is the arm's state of the plan's sources, each with streams of its own.
func newSources(p *plan, streams sim.Streams) []sourceRT {
	out := make([]sourceRT, len(p.srcs))
	for k, sp := range p.srcs {
		out[k].arrivals = streams.Stream(sp.stream)
		if sp.class < 0 {
			out[k].classes = streams.Stream("class")
			if len(sp.bursts) > 0 {
				out[k].bursts = streams.Stream("bursts")
			}
		}
	}
	return out
}

// Event IDs of the sources: a rate change's is source<<32 | step (load.schedule's: the
// step), a burst arrival's source<<40 | burst<<20 | arrival.
func srcStepID(k, i int) int64  { return int64(k)<<32 | int64(i) }
func burstID(k, b, j int) int64 { return int64(k)<<40 | int64(b)<<20 | int64(j) }

// beginSources schedules the sources' rate changes and bursts.
func (a *arm) beginSources() {
	p := a.p
	for k := range p.srcs {
		for i, st := range p.srcs[k].steps {
			if st.At > 0 && st.At < p.duration {
				a.s.ScheduleAt(st.At, a, evRateChange, srcStepID(k, i))
			}
		}
		for b, bp := range p.srcs[k].bursts {
			a.s.ScheduleAt(bp.at, a, evBurst, burstID(k, b, 0))
		}
	}
}

// beginArrivals schedules every source's first arrival and every user's first request.
func (a *arm) beginArrivals() {
	for k := range a.srcs {
		a.scheduleArrival(k)
	}
	a.beginUsers()
}

// rescheduleArrival replaces every source's pending arrival after a shift. Poisson
// arrivals are memoryless, so drawing afresh from now is exact.
func (a *arm) rescheduleArrival() {
	for k := range a.srcs {
		a.rescheduleSource(k)
	}
}

// rateChange is a rate step of source id>>32 beginning.
func (a *arm) rateChange(id int64) { a.rescheduleSource(int(id >> 32)) }

func (a *arm) rescheduleSource(k int) {
	if s := &a.srcs[k]; s.timer != 0 {
		a.s.Cancel(s.timer)
		s.timer = 0
	}
	a.scheduleArrival(k)
}

// scheduleArrival schedules source k's next arrival from now. A constant rate r draws a
// gap of Exp(1)/r (Poisson) or 1/r (uniform); a ramp inverts its integrated rate at
// Exp(1) or 1 (rampGap). The next rate step schedules again.
func (a *arm) scheduleArrival(k int) {
	if a.stopped {
		return
	}
	sp, s := &a.p.srcs[k], &a.srcs[k]
	now := a.now()
	st := sp.step(now)
	if st == nil {
		return
	}
	var gap float64
	if st.Slope == 0 {
		r := st.Rate * a.shift
		if r <= 0 {
			return // the next rate change schedules again
		}
		if a.p.poisson {
			gap = s.arrivals.ExpFloat64() / r
		} else {
			gap = 1 / r
		}
	} else {
		if a.shift <= 0 {
			return
		}
		e := 1.0
		if a.p.poisson {
			e = s.arrivals.ExpFloat64()
		}
		var ok bool
		if gap, ok = rampGap(st, now, a.shift, e); !ok {
			return
		}
	}
	d := floatdur.Trunc(gap * float64(time.Second))
	if d >= a.p.duration-now { // not now+d, which overflows for a saturated gap
		return
	}
	s.timer = a.s.Schedule(d, a, evArrival, int64(k))
}

// drawClass is the class a uniform draw u picks by the shares.
func (p *plan) drawClass(u float64) int {
	ci := 0
	for ci < p.nClasses-1 && u >= p.classes[ci].cum {
		ci++
	}
	return ci
}

// arrival is load.schedule's source's next arrival.
func (a *arm) arrival() { a.arrivalFrom(0) }

// arrivalFrom is source k's next arrival.
func (a *arm) arrivalFrom(k int) {
	s := &a.srcs[k]
	s.timer = 0
	now := a.now()
	ci := a.p.srcs[k].class
	if ci < 0 {
		ci = a.p.drawClass(s.classes.Float64())
	}
	id := a.nextID
	a.nextID++
	a.scheduleArrival(k)
	a.offer(now, ci, id)
}

// burst is one arrival (or, unspread, all arrivals) of a burst; id is burstID's.
func (a *arm) burst(id int64) {
	if a.stopped {
		return
	}
	k, b, j := int(id>>40), int(id>>20)&(1<<20-1), int(id)&(1<<20-1)
	bp := &a.p.srcs[k].bursts[b]
	n := 1
	if bp.within == 0 {
		n = bp.n
	}
	now := a.now()
	for range n {
		ci := a.p.srcs[k].class
		if ci < 0 {
			ci = a.p.drawClass(a.srcs[k].bursts.Float64())
		}
		id := a.nextID
		a.nextID++
		a.offer(now, ci, id)
	}
	if bp.within > 0 && j+1 < bp.n {
		at := bp.at + floatdur.Trunc(float64(bp.within)*float64(j+1)/float64(bp.n))
		a.s.ScheduleAt(at, a, evBurst, burstID(k, b, j+1))
	}
}

// offer is request id of class ci offered at now: refused at the door, or admitted and
// sent to its entry.
func (a *arm) offer(now time.Duration, ci int, id int64) {
	cp := &a.p.classes[ci]
	a.hs.class[ci].Offered(now)
	a.tk.offered++
	if a.shift > 1 && a.pol.freezeFailover && a.draw(a.p.failoverPurp, id, 0, 0, 0) < (a.shift-1)/a.shift {
		// This request came with the regional failover; the load state has frozen
		// failover into the cell, so the cell refuses it and it stays in its origin.
		a.reject(now, ci, id, "failover-frozen")
		return
	}
	if a.cells != nil {
		// A scenario with cells: the cell that serves the request (cell.go).
		if ci = a.cellRoute(now, ci, id); ci < 0 {
			return
		}
		cp = &a.p.classes[ci]
	}
	if a.act != nil && a.act.limited(int(cp.entry), now) {
		a.reject(now, ci, id, "rate-limited")
		return
	}
	if adm := a.pol.adm; adm != nil {
		d := adm.Admit(a.wall(), admission.Request{Class: cp.admission, Slack: cp.deadline})
		if !d.Admitted {
			a.reject(now, ci, id, d.Reason.String())
			return
		}
	}
	a.hs.class[ci].Admitted(now)
	li, lg := a.newRequest(now, ci, id)
	lg.admitted = a.pol.adm != nil
	a.inFlight++
	a.sendAttempt(li, lg)
}

// newRequest starts logical request id of class ci at now, with its deadline timer, for
// the caller to send.
func (a *arm) newRequest(now time.Duration, ci int, id int64) (int32, *logical) {
	cp := &a.p.classes[ci]
	li, lg := a.sl.newLogical()
	lg.class = int16(ci)
	lg.entry = int16(cp.entry)
	lg.id = id
	lg.t0 = now
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
	return li, lg
}

func (a *arm) reject(now time.Duration, ci int, id int64, reason string) {
	a.rec.Rejected(now, a.p.classes[ci].name, reason)
	if a.jobs != nil {
		a.jobCollect(ci, id, nil) // rejected at the door
	}
	a.al.refuse()
	if a.hooks != nil && a.hooks.rejected != nil {
		a.hooks.rejected(a.name, id)
	}
	a.userAnswered(id)
}

// deadline is the request's absolute deadline, since the start.
func (a *arm) deadline(lg *logical) time.Duration { return lg.t0 + a.p.classes[lg.class].deadline }
