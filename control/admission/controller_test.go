package admission

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 14, 14, 0, 0, 0, time.UTC)

func mustNew(t testing.TB, cfg Config) *Controller {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestAdmitTable steps one controller through a table of requests at fixed
// instants. With Max 20 and the default shares the class ceilings are
// continuation 20, lookup 19, standard 17, sheddable 12 while continuations
// and lookups are in demand, as the first steps make them.
func TestAdmitTable(t *testing.T) {
	c := mustNew(t, Config{Max: 20})
	type step struct {
		at           time.Duration
		n            int // how many identical requests
		req          Request
		done         bool // release n requests of req.Class instead of admitting
		want         Reason
		wantRetry    time.Duration
		wantInFlight int
	}
	sec := time.Second
	steps := []step{
		{at: 0, n: 1, req: Request{Class: Continuation}, want: ReasonAdmitted, wantInFlight: 1},
		{at: 0, n: 1, req: Request{Class: Lookup}, want: ReasonAdmitted, wantInFlight: 2},
		{at: 0, n: 1, req: Request{Class: Continuation}, done: true, wantInFlight: 1},
		{at: 0, n: 1, req: Request{Class: Lookup}, done: true, wantInFlight: 0},
		{at: 0, n: 12, req: Request{Class: Sheddable}, want: ReasonAdmitted, wantInFlight: 12},
		{at: 0, n: 1, req: Request{Class: Sheddable}, want: ReasonReserved, wantRetry: sec, wantInFlight: 12},
		{at: 0, n: 5, req: Request{Class: Standard}, want: ReasonAdmitted, wantInFlight: 17},
		// 3 slots are free, but they belong to lookups and continuations.
		{at: 0, n: 1, req: Request{Class: Standard}, want: ReasonReserved, wantRetry: sec, wantInFlight: 17},
		{at: 0, n: 2, req: Request{Class: Lookup}, want: ReasonAdmitted, wantInFlight: 19},
		{at: 0, n: 1, req: Request{Class: Lookup}, want: ReasonReserved, wantRetry: sec, wantInFlight: 19},
		{at: 0, n: 1, req: Request{Class: Continuation}, want: ReasonAdmitted, wantInFlight: 20},
		{at: 0, n: 1, req: Request{Class: Continuation}, want: ReasonLimit, wantRetry: sec, wantInFlight: 20},
		// A doomed request is refused for its deadline, without Retry-After,
		// whatever the load.
		{at: 0, n: 1, req: Request{Class: Continuation, Slack: 100 * time.Millisecond, Expected: 300 * time.Millisecond},
			want: ReasonDeadline, wantInFlight: 20},
		{at: 0, n: 1, req: Request{Class: Continuation, Slack: -time.Millisecond}, want: ReasonDeadline, wantInFlight: 20},
		{at: 10 * time.Millisecond, n: 8, req: Request{Class: Sheddable}, done: true, wantInFlight: 12},
		{at: 20 * time.Millisecond, n: 1, req: Request{Class: Sheddable}, want: ReasonReserved, wantRetry: sec, wantInFlight: 12},
		{at: 20 * time.Millisecond, n: 5, req: Request{Class: Standard, Slack: NoDeadline, Expected: time.Second},
			want: ReasonAdmitted, wantInFlight: 17},
		// Slack exactly equal to Expected is enough.
		{at: 30 * time.Millisecond, n: 1, req: Request{Class: Lookup, Slack: time.Second, Expected: time.Second},
			want: ReasonAdmitted, wantInFlight: 18},
		// Unknown classes are treated as Sheddable.
		{at: 30 * time.Millisecond, n: 1, req: Request{Class: 9}, want: ReasonReserved, wantRetry: sec, wantInFlight: 18},
	}
	for i, s := range steps {
		now := t0.Add(s.at)
		for range s.n {
			if s.done {
				c.Done(now, Sample{Class: s.req.Class})
				continue
			}
			d := c.Admit(now, s.req)
			if d.Reason != s.want || d.Admitted != (s.want == ReasonAdmitted) || d.RetryAfter != s.wantRetry {
				t.Fatalf("step %d: Admit(%+v) = %+v, want reason %v retry %v", i, s.req, d, s.want, s.wantRetry)
			}
		}
		if got := c.InFlight(); got != s.wantInFlight {
			t.Fatalf("step %d: InFlight = %d, want %d", i, got, s.wantInFlight)
		}
	}
	st := c.Stats()
	if got := st.Decisions[Sheddable][ReasonAdmitted]; got != 12 {
		t.Errorf("sheddable admitted = %d, want 12", got)
	}
	if got := st.Decisions[Sheddable][ReasonReserved]; got != 3 {
		t.Errorf("sheddable reserved = %d, want 3 (one of them an unknown class)", got)
	}
	if got := st.Decisions[Continuation][ReasonDeadline]; got != 2 {
		t.Errorf("continuation deadline = %d, want 2", got)
	}
	if got, want := st.Admitted(), uint64(2+12+5+2+1+5+1); got != want {
		t.Errorf("Admitted() = %d, want %d", got, want)
	}
	if got, want := st.Rejected(), uint64(1+1+1+1+2+1+1); got != want {
		t.Errorf("Rejected() = %d, want %d", got, want)
	}
	if st.ByClass != [NumClasses]int{1, 3, 10, 4} {
		t.Errorf("ByClass = %v, want [1 3 10 4]", st.ByClass)
	}
	if st.Ceiling != [NumClasses]int{20, 19, 17, 12} {
		t.Errorf("Ceiling = %v, want [20 19 17 12]", st.Ceiling)
	}
}

func TestContinuationAdmittedWithLimitFullOfStandard(t *testing.T) {
	c := mustNew(t, Config{Max: 100})
	// A continuation and a lookup asked a moment ago: their reserves are kept.
	for _, cl := range []Class{Continuation, Lookup} {
		if !c.Admit(t0, Request{Class: cl}).Admitted {
			t.Fatal("refused on an idle controller")
		}
		c.Done(t0, Sample{Class: cl})
	}
	n := 0
	for c.Admit(t0, Request{Class: Standard}).Admitted {
		n++
	}
	if n != 85 {
		t.Fatalf("standard filled %d slots, want 85 (its 85%% share of 100)", n)
	}
	if d := c.Admit(t0, Request{Class: Sheddable}); d.Reason != ReasonReserved {
		t.Errorf("sheddable: %+v, want reserved", d)
	}
	if d := c.Admit(t0, Request{Class: Continuation}); !d.Admitted {
		t.Fatalf("continuation refused with the limit full of standard work: %+v", d)
	}
	if d := c.Admit(t0, Request{Class: Lookup}); !d.Admitted {
		t.Fatalf("lookup refused with the limit full of standard work: %+v", d)
	}
	// Continuations may take every remaining slot, then the limit binds.
	for range 13 {
		if d := c.Admit(t0, Request{Class: Continuation}); !d.Admitted {
			t.Fatalf("continuation refused below the limit: %+v (in flight %d)", d, c.InFlight())
		}
	}
	if d := c.Admit(t0, Request{Class: Continuation}); d.Reason != ReasonLimit {
		t.Fatalf("continuation at the limit: %+v, want limit", d)
	}
}

// window drives one 1-second sample window: n requests are admitted at
// start and done 1 ms later with the given measurements; then a request
// refused for its deadline at start+1s closes the window without taking a
// slot, so the limit reflects this window.
func window(t *testing.T, c *Controller, start time.Time, n int, s Sample) {
	t.Helper()
	for range n {
		if d := c.Admit(start, Request{Class: s.Class}); !d.Admitted {
			t.Fatalf("at %v: refused %+v (limit %d, in flight %d)", start.Sub(t0), d, c.Limit(), c.InFlight())
		}
	}
	for range n {
		c.Done(start.Add(time.Millisecond), s)
	}
	if d := c.Admit(start.Add(time.Second), Request{Slack: -1}); d.Reason != ReasonDeadline {
		t.Fatalf("closing request: %+v", d)
	}
}

func TestAIMDFollowsQueueingDelay(t *testing.T) {
	c := mustNew(t, Config{Min: 10, Max: 100, Window: time.Second})
	slow := Sample{Class: Continuation, QueueDelay: 50 * time.Millisecond, Latency: 300 * time.Millisecond}
	fast := Sample{Class: Continuation, QueueDelay: 2 * time.Millisecond, Latency: 100 * time.Millisecond}

	// Ten windows with a mean queueing delay of 50 ms, above the 20 ms target:
	// the limit steps down 5 % per window.
	want := []int{95, 90, 85, 81, 77, 73, 69, 66, 63, 59}
	at := t0
	for w := range want {
		window(t, c, at, 40, slow)
		if got := c.Limit(); got != want[w] {
			t.Fatalf("congested window %d: limit %d, want %d", w, got, want[w])
		}
		at = at.Add(time.Second)
	}
	// Queueing delay below target, and each window fills three quarters of
	// the limit: the limit rises by one slot per window (1 % of 60–99 is
	// less than one) until Max.
	prev := c.Limit()
	for w := range 50 {
		window(t, c, at, prev*3/4, fast)
		got := c.Limit()
		if got <= prev && got != 100 {
			t.Fatalf("recovering window %d: limit %d did not rise from %d", w, got, prev)
		}
		prev = got
		at = at.Add(time.Second)
	}
	if prev != 100 {
		t.Fatalf("limit %d after recovery, want Max 100", prev)
	}
	st := c.Stats()
	if st.Decreases != 10 || st.Windows != 60 || st.Increases != 41 {
		t.Errorf("windows %d decreases %d increases %d, want 60, 10 and 41", st.Windows, st.Decreases, st.Increases)
	}

	// Windows that use less than half the limit give no evidence for more.
	c2 := mustNew(t, Config{Min: 10, Max: 100, Initial: 50})
	at = t0
	for range 5 {
		window(t, c2, at, 20, fast)
		at = at.Add(time.Second)
	}
	if got := c2.Limit(); got != 50 {
		t.Errorf("application-limited windows moved the limit to %d, want 50", got)
	}
}

func TestAIMDBounds(t *testing.T) {
	c := mustNew(t, Config{Min: 8, Max: 10})
	slow := Sample{Class: Continuation, QueueDelay: time.Second}
	at := t0
	for range 20 {
		window(t, c, at, 5, slow)
		at = at.Add(time.Second)
	}
	if got := c.Limit(); got != 8 {
		t.Errorf("limit %d after sustained congestion, want Min 8", got)
	}
}

func TestDropsAreCongestion(t *testing.T) {
	c := mustNew(t, Config{Max: 100})
	at := t0
	// 40 samples with no queueing delay, 1 of them dropped: 2.5 % > 1 %.
	for range 40 {
		c.Admit(at, Request{Class: Continuation})
	}
	for i := range 40 {
		c.Done(at, Sample{Class: Continuation, Dropped: i == 0})
	}
	c.Admit(at.Add(time.Second), Request{}) // closes the window
	if got := c.Limit(); got != 95 {
		t.Errorf("limit %d after a window with 2.5%% drops, want 95", got)
	}

	// DropRatio 1 ignores drops.
	c = mustNew(t, Config{Max: 100, DropRatio: 1})
	for range 40 {
		c.Admit(at, Request{Class: Continuation})
	}
	for range 40 {
		c.Done(at, Sample{Class: Continuation, Dropped: true})
	}
	c.Admit(at.Add(time.Second), Request{})
	if got := c.Limit(); got != 100 {
		t.Errorf("limit %d with drops ignored, want 100", got)
	}
}

func TestWindowSamples(t *testing.T) {
	c := mustNew(t, Config{Max: 100, WindowSamples: 10, Window: time.Hour})
	slow := Sample{Class: Continuation, QueueDelay: time.Second}
	for range 10 {
		c.Admit(t0, Request{})
	}
	for i := range 10 {
		if got := c.Limit(); got != 100 {
			t.Fatalf("limit moved to %d after %d samples", got, i)
		}
		c.Done(t0, slow)
	}
	if got := c.Limit(); got != 95 {
		t.Errorf("limit %d after a full 10-sample window at one instant, want 95", got)
	}
}

func TestEmptyWindowsAndBackwardsTime(t *testing.T) {
	c := mustNew(t, Config{Max: 100})
	c.Admit(t0, Request{})
	// An hour without samples evaluates nothing.
	c.Admit(t0.Add(time.Hour), Request{})
	if st := c.Stats(); st.Windows != 0 || st.Limit != 100 {
		t.Fatalf("empty windows evaluated: %+v", st)
	}
	// Time going backwards neither closes a window nor panics.
	c.Done(t0, Sample{QueueDelay: time.Second})
	c.Admit(t0.Add(-time.Hour), Request{})
	if st := c.Stats(); st.Windows != 0 {
		t.Fatalf("window closed by an earlier instant: %+v", st)
	}
	c.Admit(t0.Add(time.Hour+time.Second), Request{})
	if st := c.Stats(); st.Windows != 1 || st.Limit != 95 {
		t.Fatalf("after the window: %+v, want 1 window and limit 95", st)
	}
}

func TestGradientFollowsLatency(t *testing.T) {
	c := mustNew(t, Config{Rule: Gradient, Min: 5, Max: 200, Initial: 50, Target: 20 * time.Millisecond})
	fast := Sample{Class: Continuation, Latency: 10 * time.Millisecond}
	slow := Sample{Class: Continuation, Latency: 120 * time.Millisecond}
	at := t0
	step := func(s Sample) int {
		window(t, c, at, c.Limit()*3/4, s)
		at = at.Add(time.Second)
		return c.Limit()
	}
	// (10 + 20) / 10 = 3, clamped to 2: new = 50×2 + √50 ≈ 107; moving 20 %
	// of the way gives 61.4.
	if got := step(fast); got != 61 {
		t.Fatalf("after one fast window: limit %d, want 61", got)
	}
	prev := 61
	for range 5 {
		got := step(fast)
		if got <= prev {
			t.Fatalf("fast windows: limit %d did not rise from %d", got, prev)
		}
		prev = got
	}
	// Latency 120 ms against 10 + 20 ms: gradient 0.25, clamped to 0.5.
	for range 10 {
		got := step(slow)
		if got >= prev {
			t.Fatalf("slow windows: limit %d did not fall from %d", got, prev)
		}
		prev = got
	}
	low := prev
	for range 10 {
		got := step(fast)
		if got <= prev && got != 200 {
			t.Fatalf("recovering windows: limit %d did not rise from %d", got, prev)
		}
		prev = got
	}
	if prev <= 2*low {
		t.Fatalf("limit %d did not recover from %d", prev, low)
	}
}

func TestBaselineDecays(t *testing.T) {
	c := mustNew(t, Config{Rule: Gradient, Max: 1000, Initial: 100, MinLatencyWindows: 4})
	at := t0
	// A lower window minimum sets the baseline at once; a higher one moves
	// it a quarter of the way; failed and dropped samples do not count.
	for i, tc := range []struct {
		lat  time.Duration
		want time.Duration
	}{
		{10 * time.Millisecond, 10 * time.Millisecond},
		{50 * time.Millisecond, 20 * time.Millisecond},
		{50 * time.Millisecond, 27500 * time.Microsecond},
		{4 * time.Millisecond, 4 * time.Millisecond},
		{4 * time.Millisecond, 4 * time.Millisecond},
	} {
		for range 60 {
			c.Admit(at, Request{})
		}
		for range 40 {
			c.Done(at, Sample{Latency: tc.lat})
		}
		for range 10 {
			c.Done(at, Sample{Latency: time.Millisecond, Failed: true})
			c.Done(at, Sample{Latency: time.Millisecond, Dropped: true})
		}
		at = at.Add(time.Second)
		c.Admit(at, Request{Slack: -1})
		c.mu.Lock()
		got, slow := c.baseline, c.slow.Load()
		c.mu.Unlock()
		want := tc.want
		if got != want || slow != int64(want+20*time.Millisecond) {
			t.Errorf("window %d (%v): baseline %v, slow failures above %v; want %v and %v", i, tc.lat, got, time.Duration(slow), want, want+20*time.Millisecond)
		}
	}
}

func TestStaticScaleAndClosedClasses(t *testing.T) {
	c := mustNew(t, Config{Max: 100})
	steps := []struct {
		do        func()
		wantLimit int
	}{
		{func() {}, 100},
		{func() { c.SetScale(0.25) }, 25},
		{func() { c.SetScale(0.5) }, 50},
		{func() { c.SetStatic(30) }, 30}, // the override wins over the scale
		{func() { c.SetScale(1) }, 30},
		{func() { c.SetStatic(0) }, 100},
		{func() { c.SetScale(0) }, 1}, // never below one slot
		{func() { c.SetScale(-3) }, 1},
		{func() { c.SetScale(7) }, 100},
		{func() { c.SetScale(0.5); c.SetStatic(-4) }, 50},
	}
	for i, s := range steps {
		s.do()
		if got := c.Limit(); got != s.wantLimit {
			t.Errorf("step %d: limit %d, want %d", i, got, s.wantLimit)
		}
	}
	c.SetScale(1)
	c.SetClassOpen(Sheddable, false)
	if d := c.Admit(t0, Request{Class: Sheddable}); d.Reason != ReasonClassClosed || d.RetryAfter != time.Second {
		t.Errorf("closed class: %+v", d)
	}
	if d := c.Admit(t0, Request{Class: Standard}); !d.Admitted {
		t.Errorf("open class refused: %+v", d)
	}
	c.SetClassOpen(Sheddable, true)
	if d := c.Admit(t0, Request{Class: Sheddable}); !d.Admitted {
		t.Errorf("reopened class refused: %+v", d)
	}
	c.SetClassOpen(Class(200), false) // ignored
	// A static limit below the requests in flight refuses new work but keeps
	// the running requests.
	c.SetStatic(1)
	if d := c.Admit(t0, Request{Class: Continuation}); d.Reason != ReasonLimit {
		t.Errorf("over a lowered static limit: %+v", d)
	}
	if got := c.InFlight(); got != 2 {
		t.Errorf("in flight %d, want 2", got)
	}
}

func TestDoneWithoutAdmit(t *testing.T) {
	c := mustNew(t, Config{})
	c.Done(t0, Sample{})
	c.Done(t0, Sample{Class: 77})
	if st := c.Stats(); st.InFlight != 0 || st.Unmatched != 2 {
		t.Errorf("stats %+v, want nothing in flight and 2 unmatched", st)
	}
}

// TestDoneOfAnotherClass releases a class with nothing in flight while
// another class holds a slot: the release is unmatched and frees nothing.
func TestDoneOfAnotherClass(t *testing.T) {
	c := mustNew(t, Config{})
	if !c.Admit(t0, Request{Class: Standard}).Admitted {
		t.Fatal("refused on an idle controller")
	}
	c.Done(t0, Sample{Class: Sheddable})
	st := c.Stats()
	if st.InFlight != 1 || st.ByClass[Standard] != 1 || st.ByClass[Sheddable] != 0 || st.Unmatched != 1 {
		t.Errorf("after a Sheddable Done with one Standard in flight: %+v; want it in flight and 1 unmatched", st)
	}
}

// TestMaxLimit fills the largest limit with one class and checks that the
// counts, which share one word, do not spill into one another.
func TestMaxLimit(t *testing.T) {
	c := mustNew(t, Config{Max: MaxLimit})
	c.SetStatic(MaxLimit + 1000)
	if got := c.Limit(); got != MaxLimit {
		t.Fatalf("SetStatic(MaxLimit + 1000): limit %d, want %d", got, MaxLimit)
	}
	for i := range MaxLimit {
		if d := c.Admit(t0, Request{Class: Continuation}); !d.Admitted {
			t.Fatalf("continuation %d refused (%v) below the limit", i, d.Reason)
		}
	}
	if d := c.Admit(t0, Request{Class: Continuation}); d.Reason != ReasonLimit {
		t.Errorf("at the limit: %+v, want ReasonLimit", d)
	}
	st := c.Stats()
	if st.InFlight != MaxLimit || st.ByClass != [NumClasses]int{MaxLimit, 0, 0, 0} {
		t.Errorf("full: in flight %d by class %v, want %d continuations", st.InFlight, st.ByClass, MaxLimit)
	}
	for range MaxLimit {
		c.Done(t0, Sample{Class: Continuation})
	}
	c.Done(t0, Sample{Class: Continuation}) // one too many
	st = c.Stats()
	if st.InFlight != 0 || st.ByClass != [NumClasses]int{} || st.Unmatched != 1 {
		t.Errorf("emptied: %+v, want nothing in flight and 1 unmatched", st)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string // substring of the error; "" for valid
	}{
		{Config{}, ""},
		{Config{Rule: Gradient, Min: 3, Max: 3}, ""},
		{Config{Share: [NumClasses]float64{1, 1, 1, 1}}, ""},
		{Config{Share: [NumClasses]float64{1, 0.5, 0.5, 0}}, ""},
		{Config{Rule: 2}, "unknown Rule"},
		{Config{Min: -1}, "Min -1"},
		{Config{Min: 20, Max: 10}, "Max 10 is below Min 20"},
		{Config{Min: 2000}, "Max 1000 is below Min 2000"},
		{Config{Max: 10, Initial: 11}, "Initial 11"},
		{Config{Max: MaxLimit + 1}, "Max 32768 is above MaxLimit 32767"},
		{Config{Target: -time.Millisecond}, "Target"},
		{Config{Window: -time.Second}, "Window"},
		{Config{WindowSamples: -1}, "WindowSamples"},
		{Config{Decrease: 1}, "Decrease"},
		{Config{Increase: -0.1}, "Increase"},
		{Config{Smoothing: 1.5}, "Smoothing"},
		{Config{MinLatencyWindows: -2}, "MinLatencyWindows"},
		{Config{DropRatio: 2}, "DropRatio"},
		{Config{RetryAfter: -1}, "RetryAfter"},
		{Config{Share: [NumClasses]float64{1, 0.9, 0.95, 0.5}}, "Share[standard] 0.95 exceeds Share[lookup] 0.9"},
		{Config{Share: [NumClasses]float64{0, 0, 0, 0.5}}, "Share[sheddable] 0.5 exceeds Share[standard] 0"},
		{Config{Share: [NumClasses]float64{1.2, 1, 1, 1}}, "Share[continuation] 1.2 must be in [0, 1]"},
		{Config{Share: [NumClasses]float64{0, 0, 0, -1}}, "Share[sheddable] -1"},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate()
		if tt.want == "" {
			if err != nil {
				t.Errorf("Validate(%+v) = %v, want nil", tt.cfg, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "admission: ") {
			t.Errorf("Validate(%+v) = %v, want an error containing %q", tt.cfg, err, tt.want)
		}
		if _, nerr := New(tt.cfg); nerr == nil {
			t.Errorf("New(%+v) accepted an invalid config", tt.cfg)
		}
	}
}

func TestNamesAndErrors(t *testing.T) {
	for cl := range Class(NumClasses) {
		got, err := ParseClass(cl.String())
		if err != nil || got != cl {
			t.Errorf("ParseClass(%q) = %v, %v", cl.String(), got, err)
		}
	}
	if _, err := ParseClass("Standard"); err == nil {
		t.Error(`ParseClass("Standard") accepted a mis-cased name`)
	}
	if got := Class(9).String(); got != "Class(9)" {
		t.Errorf("Class(9) = %q", got)
	}
	wantErr := map[Reason]error{
		ReasonAdmitted: nil, ReasonLimit: ErrLimit, ReasonReserved: ErrReserved,
		ReasonDeadline: ErrDeadline, ReasonClassClosed: ErrClassClosed,
	}
	names := []string{"admitted", "limit", "reserved", "deadline", "class-closed"}
	for r := range Reason(NumReasons) {
		if r.String() != names[r] {
			t.Errorf("Reason %d = %q, want %q", r, r.String(), names[r])
		}
		if err := (Decision{Reason: r}).Err(); !errors.Is(err, wantErr[r]) || (err == nil) != (r == ReasonAdmitted) {
			t.Errorf("Decision{%v}.Err() = %v", r, err)
		}
	}
	if Reason(9).String() != "Reason(9)" || Reason(9).Err() == nil {
		t.Error("unknown reason")
	}
	if ErrLimit.Error() != "admission: limit reached" {
		t.Errorf("ErrLimit = %q", ErrLimit)
	}
	if AIMD.String() != "aimd" || Gradient.String() != "gradient" || Rule(5).String() != "Rule(5)" {
		t.Error("rule names")
	}
}

// TestPropertyInFlightBounded drives controllers with random operations on a
// seeded stream and checks after every step that an admission never takes
// InFlight above the effective limit or a class above its ceiling, that
// InFlight never goes negative, and that it equals admissions minus releases.
func TestPropertyInFlightBounded(t *testing.T) {
	for seed := range uint64(50) {
		r := rand.New(rand.NewPCG(seed, 4))
		cfg := Config{Min: 1 + r.IntN(5), Max: 10 + r.IntN(100), Rule: Rule(r.IntN(2)), Window: time.Duration(1+r.IntN(500)) * time.Millisecond}
		c := mustNew(t, cfg)
		now := t0
		var held [NumClasses]int
		var closed [NumClasses]bool
		var asked [NumClasses]time.Time // last Admit that asked for a slot
		model := 0
		for step := range 3000 {
			now = now.Add(time.Duration(r.IntN(5)) * time.Millisecond)
			switch op := r.IntN(100); {
			case op < 50:
				cl := Class(r.IntN(NumClasses))
				req := Request{Class: cl, Slack: time.Duration(r.IntN(1000)) * time.Millisecond, Expected: time.Duration(r.IntN(300)) * time.Millisecond}
				d := c.Admit(now, req)
				if d.Admitted && closed[cl] {
					t.Fatalf("seed %d step %d: admitted to closed class %v", seed, step, cl)
				}
				// Admit closes a due window before deciding, so the limit to
				// check against is the one after the call.
				after := c.Stats()
				if d.Reason != ReasonDeadline && d.Reason != ReasonClassClosed {
					asked[cl] = now // only the more valuable classes' records are read below
				}
				if d.Admitted {
					held[cl]++
					model++
					if after.InFlight > after.Limit {
						t.Fatalf("seed %d step %d: admitted %v to %d in flight over limit %d",
							seed, step, cl, after.InFlight, after.Limit)
					}
					// Beyond its ceiling a class only borrows the reserves of
					// classes without demand: the bands above the most
					// valuable class with demand (in flight, or asking
					// within ¾ of a window: the record is kept to a quarter).
					if after.InFlight > after.Ceiling[cl] {
						share := Config{}.withDefaults().Share
						for j := range cl {
							if held[j] > 0 || !asked[j].IsZero() && now.Sub(asked[j]) < cfg.Window*3/4 {
								if most := math.Floor((share[0]-share[j]+share[cl])*float64(after.Limit) + 1e-9); float64(after.InFlight) > most {
									t.Fatalf("seed %d step %d: admitted %v to %d in flight, over the %v it may borrow while %v has demand (%d in flight, asked %v ago)",
										seed, step, cl, after.InFlight, most, Class(j), held[j], now.Sub(asked[j]))
								}
								break
							}
						}
					}
				} else {
					// No spurious refusals: each reason matches the state.
					var ok bool
					switch d.Reason {
					case ReasonDeadline:
						ok = req.Slack < req.Expected
					case ReasonLimit:
						ok = after.InFlight >= after.Limit
					case ReasonReserved:
						ok = after.InFlight >= after.Ceiling[cl] && after.InFlight < after.Limit
					case ReasonClassClosed:
						ok = closed[cl]
					}
					if !ok {
						t.Fatalf("seed %d step %d: %v refused for %v with %d in flight, limit %d, ceiling %d",
							seed, step, req, d.Reason, after.InFlight, after.Limit, after.Ceiling[cl])
					}
				}
			case op < 95:
				cl := Class(r.IntN(NumClasses))
				if held[cl] == 0 {
					continue
				}
				held[cl]--
				model--
				c.Done(now, Sample{Class: cl, QueueDelay: time.Duration(r.IntN(60)) * time.Millisecond,
					Latency: time.Duration(r.IntN(500)) * time.Millisecond, Dropped: r.IntN(50) == 0})
			case op < 97:
				c.SetScale(r.Float64())
			case op < 99:
				c.SetStatic(r.IntN(20))
			default:
				cl, open := Class(r.IntN(NumClasses)), r.IntN(2) == 0
				c.SetClassOpen(cl, open)
				closed[cl] = !open
			}
			st := c.Stats()
			if st.InFlight < 0 || st.InFlight != model || st.ByClass != held {
				t.Fatalf("seed %d step %d: in flight %d by class %v, model %d %v", seed, step, st.InFlight, st.ByClass, model, held)
			}
			if st.Adaptive < float64(cfg.Min) || st.Adaptive > float64(cfg.Max) {
				t.Fatalf("seed %d step %d: adaptive %v outside [%d, %d]", seed, step, st.Adaptive, cfg.Min, cfg.Max)
			}
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	c := mustNew(t, Config{Max: 50, WindowSamples: 100})
	var wg sync.WaitGroup
	var mu sync.Mutex
	admitted := 0
	for g := range 4 {
		wg.Go(func() {
			now := t0
			n := 0
			for i := range 2000 {
				now = now.Add(time.Microsecond)
				cl := Class((g + i) % NumClasses)
				if c.Admit(now, Request{Class: cl}).Admitted {
					n++
					c.Done(now, Sample{Class: cl, QueueDelay: time.Duration(i%40) * time.Millisecond})
				}
			}
			mu.Lock()
			admitted += n
			mu.Unlock()
		})
	}
	wg.Wait()
	st := c.Stats()
	if st.InFlight != 0 || st.Unmatched != 0 || st.Admitted() != uint64(admitted) {
		t.Errorf("after concurrent use: %+v (admitted %d)", st, admitted)
	}
	if st.Admitted()+st.Rejected() != 8000 {
		t.Errorf("decisions %d, want 8000", st.Admitted()+st.Rejected())
	}
}

func TestAdmitDoneAllocations(t *testing.T) {
	c := mustNew(t, Config{WindowSamples: 3})
	now := t0
	allocs := testing.AllocsPerRun(1000, func() {
		now = now.Add(time.Millisecond)
		d := c.Admit(now, Request{Class: Standard, Slack: time.Second})
		if d.Admitted {
			c.Done(now, Sample{Class: Standard, QueueDelay: 30 * time.Millisecond})
		}
		_ = c.Stats()
	})
	if allocs != 0 {
		t.Errorf("Admit+Done+Stats: %v allocs, want 0", allocs)
	}
}

func FuzzParseClass(f *testing.F) {
	for _, s := range []string{"continuation", "lookup", "standard", "sheddable", "", "Standard", "sheddable\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cl, err := ParseClass(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "admission: unknown class") {
				t.Fatalf("error %q lacks the package prefix", err)
			}
			return
		}
		if cl >= NumClasses || cl.String() != s {
			t.Fatalf("ParseClass(%q) = %v", s, cl)
		}
	})
}

func BenchmarkAdmit(b *testing.B) {
	b.Run("serial", func(b *testing.B) {
		c := mustNew(b, Config{})
		now := t0
		b.ReportAllocs()
		for b.Loop() {
			now = now.Add(time.Microsecond)
			if c.Admit(now, Request{Class: Standard, Slack: time.Second, Expected: 100 * time.Millisecond}).Admitted {
				c.Done(now, Sample{Class: Standard, QueueDelay: time.Millisecond, Latency: 50 * time.Millisecond})
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		c := mustNew(b, Config{})
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			now := t0
			for pb.Next() {
				now = now.Add(time.Microsecond)
				if c.Admit(now, Request{Class: Standard, Slack: time.Second, Expected: 100 * time.Millisecond}).Admitted {
					c.Done(now, Sample{Class: Standard, QueueDelay: time.Millisecond, Latency: 50 * time.Millisecond})
				}
			}
		})
	})
	b.Run("refuse", func(b *testing.B) {
		c := mustNew(b, Config{})
		c.SetClassOpen(Sheddable, false)
		b.ReportAllocs()
		for b.Loop() {
			_ = c.Admit(t0, Request{Class: Sheddable})
		}
	})
}

// TestWindowsOnTheZeroInstant drives the windows from the zero time.Time, as
// a simulator might; UnixNano would overflow there.
func TestWindowsOnTheZeroInstant(t *testing.T) {
	var base time.Time
	c := mustNew(t, Config{Max: 100})
	for w := range 3 {
		at := base.Add(time.Duration(w) * time.Second)
		for range 60 {
			c.Admit(at, Request{})
		}
		for range 60 {
			c.Done(at, Sample{QueueDelay: time.Second})
		}
	}
	c.Admit(base.Add(3*time.Second), Request{Slack: -1})
	if st := c.Stats(); st.Windows != 3 || st.Limit != 85 {
		t.Errorf("stats %+v, want 3 windows and limit 85", st)
	}
}
