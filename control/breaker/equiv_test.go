package breaker

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestMatchesMutexBreaker is the differential property test of the
// lock-free Breaker: driven from one goroutine by random call sequences, it
// must return exactly what refBreaker, the mutex implementation it replaced
// (ref_test.go), returns — every Ticket and error, State, Generation and
// every field of Stats, compared after every call.
func TestMatchesMutexBreaker(t *testing.T) {
	configs := []Config{
		{},
		ai2,
		{Window: 10 * time.Second, Buckets: 5, MinVolume: 5, Threshold: 0.5, OpenFor: 3 * time.Second, HalfOpenProbes: 2},
		{Window: time.Second, Buckets: 1, MinVolume: 1, Threshold: 1, OpenFor: time.Second, HalfOpenProbes: 1},
		{Window: 7 * time.Second, Buckets: 3, MinVolume: 3, Threshold: 0.1, OpenFor: 500 * time.Millisecond, HalfOpenProbes: 4},
		{Window: 1001 * time.Millisecond, Buckets: 7, MinVolume: 2, Threshold: 0.3, OpenFor: 50 * time.Millisecond, HalfOpenProbes: 3},
		{Window: 64, Buckets: 64, MinVolume: 4, Threshold: 0.2, OpenFor: 100, HalfOpenProbes: 2}, // 1 ns buckets
	}
	seeds := uint64(60)
	if testing.Short() || raceEnabled {
		seeds = 10
	}
	seen := map[State]int{}
	var stale, rejected, trips uint64
	for ci, cfg := range configs {
		for seed := range seeds {
			r := rand.New(rand.NewPCG(seed, 0xb4ea+uint64(ci)))
			got := mustNew(t, cfg)
			want, err := newRef(cfg)
			if err != nil {
				t.Fatal(err)
			}
			d := got.Config()
			step := d.Window / time.Duration(d.Buckets) // one bucket
			now := t0.Add(time.Duration(r.Int64N(int64(time.Hour))))
			if seed%10 == 3 {
				now = time.Time{}
			}
			backwards := seed%3 == 0
			errRate := []float64{0, 0.05, 0.3, 0.8}[r.IntN(4)]
			var pending []Ticket
			for i := range 1500 {
				switch p := r.Float64(); {
				case p < 0.45:
					now = now.Add(time.Duration(r.Int64N(int64(step/4) + 1)))
				case p < 0.5:
					// Exactly a bucket or OpenFor, and just short of it: the
					// instants where a slide or a timed transition is due.
					now = now.Add([]time.Duration{step, d.OpenFor, d.OpenFor - 1, step - 1}[r.IntN(4)])
				case p < 0.8:
					// same instant
				case p < 0.95:
					now = now.Add(time.Duration(r.Int64N(int64(2*step) + 1)))
				case p < 0.98:
					now = now.Add(time.Duration(r.Int64N(int64(d.Window+2*d.OpenFor) + 1)))
				case backwards:
					now = now.Add(-time.Duration(r.Int64N(int64(d.Window) + 1)))
				}
				if r.IntN(200) == 0 {
					errRate = []float64{0, 0.05, 0.3, 0.8}[r.IntN(4)]
				}
				var what string
				switch k := r.IntN(1000); {
				case k < 3:
					what = "ForceOpen"
					got.ForceOpen(now)
					want.ForceOpen(now)
				case k < 6:
					what = "ForceClosed"
					got.ForceClosed(now)
					want.ForceClosed(now)
				case k < 12:
					what = "Reset"
					got.Reset(now)
					want.Reset(now)
				case k < 60:
					what = "State"
					if g, w := got.State(now), want.State(now); g != w {
						t.Fatalf("cfg %d seed %d call %d at %v: State = %v; the mutex breaker says %v", ci, seed, i, now, g, w)
					}
				case k < 500 || len(pending) == 0:
					what = "Allow"
					gt, ge := got.Allow(now)
					wt, we := want.Allow(now)
					if gt != wt || ge != we {
						t.Fatalf("cfg %d seed %d call %d at %v: Allow = %v, %v; the mutex breaker returns %v, %v", ci, seed, i, now, gt, ge, wt, we)
					}
					if ge == nil {
						pending = append(pending, gt)
					}
				default:
					// Record a pending ticket, usually the oldest (a slow call
					// may come back generations later), sometimes a ticket of
					// no generation or of one yet to come.
					j := 0
					if r.IntN(4) == 0 {
						j = r.IntN(len(pending))
					}
					tk := pending[j]
					pending = append(pending[:j], pending[j+1:]...)
					switch r.IntN(100) {
					case 0:
						tk = Ticket{}
					case 1:
						tk = Ticket{gen: tk.gen + 1}
					}
					o := outcomeOf(r.Float64() >= errRate)
					if r.IntN(6) == 0 {
						o = Ignored
					}
					what = fmt.Sprintf("Record(%v, %v)", tk.gen, o)
					got.Record(now, tk, o)
					want.Record(now, tk, o)
				}
				gs, ws := got.Stats(), want.Stats()
				if gs != ws {
					t.Fatalf("cfg %d seed %d call %d after %s at %v:\nStats = %+v\nthe mutex breaker has %+v", ci, seed, i, what, now, gs, ws)
				}
				if g, w := got.Generation(), want.Generation(); g != w {
					t.Fatalf("cfg %d seed %d call %d: Generation = %d; the mutex breaker has %d", ci, seed, i, g, w)
				}
				seen[gs.State]++
			}
			st := got.Stats()
			stale += st.Stale
			rejected += st.Rejected
			trips += st.Generation
		}
	}
	for _, s := range []State{Closed, Open, HalfOpen} {
		if seen[s] < 1000 {
			t.Errorf("the generator rarely reached %v: %v", s, seen)
		}
	}
	if stale == 0 || rejected == 0 || trips < 1000 {
		t.Errorf("the generator is too tame: %d stale, %d rejected, %d generations", stale, rejected, trips)
	}
}

