package breaker

import (
	"context"
	"errors"
	"testing"
	"time"
)

// drive calls the dependency every 5 ms from start to end, each call's
// result arriving latency later, as outcome(at) of the instant the call was
// made says, and returns how many calls were refused.
func drive(b *Breaker, start, end time.Time, latency time.Duration, outcome func(time.Time) Call) (refused int) {
	type pending struct {
		done time.Time
		tk   Ticket
		c    Call
	}
	var inflight []pending
	for now := start; now.Before(end); now = now.Add(5 * time.Millisecond) {
		for len(inflight) > 0 && !inflight[0].done.After(now) {
			p := inflight[0]
			inflight = inflight[1:]
			b.Record(p.done, p.tk, b.Classify(p.c))
		}
		tk, err := b.Allow(now)
		if err != nil {
			refused++
			continue
		}
		inflight = append(inflight, pending{now.Add(latency), tk, outcome(now)})
	}
	for _, p := range inflight {
		b.Record(p.done, p.tk, b.Classify(p.c))
	}
	return refused
}

// every returns an outcome that is bad for one call in n (by call count) and
// a 200 otherwise.
func every(n int, bad Call) func(time.Time) Call {
	i := 0
	return func(time.Time) Call {
		i++
		if i%n == 0 {
			return bad
		}
		return Call{Status: 200}
	}
}

// TestOutcomes is the finding of issue 24: a dependency shedding 30% of its
// calls with 429 or Goodput-Overload: no-retry, or callers whose own short
// deadline ends 30% of the calls, must not open the breaker (it refused 180
// of 200 calls); 5xx and timeouts of the call's own ceiling must. The AI-2
// breaker (25% over 30 s) and the zero Config (50%) are both checked, at
// 30% and 60% of bad calls for 30 s at 200 calls/s.
func TestOutcomes(t *testing.T) {
	ownTimeout := Call{Err: context.DeadlineExceeded}
	callerDeadline := Call{Err: context.DeadlineExceeded, CallerDeadline: true}
	for _, tc := range []struct {
		name  string
		bad   Call
		opens bool
	}{
		{"429", Call{Status: 429, Overload: true}, false},
		{"429 unflagged", Call{Status: 429}, false},
		{"503 no-retry", Call{Status: 503, Overload: true}, false},
		{"caller's deadline", callerDeadline, false},
		{"caller cancelled", Call{Err: context.Canceled}, false},
		{"404", Call{Status: 404}, false},
		{"503", Call{Status: 503}, true},
		{"500", Call{Status: 500}, true},
		{"own ceiling", ownTimeout, true},
		{"connection reset", Call{Err: errors.New("read: connection reset by peer")}, true},
	} {
		for _, c := range []struct {
			name string
			cfg  Config
			n    int // one call in n is bad
		}{
			{"ai2 30%", Config{Window: 30 * time.Second, Threshold: 0.25}, 3},
			{"zero 60%", Config{}, 2},
		} {
			n := c.n
			if c.name == "zero 60%" {
				n = 0 // 3 of 5
			}
			b := mustNew(t, c.cfg)
			outcome := every(c.n, tc.bad)
			if n == 0 {
				i := 0
				outcome = func(time.Time) Call {
					if i++; i%5 < 3 {
						return tc.bad
					}
					return Call{Status: 200}
				}
			}
			refused := drive(b, t0, t0.Add(30*time.Second), 20*time.Millisecond, outcome)
			st := b.Stats()
			if opened := st.Generation > 1; opened != tc.opens {
				t.Errorf("%s, %s: opened %v (generation %d, %d of 6000 calls refused), want %v",
					tc.name, c.name, opened, st.Generation, refused, tc.opens)
			}
			if !tc.opens && refused != 0 {
				t.Errorf("%s, %s: %d calls refused, want none", tc.name, c.name, refused)
			}
		}
	}
}

