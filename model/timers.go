package model

import "time"

// Timer queues. Most timeouts never fire: the attempt or call finishes first. Timeouts of
// one kind and length (an entry's per-attempt timeout, a dependency's call timeout, a
// class's deadline) expire in the order they were set, so each kind keeps them in a FIFO
// and only the earliest live one has an event in the engine's heap. A timer set out of
// order (a shorter, deadline-derived timeout) goes to the heap directly.

type tqEntry struct {
	at   time.Duration
	kind int32
	id   int64
}

type timerQueue struct {
	buf     []tqEntry
	head, n int
	armed   bool // an evTimerQueue event is pending, or the queue is being fired
}

func (q *timerQueue) push(e tqEntry) {
	if q.n == len(q.buf) {
		size := max(2*len(q.buf), 64)
		buf := make([]tqEntry, size)
		for i := range q.n {
			buf[i] = q.buf[(q.head+i)%len(q.buf)]
		}
		q.buf, q.head = buf, 0
	}
	q.buf[(q.head+q.n)%len(q.buf)] = e
	q.n++
}

func (q *timerQueue) peek() *tqEntry { return &q.buf[q.head] }

func (q *timerQueue) tail() *tqEntry { return &q.buf[(q.head+q.n-1)%len(q.buf)] }

func (q *timerQueue) pop() tqEntry {
	e := q.buf[q.head]
	q.head++
	if q.head == len(q.buf) {
		q.head = 0
	}
	q.n--
	return e
}

// after sets a timer of the given kind for id, d from now, on timer queue qi.
func (a *arm) after(qi int, d time.Duration, kind int32, id int64) {
	at := a.now() + max(d, 0)
	q := &a.tqs[qi]
	if q.n > 0 && at < q.tail().at {
		a.s.Schedule(d, a, kind, id)
		return
	}
	q.push(tqEntry{at: at, kind: kind, id: id})
	if !q.armed {
		q.armed = true
		a.s.ScheduleAt(at, a, evTimerQueue, int64(qi))
	}
}

// fireQueue delivers the due timers of queue qi and arms the queue for its next live one.
func (a *arm) fireQueue(qi int) {
	q := &a.tqs[qi]
	now := a.now()
	for q.n > 0 && q.peek().at <= now {
		e := q.pop()
		a.dispatch(e.kind, e.id)
		q = &a.tqs[qi]
	}
	for q.n > 0 && !a.timerLive(q.peek().kind, q.peek().id) {
		q.pop()
	}
	q.armed = false
	if q.n > 0 {
		q.armed = true
		a.s.ScheduleAt(q.peek().at, a, evTimerQueue, int64(qi))
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
