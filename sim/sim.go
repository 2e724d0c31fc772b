package sim

import (
	"fmt"
	"time"
)

// Handler is a component that receives events. A component implements Handle once and
// switches on [Event.Kind]; scheduling a method value or closure instead would allocate.
type Handler interface {
	Handle(s *Sim, e Event)
}

// HandlerFunc adapts a function to [Handler]. Convenient for rare events (faults, ticks);
// for per-request events prefer a long-lived component, which schedules without allocating.
type HandlerFunc func(s *Sim, e Event)

// Handle calls f(s, e).
func (f HandlerFunc) Handle(s *Sim, e Event) { f(s, e) }

// Event is one scheduled occurrence. At is virtual time since the start; Kind and ID are the
// handler's own payload (for example an event type and a request index).
type Event struct {
	At   time.Duration
	Kind int32
	ID   int64
	H    Handler
	seq  uint64
}

// Timer identifies a scheduled event so that it can be cancelled.
type Timer uint64

// Sim is the event loop and virtual clock of one experiment arm. It is not safe for concurrent
// use: run one Sim per goroutine.
type Sim struct {
	start     time.Time
	now       time.Duration
	seq       uint64
	heap      []Event
	cancelled map[uint64]struct{}
	processed uint64
}

// New returns a Sim whose virtual clock reads start at elapsed time zero.
func New(start time.Time) *Sim {
	return &Sim{start: start, heap: make([]Event, 0, 1024), cancelled: make(map[uint64]struct{})}
}

// Start is the wall-clock instant that virtual time zero stands for.
func (s *Sim) Start() time.Time { return s.start }

// Elapsed is the current virtual time since the start.
func (s *Sim) Elapsed() time.Duration { return s.now }

// Now is the current virtual instant, for code that takes `now time.Time`.
func (s *Sim) Now() time.Time { return s.start.Add(s.now) }

// At converts a virtual time since the start to an instant.
func (s *Sim) At(d time.Duration) time.Time { return s.start.Add(d) }

// Processed is the number of events handled so far (cancelled events are not counted).
func (s *Sim) Processed() uint64 { return s.processed }

// Pending is the number of events in the heap, including lazily cancelled ones.
func (s *Sim) Pending() int { return len(s.heap) }

// Schedule arranges for h to receive an event with kind and id after delay d (d < 0 counts as
// 0). It returns a [Timer] for [Sim.Cancel].
func (s *Sim) Schedule(d time.Duration, h Handler, kind int32, id int64) Timer {
	if d < 0 {
		d = 0
	}
	return s.ScheduleAt(s.now+d, h, kind, id)
}

// ScheduleAt is like [Sim.Schedule] with an absolute virtual time; a time in the past is
// treated as now.
func (s *Sim) ScheduleAt(at time.Duration, h Handler, kind int32, id int64) Timer {
	if at < s.now {
		at = s.now
	}
	s.seq++
	s.push(Event{At: at, Kind: kind, ID: id, H: h, seq: s.seq})
	return Timer(s.seq)
}

// Cancel stops a scheduled event from being delivered. Cancellation is lazy: the event stays in
// the heap and is discarded when it reaches the top. Cancelling a delivered or unknown timer is
// a no-op.
func (s *Sim) Cancel(t Timer) {
	if uint64(t) > 0 && uint64(t) <= s.seq {
		s.cancelled[uint64(t)] = struct{}{}
	}
}

// Step delivers the next event if its time is at or before until, advancing the clock to it.
// It reports whether an event was delivered.
func (s *Sim) Step(until time.Duration) bool {
	for len(s.heap) > 0 {
		if s.heap[0].At > until {
			return false
		}
		e := s.pop()
		if len(s.cancelled) > 0 {
			if _, ok := s.cancelled[e.seq]; ok {
				delete(s.cancelled, e.seq)
				continue
			}
		}
		s.now = e.At
		s.processed++
		e.H.Handle(s, e)
		return true
	}
	return false
}

// Run delivers events in (time, seq) order until none remain at or before until, then sets the
// clock to until.
func (s *Sim) Run(until time.Duration) {
	for s.Step(until) {
	}
	if until > s.now {
		s.now = until
	}
}

// String describes the clock for debugging.
func (s *Sim) String() string {
	return fmt.Sprintf("sim at %v (+%v), %d pending, %d processed", s.Now().UTC().Format(time.RFC3339Nano), s.now, len(s.heap), s.processed)
}

func less(a, b *Event) bool {
	if a.At != b.At {
		return a.At < b.At
	}
	return a.seq < b.seq
}

func (s *Sim) push(e Event) {
	s.heap = append(s.heap, e)
	h := s.heap
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !less(&h[i], &h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (s *Sim) pop() Event {
	h := s.heap
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h[n] = Event{}
	h = h[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && less(&h[r], &h[l]) {
			m = r
		}
		if !less(&h[m], &h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	s.heap = h
	return top
}
