package admission

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// drawConfig draws a valid configuration that closes windows often and lets
// both rules move the limit both ways.
func drawConfig(r *rand.Rand) Config {
	cfg := Config{
		Rule:              Rule(r.IntN(2)),
		Min:               []int{0, 1, 2, 5}[r.IntN(4)],
		Max:               []int{0, 8, 20, 100, 1000}[r.IntN(5)],
		Target:            []time.Duration{0, time.Millisecond, 20 * time.Millisecond, 100 * time.Millisecond}[r.IntN(4)],
		Window:            []time.Duration{0, 10 * time.Millisecond, 50 * time.Millisecond, time.Second}[r.IntN(4)],
		WindowSamples:     []int{0, 0, 1, 3, 20}[r.IntN(5)],
		Decrease:          []float64{0, 0.05, 0.3}[r.IntN(3)],
		Increase:          []float64{0, 0.01, 0.5, 2}[r.IntN(4)],
		Smoothing:         []float64{0, 0.2, 1}[r.IntN(3)],
		MinLatencyWindows: []int{0, 1, 3}[r.IntN(3)],
		DropRatio:         []float64{0, 0.01, 0.5, 1}[r.IntN(4)],
		RetryAfter:        []time.Duration{0, 3 * time.Second}[r.IntN(2)],
	}
	if cfg.Max != 0 && cfg.Min > cfg.Max {
		cfg.Min = cfg.Max
	}
	if r.IntN(3) == 0 {
		cfg.Share = [NumClasses]float64{1, 0.9, 0.5, 0.5}
	}
	if r.IntN(5) == 0 {
		cfg.Share = [NumClasses]float64{1, 1, 0.7, 0} // Sheddable closed for good
	}
	if r.IntN(3) == 0 {
		lo, hi := cfg.withDefaults().Min, cfg.withDefaults().Max
		cfg.Initial = lo + r.IntN(hi-lo+1)
	}
	return cfg
}