// TestConcurrentInvariants hammers one breaker from several goroutines, each
// with its own clock (so instants arrive slightly out of order), while the
// window slides under them and failures trip it, probes close it and
// overrides reset it, and checks what must survive any interleaving: every
// refused Allow is counted as rejected, every result is counted in its
// generation's window or as stale (when nothing trips, all of them in the
// window), the generation only grows, and the window never holds a
// negative count. Run with -race.
func TestConcurrentInvariants(t *testing.T) {
	t.Run("never trips", func(t *testing.T) {
		// Within one window nothing slides out and nothing trips: every
		// result must be in the window.
		b := mustNew(t, Config{Window: time.Hour, MinVolume: 1 << 30})
		const workers, per = 4, 5000
		var wg sync.WaitGroup
		var fails atomic.Int64
		start := make(chan struct{})
		for w := range workers {
			wg.Go(func() {
				<-start
				now := at(time.Duration(w) * time.Microsecond)
				for i := range per {
					if i%5 == 0 {
						runtime.Gosched()
					}
					now = now.Add(100 * time.Millisecond) // 500 s: the window slides over many buckets
					tk, err := b.Allow(now)
					if err != nil {
						t.Error(err)
						return
					}
					ok := (i+w)%4 != 0
					if !ok {
						fails.Add(1)
					}
					b.Record(now, tk, outcomeOf(ok))
				}
			})
		}
		close(start)
		wg.Wait()
		st := b.Stats()
		if st.Successes+st.Failures != workers*per || int64(st.Failures) != fails.Load() || st.Stale != 0 || st.Generation != 1 {
			t.Fatalf("%+v; want all %d results in the window, %d of them failures", st, workers*per, fails.Load())
		}
	})
	t.Run("late successes stay in their generation", func(t *testing.T) {
		// In each round the workers hold tickets of a closed generation
		// and record their successes just as the breaker is forced open:
		// each success must count in the generation that ended or as
		// stale, never in the open generation's window.
		b := mustNew(t, Config{Window: time.Hour})
		const workers, rounds = 3, 2000
		now := at(time.Second)
		var late, total uint64
		for range rounds {
			b.Reset(now)
			var tickets [workers]Ticket
			for w := range tickets {
				tk, err := b.Allow(now)
				if err != nil {
					t.Fatal(err)
				}
				tickets[w] = tk
			}
			before := b.Stats().Stale
			var wg sync.WaitGroup
			var ready sync.WaitGroup
			ready.Add(workers + 1)
			for w := range workers {
				wg.Go(func() {
					ready.Done()
					ready.Wait()
					b.Record(now, tickets[w], Success)
				})
			}
			ready.Done()
			ready.Wait()
			b.ForceOpen(now)
			wg.Wait()
			st := b.Stats()
			if st.State != Open || st.Successes != 0 || st.Failures != 0 {
				t.Fatalf("forced open: %+v; a late success counted in the open generation", st)
			}
			late += st.Stale - before
			total += workers
		}
		t.Logf("%d of %d successes raced past the transition and were ignored as stale", late, total)
	})
	t.Run("trips and recovers", func(t *testing.T) {
		b := mustNew(t, Config{Window: 100 * time.Millisecond, Buckets: 5, MinVolume: 10, Threshold: 0.3,
			OpenFor: 20 * time.Millisecond, HalfOpenProbes: 2})
		const workers, per = 4, 6000
		var wg sync.WaitGroup
		var allowed, refused, recorded atomic.Int64
		start := make(chan struct{})
		for w := range workers {
			wg.Go(func() {
				<-start
				r := rand.New(rand.NewPCG(uint64(w), 9))
				now := at(time.Duration(w) * time.Microsecond)
				var lastGen uint64
				var held *Ticket
				for i := range per {
					if i%5 == 0 {
						runtime.Gosched()
					}
					now = now.Add(time.Duration(r.IntN(200)) * time.Microsecond)
					if w == 0 && i%1500 == 1499 {
						b.Reset(now)
					}
					tk, err := b.Allow(now)
					if err != nil {
						refused.Add(1)
						continue
					}
					allowed.Add(1)
					if tk.Generation() < lastGen {
						t.Errorf("ticket of generation %d after one of %d", tk.Generation(), lastGen)
						return
					}
					lastGen = tk.Generation()
					// Errors come in bursts, so the breaker trips and probes.
					// Every other call is slow: its result comes back after
					// the next call's, possibly generations later.
					ok := (i/300)%3 != 0 || r.IntN(2) == 0
					if held == nil {
						held = &tk
						continue
					}
					b.Record(now, tk, outcomeOf(ok))
					b.Record(now, *held, outcomeOf(ok))
					held = nil
					recorded.Add(2)
					if i%53 == 0 {
						if st := b.Stats(); st.Successes < 0 || st.Failures < 0 || st.Probes > 2 || st.ProbeSuccesses > st.Probes {
							t.Errorf("stats %+v", st)
							return
						}
					}
				}
				if held != nil {
					b.Record(now, *held, Success)
					recorded.Add(1)
				}
			})
		}
		close(start)
		wg.Wait()
		st := b.Stats()
		if int64(st.Rejected) != refused.Load() || allowed.Load()+refused.Load() != workers*per {
			t.Errorf("%+v; the callers counted %d allowed and %d refused", st, allowed.Load(), refused.Load())
		}
		if st.Generation < 10 || st.Stale == 0 || st.Rejected == 0 {
			t.Errorf("%+v; the run should trip, probe and leave stale results", st)
		}
		if int64(st.Stale) > recorded.Load() {
			t.Errorf("%d stale of %d results recorded", st.Stale, recorded.Load())
		}
	})
}

