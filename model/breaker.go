package model

import (
	"context"
	"errors"
	"slices"

	"github.com/goodput-lab/goodput/control/breaker"
	"github.com/goodput-lab/goodput/scenario"
)

// Circuit breakers (scenario.BreakerPolicy). Each calling instance has its own
// control/breaker.Breaker per guarded dependency, made when the instance first calls it,
// and the arm drives it as control/controlhttp's client does, at the arm's virtual instant:
// a call asks Allow before it takes a connection (a refusal fails the stage at once and is
// not retried), its result is Recorded once, when its caller learns it (an answer, an
// overload rejection, a timeout) or stops waiting (a cancellation, a crash), with the
// Outcome the breaker's classifier gives for what the caller saw, and a failed call is not
// retried while its breaker is open. A breaker's state changes go to the timeline as
// events of kind breaker, at the instant the breaker makes them (a timed change from open
// to half-open when the first call after the open period asks).

// Refusal reasons of a breaker, as the packet counts them.
const (
	reasonBreakerOpen  = "breaker-open"
	reasonProbeLimit   = "probe-limit"
	statusAnswerOK     = 200 // a successful answer, for the classifier
	statusAnswerFailed = 503 // the dependency's error answer, for the classifier
	statusOverloaded   = 429 // the dependency's explicit overload rejection
)

// errCallTimeout is what a caller sees of a call that timed out: a deadline exceeded.
var errCallTimeout = context.DeadlineExceeded

// breakerRT is an arm's circuit breakers.
type breakerRT struct {
	cfgs  []*breaker.Config // by dependency; nil for a dependency without a breaker
	names []string          // the guarded dependencies, as the policy declares them
	by    [][]instBreaker   // by dependency, by calling instance; grown on first use
	// The tickets of the calls in flight, by call index: inl for a record's own call
	// (index inline + the record's), ovf for the overflow slab's.
	inl, ovf []heldTicket
}

// instBreaker is one calling instance's breaker of a dependency, with the generation and
// state the timeline last showed.
type instBreaker struct {
	b     *breaker.Breaker
	gen   uint64
	state breaker.State
}

// heldTicket is the ticket a call holds until its result is recorded; b is nil when it
// holds none.
type heldTicket struct {
	b *breaker.Breaker
	t breaker.Ticket
}

// newBreakers compiles the policy's breakers against plan p; nil without any.
func newBreakers(p *plan, bs []scenario.BreakerPolicy) (*breakerRT, error) {
	if len(bs) == 0 {
		return nil, nil
	}
	r := &breakerRT{cfgs: make([]*breaker.Config, len(p.deps)), by: make([][]instBreaker, len(p.deps))}
	for _, bp := range bs {
		d := slices.IndexFunc(p.deps, func(dp depPlan) bool { return dp.name == bp.Dependency })
		if d < 0 {
			return nil, errors.New("breaker: unknown dependency " + bp.Dependency)
		}
		cfg := bp.Config()
		if err := cfg.Validate(); err != nil {
			return nil, err
		}
		r.cfgs[d] = &cfg
		r.names = append(r.names, bp.Dependency)
	}
	return r, nil
}

// guards reports whether calls to dependency dep go through a breaker.
func (r *breakerRT) guards(dep int) bool { return r != nil && r.cfgs[dep] != nil }

// of returns instance ii's breaker of dependency dep, making it on first use.
func (r *breakerRT) of(dep int, ii int32) *instBreaker {
	row := r.by[dep]
	if int(ii) >= len(row) {
		row = append(row, make([]instBreaker, int(ii)+1-len(row))...)
		r.by[dep] = row
	}
	ib := &row[ii]
	if ib.b == nil {
		b, err := breaker.New(*r.cfgs[dep])
		if err != nil {
			panic(err) // validated in newBreakers
		}
		ib.b, ib.gen, ib.state = b, b.Generation(), breaker.Closed
	}
	return ib
}

// slot is the ticket place of call ci.
func (r *breakerRT) slot(ci int32) *heldTicket {
	s, i := &r.ovf, int(ci)
	if ci >= inline {
		s, i = &r.inl, int(ci-inline)
	}
	if i >= len(*s) {
		*s = append(*s, make([]heldTicket, i+1-len(*s))...)
	}
	return &(*s)[i]
}

// breakerAllow asks instance ii's breaker of dependency dep for a call now. It returns
// the breaker and its ticket, or false after recording the refusal.
func (a *arm) breakerAllow(dep int, ii int32) (heldTicket, bool) {
	ib := a.pol.brk.of(dep, ii)
	t, err := ib.b.Allow(a.wall())
	a.breakerSeen(dep, ii, ib)
	if err != nil {
		why := reasonBreakerOpen
		if errors.Is(err, breaker.ErrProbeLimit) {
			why = reasonProbeLimit
		}
		a.rec.BreakerRefused(a.now(), a.p.deps[dep].name, why)
		return heldTicket{}, false
	}
	return heldTicket{b: ib.b, t: t}, true
}

// breakerHold gives call ci the ticket h.
func (a *arm) breakerHold(ci int32, h heldTicket) { *a.pol.brk.slot(ci) = h }

// breakerRecord records the result of call ci (c) as its caller saw it, bc, if it still
// holds a ticket: the first result of a call is its only one.
func (a *arm) breakerRecord(ci int32, c *call, bc breaker.Call) {
	r := a.pol.brk
	if !r.guards(int(c.dep)) {
		return
	}
	h := r.slot(ci)
	if h.b == nil {
		return
	}
	b, t := h.b, h.t
	*h = heldTicket{}
	b.Record(a.wall(), t, b.Classify(bc))
	if ib := r.of(int(c.dep), c.inst); ib.b == b {
		a.breakerSeen(int(c.dep), c.inst, ib)
	}
}

// breakerFree records call ci (c), freed while it still holds a ticket, as one its caller
// stopped waiting for (cancelled): the breaker counts nothing, and a probe is handed out
// again.
func (a *arm) breakerFree(ci int32, c *call) {
	a.breakerRecord(ci, c, breaker.Call{Err: context.Canceled})
}

// breakerTimeout is what a caller saw of call c timing out: its own ceiling (the
// dependency's fixed timeout), or its deadline's when the timeout is derived from it (with
// no ceiling, as the model derives it).
func (a *arm) breakerTimeout() breaker.Call {
	return breaker.Call{Err: errCallTimeout, CallerDeadline: a.pol.derived}
}

// breakerOpen reports whether instance ii's breaker of dependency dep is open now, as the
// client asks before it retries.
func (a *arm) breakerOpen(dep int, ii int32) bool {
	if !a.pol.brk.guards(dep) {
		return false
	}
	ib := a.pol.brk.of(dep, ii)
	open := ib.b.State(a.wall()) == breaker.Open
	a.breakerSeen(dep, ii, ib)
	return open
}

// breakerSeen puts a state change of instance ii's breaker ib of dependency dep on the
// timeline, if it made one since the last look.
func (a *arm) breakerSeen(dep int, ii int32, ib *instBreaker) {
	g := ib.b.Generation()
	if g == ib.gen {
		return
	}
	st := ib.b.Stats().State
	if st != ib.state {
		a.rec.BreakerState(a.now(), a.p.deps[dep].name, int(ii), ib.state.String(), st.String())
	}
	ib.gen, ib.state = g, st
}
