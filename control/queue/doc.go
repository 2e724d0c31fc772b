// Package queue provides a work queue bounded by age and deadline, not only
// by count: it refuses work that cannot finish in time, drops queued work the
// moment it becomes useless, and reports the age of its oldest useful item.
//
// In the Northstar incident the application queue held work for 800 ms of a
// 1.8-second deadline: serving it produced responses the callers had already
// abandoned, so throughput stayed up while goodput fell. Queue age, not queue
// length, is the deadline detector: it is comparable across instance counts
// and says directly whether queued work can still meet its deadline.
//
// Nothing in this package reads a clock: every method takes the current
// instant, so a real service and the discrete-event simulator run the same
// code.
//
// # Which method to call
//
//   - [New] builds a [Queue] from a [Config]. The zero Config is a plain
//     unbounded FIFO; Capacity alone gives the classic count-bounded FIFO.
//   - [Queue.Push] enqueues an item with its absolute deadline, refusing it
//     with [ErrDeadline] when the deadline leaves less than Config.Expected,
//     or with [ErrFull].
//   - [Queue.Pop] returns the next item worth serving, dropping expired,
//     too-old and doomed items on the way and reporting each one with a
//     [Reason], so that every item reaches exactly one terminal state.
//   - [Queue.Bypass] is the path of an item that finds the queue empty and a
//     worker free: it is counted, deadline-checked and seen by CoDel exactly as
//     a Push and an immediate Pop, without being stored.
//   - [Queue.OldestAge] is the gate signal for the load-state machine;
//     [Queue.Prune] releases doomed items without serving anything.
//
// # CoDel and adaptive LIFO
//
// With Config.Target set the queue follows Facebook's CoDel variant: at each
// Pop it observes the age of the oldest useful item; when that age stayed
// above Target for a whole Interval (5 ms and 100 ms in Facebook's
// deployment), the queue is congested for the next Interval and Pop drops
// items older than twice Target instead of serving them. With
// Config.AdaptiveLIFO a congested queue also serves its newest item first, so
// that fresh requests finish in time while the standing queue is sloughed.
//
// # A short program
//
//	q, err := queue.New[*Request](queue.Config{
//		Capacity: 4096,
//		MaxAge:   time.Second,
//		Target:   50 * time.Millisecond,
//		Interval: 500 * time.Millisecond,
//		Expected: 300 * time.Millisecond,
//	})
//	if err != nil {
//		return err
//	}
//	if err := q.Push(now, req, req.Deadline); err != nil {
//		return err // queue.ErrFull or queue.ErrDeadline: reject at once
//	}
//	// When a worker is free:
//	next, ok := q.Pop(now, func(r *Request, why queue.Reason) {
//		r.Fail(why.String()) // expired, deadline, age or codel
//	})
//
// A Queue is safe for concurrent use, unless Config.Unsynchronized drops its
// lock for a single goroutine (a simulator). Push and Pop do not allocate once the
// ring buffer has grown to the queue's working size.
package queue
