package controlhttp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/breaker"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/deadline"
	"github.com/goodput-lab/goodput/control/identity"
	"github.com/goodput-lab/goodput/control/levers"
	"github.com/goodput-lab/goodput/control/loadstate"
	"github.com/goodput-lab/goodput/control/shed"
)

// Header names and values the middleware writes on a refusal and the
// [Transport] reads. All are in canonical form.
const (
	// ReasonHeader carries the reason code of a refusal, e.g. "limit",
	// "reserved" or "expired" (see [Handler]).
	ReasonHeader = "Goodput-Reject-Reason"
	// GenerationHeader carries the policy generation that made the decision.
	GenerationHeader = "Goodput-Generation"
	// OverloadHeader marks an explicit overload answer. Its value
	// [NoRetry] tells the caller not to retry the request within this
	// logical request: retrying adds load exactly where there is no capacity.
	// The [Transport] never retries such a response.
	OverloadHeader = "Goodput-Overload"
	// NoRetry is the value of [OverloadHeader].
	NoRetry = "no-retry"
)

// ServerConfig configures [Handler]. The zero ServerConfig is valid: it
// reads deadline and identity headers, gives a request without a deadline
// 30 s and cuts every deadline to at most 60 s ([deadline.Config]'s
// defaults), refuses malformed and expired requests, and admits everything
// else as [admission.Standard] work in load state Normal, shedding nothing.
type ServerConfig struct {
	// Deadline says how the received headers become the request's absolute
	// deadline: the clock-skew margin subtracted from an absolute deadline,
	// the deadline given to a request that carries none
	// ([deadline.DefaultTimeout] when zero) and a cap ([deadline.DefaultMax]
	// when zero).
	Deadline deadline.Config
	// Admission decides whether the request may start. Nil admits every
	// request that has not expired.
	Admission *admission.Controller
	// Classify returns the request's admission class, e.g. from its path or
	// a header. Nil classifies every request as [admission.Standard]. A class
	// beyond [admission.Sheddable] counts as Sheddable.
	Classify func(*http.Request) admission.Class
	// Expected is the service time a request needs once admitted: admission
	// refuses a request whose remaining deadline is shorter (reason
	// "deadline"). Zero refuses only requests whose deadline has passed.
	Expected time.Duration
	// LoadState is the load-state machine whose policy the request is
	// served under. Nil means load state Normal at generation 0. The
	// middleware only reads it; step it with a [Stepper] or your own loop.
	LoadState *loadstate.Machine
	// Shed is the compiled shed plan: the features [Shed] reports shed in
	// the current load state. The zero Table sheds nothing.
	Shed shed.Table
	// Stepper, when not nil, is the source of the load state, generation,
	// shed set and failover freeze: the levers it applied last
	// ([Stepper.Levers]), so they change together with admission and
	// retries. LoadState is then not read.
	Stepper *Stepper
	// Metrics, when not nil, counts every decision and reads Admission's
	// limit and in-flight count. Nil counts nothing.
	Metrics *Metrics
	// Observer, when not nil, is told of every request and what was
	// decided for it, e.g. to trace it (package controlotel). Nil costs
	// nothing.
	Observer ServerObserver
}

// Validate reports whether c is usable.
func (c ServerConfig) Validate() error {
	if err := c.Deadline.Validate(); err != nil {
		return fmt.Errorf("controlhttp: ServerConfig.Deadline: %w", err)
	}
	if c.Expected < 0 {
		return fmt.Errorf("controlhttp: ServerConfig.Expected %v is negative; want 0 or more", c.Expected)
	}
	return nil
}

