package breaker

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2025, 9, 12, 14, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

// ai2 is the breaker the scripts were written for: the payment-provider
// postmortem's AI-2 (25% over 30 s) with a fixed 10 s open period.
var ai2 = Config{Window: 30 * time.Second, Buckets: 10, MinVolume: 20, Threshold: 0.25,
	OpenFor: 10 * time.Second, MaxOpenFor: 10 * time.Second, HalfOpenProbes: 3}

// outcomeOf is Success for true, Failure for false.
func outcomeOf(ok bool) Outcome {
	if ok {
		return Success
	}
	return Failure
}

func mustNew(tb testing.TB, c Config) *Breaker {
	tb.Helper()
	b, err := New(c)
	if err != nil {
		tb.Fatalf("New(%+v): %v", c, err)
	}
	return b
}

// step is one row of a breaker script: at instant at, do op and expect the
// state (and, for allow, the error) that follows.
type step struct {
	at    time.Duration
	op    string // "allow", "ok", "fail" (allow then record), "okLate"/"failLate" (record the last ticket), "state", "forceOpen", "forceClosed", "reset"
	n     int    // repeat count (0 = 1)
	err   error  // expected from allow
	state State  // expected state after the op
	gen   uint64 // expected generation after the op (0 = don't check)
}

func run(t *testing.T, b *Breaker, steps []step) {
	t.Helper()
	var last Ticket
	for i, s := range steps {
		n := max(s.n, 1)
		now := at(s.at)
		for range n {
			switch s.op {
			case "allow":
				tk, err := b.Allow(now)
				if !errors.Is(err, s.err) {
					t.Fatalf("step %d (%s at %v): Allow error %v, want %v", i, s.op, s.at, err, s.err)
				}
				if err == nil {
					last = tk
				}
			case "ok", "fail":
				tk, err := b.Allow(now)
				if !errors.Is(err, s.err) {
					t.Fatalf("step %d (%s at %v): Allow error %v, want %v", i, s.op, s.at, err, s.err)
				}
				if err == nil {
					last = tk
					b.Record(now, tk, outcomeOf(s.op == "ok"))
				}
			case "okLate":
				b.Record(now, last, outcomeOf(true))
			case "failLate":
				b.Record(now, last, outcomeOf(false))
			case "state":
			case "forceOpen":
				b.ForceOpen(now)
			case "forceClosed":
				b.ForceClosed(now)
			case "reset":
				b.Reset(now)
			default:
				t.Fatalf("step %d: unknown op %q", i, s.op)
			}
		}
		if got := b.State(now); got != s.state {
			st := b.Stats()
			t.Fatalf("step %d (%s×%d at %v): state %v, want %v (stats %+v)", i, s.op, n, s.at, got, s.state, st)
		}
		if s.gen != 0 {
			if got := b.Generation(); got != s.gen {
				t.Fatalf("step %d (%s at %v): generation %d, want %d", i, s.op, s.at, got, s.gen)
			}
		}
	}
}

