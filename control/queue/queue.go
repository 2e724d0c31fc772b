package queue

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/goodput-lab/goodput/control/internal/nanotime"
)

// Sentinel errors returned by [Queue.Push] and [Queue.Bypass].
var (
	// ErrFull: the queue holds Capacity items.
	ErrFull = errors.New("queue: full")
	// ErrDeadline: the item's deadline has passed or leaves less than
	// Expected for service after dequeue.
	ErrDeadline = errors.New("queue: deadline cannot be met")
	// ErrNotEmpty, from [Queue.Bypass]: items are queued, so the item must
	// wait its turn.
	ErrNotEmpty = errors.New("queue: not empty")
)

// Reason says why [Queue.Pop] or [Queue.Prune] dropped an item.
type Reason uint8

// The drop reasons, in the order an item is checked.
const (
	// ReasonExpired: the item's deadline has passed.
	ReasonExpired Reason = iota
	// ReasonDeadline: the deadline has not passed, but less than
	// Config.Expected of it remains, so serving the item would finish late.
	ReasonDeadline
	// ReasonAge: the item waited longer than Config.MaxAge.
	ReasonAge
	// ReasonCoDel: the queue is congested and the item waited longer than
	// twice Config.Target.
	ReasonCoDel
)

// NumReasons is the number of drop reasons; arrays indexed by [Reason] have
// this length.
const NumReasons = 4

var reasonNames = [NumReasons]string{"expired", "deadline", "age", "codel"}

// String returns the reason code, for example "expired".
func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return "Reason(" + strconv.Itoa(int(r)) + ")"
}

// Config configures a [Queue]. The zero value is a plain unbounded FIFO that
// drops nothing but items whose deadline has passed.
type Config struct {
	// Capacity bounds the number of queued items; Push returns ErrFull
	// beyond it. Zero means unbounded.
	Capacity int
	// MaxAge drops items that have waited longer. Zero means no age bound.
	MaxAge time.Duration
	// Target enables CoDel: the queue is congested for the next Interval
	// when the age of its oldest useful item stayed above Target at every
	// Pop during the last Interval, and while congested Pop drops items
	// older than twice Target (Facebook's variant: slough old work instead of
	// dropping at an increasing rate). Facebook uses 5 ms. Zero disables
	// CoDel.
	Target time.Duration
	// Interval is CoDel's interval. Zero means 100 ms (Facebook's value)
	// when Target is set.
	Interval time.Duration
	// AdaptiveLIFO serves the newest item first while the queue is
	// congested, so fresh requests still finish in time while old ones are
	// dropped. It needs Target.
	AdaptiveLIFO bool
	// Expected is the service time an item still needs after it is dequeued:
	// an item whose deadline leaves less than this is refused by Push and
	// dropped by Pop. Zero drops only expired items.
	Expected time.Duration
	// Unsynchronized drops the queue's lock, for a queue that only one
	// goroutine ever uses (a simulator's): the queue is then not safe for
	// concurrent use, and each call saves an uncontended lock and unlock.
	Unsynchronized bool
}

// Validate reports the first problem with c.
func (c Config) Validate() error {
	switch {
	case c.Capacity < 0:
		return fmt.Errorf("queue: Capacity %d must not be negative", c.Capacity)
	case c.MaxAge < 0:
		return fmt.Errorf("queue: MaxAge %v must not be negative", c.MaxAge)
	case c.Target < 0:
		return fmt.Errorf("queue: Target %v must not be negative", c.Target)
	case c.Interval < 0:
		return fmt.Errorf("queue: Interval %v must not be negative", c.Interval)
	case c.Interval > 0 && c.Target == 0:
		return errors.New("queue: Interval is set but Target is zero; set Target to enable CoDel")
	case c.AdaptiveLIFO && c.Target == 0:
		return errors.New("queue: AdaptiveLIFO needs Target, which defines congestion")
	case c.Expected < 0:
		return fmt.Errorf("queue: Expected %v must not be negative", c.Expected)
	}
	return nil
}

