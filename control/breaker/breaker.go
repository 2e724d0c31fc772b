package breaker

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goodput-lab/goodput/control/internal/nanotime"
	"github.com/goodput-lab/goodput/control/internal/stripe"
)

// Errors returned by [Breaker.Allow].
var (
	// ErrOpen means the breaker is open: the call must not be attempted.
	ErrOpen = errors.New("breaker: open")
	// ErrProbeLimit means the breaker is half-open and every probe of the
	// current generation has been handed out.
	ErrProbeLimit = errors.New("breaker: half-open probe limit")
)

// State is the breaker's state.
type State uint8

// The breaker states.
const (
	// Closed: calls flow and their results are counted in the sliding window.
	Closed State = iota
	// Open: calls are refused with ErrOpen until the open period has passed
	// (Config.OpenFor, doubled by each failed probe up to Config.MaxOpenFor).
	Open
	// HalfOpen: a few probe calls are let through to test the dependency.
	HalfOpen
)

var stateNames = [...]string{"Closed", "Open", "HalfOpen"}

// String returns the state's name, e.g. "HalfOpen".
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "State(" + strconv.Itoa(int(s)) + ")"
}

// Outcome is what one call's result says about the dependency: [Breaker.Record]
// counts a Success or a Failure, and counts nothing for Ignored.
type Outcome uint8

// The outcomes.
const (
	// Success: the dependency answered, well or with an answer about the
	// request itself (a 4xx other than 429).
	Success Outcome = iota
	// Failure: the dependency failed: a 5xx, a transport error, or a timeout
	// of the call's own ceiling.
	Failure
	// Ignored: the result says nothing about the dependency's health: an
	// explicit overload answer (it is shedding load, as it should), or a
	// timeout or cancellation that the caller's own deadline caused. A
	// half-open probe that ends Ignored is handed out again.
	Ignored
)

var outcomeNames = [...]string{"success", "failure", "ignored"}

// String returns the outcome's name, e.g. "ignored".
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "Outcome(" + strconv.Itoa(int(o)) + ")"
}

// Call is what a client saw of one call, for the classifier ([Config.Classify]).
type Call struct {
	// Err is the transport error, or nil when an answer arrived.
	Err error
	// Status is the answer's HTTP status, or 0 when none arrived.
	Status int
	// Overload: the answer was an explicit overload answer (429, or
	// Goodput-Overload: no-retry).
	Overload bool
	// CallerDeadline: the call ended because the caller's own deadline
	// ended it, not because the dependency was slow past the call's own
	// ceiling.
	CallerDeadline bool
}

// DefaultClassify is the classifier of a [Config] whose Classify is nil.
// Explicit overload answers (Overload, or status 429), calls the caller's
// deadline ended (CallerDeadline) and calls the caller cancelled
// (context.Canceled) are Ignored; transport errors, own-ceiling timeouts and
// 5xx are Failures; anything else (2xx, 3xx, other 4xx) is a Success.
func DefaultClassify(c Call) Outcome {
	switch {
	case c.Overload || c.Status == statusTooManyRequests || c.CallerDeadline || errors.Is(c.Err, context.Canceled):
		return Ignored
	case c.Err != nil || c.Status >= 500:
		return Failure
	}
	return Success
}

// statusTooManyRequests is HTTP 429.
const statusTooManyRequests = 429

// Defaults used for zero fields of [Config]: a generic breaker that opens at
// 50% failures over 10 seconds (with at least 20 results), as Hystrix's
// defaults do, stays open half a second at first and backs off to 2 s on
// repeated trips, and closes after 3 successful probes.
const (
	DefaultWindow         = 10 * time.Second
	DefaultBuckets        = 10
	DefaultMinVolume      = 20
	DefaultThreshold      = 0.5
	DefaultOpenFor        = 500 * time.Millisecond
	DefaultHalfOpenProbes = 3
	// DefaultMaxOpenForFactor is the default cap on the open period, as a
	// multiple of OpenFor: 4 × 500 ms = 2 s.
	DefaultMaxOpenForFactor = 4
)

// maxBuckets bounds the memory a breaker may take.
const maxBuckets = 1 << 16

