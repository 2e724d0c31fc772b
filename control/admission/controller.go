package admission

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goodput-lab/goodput/control/internal/nanotime"
	"github.com/goodput-lab/goodput/control/internal/stripe"
)

// Rule selects how the adaptive limit follows the measured signals.
type Rule uint8

const (
	// AIMD compares each window's mean queueing delay with [Config.Target]
	// (DAGOR's overload signal). Above it, or with too many overloaded
	// samples (dropped, or failed slowly: see [Sample]), the limit falls by
	// [Config.Decrease], or by the window's fraction of overloaded samples
	// when that is larger (at most a half); otherwise, if the window used at least half the
	// limit, it rises by [Config.Increase] of itself and at least one slot.
	// Without a measured queueing delay (a zero QueueDelay) AIMD adapts on
	// the overloaded samples alone.
	AIMD Rule = iota
	// Gradient is the Envoy/Netflix gradient rule on latency:
	// gradient = (baseline + Target) / meanLatency clamped to [0.5, 2],
	// new = limit × gradient + √limit, and the limit moves a fraction
	// [Config.Smoothing] of the way to new. The baseline is a decaying
	// minimum of the latency of answered requests (see
	// [Config.MinLatencyWindows]), so a dependency that stays slower
	// becomes the new baseline instead of ratcheting the limit down. A
	// window with too many overloaded samples uses the gradient 0.5.
	Gradient
)

var ruleNames = [...]string{"aimd", "gradient"}

// String returns "aimd" or "gradient".
func (r Rule) String() string {
	if int(r) < len(ruleNames) {
		return ruleNames[r]
	}
	return fmt.Sprintf("Rule(%d)", uint8(r))
}

// defaultShare is the share of the effective limit each class may fill when
// [Config.Share] is all zero: Continuation 100 %, Lookup 95 %, Standard 85 %,
// Sheddable 60 %. Standard work therefore leaves 15 % of the limit to
// continuations and lookups, and sheddable work is refused from 60 %.
var defaultShare = [NumClasses]float64{1, 0.95, 0.85, 0.6}

// Config configures a [Controller]. The zero value is valid: an AIMD
// controller starting at 1000 in-flight requests, bounded to [1, 1000],
// with the default shares, a 20 ms queueing-delay target and 1 s windows.
type Config struct {
	// Rule is the adaptive rule. The zero value is AIMD.
	Rule Rule
	// Initial is the adaptive limit at construction. Zero means Max.
	Initial int
	// Min is the smallest adaptive limit. Zero means 1.
	Min int
	// Max is the largest adaptive limit, at most [MaxLimit]. Zero means
	// 1000.
	Max int
	// Share is, for each class, the fraction of the effective limit that the
	// in-flight requests of all classes together may occupy when a request of
	// that class is admitted. The slots above a class's share are reserved for
	// the classes with a larger share, and lent while those classes have no
	// demand (see [Controller]). Shares are in [0, 1], must not increase
	// from Continuation to Sheddable, and Continuation's must be positive; a
	// share of 0 closes a class for good. All zero means the defaults:
	// Continuation 1, Lookup 0.95, Standard 0.85, Sheddable 0.6, so Standard
	// work leaves 15 % of the limit to continuations and lookups and
	// sheddable work is refused from 60 %.
	Share [NumClasses]float64
	// Target is, for AIMD, the mean queueing delay above which a window is
	// congested and, for Gradient, the latency allowance added to the minimum
	// latency. Zero means 20 ms.
	Target time.Duration
	// Window is the length of a sample window: the rule runs once per window,
	// at the first Admit or Done at or after its end that finds samples in it.
	// Zero means 1 s.
	Window time.Duration
	// WindowSamples, when positive, also closes a window once it holds that
	// many samples (DAGOR: 1 s or 2000 requests). Zero closes windows by time
	// only.
	WindowSamples int
	// Decrease is AIMD's multiplicative step down. Zero means 0.05.
	Decrease float64
	// Increase is AIMD's step up as a fraction of the limit (at least one
	// slot). Zero means 0.01.
	Increase float64
	// Smoothing is the fraction of the way Gradient moves towards its new
	// limit each window, in (0, 1]. Zero means 0.2.
	Smoothing float64
	// MinLatencyWindows is how fast the baseline latency (the service time
	// without queueing: the smallest latency of the requests answered
	// without failure) follows a rise. A window whose minimum is lower sets
	// the baseline at once; a higher one moves it 1/MinLatencyWindows of the
	// way, so a sustained slowdown is the new baseline after a few times
	// MinLatencyWindows windows. Gradient divides by the baseline, and both
	// rules judge a failure slow against it. Zero means 10.
	MinLatencyWindows int
	// DropRatio is the fraction of overloaded samples (dropped, or failed
	// slower than the baseline plus Target) above which a window counts as
	// congested whatever its delay or latency. Zero means 0.01; 1 ignores
	// them.
	DropRatio float64
	// RetryAfter is the Retry-After of refusals for the limit, for reserved
	// capacity and for a closed class. Zero means 1 s.
	RetryAfter time.Duration
}