// Stats is a snapshot of a queue's counters.
type Stats struct {
	// Pushed counts accepted items; RejectedFull and RejectedDeadline count
	// pushes refused with ErrFull and ErrDeadline.
	Pushed, RejectedFull, RejectedDeadline uint64
	// Popped counts items returned by Pop; LIFO counts those served newest
	// first.
	Popped, LIFO uint64
	// Dropped counts dropped items by reason.
	Dropped [NumReasons]uint64
	// Len is the number of queued items; MaxLen the most there have been.
	Len, MaxLen int
	// Congested reports CoDel's current state.
	Congested bool
}

// DroppedTotal returns the number of dropped items of every reason.
func (s Stats) DroppedTotal() uint64 {
	var n uint64
	for _, d := range s.Dropped {
		n += d
	}
	return n
}

type entry[T any] struct {
	item     T
	enq      int64 // nanoseconds on q.clock
	deadline int64 // nanoseconds on q.clock; noDeadline: none
}

const noDeadline = math.MaxInt64

// Queue is a FIFO bounded by count, age and deadline, with optional CoDel
// and adaptive LIFO. Call [Queue.Push] when work arrives and [Queue.Pop]
// when a worker is free; Pop returns the next item still worth serving and
// reports every item it drops on the way. [Queue.OldestAge] is the queue's
// health signal: the age of the oldest item still useful.
//
// Items live in a ring buffer that grows by doubling, so a queue in steady
// state does not allocate. A Queue is safe for concurrent use (unless
// Config.Unsynchronized says only one goroutine uses it). Pop and Prune
// call their drop function without holding the queue's lock.
type Queue[T any] struct {
	mu       sync.Mutex
	cfg      Config
	interval time.Duration
	clock    nanotime.Clock
	buf      []entry[T]
	head, n  int

	// CoDel state.
	observed    bool
	intervalEnd int64
	allAbove    bool // the oldest useful item was older than Target at every observation this interval
	congested   bool

	stats Stats
}

// lock and unlock guard the queue's state unless Config.Unsynchronized is set.
func (q *Queue[T]) lock() {
	if !q.cfg.Unsynchronized {
		q.mu.Lock()
	}
}

func (q *Queue[T]) unlock() {
	if !q.cfg.Unsynchronized {
		q.mu.Unlock()
	}
}

// New returns an empty queue for cfg, or the error from [Config.Validate].
func New[T any](cfg Config) (*Queue[T], error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	q := &Queue[T]{cfg: cfg, interval: cfg.Interval}
	if cfg.Target > 0 && q.interval == 0 {
		q.interval = 100 * time.Millisecond
	}
	return q, nil
}

// Push enqueues item at now with its absolute deadline (the zero Time means
// none). It returns [ErrDeadline] when the deadline leaves less than
// Config.Expected (or has passed), and [ErrFull] when the queue holds
// Capacity items; in both cases the item is not queued.
func (q *Queue[T]) Push(now time.Time, item T, deadline time.Time) error {
	q.lock()
	defer q.unlock()
	n := q.clock.Nanos(now)
	dl := int64(noDeadline)
	if !deadline.IsZero() {
		dl = q.clock.Nanos(deadline)
		if left := dl - n; left <= 0 || left < int64(q.cfg.Expected) {
			q.stats.RejectedDeadline++
			return ErrDeadline
		}
	}
	if q.cfg.Capacity > 0 && q.n >= q.cfg.Capacity {
		q.stats.RejectedFull++
		return ErrFull
	}
	if q.n == len(q.buf) {
		q.grow()
	}
	q.buf[q.index(q.n)] = entry[T]{item: item, enq: n, deadline: dl}
	q.n++
	q.stats.Pushed++
	q.stats.MaxLen = max(q.stats.MaxLen, q.n)
	return nil
}