// TestMatchesMutexController is the differential property test of the
// lock-free Controller: driven from one goroutine by random call sequences,
// it must return exactly what refController, the mutex implementation it
// replaced (ref_test.go), returns — every Decision, Limit and InFlight, and
// every field of Stats, compared after every call.
func TestMatchesMutexController(t *testing.T) {
	seeds := uint64(600)
	if testing.Short() || raceEnabled {
		seeds = 100
	}
	var windows, decreases, increases, admitted, refused, unmatched uint64
	for seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 0xad3155))
		cfg := drawConfig(r)
		if err := cfg.Validate(); err != nil {
			t.Fatalf("seed %d: drew an invalid config: %v", seed, err)
		}
		got, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		want, err := newRef(cfg)
		if err != nil {
			t.Fatal(err)
		}
		window := cfg.withDefaults().Window
		now := t0
		switch seed % 40 {
		case 3:
			now = time.Time{} // the zero instant, as a simulator may start
		case 4:
			now = time.Unix(1<<40, 0) // far from any other instant
		}
		backwards := seed%4 == 0
		held := 0 // admitted and not yet done, to keep most Done calls matched
		for i := range 400 + r.IntN(1600) {
			switch p := r.Float64(); {
			case p < 0.45:
				now = now.Add(time.Duration(r.Int64N(int64(window/20) + 1)))
			case p < 0.5:
				// Exactly a window, or just short of it: windows start at the
				// call that closes the last one, so these land on the boundary.
				now = now.Add([]time.Duration{window, window - 1}[r.IntN(2)])
			case p < 0.75:
				// same instant
			case p < 0.95:
				now = now.Add(time.Duration(r.Int64N(int64(2*window) + 1)))
			case p < 0.98 && backwards:
				now = now.Add(-time.Duration(r.Int64N(int64(window) + 1)))
			case p < 0.995:
				now = now.Add(time.Duration(r.Int64N(int64(time.Hour))))
			default:
				now = now.AddDate(300*(r.IntN(3)-1), 0, 0) // beyond the clock's 285 years, either way
			}
			var what string
			switch op := r.IntN(100); {
			case op < 45:
				req := Request{
					Class:    Class(r.IntN(NumClasses + 2)), // beyond Sheddable too
					Slack:    []time.Duration{NoDeadline, time.Second, 200 * time.Millisecond, 0, -time.Millisecond}[r.IntN(5)],
					Expected: []time.Duration{0, 0, 100 * time.Millisecond, 500 * time.Millisecond}[r.IntN(4)],
				}
				what = fmt.Sprintf("Admit(%+v)", req)
				g, w := got.Admit(now, req), want.Admit(now, req)
				if g != w {
					t.Fatalf("seed %d call %d (%+v) at %v: %s = %+v; the mutex controller decides %+v", seed, i, cfg, now, what, g, w)
				}
				if g.Admitted {
					held++
					admitted++
				} else {
					refused++
				}
			case op < 88:
				if held == 0 && r.IntN(10) != 0 {
					continue
				}
				s := Sample{
					Class:      Class(r.IntN(NumClasses + 1)),
					QueueDelay: []time.Duration{0, time.Millisecond, 15 * time.Millisecond, 80 * time.Millisecond, time.Second}[r.IntN(5)],
					Latency:    time.Duration(r.Int64N(int64(400 * time.Millisecond))),
					Dropped:    r.IntN(30) == 0,
					Failed:     r.IntN(6) == 0, // slow or fast against the baseline
					Slack:      []time.Duration{0, 0, 100 * time.Millisecond, 600 * time.Millisecond}[r.IntN(4)],
				}
				switch r.IntN(50) {
				case 0:
					s.Latency = 0
				case 1:
					s.Latency = -time.Millisecond
				case 2:
					s.Latency = math.MaxInt64
				}
				what = fmt.Sprintf("Done(%+v)", s)
				got.Done(now, s)
				want.Done(now, s)
				if held > 0 {
					held--
				} else {
					unmatched++
				}
			case op < 92:
				n := r.IntN(30) - 3
				what = fmt.Sprintf("SetStatic(%d)", n)
				got.SetStatic(n)
				want.SetStatic(n)
			case op < 96:
				f := []float64{0, 0.25, 0.5, 1, 1.5, -1, math.NaN(), r.Float64()}[r.IntN(8)]
				what = fmt.Sprintf("SetScale(%v)", f)
				got.SetScale(f)
				want.SetScale(f)
			default:
				cl, open := Class(r.IntN(NumClasses+1)), r.IntN(2) == 0
				what = fmt.Sprintf("SetClassOpen(%v, %v)", cl, open)
				got.SetClassOpen(cl, open)
				want.SetClassOpen(cl, open)
			}
			if g, w := got.Stats(), want.Stats(); g != w {
				t.Fatalf("seed %d call %d (%+v) after %s at %v:\nStats = %+v\nthe mutex controller has %+v", seed, i, cfg, what, now, g, w)
			}
			if g, w := got.Limit(), want.Limit(); g != w {
				t.Fatalf("seed %d call %d: Limit = %d; the mutex controller has %d", seed, i, g, w)
			}
			if g, w := got.InFlight(), want.InFlight(); g != w {
				t.Fatalf("seed %d call %d: InFlight = %d; the mutex controller has %d", seed, i, g, w)
			}
		}
		st := got.Stats()
		windows += st.Windows
		decreases += st.Decreases
		increases += st.Increases
	}
	// The generator must exercise what it compares, or the test proves little.
	if windows < 1000 || decreases < 100 || increases < 100 || admitted < 1000 || refused < 1000 || unmatched == 0 {
		t.Fatalf("the generator is too tame: %d windows, %d decreases, %d increases, %d admitted, %d refused, %d unmatched",
			windows, decreases, increases, admitted, refused, unmatched)
	}
}

