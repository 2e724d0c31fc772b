package sim

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// recorder notes every event it receives.
type recorder struct {
	got []Event
}

func (r *recorder) Handle(s *Sim, e Event) {
	if e.At != s.Elapsed() {
		panic("clock not at event time")
	}
	r.got = append(r.got, e)
}

func TestOrderByTimeThenSeq(t *testing.T) {
	s := New(time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC))
	r := &recorder{}
	s.Schedule(30*time.Millisecond, r, 1, 1)
	s.Schedule(10*time.Millisecond, r, 1, 2)
	s.Schedule(30*time.Millisecond, r, 1, 3) // same instant as id 1: runs after it
	s.Schedule(0, r, 1, 4)
	s.Schedule(-time.Second, r, 1, 5) // the past counts as now
	s.Run(time.Second)
	var ids []int64
	for _, e := range r.got {
		ids = append(ids, e.ID)
	}
	if want := []int64{4, 5, 2, 1, 3}; !slices.Equal(ids, want) {
		t.Fatalf("order = %v, want %v", ids, want)
	}
	if s.Elapsed() != time.Second {
		t.Fatalf("clock = %v after Run(1s)", s.Elapsed())
	}
	if got, want := s.Now(), time.Date(2026, 3, 10, 14, 0, 1, 0, time.UTC); !got.Equal(want) {
		t.Fatalf("Now = %v, want %v", got, want)
	}
}

func TestRunStopsAtUntil(t *testing.T) {
	s := New(time.Time{})
	r := &recorder{}
	s.Schedule(time.Second, r, 0, 1)
	s.Schedule(2*time.Second, r, 0, 2)
	s.Run(time.Second) // an event exactly at until is delivered
	if len(r.got) != 1 || s.Pending() != 1 {
		t.Fatalf("delivered %d, pending %d; want 1, 1", len(r.got), s.Pending())
	}
	s.Run(3 * time.Second)
	if len(r.got) != 2 {
		t.Fatalf("delivered %d, want 2", len(r.got))
	}
}

func TestCancelIsLazy(t *testing.T) {
	s := New(time.Time{})
	r := &recorder{}
	a := s.Schedule(time.Millisecond, r, 0, 1)
	s.Schedule(2*time.Millisecond, r, 0, 2)
	s.Cancel(a)
	s.Cancel(a)         // twice is fine
	s.Cancel(Timer(99)) // unknown: no-op
	if s.Pending() != 2 {
		t.Fatalf("pending = %d, want 2 (cancellation is lazy)", s.Pending())
	}
	s.Run(time.Second)
	if len(r.got) != 1 || r.got[0].ID != 2 {
		t.Fatalf("got %v, want only id 2", r.got)
	}
	if s.Processed() != 1 {
		t.Fatalf("processed = %d, want 1", s.Processed())
	}
}

func TestHeapProperty(t *testing.T) {
	// Random schedules, including events scheduled from inside handlers, pop in (time, seq) order.
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 50; trial++ {
		s := New(time.Time{})
		var last Event
		var n int
		var h HandlerFunc
		h = func(s *Sim, e Event) {
			if n > 0 && (e.At < last.At || (e.At == last.At && e.seq < last.seq)) {
				t.Fatalf("event %+v after %+v", e, last)
			}
			last = e
			n++
			if rng.IntN(3) == 0 {
				s.Schedule(time.Duration(rng.IntN(5))*time.Millisecond, h, 0, 0)
			}
		}
		for i := 0; i < 500; i++ {
			s.Schedule(time.Duration(rng.IntN(100))*time.Millisecond, h, 0, int64(i))
		}
		s.Run(time.Hour)
		if s.Pending() != 0 {
			t.Fatalf("pending %d after run", s.Pending())
		}
	}
}

func TestStreamsAreReproducibleAndIndependent(t *testing.T) {
	a, b := NewStreams(7), NewStreams(7)
	x, y := a.Stream("arrivals"), b.Stream("arrivals")
	for i := 0; i < 100; i++ {
		if x.Uint64() != y.Uint64() {
			t.Fatal("same seed and name gave different draws")
		}
	}
	if a.Stream("arrivals").Uint64() == a.Stream("service").Uint64() {
		t.Fatal("different names gave the same first draw")
	}
	if NewStreams(8).Stream("arrivals").Uint64() == a.Stream("arrivals").Uint64() {
		t.Fatal("different seeds gave the same first draw")
	}
}

func TestOrderSurvivesRenumbering(t *testing.T) {
	// Scheduling order is 32 bits wide; when it runs out the pending events are renumbered
	// in their current order. Start just below the limit so that the wrap happens here.
	s := New(time.Time{})
	s.seq = math.MaxUint32 - 3
	r := &recorder{}
	// Now, a millisecond and three seconds ahead: the run, a wheel bucket and the overflow.
	for i := range 9 {
		s.Schedule([]time.Duration{0, time.Millisecond, 3 * time.Second}[i%3], r, 0, int64(i))
	}
	s.Run(time.Minute)
	var ids []int64
	for _, e := range r.got {
		ids = append(ids, e.ID)
	}
	if want := []int64{0, 3, 6, 1, 4, 7, 2, 5, 8}; !slices.Equal(ids, want) {
		t.Fatalf("order = %v, want %v", ids, want)
	}
}