// Bypass accounts for an item that arrives at now to find the queue empty and a worker
// free, and goes straight to the worker: it does what Push followed at once by Pop would
// do (the same deadline check and [ErrDeadline], the same counts, CoDel's observation of
// an age of zero) without storing the item. It returns [ErrNotEmpty], and changes
// nothing, when items are queued: they are served first, so push the item instead.
func (q *Queue[T]) Bypass(now time.Time, deadline time.Time) error {
	q.lock()
	defer q.unlock()
	if q.n > 0 {
		return ErrNotEmpty
	}
	n := q.clock.Nanos(now)
	if !deadline.IsZero() {
		if left := q.clock.Nanos(deadline) - n; left <= 0 || left < int64(q.cfg.Expected) {
			q.stats.RejectedDeadline++
			return ErrDeadline
		}
	}
	// Push and Pop of the only item: it is not doomed (the deadline check above is Pop's
	// too, and it has waited for nothing), and at age zero CoDel drops nothing.
	q.stats.Pushed++
	q.stats.MaxLen = max(q.stats.MaxLen, 1)
	q.observe(n, 0)
	q.stats.Popped++
	if q.congested && q.cfg.AdaptiveLIFO {
		q.stats.LIFO++
	}
	return nil
}

func (q *Queue[T]) index(i int) int {
	i += q.head
	if i >= len(q.buf) {
		i -= len(q.buf)
	}
	return i
}

func (q *Queue[T]) grow() {
	size := max(2*len(q.buf), 8)
	if q.cfg.Capacity > 0 {
		size = min(size, q.cfg.Capacity)
	}
	buf := make([]entry[T], size)
	for i := range q.n {
		buf[i] = q.buf[q.index(i)]
	}
	q.buf, q.head = buf, 0
}

// doom reports whether e should be dropped at now, and why. CoDel is not
// considered here.
func (q *Queue[T]) doom(e *entry[T], now int64) (Reason, bool) {
	if e.deadline != noDeadline {
		left := e.deadline - now
		if left <= 0 {
			return ReasonExpired, true
		}
		if left < int64(q.cfg.Expected) {
			return ReasonDeadline, true
		}
	}
	if q.cfg.MaxAge > 0 && now-e.enq > int64(q.cfg.MaxAge) {
		return ReasonAge, true
	}
	return 0, false
}

func (q *Queue[T]) takeHead() T {
	e := &q.buf[q.head]
	item := e.item
	*e = entry[T]{} // release references held by the item
	q.head = q.index(1)
	q.n--
	return item
}

func (q *Queue[T]) takeTail() T {
	e := &q.buf[q.index(q.n-1)]
	item := e.item
	*e = entry[T]{}
	q.n--
	return item
}

// observe feeds CoDel the age of the oldest useful item (0 when empty).
func (q *Queue[T]) observe(now, age int64) {
	if q.cfg.Target == 0 {
		return
	}
	above := age > int64(q.cfg.Target)
	switch {
	case !q.observed:
		q.observed = true
		q.intervalEnd = now + int64(q.interval)
		q.allAbove = above
	case now >= q.intervalEnd:
		// The interval is over: congested for the next one if the oldest
		// useful item was older than Target at every observation.
		q.congested = q.allAbove
		q.intervalEnd = now + int64(q.interval)
		q.allAbove = above
	default:
		q.allAbove = q.allAbove && above
	}
}

type outcome uint8

const (
	outEmpty outcome = iota
	outServed
	outDropped
)

// step removes one item under the lock: the next item to serve, or one item
// to drop.
func (q *Queue[T]) step(t time.Time) (item T, r Reason, o outcome) {
	q.lock()
	defer q.unlock()
	now := q.clock.Nanos(t)
	if q.n == 0 {
		q.observe(now, 0)
		return item, 0, outEmpty
	}
	if r, doomed := q.doom(&q.buf[q.head], now); doomed {
		q.stats.Dropped[r]++
		return q.takeHead(), r, outDropped
	}
	age := now - q.buf[q.head].enq
	q.observe(now, age)
	if q.congested {
		if age > 2*int64(q.cfg.Target) {
			q.stats.Dropped[ReasonCoDel]++
			return q.takeHead(), ReasonCoDel, outDropped
		}
		if q.cfg.AdaptiveLIFO {
			if r, doomed := q.doom(&q.buf[q.index(q.n-1)], now); doomed {
				q.stats.Dropped[r]++
				return q.takeTail(), r, outDropped
			}
			q.stats.Popped++
			q.stats.LIFO++
			return q.takeTail(), 0, outServed
		}
	}
	q.stats.Popped++
	return q.takeHead(), 0, outServed
}