func TestBreakerScripts(t *testing.T) {
	s := time.Second
	tests := []struct {
		name  string
		cfg   Config
		steps []step
	}{
		{
			name: "below min volume never trips",
			cfg:  ai2,
			steps: []step{
				{at: 0, op: "fail", n: 19, state: Closed, gen: 1},
				{at: 1 * s, op: "ok", state: Closed, gen: 1},
				// 20 results, 19 failures: the next failure is the 21st
				// result with 20/21 ≥ 25%.
				{at: 2 * s, op: "fail", state: Open, gen: 2},
			},
		},
		{
			name: "exactly at threshold trips",
			cfg:  ai2,
			steps: []step{
				{at: 0, op: "ok", n: 15, state: Closed},
				{at: 1 * s, op: "fail", n: 4, state: Closed}, // 19 results
				// 20 results, 5 failures = 25%.
				{at: 2 * s, op: "fail", state: Open, gen: 2},
				{at: 2 * s, op: "allow", err: ErrOpen, state: Open},
			},
		},
		{
			name: "just below threshold stays closed",
			cfg:  ai2,
			steps: []step{
				{at: 0, op: "ok", n: 16, state: Closed},
				{at: 1 * s, op: "fail", n: 5, state: Closed, gen: 1}, // 5/21 = 23.8%
				{at: 2 * s, op: "ok", n: 100, state: Closed, gen: 1},
			},
		},
		{
			name: "old results slide out bucket by bucket",
			cfg:  ai2, // 10 buckets of 3 s
			steps: []step{
				// 10 failures in bucket 0 [0s,3s).
				{at: 0, op: "fail", n: 10, state: Closed},
				// 30 successes in bucket 9 [27s,30s): 10/40 = 25% would trip on the next failure...
				{at: 27 * s, op: "ok", n: 30, state: Closed},
				// ...but at 30 s bucket 0 has rolled out: 1/31 failures.
				{at: 30 * s, op: "fail", state: Closed, gen: 1},
			},
		},
		{
			name: "failures across a bucket boundary still add up",
			cfg:  ai2,
			steps: []step{
				{at: 0, op: "ok", n: 30, state: Closed},
				{at: 2*s + 999*time.Millisecond, op: "fail", n: 5, state: Closed},
				// A tumbling window would have reset here; the rolling one keeps
				// the 35 results: 10 failures of 40 = 25%.
				{at: 3 * s, op: "fail", n: 4, state: Closed},
				{at: 3 * s, op: "fail", state: Open, gen: 2},
			},
		},
		{
			name: "open, half-open, probes close",
			cfg:  ai2,
			steps: []step{
				{at: 0, op: "fail", n: 20, state: Open, gen: 2},
				{at: 9 * s, op: "allow", err: ErrOpen, state: Open, gen: 2},
				{at: 10 * s, op: "state", state: HalfOpen, gen: 3},
				{at: 10 * s, op: "ok", n: 2, state: HalfOpen, gen: 3},
				{at: 11 * s, op: "ok", state: Closed, gen: 4},
				// The window starts empty after closing.
				{at: 11 * s, op: "fail", n: 19, state: Closed, gen: 4},
				{at: 11 * s, op: "fail", state: Open, gen: 5},
			},
		},
		{
			name: "probe failure reopens",
			cfg:  ai2,
			steps: []step{
				{at: 0, op: "fail", n: 20, state: Open, gen: 2},
				{at: 10 * s, op: "ok", state: HalfOpen, gen: 3},
				{at: 10 * s, op: "fail", state: Open, gen: 4},
				{at: 19 * s, op: "allow", err: ErrOpen, state: Open},
				{at: 20 * s, op: "state", state: HalfOpen, gen: 5},
			},
		},
		{
			name: "probe limit, then abandoned probes are replaced after OpenFor",
			cfg:  ai2,
			steps: []step{
				{at: 0, op: "fail", n: 20, state: Open, gen: 2},
				{at: 10 * s, op: "allow", n: 3, state: HalfOpen, gen: 3},
				{at: 10 * s, op: "allow", err: ErrProbeLimit, state: HalfOpen},
				{at: 19 * s, op: "allow", err: ErrProbeLimit, state: HalfOpen, gen: 3},
				{at: 20 * s, op: "allow", state: HalfOpen, gen: 4},
				// The last ticket of generation 3 is stale now: ignored.
			},
		},
		{
			name: "min volume 1 and threshold 1",
			cfg:  Config{MinVolume: 1, Threshold: 1, Buckets: 1, Window: time.Second, OpenFor: time.Second, HalfOpenProbes: 1},
			steps: []step{
				{at: 0, op: "ok", state: Closed},
				{at: 0, op: "fail", state: Closed, gen: 1}, // 50%
				{at: 1 * s, op: "fail", state: Open, gen: 2},
				{at: 2 * s, op: "ok", state: Closed, gen: 4},
			},
		},
		{
			name: "force open ignores OpenFor until reset",
			cfg:  ai2,
			steps: []step{
				{at: 0, op: "forceOpen", state: Open, gen: 2},
				{at: time.Hour, op: "allow", err: ErrOpen, state: Open, gen: 2},
				{at: time.Hour, op: "reset", state: Closed, gen: 3},
				{at: time.Hour, op: "ok", state: Closed, gen: 3},
			},
		},
		{
			name: "force closed never trips",
			cfg:  ai2,
			steps: []step{
				{at: 0, op: "forceClosed", state: Closed, gen: 2},
				{at: 0, op: "fail", n: 100, state: Closed, gen: 2},
				{at: s, op: "reset", state: Closed, gen: 3},
				{at: s, op: "fail", n: 20, state: Open, gen: 4},
			},
		},
		{
			name: "time running backwards is clamped",
			cfg:  ai2,
			steps: []step{
				{at: 10 * s, op: "fail", n: 20, state: Open, gen: 2},
				// 20 s is 10 s after opening; 5 s is taken as 10 s.
				{at: 5 * s, op: "allow", err: ErrOpen, state: Open},
				{at: 20 * s, op: "state", state: HalfOpen, gen: 3},
				{at: 15 * s, op: "state", state: HalfOpen, gen: 3},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run(t, mustNew(t, tc.cfg), tc.steps)
		})
	}
}