// Config configures a [Breaker]. Every zero field takes its documented
// default, so the zero Config is a generic breaker: 50% failures over 10 s
// open it, for 500 ms at first, doubling on each failed probe up to 2 s.
type Config struct {
	// Window is the length of the sliding window over which the error rate
	// is measured. Zero means DefaultWindow (10 s).
	Window time.Duration
	// Buckets is the number of buckets the window is divided into; the window
	// slides one bucket (Window/Buckets) at a time, so old results leave
	// the window a bucket at a time instead of all at once, and a result
	// counts for between Window−Window/Buckets and Window after it is
	// recorded. Zero means DefaultBuckets (10, i.e. 1 s buckets for a 10 s
	// window).
	Buckets int
	// MinVolume is the number of results the window must hold before the
	// breaker may trip: below it, even 100% errors keep it closed. Zero means
	// DefaultMinVolume (20).
	MinVolume int
	// Threshold is the error fraction (failures / results in the window) at
	// or above which the breaker opens; it must be in (0, 1]. Zero means
	// DefaultThreshold (0.5).
	Threshold float64
	// OpenFor is how long the breaker stays open after it trips from closed
	// before it lets probes through (half-open). Each failed probe opens it
	// again for twice as long as the last time, up to MaxOpenFor; closing
	// starts again from OpenFor. Zero means DefaultOpenFor (500 ms).
	OpenFor time.Duration
	// MaxOpenFor caps the open period. It is also how long a half-open
	// generation waits for the results of its probes before it hands out
	// fresh ones. It must be at least OpenFor; set it to OpenFor for a fixed
	// open period. Zero means DefaultMaxOpenForFactor × OpenFor (2 s by default).
	MaxOpenFor time.Duration
	// HalfOpenProbes is how many calls are let through at once while
	// half-open; that many successes close the breaker, a single failure
	// opens it again, and a probe that ends Ignored is handed out again.
	// Zero means DefaultHalfOpenProbes (3).
	HalfOpenProbes int
	// Classify turns what a client saw of a call into an [Outcome], for
	// [Breaker.Classify]. Nil means [DefaultClassify].
	Classify func(Call) Outcome
}

// withDefaults returns c with every zero field replaced by its default.
func (c Config) withDefaults() Config {
	if c.Window == 0 {
		c.Window = DefaultWindow
	}
	if c.Buckets == 0 {
		c.Buckets = DefaultBuckets
	}
	if c.MinVolume == 0 {
		c.MinVolume = DefaultMinVolume
	}
	if c.Threshold == 0 {
		c.Threshold = DefaultThreshold
	}
	if c.OpenFor == 0 {
		c.OpenFor = DefaultOpenFor
	}
	if c.MaxOpenFor == 0 {
		c.MaxOpenFor = c.OpenFor * DefaultMaxOpenForFactor
		if c.MaxOpenFor/DefaultMaxOpenForFactor != c.OpenFor {
			c.MaxOpenFor = math.MaxInt64 // overflow
		}
	}
	if c.HalfOpenProbes == 0 {
		c.HalfOpenProbes = DefaultHalfOpenProbes
	}
	return c
}

// Validate reports whether c is usable: no negative fields, a threshold in
// (0, 1], and a window of at least one nanosecond per bucket.
func (c Config) Validate() error {
	switch {
	case c.Window < 0:
		return fmt.Errorf("breaker: Window %v is negative; want a duration > 0 (or 0 for %v)", c.Window, DefaultWindow)
	case c.Buckets < 0 || c.Buckets > maxBuckets:
		return fmt.Errorf("breaker: Buckets %d is out of range; want 1..%d (or 0 for %d)", c.Buckets, maxBuckets, DefaultBuckets)
	case c.MinVolume < 0:
		return fmt.Errorf("breaker: MinVolume %d is negative; want ≥ 1 (or 0 for %d)", c.MinVolume, DefaultMinVolume)
	case math.IsNaN(c.Threshold) || c.Threshold < 0 || c.Threshold > 1:
		return fmt.Errorf("breaker: Threshold %v is out of range; want a fraction in (0, 1] (or 0 for %v)", c.Threshold, DefaultThreshold)
	case c.OpenFor < 0:
		return fmt.Errorf("breaker: OpenFor %v is negative; want a duration > 0 (or 0 for %v)", c.OpenFor, DefaultOpenFor)
	case c.MaxOpenFor < 0:
		return fmt.Errorf("breaker: MaxOpenFor %v is negative; want a duration ≥ OpenFor (or 0 for %d × OpenFor)", c.MaxOpenFor, DefaultMaxOpenForFactor)
	case c.HalfOpenProbes < 0:
		return fmt.Errorf("breaker: HalfOpenProbes %d is negative; want ≥ 1 (or 0 for %d)", c.HalfOpenProbes, DefaultHalfOpenProbes)
	}
	d := c.withDefaults()
	if d.Window < time.Duration(d.Buckets) {
		return fmt.Errorf("breaker: Window %v is shorter than %d buckets of 1ns", d.Window, d.Buckets)
	}
	if d.MaxOpenFor < d.OpenFor {
		return fmt.Errorf("breaker: MaxOpenFor %v is shorter than OpenFor %v", d.MaxOpenFor, d.OpenFor)
	}
	return nil
}