// Pop dequeues the next item worth serving at now. On the way it drops, and
// reports through drop (which may be nil), every item it meets that has
// expired, cannot meet its deadline after Config.Expected of service, is
// older than Config.MaxAge or, while CoDel finds the queue congested, is
// older than twice Config.Target. While congested with Config.AdaptiveLIFO it
// serves the newest item instead of the oldest. It returns false when no
// useful item is left.
//
// drop is called without the queue's lock held, once per dropped item, before
// Pop returns.
func (q *Queue[T]) Pop(now time.Time, drop func(item T, r Reason)) (T, bool) {
	for {
		item, r, o := q.step(now)
		switch o {
		case outServed:
			return item, true
		case outEmpty:
			return item, false
		}
		if drop != nil {
			drop(item, r)
		}
	}
}

// Prune drops, and reports through drop (which may be nil), every queued
// item that is already doomed at now: expired, unable to meet its deadline,
// or older than MaxAge. It keeps the order of the remaining items and returns
// how many it dropped. Pop drops such items anyway when it meets them; Prune
// lets a caller release them (and record their terminal state) as soon as
// they are doomed. It costs O(Len) per dropped item.
func (q *Queue[T]) Prune(now time.Time, drop func(item T, r Reason)) int {
	dropped := 0
	from := 0
	for {
		item, r, next, ok := q.pruneOne(now, from)
		if !ok {
			return dropped
		}
		dropped++
		from = next
		if drop != nil {
			drop(item, r)
		}
	}
}

// pruneOne removes the first doomed item at position from or later.
func (q *Queue[T]) pruneOne(t time.Time, from int) (item T, r Reason, next int, ok bool) {
	q.lock()
	defer q.unlock()
	now := q.clock.Nanos(t)
	for i := from; i < q.n; i++ {
		r, doomed := q.doom(&q.buf[q.index(i)], now)
		if !doomed {
			continue
		}
		item = q.buf[q.index(i)].item
		// Close the gap by shifting the later items one place forward.
		for j := i; j < q.n-1; j++ {
			q.buf[q.index(j)] = q.buf[q.index(j+1)]
		}
		q.buf[q.index(q.n-1)] = entry[T]{}
		q.n--
		q.stats.Dropped[r]++
		return item, r, i, true
	}
	return item, 0, 0, false
}

// OldestAge returns how long the oldest useful item has waited at now: items
// that are expired, cannot meet their deadline or are older than MaxAge are
// skipped (Pop would drop them). It returns 0 when no item is useful. It does
// not change the queue.
func (q *Queue[T]) OldestAge(t time.Time) time.Duration {
	q.lock()
	defer q.unlock()
	now := q.clock.Nanos(t)
	for i := range q.n {
		e := &q.buf[q.index(i)]
		if _, doomed := q.doom(e, now); !doomed {
			return time.Duration(max(now-e.enq, 0))
		}
	}
	return 0
}

// Peek returns the oldest queued item without removing it: the item Pop serves next,
// unless Pop drops it or serves the newest instead (adaptive LIFO). It does not change the
// queue.
func (q *Queue[T]) Peek() (item T, ok bool) {
	q.lock()
	defer q.unlock()
	if q.n == 0 {
		return item, false
	}
	return q.buf[q.head].item, true
}

// Len returns the number of queued items, doomed ones included.
func (q *Queue[T]) Len() int {
	q.lock()
	defer q.unlock()
	return q.n
}

// SetExpected changes Config.Expected, for example when the measured
// service time moves. Negative values are treated as 0.
func (q *Queue[T]) SetExpected(d time.Duration) {
	q.lock()
	q.cfg.Expected = max(d, 0)
	q.unlock()
}

// Stats returns a snapshot of the queue's counters.
func (q *Queue[T]) Stats() Stats {
	q.lock()
	defer q.unlock()
	s := q.stats
	s.Len = q.n
	s.Congested = q.congested
	return s
}
