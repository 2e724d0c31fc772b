package controlhttp

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/goodput-lab/goodput/control/breaker"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/deadline"
	"github.com/goodput-lab/goodput/control/identity"
)

// TestTransportRetryAfter checks the wait a 503 asks for in Retry-After is
// honoured before the retry, in both of its forms, and that no retry is made
// when the wait would not leave room before the deadline (the answer is
// returned at once) or, without a deadline, exceeds the Ceiling.
func TestTransportRetryAfter(t *testing.T) {
	epoch := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC) // synctest's start
	date := func(d time.Duration) string { return epoch.Add(d).Format(http.TimeFormat) }
	for _, tc := range []struct {
		name    string
		status  int
		hdr     http.Header
		left    time.Duration // the caller's deadline; 0: none
		ceiling time.Duration
		retried bool
		wait    time.Duration // before the retry: exact, or below it for the backoff alone
		reason  int           // metrics retry reason of the first decision
	}{
		{name: "seconds", status: 503, hdr: http.Header{"Retry-After": {"5"}}, left: 10 * time.Second, retried: true, wait: 5 * time.Second},
		{name: "date from the answer's Date", status: 503, hdr: http.Header{"Retry-After": {date(time.Hour + 3*time.Second)}, "Date": {date(time.Hour)}},
			left: 10 * time.Second, retried: true, wait: 3 * time.Second},
		{name: "date from now", status: 503, hdr: http.Header{"Retry-After": {date(2 * time.Second)}}, left: 10 * time.Second, retried: true, wait: 2 * time.Second},
		{name: "date past", status: 503, hdr: http.Header{"Retry-After": {date(-time.Hour)}}, left: 10 * time.Second, retried: true, wait: -DefaultBackoffBase},
		{name: "unreadable", status: 503, hdr: http.Header{"Retry-After": {"soon"}}, left: 10 * time.Second, retried: true, wait: -DefaultBackoffBase},
		{name: "no header", status: 503, left: 10 * time.Second, retried: true, wait: -DefaultBackoffBase},
		{name: "502 ignores it", status: 502, hdr: http.Header{"Retry-After": {"5"}}, left: 10 * time.Second, retried: true, wait: -DefaultBackoffBase},
		{name: "beyond the deadline", status: 503, hdr: http.Header{"Retry-After": {"5"}}, left: 1800 * time.Millisecond, reason: int(budget.ReasonDeadline)},
		{name: "within the deadline but not its reserve", status: 503, hdr: http.Header{"Retry-After": {"1"}}, left: 1050 * time.Millisecond, reason: int(budget.ReasonDeadline)},
		{name: "huge", status: 503, hdr: http.Header{"Retry-After": {"99999999999999999999999"}}, left: time.Hour, reason: int(budget.ReasonDeadline)},
		{name: "huge date", status: 503, hdr: http.Header{"Retry-After": {"Fri, 31 Dec 9999 23:59:59 GMT"}}, left: time.Hour, reason: int(budget.ReasonDeadline)},
		{name: "no deadline, within the ceiling", status: 503, hdr: http.Header{"Retry-After": {"5"}}, retried: true, wait: 5 * time.Second},
		{name: "no deadline, beyond the ceiling", status: 503, hdr: http.Header{"Retry-After": {"60"}}, reason: int(budget.ReasonDeadline)},
		{name: "no deadline, beyond a set ceiling", status: 503, hdr: http.Header{"Retry-After": {"5"}}, ceiling: time.Second, reason: int(budget.ReasonDeadline)},
		{name: "no-retry overload", status: 503, hdr: http.Header{"Retry-After": {"1"}, OverloadHeader: {NoRetry}}, left: time.Hour, reason: int(budget.ReasonOverload)},
		{name: "429 is overload", status: 429, hdr: http.Header{"Retry-After": {"1"}}, left: time.Hour, reason: int(budget.ReasonOverload)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				if !time.Now().Equal(epoch) {
					t.Fatalf("synctest starts at %v, not %v", time.Now(), epoch)
				}
				var s seen
				var m Metrics
				rt := NewTransport(network{answers(&s, tc.hdr, tc.status, 200)}, ClientConfig{
					Budget: mustBudget(t, budget.Finagle()), Reserve: 100 * time.Millisecond, Ceiling: tc.ceiling, Seed: 3, Metrics: &m,
				})
				ctx := context.Background()
				if tc.left > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tc.left)
					defer cancel()
				}
				start := time.Now()
				resp, err := get(t, ctx, rt)
				if err != nil {
					t.Fatal(err)
				}
				if !tc.retried {
					if s.n() != 1 || resp.StatusCode != tc.status || time.Since(start) != 0 {
						t.Errorf("%d attempts, answer %d after %v; want the %d at once after 1", s.n(), resp.StatusCode, time.Since(start), tc.status)
					}
					if g := m.deps[""].retries[tc.reason].Load(); g != 1 {
						t.Errorf("retry decisions %q = %d, want 1", retryReasonName(tc.reason), g)
					}
					return
				}
				if s.n() != 2 || resp.StatusCode != 200 {
					t.Fatalf("%d attempts, answer %d; want 200 after 2", s.n(), resp.StatusCode)
				}
				got := s.at[1].Sub(s.at[0])
				if tc.wait > 0 && got != tc.wait || tc.wait < 0 && got >= -tc.wait {
					t.Errorf("retry after %v, want %v (negative: the backoff alone, below its magnitude)", got, tc.wait)
				}
			})
		})
	}
}

