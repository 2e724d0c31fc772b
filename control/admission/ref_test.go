package admission

// This file keeps, for the differential tests in equiv_test.go, the mutex
// implementation of Controller that the lock-free one replaced (commit
// 24e1cd9), renamed, and since changed only where the specification changed
// (issue 24: lent reserves, failures as an overload signal, a decaying
// baseline): refController is the specification the new Controller must
// match, decision for decision and field for field of Stats, when one
// goroutine drives it.

import (
	"math"
	"sync"
	"time"

	"github.com/goodput-lab/goodput/control/internal/nanotime"
)

// refController is an adaptive concurrency limit with capacity reserved by
// class. Call [refController.Admit] before the expensive work of a request and,
// if it was admitted, [refController.Done] exactly once when the request
// finishes, with its measured [Sample]. Both take the current instant, so a
// simulator can drive the controller on virtual time.
//
// The effective limit is the static override when one is set
// ([refController.SetStatic]); otherwise it is the adaptive limit times the
// scale ([refController.SetScale]), rounded down, and at least 1. A request of
// class c is admitted while fewer than ⌊Share[c] × limit⌋ requests are in
// flight.
//
// A refController is safe for concurrent use; Admit and Done do not allocate.
type refController struct {
	mu  sync.Mutex
	cfg Config

	adaptive float64 // the rule's limit, in [Min, Max]
	scale    float64
	static   int
	limit    int             // effective limit
	ceil     [NumClasses]int // ⌊Share × limit⌋
	closed   [NumClasses]bool
	asked    [NumClasses]int64 // when each class last asked for a slot, on clock, as of a quarter window

	inFlight int
	byClass  [NumClasses]int

	// The current sample window, on clock.
	clock    nanotime.Clock
	started  bool
	winStart int64
	n        int
	bad      int // dropped, or failed slower than slow
	sumQueue time.Duration
	sumLat   time.Duration
	minLat   time.Duration // of answered samples
	answered bool          // minLat is set
	peak     int           // most requests in flight during the window

	// The baseline: a decaying minimum of answered latencies.
	baseline     time.Duration
	haveBaseline bool
	slow         time.Duration // baseline + Target

	decisions [NumClasses][NumReasons]uint64
	windows   uint64
	decreases uint64
	increases uint64
	unmatched uint64
}

// New returns a refController for cfg, or the error from [Config.Validate].
func newRef(cfg Config) (*refController, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	c := &refController{cfg: cfg, adaptive: float64(cfg.Initial), scale: 1, slow: cfg.Target}
	for cl := range c.asked {
		c.asked[cl] = never
	}
	c.recompute()
	return c, nil
}

// recompute derives the effective limit and the class ceilings. c.mu held.
func (c *refController) recompute() {
	limit := c.static
	if limit == 0 {
		limit = int(c.adaptive * c.scale)
		if limit < 1 {
			limit = 1
		}
	}
	c.limit = limit
	for cl, s := range c.cfg.Share {
		// The epsilon keeps 0.85 × 100 at 85 despite rounding.
		c.ceil[cl] = int(math.Floor(s*float64(limit) + 1e-9))
	}
}

// Admit decides whether a request may start now. If the decision is
// admitted the request holds an in-flight slot until [refController.Done].
// Refusals are checked in this order: [ReasonDeadline], [ReasonClassClosed],
// [ReasonLimit], [ReasonReserved].
func (c *refController) Admit(now time.Time, r Request) Decision {
	cl := r.Class
	if cl >= NumClasses {
		cl = Sheddable
	}
	c.mu.Lock()
	at := c.tick(now)
	var d Decision
	switch {
	case r.Slack < r.Expected:
		d.Reason = ReasonDeadline
	case c.closed[cl]:
		d = Decision{Reason: ReasonClassClosed, RetryAfter: c.cfg.RetryAfter}
	case c.ask(cl, at) && c.inFlight >= c.limit:
		d = Decision{Reason: ReasonLimit, RetryAfter: c.cfg.RetryAfter}
	case c.inFlight >= c.ceilingAt(cl, at):
		d = Decision{Reason: ReasonReserved, RetryAfter: c.cfg.RetryAfter}
	default:
		d = Decision{Admitted: true, Reason: ReasonAdmitted}
		c.inFlight++
		c.byClass[cl]++
		if c.inFlight > c.peak {
			c.peak = c.inFlight
		}
	}
	c.decisions[cl][d.Reason]++
	c.mu.Unlock()
	return d
}

// ask records that class cl asks for a slot at now; it returns true.
func (c *refController) ask(cl Class, now int64) bool {
	if last := c.asked[cl]; now < last || uint64(now-last) >= uint64(c.cfg.Window/4) {
		c.asked[cl] = now
	}
	return true
}

// ceilingAt returns class cl's ceiling at now: ⌊(Share[Continuation] −
// Share[a] + Share[cl]) × limit⌋ with a the most valuable class above cl
// that has demand (in flight, or asked within a window), the share of
// Continuation when none has, and 0 for a class of share 0.
func (c *refController) ceilingAt(cl Class, now int64) int {
	sh := c.cfg.Share
	if sh[cl] == 0 {
		return 0
	}
	for a := range cl {
		if c.byClass[a] > 0 || recent(now, c.asked[a], c.cfg.Window) {
			if a == Continuation {
				return c.ceil[cl]
			}
			return int(math.Floor((sh[Continuation]-sh[a]+sh[cl])*float64(c.limit) + 1e-9))
		}
	}
	return int(math.Floor(sh[Continuation]*float64(c.limit) + 1e-9))
}