func TestStaleGenerationIgnored(t *testing.T) {
	b := mustNew(t, ai2)
	// A slow call is granted in generation 1.
	slow, err := b.Allow(at(0))
	if err != nil {
		t.Fatal(err)
	}
	// Twenty fast failures open the breaker (generation 2).
	for range 20 {
		tk, _ := b.Allow(at(time.Second))
		b.Record(at(time.Second), tk, outcomeOf(false))
	}
	if b.State(at(time.Second)) != Open {
		t.Fatal("want open")
	}
	// OpenFor later it is half-open (generation 3); one probe succeeds.
	p, err := b.Allow(at(11 * time.Second))
	if err != nil || p.Generation() != 3 {
		t.Fatalf("probe: %v gen %d", err, p.Generation())
	}
	b.Record(at(11*time.Second), p, outcomeOf(true))
	// The slow call of generation 1 now fails: it must not reopen the breaker.
	b.Record(at(12*time.Second), slow, outcomeOf(false))
	st := b.Stats()
	if st.State != HalfOpen || st.Generation != 3 || st.ProbeSuccesses != 1 || st.Stale != 1 {
		t.Fatalf("stats %+v: want HalfOpen gen 3, 1 probe success, 1 stale", st)
	}
	// Nor may a success from generation 1 count as a probe.
	b.Record(at(12*time.Second), slow, outcomeOf(true))
	b.Record(at(12*time.Second), Ticket{}, outcomeOf(true))
	st = b.Stats()
	if st.ProbeSuccesses != 1 || st.Stale != 3 {
		t.Fatalf("stats %+v: want 1 probe success, 3 stale", st)
	}
}

