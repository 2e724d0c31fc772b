package controlhttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/goodput-lab/goodput/control/breaker"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/deadline"
	"github.com/goodput-lab/goodput/control/identity"
)

// Defaults of [ClientConfig] for zero fields.
const (
	DefaultMaxAttempts = 3
	DefaultBackoffBase = 25 * time.Millisecond
	DefaultBackoffMax  = time.Second
	// DefaultCeiling caps each call's timeout, and is the timeout of a call
	// made without a deadline, when [ClientConfig.Ceiling] is zero: it is
	// [deadline.DefaultCeiling] (30 s).
	DefaultCeiling = deadline.DefaultCeiling
)

// NoCeiling, as [ClientConfig.Ceiling], leaves calls uncapped: a call
// without a deadline then has no timeout at all.
const NoCeiling time.Duration = -1

// ClientConfig configures a [Transport]. The zero ClientConfig is valid:
// it propagates the deadline and gives each call its own idempotency key,
// gives each call the remaining deadline up to [DefaultCeiling] (30 s, also
// the timeout of a call without a deadline), and never retries (it has no
// budget) nor breaks.
type ClientConfig struct {
	// Budget is the retry budget shared by every layer and transport of the
	// process; retries are made only when it allows them. Nil means no
	// retries.
	Budget *budget.Budget
	// Tenant names the tenant a request's retries are charged to
	// (budget.Config.TenantShare). Nil charges every request to "".
	Tenant func(*http.Request) string
	// Breaker guards the one dependency this transport calls; use one
	// Transport per dependency. Nil means no breaker.
	Breaker *breaker.Breaker
	// Reserve is the time kept back from the remaining deadline for the
	// rest of the path after a call returns: each call's timeout is the
	// remaining deadline minus Reserve ([deadline.CallTimeout]) and a call
	// is not made when no more remains. Zero keeps nothing back.
	Reserve time.Duration
	// Ceiling caps each call's timeout, and is the timeout of a call
	// without a deadline. Zero means [DefaultCeiling] (30 s); [NoCeiling]
	// (any negative value) means no cap, and no timeout without a deadline.
	// A call the caller's deadline cut short of the Ceiling that times out
	// is the caller's, not a failure of the dependency, for the breaker; so
	// a Ceiling below the callers' deadlines is what lets the breaker see a
	// dependency that has become slow.
	Ceiling time.Duration
	// Expected is the latency of one attempt (e.g. its p90): a retry is
	// made only when the deadline leaves room for its backoff, Expected and
	// Reserve. Zero counts only the backoff and Reserve.
	Expected time.Duration
	// MaxAttempts caps the attempts of one call, the first included, under
	// the budget. Zero means DefaultMaxAttempts (3); 1 never retries.
	MaxAttempts int
	// BackoffBase and BackoffMax shape the full-jitter backoff before a
	// retry ([budget.Backoff]): a uniform wait in [0, min(BackoffMax,
	// BackoffBase×2^(n−1))) after the n-th attempt. Zero means
	// DefaultBackoffBase (25 ms) and DefaultBackoffMax (1 s).
	BackoffBase, BackoffMax time.Duration
	// Seed seeds the transport's own math/rand/v2 stream of jitter draws.
	Seed uint64
	// Metrics, when not nil, counts attempts, retry decisions and refusals
	// under Dependency, and reads the Breaker's state and the Budget's
	// balance.
	Metrics *Metrics
	// Observer, when not nil, is told of every attempt, e.g. to trace it
	// (package controlotel). Nil costs nothing.
	Observer ClientObserver
	// Dependency names the dependency, e.g. "payments", for the Metrics'
	// dependency label and the Observer.
	Dependency string
	// Operation names the operation a call makes, from which the call's
	// idempotency key is derived ([identity.Request.Derive]) when its
	// identity comes from the request's context: two calls made on behalf
	// of one logical request (an authorisation and a capture) carry
	// different keys, and every retry of one call its key. Nil means the
	// method and path, e.g. "POST/authorise"; return "" to send the logical
	// key itself (e.g. a proxy forwarding the same request).
	Operation func(*http.Request) string
}

// Validate reports whether c is usable.
func (c ClientConfig) Validate() error {
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"Reserve", c.Reserve}, {"Expected", c.Expected}, {"BackoffBase", c.BackoffBase}, {"BackoffMax", c.BackoffMax}} {
		if f.d < 0 {
			return fmt.Errorf("controlhttp: ClientConfig.%s %v is negative; want 0 or more", f.name, f.d)
		}
	}
	if c.MaxAttempts < 0 || c.MaxAttempts > identity.MaxAttempt {
		return fmt.Errorf("controlhttp: ClientConfig.MaxAttempts %d is out of range; want 0 (default %d) to %d",
			c.MaxAttempts, DefaultMaxAttempts, identity.MaxAttempt)
	}
	return nil
}