// TestRetryAfterParse is the table of Retry-After values and answers.
func TestRetryAfterParse(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		status int
		hdr    http.Header
		want   time.Duration
		ok     bool
	}{
		{503, http.Header{"Retry-After": {"120"}}, 2 * time.Minute, true},
		{429, http.Header{"Retry-After": {" 0 "}}, 0, true},
		{503, http.Header{"Retry-After": {"Tue, 01 Dec 2026 12:00:30 GMT"}}, 30 * time.Second, true},
		{503, http.Header{"Retry-After": {"Tuesday, 01-Dec-26 12:00:30 GMT"}}, 30 * time.Second, true}, // RFC 850
		{503, http.Header{"Retry-After": {"Tue Dec  1 12:00:30 2026"}}, 30 * time.Second, true},        // asctime
		{503, http.Header{"Retry-After": {"Tue, 01 Dec 2026 12:00:30 GMT"}, "Date": {"Tue, 01 Dec 2026 12:00:20 GMT"}}, 10 * time.Second, true},
		{503, http.Header{"Retry-After": {"Tue, 01 Dec 2026 11:00:00 GMT"}}, 0, true},
		{503, http.Header{"Retry-After": {"18446744073709551616"}}, maxRetryAfter * time.Second, true},
		{503, http.Header{"Retry-After": {"Fri, 31 Dec 9999 23:59:59 GMT"}}, maxRetryAfter * time.Second, true},
		{503, http.Header{"Retry-After": {"-5"}}, 0, false},
		{503, http.Header{"Retry-After": {"5s"}}, 0, false},
		{503, http.Header{"Retry-After": {"1.5"}}, 0, false},
		{503, http.Header{"Retry-After": {""}}, 0, false},
		{503, http.Header{}, 0, false},
		{500, http.Header{"Retry-After": {"5"}}, 0, false},
		{301, http.Header{"Retry-After": {"5"}}, 0, false},
	} {
		got, ok := retryAfter(&http.Response{StatusCode: tc.status, Header: tc.hdr}, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%d %v: %v, %v; want %v, %v", tc.status, tc.hdr, got, ok, tc.want, tc.ok)
		}
	}
	if _, ok := retryAfter(nil, now); ok {
		t.Error("no answer: ok")
	}
}