func TestStats(t *testing.T) {
	b := mustNew(t, ai2)
	for range 3 {
		tk, _ := b.Allow(at(0))
		b.Record(at(0), tk, outcomeOf(true))
	}
	tk, _ := b.Allow(at(time.Second))
	b.Record(at(time.Second), tk, outcomeOf(false))
	want := Stats{At: at(time.Second), State: Closed, Generation: 1, Successes: 3, Failures: 1}
	if got := b.Stats(); got != want {
		t.Fatalf("Stats() = %+v, want %+v", got, want)
	}
	// All four results are in the first bucket [0s,3s), which rolls out of
	// the 30 s window at 30 s.
	b.State(at(31 * time.Second))
	if got := b.Stats(); got.Successes != 0 || got.Failures != 0 {
		t.Fatalf("after the window: %+v", got)
	}
	b.ForceOpen(at(32 * time.Second))
	b.Allow(at(33 * time.Second))
	got := b.Stats()
	if !got.Forced || got.Rejected != 1 || got.State != Open || got.Generation != 2 || !got.At.Equal(at(33*time.Second)) {
		t.Fatalf("forced: %+v", got)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string // substring of the error; "" for valid
	}{
		{Config{}, ""},
		{ai2, ""},
		{Config{Window: time.Second, Buckets: 1000}, ""},
		{Config{Window: -time.Second}, "Window"},
		{Config{Buckets: -1}, "Buckets"},
		{Config{Buckets: maxBuckets + 1}, "Buckets"},
		{Config{Window: 5, Buckets: 10}, "shorter than 10 buckets"},
		{Config{MinVolume: -1}, "MinVolume"},
		{Config{Threshold: -0.1}, "Threshold"},
		{Config{Threshold: 1.5}, "Threshold"},
		{Config{OpenFor: -1}, "OpenFor"},
		{Config{MaxOpenFor: -1}, "MaxOpenFor"},
		{Config{OpenFor: time.Second, MaxOpenFor: time.Second - 1}, "shorter than OpenFor"},
		{Config{MaxOpenFor: 100 * time.Millisecond}, "shorter than OpenFor"},
		{Config{HalfOpenProbes: -2}, "HalfOpenProbes"},
	}
	for _, tc := range tests {
		err := tc.cfg.Validate()
		if tc.want == "" {
			if err != nil {
				t.Errorf("Validate(%+v) = %v, want nil", tc.cfg, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "breaker: ") {
			t.Errorf("Validate(%+v) = %v, want an error about %s", tc.cfg, err, tc.want)
		}
		if _, nerr := New(tc.cfg); nerr == nil {
			t.Errorf("New(%+v) accepted an invalid config", tc.cfg)
		}
	}
}

// The zero Config is the generic breaker the package documents, with
// DefaultClassify.
func TestZeroConfigDefaults(t *testing.T) {
	got := mustNew(t, Config{}).Config()
	if got.Window != 10*time.Second || got.Buckets != 10 || got.MinVolume != 20 || got.Threshold != 0.5 ||
		got.OpenFor != 500*time.Millisecond || got.MaxOpenFor != 2*time.Second || got.HalfOpenProbes != 3 || got.Classify == nil {
		t.Fatalf("Config{} with defaults = %+v", got)
	}
	// MaxOpenFor follows an explicit OpenFor.
	if got := mustNew(t, Config{OpenFor: 3 * time.Second}).Config(); got.MaxOpenFor != 12*time.Second {
		t.Errorf("OpenFor 3s: MaxOpenFor %v, want 12s", got.MaxOpenFor)
	}
	if got := mustNew(t, Config{OpenFor: time.Duration(1) << 62}).Config(); got.MaxOpenFor != time.Duration(1<<63-1) {
		t.Errorf("OpenFor 2^62ns: MaxOpenFor %v, want the largest duration", got.MaxOpenFor)
	}
}

func TestStateString(t *testing.T) {
	for s, want := range map[State]string{Closed: "Closed", Open: "Open", HalfOpen: "HalfOpen", 7: "State(7)"} {
		if got := s.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", s, got, want)
		}
	}
	if ErrOpen.Error() != "breaker: open" {
		t.Errorf("ErrOpen = %q", ErrOpen)
	}
}

// TestConcurrent checks, under -race, that concurrent callers keep the counts
// consistent: every granted ticket's result is counted or reported stale.
func TestConcurrent(t *testing.T) {
	b := mustNew(t, Config{MinVolume: 1 << 30}) // never trips
	const workers, per = 4, 1000
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				now := at(time.Duration(i) * time.Millisecond)
				tk, err := b.Allow(now)
				if err != nil {
					t.Error(err)
					return
				}
				b.Record(now, tk, outcomeOf((i+w)%4 != 0))
			}
		}()
	}
	wg.Wait()
	st := b.Stats()
	if got := st.Successes + st.Failures; got != workers*per {
		t.Fatalf("counted %d results, want %d (%+v)", got, workers*per, st)
	}
	if st.Failures != workers*per/4 {
		t.Fatalf("failures %d, want %d", st.Failures, workers*per/4)
	}
}
