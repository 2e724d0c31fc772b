package breaker

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"goodput/control/internal/nanotime"
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
	// Open: calls are refused with ErrOpen until Config.OpenFor has passed.
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

// Defaults used for zero fields of [Config]. Together they are the AI-2 breaker
// (see [AI2]).
const (
	DefaultWindow         = 30 * time.Second
	DefaultBuckets        = 10
	DefaultMinVolume      = 20
	DefaultThreshold      = 0.25
	DefaultOpenFor        = 10 * time.Second
	DefaultHalfOpenProbes = 3
)

// maxBuckets bounds the memory a breaker may take.
const maxBuckets = 1 << 16

// Config configures a [Breaker]. Every zero field takes its documented
// default, so the zero Config is the [AI2] breaker.
type Config struct {
	// Window is the length of the sliding window over which the error rate
	// is measured. Zero means DefaultWindow (30 s).
	Window time.Duration
	// Buckets is the number of buckets the window is divided into; the window
	// slides one bucket (Window/Buckets) at a time, so old results leave
	// the window a bucket at a time instead of all at once, and a result
	// counts for between Window−Window/Buckets and Window after it is
	// recorded. Zero means DefaultBuckets (10, i.e. 3 s buckets for a 30 s
	// window).
	Buckets int
	// MinVolume is the number of results the window must hold before the
	// breaker may trip: below it, even 100% errors keep it closed. Zero means
	// DefaultMinVolume (20).
	MinVolume int
	// Threshold is the error fraction (failures / results in the window) at
	// or above which the breaker opens; it must be in (0, 1]. Zero means
	// DefaultThreshold (0.25).
	Threshold float64
	// OpenFor is how long the breaker stays open before it lets probes
	// through (half-open). It is also how long a half-open generation waits
	// for the results of its probes before it hands out fresh ones. Zero
	// means DefaultOpenFor (10 s).
	OpenFor time.Duration
	// HalfOpenProbes is how many calls are let through while half-open; that
	// many successes close the breaker, a single failure opens it again.
	// Zero means DefaultHalfOpenProbes (3).
	HalfOpenProbes int
}

