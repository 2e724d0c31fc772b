package model

import "fmt"

// Hung calls and a dependency's ceiling (scenario.Dependency.HangRate, .Beyond). A call the
// dependency starts serving hangs with its hang rate (under its faults), by a draw of its
// own purpose, the same in every arm for the same call: it is never answered, and holds
// its server and its connection until the caller gives up — its timeout (the call then
// fails as a timeout) or a cancellation — when both are given back. A dependency that
// rejects beyond its concurrency answers a call that finds every server busy, whichever
// caller and instance it comes from, with an explicit overload at once: the call gives its
// connection back and fails with cause overload (which a retry budget never retries).
// A call whose caller gave up while it waited for a server is served as an orphan, as any
// other, and does not hang: no one is left to hold it open.

// callRejected is the state of a call the dependency has refused, until its answer is
// delivered (at the same instant: evDepReject).
const callRejected = callDone + 1

// applyDepHang sets dependency d's hang rate as its faults have it (the latest that sets
// one wins).
func (a *arm) applyDepHang(d int) {
	dr := &a.deps[d]
	dr.hangRate = a.p.deps[d].hangRate
	for _, fi := range dr.faults {
		if f := &a.p.faults[fi]; f.hangRate != nil {
			dr.hangRate = *f.hangRate
		}
	}
}

// hangs reports whether call c of request lg hangs at its dependency as it stands now.
func (a *arm) hangs(lg *logical, c *call) bool {
	r := a.deps[c.dep].hangRate
	if r == 0 {
		return false
	}
	return a.draw(a.stage(lg, c).hangPurp, lg.id, c.num, c.stage, c.try) < r
}

// dropHung ends hung call ci, whose caller gave up: its server and connection are freed.
func (a *arm) dropHung(ci int32) {
	c := a.sl.call(ci)
	li := c.lg
	a.releaseServer(c.dep)
	a.releaseConn(c.inst, c.dep)
	c.state = callDone
	lg := a.sl.lg(li)
	a.freeCall(ci, c, lg)
	lg.live--
}

// rejectCall refuses call ci (c), which holds a connection, at its dependency's ceiling: its
// overload answer arrives at once, as an event of its own so that the pool and the
// server queue it came from are not re-entered.
func (a *arm) rejectCall(ci int32, c *call) {
	c.state = callRejected
	a.schedule(0, evDepReject, ref(ci, c.gen))
}

// depRejected delivers a rejected call's overload answer.
func (a *arm) depRejected(id int64) {
	ci, gen := unref(id)
	c, r := a.sl.callRec(ci)
	if c.gen != gen || c.state != callRejected {
		return
	}
	lg := &r.lg
	a.releaseConn(c.inst, c.dep)
	c.state = callDone
	at := a.sl.attOf(r, c.att)
	live := !c.callerGone && at.gen == c.attGen && at.call == ci
	li := c.lg
	a.freeCall(ci, c, lg)
	lg.live--
	if live {
		at.call = -1
		a.callFailed(c.att, causeOverload)
	}
	a.settle(li, lg)
}

// describeHang is a dependency fault's hang rate for the timeline ("" if it sets none).
func describeHang(f *faultPlan) string {
	if f.hangRate == nil {
		return ""
	}
	return fmt.Sprintf(" hang rate %.1f%%", 100**f.hangRate)
}