func (c Config) withDefaults() Config {
	if c.Min == 0 {
		c.Min = 1
	}
	if c.Max == 0 {
		c.Max = 1000
	}
	if c.Initial == 0 {
		c.Initial = c.Max
	}
	if c.Share == ([NumClasses]float64{}) {
		c.Share = defaultShare
	}
	if c.Target == 0 {
		c.Target = 20 * time.Millisecond
	}
	if c.Window == 0 {
		c.Window = time.Second
	}
	if c.Decrease == 0 {
		c.Decrease = 0.05
	}
	if c.Increase == 0 {
		c.Increase = 0.01
	}
	if c.Smoothing == 0 {
		c.Smoothing = 0.2
	}
	if c.MinLatencyWindows == 0 {
		c.MinLatencyWindows = 10
	}
	if c.DropRatio == 0 {
		c.DropRatio = 0.01
	}
	if c.RetryAfter == 0 {
		c.RetryAfter = time.Second
	}
	return c
}

func inUnit(x float64) bool { return x >= 0 && x <= 1 } // false for NaN

// Validate reports the first problem with c, after zero fields take their
// defaults.
func (c Config) Validate() error {
	d := c.withDefaults()
	switch {
	case d.Rule > Gradient:
		return fmt.Errorf("admission: unknown Rule %d (want AIMD or Gradient)", uint8(d.Rule))
	case d.Min < 1:
		return fmt.Errorf("admission: Min %d must be positive", d.Min)
	case d.Max < d.Min:
		return fmt.Errorf("admission: Max %d is below Min %d", d.Max, d.Min)
	case d.Max > MaxLimit:
		return fmt.Errorf("admission: Max %d is above MaxLimit %d", d.Max, MaxLimit)
	case d.Initial < d.Min || d.Initial > d.Max:
		return fmt.Errorf("admission: Initial %d is outside [Min %d, Max %d]", d.Initial, d.Min, d.Max)
	case d.Target < 0:
		return fmt.Errorf("admission: Target %v must not be negative", d.Target)
	case d.Window < 0:
		return fmt.Errorf("admission: Window %v must not be negative", d.Window)
	case d.WindowSamples < 0:
		return fmt.Errorf("admission: WindowSamples %d must not be negative", d.WindowSamples)
	case !(d.Decrease > 0 && d.Decrease < 1):
		return fmt.Errorf("admission: Decrease %v must be in (0, 1)", d.Decrease)
	case !(d.Increase > 0 && d.Increase <= 10):
		return fmt.Errorf("admission: Increase %v must be in (0, 10]", d.Increase)
	case !(d.Smoothing > 0 && d.Smoothing <= 1):
		return fmt.Errorf("admission: Smoothing %v must be in (0, 1]", d.Smoothing)
	case d.MinLatencyWindows < 1:
		return fmt.Errorf("admission: MinLatencyWindows %d must be positive", d.MinLatencyWindows)
	case !inUnit(d.DropRatio):
		return fmt.Errorf("admission: DropRatio %v must be in [0, 1]", d.DropRatio)
	case d.RetryAfter < 0:
		return fmt.Errorf("admission: RetryAfter %v must not be negative", d.RetryAfter)
	}
	for cl, s := range d.Share {
		if !inUnit(s) {
			return fmt.Errorf("admission: Share[%v] %v must be in [0, 1]", Class(cl), s)
		}
		if cl > 0 && s > d.Share[cl-1] {
			return fmt.Errorf("admission: Share[%v] %v exceeds Share[%v] %v; shares must not increase towards Sheddable",
				Class(cl), s, Class(cl-1), d.Share[cl-1])
		}
	}
	if d.Share[Continuation] == 0 {
		return errors.New("admission: Share[continuation] must be positive")
	}
	return nil
}