// TestConcurrentInvariants hammers one controller from several goroutines,
// each with its own clock (so instants arrive slightly out of order) and a
// few requests of its own in flight, while windows close under them and the
// rule moves the limit, and checks what must survive any interleaving: no
// admission takes a class past its ceiling or all classes past the limit as
// they stood when it was decided, in-flight returns to zero, no Done goes
// unmatched, and the decisions add up to the calls. Run with -race.
func TestConcurrentInvariants(t *testing.T) {
	for _, cfg := range []Config{
		{Max: 40, Window: 2 * time.Millisecond},
		{Max: 40, Rule: Gradient, WindowSamples: 25, Target: time.Millisecond},
		{Max: 8, Min: 2, Window: time.Millisecond, Share: [NumClasses]float64{1, 0.75, 0.5, 0.25}},
	} {
		c := mustNew(t, cfg)
		const workers, per = 4, 4000
		var wg sync.WaitGroup
		var calls, admits, dones atomic.Int64
		start := make(chan struct{})
		for g := range workers {
			wg.Go(func() {
				<-start
				r := rand.New(rand.NewPCG(uint64(g), 7))
				now := t0.Add(time.Duration(g) * time.Microsecond)
				var mine []Class // admitted, not yet done
				for i := range per {
					if i%5 == 0 {
						runtime.Gosched() // interleave even on one CPU
					}
					now = now.Add(time.Duration(r.IntN(50)) * time.Microsecond)
					if len(mine) > 0 && (len(mine) > 12 || r.IntN(3) == 0) {
						cl := mine[0]
						mine = mine[1:]
						c.Done(now, Sample{Class: cl, QueueDelay: time.Duration(r.IntN(3)) * time.Millisecond,
							Latency: time.Duration(1+r.IntN(5)) * time.Millisecond, Dropped: i%101 == 0})
						dones.Add(1)
						continue
					}
					cl := Class(r.IntN(NumClasses))
					calls.Add(1)
					if !c.Admit(now, Request{Class: cl}).Admitted {
						continue
					}
					admits.Add(1)
					mine = append(mine, cl)
					// The limit never falls below Min, so nothing may ever
					// hold more than Max slots.
					if n := c.InFlight(); n > cfg.withDefaults().Max {
						t.Errorf("%+v: %d in flight, over Max", cfg, n)
					}
				}
				for _, cl := range mine {
					c.Done(now, Sample{Class: cl, Latency: time.Millisecond})
					dones.Add(1)
				}
			})
		}
		close(start)
		wg.Wait()
		st := c.Stats()
		if st.InFlight != 0 || st.ByClass != [NumClasses]int{} || st.Unmatched != 0 {
			t.Errorf("%+v: after the run %+v; want nothing in flight and nothing unmatched", cfg, st)
		}
		if int64(st.Admitted()) != admits.Load() || int64(st.Admitted()) != dones.Load() ||
			int64(st.Admitted()+st.Rejected()) != calls.Load() {
			t.Errorf("%+v: %d admitted, %d rejected; the callers counted %d calls, %d admissions, %d releases",
				cfg, st.Admitted(), st.Rejected(), calls.Load(), admits.Load(), dones.Load())
		}
		if st.Windows == 0 || st.Rejected() == 0 {
			t.Errorf("%+v: %+v; the run should close windows and refuse some requests", cfg, st)
		}
		// Every sample was added wholly, to one stripe of one window: no
		// stripe is left with a Done inside it, and the stripes' counts of
		// samples added add up to the releases.
		var samples int64
		for w := range c.accs {
			for i := range c.accs[w] {
				a := &c.accs[w][i]
				if a.busy() {
					t.Errorf("%+v: window %d stripe %d: %d entered, %d samples added", cfg, w, i, a.entered.Load(), a.n.Load())
				}
				samples += a.n.Load()
			}
		}
		if samples != dones.Load() {
			t.Errorf("%+v: the stripes added %d samples; %d releases", cfg, samples, dones.Load())
		}
		if st.Adaptive < float64(cfg.withDefaults().Min) || st.Adaptive > float64(cfg.withDefaults().Max) {
			t.Errorf("%+v: adaptive limit %v outside [Min, Max]", cfg, st.Adaptive)
		}
	}
}