// Info is what the middleware decided for an admitted request, carried in
// the request's context. Read it with [FromContext].
type Info struct {
	// Class is the admission class the request was admitted under.
	Class admission.Class
	// Deadline is the request's absolute deadline; zero when it has none.
	// The request's context is cancelled when it passes.
	Deadline time.Time
	// Identity is the logical identity and attempt the request carried; its
	// Key is empty when it carried none. It is also in the context for
	// [identity.FromContext], so a [Transport] propagates it.
	Identity identity.Request
	// State and Generation are the load state and policy generation the
	// request was admitted under; every decision made for it carries them.
	State      loadstate.State
	Generation uint64
	// Shed is the set of optional features shed for this request.
	Shed shed.Set
	// FreezeFailover: the policy refuses automatic failover into or out of
	// the cell (see [FailoverFrozen]).
	FreezeFailover bool
	// Admitted is the instant of admission, as read from the wall clock.
	Admitted time.Time
}

type ctxKey struct{}

// requestState is the context value of an admitted request.
type requestState struct {
	info    Info
	h       *handler
	started atomic.Int64  // 1 + nanoseconds from admission to the call to Started, on the monotonic clock; 0 before it
	asked   atomic.Uint64 // shed.Set of the features asked with Shed; only with an Observer
	refused atomic.Value  // string: the reason of an answer written by Refuse
}

func stateFrom(ctx context.Context) *requestState {
	st, _ := ctx.Value(ctxKey{}).(*requestState)
	return st
}

// FromContext returns what the middleware decided for the request whose
// context is ctx. ok is false outside a [Handler].
func FromContext(ctx context.Context) (info Info, ok bool) {
	st := stateFrom(ctx)
	if st == nil {
		return Info{}, false
	}
	return st.info, true
}

// Shed reports whether the optional feature f is shed for the request whose
// context is ctx, under the load state it was admitted in. Look f up once
// with [shed.Table.Feature] on the table in [ServerConfig.Shed]. Outside a
// [Handler] nothing is shed. Each call is counted in [Metrics].
func Shed(ctx context.Context, f shed.Feature) bool {
	st := stateFrom(ctx)
	if st == nil {
		return false
	}
	shedNow := st.info.Shed.Has(f)
	if st.h.cfg.Observer != nil && f < shed.MaxFeatures {
		st.asked.Or(1 << f)
	}
	if st.h.shedCount != nil && int(f) < len(st.h.shedCount) {
		st.h.shedCount[f].add(shedNow)
	}
	return shedNow
}

// Started marks the instant the request's service starts, after any wait
// for a worker, a connection or a lock, so that the queueing delay reported
// to admission is the time from admission to Started. Only the first call
// counts. It is optional: without it the queueing delay is reported as zero
// and admission adapts on what the middleware measures itself (latency,
// drops, late answers and slow 5xx; see [admission.Sample]); with it AIMD
// also sees queueing before it makes answers late.
func Started(ctx context.Context) {
	if st := stateFrom(ctx); st != nil {
		st.started.CompareAndSwap(0, 1+int64(max(0, time.Since(st.info.Admitted))))
	}
}

// queued returns the time from admission to the first call to [Started],
// or zero without one.
func (st *requestState) queued() time.Duration {
	if s := st.started.Load(); s != 0 {
		return time.Duration(s - 1)
	}
	return 0
}

// Refusal reason codes written in [ReasonHeader], besides the admission
// reasons ("limit", "reserved", "deadline", "class-closed").
const (
	reasonMalformedDeadline = "malformed-deadline"
	reasonMalformedIdentity = "malformed-identity"
	reasonExpired           = "expired"
)