// TestTransportFastErrors checks fast transient failures are retried under
// the budget: a dependency failing 40% of calls at random, at once (half
// 503s, half connection resets), serves 1,000 requests paced 10 ms apart.
// With a retry for every failed first attempt, 1 − 0.4² = 84% would
// succeed; the budget allows 0.5 retries per request in its window, more
// than the 0.4 first retries need, so at least 80% must succeed (the
// first window's few requests and the random draws cost a little; 0.84 is
// the expectation with one retry, ≈ 0.9 with the second retries the pool
// leaves room for).
func TestTransportFastErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(24, 2))
		calls := 0
		dep := rtFunc(func(r *http.Request) (*http.Response, error) {
			calls++
			switch u := rng.Float64(); {
			case u < 0.2:
				return &http.Response{StatusCode: 503, Body: http.NoBody, Request: r}, nil
			case u < 0.4:
				return nil, &netError{syscall.ECONNRESET}
			}
			return &http.Response{StatusCode: 200, Body: http.NoBody, Request: r}, nil
		})
		bud := mustBudget(t, budget.Config{Ratio: 0.5, TTL: 10 * time.Second})
		rt := NewTransport(dep, ClientConfig{Budget: bud, Reserve: 50 * time.Millisecond, Expected: 20 * time.Millisecond, Seed: 9})
		const n = 1000
		ok := 0
		for i := range n {
			ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
			ctx = identity.NewContext(ctx, identity.First(identity.Key("order-"+strconv.Itoa(i))))
			req, _ := http.NewRequestWithContext(ctx, "POST", "http://dep.test/authorise", strings.NewReader("x"))
			if resp, err := rt.RoundTrip(req); err == nil {
				if resp.StatusCode == 200 {
					ok++
				}
				resp.Body.Close()
			}
			cancel()
			time.Sleep(10 * time.Millisecond)
		}
		if ok < n*8/10 {
			t.Errorf("%d of %d requests succeeded, want at least 80%%; budget %+v", ok, n, bud.Stats())
		}
		if calls > n*3/2 {
			t.Errorf("%d calls for %d requests, more than the budget's 1.5 per request", calls, n)
		}
		t.Logf("%d of %d succeeded in %d calls", ok, n, calls)
	})
}

// netError is a transport error as net/http returns one.
type netError struct{ err error }

func (e *netError) Error() string { return "read tcp 127.0.0.1:1->127.0.0.1:2: " + e.err.Error() }
func (e *netError) Unwrap() error { return e.err }

// TestTransportDerivedKeys checks each call a request makes carries its own
// key, derived from the logical identity and the call's operation, kept
// across that call's retries with the attempt incremented; that an
// Operation can name the operations, or keep the logical key; and that a
// key the caller sets on the request is sent as it is.
func TestTransportDerivedKeys(t *testing.T) {
	type sent struct{ key, attempt string }
	for _, tc := range []struct {
		name      string
		operation func(*http.Request) string
		header    string // the outgoing requests' own Idempotency-Key
		want      []sent // authorise (failing once), its retry, capture
	}{
		{name: "method and path", want: []sent{{`"order-7:POST/payments/authorise"`, "1"}, {`"order-7:POST/payments/authorise"`, "2"}, {`"order-7:POST/payments/capture"`, "1"}}},
		{name: "named operations", operation: func(r *http.Request) string { return strings.TrimPrefix(r.URL.Path, "/payments/") },
			want: []sent{{`"order-7:authorise"`, "1"}, {`"order-7:authorise"`, "2"}, {`"order-7:capture"`, "1"}}},
		{name: "logical key kept", operation: func(*http.Request) string { return "" },
			want: []sent{{`"order-7"`, "1"}, {`"order-7"`, "2"}, {`"order-7"`, "1"}}},
		{name: "the caller's own key", header: "own-key",
			want: []sent{{`"own-key"`, "1"}, {`"own-key"`, "2"}, {`"own-key"`, "1"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var s seen
				failed := false
				dep := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					s.record(r)
					if strings.HasSuffix(r.URL.Path, "/authorise") && !failed {
						failed = true
						w.WriteHeader(503)
					}
				})
				rt := NewTransport(network{dep}, ClientConfig{Budget: mustBudget(t, budget.Finagle()), Operation: tc.operation})
				// The checkout handler's context, as Handler makes it from the
				// incoming request's Idempotency-Key.
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				defer cancel()
				ctx = identity.NewContext(ctx, identity.First("order-7"))
				for _, path := range []string{"/payments/authorise", "/payments/capture"} {
					req, _ := http.NewRequestWithContext(ctx, "POST", "http://dep.test"+path, strings.NewReader("amount=12"))
					if tc.header != "" {
						req.Header.Set(identity.Header, tc.header)
					}
					resp, err := rt.RoundTrip(req)
					if err != nil || resp.StatusCode != 200 {
						t.Fatalf("%s: %v, %v; want 200", path, resp, err)
					}
					resp.Body.Close()
				}
				if s.n() != len(tc.want) {
					t.Fatalf("%d calls, want %d", s.n(), len(tc.want))
				}
				for i, r := range s.calls {
					if got := (sent{r.Header.Get(identity.Header), r.Header.Get(identity.AttemptHeader)}); got != tc.want[i] {
						t.Errorf("call %d (%s): key %s attempt %s; want %s attempt %s", i+1, r.URL.Path, got.key, got.attempt, tc.want[i].key, tc.want[i].attempt)
					}
				}
			})
		})
	}
}

