package breaker

// This file keeps, for the differential tests in equiv_test.go, the mutex
// implementation of Breaker that the lock-free one replaced (commit
// 24e1cd9), renamed, with outcomes (Ignored) and the open period that backs
// off on repeated trips added since: refBreaker is the specification
// the new Breaker must match, call for call and field for field of Stats,
// when one goroutine drives it.

import (
	"sync"
	"time"

	"github.com/goodput-lab/goodput/control/internal/nanotime"
)

// refCounts is one bucket of the sliding window.
type refCounts struct {
	ok, fail int64
}

// refBreaker is an error-rate circuit breaker over a sliding window of
// buckets. It is a pure function of the instants and results it is given: it
// reads no clock and starts no goroutine.
//
// Call [refBreaker.Allow] before each call to the protected dependency; if it
// returns a nil error, make the call and report its result with
// [refBreaker.Record], passing back the [Ticket]. A result whose ticket belongs to
// an earlier generation (the breaker has opened, closed, or been overridden
// since) is ignored, so late results cannot trip or close a breaker that has
// moved on.
//
// Time must not run backwards: an instant earlier than one already seen is
// treated as that latest instant. A refBreaker is safe for concurrent use.
type refBreaker struct {
	mu  sync.Mutex
	cfg Config // with defaults applied

	width   time.Duration // Window / Buckets
	buckets []refCounts
	ok      int64         // sum of buckets[].ok
	fail    int64         // sum of buckets[].fail
	head    int64         // bucket number (since epoch) of the newest bucket
	edge    time.Duration // start of bucket head+1, since epoch
	epoch   time.Time     // the first instant seen; instants below are durations since it
	last    time.Duration // the latest instant seen
	started bool

	state    State
	gen      uint64
	since    time.Duration // when the current generation began
	forced   forcing
	openFor  time.Duration // the current open period
	nextOpen time.Duration // the next one

	probes, probeOK int

	rejected, stale uint64
}

// New returns a closed breaker for cfg, at generation 1.
func newRef(cfg Config) (*refBreaker, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	return &refBreaker{
		cfg:      cfg,
		width:    cfg.Window / time.Duration(cfg.Buckets),
		edge:     cfg.Window / time.Duration(cfg.Buckets),
		buckets:  make([]refCounts, cfg.Buckets),
		gen:      1,
		nextOpen: cfg.OpenFor,
	}, nil
}

// Config returns the breaker's configuration with defaults applied.
func (b *refBreaker) Config() Config { return b.cfg }

// Allow reports whether a call may be made at now. It returns a [Ticket]
// for [refBreaker.Record] and a nil error when the breaker is closed, or
// half-open with a probe left; otherwise it returns [ErrOpen] or
// [ErrProbeLimit]. Allow moves an open breaker whose OpenFor has passed to
// half-open (a new generation).
func (b *refBreaker) Allow(now time.Time) (Ticket, error) {
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
func (b *refBreaker) Record(now time.Time, t Ticket, o Outcome) {
	b.mu.Lock()
	b.observe(now)
	if t.gen != b.gen {
		b.stale++
		b.mu.Unlock()
		return
	}
	if o == Ignored {
		if b.state == HalfOpen && b.probes > 0 {
			b.probes-- // the probe said nothing: it may be handed out again
		}
		b.mu.Unlock()
		return
	}
	ok := o == Success
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
func (b *refBreaker) State(now time.Time) State {
	b.mu.Lock()
	b.observe(now)
	s := b.state
	b.mu.Unlock()
	return s
}

// Generation returns the current generation. It starts at 1 and increases by
// one on every state change and every manual override.
func (b *refBreaker) Generation() uint64 {
	b.mu.Lock()
	g := b.gen
	b.mu.Unlock()
	return g
}

// Stats returns a snapshot as of the latest instant the breaker was given.
func (b *refBreaker) Stats() Stats {
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
// until [refBreaker.ForceClosed] or [refBreaker.Reset]. It starts a new generation.
func (b *refBreaker) ForceOpen(now time.Time) {
	b.mu.Lock()
	b.observe(now)
	b.forced = forcedOpen
	b.become(Open)
	b.mu.Unlock()
}

// ForceClosed closes the breaker at now and keeps it closed, never tripping
// (results are still counted), until [refBreaker.ForceOpen] or [refBreaker.Reset].
// It starts a new generation.
func (b *refBreaker) ForceClosed(now time.Time) {
	b.mu.Lock()
	b.observe(now)
	b.forced = forcedClosed
	b.become(Closed)
	b.mu.Unlock()
}

// Reset ends any manual override and closes the breaker at now with an empty
// window. It starts a new generation.
func (b *refBreaker) Reset(now time.Time) {
	b.mu.Lock()
	b.observe(now)
	b.forced = notForced
	b.become(Closed)
	b.mu.Unlock()
}

// shouldTrip reports whether the window holds enough results with a high
// enough error fraction.
func (b *refBreaker) shouldTrip() bool {
	total := b.ok + b.fail
	return total >= int64(b.cfg.MinVolume) && float64(b.fail) >= b.cfg.Threshold*float64(total)
}

// become starts a new generation in state s at b.last. An unforced Open
// takes the next open period and doubles it, up to MaxOpenFor; Closed starts
// again from OpenFor.
func (b *refBreaker) become(s State) {
	switch {
	case s == Open && b.forced == notForced:
		b.openFor = b.nextOpen
		b.nextOpen = min(2*b.nextOpen, b.cfg.MaxOpenFor)
		if b.nextOpen < b.openFor { // 2× overflowed
			b.nextOpen = b.cfg.MaxOpenFor
		}
	case s == Closed:
		b.nextOpen = b.cfg.OpenFor
	}
	b.state = s
	b.gen++
	b.since = b.last
	b.probes, b.probeOK = 0, 0
	b.clearWindow()
}

func (b *refBreaker) clearWindow() {
	clear(b.buckets)
	b.ok, b.fail = 0, 0
}

// observe moves the breaker to now: it clamps time so that it never runs
// backwards, slides the window, and applies the timed transitions.
func (b *refBreaker) observe(now time.Time) {
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
				*c = refCounts{}
			}
		}
		b.head = k
		b.edge = time.Duration(k+1) * b.width
	}

	switch b.state {
	case Open:
		if b.forced == notForced && d-b.since >= b.openFor {
			b.become(HalfOpen)
		}
	case HalfOpen:
		// Probes handed out but never recorded would hold the breaker
		// half-open forever; after MaxOpenFor, a new generation hands out
		// fresh probes and ignores the old ones.
		if b.probes >= b.cfg.HalfOpenProbes && d-b.since >= b.cfg.MaxOpenFor {
			b.become(HalfOpen)
		}
	}
}