// Handler returns middleware that puts next behind goodput's server-side
// controls. Per request it:
//
//  1. classifies the request ([ServerConfig.Classify]);
//  2. reads its absolute deadline ([deadline.Extract], with
//     [ServerConfig.Deadline]) and its logical identity and attempt
//     ([identity.Extract]); a malformed header is answered 400 with reason
//     "malformed-deadline" or "malformed-identity";
//  3. refuses a request whose deadline has already passed: 503, reason
//     "expired", no Retry-After;
//  4. asks [ServerConfig.Admission]; a refusal is answered 503 for the
//     reasons "limit" (the service is full) and "deadline" (the request
//     cannot finish in time), and 429 for "reserved" and "class-closed"
//     (the request's class is over its share while more valuable work is
//     still admitted);
//  5. serves an admitted request with a context that is cancelled when its
//     deadline passes and carries the identity and an [Info] (class, load
//     state, policy generation and shed set, read once from
//     [ServerConfig.LoadState]);
//  6. when next returns (or panics), calls [admission.Controller.Done] with
//     the measured latency and queueing delay (see [Started]); a request
//     whose context ended first, or answered late, is reported as dropped,
//     and a 5xx answer as failed.
//
// Every refusal carries [ReasonHeader], [GenerationHeader] and a one-line
// text body naming the reason; an overload refusal (503 or 429) also carries
// [OverloadHeader]: [NoRetry] and, except for "expired" and "deadline",
// whose retry could never help, a Retry-After in whole seconds (rounded up).
// [Refuse] writes the same answer for a handler's own refusals.
//
// The [http.ResponseWriter] next sees supports [http.Flusher] and
// [http.Hijacker] when the server's does, and Unwrap for
// [http.ResponseController].
//
// Handler reads the wall clock (time.Now) twice per request. It panics if
// cfg.Validate fails, as [http.ServeMux.Handle] does on a bad pattern; call
// Validate first to handle the error.
func Handler(next http.Handler, cfg ServerConfig) http.Handler {
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	h := &handler{next: next, cfg: cfg}
	if cfg.Metrics != nil {
		h.shedCount = cfg.Metrics.shedCounters(cfg.Shed)
		cfg.Metrics.watchAdmission(cfg.Admission)
	}
	return h
}

type handler struct {
	next      http.Handler
	cfg       ServerConfig
	shedCount []*shedCounter // by shed.Feature; nil without metrics
}

// refusal is a request the middleware answers itself.
type refusal struct {
	status     int
	code       int // server reason, for Metrics
	reason     string
	retryAfter time.Duration
	overload   bool
	detail     string
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	cfg := &h.cfg
	m := cfg.Metrics

	class := admission.Standard
	if cfg.Classify != nil {
		if class = cfg.Classify(r); class > admission.Sheddable {
			class = admission.Sheddable
		}
	}
	var snap levers.Levers
	if cfg.Stepper != nil {
		snap = cfg.Stepper.Levers()
		m.setLoadState(snap.State, snap.Generation)
	} else if cfg.LoadState != nil {
		snap = levers.Of(cfg.LoadState.Snapshot(), cfg.Shed)
		m.setLoadState(snap.State, snap.Generation)
	}
	ctx := r.Context()
	if cfg.Observer != nil {
		ctx = cfg.Observer.Begin(r)
	}
	sv := Served{Arrived: now, Class: class, State: snap.State, Generation: snap.Generation, Features: cfg.Shed}

	dl, hasDL, err := deadline.Extract(r.Header, now, cfg.Deadline)
	if err != nil {
		h.refuse(w, ctx, &sv, refusal{status: http.StatusBadRequest, code: serverReasonMalformedDeadline, reason: reasonMalformedDeadline, detail: err.Error()})
		return
	}
	sv.Deadline = dl
	id, hasID, err := identity.Extract(r.Header)
	if err != nil {
		h.refuse(w, ctx, &sv, refusal{status: http.StatusBadRequest, code: serverReasonMalformedIdentity, reason: reasonMalformedIdentity, detail: err.Error()})
		return
	}
	sv.Identity = id
	slack := admission.NoDeadline
	if hasDL {
		if slack = dl.Sub(now); slack <= 0 {
			h.refuse(w, ctx, &sv, refusal{
				status: http.StatusServiceUnavailable, code: serverReasonExpired, reason: reasonExpired, overload: true,
				detail: deadline.ErrExpired.Error(),
			})
			return
		}
	}
	if cfg.Admission != nil {
		d := cfg.Admission.Admit(now, admission.Request{Class: class, Slack: slack, Expected: cfg.Expected})
		if !d.Admitted {
			status := http.StatusServiceUnavailable
			if d.Reason == admission.ReasonReserved || d.Reason == admission.ReasonClassClosed {
				status = http.StatusTooManyRequests
			}
			h.refuse(w, ctx, &sv, refusal{
				status: status, code: int(d.Reason), reason: d.Reason.String(), retryAfter: d.RetryAfter, overload: true,
				detail: d.Err().Error(),
			})
			return
		}
	}
	m.countAdmission(class, serverReasonAdmitted)

	octx := ctx
	cancel := context.CancelFunc(func() {})
	if hasDL {
		ctx, cancel = deadline.NewContext(ctx, dl)
	}
	if hasID {
		ctx = identity.NewContext(ctx, id)
	}
	st := &requestState{h: h, info: Info{
		Class:          class,
		Deadline:       dl,
		Identity:       id,
		State:          snap.State,
		Generation:     snap.Generation,
		Shed:           snap.Shed,
		FreezeFailover: snap.FreezeFailover,
		Admitted:       now,
	}}
	ctx = context.WithValue(ctx, ctxKey{}, st)
	rw := newWriter(w)

	completed := false
	defer func() {
		end := time.Now()
		dropped := !completed || ctx.Err() != nil
		cancel()
		if cfg.Admission != nil {
			var sampleSlack time.Duration // none without a deadline
			if hasDL {
				sampleSlack = slack
			}
			cfg.Admission.Done(end, admission.Sample{
				Class: class, QueueDelay: st.queued(), Latency: end.Sub(now),
				Dropped: dropped || hasDL && end.After(dl), // abandoned, or answered late
				Failed:  completed && rw.status() >= http.StatusInternalServerError,
				Slack:   sampleSlack,
			})
		}
		outcome := outcomeOf(rw.status(), completed, hasDL && end.After(dl))
		refusedBy, _ := st.refused.Load().(string)
		if refusedBy != "" && completed {
			outcome = outcomeRefused
		}
		m.countOutcome(class, outcome)
		if cfg.Observer != nil {
			sv.Answered, sv.Admitted, sv.Result, sv.Reason = end, true, outcomeNames[outcome], refusedBy
			sv.Shed, sv.Asked = st.info.Shed, shed.Set(st.asked.Load())
			if completed {
				sv.Status = rw.status()
			}
			cfg.Observer.Served(octx, sv)
		}
	}()
	h.next.ServeHTTP(rw, r.WithContext(ctx))
	completed = true
}