// Ticket is the permission [Breaker.Allow] grants for one call. Pass it back
// to [Breaker.Record] with the call's result. The zero Ticket belongs to no
// generation, and its results are ignored.
type Ticket struct {
	gen uint64
}

// Generation returns the breaker generation that granted the ticket.
func (t Ticket) Generation() uint64 { return t.gen }

// Stats is a snapshot of a breaker as of the latest instant it was given.
type Stats struct {
	// At is the latest instant passed to any method of the breaker.
	At time.Time
	// State and Generation are the breaker's state and generation at At.
	State      State
	Generation uint64
	// Forced reports a manual ForceOpen or ForceClosed still in effect.
	Forced bool
	// Successes and Failures are the results in the sliding window at At
	// (counted while closed; a generation change clears them).
	Successes, Failures int
	// Probes is how many probes the current half-open generation has handed
	// out, and ProbeSuccesses how many of them succeeded.
	Probes, ProbeSuccesses int
	// Rejected counts calls Allow refused since New; Stale counts results
	// Record ignored because their ticket's generation had ended.
	Rejected, Stale uint64
}

type forcing uint8

const (
	notForced forcing = iota
	forcedOpen
	forcedClosed
)

// Breaker is an error-rate circuit breaker over a sliding window of
// buckets. It is a pure function of the instants and results it is given: it
// reads no clock and starts no goroutine.
//
// Call [Breaker.Allow] before each call to the protected dependency; if it
// returns a nil error, make the call and report its result with
// [Breaker.Record], passing back the [Ticket]. A result whose ticket belongs to
// an earlier generation (the breaker has opened, closed, or been overridden
// since) is ignored, so late results cannot trip or close a breaker that has
// moved on.
//
// Time must not run backwards: an instant earlier than one already seen is
// treated as that latest instant.
//
// # Concurrency
//
// A Breaker is safe for concurrent use, and its common paths take no lock
// and write no memory shared between goroutines: Allow on a closed breaker,
// Record of a success or of a stale result, and Allow's refusal while open
// read the current generation through one atomic pointer, and keep the
// latest instant, the success count and the refusal counts in per-goroutine
// stripes (see control/internal/stripe) that reads add up or take the maximum of. The lock is
// taken to record a failure (which may trip the breaker), while half-open,
// once per bucket to slide the window, and for every transition and
// override. A success counts in the generation its Record read, so one that
// races with a transition counts in the generation that ended, as it would
// had it come a moment earlier, never in the next. Each transition allocates
// the new generation (about a kilobyte); otherwise Allow and Record allocate
// nothing.
//
// From one goroutine every Ticket, error, state and field of [Breaker.Stats]
// is exactly what a Breaker behind one mutex returns. Under concurrent use a
// success recorded while another goroutine slides the window may count in
// the bucket that begins rather than the one that ends, and a Stats snapshot
// may mix counts taken moments apart.
type Breaker struct {
	cfg      Config // with defaults applied; immutable
	classify func(Call) Outcome
	width    time.Duration // Window / Buckets

	// Read on every call, written rarely.
	started atomic.Bool
	epoch   time.Time                  // the first instant seen; set with mu held before started
	wall    wallEpoch                  // epoch, for sinceEpoch; set with it
	gen     atomic.Pointer[generation] // the current generation
	edge    atomic.Int64               // start of bucket head+1, since epoch; the window slides when an instant reaches it
	cells   *[stripe.N]cell            // written on every call, a stripe per goroutine

	mu      sync.Mutex // slides the window, records failures and probes, makes transitions; guards the fields below
	head    int64      // bucket number (since epoch) of the newest bucket
	okStart []int64    // per bucket: the generation's success count when the bucket began
	fails   []int64    // per bucket: failures
	fail    int64      // sum of fails

	probes, probeOK int
	nextOpen        time.Duration // the open period of the next trip: OpenFor, doubled by each failed probe
}

// cell is one stripe of the words every call writes. It is 64 bytes and holds
// no pointer, and the cells are allocated together as an array, so the
// allocator places each on a cache line of its own.
type cell struct {
	last     atomic.Int64 // the latest instant this stripe has seen, since epoch
	rejected atomic.Uint64
	stale    atomic.Uint64
	_        [40]byte
}

