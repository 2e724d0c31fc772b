package queue_test

import (
	"fmt"
	"time"

	"github.com/goodput-lab/goodput/control/queue"
)

// A checkout queue with a 1.8 s deadline per request and 300 ms of service
// still needed after dequeue: work that can no longer finish in time is
// refused at the door or dropped when a worker reaches it, and OldestAge
// reports only work that is still useful.
func Example() {
	q, err := queue.New[string](queue.Config{Capacity: 100, MaxAge: time.Second, Expected: 300 * time.Millisecond})
	if err != nil {
		fmt.Println(err)
		return
	}
	start := time.Date(2026, 3, 14, 14, 4, 0, 0, time.UTC)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }

	q.Push(at(0), "checkout-1", at(1800))
	q.Push(at(100), "checkout-2", at(600))
	q.Push(at(200), "lookup-3", time.Time{}) // no deadline, bounded by MaxAge
	fmt.Println("late arrival:", q.Push(at(300), "checkout-4", at(500)))

	fmt.Println("oldest useful at 400ms:", q.OldestAge(at(400)))
	item, _ := q.Pop(at(400), nil)
	fmt.Println("served:", item)

	drop := func(item string, r queue.Reason) { fmt.Println("dropped:", item, r) }
	fmt.Println("oldest useful at 1250ms:", q.OldestAge(at(1250)))
	item, ok := q.Pop(at(1250), drop)
	fmt.Println("served:", item, ok)
	st := q.Stats()
	fmt.Println("pushed", st.Pushed, "popped", st.Popped, "dropped", st.DroppedTotal(), "refused", st.RejectedDeadline)
	// Output:
	// late arrival: queue: deadline cannot be met
	// oldest useful at 400ms: 400ms
	// served: checkout-1
	// oldest useful at 1250ms: 0s
	// dropped: checkout-2 expired
	// dropped: lookup-3 age
	// served:  false
	// pushed 3 popped 1 dropped 2 refused 1
}

// Under sustained overload (two arrivals per service) CoDel finds the queue
// congested after its oldest item stayed above the 5 ms target for a whole
// 100 ms interval; from then on, with adaptive LIFO, it serves the newest
// work first and sloughs everything older than 10 ms, so the standing queue
// stays small instead of growing by 1,000 items a second.
func ExampleConfig_adaptiveLIFO() {
	q, _ := queue.New[int](queue.Config{Target: 5 * time.Millisecond, Interval: 100 * time.Millisecond, AdaptiveLIFO: true})
	start := time.Date(2026, 3, 14, 14, 4, 0, 0, time.UTC)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	// Two arrivals per millisecond, one service per millisecond.
	served := 0
	for ms := range 400 {
		q.Push(at(ms), 2*ms, time.Time{})
		q.Push(at(ms), 2*ms+1, time.Time{})
		if _, ok := q.Pop(at(ms), nil); ok {
			served++
		}
	}
	st := q.Stats()
	fmt.Println("served", served, "of which newest-first", st.LIFO)
	fmt.Println("dropped by codel", st.Dropped[queue.ReasonCoDel], "still queued", st.Len)
	fmt.Println("oldest useful", q.OldestAge(at(400)))
	// Output:
	// served 400 of which newest-first 200
	// dropped by codel 389 still queued 11
	// oldest useful 11ms
}

// A server whose worker is idle hands a request straight to it, but still
// accounts for it through the queue: Bypass refuses it as Push would when its
// deadline cannot be met, and once work is waiting it says so, so that the
// request takes its turn behind it.
func ExampleQueue_Bypass() {
	q, _ := queue.New[string](queue.Config{Expected: 300 * time.Millisecond})
	start := time.Date(2026, 3, 14, 14, 4, 0, 0, time.UTC)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }

	fmt.Println("idle worker:", q.Bypass(at(0), at(1800)))
	fmt.Println("200 ms left:", q.Bypass(at(10), at(210)))
	q.Push(at(20), "checkout-1", at(1800)) // the worker is busy now
	if err := q.Bypass(at(30), at(1800)); err == queue.ErrNotEmpty {
		q.Push(at(30), "checkout-2", at(1800))
	}
	st := q.Stats()
	fmt.Println("pushed", st.Pushed, "popped", st.Popped, "refused", st.RejectedDeadline, "queued", st.Len)
	// Output:
	// idle worker: <nil>
	// 200 ms left: queue: deadline cannot be met
	// pushed 3 popped 1 refused 1 queued 2
}
