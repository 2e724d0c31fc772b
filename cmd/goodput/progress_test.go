package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestProgress drives the progress bar with a fake clock into a buffer: nothing is drawn
// before the delay, progress never goes backwards, arms may report concurrently, and the
// bar says the time left.
func TestProgress(t *testing.T) {
	var nilBar *progress
	nilBar.update(time.Second, time.Minute) // a nil bar is a no-op
	nilBar.finish()

	var mu sync.Mutex
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	advance := func(d time.Duration) { mu.Lock(); clock = clock.Add(d); mu.Unlock() }

	var buf syncBuffer
	p := newProgress(&buf, now, time.Second)
	p.update(10*time.Second, 40*time.Minute)
	if buf.Len() != 0 {
		t.Fatalf("drawn before the delay: %q", buf.String())
	}
	advance(2 * time.Second)
	var wg sync.WaitGroup
	for arm := range 2 {
		wg.Go(func() {
			for s := range 100 {
				p.update(time.Duration(s*10+arm)*time.Second, 40*time.Minute)
			}
		})
	}
	wg.Wait()
	if p.done != 991*time.Second {
		t.Errorf("progress = %v, want the furthest point reported (16m31s)", p.done)
	}
	p.update(5*time.Second, 40*time.Minute) // an arm behind the other: no step back
	if p.done != 991*time.Second {
		t.Errorf("progress went back to %v", p.done)
	}
	p.finish()
	if !strings.Contains(buf.String(), "replaying, ") || !strings.Contains(buf.String(), " left") {
		t.Errorf("no bar with the time left drawn after the delay: %q", buf.String())
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) Len() int       { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Len() }
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// TestEstimate drives the estimate of the time left with a fake clock through the uneven
// pace of a real replay — a slow start, a steady stretch, a stall, a burst, a slow phase
// and a fast one — and checks that no estimate is 10× (indeed more than estimateMaxStep)
// the one before or after it and that it ends within seconds of the truth. A naive
// estimate (the pace since the last report) on the same reports jumps by far more: the
// sequence is a hard one.
func TestEstimate(t *testing.T) {
	type step struct {
		wall, sim time.Duration // this much wall time passes, this much simulated time is done
		n         int           // in n reports
	}
	const total = 40 * time.Minute
	for _, tt := range []struct {
		name    string
		settles bool // reports come often enough near the end for the estimate to reach it
		steps   []step
	}{
		{"even", true, []step{{20 * time.Second, 20 * time.Minute, 200}, {20 * time.Second, 20 * time.Minute, 200}}},
		{"stall then burst", true, []step{
			{2 * time.Second, 10 * time.Second, 20},                // a slow start: building the arms
			{8 * time.Second, 8 * time.Minute, 80},                 // steady, 1 simulated minute per wall second
			{20 * time.Second, time.Second, 1},                     // a stall: a long tick (the incident)
			{0, 6 * time.Minute, 60},                               // a burst: reports at once
			{10 * time.Second, 3 * time.Minute, 100},               // a slow phase
			{5 * time.Second, 23*time.Minute - 11*time.Second, 50}, // fast to the end
		}},
		{"reports far apart", false, []step{{time.Second, time.Minute, 1}, {30 * time.Second, 10 * time.Second, 1}, {time.Millisecond, 30 * time.Minute, 1}, {time.Minute, 9*time.Minute - 10*time.Second, 1}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var e estimate
			clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			var done time.Duration
			var lefts, naive []time.Duration
			var last struct {
				at   time.Time
				done time.Duration
			}
			e.update(clock, done, total)
			last.at, last.done = clock, done
			for _, s := range tt.steps {
				for i := range s.n {
					clock = clock.Add(s.wall / time.Duration(s.n))
					done += s.sim / time.Duration(s.n)
					if i == s.n-1 { // the step's remainder
						clock = clock.Add(s.wall % time.Duration(s.n))
						done += s.sim % time.Duration(s.n)
					}
					if left, ok := e.update(clock, done, total); ok {
						lefts = append(lefts, left)
					}
					if dt := clock.Sub(last.at); dt > 0 && done > last.done {
						naive = append(naive, time.Duration(float64(dt)*float64(total-done)/float64(done-last.done)))
						last.at, last.done = clock, done
					}
				}
			}
			if done != total {
				t.Fatalf("the steps do %v of %v", done, total)
			}
			if len(lefts) < 2 {
				t.Fatalf("%d estimates", len(lefts))
			}
			for i := 1; i < len(lefts); i++ {
				a, b := float64(lefts[i-1]), float64(lefts[i])
				if r := max(a/b, b/a); r > estimateMaxStep*(1+1e-9) || r >= 10 {
					t.Errorf("estimate %d: %v after %v, a factor of %.1f", i, lefts[i], lefts[i-1], r)
				}
			}
			if got := lefts[len(lefts)-1]; tt.settles && got > 5*time.Second {
				t.Errorf("at the end the estimate is %v left", got)
			}
			if tt.name == "stall then burst" && jump(naive) < 10 {
				t.Errorf("the naive estimate jumps only %.1f×: the sequence does not test the smoothing", jump(naive))
			}
		})
	}
}

// jump is the largest factor between consecutive durations.
func jump(ds []time.Duration) float64 {
	worst := 1.0
	for i := 1; i < len(ds); i++ {
		a, b := float64(max(ds[i-1], time.Millisecond)), float64(max(ds[i], time.Millisecond))
		worst = max(worst, a/b, b/a)
	}
	return worst
}

// While the pace holds, the estimate counts down with the wall clock and is the time the
// run has left.
func TestEstimateSteady(t *testing.T) {
	var e estimate
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const total = 40 * time.Minute
	e.update(clock, 0, total)
	if _, ok := e.update(clock.Add(estimateWarmUp/2), time.Minute/2, total); ok {
		t.Error("an estimate before the warm-up")
	}
	for s := 1; s <= 30; s++ { // one simulated minute per wall second
		left, ok := e.update(clock.Add(time.Duration(s)*time.Second), time.Duration(s)*time.Minute, total)
		if want := time.Duration(40-s) * time.Second; !ok || left != want {
			t.Errorf("after %d s: %v left (%v), want %v", s, left, ok, want)
		}
	}
	if got := leftText(8*time.Minute + 25*time.Second + 400*time.Millisecond); got != "8m25s" {
		t.Errorf("leftText = %q", got)
	}
	if got := leftText(300 * time.Millisecond); got != "<1s" {
		t.Errorf("leftText = %q", got)
	}
}