// generation is one generation of the breaker: fixed when it begins, but for
// its count of successes, kept in stripes of a cache line each after the
// fixed header's line.
type generation struct {
	n       uint64
	since   time.Duration // when it began, since epoch
	openFor time.Duration // how long it stays open (Open, not forced)
	state   State
	forced  forcing
	_       [38]byte
	ok      [stripe.N]okCell // successes recorded while closed, since it began
}

type okCell struct {
	n atomic.Int64
	_ [56]byte
}

// wallEpoch is the epoch as sinceEpoch uses it.
type wallEpoch struct {
	sec, nsec int64 // epoch.Unix(), epoch.Nanosecond()
	fast      bool  // epoch carries no monotonic clock reading and sec is in nanotime.Sub's fast range
}

// The bounds of nanotime.Sub's fast path.
const (
	unixLimit = 1 << 62
	subLimit  = 9_000_000_000
)

func newWallEpoch(epoch time.Time) wallEpoch {
	sec := epoch.Unix()
	return wallEpoch{
		sec:  sec,
		nsec: int64(epoch.Nanosecond()),
		fast: epoch.Round(0) == epoch && sec > -unixLimit && sec < unixLimit,
	}
}

// sinceEpoch returns now.Sub(b.epoch), exactly as nanotime.Sub does. When
// the epoch carries no monotonic clock reading (so nanotime.Sub subtracts
// wall clocks whatever now carries), it subtracts here without asking
// whether now carries one, which costs nanotime.Sub two comparisons of
// time.Time values per call.
func (b *Breaker) sinceEpoch(now time.Time) time.Duration {
	if b.wall.fast {
		if ts := now.Unix(); ts > -unixLimit && ts < unixLimit {
			if s := ts - b.wall.sec; s > -subLimit && s < subLimit {
				return time.Duration(s)*time.Second + time.Duration(int64(now.Nanosecond())-b.wall.nsec)
			}
		}
	}
	return nanotime.Sub(now, b.epoch)
}

// New returns a closed breaker for cfg, at generation 1.
func New(cfg Config) (*Breaker, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if cfg.Classify == nil {
		cfg.Classify = DefaultClassify
	}
	b := &Breaker{
		cfg:      cfg,
		classify: cfg.Classify,
		nextOpen: cfg.OpenFor,
		width:    cfg.Window / time.Duration(cfg.Buckets),
		cells:    new([stripe.N]cell),
		okStart:  make([]int64, cfg.Buckets),
		fails:    make([]int64, cfg.Buckets),
	}
	b.edge.Store(int64(b.width))
	b.gen.Store(&generation{n: 1, state: Closed})
	return b, nil
}

// Config returns the breaker's configuration with defaults applied
// (Classify is DefaultClassify when it was nil).
func (b *Breaker) Config() Config { return b.cfg }

// Classify returns the [Outcome] of c by the configured classifier, for
// [Breaker.Record].
func (b *Breaker) Classify(c Call) Outcome { return b.classify(c) }

// Allow reports whether a call may be made at now. It returns a [Ticket]
// for [Breaker.Record] and a nil error when the breaker is closed, or
// half-open with a probe left; otherwise it returns [ErrOpen] or
// [ErrProbeLimit]. Allow moves an open breaker whose OpenFor has passed to
// half-open (a new generation).
func (b *Breaker) Allow(now time.Time) (Ticket, error) {
	c := &b.cells[stripe.Of()]
	if g, d, ok := b.quick(now, c); ok {
		switch {
		case g.state == Closed:
			return Ticket{g.n}, nil
		case b.stillOpen(g, d):
			c.rejected.Add(1)
			return Ticket{}, ErrOpen
		}
	}
	b.mu.Lock()
	g := b.observe(now, c)
	switch g.state {
	case Closed:
		b.mu.Unlock()
		return Ticket{g.n}, nil
	case HalfOpen:
		if b.probes < b.cfg.HalfOpenProbes {
			b.probes++
			b.mu.Unlock()
			return Ticket{g.n}, nil
		}
		c.rejected.Add(1)
		b.mu.Unlock()
		return Ticket{}, ErrProbeLimit
	default:
		c.rejected.Add(1)
		b.mu.Unlock()
		return Ticket{}, ErrOpen
	}
}

