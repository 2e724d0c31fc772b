package faultproxy

import (
	"context"
	"sync"
)

// limiter is the concurrency ceiling: a count of calls in service and a FIFO of calls
// waiting for a slot. The ceiling is passed in on every call (the fault's, which may
// change), so changing the fault takes no lock here; only a call arriving, leaving or
// giving up does, for a few instructions.
type limiter struct {
	mu      sync.Mutex
	busy    int       // calls holding a slot
	queue   []*waiter // waiting calls, oldest first; given-up ones are skipped when reached
	head    int       // queue[head:] is the queue
	waiting int       // waiters in the queue that have not given up

	observe func(event string) // tests: called with "queued" and "gave-up"; nil otherwise
}

type waiter struct {
	ready   chan struct{} // closed when the slot is granted
	granted bool
	gone    bool // gave up before it was granted
}

// acquireResult says how a call fared at the ceiling.
type acquireResult int

const (
	acquired acquireResult = iota
	overCeiling
	gaveUp
)

// acquire takes a slot under ceiling limit (0: none). Beyond it, with reject it returns
// overCeiling at once; otherwise it waits in FIFO order until a slot frees (acquired) or ctx
// ends (gaveUp).
func (l *limiter) acquire(ctx context.Context, limit int, reject bool) acquireResult {
	l.mu.Lock()
	if limit <= 0 || (l.busy < limit && l.waiting == 0) {
		l.busy++
		l.mu.Unlock()
		return acquired
	}
	if reject {
		l.mu.Unlock()
		return overCeiling
	}
	w := &waiter{ready: make(chan struct{})}
	l.queue = append(l.queue, w)
	l.waiting++
	l.mu.Unlock()
	if l.observe != nil {
		l.observe("queued")
	}

	select {
	case <-w.ready:
		return acquired
	case <-ctx.Done():
	}
	l.mu.Lock()
	if w.granted { // granted while giving up: hand the slot on
		l.mu.Unlock()
		l.release(limit)
		return gaveUp
	}
	w.gone = true
	l.waiting--
	if n := len(l.queue) - l.head; n > 1024 && l.waiting < n/2 {
		l.compactLocked() // memory stays O(calls waiting), even while no slot frees
	}
	l.mu.Unlock()
	if l.observe != nil {
		l.observe("gave-up")
	}
	return gaveUp
}

// release gives a slot back and grants freed slots to the oldest waiters under limit.
func (l *limiter) release(limit int) {
	l.mu.Lock()
	l.busy--
	l.grantLocked(limit)
	l.mu.Unlock()
}

// regrant grants waiting calls the slots a new, higher (or no) ceiling allows.
func (l *limiter) regrant(limit int) {
	l.mu.Lock()
	l.grantLocked(limit)
	l.mu.Unlock()
}

func (l *limiter) grantLocked(limit int) {
	for l.head < len(l.queue) && (limit <= 0 || l.busy < limit) {
		w := l.queue[l.head]
		l.queue[l.head] = nil
		l.head++
		if w.gone {
			continue
		}
		w.granted = true
		l.waiting--
		l.busy++
		close(w.ready)
	}
	if l.head == len(l.queue) {
		l.queue, l.head = l.queue[:0], 0
	} else if l.head > 1024 && l.head > len(l.queue)/2 {
		l.compactLocked()
	}
}

// compactLocked drops the granted and given-up entries from the queue.
func (l *limiter) compactLocked() {
	n := 0
	for _, w := range l.queue[l.head:] {
		if !w.gone {
			l.queue[n] = w
			n++
		}
	}
	clear(l.queue[n:])
	l.queue, l.head = l.queue[:n], 0
}

// counts returns the calls in service and waiting.
func (l *limiter) counts() (busy, waiting int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.busy, l.waiting
}