// refuse answers a request the middleware does not pass on, and tells the
// observer, if any, with the Served sv built so far.
func (h *handler) refuse(w http.ResponseWriter, ctx context.Context, sv *Served, f refusal) {
	writeRefusal(w, f, sv.Class, sv.Generation)
	h.cfg.Metrics.countAdmission(sv.Class, f.code)
	if obs := h.cfg.Observer; obs != nil {
		sv.Answered, sv.Status, sv.Reason, sv.Result = time.Now(), f.status, f.reason, ResultRejected
		if f.code == serverReasonExpired {
			sv.Result = ResultExpired
		}
		obs.Served(ctx, *sv)
	}
}

// writeRefusal writes the answer of refusal f for a request of class
// under policy generation gen: the one way every refusal is written, by
// the middleware and by [Refuse].
func writeRefusal(w http.ResponseWriter, f refusal, class admission.Class, gen uint64) {
	hd := w.Header()
	hd.Set("Content-Type", "text/plain; charset=utf-8")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set(ReasonHeader, f.reason)
	hd.Set(GenerationHeader, strconv.FormatUint(gen, 10))
	if f.overload {
		hd.Set(OverloadHeader, NoRetry)
	}
	if f.retryAfter > 0 {
		hd.Set("Retry-After", retryAfterSeconds(f.retryAfter))
	}
	w.WriteHeader(f.status)
	fmt.Fprintf(w, "%s: %s (class %s, generation %d)\n", f.reason, f.detail, class, gen)
}

// DefaultRetryAfter is the Retry-After [Refuse] writes for a refusal that
// waiting can help (an open breaker, an exhausted budget) when the error
// does not say how long to wait.
const DefaultRetryAfter = time.Second