// TestConcurrentLimit has several goroutines each try to hold up to ten
// requests against a static limit of 20, so together they press past it, and
// checks at every admission that neither the requests held nor the
// controller's count exceed the limit, and at the end that the reserved
// capacity turned sheddable work away: the compare-and-swap claims a slot
// only while the sum of the classes' counts it replaces is below the limit
// and the class's ceiling.
func TestConcurrentLimit(t *testing.T) {
	const goroutines = 4
	c := mustNew(t, Config{Max: 1000})
	c.SetStatic(20) // ceilings 20, 19, 17, 12
	var holding atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for g := range goroutines {
		wg.Go(func() {
			<-start
			var mine []Class
			for i := range 20000 {
				if i%7 == 0 {
					runtime.Gosched() // interleave even on one CPU
				}
				now := t0.Add(time.Duration(i) * time.Microsecond)
				if len(mine) >= 10 || (len(mine) > 0 && i%4 == 0) {
					holding.Add(-1)
					c.Done(now, Sample{Class: mine[0]})
					mine = mine[1:]
					continue
				}
				cl := Continuation // half the goroutines press to the limit
				if g%2 == 1 {
					cl = Class(i % NumClasses)
				}
				if !c.Admit(now, Request{Class: cl}).Admitted {
					continue
				}
				mine = append(mine, cl)
				if n := holding.Add(1); n > 20 {
					t.Errorf("%d requests held over the static limit 20", n)
				}
				if n := c.InFlight(); n > 20 {
					t.Errorf("%d in flight over the static limit 20", n)
				}
			}
			for _, cl := range mine {
				holding.Add(-1)
				c.Done(t0, Sample{Class: cl})
			}
		})
	}
	close(start)
	wg.Wait()
	end := c.Stats()
	if end.InFlight != 0 || end.Decisions[Sheddable][ReasonReserved] == 0 || end.Decisions[Continuation][ReasonLimit] == 0 {
		t.Errorf("after the run: %+v; want nothing in flight, sheddable work refused for reserved capacity and continuations at the limit", end)
	}
}

// BenchmarkAgainstMutex puts one Admit and one Done of the lock-free
// Controller beside the mutex implementation it replaced (refController),
// from one goroutine and under b.RunParallel, in one run:
//
//	go test -run '^$' -bench AgainstMutex ./control/admission/
func BenchmarkAgainstMutex(b *testing.B) {
	type controller interface {
		Admit(time.Time, Request) Decision
		Done(time.Time, Sample)
	}
	for _, impl := range []struct {
		name string
		new  func() controller
	}{
		{"mutex", func() controller { c, _ := newRef(Config{}); return c }},
		{"lockfree", func() controller { return mustNew(b, Config{}) }},
	} {
		req := Request{Class: Standard, Slack: time.Second, Expected: 100 * time.Millisecond}
		sample := Sample{Class: Standard, QueueDelay: time.Millisecond, Latency: 50 * time.Millisecond}
		b.Run(impl.name+"/serial", func(b *testing.B) {
			c := impl.new()
			now := t0
			b.ReportAllocs()
			for b.Loop() {
				now = now.Add(time.Microsecond)
				if c.Admit(now, req).Admitted {
					c.Done(now, sample)
				}
			}
		})
		b.Run(impl.name+"/parallel", func(b *testing.B) {
			c := impl.new()
			var worker atomic.Int64
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				now := t0.Add(time.Duration(worker.Add(1)))
				for pb.Next() {
					now = now.Add(time.Microsecond)
					if c.Admit(now, req).Admitted {
						c.Done(now, sample)
					}
				}
			})
		})
	}
}

// race calls f(g, i) from four goroutines g, 5000 times i each, started at
// once and yielding every third call so that they interleave even on one CPU,
// and returns when all are done.
func race(f func(g, i int)) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for g := range 4 {
		wg.Go(func() {
			<-start
			for i := range 5000 {
				if i%3 == 0 {
					runtime.Gosched()
				}
				f(g, i)
			}
		})
	}
	close(start)
	wg.Wait()
}