// Controller is an adaptive concurrency limit with capacity reserved by
// class. Call [Controller.Admit] before the expensive work of a request and,
// if it was admitted, [Controller.Done] exactly once when the request
// finishes, with its measured [Sample]. Both take the current instant, so a
// simulator can drive the controller on virtual time.
//
// The effective limit is the static override when one is set
// ([Controller.SetStatic]); otherwise it is the adaptive limit times the
// scale ([Controller.SetScale]), rounded down, and at least 1. A request of
// class c is admitted while fewer than its ceiling ⌊Share[c] × limit⌋
// requests are in flight.
//
// # Reserves are lent
//
// The slots between Share[c+1] and Share[c] of the limit are reserved for
// the classes up to c. They are lent, as Kubernetes' API Priority and
// Fairness lends idle seats, while none of those classes has demand: none
// in flight and none asking for admission within the last [Config.Window]
// (at least the last ¾ of it: the record of asks is kept to a quarter
// window; a request refused for its deadline or a closed class does not
// count).
// So a service that serves only Standard work fills the whole limit, and
// the first Continuation takes the reserve back for the requests admitted
// after it. Lent slots are not taken back from requests already in
// flight: that Continuation may find the limit full, and the reserve is
// honoured again as the borrowers finish. Formally, with a the most
// valuable class above c that has demand, c's ceiling is
// ⌊(Share[Continuation] − Share[a] + Share[c]) × limit⌋, which is
// ⌊Share[c] × limit⌋ when a is Continuation and ⌊Share[Continuation] ×
// limit⌋ when no class above c has demand; a class of share 0 stays
// closed.
//
// # Concurrency
//
// A Controller is safe for concurrent use, and Admit and Done take no lock
// on their common path. The in-flight counts of all classes are 16-bit
// fields of one word (hence [MaxLimit]): Admit claims a slot with one
// compare-and-swap of that word against the effective limit and the class's
// ceiling, so the limit and the ceilings hold however many goroutines admit
// at once, and Done releases it with one atomic add and adds its sample to
// atomic sums. That word is the one all goroutines write; the other counts
// are kept in per-goroutine stripes (see control/internal/stripe) that reads
// add up. A lock is taken
// once per window, by the call that closes it, to run the rule, and by the
// setters. A sample counts wholly in the window that was current when Done
// added it. Admit and Done do not allocate.
//
// From one goroutine every Decision and every field of [Controller.Stats] is
// exactly what a Controller behind one mutex returns. Under concurrent use a
// request admitted while another goroutine changes the limit is checked
// against the limit of one moment or the other; a sample recorded while
// another goroutine closes its window counts in that window or the next; and
// a Stats snapshot taken while calls run may mix counts taken moments apart.
// Each count is exact once the calls it counts have returned.
type Controller struct {
	cfg Config // immutable after New

	// Read on every call; written with mu held (once per window, or by a
	// setter).
	started  atomic.Bool              // the clock's base and the first window are set
	clock    nanotime.Clock           // set once, with mu held, before started
	winStart atomic.Int64             // start of the current window, on clock
	win      atomic.Uint64            // number of the current window: its samples go to accs[win&1]
	limit    atomic.Int64             // effective limit
	ceil     [NumClasses]atomic.Int64 // ⌊Share × limit⌋: the ceilings with every reserve honoured
	// lend[c][a] is class c's ceiling when a < c is the most valuable class
	// with demand; lend[c][c] when no class above c has demand.
	lend   [NumClasses][NumClasses]atomic.Int64
	closed [NumClasses]atomic.Bool
	// slow is the latency, in nanoseconds, above which a failed sample is
	// an overload signal: the baseline plus Target.
	slow atomic.Int64

	// Written on every call, each on cache lines of its own (see slots).
	slots    *slots
	admitted *[stripe.N]admitted
	refused  *[NumClasses]refused
	demand   *demand
	accs     *[2][stripe.N]acc // the current window's samples and the last one's (empty once closed), by stripe

	mu       sync.Mutex // closes windows, runs the rule, serves the setters; guards the fields below
	adaptive float64    // the rule's limit, in [Min, Max]
	scale    float64
	static   int

	// The baseline latency: a decaying minimum of answered latencies.
	baseline     time.Duration
	haveBaseline bool

	windows   uint64
	decreases uint64
	increases uint64
}