// TestTransportDefaultCeiling checks the zero ClientConfig gives a call
// without a deadline the 30 s DefaultCeiling as its timeout (in its context
// and its headers), and that NoCeiling leaves it without one.
func TestTransportDefaultCeiling(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ceiling time.Duration
		want    time.Duration // 0: no timeout
	}{
		{"zero config", 0, DefaultCeiling},
		{"set", 2 * time.Second, 2 * time.Second},
		{"no ceiling", NoCeiling, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				var hdr http.Header
				var ctxDL time.Time
				var hasDL bool
				rt := NewTransport(rtFunc(func(r *http.Request) (*http.Response, error) {
					hdr = r.Header
					ctxDL, hasDL = r.Context().Deadline()
					if !hasDL {
						return &http.Response{StatusCode: 200, Body: http.NoBody, Request: r}, nil
					}
					<-r.Context().Done() // a dependency that never answers
					return nil, r.Context().Err()
				}), ClientConfig{Ceiling: tc.ceiling})
				_, err := get(t, context.Background(), rt)
				if tc.want == 0 {
					if err != nil || hasDL || hdr.Get(deadline.TimeoutHeader) != "" {
						t.Errorf("error %v, deadline %v %v, %s %q; want none", err, ctxDL, hasDL, deadline.TimeoutHeader, hdr.Get(deadline.TimeoutHeader))
					}
					return
				}
				if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != tc.want {
					t.Errorf("error %v after %v, want context.DeadlineExceeded after %v", err, time.Since(start), tc.want)
				}
				if !hasDL || !ctxDL.Equal(start.Add(tc.want)) {
					t.Errorf("call deadline %v %v, want +%v", ctxDL, hasDL, tc.want)
				}
				if got, want := hdr.Get(deadline.TimeoutHeader), deadline.FormatTimeout(tc.want); got != want {
					t.Errorf("%s %q, want %q", deadline.TimeoutHeader, got, want)
				}
			})
		})
	}
}

