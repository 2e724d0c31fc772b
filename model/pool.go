package model

import (
	"errors"
	"math"

	"github.com/goodput-lab/goodput/control/breaker"

	"github.com/goodput-lab/goodput/internal/prefetch"
)

// Where a call waits: for one of the connections its instance keeps to the dependency
// (a bounded pool per instance), then for one of the dependency's servers (its
// concurrency, shared by every caller). Both hand what frees up to the first live waiter.

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

// errPoolExhausted is what a caller sees of a call that gave up waiting for a connection.
var errPoolExhausted = errors.New("connection pool exhausted")

// acquireTimeout is the pool's acquire timeout (scenario.Pool.AcquireTimeout) of call ref
// id: if the call still waits for a connection, it gives up with reason pool-exhausted.
// Nothing was sent, so it fails at once as an overload, which the caller may retry.
func (a *arm) acquireTimeout(id int64) {
	ci, gen := unref(id)
	c := a.sl.call(ci)
	if c.gen != gen || c.state != callWaitConn {
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
		// The client's own pool gave up inside the guarded call: a failure to its breaker
		// (not the caller's deadline, which a breaker ignores).
		a.breakerRecord(ci, c, breaker.Call{Err: errPoolExhausted})
	}
	a.insts[c.inst].pools[c.dep].waiting--
	a.hs.dep[c.dep].PoolExhausted()
	c.state = callDone
	a.freeCall(ci, c, lg)
	lg.live--
	a.callFailed(ai, causeOverload)
	a.settle(li, lg)
}

// prefetchCall is prefetchAttempt for call ref id.
func (a *arm) prefetchCall(id int64) {
	if i, _ := unref(id); i >= inline {
		prefetch.Object(a.sl.recs.at(i - inline))
	} else {
		prefetch.Object(a.sl.calls.at(i))
	}
}