// The words Admit and Done write live in objects whose sizes are multiples
// of 64 bytes and which hold no pointer, so the allocator places each on
// cache lines of its own. Admit writes the slots line, which all goroutines
// share (the in-flight count is what the limit bounds), and its stripe of the
// admitted counts; Done writes the slots line and its stripe of the current
// window's samples. Refusals write their class's line.

// slots is the in-flight accounting. One word holds the in-flight count of
// every class, so that one compare-and-swap claims a slot, checked against
// the limit on the sum of the counts it replaces, and one atomic add
// releases it.
type slots struct {
	held      atomic.Uint64 // class cl's in-flight count plus bias, in the 16 bits from bit 16cl
	peak      atomic.Int64  // most requests in flight during the window
	unmatched atomic.Uint64
	_         [40]byte
}

// MaxLimit is the largest effective limit: [Config.Max] and
// [Controller.SetStatic] are bounded by it, because each class's in-flight
// count is a 16-bit field of one word (see [Controller]).
const MaxLimit = 1<<(fieldBits-1) - 1

// A field of the slots word holds its class's count plus bias, its top bit:
// an unmatched Done's decrement of a field at bias, to be undone at once,
// then clears that bit instead of borrowing from the next field, and claims
// and readers wait while any field's bit is clear. Counts up to MaxLimit
// never carry into the next field.
const (
	fieldBits = 16
	fieldMask = 1<<fieldBits - 1
	bias      = 1 << (fieldBits - 1)
	biases    = bias | bias<<16 | bias<<32 | bias<<48 // the slots word with nothing in flight
)

// biases and total are written for four classes, which fill the word: both
// arrays have a negative length, a compile error, for any other count.
var (
	_ [NumClasses - 4]struct{}
	_ [4 - NumClasses]struct{}
)

// unit is one request of class cl in flight, in the slots word.
func unit(cl Class) uint64 { return 1 << (fieldBits * uint(cl)) }

// field returns class cl's field of the slots word w: its count plus bias.
func field(w uint64, cl Class) uint64 { return w >> (fieldBits * uint(cl)) & fieldMask }

// inClass returns class cl's in-flight count in the slots word w.
func inClass(w uint64, cl Class) int64 { return int64(field(w, cl)) - bias }

// total returns the number of requests in flight in the slots word w.
func total(w uint64) int64 {
	return int64(w&fieldMask+w>>16&fieldMask+w>>32&fieldMask+w>>48) - NumClasses*bias
}

// admitted is one stripe of the admissions by class.
type admitted struct {
	n [NumClasses]atomic.Uint64
	_ [64 - 8*NumClasses]byte
}

// demand records, by class, when a request last asked for a slot, on the
// clock, as of a quarter of a window (Admit writes it only when it is older
// than that, so in steady state it is read, not written).
type demand struct {
	asked [NumClasses]atomic.Int64
	_     [64 - 8*NumClasses]byte
}

// refused counts one class's refusals by reason (ReasonAdmitted unused).
type refused struct {
	n [NumReasons]atomic.Uint64
	_ [64 - 8*NumReasons]byte
}

// acc accumulates one stripe of the samples of one window. Done enters it
// by incrementing entered, checks that the window is still current (and if
// not, leaves by decrementing entered and tries the next one), adds the
// sample's sums and leaves by incrementing n, the count of samples added:
// three atomic adds, the last of which both counts the sample and says the
// call is done with the stripe. entered and n only ever grow (but for that
// undone entry), so a Done is inside exactly while entered > n. The call
// that closes the window moves win on first and then waits for every
// stripe's n to catch up with entered, so every sample counts wholly in one
// window, and in the window that was current when Done checked. The
// window's samples are n less drained, the n of the window's last close.
type acc struct {
	entered          atomic.Int64 // Done calls that entered the stripe (less those that left it unused)
	n                atomic.Int64 // samples added, ever; each leaves the stripe
	drained          atomic.Int64 // n when the stripe was last drained; written with mu held
	bad              atomic.Int64 // overloaded samples (dropped or failed slowly)
	sumQueue, sumLat atomic.Int64
	minLat           atomic.Int64 // of answered samples; MaxInt64 before the window's first
	_                [8]byte
}