// quick records now, since epoch, in the stripe c, and returns the current
// generation and now since epoch when that is all observe would do: the
// breaker has started and now is before the next bucket. ok is false
// otherwise, and the caller takes the lock. Timed transitions are the
// caller's to rule out (see stillOpen).
//
// Without the lock, d is not clamped to the latest instant. That changes no
// result on a closed breaker: from one goroutine the latest instant is
// always before the next bucket (the call that reaches the next bucket takes
// the lock and slides the window past it), so d is before the next bucket
// exactly when the clamped instant is.
func (b *Breaker) quick(now time.Time, c *cell) (g *generation, d time.Duration, ok bool) {
	if !b.started.Load() {
		return nil, 0, false
	}
	g = b.gen.Load()
	d = b.sinceEpoch(now)
	raise(&c.last, d)
	if d >= time.Duration(b.edge.Load()) {
		return nil, 0, false
	}
	return g, d, true
}

// stillOpen reports whether g is open at d, clamped to the latest instant,
// and stays so: forced open, or its open period not yet passed.
func (b *Breaker) stillOpen(g *generation, d time.Duration) bool {
	if g.state != Open {
		return false
	}
	return g.forced != notForced || max(d, b.latest())-g.since < g.openFor
}

// raise raises the instant at p to d.
func raise(p *atomic.Int64, d time.Duration) {
	for l := p.Load(); int64(d) > l && !p.CompareAndSwap(l, int64(d)); l = p.Load() {
	}
}

// latest returns the latest instant seen, since epoch.
func (b *Breaker) latest() time.Duration {
	var l int64
	for i := range b.cells {
		l = max(l, b.cells[i].last.Load())
	}
	return time.Duration(l)
}

// Record reports the outcome of a call made under t, as [Breaker.Classify]
// gives it: a Success or a Failure counts, Ignored counts nothing (and
// hands a half-open probe out again). Results of an earlier generation are
// ignored.
//
// While closed, a failure that brings the window to at least MinVolume
// results with an error fraction at or above Threshold opens the breaker.
// While half-open, a failure opens it again (for twice the last open period,
// up to MaxOpenFor) and HalfOpenProbes successes close it; either is a new
// generation.
func (b *Breaker) Record(now time.Time, t Ticket, o Outcome) {
	s := stripe.Of()
	c := &b.cells[s]
	ok := o == Success
	if g, d, fast := b.quick(now, c); fast && (g.state == Closed || b.stillOpen(g, d)) {
		switch {
		case t.gen != g.n:
			c.stale.Add(1)
			return
		case g.state != Closed:
		case ok:
			g.ok[s].n.Add(1)
			return
		case o != Failure:
			return
		}
	}
	b.mu.Lock()
	g := b.observe(now, c)
	if t.gen != g.n {
		c.stale.Add(1)
		b.mu.Unlock()
		return
	}
	switch {
	case g.state == Closed && ok:
		g.ok[s].n.Add(1)
	case g.state == Closed && o == Failure:
		b.fails[b.head%int64(len(b.fails))]++
		b.fail++
		if g.forced == notForced && b.shouldTrip(g) {
			b.become(Open, g.forced)
		}
	case g.state != HalfOpen:
	case ok:
		if b.probeOK++; b.probeOK >= b.cfg.HalfOpenProbes {
			b.become(Closed, g.forced)
		}
	case o == Failure:
		b.become(Open, g.forced)
	default: // Ignored: the probe says nothing; hand it out again
		b.probes = max(0, b.probes-1)
	}
	b.mu.Unlock()
}

// State returns the breaker's state at now, moving an open breaker whose
// OpenFor has passed to half-open.
func (b *Breaker) State(now time.Time) State {
	c := &b.cells[stripe.Of()]
	if g, d, ok := b.quick(now, c); ok && (g.state == Closed || b.stillOpen(g, d)) {
		return g.state
	}
	b.mu.Lock()
	s := b.observe(now, c).state
	b.mu.Unlock()
	return s
}

// Generation returns the current generation. It starts at 1 and increases by
// one on every state change and every manual override.
func (b *Breaker) Generation() uint64 { return b.gen.Load().n }

// Stats returns a snapshot as of the latest instant the breaker was given.
func (b *Breaker) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	g := b.gen.Load()
	s := Stats{
		At:             b.epoch.Add(b.latest()),
		State:          g.state,
		Generation:     g.n,
		Forced:         g.forced != notForced,
		Successes:      int(b.successes(g)),
		Failures:       int(b.fail),
		Probes:         b.probes,
		ProbeSuccesses: b.probeOK,
	}
	for i := range b.cells {
		s.Rejected += b.cells[i].rejected.Load()
		s.Stale += b.cells[i].stale.Load()
	}
	return s
}