// AI2 returns the breaker of action item AI-2 in the payment-provider
// postmortem: open at 25% errors over 30 seconds. The seed fixes only the
// threshold and the window; the 3 s buckets, the minimum of 20 results, the
// 10 s open period and the 3 probes are goodput's choices.
func AI2() Config {
	return Config{
		Window:         DefaultWindow,
		Buckets:        DefaultBuckets,
		MinVolume:      DefaultMinVolume,
		Threshold:      DefaultThreshold,
		OpenFor:        DefaultOpenFor,
		HalfOpenProbes: DefaultHalfOpenProbes,
	}
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
	case c.HalfOpenProbes < 0:
		return fmt.Errorf("breaker: HalfOpenProbes %d is negative; want ≥ 1 (or 0 for %d)", c.HalfOpenProbes, DefaultHalfOpenProbes)
	}
	d := c.withDefaults()
	if d.Window < time.Duration(d.Buckets) {
		return fmt.Errorf("breaker: Window %v is shorter than %d buckets of 1ns", d.Window, d.Buckets)
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

// counts is one bucket of the sliding window.
type counts struct {
	ok, fail int64
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
// treated as that latest instant. A Breaker is safe for concurrent use.
type Breaker struct {
	mu  sync.Mutex
	cfg Config // with defaults applied

	width   time.Duration // Window / Buckets
	buckets []counts
	ok      int64         // sum of buckets[].ok
	fail    int64         // sum of buckets[].fail
	head    int64         // bucket number (since epoch) of the newest bucket
	edge    time.Duration // start of bucket head+1, since epoch
	epoch   time.Time     // the first instant seen; instants below are durations since it
	last    time.Duration // the latest instant seen
	started bool

	state  State
	gen    uint64
	since  time.Duration // when the current generation began
	forced forcing

	probes, probeOK int

	rejected, stale uint64
}

// New returns a closed breaker for cfg, at generation 1.
func New(cfg Config) (*Breaker, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	return &Breaker{
		cfg:     cfg,
		width:   cfg.Window / time.Duration(cfg.Buckets),
		edge:    cfg.Window / time.Duration(cfg.Buckets),
		buckets: make([]counts, cfg.Buckets),
		gen:     1,
	}, nil
}

// Config returns the breaker's configuration with defaults applied.
func (b *Breaker) Config() Config { return b.cfg }

// Allow reports whether a call may be made at now. It returns a [Ticket]
// for [Breaker.Record] and a nil error when the breaker is closed, or
// half-open with a probe left; otherwise it returns [ErrOpen] or
// [ErrProbeLimit]. Allow moves an open breaker whose OpenFor has passed to
// half-open (a new generation).
func (b *Breaker) Allow(now time.Time) (Ticket, error) {
	b.mu.Lock()
	b.observe(now)
	switch b.state {
	case Closed:
		t := Ticket{b.gen}
		b.mu.Unlock()
		return t, nil
	case HalfOpen:
		if b.probes < b.cfg.HalfOpenProbes {
			b.probes++
			t := Ticket{b.gen}
			b.mu.Unlock()
			return t, nil
		}
		b.rejected++
		b.mu.Unlock()
		return Ticket{}, ErrProbeLimit
	default:
		b.rejected++
		b.mu.Unlock()
		return Ticket{}, ErrOpen
	}
}

// Record reports the result of a call made under t: ok is false when the
// call failed in a way that should count against the dependency (leave out
// results that say nothing about it, such as the caller cancelling). Results
// of an earlier generation are ignored.
//
// While closed, a failure that brings the window to at least MinVolume
// results with an error fraction at or above Threshold opens the breaker.
// While half-open, a failure opens it again and HalfOpenProbes successes
// close it; either is a new generation.
func (b *Breaker) Record(now time.Time, t Ticket, ok bool) {
	b.mu.Lock()
	b.observe(now)
	if t.gen != b.gen {
		b.stale++
		b.mu.Unlock()
		return
	}
	switch b.state {
	case Closed:
		i := b.head % int64(len(b.buckets))
		if ok {
			b.buckets[i].ok++
			b.ok++
		} else {
			b.buckets[i].fail++
			b.fail++
			if b.forced == notForced && b.shouldTrip() {
				b.become(Open)
			}
		}
	case HalfOpen:
		if !ok {
			b.become(Open)
		} else if b.probeOK++; b.probeOK >= b.cfg.HalfOpenProbes {
			b.become(Closed)
		}
	}
	b.mu.Unlock()
}

// State returns the breaker's state at now, moving an open breaker whose
// OpenFor has passed to half-open.
func (b *Breaker) State(now time.Time) State {
	b.mu.Lock()
	b.observe(now)
	s := b.state
	b.mu.Unlock()
	return s
}

// Generation returns the current generation. It starts at 1 and increases by
// one on every state change and every manual override.
func (b *Breaker) Generation() uint64 {
	b.mu.Lock()
	g := b.gen
	b.mu.Unlock()
	return g
}

// Stats returns a snapshot as of the latest instant the breaker was given.
func (b *Breaker) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return Stats{
		At:             b.epoch.Add(b.last),
		State:          b.state,
		Generation:     b.gen,
		Forced:         b.forced != notForced,
		Successes:      int(b.ok),
		Failures:       int(b.fail),
		Probes:         b.probes,
		ProbeSuccesses: b.probeOK,
		Rejected:       b.rejected,
		Stale:          b.stale,
	}
}

// ForceOpen opens the breaker at now and keeps it open, refusing every call,
// until [Breaker.ForceClosed] or [Breaker.Reset]. It starts a new generation.
func (b *Breaker) ForceOpen(now time.Time) {
	b.mu.Lock()
	b.observe(now)
	b.forced = forcedOpen
	b.become(Open)
	b.mu.Unlock()
}

// ForceClosed closes the breaker at now and keeps it closed, never tripping
// (results are still counted), until [Breaker.ForceOpen] or [Breaker.Reset].
// It starts a new generation.
func (b *Breaker) ForceClosed(now time.Time) {
	b.mu.Lock()
	b.observe(now)
	b.forced = forcedClosed
	b.become(Closed)
	b.mu.Unlock()
}

// Reset ends any manual override and closes the breaker at now with an empty
// window. It starts a new generation.
func (b *Breaker) Reset(now time.Time) {
	b.mu.Lock()
	b.observe(now)
	b.forced = notForced
	b.become(Closed)
	b.mu.Unlock()
}

// shouldTrip reports whether the window holds enough results with a high
// enough error fraction.
func (b *Breaker) shouldTrip() bool {
	total := b.ok + b.fail
	return total >= int64(b.cfg.MinVolume) && float64(b.fail) >= b.cfg.Threshold*float64(total)
}

// become starts a new generation in state s at b.last.
func (b *Breaker) become(s State) {
	b.state = s
	b.gen++
	b.since = b.last
	b.probes, b.probeOK = 0, 0
	b.clearWindow()
}

func (b *Breaker) clearWindow() {
	clear(b.buckets)
	b.ok, b.fail = 0, 0
}

// observe moves the breaker to now: it clamps time so that it never runs
// backwards, slides the window, and applies the timed transitions.
func (b *Breaker) observe(now time.Time) {
	if !b.started {
		b.started = true
		b.epoch = now
	}
	d := nanotime.Sub(now, b.epoch)
	if d < b.last {
		d = b.last
	}
	b.last = d

	// Slide the window to the bucket that holds d.
	if d >= b.edge {
		n := int64(len(b.buckets))
		k := int64(d / b.width)
		if k-b.head >= n {
			b.clearWindow()
		} else {
			for j := b.head + 1; j <= k; j++ {
				c := &b.buckets[j%n]
				b.ok -= c.ok
				b.fail -= c.fail
				*c = counts{}
			}
		}
		b.head = k
		b.edge = time.Duration(k+1) * b.width
	}

	switch b.state {
	case Open:
		if b.forced == notForced && d-b.since >= b.cfg.OpenFor {
			b.become(HalfOpen)
		}
	case HalfOpen:
		// Probes handed out but never recorded would hold the breaker
		// half-open forever; after OpenFor, a new generation hands out
		// fresh probes and ignores the old ones.
		if b.probes >= b.cfg.HalfOpenProbes && d-b.since >= b.cfg.OpenFor {
			b.become(HalfOpen)
		}
	}
}