func TestCancelAfterReuseIsNoop(t *testing.T) {
	// A Timer names one event: once it is delivered and its slot reused, cancelling the old
	// Timer does not touch the new event.
	s := New(time.Time{})
	r := &recorder{}
	old := s.Schedule(time.Millisecond, r, 0, 1)
	s.Run(time.Millisecond)
	s.Schedule(time.Millisecond, r, 0, 2) // reuses the slot
	s.Cancel(old)
	s.Run(time.Second)
	if len(r.got) != 2 || r.got[1].ID != 2 {
		t.Fatalf("got %v, want ids 1 and 2", r.got)
	}
}

func TestOrderMatchesSortedOrder(t *testing.T) {
	// Delays from nanoseconds to minutes, events scheduled from handlers and from outside
	// between Runs (after the queue has looked ahead for the next event): every event must
	// be delivered in exactly (time, scheduling order).
	delays := []time.Duration{0, time.Nanosecond, time.Microsecond, 900 * time.Microsecond,
		time.Millisecond, 3 * time.Millisecond, 400 * time.Millisecond, time.Second,
		1100 * time.Millisecond, 7 * time.Second, 3 * time.Minute, 10 * time.Hour}
	for trial := range 40 {
		rng := rand.New(rand.NewPCG(uint64(trial), 9))
		s := New(time.Time{})
		type want struct {
			at  time.Duration
			seq int
		}
		var scheduled []want
		var got []want
		var h HandlerFunc
		sched := func(d time.Duration) {
			s.Schedule(d, h, 0, int64(len(scheduled)))
			scheduled = append(scheduled, want{at: s.Elapsed() + d, seq: len(scheduled)})
		}
		pick := func() time.Duration {
			d := delays[rng.IntN(len(delays))]
			if rng.IntN(2) == 0 && d > 0 {
				d += time.Duration(rng.Int64N(int64(d)))
			}
			return d
		}
		h = func(s *Sim, e Event) {
			got = append(got, want{at: e.At, seq: int(e.ID)})
			if rng.IntN(4) != 0 && len(scheduled) < 3000 {
				sched(pick())
			}
		}
		for range 200 {
			sched(pick())
		}
		for until := time.Duration(0); s.Pending() > 0; until += time.Duration(rng.Int64N(int64(2 * time.Second))) {
			s.Run(until)
			if rng.IntN(3) == 0 && len(scheduled) < 4000 {
				sched(pick()) // from outside, at the clock Run left
			}
		}
		slices.SortStableFunc(scheduled, func(a, b want) int {
			switch {
			case a.at < b.at:
				return -1
			case a.at > b.at:
				return 1
			}
			return a.seq - b.seq
		})
		if !slices.Equal(got, scheduled) {
			t.Fatalf("trial %d: delivered %d of %d events; first difference (got, want): %v", trial, len(got), len(scheduled), firstDiff(got, scheduled))
		}
	}
}

func firstDiff[T comparable](a, b []T) []T {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return []T{a[i], b[i]}
		}
	}
	return nil
}

func TestOrderAtWheelBoundaries(t *testing.T) {
	// Times on either side of a bucket's edge, of the wheel's span and of the overflow,
	// scheduled in a scrambled order and again from handlers: delivery is (time, seq).
	const bucket = time.Duration(1) << bucketShift
	const span = bucket * wheelSize
	var base []time.Duration
	for _, edge := range []time.Duration{bucket, 2 * bucket, span - bucket, span, span + bucket, 2 * span, 3*span + 7*bucket} {
		base = append(base, edge-1, edge, edge+1)
	}
	s := New(time.Time{})
	type got struct {
		at time.Duration
		id int64
	}
	var out []got
	var want []got
	var h HandlerFunc
	h = func(s *Sim, e Event) {
		out = append(out, got{e.At, e.ID})
		if e.ID < 1000 { // each first-round event schedules one more, the same distance on
			d := base[(int(e.ID)*7)%len(base)]
			id := 1000 + e.ID
			s.Schedule(d, h, 0, id)
			want = append(want, got{e.At + d, id})
		}
	}
	for i, j := 0, 0; i < 3*len(base); i, j = i+1, (j+5)%len(base) {
		s.Schedule(base[j], h, 0, int64(i))
		want = append(want, got{base[j], int64(i)})
	}
	s.Run(10 * span)
	slices.SortStableFunc(want, func(a, b got) int { return cmp.Compare(a.at, b.at) })
	if !slices.Equal(out, want) {
		t.Fatalf("delivered %d of %d; first difference (got, want): %v", len(out), len(want), firstDiff(out, want))
	}
}

func TestRunStaysShortBeforeAFarEvent(t *testing.T) {
	// One event a day ahead while near events stream through in short Runs, scheduled from
	// outside after each stop and from handlers: the queue keeps no more than the events
	// pending, and delivers them in order.
	s := New(time.Time{})
	var last time.Duration
	n := 0
	var h HandlerFunc
	h = func(s *Sim, e Event) {
		if e.At < last {
			t.Fatalf("event at %v after one at %v", e.At, last)
		}
		last = e.At
		n++
		if e.ID > 0 {
			s.Schedule(300*time.Microsecond, h, 0, e.ID-1)
		}
	}
	s.Schedule(24*time.Hour, h, 0, 0)
	for until := time.Millisecond; until < 20*time.Second; until += time.Millisecond {
		s.Schedule(0, h, 0, 3) // now, and three more each 300 µs on
		s.Run(until)
		if s.q.n > 16 || cap(s.q.run) > 64 {
			t.Fatalf("at %v: %d pending, run holds %d (capacity %d)", until, s.q.n, len(s.q.run), cap(s.q.run))
		}
	}
	s.Run(25 * time.Hour)
	if want := 4*20000 - 4 + 1; n != want {
		t.Fatalf("delivered %d events, want %d", n, want)
	}
}