// ForceOpen opens the breaker at now and keeps it open, refusing every call,
// until [Breaker.ForceClosed] or [Breaker.Reset]. It starts a new generation.
func (b *Breaker) ForceOpen(now time.Time) {
	b.override(now, Open, forcedOpen)
}

// ForceClosed closes the breaker at now and keeps it closed, never tripping
// (results are still counted), until [Breaker.ForceOpen] or [Breaker.Reset].
// It starts a new generation.
func (b *Breaker) ForceClosed(now time.Time) {
	b.override(now, Closed, forcedClosed)
}

// Reset ends any manual override and closes the breaker at now with an empty
// window. It starts a new generation.
func (b *Breaker) Reset(now time.Time) {
	b.override(now, Closed, notForced)
}

// override moves the breaker to now and starts a generation in state s,
// forced as f.
func (b *Breaker) override(now time.Time, s State, f forcing) {
	b.mu.Lock()
	b.observe(now, &b.cells[stripe.Of()])
	b.become(s, f)
	b.mu.Unlock()
}

// okCount returns the successes recorded in generation g.
func (g *generation) okCount() int64 {
	var n int64
	for i := range g.ok {
		n += g.ok[i].n.Load()
	}
	return n
}

// successes returns the successes of generation g in the window. b.mu held.
func (b *Breaker) successes(g *generation) int64 {
	n := int64(len(b.okStart))
	return g.okCount() - b.okStart[(b.head+1)%n] // the bucket after head is the oldest of the window
}

// shouldTrip reports whether the window holds enough results with a high
// enough error fraction. b.mu held.
func (b *Breaker) shouldTrip(g *generation) bool {
	total := b.successes(g) + b.fail
	return total >= int64(b.cfg.MinVolume) && float64(b.fail) >= b.cfg.Threshold*float64(total)
}

// become starts a new generation in state s, forced as f, at the latest
// instant, with an empty window. An unforced Open generation takes the next
// open period and doubles it for the trip after, up to MaxOpenFor; Closed
// starts the periods again from OpenFor. b.mu held.
func (b *Breaker) become(s State, f forcing) {
	g := b.gen.Load()
	next := &generation{n: g.n + 1, state: s, forced: f, since: b.latest()}
	switch {
	case s == Open && f == notForced:
		next.openFor = b.nextOpen
		if b.nextOpen > b.cfg.MaxOpenFor/2 {
			b.nextOpen = b.cfg.MaxOpenFor
		} else {
			b.nextOpen *= 2
		}
	case s == Closed:
		b.nextOpen = b.cfg.OpenFor
	}
	b.gen.Store(next)
	b.probes, b.probeOK = 0, 0
	clear(b.okStart) // the new generation counts from zero
	clear(b.fails)
	b.fail = 0
}

// observe moves the breaker to now, recording it in the stripe c: it clamps
// time so that it never runs backwards, slides the window, and applies the
// timed transitions. It returns the generation current at now. b.mu held.
func (b *Breaker) observe(now time.Time, c *cell) *generation {
	if !b.started.Load() {
		b.epoch, b.wall = now, newWallEpoch(now)
		b.started.Store(true)
	}
	raise(&c.last, b.sinceEpoch(now))
	d := b.latest()
	g := b.gen.Load()

	// Slide the window to the bucket that holds d: the buckets it enters
	// begin at the generation's current count of successes.
	if d >= time.Duration(b.edge.Load()) {
		n := int64(len(b.fails))
		k := int64(d / b.width)
		ok := g.okCount()
		for j := max(b.head+1, k-n+1); j <= k; j++ {
			i := j % n
			b.fail -= b.fails[i]
			b.fails[i] = 0
			b.okStart[i] = ok
		}
		b.head = k
		b.edge.Store(int64(time.Duration(k+1) * b.width))
	}

	switch g.state {
	case Open:
		if g.forced == notForced && d-g.since >= g.openFor {
			b.become(HalfOpen, g.forced)
		}
	case HalfOpen:
		// Probes handed out but never recorded would hold the breaker
		// half-open forever; after MaxOpenFor, a new generation hands out
		// fresh probes and ignores the old ones.
		if b.probes >= b.cfg.HalfOpenProbes && d-g.since >= b.cfg.MaxOpenFor {
			b.become(HalfOpen, g.forced)
		}
	}
	return b.gen.Load()
}
