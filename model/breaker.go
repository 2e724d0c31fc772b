package model

import (
	"context"
	"errors"
	"slices"
	"unsafe"

	"github.com/goodput-lab/goodput/control/breaker"
	"github.com/goodput-lab/goodput/packet"
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
// to half-open when the first call after the open period asks). A dependency's overload
// rejection (hang.go) reaches the breaker as the call freed unanswered: Ignored, as the
// classifier takes a 429.

// Refusal reasons of a breaker, as the packet counts them.
const (
	reasonBreakerOpen  = "breaker-open"
	reasonProbeLimit   = "probe-limit"
	statusAnswerOK     = 200 // a successful answer, for the classifier
	statusAnswerFailed = 503 // the dependency's error answer, for the classifier
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
// state the timeline last showed and the life of the process it belongs to.
type instBreaker struct {
	b     *breaker.Breaker
	gen   uint64
	state breaker.State
	life  uint32
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

// breakerOf returns instance ii's breaker of dependency dep, making it on first use and
// anew for each new process of the instance (instance.life): a restarted process has a new
// client, whose breaker starts closed.
func (a *arm) breakerOf(dep int, ii int32) *instBreaker {
	r := a.pol.brk
	row := r.by[dep]
	if int(ii) >= len(row) {
		row = append(row, make([]instBreaker, int(ii)+1-len(row))...)
		r.by[dep] = row
	}
	ib := &row[ii]
	life := a.insts[ii].life
	if ib.b == nil || ib.life != life {
		b, err := breaker.New(*r.cfgs[dep])
		if err != nil {
			panic(err) // validated in newBreakers
		}
		if ib.b != nil && ib.state != breaker.Closed {
			a.rec.BreakerState(a.now(), a.p.deps[dep].name, int(ii), ib.state.String(), breaker.Closed.String(), true)
		}
		*ib = instBreaker{b: b, gen: b.Generation(), state: breaker.Closed, life: life}
	}
	return ib
}

// breakerBytes bounds what the breakers of policy pol take in an arm of plan p, with
// inflight requests in flight at once: a breaker per guarded dependency and instance the run
// can have (at most one an instance's worker), a ticket place per call in flight (doubled
// for the slices that grow by doubling), and the events the timeline lists.
func (p *plan) breakerBytes(pol scenario.Policy, inflight float64) float64 {
	if len(pol.Breakers) == 0 {
		return 0
	}
	per := 0.0
	for _, b := range pol.Breakers {
		k := b.Buckets
		if k == 0 {
			k = breaker.DefaultBuckets
		}
		per += breakerFixedBytes + float64(16*k) + float64(unsafe.Sizeof(instBreaker{}))
	}
	return per*float64(p.maxWorkers) + inflight*2*float64(unsafe.Sizeof(heldTicket{})) + packet.MaxBreakerEvents*breakerEventBytes
}

// Sizes of a breaker for breakerBytes: a Breaker with its stripes and a generation, and an
// event of the timeline with its text.
const (
	breakerFixedBytes = 4 << 10
	breakerEventBytes = 512
)

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
	ib := a.breakerOf(dep, ii)
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
	if ib := a.breakerOf(int(c.dep), c.inst); ib.b == b {
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
// dependency's fixed timeout, or the policy's ceiling on a derived one), or its deadline's
// when the derived timeout fell short of the ceiling (ceiling.go).
func (a *arm) breakerTimeout(c *call) breaker.Call {
	return breaker.Call{Err: errCallTimeout, CallerDeadline: a.pol.derived && !a.cutAtCeiling(c)}
}

// breakerOpen reports whether instance ii's breaker of dependency dep is open now, as the
// client asks before it retries.
func (a *arm) breakerOpen(dep int, ii int32) bool {
	if !a.pol.brk.guards(dep) {
		return false
	}
	ib := a.breakerOf(dep, ii)
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
		a.rec.BreakerState(a.now(), a.p.deps[dep].name, int(ii), ib.state.String(), st.String(), false)
	}
	ib.gen, ib.state = g, st
}
