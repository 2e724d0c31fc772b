package sim

import (
	"cmp"
	"fmt"
	"math"
	"slices"
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
	seq  uint32 // order among events at the same instant (see Sim.renumber)
}

// Timer identifies a scheduled event so that it can be cancelled.
type Timer uint64

// Sim is the event loop and virtual clock of one experiment arm. It is not safe for concurrent
// use: run one Sim per goroutine.
//
// Pending events are ordered by time, then scheduling order, in a timing wheel whose buckets
// are threaded through a slab of payloads reused through a free list; see [Sim.Schedule].
type Sim struct {
	start     time.Time
	now       time.Duration
	wall      time.Time     // Now's result at wallAt, kept for the many calls of one event
	wallAt    time.Duration //
	seq       uint32        // scheduling order of the last event scheduled
	q         wheel
	slots     []slot
	free      uint32 // head of the free slots, threaded through slot.next; 0: none (slot i+1 is slots[i])
	processed uint64
}

// key orders the queue: at, then ord = seq<<32 | payload slot. seq is unique among pending
// events, so the slot never decides the order.
type key struct {
	at  time.Duration
	ord uint64
}

func (a key) less(b key) bool { return a.at < b.at || (a.at == b.at && a.ord < b.ord) }

// slot is a pending event's payload. gen tells a Timer for this event from one for an
// earlier event in the same slot. A free slot keeps its last handler until it is reused
// (handlers are long-lived components; not clearing it saves a pointer write per event).
type slot struct {
	h         Handler
	id        int64
	at        time.Duration // while in a wheel bucket: the key's time and seq
	kind      int32
	gen       uint32
	next      uint32 // free list or wheel bucket: the next slot + 1, or 0
	seq       uint32
	pending   bool
	cancelled bool
}

// New returns a Sim whose virtual clock reads start at elapsed time zero.
func New(start time.Time) *Sim {
	return &Sim{start: start, wall: start, slots: make([]slot, 0, 1024)}
}

// Start is the wall-clock instant that virtual time zero stands for.
func (s *Sim) Start() time.Time { return s.start }

// Elapsed is the current virtual time since the start.
func (s *Sim) Elapsed() time.Duration { return s.now }

// Now is the current virtual instant, for code that takes `now time.Time`.
func (s *Sim) Now() time.Time {
	if s.wallAt != s.now {
		s.setWall() // out of line, so that Now inlines
	}
	return s.wall
}

func (s *Sim) setWall() { s.wall, s.wallAt = s.start.Add(s.now), s.now }

// At converts a virtual time since the start to an instant.
func (s *Sim) At(d time.Duration) time.Time { return s.start.Add(d) }

// Processed is the number of events handled so far (cancelled events are not counted).
func (s *Sim) Processed() uint64 { return s.processed }

// Pending is the number of events in the queue, including lazily cancelled ones.
func (s *Sim) Pending() int { return s.q.len() }

// Schedule arranges for h to receive an event with kind and id after delay d (d < 0 counts as
// 0). It returns a [Timer] for [Sim.Cancel]. Scheduling allocates only when the number of
// pending events reaches a new high.
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
	if s.seq == math.MaxUint32 {
		s.renumber()
	}
	s.seq++
	var i uint32
	if s.free != 0 {
		i = s.free - 1
	} else {
		i = uint32(len(s.slots))
		s.slots = append(s.slots, slot{})
	}
	sl := &s.slots[i]
	s.free = sl.next
	sl.gen++
	sl.h, sl.id, sl.kind, sl.pending, sl.cancelled = h, id, kind, true, false
	s.q.push(key{at: at, ord: uint64(s.seq)<<32 | uint64(i)}, s.slots)
	return Timer(uint64(sl.gen)<<32 | uint64(i))
}

// Cancel stops a scheduled event from being delivered. Cancellation is lazy: the event stays in
// the queue and is discarded when its turn comes. Cancelling a delivered or unknown timer is
// a no-op.
func (s *Sim) Cancel(t Timer) {
	i, gen := uint32(t), uint32(t>>32)
	if int(i) < len(s.slots) {
		if sl := &s.slots[i]; sl.gen == gen && sl.pending {
			sl.cancelled = true
		}
	}
}

// Step delivers the next event if its time is at or before until, advancing the clock to it.
// It reports whether an event was delivered.
func (s *Sim) Step(until time.Duration) bool {
	for {
		k, ok := s.q.popUntil(until, s.slots)
		if !ok {
			return false
		}
		i := uint32(k.ord)
		sl := &s.slots[i]
		e := Event{At: k.at, Kind: sl.kind, ID: sl.id, H: sl.h, seq: uint32(k.ord >> 32)}
		cancelled := sl.cancelled
		sl.pending = false
		sl.next, s.free = s.free, i+1
		if cancelled {
			continue
		}
		s.now = e.At
		s.processed++
		e.H.Handle(s, e)
		return true
	}
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

// RunLimit is like [Sim.Run] but stops once n events have been delivered, and reports
// whether it got to until (false: it stopped at n, the clock at the last event delivered).
// Run is for the hot loop; RunLimit bounds a run whose events may not end (a fuzzer's).
func (s *Sim) RunLimit(until time.Duration, n uint64) bool {
	for stop := s.processed + n; s.processed < stop; {
		if !s.Step(until) {
			if until > s.now {
				s.now = until
			}
			return true
		}
	}
	return false
}

// String describes the clock for debugging.
func (s *Sim) String() string {
	return fmt.Sprintf("sim at %v (+%v), %d pending, %d processed", s.Now().UTC().Format(time.RFC3339Nano), s.now, s.q.len(), s.processed)
}

// renumber gives the pending events the sequence numbers 1, 2, … in their current order, so
// that scheduling order keeps fitting in 32 bits however long a run lasts. The relative
// order of every pair is unchanged, so the queue stays in order.
func (s *Sim) renumber() {
	ords := s.q.order[:0]
	s.q.each(s.slots, func(k *key) { ords = append(ords, key{ord: k.ord}) })
	slices.SortFunc(ords, func(a, b key) int { return cmp.Compare(a.ord, b.ord) })
	s.q.each(s.slots, func(k *key) {
		r, _ := slices.BinarySearchFunc(ords, k.ord, func(e key, t uint64) int { return cmp.Compare(e.ord, t) })
		k.ord = uint64(r+1)<<32 | k.ord&math.MaxUint32
	})
	s.seq = uint32(len(ords))
	s.q.order = ords[:0]
}
