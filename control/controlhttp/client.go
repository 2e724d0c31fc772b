package controlhttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
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
)

// ClientConfig configures a [Transport]. The zero ClientConfig is valid:
// it propagates the deadline and identity, gives each call the whole
// remaining deadline, and never retries (it has no budget) nor breaks.
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
	// Ceiling caps each call's timeout, and is the timeout of a request
	// without a deadline. Zero means no cap (and no timeout without a
	// deadline).
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
	// Metrics, when not nil, counts attempts, retry decisions and refusals.
	Metrics *Metrics
	// Observer, when not nil, is told of every attempt, e.g. to trace it
	// (package controlotel). Nil costs nothing.
	Observer ClientObserver
	// Dependency names the dependency for the Observer, e.g. "payments".
	Dependency string
}

// Validate reports whether c is usable.
func (c ClientConfig) Validate() error {
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"Reserve", c.Reserve}, {"Ceiling", c.Ceiling}, {"Expected", c.Expected}, {"BackoffBase", c.BackoffBase}, {"BackoffMax", c.BackoffMax}} {
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
//     deadline minus [ClientConfig.Reserve] ([deadline.CallTimeout]) on the
//     outgoing request's context; a call that could not answer in time is
//     not made (the error matches [deadline.ErrExpired] or
//     [deadline.ErrInsufficient]);
//   - writes the call's deadline and the logical identity and attempt
//     ([deadline.Inject], [identity.Inject]); the identity is the request's
//     Idempotency-Key header if it has one, otherwise the one in its context;
//   - asks the breaker ([breaker.Breaker.Allow]; a refusal matches
//     [breaker.ErrOpen] or [breaker.ErrProbeLimit]) and records the result:
//     transport errors, per-call timeouts, 5xx, 429 and [NoRetry] answers
//     count as failures; a call the caller cancelled is not recorded;
//   - deposits the first attempt in the retry budget and, after a failed
//     attempt, retries only when [budget.Budget.Allow] allows it, with the
//     same identity and the next attempt number, after a full-jitter
//     backoff that the caller's context can cut short.
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
// error) to the caller. When a retry the budget allowed cannot be made after
// all (the caller gives up during the backoff, or the breaker or the
// deadline refuses it), RoundTrip returns the error that stopped it. Transport reads the wall clock (time.Now) and sets
// timers; it is safe for concurrent use.
type Transport struct {
	next http.RoundTripper
	cfg  ClientConfig

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
	return &Transport{next: next, cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 0x636f6e74726f6c68))} // "controlh"
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
		id, ok = identity.FromContext(req.Context())
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
	callDL := time.Time{}
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
			t.cfg.Metrics.countRefusal(why)
			return result{err: fmt.Errorf("controlhttp: call not made: %w", err), refused: refusalNames[why], start: now, end: now}
		}
		callDL = now.Add(timeout)
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
			t.cfg.Metrics.countRefusal(why)
			return result{err: fmt.Errorf("controlhttp: call not made: %w", err), refused: refusalNames[why], start: now, end: now}
		}
		ticket = tk
	}
	if n == 1 && t.cfg.Budget != nil {
		t.cfg.Budget.Request(now, c.tenant)
	}
	t.cfg.Metrics.countAttempt(n > 1)

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
	r := result{resp: resp, err: err, made: true, start: now}
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
	if t.cfg.Breaker != nil && r.failure != budget.Canceled {
		c := breaker.Call{Err: r.err, Overload: r.failure == budget.Overload}
		if r.resp != nil {
			c.Status = r.resp.StatusCode
		}
		t.cfg.Breaker.Record(time.Now(), ticket, t.cfg.Breaker.Classify(c))
	}
	return r
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
	m := t.cfg.Metrics
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
