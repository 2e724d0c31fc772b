package control_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/breaker"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/deadline"
	"github.com/goodput-lab/goodput/control/internal/clocktest"
	"github.com/goodput-lab/goodput/control/queue"
)

// clock gives the instants of one run of a script that spans span: base+d,
// with the monotonic reading kept and the wall clock reading stepped, as an
// NTP step or an operator's date command leaves the instants time.Now
// returns: by nothing in the first third of the span, by steps[0] in the
// second and by steps[1] from then on (none when steps is empty).
type clock struct {
	t     *testing.T
	base  time.Time
	span  time.Duration
	steps []time.Duration
}

func (c *clock) at(d time.Duration) time.Time {
	u := c.base.Add(d)
	if len(c.steps) == 0 || d < c.span/3 {
		return u
	}
	step := c.steps[0]
	if d >= 2*c.span/3 {
		step = c.steps[1]
	}
	s, ok := clocktest.WallStep(u, step)
	if !ok {
		c.t.Skip("clocktest: time.Time layout not recognised")
	}
	return s
}

// TestWallClockSteps is the finding of issue 24 about wall-clock
// nanoseconds: each control runs one script at instants of time.Now's kind
// (with a monotonic reading), once as they are and again with the wall clock
// stepped twice in the middle of the script (−1 h then +1 h, the reverse, a
// day back then forward), and must decide exactly the same: durations are
// measured on the monotonic clock (time.Time.Sub), as x/time/rate measures
// them.
func TestWallClockSteps(t *testing.T) {
	base := time.Now()
	scripts := []struct {
		name string
		run  func(t *testing.T, c *clock) []string
		span time.Duration
	}{
		{"breaker", breakerScript, 4 * time.Second},
		{"budget", budgetScript, 21 * time.Second},
		{"admission", admissionScript, 10 * time.Second},
		{"queue", queueScript, 3 * time.Second},
		{"deadline", deadlineScript, 3 * time.Second},
	}
	for _, s := range scripts {
		t.Run(s.name, func(t *testing.T) {
			want := s.run(t, &clock{t: t, base: base, span: s.span})
			for _, steps := range [][]time.Duration{
				{-time.Hour, 0},
				{time.Hour, 0},
				{-time.Hour, time.Hour},
				{time.Hour, -time.Hour},
				{-24 * time.Hour, 0},
			} {
				got := s.run(t, &clock{t: t, base: base, span: s.span, steps: steps})
				if i := firstDiff(got, want); i >= 0 {
					t.Errorf("wall clock stepped by %v: decision %d is %q, want %q (as without steps)", steps, i, at(got, i), at(want, i))
				}
			}
		})
	}
}

func firstDiff(a, b []string) int {
	for i := range max(len(a), len(b)) {
		if at(a, i) != at(b, i) {
			return i
		}
	}
	return -1
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(none)"
}

// breakerScript trips the breaker with failures, watches it open, turn
// half-open and close again on probes.
func breakerScript(t *testing.T, c *clock) []string {
	b, err := breaker.New(breaker.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := range 400 {
		d := time.Duration(i) * 10 * time.Millisecond
		tk, err := b.Allow(c.at(d))
		if err == nil {
			o := breaker.Success
			if i < 100 && i%2 == 0 || i >= 100 && i < 200 {
				o = breaker.Failure // failing, then down
			}
			b.Record(c.at(d+5*time.Millisecond), tk, o)
		}
		out = append(out, fmt.Sprint(err, b.State(c.at(d+5*time.Millisecond)), b.Generation()))
	}
	return out
}

// budgetScript deposits first attempts and asks for retries across many
// buckets and slices.
func budgetScript(t *testing.T, c *clock) []string {
	b, err := budget.New(budget.Finagle())
	if err != nil {
		t.Fatal(err)
	}
	retry := budget.Retry{Failure: budget.Transient, Idempotent: true, Remaining: budget.NoDeadline}
	var out []string
	for i := range 3000 {
		d := time.Duration(i) * 7 * time.Millisecond
		b.Request(c.at(d), "")
		if i%3 == 0 {
			out = append(out, fmt.Sprint(b.Allow(c.at(d), retry).Reason))
		}
		if i%200 == 0 {
			out = append(out, fmt.Sprintf("%+v", b.Window(c.at(d))))
		}
	}
	return out
}

// admissionScript runs congested windows (queueing delay above Target) and
// watches the limit fall window by window.
func admissionScript(t *testing.T, c *clock) []string {
	a, err := admission.New(admission.Config{Max: 100, Window: time.Second, Target: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := range 1000 {
		d := time.Duration(i) * 10 * time.Millisecond
		dec := a.Admit(c.at(d), admission.Request{Class: admission.Standard, Slack: admission.NoDeadline})
		if dec.Admitted {
			a.Done(c.at(d+time.Millisecond), admission.Sample{Class: admission.Standard, QueueDelay: 50 * time.Millisecond, Latency: 60 * time.Millisecond})
		}
		out = append(out, fmt.Sprint(dec.Reason, a.Limit()))
	}
	if slices.Equal(out[:1], out[len(out)-1:]) {
		t.Fatalf("the limit never moved: %v", out[len(out)-1])
	}
	return out
}

// queueScript pushes items with deadlines and pops them slowly, so some wait
// past MaxAge or their deadline; it records every pop, drop and age.
func queueScript(t *testing.T, c *clock) []string {
	q, err := queue.New[int](queue.Config{MaxAge: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	drop := func(item int, r queue.Reason) { out = append(out, fmt.Sprint("drop ", item, r)) }
	for i := range 600 {
		d := time.Duration(i) * 5 * time.Millisecond
		if err := q.Push(c.at(d), i, c.at(d+time.Duration(i%7)*100*time.Millisecond)); err != nil {
			out = append(out, fmt.Sprint("push ", i, err))
		}
		age := q.OldestAge(c.at(d))
		if age < 0 {
			t.Fatalf("OldestAge %v is negative", age)
		}
		out = append(out, fmt.Sprint("age ", age))
		if i%2 == 0 {
			item, ok := q.Pop(c.at(d), drop)
			out = append(out, fmt.Sprint("pop ", item, ok))
		}
	}
	return out
}

// deadlineScript measures the time left before a deadline and the timeout
// of a call under it as time passes.
func deadlineScript(t *testing.T, c *clock) []string {
	dl := c.base.Add(2 * time.Second) // as the header or the context gave it, before the steps
	var out []string
	for i := range 30 {
		now := c.at(time.Duration(i) * 100 * time.Millisecond)
		to, err := deadline.CallTimeout(dl, now, 100*time.Millisecond, time.Second)
		out = append(out, fmt.Sprint(deadline.Remaining(dl, now), to, err))
	}
	return out
}