// Transport is an [http.RoundTripper] that makes calls to one dependency on
// behalf of requests served under [Handler] (or any request whose context
// carries a deadline or an identity). For each call it:
//
//   - takes the absolute deadline from the request's context
//     ([deadline.FromContext]) and sets the call's timeout to the remaining
//     deadline minus [ClientConfig.Reserve] ([deadline.CallTimeout]), at
//     most [ClientConfig.Ceiling], on the outgoing request's context; a call
//     that could not answer in time is not made (the error matches
//     [deadline.ErrExpired] or [deadline.ErrInsufficient]);
//   - writes the call's deadline and its identity and attempt
//     ([deadline.Inject], [identity.Inject]): the request's own
//     Idempotency-Key header if it has one, otherwise the logical identity
//     in its context derived for the call's operation
//     ([ClientConfig.Operation], [identity.Request.Derive]);
//   - asks the breaker ([breaker.Breaker.Allow]; a refusal matches
//     [breaker.ErrOpen] or [breaker.ErrProbeLimit]) and records the result:
//     transport errors, per-call timeouts and 5xx count as failures; 429
//     and [NoRetry] answers (the dependency protecting itself), timeouts
//     set by the caller's deadline rather than the Ceiling, and calls the
//     caller cancelled are not counted;
//   - deposits the first attempt in the retry budget and, after a failed
//     attempt, retries only when [budget.Budget.Allow] allows it, with the
//     same identity and the next attempt number, after a full-jitter
//     backoff, or after the wait a 429 or 503 asks for in Retry-After when
//     longer; the caller's context can cut the wait short. A Retry-After
//     longer than the deadline leaves (less Expected and Reserve), or than
//     the Ceiling for a call without a deadline, is not waited for: the
//     answer is returned.
//
// Failures are classified for the budget as follows: a per-call timeout is
// budget.Timeout; another transport error, 502, 503 and 504 are
// budget.Transient; 429 and any answer with [OverloadHeader]: [NoRetry] are
// budget.Overload and never retried; other 5xx are budget.Unclassified and
// not retried; a call the caller cancelled is budget.Canceled. Other
// answers are returned as they are. A retry also needs an idempotent method
// (GET, HEAD, OPTIONS, TRACE, PUT, DELETE) or an identity the dependency
// deduplicates by, and a body that can be sent again (Request.GetBody, which
// http.NewRequest sets for in-memory bodies).
//
// When no retry follows a failed answer, RoundTrip returns that answer (or
// error) to the caller, except when the budget's pool refused the retry: the
// error then matches [budget.ErrExhausted] (or [budget.ErrTenantShare]), and
// the transport error of the attempt if it had one, so the caller can
// answer its own refusal. When a retry the budget allowed cannot be made
// after all (the caller gives up during the backoff, or the breaker or the
// deadline refuses it), RoundTrip returns the error that stopped it, which
// matches the breaker's or deadline's sentinel. Transport reads the clock
// (time.Now) and measures durations as differences of its readings, and
// sets timers; it is safe for concurrent use.
type Transport struct {
	next http.RoundTripper
	cfg  ClientConfig

	metrics *clientCounters // the dependency's counters in cfg.Metrics; nil without

	mu  sync.Mutex
	rng *rand.Rand
}

// NewTransport returns a Transport that sends calls through next, or through
// [http.DefaultTransport] when next is nil. It panics if cfg.Validate fails;
// call Validate first to handle the error.
func NewTransport(next http.RoundTripper, cfg ClientConfig) *Transport {
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	if next == nil {
		next = http.DefaultTransport
	}
	if cfg.MaxAttempts == 0 {
		cfg.MaxAttempts = DefaultMaxAttempts
	}
	if cfg.BackoffBase == 0 {
		cfg.BackoffBase = DefaultBackoffBase
	}
	if cfg.BackoffMax == 0 {
		cfg.BackoffMax = DefaultBackoffMax
	}
	switch {
	case cfg.Ceiling == 0:
		cfg.Ceiling = DefaultCeiling
	case cfg.Ceiling < 0:
		cfg.Ceiling = NoCeiling
	}
	return &Transport{next: next, cfg: cfg, metrics: cfg.Metrics.client(cfg.Dependency, cfg.Breaker, cfg.Budget), rng: rand.New(rand.NewPCG(cfg.Seed, 0x636f6e74726f6c68))} // "controlh"
}