// BenchmarkAgainstMutex puts one Allow and one Record of a success on a
// closed lock-free Breaker beside the mutex implementation it replaced
// (refBreaker), from one goroutine and under b.RunParallel, in one run:
//
//	go test -run '^$' -bench AgainstMutex ./control/breaker/
func BenchmarkAgainstMutex(b *testing.B) {
	type breaker interface {
		Allow(time.Time) (Ticket, error)
		Record(time.Time, Ticket, Outcome)
	}
	for _, impl := range []struct {
		name string
		new  func() breaker
	}{
		{"mutex", func() breaker { r, _ := newRef(ai2); return r }},
		{"lockfree", func() breaker { return mustNew(b, ai2) }},
	} {
		b.Run(impl.name+"/serial", func(b *testing.B) {
			br := impl.new()
			now := t0
			b.ReportAllocs()
			for b.Loop() {
				now = now.Add(time.Microsecond)
				t, err := br.Allow(now)
				if err != nil {
					b.Fatal(err)
				}
				br.Record(now, t, Success)
			}
		})
		b.Run(impl.name+"/parallel", func(b *testing.B) {
			br := impl.new()
			var worker atomic.Int64
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				now := t0.Add(time.Duration(worker.Add(1)))
				for pb.Next() {
					now = now.Add(time.Microsecond)
					t, err := br.Allow(now)
					if err != nil {
						b.Error(err)
						return
					}
					br.Record(now, t, Success)
				}
			})
		})
	}
}