// overloaded reports whether s is an overload signal when a failure slower
// than slow nanoseconds counts as one.
func overloaded(s Sample, slow int64) bool {
	return s.Dropped || s.Failed && int64(s.Latency) > slow && s.Latency >= s.Slack/2
}

// add adds the sample s for the rule r; a failure slower than slow
// nanoseconds is an overload signal. Of the two sums it adds only the one r
// reads: the queueing delay for AIMD, the latency for Gradient.
func (a *acc) add(s Sample, slow int64, r Rule) {
	lat := int64(s.Latency)
	if !s.Dropped && !s.Failed {
		for m := a.minLat.Load(); lat < m && !a.minLat.CompareAndSwap(m, lat); m = a.minLat.Load() {
		}
	}
	switch {
	case r == AIMD && s.QueueDelay != 0:
		a.sumQueue.Add(int64(s.QueueDelay))
	case r == Gradient && lat != 0:
		a.sumLat.Add(lat)
	}
	if overloaded(s, slow) {
		a.bad.Add(1)
	}
	a.n.Add(1) // last: the sample is wholly added
}

// busy reports whether a Done is adding a sample to the stripe: n is read
// before entered, so equal readings mean no call was inside when entered was
// read (n ≤ entered at every instant, and both only grow between the two
// reads but for an entry undone).
func (a *acc) busy() bool {
	n := a.n.Load()
	return a.entered.Load() != n
}

// samples returns the number of samples added since the stripe was last
// drained.
func (a *acc) samples() int64 { return a.n.Load() - a.drained.Load() }

// drain adds to w the samples of a stripe no Done is adding to any more,
// and empties it for reuse. c.mu held.
func (a *acc) drain(w *closedWindow) {
	n := a.n.Load()
	w.n += n - a.drained.Load()
	a.drained.Store(n)
	w.bad += a.bad.Swap(0)
	w.sumQueue += time.Duration(a.sumQueue.Swap(0))
	w.sumLat += time.Duration(a.sumLat.Swap(0))
	w.minLat = min(w.minLat, time.Duration(a.minLat.Swap(math.MaxInt64)))
}

// New returns a Controller for cfg, or the error from [Config.Validate].
func New(cfg Config) (*Controller, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	c := &Controller{
		cfg:      cfg,
		slots:    new(slots),
		admitted: new([stripe.N]admitted),
		refused:  new([NumClasses]refused),
		accs:     new([2][stripe.N]acc),
		demand:   new(demand),
		adaptive: float64(cfg.Initial),
		scale:    1,
	}
	for w := range c.accs {
		for i := range c.accs[w] {
			c.accs[w][i].minLat.Store(math.MaxInt64)
		}
	}
	for cl := range c.demand.asked {
		c.demand.asked[cl].Store(never)
	}
	c.slots.held.Store(biases)
	c.slow.Store(int64(cfg.Target))
	c.recompute()
	return c, nil
}

// recompute derives the effective limit and the class ceilings. c.mu held.
func (c *Controller) recompute() {
	limit := c.static
	if limit == 0 {
		limit = int(c.adaptive * c.scale)
		if limit < 1 {
			limit = 1
		}
	}
	c.limit.Store(int64(limit))
	share := &c.cfg.Share
	for cl, s := range share {
		c.ceil[cl].Store(ceiling(s, limit))
		for a := range cl + 1 {
			var n int64 // a share of 0 closes a class for good
			switch {
			case s == 0:
			case a == cl: // no class above cl has demand: nothing is kept
				n = ceiling(share[Continuation], limit)
			default: // a has demand: the bands from a down to cl are kept
				n = ceiling(share[Continuation]-share[a]+s, limit)
			}
			c.lend[cl][a].Store(n)
		}
	}
}

// ceiling returns ⌊f × limit⌋; the epsilon keeps 0.85 × 100 at 85 despite
// rounding.
func ceiling(f float64, limit int) int64 { return int64(math.Floor(f*float64(limit) + 1e-9)) }

// never is the asked instant of a class that has not asked: far enough in
// the past that no subtraction from an instant on the clock overflows.
const never = math.MinInt64 / 4

