package model

import (
	"time"

	"github.com/goodput-lab/goodput/sim"
)

// Timer queues. Most timeouts never fire: the attempt or call finishes first. Timeouts of
// one kind and length (an entry's per-attempt timeout, a dependency's call timeout, a
// class's deadline) expire in the order they were set, so each kind keeps them in a FIFO
// and only the earliest live one has an event in the engine's heap. A timer set out of
// order (a shorter, deadline-derived timeout) goes to the heap directly.
//
// A timer whose object finishes first can be marked dead in its queue (kill), by the code
// that frees the object while it is in cache; the queue then skips it without reading the
// object again, which would mostly be a cache miss. Attempts and calls mark their
// timeouts; requests' deadlines are checked (timerLive).

// tqEntry is one timer: when it fires and the ref of its object. A dead timer's id is 0,
// which no ref is (generations start at 1).
type tqEntry struct {
	at time.Duration
	id int64
}

// timerQueue is a FIFO of timers in a ring whose size is a power of two. Entries keep
// their absolute position (pos) from push to pop, so that kill can find them; the entry at
// pos lives at buf[pos&(len(buf)-1)].
type timerQueue struct {
	buf   []tqEntry
	head  uint32 // position of the oldest entry
	n     uint32
	last  time.Duration // when the newest entry fires
	kind  int32         // the event kind of its timers
	armed bool          // an evTimerQueue event is pending, or the queue is being fired
	// marks is set for a queue whose timers are killed when their object finishes first:
	// its unmarked head is taken to be live without reading the object (a dead one that
	// was missed costs an event that does nothing). Other queues check timerLive.
	marks bool
}

// push appends e and returns its position. The caller makes room first.
func (q *timerQueue) push(e tqEntry) uint32 {
	pos := q.head + q.n
	q.buf[pos&uint32(len(q.buf)-1)] = e
	q.n++
	q.last = e.at
	return pos
}

// makeRoom doubles the ring if it is full, keeping every entry at its position.
func (q *timerQueue) makeRoom() {
	if int(q.n) < len(q.buf) {
		return
	}
	size := max(2*len(q.buf), 64)
	buf := make([]tqEntry, size)
	for k := range q.n {
		pos := q.head + k
		buf[pos&uint32(size-1)] = q.buf[pos&uint32(len(q.buf)-1)]
	}
	q.buf = buf
}

func (q *timerQueue) peek() *tqEntry { return &q.buf[q.head&uint32(len(q.buf)-1)] }

func (q *timerQueue) pop() tqEntry {
	e := q.buf[q.head&uint32(len(q.buf)-1)]
	q.head++
	q.n--
	return e
}

// kill marks the timer with id dead, if it is still queued at the place tok (from after)
// names. A tok of 0 names no place (the timer went to the heap, or none was set); a place
// that is no longer this timer's holds another id, or nothing, and kill does nothing.
func (q *timerQueue) kill(tok uint32, id int64) {
	if pos := tok - 1; pos-q.head < q.n {
		if e := &q.buf[pos&uint32(len(q.buf)-1)]; e.id == id {
			e.id = 0
		}
	}
}

// after sets a timer for id, d from now, on timer queue qi (its kind is the queue's), and
// returns a token for kill: its position in the queue plus one, or 0 if it went to the
// heap. An object without a timer keeps the token 0, and its free skips kill.
func (a *arm) after(qi int, d time.Duration, id int64) uint32 {
	at := a.now() + max(d, 0)
	q := &a.tqs[qi]
	if q.n > 0 && at < q.last {
		a.s.Schedule(d, a, q.kind, id)
		return 0
	}
	q.makeRoom()
	tok := q.push(tqEntry{at: at, id: id}) + 1
	if !q.armed {
		q.armed = true
		a.s.ScheduleAt(at, a, evTimerQueue, int64(qi))
	}
	return tok
}

// fireQueue delivers the due timers of queue qi and arms the queue for its next live one.
func (a *arm) fireQueue(qi int) {
	q := &a.tqs[qi]
	now := a.now()
	for q.n > 0 && q.peek().at <= now {
		e := q.pop()
		if e.id != 0 {
			a.Handle(nil, sim.Event{Kind: q.kind, ID: e.id})
		}
		q = &a.tqs[qi]
	}
	// Drop the dead timers before the next live one.
	for q.n > 0 {
		if id := q.peek().id; id != 0 && (q.marks || a.timerLive(q.kind, id)) {
			break
		}
		q.head++
		q.n--
	}
	q.armed = false
	if q.n > 0 {
		q.armed = true
		next := q.peek()
		a.s.ScheduleAt(next.at, a, evTimerQueue, int64(qi))
		a.prefetchTimer(q.kind, next.id)
	}
}

// prefetchTimer asks for the object of the next timer of a queue to be loaded: when the
// timer fires, a timeout reads it, long after anything else has.
func (a *arm) prefetchTimer(kind int32, id int64) {
	switch kind {
	case evEntryTimeout:
		a.prefetchAttempt(id)
	case evCallTimeout:
		a.prefetchCall(id)
	}
}

// timerLive reports whether a timer would still do something if it fired.
func (a *arm) timerLive(kind int32, id int64) bool {
	switch kind {
	case evEntryTimeout:
		ai, gen := unref(id)
		at := a.sl.att(ai)
		if at.gen != gen {
			return false
		}
		lg := a.sl.lg(at.lg)
		return lg.cur == ai && lg.state == lgActive
	case evCallTimeout:
		ci, gen := unref(id)
		c := a.sl.call(ci)
		return c.gen == gen && c.state != callDone && !c.callerGone
	case evDeadline, evReserve:
		li, gen := unref(id)
		lg := a.sl.lg(li)
		return lg.gen == gen && lg.state == lgActive
	}
	return true
}