// TestConcurrentUnmatchedDone races Done calls without an admission (which
// take their class's count below zero for a moment and undo it) against
// admissions and releases, and checks that no one ever sees a negative count
// and that the counts balance: every Done either released a slot or was
// counted unmatched, so InFlight = Admitted − (Dones − Unmatched).
func TestConcurrentUnmatchedDone(t *testing.T) {
	c := mustNew(t, Config{Max: 4})
	var dones atomic.Int64
	race(func(g, i int) {
		now := t0.Add(time.Duration(i) * time.Microsecond)
		if g%2 == 0 { // a caller that releases twice
			c.Done(now, Sample{Class: Standard})
			dones.Add(1)
			return
		}
		if c.Admit(now, Request{Class: Class(i % NumClasses)}).Admitted {
			if n := c.InFlight(); n < 0 || n > 4 {
				t.Errorf("in flight %d outside [0, 4]", n)
			}
			c.Done(now, Sample{Class: Class(i % NumClasses)})
			dones.Add(1)
		}
		if st := c.Stats(); st.InFlight < 0 || st.ByClass[Standard] < 0 {
			t.Errorf("negative count in %+v", st)
		}
	})
	st := c.Stats()
	if int64(st.InFlight) != int64(st.Admitted())-(dones.Load()-int64(st.Unmatched)) || st.Unmatched == 0 {
		t.Errorf("%+v: %d Dones do not balance %d admitted and %d unmatched", st, dones.Load(), st.Admitted(), st.Unmatched)
	}
	// ByClass adds up to InFlight (the counts are one word), and none is
	// below zero.
	sum := 0
	for cl, n := range st.ByClass {
		if n < 0 {
			t.Errorf("ByClass[%v] = %d", Class(cl), n)
		}
		sum += n
	}
	if sum != st.InFlight {
		t.Errorf("ByClass %v adds up to %d, InFlight is %d", st.ByClass, sum, st.InFlight)
	}
}

// TestUnmatchedDoneBesideAnotherClass races releases of Standard, which has
// nothing in flight, against the admissions and releases of Sheddable, the
// class whose count sits next to Standard's in the slots word: the
// unmatched releases must not touch Sheddable's count (a borrow from it
// would make a Sheddable release look unmatched and leak its slot).
func TestUnmatchedDoneBesideAnotherClass(t *testing.T) {
	c := mustNew(t, Config{Share: [NumClasses]float64{1, 1, 1, 1}})
	var stray atomic.Int64
	race(func(g, _ int) {
		if g%2 == 0 {
			c.Done(t0, Sample{Class: Standard})
			stray.Add(1)
			return
		}
		if c.Admit(t0, Request{Class: Sheddable}).Admitted {
			c.Done(t0, Sample{Class: Sheddable})
		}
	})
	if st := c.Stats(); st.InFlight != 0 || st.ByClass != [NumClasses]int{} || st.Unmatched != uint64(stray.Load()) {
		t.Errorf("%+v: want nothing in flight and each of the %d stray releases unmatched", st, stray.Load())
	}
}

// TestCloseWaitsForSampleInside checks the stripes' entry protocol at fixed
// instants: a stripe with a Done inside it (entered, its sample not yet
// wholly added) is busy, and the call that closes the window waits for that
// Done to leave before it drains the stripe, so the closed window counts the
// sample wholly: with the wait removed the close drains the stripe at once
// and the sample lands in a window already closed.
func TestCloseWaitsForSampleInside(t *testing.T) {
	c := mustNew(t, Config{Max: 100, Window: time.Second})
	c.Admit(t0, Request{Class: Standard})
	c.Done(t0, Sample{Class: Standard, Latency: time.Millisecond}) // starts the first window
	w := c.win.Load()
	a := &c.accs[w&1][0]
	if a.busy() {
		t.Fatal("an idle stripe is busy")
	}
	a.entered.Add(1) // a Done inside the stripe, before adding its sample
	if !a.busy() {
		t.Fatal("a stripe with a Done inside is not busy")
	}
	closed := make(chan struct{})
	go func() {
		c.tick(t0.Add(2 * time.Second)) // closes the window: must wait for the Done
		close(closed)
	}()
	for c.win.Load() == w {
		runtime.Gosched() // until the closer has moved the window on
	}
	for range 1000 {
		runtime.Gosched()
		select {
		case <-closed:
			t.Fatal("the window closed while a Done was inside one of its stripes")
		default:
		}
	}
	a.add(Sample{Class: Standard, Latency: 2 * time.Millisecond}, c.slow.Load(), c.cfg.Rule) // the Done leaves
	<-closed
	if a.busy() || a.samples() != 0 {
		t.Errorf("after the close: stripe busy %v, %d samples not drained", a.busy(), a.samples())
	}
	var n int64
	for i := range c.accs[w&1] {
		n += c.accs[w&1][i].drained.Load()
	}
	if n != 2 {
		t.Errorf("the closed window drained %d samples, want 2 (the Done's and the one inside)", n)
	}
	if st := c.Stats(); st.Windows != 1 {
		t.Errorf("%d windows evaluated, want 1", st.Windows)
	}
}