// Admit decides whether a request may start now. If the decision is
// admitted the request holds an in-flight slot until [Controller.Done].
// Refusals are checked in this order: [ReasonDeadline], [ReasonClassClosed],
// [ReasonLimit], [ReasonReserved].
func (c *Controller) Admit(now time.Time, r Request) Decision {
	cl := r.Class
	if cl >= NumClasses {
		cl = Sheddable
	}
	at := c.tick(now)
	var d Decision
	switch {
	case r.Slack < r.Expected:
		d.Reason = ReasonDeadline
	case c.closed[cl].Load():
		d = Decision{Reason: ReasonClassClosed, RetryAfter: c.cfg.RetryAfter}
	default:
		c.ask(cl, at)
		d = c.claim(cl, at)
	}
	if d.Admitted {
		c.admitted[stripe.Of()].n[cl].Add(1)
	} else {
		c.refused[cl].n[d.Reason].Add(1)
	}
	return d
}

// ask records that class cl asks for a slot at now, on the clock. It writes
// only when the record is a quarter of a window old (or in the future), so
// that the admissions of a busy class read the word instead of writing it.
func (c *Controller) ask(cl Class, now int64) {
	a := &c.demand.asked[cl]
	if last := a.Load(); now < last || uint64(now-last) >= uint64(c.cfg.Window/4) {
		a.Store(now)
	}
}

// recent reports whether a class that last asked at last (on the clock) has
// asked within window of now. A last in the future (the clock stepped back)
// counts as recent.
func recent(now, last int64, window time.Duration) bool {
	if last == never {
		return false
	}
	return now < last || uint64(now-last) < uint64(window)
}

// ceilingAt returns class cl's ceiling at now, with the slots word w: its
// share of the limit plus the reserves of the more valuable classes without
// demand.
func (c *Controller) ceilingAt(cl Class, now int64, w uint64) int64 {
	a := cl
	for j := range cl {
		if inClass(w, j) > 0 || recent(now, c.demand.asked[j].Load(), c.cfg.Window) {
			a = j
			break
		}
	}
	return c.lend[cl][a].Load()
}

// claim takes an in-flight slot for class cl at now (on the clock) if the
// limit and the class's ceiling leave one: a compare-and-swap of the slots
// word against the word the checks read. (A plain load first, then the
// compare-and-swap, is one locked instruction on an admission; on the
// two-vCPU machines measured it was also no slower across cores than taking
// the line for ownership first, with an add of zero.)
func (c *Controller) claim(cl Class, now int64) Decision {
	u := unit(cl)
	for {
		w := c.slots.held.Load()
		if w&biases != biases {
			runtime.Gosched() // an unmatched Done is undoing its decrement
			continue
		}
		n := total(w)
		switch {
		case n >= c.limit.Load():
			return Decision{Reason: ReasonLimit, RetryAfter: c.cfg.RetryAfter}
		case n >= c.ceilingAt(cl, now, w):
			return Decision{Reason: ReasonReserved, RetryAfter: c.cfg.RetryAfter}
		}
		if c.slots.held.CompareAndSwap(w, w+u) {
			for p := c.slots.peak.Load(); n+1 > p && !c.slots.peak.CompareAndSwap(p, n+1); p = c.slots.peak.Load() {
			}
			return Decision{Admitted: true, Reason: ReasonAdmitted}
		}
	}
}

// Done releases the in-flight slot of an admitted request and adds its
// measurement to the current window. A Done without a matching admission
// of its class in flight is counted in [Stats].Unmatched and releases
// nothing.
func (c *Controller) Done(now time.Time, s Sample) {
	cl := s.Class
	if cl >= NumClasses {
		cl = Sheddable
	}
	// One atomic add, which never has to retry, then an undo in the rare
	// case none of the class was in flight: the class's field is then below
	// its bias for a moment, and claim and the readers wait that moment
	// out, so no decision sees it.
	if u := unit(cl); field(c.slots.held.Add(-u), cl) < bias {
		c.slots.held.Add(u)
		c.slots.unmatched.Add(1)
	}
	i := stripe.Of()
	slow := c.slow.Load()
	for {
		w := c.win.Load()
		a := &c.accs[w&1][i]
		a.entered.Add(1)
		if c.win.Load() == w {
			a.add(s, slow, c.cfg.Rule) // and leaves the stripe
			break
		}
		a.entered.Add(-1) // the window closed meanwhile: add to the next one
	}
	c.tick(now)
}