// CloseIdleConnections closes the idle connections of the wrapped
// transport, if it has any.
func (t *Transport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// call is one logical call: the state RoundTrip keeps across its attempts.
type call struct {
	req        *http.Request
	dl         time.Time // zero: no deadline
	id         identity.Request
	hasID      bool
	idempotent bool
	tenant     string
}

// result is the outcome of one attempt.
type result struct {
	resp    *http.Response
	err     error
	failed  bool           // the attempt failed; failure says how
	failure budget.Failure // for the budget
	made    bool           // false: refused before the call was made

	// For the breaker.
	fromCaller bool // the call's timeout was the caller's deadline's, short of the Ceiling

	// For the Observer only.
	refused    string    // why the call was not made
	start, end time.Time // of the attempt
	timeout    time.Duration
}

// Retry decisions passed to observe besides the retry reasons.
const (
	retryNotAsked = -2 // no retry was considered
	retryNoBudget = -1 // the transport has no budget
)

// RoundTrip implements [http.RoundTripper].
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	c := call{req: req, idempotent: idempotent(req.Method)}
	c.dl, _ = deadline.FromContext(req.Context())
	id, ok, err := identity.Extract(req.Header)
	if err != nil {
		closeBody(req)
		return nil, fmt.Errorf("controlhttp: %w", err)
	}
	if !ok {
		if id, ok = identity.FromContext(req.Context()); ok {
			id = id.Derive(t.operation(req))
		}
	}
	c.id, c.hasID = id, ok
	if t.cfg.Tenant != nil {
		c.tenant = t.cfg.Tenant(req)
	}

	for n := 1; ; n++ {
		r := t.attempt(&c, n)
		if !r.made || !r.failed {
			t.observe(&c, n, &r, retryNotAsked)
			return r.resp, r.err
		}
		wait, ok, why := t.retry(&c, n, r)
		t.observe(&c, n, &r, why)
		if !ok {
			if why == int(budget.ReasonExhausted) || why == int(budget.ReasonTenantShare) {
				return nil, refusedRetry(r, budget.Decision{Reason: budget.Reason(why)}.Err())
			}
			return r.resp, r.err
		}
		discard(r.resp)
		if err := sleep(req.Context(), wait); err != nil {
			return nil, fmt.Errorf("controlhttp: waiting %v to retry: %w", wait, err)
		}
		if c.hasID {
			c.id = c.id.Retry()
		}
	}
}

// attempt makes the n-th attempt of c.
func (t *Transport) attempt(c *call, n int) result {
	ctx := c.req.Context()
	now := time.Now()
	callDL, fromCaller := time.Time{}, false
	switch {
	case !c.dl.IsZero():
		timeout, err := deadline.CallTimeout(c.dl, now, t.cfg.Reserve, t.cfg.Ceiling)
		if err != nil {
			if n == 1 {
				closeBody(c.req)
			}
			why := refusalDeadlineInsufficient
			if errors.Is(err, deadline.ErrExpired) {
				why = refusalDeadlineExpired
			}
			t.metrics.countRefusal(why)
			return result{err: fmt.Errorf("controlhttp: call not made: %w", err), refused: refusalNames[why], start: now, end: now}
		}
		callDL = now.Add(timeout)
		fromCaller = t.cfg.Ceiling < 0 || timeout < t.cfg.Ceiling
	case t.cfg.Ceiling > 0:
		callDL = now.Add(t.cfg.Ceiling)
	}

	body := c.req.Body
	if n > 1 && body != nil && body != http.NoBody {
		b, err := c.req.GetBody()
		if err != nil {
			return result{err: fmt.Errorf("controlhttp: replaying the request body: %w", err), refused: "body", start: now, end: now}
		}
		body = b
	}

	var ticket breaker.Ticket
	if br := t.cfg.Breaker; br != nil {
		tk, err := br.Allow(now)
		if err != nil {
			if body != nil {
				body.Close()
			}
			why := refusalBreakerOpen
			if errors.Is(err, breaker.ErrProbeLimit) {
				why = refusalBreakerProbeLimit
			}
			t.metrics.countRefusal(why)
			return result{err: fmt.Errorf("controlhttp: call not made: %w", err), refused: refusalNames[why], start: now, end: now}
		}
		ticket = tk
	}
	if n == 1 && t.cfg.Budget != nil {
		t.cfg.Budget.Request(now, c.tenant)
	}
	t.metrics.countAttempt(n > 1)

	callCtx, cancel := ctx, context.CancelFunc(func() {})
	if !callDL.IsZero() {
		callCtx, cancel = context.WithDeadline(ctx, callDL)
	}
	out := c.req.Clone(callCtx)
	out.Body = body
	if !callDL.IsZero() {
		deadline.Inject(out.Header, callDL, now)
	}
	if c.hasID {
		identity.Inject(out.Header, c.id)
	}

	resp, err := t.next.RoundTrip(out)
	r := result{resp: resp, err: err, made: true, start: now, fromCaller: fromCaller}
	if !callDL.IsZero() {
		r.timeout = callDL.Sub(now)
	}
	if t.cfg.Observer != nil {
		r.end = time.Now()
	}
	switch {
	case err != nil:
		cancel()
		r.resp, r.failed = nil, true
		switch {
		case ctx.Err() != nil:
			r.failure = budget.Canceled
		case callCtx.Err() != nil || errors.Is(err, context.DeadlineExceeded):
			r.failure = budget.Timeout
		default:
			r.failure = budget.Transient
		}
	default:
		if resp.Body == nil {
			resp.Body = http.NoBody
		}
		r.failed, r.failure = classify(resp)
		if rw, ok := resp.Body.(io.ReadWriteCloser); ok && resp.StatusCode == http.StatusSwitchingProtocols {
			// An upgraded connection's body must stay an io.ReadWriteCloser.
			resp.Body = cancelConn{ReadWriteCloser: rw, cancel: cancel}
		} else {
			resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
		}
	}
	if br := t.cfg.Breaker; br != nil {
		bc := r.breakerCall()
		br.Record(time.Now(), ticket, br.Classify(breaker.Call{Err: bc.err, Status: bc.status, Overload: bc.overload, CallerDeadline: bc.callerDeadline}))
	}
	return r
}