// Done releases the in-flight slot of an admitted request and adds its
// measurement to the current window. A Done without a matching admission
// of its class in flight is counted in [Stats].Unmatched and releases
// nothing.
func (c *refController) Done(now time.Time, s Sample) {
	cl := s.Class
	if cl >= NumClasses {
		cl = Sheddable
	}
	c.mu.Lock()
	if c.byClass[cl] > 0 {
		c.inFlight--
		c.byClass[cl]--
	} else {
		c.unmatched++
	}
	if !s.Dropped && !s.Failed && (!c.answered || s.Latency < c.minLat) {
		c.minLat, c.answered = s.Latency, true
	}
	c.n++
	c.sumQueue += s.QueueDelay
	c.sumLat += s.Latency
	if s.Dropped || s.Failed && s.Latency > c.slow && s.Latency >= s.Slack/2 {
		c.bad++
	}
	c.tick(now)
	c.mu.Unlock()
}

// tick closes the current window if it is over, and returns t on the
// clock. c.mu held.
func (c *refController) tick(t time.Time) int64 {
	now := c.clock.Nanos(t)
	if !c.started {
		c.started = true
		c.winStart = now
		c.peak = c.inFlight
		return now
	}
	full := c.cfg.WindowSamples > 0 && c.n >= c.cfg.WindowSamples
	if !full && now-c.winStart < int64(c.cfg.Window) {
		return now
	}
	if c.n > 0 {
		c.evaluate()
	}
	c.winStart = now
	c.n, c.bad, c.sumQueue, c.sumLat, c.minLat, c.answered = 0, 0, 0, 0, 0, false
	c.peak = c.inFlight
	return now
}

// evaluate runs the adaptive rule on the closed window. c.mu held, c.n > 0.
func (c *refController) evaluate() {
	c.windows++
	cfg := &c.cfg
	if c.answered && c.minLat != math.MaxInt64 { // the longest latency is unmeasured, as in acc
		if !c.haveBaseline || c.minLat < c.baseline {
			c.baseline, c.haveBaseline = c.minLat, true
		} else {
			c.baseline += (c.minLat - c.baseline) / time.Duration(cfg.MinLatencyWindows)
		}
	}
	c.slow = addSat(c.baseline, cfg.Target)
	dropped := float64(c.bad) > cfg.DropRatio*float64(c.n)
	// The window used the limit if it filled half of it; the scale counts
	// (a ramp holds the limit down), a static override does not.
	utilised := c.peak > 0 && 2*float64(c.peak) >= c.adaptive*c.scale
	old := c.adaptive
	next := old
	switch cfg.Rule {
	case AIMD:
		meanQueue := c.sumQueue / time.Duration(c.n)
		if dropped || meanQueue > cfg.Target {
			next = old * (1 - aimdStep(cfg.Decrease, int64(c.bad), int64(c.n)))
		} else if utilised {
			next = old + math.Max(cfg.Increase*old, 1)
		}
	case Gradient:
		gradient := 2.0
		if mean := c.sumLat / time.Duration(c.n); mean > 0 {
			gradient = float64(c.slow) / float64(mean)
		}
		gradient = math.Max(0.5, math.Min(2, gradient))
		if dropped {
			gradient = 0.5
		}
		target := old*gradient + math.Sqrt(old)
		if target > old && !utilised {
			target = old // application-limited: no evidence for a larger limit
		}
		next = old + cfg.Smoothing*(target-old)
	}
	next = math.Max(float64(cfg.Min), math.Min(float64(cfg.Max), next))
	switch {
	case next < old:
		c.decreases++
	case next > old:
		c.increases++
	}
	c.adaptive = next
	c.recompute()
}

// SetStatic pins the effective limit at n, overriding the adaptive rule and
// the scale (a manual command). The rule keeps learning from samples
// meanwhile, so SetStatic(0), which clears the override, resumes from a
// current estimate. Negative n is treated as 0.
func (c *refController) SetStatic(n int) {
	c.mu.Lock()
	c.static = min(max(n, 0), MaxLimit)
	c.recompute()
	c.mu.Unlock()
}

// SetScale multiplies the adaptive limit by f, as a staged ramp does (for
// example 0.25, 0.5, 1 while Recovering). f is clamped to [0, 1]; NaN means 1.
// The effective limit stays at least 1, so a continuation can always start.
func (c *refController) SetScale(f float64) {
	switch {
	case math.IsNaN(f) || f > 1:
		f = 1
	case f < 0:
		f = 0
	}
	c.mu.Lock()
	c.scale = f
	c.recompute()
	c.mu.Unlock()
}

// SetClassOpen opens or closes a class. Requests of a closed class are
// refused with [ReasonClassClosed]; requests already in flight are not
// affected. All classes start open.
func (c *refController) SetClassOpen(cl Class, open bool) {
	if cl >= NumClasses {
		return
	}
	c.mu.Lock()
	c.closed[cl] = !open
	c.mu.Unlock()
}

// Limit returns the effective limit.
func (c *refController) Limit() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.limit
}

// InFlight returns the number of admitted requests not yet done.
func (c *refController) InFlight() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inFlight
}

// Stats returns a snapshot of the controller's counters. It does not
// allocate.
func (c *refController) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stats{
		Decisions: c.decisions,
		InFlight:  c.inFlight,
		ByClass:   c.byClass,
		Limit:     c.limit,
		Ceiling:   c.ceil,
		Adaptive:  c.adaptive,
		Scale:     c.scale,
		Static:    c.static,
		Windows:   c.windows,
		Decreases: c.decreases,
		Increases: c.increases,
		Unmatched: c.unmatched,
	}
}
