package main

import (
	"io"
	"math"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress draws a progress bar of simulated time on stderr once a run has lasted longer
// than a delay, with the time left as [estimate] smooths it. Its methods are safe for
// concurrent use (arms report from their own goroutines) and do nothing on a nil
// *progress.
type progress struct {
	w     io.Writer
	now   func() time.Time
	start time.Time
	delay time.Duration

	mu   sync.Mutex
	bar  *progressbar.ProgressBar
	done time.Duration
	left estimate
}

func newProgress(w io.Writer, now func() time.Time, delay time.Duration) *progress {
	return &progress{w: w, now: now, start: now(), delay: delay}
}

// update records progress; the bar shows the furthest point any arm has reached.
func (p *progress) update(done, total time.Duration) {
	if p == nil || total <= 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if done <= p.done {
		return
	}
	p.done = done
	now := p.now()
	left, ok := p.left.update(now, done, total)
	if p.bar == nil {
		if now.Sub(p.start) < p.delay {
			return
		}
		p.bar = progressbar.NewOptions64(int64(total/time.Second),
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription("replaying"),
			progressbar.OptionSetPredictTime(false), // its estimate jumps; the description has ours
			progressbar.OptionClearOnFinish(),
			progressbar.OptionThrottle(100*time.Millisecond),
		)
	}
	if ok {
		p.bar.Describe("replaying, " + leftText(left) + " left")
	}
	_ = p.bar.Set64(int64(done / time.Second))
}

// finish removes the bar, if one was drawn.
func (p *progress) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Finish()
		_ = p.bar.Clear()
	}
}

// leftText writes a time left to the second ("8m25s"), "<1s" under a second.
func leftText(d time.Duration) string {
	if d < time.Second {
		return "<1s"
	}
	return d.Round(time.Second).String()
}

// estimate is the wall time a run has left, smoothed so that an uneven pace (a stall, then
// a burst) does not throw it by an order of magnitude: the pace is the wall time elapsed
// against the simulated time done over the whole run since the first report, and between
// two updates the estimate moves by a factor of at most estimatePerSecond per second of
// wall time between them, and never more than estimateMaxStep. Call update with each
// report.
type estimate struct {
	started bool
	t0      time.Time     // the first report: the pace is measured from it
	d0      time.Duration // the simulated time done then
	at      time.Time     // when left was estimated
	left    time.Duration // the last estimate; 0 before the first
}

const (
	// estimateWarmUp is how long the pace is measured before the first estimate.
	estimateWarmUp = time.Second
	// estimatePerSecond bounds how fast the estimate changes: by this factor per second
	// of wall time between two updates.
	estimatePerSecond = 2.0
	// estimateMaxStep bounds the change between two updates, however far apart.
	estimateMaxStep = 4.0
	// estimateFloor is the least estimate kept, so that a run slower than estimated near
	// its end can raise it again.
	estimateFloor = 100 * time.Millisecond
)

// update takes a report at wall time now of done simulated time out of total and returns
// the time left, or false until the pace has been measured for estimateWarmUp.
func (e *estimate) update(now time.Time, done, total time.Duration) (time.Duration, bool) {
	if !e.started {
		e.started, e.t0, e.d0 = true, now, done
		return 0, false
	}
	elapsed := now.Sub(e.t0)
	if elapsed < estimateWarmUp || done <= e.d0 {
		return e.left, e.left > 0
	}
	raw := float64(elapsed) * float64(max(total-done, 0)) / float64(done-e.d0)
	if e.left > 0 {
		f := min(math.Pow(estimatePerSecond, max(now.Sub(e.at), 0).Seconds()), estimateMaxStep)
		raw = min(max(raw, float64(e.left)/f), float64(e.left)*f)
	}
	e.left, e.at = max(time.Duration(math.Round(raw)), estimateFloor), now
	return e.left, true
}