// breakerCall holds what the breaker is told of an attempt that was made:
// the fields of breaker.Call, which breaker.Classify turns into an outcome.
type breakerCall struct {
	err    error
	status int
	// overload: the dependency answered that it is overloaded (429, or
	// Goodput-Overload: no-retry), which says it is protecting itself.
	overload bool
	// callerDeadline: the caller ended the call, by cancelling it or by its
	// deadline (the call timed out at the caller's deadline less the
	// reserve, short of the Ceiling), not the dependency by being slow.
	callerDeadline bool
}

// breakerCall tells the breaker's classifier what the attempt r saw.
func (r *result) breakerCall() breakerCall {
	bc := breakerCall{err: r.err}
	if r.resp != nil {
		bc.status = r.resp.StatusCode
	}
	bc.overload = r.failure == budget.Overload
	bc.callerDeadline = r.failure == budget.Canceled || r.failure == budget.Timeout && r.fromCaller
	return bc
}

// classify tells whether an answer is a failed attempt and how.
func classify(resp *http.Response) (failed bool, f budget.Failure) {
	switch code := resp.StatusCode; {
	case resp.Header.Get(OverloadHeader) == NoRetry, code == http.StatusTooManyRequests:
		return true, budget.Overload
	case code == http.StatusBadGateway, code == http.StatusServiceUnavailable, code == http.StatusGatewayTimeout:
		return true, budget.Transient
	case code >= 500:
		return true, budget.Unclassified
	}
	return false, budget.Unclassified
}

// retry decides whether the attempt n of c, which failed as r, is retried,
// and after what wait; it counts the decision and returns its reason.
func (t *Transport) retry(c *call, n int, r result) (wait time.Duration, ok bool, why int) {
	m := t.metrics
	if t.cfg.Budget == nil {
		return 0, false, retryNoBudget
	}
	if n >= t.cfg.MaxAttempts || (c.hasID && c.id.Attempt >= identity.MaxAttempt) {
		m.countRetry(retryMaxAttempts)
		return 0, false, retryMaxAttempts
	}
	if b := c.req.Body; b != nil && b != http.NoBody && c.req.GetBody == nil {
		m.countRetry(retryBodyNotReplayable)
		return 0, false, retryBodyNotReplayable
	}
	now := time.Now()
	if br := t.cfg.Breaker; br != nil && br.State(now) == breaker.Open {
		m.countRetry(retryBreakerOpen)
		return 0, false, retryBreakerOpen
	}
	t.mu.Lock()
	u := t.rng.Float64()
	t.mu.Unlock()
	wait = budget.Backoff(n, t.cfg.BackoffBase, t.cfg.BackoffMax, u)
	if after, ok := retryAfter(r.resp, now); ok {
		if c.dl.IsZero() && t.cfg.Ceiling > 0 && after > t.cfg.Ceiling {
			m.countRetry(int(budget.ReasonDeadline))
			return 0, false, int(budget.ReasonDeadline)
		}
		wait = max(wait, after)
	}
	remaining := budget.NoDeadline
	if !c.dl.IsZero() {
		remaining = deadline.Remaining(c.dl, now)
	}
	d := t.cfg.Budget.Allow(now, budget.Retry{
		Tenant:       c.tenant,
		Failure:      r.failure,
		Idempotent:   c.idempotent,
		Deduplicated: c.hasID,
		Remaining:    remaining,
		Expected:     wait + t.cfg.Expected + t.cfg.Reserve,
	})
	m.countRetry(int(d.Reason))
	return wait, d.Allowed, int(d.Reason)
}