// Reason codes [Refuse] writes in [ReasonHeader].
const (
	ReasonBreakerOpen          = "breaker-open"          // breaker.ErrOpen
	ReasonBreakerProbeLimit    = "breaker-probe-limit"   // breaker.ErrProbeLimit
	ReasonDeadlineInsufficient = "deadline-insufficient" // deadline.ErrInsufficient
	ReasonExpired              = reasonExpired           // deadline.ErrExpired, as the middleware's own "expired"
	ReasonBudgetExhausted      = "budget-exhausted"      // budget.ErrExhausted
)

// Refuse answers r as the middleware answers its own overload refusals
// when err says one of the controls declined to make a call for it: 503
// with [ReasonHeader], [GenerationHeader], [OverloadHeader]: [NoRetry] and
// a one-line body, so the caller sees the same answer whichever layer
// refused. It returns true when it wrote the answer, and false, writing
// nothing, for any other error (nil included), which the handler answers
// itself:
//
//	resp, err := client.Do(req) // a Transport's client
//	if controlhttp.Refuse(w, r, err) {
//		return
//	}
//	if err != nil { /* the dependency failed: answer as your service does */ }
//
// The errors it recognises (with errors.Is) and their reasons are
// [breaker.ErrOpen] ("breaker-open") and [breaker.ErrProbeLimit]
// ("breaker-probe-limit") and [budget.ErrExhausted] ("budget-exhausted"),
// with a Retry-After of [DefaultRetryAfter] (or what err's
// RetryAfter() time.Duration method, if any in its chain, returns), and
// [deadline.ErrExpired] ("expired") and [deadline.ErrInsufficient]
// ("deadline-insufficient"), without Retry-After, since retrying a request
// whose deadline cannot be met never helps. Inside a [Handler] the answer
// names the request's class and generation, and counts in [Metrics] as the
// outcome "refused".
func Refuse(w http.ResponseWriter, r *http.Request, err error) bool {
	f, ok := refusalOf(err)
	if !ok {
		return false
	}
	class, gen := admission.Standard, uint64(0)
	if st := stateFrom(r.Context()); st != nil {
		class, gen = st.info.Class, st.info.Generation
		st.refused.CompareAndSwap(nil, f.reason)
	}
	writeRefusal(w, f, class, gen)
	return true
}

// refusalOf maps an error of a control to the refusal Refuse writes. The
// body names the control's sentinel error only, not err's whole text, which
// may name a dependency's address.
func refusalOf(err error) (refusal, bool) {
	if err == nil {
		return refusal{}, false
	}
	wait := DefaultRetryAfter
	var ra interface{ RetryAfter() time.Duration }
	if errors.As(err, &ra) && ra.RetryAfter() > 0 {
		wait = ra.RetryAfter()
	}
	for _, k := range refusalKinds {
		if errors.Is(err, k.err) {
			f := refusal{status: http.StatusServiceUnavailable, reason: k.reason, overload: true, detail: k.err.Error()}
			if k.wait {
				f.retryAfter = wait
			}
			return f, true
		}
	}
	return refusal{}, false
}

// refusalKinds are the errors Refuse answers, in the order it tries them.
var refusalKinds = [...]struct {
	err    error
	reason string
	wait   bool // whether waiting can help: a Retry-After is written
}{
	{deadline.ErrExpired, ReasonExpired, false},
	{deadline.ErrInsufficient, ReasonDeadlineInsufficient, false},
	{breaker.ErrOpen, ReasonBreakerOpen, true},
	{breaker.ErrProbeLimit, ReasonBreakerProbeLimit, true},
	{budget.ErrExhausted, ReasonBudgetExhausted, true},
}

// retryAfterSeconds formats d as a Retry-After delay: whole seconds, rounded
// up, at least 1.
func retryAfterSeconds(d time.Duration) string {
	s := (d + time.Second - 1) / time.Second
	return strconv.FormatInt(int64(max(s, 1)), 10)
}