// TestTransportBreakerClassifies checks what the breaker counts: 429s and
// no-retry overload answers (the dependency protecting itself) and timeouts
// set by the caller's short deadline leave a breaker that trips on 4
// failures closed, while timeouts at the Ceiling and plain 503s open it.
func TestTransportBreakerClassifies(t *testing.T) {
	overload := http.Header{OverloadHeader: {NoRetry}, "Retry-After": {"1"}}
	for _, tc := range []struct {
		name  string
		dep   http.Handler
		left  time.Duration // the caller's deadline; 0: none
		trips bool
	}{
		{name: "429", dep: answers(new(seen), nil, 429)},
		{name: "no-retry overload", dep: answers(new(seen), overload, 503)},
		{name: "caller's deadline", dep: stall(time.Second), left: 300 * time.Millisecond},
		{name: "cancelled", dep: stall(time.Second), left: -1},
		{name: "4xx", dep: answers(new(seen), nil, 404)},
		{name: "ceiling timeout", dep: stall(time.Second), trips: true},
		{name: "ceiling timeout with a deadline", dep: stall(time.Second), left: 2 * time.Second, trips: true},
		{name: "503", dep: answers(new(seen), nil, 503), trips: true},
		{name: "500", dep: answers(new(seen), nil, 500), trips: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				br := mustBreaker(t, breaker.Config{Window: 10 * time.Second, Buckets: 10, MinVolume: 4, Threshold: 0.5, OpenFor: 5 * time.Second, HalfOpenProbes: 1})
				rt := NewTransport(network{tc.dep}, ClientConfig{Breaker: br, Reserve: 100 * time.Millisecond, Ceiling: 500 * time.Millisecond})
				for range 8 {
					ctx, cancel := context.WithCancel(context.Background())
					switch {
					case tc.left < 0:
						time.AfterFunc(50*time.Millisecond, cancel)
					case tc.left > 0:
						ctx, cancel = context.WithTimeout(ctx, tc.left)
					}
					get(t, ctx, rt)
					cancel()
				}
				if st := br.State(time.Now()); (st == breaker.Open) != tc.trips {
					t.Errorf("breaker %v after 8 calls (%d failures recorded); want open %v", st, br.Stats().Failures, tc.trips)
				}
				time.Sleep(time.Second) // let the stalled handlers finish
			})
		})
	}
}

// stall is a dependency that answers after d, whatever its deadline.
func stall(d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { time.Sleep(d) })
}

