package queue

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 14, 14, 4, 0, 0, time.UTC)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func mustNew[T any](t testing.TB, cfg Config) *Queue[T] {
	t.Helper()
	q, err := New[T](cfg)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

type dropped struct {
	item int
	r    Reason
}

// op is one step of a table test: a push (deadline 0 means none) or a pop.
type op struct {
	at       time.Duration
	pop      bool
	item     int
	deadline time.Duration // relative to t0; 0 means no deadline
	wantErr  error         // for pushes
	want     int           // for pops; -1 means the queue had nothing useful
	drops    []dropped     // for pops
	wantLen  int
}

func run(t *testing.T, q *Queue[int], ops []op) {
	t.Helper()
	for i, o := range ops {
		now := t0.Add(o.at)
		if !o.pop {
			var dl time.Time
			if o.deadline != 0 {
				dl = t0.Add(o.deadline)
			}
			if err := q.Push(now, o.item, dl); !errors.Is(err, o.wantErr) || (err == nil) != (o.wantErr == nil) {
				t.Fatalf("op %d: Push(%d) = %v, want %v", i, o.item, err, o.wantErr)
			}
		} else {
			var got []dropped
			item, ok := q.Pop(now, func(item int, r Reason) { got = append(got, dropped{item, r}) })
			if !ok {
				item = -1
			}
			if item != o.want {
				t.Fatalf("op %d at %v: Pop = %d, want %d", i, o.at, item, o.want)
			}
			if !slices.Equal(got, o.drops) {
				t.Fatalf("op %d at %v: dropped %v, want %v", i, o.at, got, o.drops)
			}
		}
		if got := q.Len(); got != o.wantLen {
			t.Fatalf("op %d: Len = %d, want %d", i, got, o.wantLen)
		}
	}
}

func TestZeroConfigIsFIFO(t *testing.T) {
	q := mustNew[int](t, Config{})
	run(t, q, []op{
		{at: 0, item: 1, wantLen: 1},
		{at: 0, item: 2, wantLen: 2},
		{at: ms(5), item: 3, wantLen: 3},
		{at: ms(10), pop: true, want: 1, wantLen: 2},
		// An hour later nothing without a deadline is dropped.
		{at: time.Hour, pop: true, want: 2, wantLen: 1},
		{at: time.Hour, pop: true, want: 3, wantLen: 0},
		{at: time.Hour, pop: true, want: -1, wantLen: 0},
		// With a deadline, only expiry drops.
		{at: time.Hour, item: 4, deadline: time.Hour + ms(1), wantLen: 1},
		{at: time.Hour, item: 5, deadline: time.Hour + ms(10), wantLen: 2},
		{at: time.Hour + ms(1), pop: true, want: 5, drops: []dropped{{4, ReasonExpired}}, wantLen: 0},
	})
}

func TestBoundsTable(t *testing.T) {
	q := mustNew[int](t, Config{Capacity: 3, MaxAge: ms(500), Expected: ms(100)})
	run(t, q, []op{
		{at: 0, item: 1, deadline: ms(1800), wantLen: 1},
		{at: 0, item: 2, deadline: ms(300), wantLen: 2},
		{at: ms(10), item: 3, wantLen: 3},
		{at: ms(10), item: 4, deadline: ms(1800), wantErr: ErrFull, wantLen: 3},
		// 60 ms of deadline left is less than the 100 ms of service needed.
		{at: ms(20), item: 5, deadline: ms(80), wantErr: ErrDeadline, wantLen: 3},
		{at: ms(20), item: 6, deadline: ms(20), wantErr: ErrDeadline, wantLen: 3},
		{at: ms(20), item: 7, deadline: ms(10), wantErr: ErrDeadline, wantLen: 3},
		{at: ms(50), pop: true, want: 1, wantLen: 2},
		// At 250 ms item 2 has 50 ms left: doomed for its deadline, not
		// expired. Item 3 is 240 ms old.
		{at: ms(250), pop: true, want: 3, drops: []dropped{{2, ReasonDeadline}}, wantLen: 0},
		{at: ms(300), item: 8, deadline: ms(1800), wantLen: 1},
		{at: ms(300), item: 9, wantLen: 2},
		// Exactly MaxAge old is still useful; older is not.
		{at: ms(800), pop: true, want: 8, wantLen: 1},
		{at: ms(801), pop: true, want: -1, drops: []dropped{{9, ReasonAge}}, wantLen: 0},
		// Exactly Expected left is enough.
		{at: ms(900), item: 10, deadline: ms(1000), wantLen: 1},
		{at: ms(900), pop: true, want: 10, wantLen: 0},
	})
	st := q.Stats()
	want := Stats{Pushed: 6, RejectedFull: 1, RejectedDeadline: 3, Popped: 4,
		Dropped: [NumReasons]uint64{ReasonDeadline: 1, ReasonAge: 1}, MaxLen: 3}
	if st != want {
		t.Errorf("Stats = %+v, want %+v", st, want)
	}
	if st.DroppedTotal() != 2 {
		t.Errorf("DroppedTotal = %d", st.DroppedTotal())
	}
}

func TestCoDel(t *testing.T) {
	for _, lifo := range []bool{false, true} {
		q := mustNew[int](t, Config{Target: ms(5), Interval: ms(100), AdaptiveLIFO: lifo})
		var standing []dropped
		for i := range 100 {
			if err := q.Push(t0, i, time.Time{}); err != nil {
				t.Fatal(err)
			}
			if i >= 3 {
				standing = append(standing, dropped{i, ReasonCoDel})
			}
		}
		ops := []op{
			// The first observation (oldest age 10 ms) opens an interval
			// ending at 110 ms; not congested yet.
			{at: ms(10), pop: true, want: 0, wantLen: 99},
			{at: ms(50), pop: true, want: 1, wantLen: 98},
			{at: ms(109), pop: true, want: 2, wantLen: 97},
			// The oldest item was older than 5 ms at every observation of the
			// interval: congested until 210 ms, and the standing queue, all
			// older than 10 ms, is sloughed.
			{at: ms(110), pop: true, want: -1, drops: standing, wantLen: 0},
			{at: ms(120), item: 100, wantLen: 1},
			{at: ms(125), item: 101, wantLen: 2},
			{at: ms(126), item: 102, wantLen: 3},
		}
		if lifo {
			// Congested: newest first.
			ops = append(ops,
				op{at: ms(127), pop: true, want: 102, wantLen: 2},
				op{at: ms(128), pop: true, want: 101, wantLen: 1},
				// Item 100 is 11 ms old, more than twice the target.
				op{at: ms(131), pop: true, want: -1, drops: []dropped{{100, ReasonCoDel}}, wantLen: 0},
			)
		} else {
			ops = append(ops,
				op{at: ms(127), pop: true, want: 100, wantLen: 2},
				op{at: ms(128), pop: true, want: 101, wantLen: 1},
				op{at: ms(137), pop: true, want: -1, drops: []dropped{{102, ReasonCoDel}}, wantLen: 0},
			)
		}
		ops = append(ops,
			// The last interval saw an empty queue: no longer congested.
			op{at: ms(300), item: 103, wantLen: 1},
			op{at: ms(300), item: 104, wantLen: 2},
			op{at: ms(310), pop: true, want: 103, wantLen: 1},
			op{at: ms(340), pop: true, want: 104, wantLen: 0},
		)
		run(t, q, ops)
		st := q.Stats()
		if st.Congested || st.Dropped[ReasonCoDel] != 98 {
			t.Errorf("lifo %v: stats %+v, want 98 codel drops and not congested", lifo, st)
		}
		if lifo && st.LIFO != 2 || !lifo && st.LIFO != 0 {
			t.Errorf("lifo %v: %d LIFO pops", lifo, st.LIFO)
		}
	}
}

func TestCoDelHoldsQueueAgeUnderOverload(t *testing.T) {
	// Two arrivals per millisecond, one service per millisecond: without
	// CoDel the oldest age grows without bound; with it, service stays
	// within a few targets of arrival.
	for _, tc := range []struct {
		cfg     Config
		maxWait time.Duration
	}{
		{Config{}, ms(1000)},
		{Config{Target: ms(5), Interval: ms(100)}, ms(11)},
		{Config{Target: ms(5), Interval: ms(100), AdaptiveLIFO: true}, ms(11)},
	} {
		q := mustNew[time.Time](t, tc.cfg)
		var worst time.Duration
		for i := range 2000 {
			now := t0.Add(ms(i))
			q.Push(now, now, time.Time{})
			q.Push(now, now, time.Time{})
			if enq, ok := q.Pop(now, nil); ok && i >= 300 {
				worst = max(worst, now.Sub(enq))
			}
		}
		if tc.cfg.Target == 0 && worst < tc.maxWait || tc.cfg.Target > 0 && worst > tc.maxWait {
			t.Errorf("%+v: worst wait after warm-up %v (bound %v)", tc.cfg, worst, tc.maxWait)
		}
		if got := q.OldestAge(t0.Add(ms(2000))); tc.cfg.Target > 0 && got > ms(120) {
			t.Errorf("%+v: oldest age %v", tc.cfg, got)
		}
	}
}

func TestOldestAgeSkipsDoomed(t *testing.T) {
	q := mustNew[int](t, Config{MaxAge: time.Second, Expected: ms(200)})
	q.Push(t0, 1, time.Time{})                  // too old after 1 s
	q.Push(t0.Add(ms(100)), 2, t0.Add(ms(700))) // doomed after 500 ms
	q.Push(t0.Add(ms(200)), 3, t0.Add(ms(2500)))
	q.Push(t0.Add(ms(300)), 4, time.Time{})
	for _, tt := range []struct {
		at   time.Duration
		want time.Duration
	}{
		{0, 0},
		{ms(400), ms(400)},
		{ms(1000), ms(1000)}, // item 1 is exactly MaxAge old: still useful
		{ms(1001), ms(801)},  // 1 is too old, 2 has < 200 ms left: 3 is the oldest useful
		{ms(1250), ms(950)},  // 3 is too old now: 4
		{ms(1301), 0},        // nothing useful
	} {
		if got := q.OldestAge(t0.Add(tt.at)); got != tt.want {
			t.Errorf("OldestAge at %v = %v, want %v", tt.at, got, tt.want)
		}
	}
	if q.Len() != 4 {
		t.Errorf("OldestAge changed the queue: Len %d", q.Len())
	}
}

func TestPeekShowsOldestAndKeepsIt(t *testing.T) {
	q := mustNew[int](t, Config{Capacity: 4})
	if _, ok := q.Peek(); ok {
		t.Fatal("Peek on an empty queue: ok")
	}
	for i, item := range []int{7, 8, 9, 10, 11} { // the fifth wraps the ring
		if i == 4 {
			if got, _ := q.Pop(t0, nil); got != 7 {
				t.Fatalf("Pop = %d, want 7", got)
			}
		}
		if err := q.Push(t0.Add(ms(i)), item, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []int{8, 9, 10, 11} {
		got, ok := q.Peek()
		if !ok || got != want || q.Len() != 12-want {
			t.Fatalf("Peek = %d, %v with %d queued; want %d, true with %d", got, ok, q.Len(), want, 12-want)
		}
		if popped, _ := q.Pop(t0.Add(ms(5)), nil); popped != got {
			t.Fatalf("Pop = %d after Peek = %d", popped, got)
		}
	}
}

func TestPrune(t *testing.T) {
	q := mustNew[int](t, Config{Expected: ms(100)})
	for i, dl := range []int{1000, 150, 2000, 120, 0, 3000, 110} {
		var d time.Time
		if dl > 0 {
			d = t0.Add(ms(dl))
		}
		if err := q.Push(t0, i, d); err != nil {
			t.Fatal(err)
		}
	}
	var got []dropped
	n := q.Prune(t0.Add(ms(60)), func(item int, r Reason) { got = append(got, dropped{item, r}) })
	want := []dropped{{1, ReasonDeadline}, {3, ReasonDeadline}, {6, ReasonDeadline}}
	if n != 3 || !slices.Equal(got, want) {
		t.Fatalf("Prune = %d %v, want 3 %v", n, got, want)
	}
	if q.Prune(t0.Add(ms(60)), nil) != 0 {
		t.Fatal("second Prune dropped more")
	}
	var order []int
	for {
		item, ok := q.Pop(t0.Add(ms(60)), nil)
		if !ok {
			break
		}
		order = append(order, item)
	}
	if !slices.Equal(order, []int{0, 2, 4, 5}) {
		t.Errorf("order after Prune %v, want [0 2 4 5]", order)
	}
	if st := q.Stats(); st.Dropped[ReasonDeadline] != 3 || st.Popped != 4 {
		t.Errorf("stats %+v", st)
	}
}

func TestSetExpected(t *testing.T) {
	q := mustNew[int](t, Config{})
	q.Push(t0, 1, t0.Add(ms(300)))
	q.SetExpected(ms(400))
	if err := q.Push(t0, 2, t0.Add(ms(300))); !errors.Is(err, ErrDeadline) {
		t.Errorf("Push after SetExpected: %v", err)
	}
	var r Reason
	if _, ok := q.Pop(t0, func(_ int, why Reason) { r = why }); ok || r != ReasonDeadline {
		t.Errorf("Pop after SetExpected: ok %v reason %v", ok, r)
	}
	q.SetExpected(-1)
	if err := q.Push(t0, 3, t0.Add(1)); err != nil {
		t.Errorf("Push with Expected reset: %v", err)
	}
}

func TestValidate(t *testing.T) {
	for _, tt := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, ""},
		{Config{Capacity: 10, MaxAge: time.Second, Target: ms(5), AdaptiveLIFO: true, Expected: ms(1)}, ""},
		{Config{Capacity: -1}, "Capacity"},
		{Config{MaxAge: -1}, "MaxAge"},
		{Config{Target: -1}, "Target"},
		{Config{Target: 1, Interval: -1}, "Interval"},
		{Config{Interval: ms(100)}, "Target is zero"},
		{Config{AdaptiveLIFO: true}, "AdaptiveLIFO needs Target"},
		{Config{Expected: -1}, "Expected"},
	} {
		err := tt.cfg.Validate()
		if tt.want == "" {
			if err != nil {
				t.Errorf("Validate(%+v) = %v", tt.cfg, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "queue: ") {
			t.Errorf("Validate(%+v) = %v, want %q", tt.cfg, err, tt.want)
		}
		if _, err := New[int](tt.cfg); err == nil {
			t.Errorf("New(%+v) accepted it", tt.cfg)
		}
	}
	if ErrFull.Error() != "queue: full" {
		t.Error(ErrFull)
	}
	for r, name := range []string{"expired", "deadline", "age", "codel"} {
		if Reason(r).String() != name {
			t.Errorf("Reason(%d) = %q", r, Reason(r))
		}
	}
	if Reason(7).String() != "Reason(7)" {
		t.Error(Reason(7).String())
	}
}

// randomConfig draws a configuration for the property tests: capacity below 2×capacity
// (zero, unbounded, a third of the time), and time bounds on the scale of span
// milliseconds — an age bound, CoDel with or without adaptive LIFO, and the service time
// expected after dequeue, each present or not.
func randomConfig(r *rand.Rand, capacity, span int) Config {
	cfg := Config{Capacity: r.IntN(3) * r.IntN(capacity)}
	if r.IntN(2) == 0 {
		cfg.MaxAge = ms(span/10 + r.IntN(span))
	}
	if r.IntN(2) == 0 {
		cfg.Target = ms(1 + r.IntN(span/25))
		cfg.Interval = ms(r.IntN(span * 2 / 5))
		cfg.AdaptiveLIFO = r.IntN(2) == 0
	}
	cfg.Expected = ms(r.IntN(3) * span / 25)
	return cfg
}

// TestPropertyConservation pushes and pops random items under random
// configurations and checks that every accepted item is popped exactly once,
// dropped exactly once, or still queued, and that with nothing to drop the
// queue is exactly FIFO.
func TestPropertyConservation(t *testing.T) {
	for seed := range uint64(100) {
		r := rand.New(rand.NewPCG(seed, 5))
		cfg := randomConfig(r, 50, 500)
		cfg.Unsynchronized = seed%2 == 1 // one goroutine here: the lock changes nothing
		plain := cfg.MaxAge == 0 && cfg.Target == 0
		q := mustNew[int](t, cfg)
		state := map[int]string{}
		var queued, popped, drops uint64
		var fifo []int // the model, for plain queues
		now := t0
		next := 0
		for step := range 2000 {
			now = now.Add(ms(r.IntN(4)))
			switch k := r.IntN(10); {
			case k < 6:
				id := next
				next++
				var dl time.Time
				if !plain && r.IntN(3) > 0 {
					dl = now.Add(ms(r.IntN(600)))
				}
				switch err := q.Push(now, id, dl); {
				case err == nil:
					state[id] = "queued"
					queued++
					fifo = append(fifo, id)
				case errors.Is(err, ErrFull), errors.Is(err, ErrDeadline):
				default:
					t.Fatalf("seed %d: Push: %v", seed, err)
				}
			case k < 9:
				item, ok := q.Pop(now, func(item int, _ Reason) {
					if state[item] != "queued" {
						t.Fatalf("seed %d step %d: dropped %d in state %q", seed, step, item, state[item])
					}
					state[item] = "dropped"
					queued--
					drops++
				})
				if ok {
					if state[item] != "queued" {
						t.Fatalf("seed %d step %d: popped %d in state %q", seed, step, item, state[item])
					}
					state[item] = "popped"
					queued--
					popped++
					if plain {
						if item != fifo[0] {
							t.Fatalf("seed %d: popped %d, FIFO says %d", seed, item, fifo[0])
						}
						fifo = fifo[1:]
					}
				}
			default:
				q.Prune(now, func(item int, _ Reason) {
					if state[item] != "queued" {
						t.Fatalf("seed %d step %d: pruned %d in state %q", seed, step, item, state[item])
					}
					state[item] = "dropped"
					queued--
					drops++
				})
			}
			st := q.Stats()
			if uint64(st.Len) != queued || st.Popped != popped || st.DroppedTotal() != drops || st.Pushed != queued+popped+drops {
				t.Fatalf("seed %d step %d: stats %+v; model queued %d popped %d dropped %d", seed, step, st, queued, popped, drops)
			}
			if cfg.Capacity > 0 && st.Len > cfg.Capacity {
				t.Fatalf("seed %d: Len %d over capacity %d", seed, st.Len, cfg.Capacity)
			}
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	q := mustNew[int](t, Config{Capacity: 64, Target: ms(1), AdaptiveLIFO: true})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var pushed, out int
	for g := range 4 {
		wg.Go(func() {
			p, o := 0, 0
			for i := range 3000 {
				now := t0.Add(time.Duration(i) * time.Microsecond * 100)
				if g%2 == 0 {
					if q.Push(now, i, now.Add(ms(5))) == nil {
						p++
					}
				} else {
					if _, ok := q.Pop(now, func(int, Reason) { o++ }); ok {
						o++
					}
				}
			}
			mu.Lock()
			pushed += p
			out += o
			mu.Unlock()
		})
	}
	wg.Wait()
	out += q.Prune(t0.Add(time.Hour), nil)
	if pushed != out || q.Len() != 0 {
		t.Errorf("pushed %d, out %d, left %d", pushed, out, q.Len())
	}
}

func TestSteadyStateAllocations(t *testing.T) {
	q := mustNew[int](t, Config{MaxAge: time.Second, Target: ms(5), AdaptiveLIFO: true, Expected: ms(1)})
	now := t0
	for i := range 100 { // grow the ring once
		q.Push(now, i, now.Add(time.Second))
	}
	allocs := testing.AllocsPerRun(1000, func() {
		now = now.Add(time.Millisecond)
		q.Push(now, 1, now.Add(time.Second))
		q.Pop(now, nil)
		_ = q.OldestAge(now)
		_ = q.Stats()
	})
	if allocs != 0 {
		t.Errorf("Push+Pop: %v allocs, want 0", allocs)
	}
}

func BenchmarkPushPop(b *testing.B) {
	b.Run("serial", func(b *testing.B) {
		q := mustNew[int](b, Config{Capacity: 1024, MaxAge: time.Second, Target: ms(5), Expected: ms(1)})
		now := t0
		b.ReportAllocs()
		for b.Loop() {
			now = now.Add(time.Microsecond)
			q.Push(now, 1, now.Add(time.Second))
			q.Pop(now, nil)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		q := mustNew[int](b, Config{Capacity: 1024, MaxAge: time.Second, Target: ms(5), Expected: ms(1)})
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			now := t0
			for pb.Next() {
				now = now.Add(time.Microsecond)
				q.Push(now, 1, now.Add(time.Second))
				q.Pop(now, nil)
			}
		})
	})
}

// TestInstantsFarFromToday runs a queue on the zero time.Time, as a
// simulator might, and across centuries, where UnixNano would overflow.
func TestInstantsFarFromToday(t *testing.T) {
	for _, base := range []time.Time{{}, time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2500, 1, 1, 0, 0, 0, 0, time.UTC)} {
		q := mustNew[int](t, Config{Expected: ms(100), MaxAge: time.Second})
		q.Push(base, 1, base.Add(ms(150)))
		q.Push(base.Add(ms(10)), 2, time.Time{})
		if got := q.OldestAge(base.Add(ms(40))); got != ms(40) {
			t.Errorf("%v: OldestAge = %v, want 40ms", base, got)
		}
		var r Reason
		item, ok := q.Pop(base.Add(ms(60)), func(_ int, why Reason) { r = why })
		if !ok || item != 2 || r != ReasonDeadline {
			t.Errorf("%v: Pop = %d %v, dropped for %v", base, item, ok, r)
		}
	}
	// An instant centuries after the first saturates instead of wrapping
	// around: the item is too old, not young.
	q := mustNew[int](t, Config{MaxAge: time.Hour})
	q.Push(t0, 1, time.Time{})
	if _, ok := q.Pop(t0.AddDate(400, 0, 0), nil); ok {
		t.Error("an item 400 years old was served")
	}
}

// TestBypassIsPushThenPop runs random operations on two queues of one random configuration;
// where one queue takes an item with Bypass, the other pushes it and pops it at once. Their
// answers, their drops and their Stats must stay identical throughout, and Bypass must
// refuse, changing nothing, while items are queued.
func TestBypassIsPushThenPop(t *testing.T) {
	bypassed := 0
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 11))
		cfg := randomConfig(r, 8, 100)
		cfg.Unsynchronized = r.IntN(2) == 0
		a, b := mustNew[int](t, cfg), mustNew[int](t, cfg)
		now := t0
		for step := range 500 {
			now = now.Add(ms(r.IntN(6)))
			var dl time.Time
			if r.IntN(2) == 0 {
				dl = now.Add(ms(r.IntN(60)))
			}
			switch k := r.IntN(10); {
			case k < 4: // an arrival that would go straight to a free worker
				errA := a.Bypass(now, dl)
				if b.Len() > 0 {
					if !errors.Is(errA, ErrNotEmpty) {
						t.Fatalf("seed %d step %d: Bypass with %d queued = %v, want ErrNotEmpty", seed, step, b.Len(), errA)
					}
					break
				}
				errB := b.Push(now, step, dl)
				if errB == nil {
					if item, ok := b.Pop(now, func(int, Reason) { t.Fatalf("seed %d step %d: the only item dropped", seed, step) }); !ok || item != step {
						t.Fatalf("seed %d step %d: Pop after Push = %d, %v", seed, step, item, ok)
					}
				}
				if errA != errB {
					t.Fatalf("seed %d step %d: Bypass = %v, Push = %v", seed, step, errA, errB)
				}
				if errA == nil {
					bypassed++
				}
			case k < 7:
				if errA, errB := a.Push(now, step, dl), b.Push(now, step, dl); errA != errB {
					t.Fatalf("seed %d step %d: Push = %v and %v", seed, step, errA, errB)
				}
			default:
				var dropsA, dropsB []dropped
				itemA, okA := a.Pop(now, func(item int, r Reason) { dropsA = append(dropsA, dropped{item, r}) })
				itemB, okB := b.Pop(now, func(item int, r Reason) { dropsB = append(dropsB, dropped{item, r}) })
				if itemA != itemB || okA != okB || !slices.Equal(dropsA, dropsB) {
					t.Fatalf("seed %d step %d: Pop = %d %v %v and %d %v %v", seed, step, itemA, okA, dropsA, itemB, okB, dropsB)
				}
			}
			if sa, sb := a.Stats(), b.Stats(); sa != sb {
				t.Fatalf("seed %d step %d: stats\n%+v\n%+v", seed, step, sa, sb)
			}
		}
	}
	if bypassed < 1000 {
		t.Fatalf("only %d items bypassed the queue: the test does not exercise Bypass", bypassed)
	}
}