// held returns the slots word, waiting out the moment an unmatched Done
// takes a field below zero (see Done).
func (c *Controller) held() uint64 {
	for {
		if w := c.slots.held.Load(); w&biases == biases {
			return w
		}
		runtime.Gosched()
	}
}

// tick closes the current window if it is over, taking the lock to do so,
// and returns t on the clock.
func (c *Controller) tick(t time.Time) int64 {
	if c.started.Load() {
		if now := c.clock.Nanos(t); !c.due(now) {
			return now
		}
	}
	c.mu.Lock()
	now := c.tickLocked(t)
	c.mu.Unlock()
	return now
}

// due reports whether the window ends at or before now: by time, or by its
// sample count when [Config.WindowSamples] is set.
func (c *Controller) due(now int64) bool {
	if c.cfg.WindowSamples > 0 {
		var n int64
		cur := &c.accs[c.win.Load()&1]
		for i := range cur {
			n += cur[i].samples()
		}
		if n >= int64(c.cfg.WindowSamples) {
			return true
		}
	}
	return now-c.winStart.Load() >= int64(c.cfg.Window)
}

// closedWindow is the record of one closed sample window.
type closedWindow struct {
	n, bad           int64
	sumQueue, sumLat time.Duration
	minLat           time.Duration
	peak             int64
}

// tickLocked is tick with c.mu held: the first call sets the clock's base
// and starts the first window; a later call closes the window if it is due,
// runs the rule on it if it holds samples, and starts the next.
func (c *Controller) tickLocked(t time.Time) int64 {
	now := c.clock.Nanos(t)
	if !c.started.Load() {
		c.winStart.Store(now)
		c.slots.peak.Store(total(c.held()))
		c.started.Store(true)
		return now
	}
	if !c.due(now) {
		return now // another goroutine closed it first
	}
	w := c.win.Load()
	closing := &c.accs[w&1]
	c.win.Store(w + 1) // from here on Done adds to the other accumulators
	cw := closedWindow{minLat: math.MaxInt64}
	for i := range closing {
		for closing[i].busy() {
			runtime.Gosched() // a Done is adding to the closing window
		}
		closing[i].drain(&cw)
	}
	if cw.n > 0 {
		cw.peak = c.slots.peak.Load()
		c.evaluate(cw)
	}
	c.winStart.Store(now)
	c.slots.peak.Store(total(c.held()))
	return now
}