// retryAfter returns the wait a 429 or 503 answer asks for in its
// Retry-After header (RFC 9110, section 10.2.3), as delay-seconds or as an
// HTTP-date. A date is counted from the answer's Date header when it has
// one, so the two hosts' clocks need not agree, and otherwise from now; a
// date in the past asks for no wait. ok is false when resp is not such an
// answer or has no readable Retry-After.
func retryAfter(resp *http.Response, now time.Time) (time.Duration, bool) {
	if resp == nil || resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable {
		return 0, false
	}
	v := strings.Trim(resp.Header.Get("Retry-After"), " \t")
	if v == "" {
		return 0, false
	}
	if v[0] >= '0' && v[0] <= '9' {
		secs, err := strconv.ParseUint(v, 10, 64)
		switch {
		case errors.Is(err, strconv.ErrRange) || err == nil && secs > maxRetryAfter:
			return maxRetryAfter * time.Second, true
		case err != nil:
			return 0, false
		}
		return time.Duration(secs) * time.Second, true
	}
	at, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	from := now
	if d, err := http.ParseTime(resp.Header.Get("Date")); err == nil {
		from = d
	}
	return min(max(0, at.Sub(from)), maxRetryAfter*time.Second), true
}

// maxRetryAfter bounds the seconds read, far beyond any deadline and far
// below an overflow when the wait is added to Expected and Reserve.
const maxRetryAfter = 1 << 32

// refusedRetry is the error of a failed attempt r whose retry the budget
// refused with the sentinel refusal.
func refusedRetry(r result, refusal error) error {
	if r.err != nil {
		return fmt.Errorf("controlhttp: retry refused: %w; the attempt failed: %w", refusal, r.err)
	}
	code := r.resp.StatusCode
	discard(r.resp)
	return fmt.Errorf("controlhttp: retry of a %d %s refused: %w", code, http.StatusText(code), refusal)
}

// operation names the operation req makes, for its idempotency key.
func (t *Transport) operation(req *http.Request) string {
	if t.cfg.Operation != nil {
		return t.cfg.Operation(req)
	}
	m := req.Method
	if m == "" {
		m = http.MethodGet
	}
	return m + req.URL.EscapedPath()
}

// observe tells the Observer, if any, of the attempt n of c, which ended as
// r and was followed by the retry decision why.
func (t *Transport) observe(c *call, n int, r *result, why int) {
	obs := t.cfg.Observer
	if obs == nil {
		return
	}
	a := Attempt{
		Dependency: t.cfg.Dependency,
		Start:      r.start, End: r.end,
		N: n, Timeout: r.timeout,
		Made: r.made, Refused: r.refused,
		Err: r.err, Failed: r.failed,
	}
	if c.hasID {
		a.Identity = c.id
	}
	if r.resp != nil {
		a.Status = r.resp.StatusCode
	}
	switch why {
	case retryNotAsked:
	case retryNoBudget:
		a.Retry = "suppressed:no-budget"
	default:
		a.Retry = retryDecision(why)
	}
	if br := t.cfg.Breaker; br != nil {
		a.Breaker = br.State(a.End)
	}
	obs.Attempted(c.req.Context(), a)
}

// sleep waits for d, or until ctx ends and returns its cause.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return context.Cause(ctx)
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// idempotent reports whether method is idempotent (RFC 9110, section 9.2.2).
func idempotent(method string) bool {
	switch method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// discard drains a little of an answer that will not be returned, so its
// connection can be reused, and closes it.
func discard(resp *http.Response) {
	if resp == nil {
		return
	}
	io.CopyN(io.Discard, resp.Body, 4<<10) //nolint:errcheck // best effort
	resp.Body.Close()
}

// cancelBody ends a call's context once its answer has been read or closed.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.cancel()
	}
	return n, err
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// cancelConn ends a call's context when the connection it upgraded to is
// closed.
type cancelConn struct {
	io.ReadWriteCloser
	cancel context.CancelFunc
}

func (c cancelConn) Close() error {
	err := c.ReadWriteCloser.Close()
	c.cancel()
	return err
}