// TestPromptRecovery is the other breaker finding of issue 24: after the
// dependency recovered, the breaker kept it idle for 7–8 s. A dependency that
// fails every call for 30 s and then recovers gets calls flowing again (the
// breaker closed, every call allowed) within 2 s of the fault's end plus a
// probe's latency, for faults of 10 s and of 30 s to 40 s in steps of 0.7 s
// (so the fault ends anywhere in an open period); meanwhile the failing
// dependency sees only a few probes a second.
func TestPromptRecovery(t *testing.T) {
	const latency = 20 * time.Millisecond
	faults := []time.Duration{10 * time.Second}
	for d := 30 * time.Second; d <= 40*time.Second; d += 700 * time.Millisecond {
		faults = append(faults, d)
	}
	for _, cfg := range []Config{{}, {Window: 30 * time.Second, Threshold: 0.25}} {
		for _, faultLen := range faults {
			b := mustNew(t, cfg)
			faultStart := t0.Add(5 * time.Second)
			faultEnd := faultStart.Add(faultLen)
			calls := 0 // during the fault, once the breaker has opened
			var opened time.Time
			outcome := func(at time.Time) Call {
				if !at.Before(faultStart) && at.Before(faultEnd) {
					if b.Generation() > 1 {
						calls++
						if opened.IsZero() {
							opened = at
						}
					}
					return Call{Err: context.DeadlineExceeded} // the call's own ceiling
				}
				return Call{Status: 200}
			}
			drive(b, t0, faultEnd, latency, outcome)
			// After the fault: find when calls flow again.
			now := faultEnd
			flowing := time.Time{}
			for ; now.Before(faultEnd.Add(10 * time.Second)); now = now.Add(5 * time.Millisecond) {
				drive(b, now, now.Add(5*time.Millisecond), latency, outcome)
				if b.State(now) == Closed {
					flowing = now
					break
				}
			}
			if flowing.IsZero() || flowing.Sub(faultEnd) > 2*time.Second+latency {
				t.Errorf("%+v, fault of %v: calls flow again %v after the fault's end, want at most %v",
					cfg.withDefaults(), faultLen, flowing.Sub(faultEnd), 2*time.Second+latency)
			}
			// Once open, the failing dependency sees the probes: 3 per open
			// period, 0.5 s at first and 2 s at most, where 200 calls/s would be
			// thousands.
			if opened.IsZero() {
				t.Errorf("%+v, fault of %v: no probe reached the dependency while the breaker was open", cfg.withDefaults(), faultLen)
			} else if open := faultEnd.Sub(opened); float64(calls) > 3*(4+open.Seconds()/2) {
				t.Errorf("%+v, fault of %v: the failing dependency got %d calls in the %v it was open", cfg.withDefaults(), faultLen, calls, open)
			}
		}
	}
}

// An Ignored probe is handed out again; a Success, Failure or Ignored of a
// stale ticket changes nothing; in closed state Ignored counts nothing.
func TestIgnored(t *testing.T) {
	b := mustNew(t, Config{MinVolume: 1, Threshold: 1, OpenFor: time.Second, HalfOpenProbes: 1})
	tk, _ := b.Allow(at(0))
	b.Record(at(0), tk, Ignored)
	if st := b.Stats(); st.Successes != 0 || st.Failures != 0 {
		t.Fatalf("Ignored counted: %+v", st)
	}
	tk, _ = b.Allow(at(0))
	b.Record(at(0), tk, Failure) // 1 of 1: opens
	if b.State(at(0)) != Open {
		t.Fatal("want open")
	}
	p, err := b.Allow(at(time.Second))
	if err != nil {
		t.Fatalf("probe: %v", err)
	}
	if _, err := b.Allow(at(time.Second)); !errors.Is(err, ErrProbeLimit) {
		t.Fatalf("second probe: %v, want ErrProbeLimit", err)
	}
	b.Record(at(time.Second), p, Ignored)
	p2, err := b.Allow(at(time.Second))
	if err != nil || p2.Generation() != p.Generation() {
		t.Fatalf("after an Ignored probe: %v (generation %d, want %d)", err, p2.Generation(), p.Generation())
	}
	b.Record(at(time.Second), p2, Success)
	if b.State(at(time.Second)) != Closed {
		t.Fatal("want closed after the probe's success")
	}
	if got := Outcome(9).String(); got != "Outcome(9)" {
		t.Errorf("Outcome(9) = %q", got)
	}
}

// A Config's classifier replaces DefaultClassify.
func TestClassifyConfig(t *testing.T) {
	b := mustNew(t, Config{Classify: func(c Call) Outcome {
		if c.Status == 404 {
			return Failure // this dependency's 404 means it lost its data
		}
		return DefaultClassify(c)
	}})
	if got := b.Classify(Call{Status: 404}); got != Failure {
		t.Errorf("404 = %v, want failure", got)
	}
	if got := b.Classify(Call{Status: 429}); got != Ignored {
		t.Errorf("429 = %v, want ignored", got)
	}
}