// evaluate runs the adaptive rule on the closed window w. c.mu held, w.n > 0.
func (c *Controller) evaluate(w closedWindow) {
	c.windows++
	cfg := &c.cfg
	if w.minLat != math.MaxInt64 { // the window answered some requests (with a latency below MaxInt64)
		if !c.haveBaseline || w.minLat < c.baseline {
			c.baseline, c.haveBaseline = w.minLat, true
		} else {
			c.baseline += (w.minLat - c.baseline) / time.Duration(cfg.MinLatencyWindows)
		}
	}
	allowed := addSat(c.baseline, cfg.Target) // baseline + Target
	c.slow.Store(int64(allowed))
	dropped := float64(w.bad) > cfg.DropRatio*float64(w.n)
	// The window used the limit if it filled half of it; the scale counts
	// (a ramp holds the limit down), a static override does not.
	utilised := w.peak > 0 && 2*float64(w.peak) >= c.adaptive*c.scale
	old := c.adaptive
	next := old
	switch cfg.Rule {
	case AIMD:
		meanQueue := w.sumQueue / time.Duration(w.n)
		if dropped || meanQueue > cfg.Target {
			next = old * (1 - aimdStep(cfg.Decrease, w.bad, w.n))
		} else if utilised {
			next = old + math.Max(cfg.Increase*old, 1)
		}
	case Gradient:
		gradient := 2.0
		if mean := w.sumLat / time.Duration(w.n); mean > 0 {
			gradient = float64(allowed) / float64(mean)
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

// aimdStep is AIMD's step down for a congested window of n samples, bad of them
// overloaded: the larger of decrease and the overloaded fraction, at most a half. A window
// in which most requests failed slowly cuts the limit by half, so a limit far above what a
// slowed dependency can serve falls in a few windows, not in tens of them.
func aimdStep(decrease float64, bad, n int64) float64 {
	if n <= 0 {
		return decrease
	}
	return math.Min(0.5, math.Max(decrease, float64(bad)/float64(n)))
}

// addSat returns a + b, saturating at the bounds of time.Duration.
func addSat(a, b time.Duration) time.Duration {
	s := a + b
	switch {
	case b > 0 && s < a:
		return math.MaxInt64
	case b < 0 && s > a:
		return math.MinInt64
	}
	return s
}

// SetStatic pins the effective limit at n, overriding the adaptive rule and
// the scale (a manual command). The rule keeps learning from samples
// meanwhile, so SetStatic(0), which clears the override, resumes from a
// current estimate. Negative n is treated as 0, and n above [MaxLimit] as
// MaxLimit.
func (c *Controller) SetStatic(n int) {
	c.mu.Lock()
	c.static = min(max(n, 0), MaxLimit)
	c.recompute()
	c.mu.Unlock()
}

// SetScale multiplies the adaptive limit by f, as a staged ramp does (for
// example 0.25, 0.5, 1 while Recovering). f is clamped to [0, 1]; NaN means 1.
// The effective limit stays at least 1, so a continuation can always start.
func (c *Controller) SetScale(f float64) {
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
func (c *Controller) SetClassOpen(cl Class, open bool) {
	if cl >= NumClasses {
		return
	}
	c.closed[cl].Store(!open)
}

// Limit returns the effective limit.
func (c *Controller) Limit() int { return int(c.limit.Load()) }

// InFlight returns the number of admitted requests not yet done.
func (c *Controller) InFlight() int { return int(total(c.held())) }

// Stats is a snapshot of a Controller's state and counters.
type Stats struct {
	// Decisions counts decisions by class and reason.
	Decisions [NumClasses][NumReasons]uint64
	// InFlight is the number of requests in flight; ByClass splits it by class.
	InFlight int
	ByClass  [NumClasses]int
	// Limit is the effective limit; Ceiling the in-flight count up to which
	// each class is admitted while every more valuable class has demand
	// (with none, a class borrows their reserves: see [Controller]).
	Limit   int
	Ceiling [NumClasses]int
	// Adaptive is the rule's current limit, before scale and override.
	Adaptive float64
	// Scale and Static are the values set by SetScale and SetStatic.
	Scale  float64
	Static int
	// Windows counts evaluated sample windows; Decreases and Increases count
	// those that lowered or raised the adaptive limit.
	Windows, Decreases, Increases uint64
	// Unmatched counts calls to Done without an admitted request of their
	// class in flight.
	Unmatched uint64
}

// Admitted returns the number of admitted requests of every class.
func (s Stats) Admitted() uint64 {
	var n uint64
	for cl := range s.Decisions {
		n += s.Decisions[cl][ReasonAdmitted]
	}
	return n
}

// Rejected returns the number of refused requests of every class.
func (s Stats) Rejected() uint64 {
	var n uint64
	for cl := range s.Decisions {
		for r := ReasonLimit; r < NumReasons; r++ {
			n += s.Decisions[cl][r]
		}
	}
	return n
}

// Stats returns a snapshot of the controller's counters. It does not
// allocate.
func (c *Controller) Stats() Stats {
	var s Stats
	for cl := range c.refused {
		for r := range c.refused[cl].n {
			s.Decisions[cl][r] = c.refused[cl].n[r].Load()
		}
		for i := range c.admitted {
			s.Decisions[cl][ReasonAdmitted] += c.admitted[i].n[cl].Load()
		}
		s.Ceiling[cl] = int(c.ceil[cl].Load())
	}
	w := c.held()
	for cl := range s.ByClass {
		s.ByClass[cl] = int(inClass(w, Class(cl)))
	}
	s.InFlight = int(total(w))
	s.Limit = int(c.limit.Load())
	s.Unmatched = c.slots.unmatched.Load()
	c.mu.Lock()
	s.Adaptive, s.Scale, s.Static = c.adaptive, c.scale, c.static
	s.Windows, s.Decreases, s.Increases = c.windows, c.decreases, c.increases
	c.mu.Unlock()
	return s
}