// TestBreakerCall is the table of what the breaker's classifier is told of
// an attempt.
func TestBreakerCall(t *testing.T) {
	resp := func(code int, hdr http.Header) *http.Response { return &http.Response{StatusCode: code, Header: hdr} }
	errReset := &netError{syscall.ECONNRESET}
	for _, tc := range []struct {
		name string
		r    result
		want breakerCall
	}{
		{"200", result{resp: resp(200, nil)}, breakerCall{status: 200}},
		{"503", result{resp: resp(503, nil), failed: true, failure: budget.Transient}, breakerCall{status: 503}},
		{"429", result{resp: resp(429, nil), failed: true, failure: budget.Overload}, breakerCall{status: 429, overload: true}},
		{"no-retry", result{resp: resp(503, http.Header{OverloadHeader: {NoRetry}}), failed: true, failure: budget.Overload}, breakerCall{status: 503, overload: true}},
		{"reset", result{err: errReset, failed: true, failure: budget.Transient}, breakerCall{err: errReset}},
		{"timeout at the ceiling", result{err: context.DeadlineExceeded, failed: true, failure: budget.Timeout}, breakerCall{err: context.DeadlineExceeded}},
		{"timeout at the caller's deadline", result{err: context.DeadlineExceeded, failed: true, failure: budget.Timeout, fromCaller: true},
			breakerCall{err: context.DeadlineExceeded, callerDeadline: true}},
		{"cancelled", result{err: context.Canceled, failed: true, failure: budget.Canceled}, breakerCall{err: context.Canceled, callerDeadline: true}},
	} {
		if got := tc.r.breakerCall(); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestTransportRefusalErrors checks the errors of calls and retries the
// controls refused match their sentinels: a retry the budget's pool refused
// (after a 503, whose answer is then not returned, or after a transport
// error, which the error also matches), the breaker open and at its probe
// limit, and the deadline expired and insufficient.
func TestTransportRefusalErrors(t *testing.T) {
	reset := rtFunc(func(*http.Request) (*http.Response, error) { return nil, &netError{syscall.ECONNRESET} })
	for _, tc := range []struct {
		name  string
		dep   http.RoundTripper
		cfg   func(t *testing.T) ClientConfig
		left  time.Duration
		want  []error
		calls int
	}{
		{name: "budget exhausted after a 503", dep: network{answers(new(seen), nil, 503)},
			cfg:  func(t *testing.T) ClientConfig { return ClientConfig{Budget: mustBudget(t, budget.Config{})} },
			want: []error{budget.ErrExhausted}},
		{name: "budget exhausted after a reset", dep: reset,
			cfg:  func(t *testing.T) ClientConfig { return ClientConfig{Budget: mustBudget(t, budget.Config{})} },
			want: []error{budget.ErrExhausted, syscall.ECONNRESET}},
		{name: "tenant share", dep: network{answers(new(seen), nil, 503)},
			cfg: func(t *testing.T) ClientConfig {
				return ClientConfig{Budget: mustBudget(t, budget.Config{MinPerSecond: 0.1, TenantShare: 0.5})}
			},
			want: []error{budget.ErrTenantShare}},
		{name: "breaker open", dep: network{answers(new(seen), nil, 200)},
			cfg: func(t *testing.T) ClientConfig {
				br := mustBreaker(t, breaker.Config{})
				br.ForceOpen(time.Now())
				return ClientConfig{Breaker: br}
			},
			want: []error{breaker.ErrOpen}},
		{name: "breaker probe limit", dep: network{answers(new(seen), nil, 200)},
			cfg: func(t *testing.T) ClientConfig {
				br := mustBreaker(t, breaker.Config{MinVolume: 1, Threshold: 1, OpenFor: time.Second, HalfOpenProbes: 1})
				tk, _ := br.Allow(time.Now())
				br.Record(time.Now(), tk, breaker.Failure)
				time.Sleep(time.Second)
				if _, err := br.Allow(time.Now()); err != nil { // the one probe, never answered
					t.Fatal(err)
				}
				return ClientConfig{Breaker: br}
			},
			want: []error{breaker.ErrProbeLimit}},
		{name: "deadline expired", dep: network{answers(new(seen), nil, 200)},
			cfg: func(*testing.T) ClientConfig { return ClientConfig{} }, left: -time.Millisecond, want: []error{deadline.ErrExpired}},
		{name: "deadline insufficient", dep: network{answers(new(seen), nil, 200)},
			cfg:  func(*testing.T) ClientConfig { return ClientConfig{Reserve: 200 * time.Millisecond} },
			left: 100 * time.Millisecond, want: []error{deadline.ErrInsufficient}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rt := NewTransport(tc.dep, tc.cfg(t))
				ctx := context.Background()
				if tc.left != 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tc.left)
					defer cancel()
				}
				resp, err := get(t, ctx, rt)
				if resp != nil {
					t.Errorf("answer %d returned with the refusal", resp.StatusCode)
				}
				for _, w := range tc.want {
					if !errors.Is(err, w) {
						t.Errorf("error %v does not match %v", err, w)
					}
				}
			})
		})
	}
}

// TestRefusedRetryClosesTheAnswer checks the answer a refused retry does not
// return is closed, so its connection is not leaked.
func TestRefusedRetryClosesTheAnswer(t *testing.T) {
	body := &closeTracker{Reader: strings.NewReader("busy")}
	rt := NewTransport(rtFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 503, Body: body, Request: r}, nil
	}), ClientConfig{Budget: mustBudget(t, budget.Config{})})
	req, _ := http.NewRequest("GET", "http://dep.test/x", nil)
	if _, err := rt.RoundTrip(req); !errors.Is(err, budget.ErrExhausted) {
		t.Fatalf("error %v, want budget.ErrExhausted", err)
	}
	if !body.closed {
		t.Error("the 503's body was not closed")
	}
}
