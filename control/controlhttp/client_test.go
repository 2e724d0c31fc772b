package controlhttp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/goodput-lab/goodput/control/breaker"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/deadline"
	"github.com/goodput-lab/goodput/control/identity"
)

// rtFunc is an http.RoundTripper made of a function.
type rtFunc func(*http.Request) (*http.Response, error)

func (f rtFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// network is a fake network: it serves each call with h on a request of its
// own, as a server process would, carrying over the method, URL, headers
// and body but not the caller's context, so a deadline reaches the server
// only through the headers. The caller stops waiting when its context ends.
// No sockets are involved, so it runs inside a synctest bubble.
type network struct{ h http.Handler }

func (n network) RoundTrip(req *http.Request) (*http.Response, error) {
	sreq := httptest.NewRequest(req.Method, req.URL.String(), req.Body)
	sreq.Header = req.Header.Clone()
	done := make(chan *http.Response, 1)
	go func() {
		rec := httptest.NewRecorder()
		n.h.ServeHTTP(rec, sreq)
		done <- rec.Result()
	}()
	select {
	case resp := <-done:
		return resp, nil
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
}

// seen records the calls a fake dependency received.
type seen struct {
	mu    sync.Mutex
	calls []*http.Request
	at    []time.Time
	body  []string
}

func (s *seen) record(r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, r)
	s.at = append(s.at, time.Now())
	s.body = append(s.body, string(b))
}

func (s *seen) n() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.calls)
}

// answers returns a handler that records each call and answers with the
// next of codes (the last one repeats), adding hdr to the refusals.
func answers(s *seen, hdr http.Header, codes ...int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.record(r)
		i := min(s.n(), len(codes)) - 1
		if codes[i] >= 400 {
			for k, v := range hdr {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(codes[i])
	})
}

func mustBudget(t *testing.T, cfg budget.Config) *budget.Budget {
	t.Helper()
	b, err := budget.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustBreaker(t *testing.T, cfg breaker.Config) *breaker.Breaker {
	t.Helper()
	b, err := breaker.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func get(t *testing.T, ctx context.Context, rt http.RoundTripper) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "GET", "http://dep.test/stock", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := rt.RoundTrip(req)
	if resp != nil {
		resp.Body.Close()
	}
	return resp, err
}

// TestTransportPropagates checks the outgoing call carries the deadline
// minus the reserve (as headers and as its context's deadline) and the
// identity from the context, derived for the call's operation with the same
// attempt, and that the caller's request is not changed.
func TestTransportPropagates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := time.Now()
		var out *http.Request
		rt := NewTransport(rtFunc(func(r *http.Request) (*http.Response, error) {
			out = r
			return &http.Response{StatusCode: 200, Body: http.NoBody, Request: r}, nil
		}), ClientConfig{Reserve: 100 * time.Millisecond})

		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		ctx = identity.NewContext(ctx, identity.Request{Key: "order-7", Attempt: 2})
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://dep.test/stock", nil)
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()

		callDL := now.Add(900 * time.Millisecond)
		for h, want := range map[string]string{
			deadline.Header:        deadline.FormatDeadline(callDL),
			deadline.TimeoutHeader: "900m",
			identity.Header:        `"order-7:GET/stock"`,
			identity.AttemptHeader: "2",
		} {
			if got := out.Header.Get(h); got != want {
				t.Errorf("%s = %q, want %q", h, got, want)
			}
		}
		if d, ok := out.Context().Deadline(); !ok || !d.Equal(callDL) {
			t.Errorf("call context deadline %v %v, want %v", d, ok, callDL)
		}
		if len(req.Header) != 0 {
			t.Errorf("the caller's request was changed: %v", req.Header)
		}
	})
}

// TestTransportToHandler runs a call through the fake network into the
// middleware and checks what the server sees: the deadline less the
// reserve and the skew margin, and the identity.
func TestTransportToHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := time.Now()
		var info Info
		srv := Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			info, _ = FromContext(r.Context())
		}), ServerConfig{Deadline: deadline.Config{SkewMargin: 10 * time.Millisecond}})
		rt := NewTransport(network{srv}, ClientConfig{Reserve: 50 * time.Millisecond})

		ctx, cancel := context.WithDeadline(context.Background(), now.Add(800*time.Millisecond))
		defer cancel()
		ctx = identity.NewContext(ctx, identity.First("cart-3"))
		if resp, err := get(t, ctx, rt); err != nil || resp.StatusCode != 200 {
			t.Fatalf("got %v, %v", resp, err)
		}
		if want := now.Add(740 * time.Millisecond); !info.Deadline.Equal(want) {
			t.Errorf("server deadline %v, want %v (800ms − 50ms reserve − 10ms skew)", info.Deadline, want)
		}
		if want := identity.First("cart-3").Derive("GET/stock"); info.Identity != want {
			t.Errorf("server identity %v, want %v", info.Identity, want)
		}
	})
}

// TestTransportRetries checks a retry keeps the call's identity, increments
// the attempt, replays the body, and waits a jittered backoff between tries.
func TestTransportRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var s seen
		var m Metrics
		bud := mustBudget(t, budget.Finagle())
		rt := NewTransport(network{answers(&s, nil, 503, 502, 200)}, ClientConfig{
			Budget: bud, MaxAttempts: 3, BackoffBase: 100 * time.Millisecond, Seed: 1, Metrics: &m,
		})
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		ctx = identity.NewContext(ctx, identity.First("pay-1"))
		req, _ := http.NewRequestWithContext(ctx, "POST", "http://dep.test/authorise", strings.NewReader("amount=12"))
		resp, err := rt.RoundTrip(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("got %v, %v; want 200", resp, err)
		}
		resp.Body.Close()
		if s.n() != 3 {
			t.Fatalf("%d attempts, want 3", s.n())
		}
		for i, r := range s.calls {
			if k := r.Header.Get(identity.Header); k != `"pay-1:POST/authorise"` {
				t.Errorf("attempt %d key %q, want the same \"pay-1:POST/authorise\"", i+1, k)
			}
			if a, want := r.Header.Get(identity.AttemptHeader), string(rune('1'+i)); a != want {
				t.Errorf("attempt %d carries attempt number %q, want %q", i+1, a, want)
			}
			if s.body[i] != "amount=12" {
				t.Errorf("attempt %d body %q, want the replayed amount=12", i+1, s.body[i])
			}
		}
		// Full jitter: [0, 100ms) after attempt 1, [0, 200ms) after attempt 2.
		if w := s.at[1].Sub(s.at[0]); w >= 100*time.Millisecond {
			t.Errorf("first backoff %v, want < 100ms", w)
		}
		if w := s.at[2].Sub(s.at[1]); w >= 200*time.Millisecond {
			t.Errorf("second backoff %v, want < 200ms", w)
		}
		if st := bud.Stats(); st.Requests != 1 || st.Retries != 2 {
			t.Errorf("budget requests %d retries %d, want 1 and 2", st.Requests, st.Retries)
		}
		if m.deps[""].attempts[0].Load() != 1 || m.deps[""].attempts[1].Load() != 2 || m.deps[""].retries[budget.ReasonAllowed].Load() != 2 {
			t.Errorf("metrics: first %d retry %d allowed %d; want 1 2 2",
				m.deps[""].attempts[0].Load(), m.deps[""].attempts[1].Load(), m.deps[""].retries[budget.ReasonAllowed].Load())
		}
	})
}

// TestTransportSeededJitter checks the seed decides the backoff: the same
// seed waits the same, another seed waits differently.
func TestTransportSeededJitter(t *testing.T) {
	waits := func(seed uint64) time.Duration {
		var d time.Duration
		synctest.Test(t, func(t *testing.T) {
			var s seen
			rt := NewTransport(network{answers(&s, nil, 503, 200)}, ClientConfig{
				Budget: mustBudget(t, budget.Finagle()), BackoffBase: time.Second, BackoffMax: time.Second, Seed: seed,
			})
			get(t, context.Background(), rt)
			d = s.at[1].Sub(s.at[0])
		})
		return d
	}
	a, b, c := waits(7), waits(7), waits(8)
	if a != b || a == c {
		t.Errorf("backoffs for seeds 7, 7, 8: %v %v %v; want the first two equal and the third different", a, b, c)
	}
}

// TestTransportRetryRefusals is the table of failed answers that are not
// retried, with the reason counted.
func TestTransportRetryRefusals(t *testing.T) {
	overload := http.Header{OverloadHeader: {NoRetry}, ReasonHeader: {"limit"}, "Retry-After": {"1"}}
	for _, tc := range []struct {
		name   string
		cfg    budget.Config
		method string
		body   io.Reader // nil: none; bytes.Reader is replayable, others not
		key    identity.Key
		answer int
		hdr    http.Header
		max    int
		reason int // metrics retry reason
	}{
		{name: "no-retry overload", cfg: budget.Finagle(), method: "GET", answer: 503, hdr: overload, reason: int(budget.ReasonOverload)},
		{name: "429", cfg: budget.Finagle(), method: "GET", answer: 429, reason: int(budget.ReasonOverload)},
		{name: "500 is not known transient", cfg: budget.Finagle(), method: "GET", answer: 500, reason: int(budget.ReasonNotTransient)},
		{name: "POST without identity", cfg: budget.Finagle(), method: "POST", body: bytes.NewReader([]byte("x")), answer: 503, reason: int(budget.ReasonNotIdempotent)},
		{name: "body not replayable", cfg: budget.Finagle(), method: "POST", key: "k", body: io.MultiReader(strings.NewReader("x")), answer: 503, reason: retryBodyNotReplayable},
		{name: "max attempts", cfg: budget.Finagle(), method: "GET", answer: 503, max: 1, reason: retryMaxAttempts},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var s seen
				var m Metrics
				rt := NewTransport(network{answers(&s, tc.hdr, tc.answer)}, ClientConfig{Budget: mustBudget(t, tc.cfg), MaxAttempts: tc.max, Metrics: &m})
				ctx := context.Background()
				if tc.key != "" {
					ctx = identity.NewContext(ctx, identity.First(tc.key))
				}
				req, _ := http.NewRequestWithContext(ctx, tc.method, "http://dep.test/x", tc.body)
				resp, err := rt.RoundTrip(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != tc.answer {
					t.Errorf("status %d, want the dependency's %d", resp.StatusCode, tc.answer)
				}
				if tc.hdr != nil && resp.Header.Get(OverloadHeader) != NoRetry {
					t.Errorf("the overload marker did not reach the caller")
				}
				if s.n() != 1 {
					t.Errorf("%d attempts, want 1", s.n())
				}
				for r := range numRetryReasons {
					want := uint64(0)
					if r == tc.reason {
						want = 1
					}
					if g := m.deps[""].retries[r].Load(); g != want {
						t.Errorf("retry decisions %q = %d, want %d", retryReasonName(r), g, want)
					}
				}
			})
		})
	}
}

// TestTransportBreaker checks the breaker opens after failures, refuses
// calls without making them, and closes again after successful probes. A
// plain 503 counts as a failure (a no-retry overload answer would not: see
// breaker.DefaultClassify).
func TestTransportBreaker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var s seen
		var m Metrics
		healthy := false
		dep := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.record(r)
			if !healthy {
				w.WriteHeader(503)
			}
		})
		br := mustBreaker(t, breaker.Config{Window: 10 * time.Second, Buckets: 10, MinVolume: 4, Threshold: 0.5, OpenFor: 5 * time.Second, HalfOpenProbes: 2})
		rt := NewTransport(network{dep}, ClientConfig{Breaker: br, Metrics: &m})

		for i := range 4 {
			if resp, err := get(t, context.Background(), rt); err != nil || resp.StatusCode != 503 {
				t.Fatalf("call %d: %v, %v; want 503", i+1, resp, err)
			}
		}
		if st := br.State(time.Now()); st != breaker.Open {
			t.Fatalf("breaker %v after 4 failures, want Open", st)
		}
		_, err := get(t, context.Background(), rt)
		if !errors.Is(err, breaker.ErrOpen) {
			t.Fatalf("call while open: %v, want breaker.ErrOpen", err)
		}
		if s.n() != 4 {
			t.Errorf("%d calls reached the dependency, want 4 (none while open)", s.n())
		}
		if m.deps[""].refusals[refusalBreakerOpen].Load() != 1 {
			t.Errorf("breaker-open refusals %d, want 1", m.deps[""].refusals[refusalBreakerOpen].Load())
		}

		time.Sleep(5 * time.Second)
		healthy = true
		for i := range 2 {
			if resp, err := get(t, context.Background(), rt); err != nil || resp.StatusCode != 200 {
				t.Fatalf("probe %d: %v, %v; want 200", i+1, resp, err)
			}
		}
		if st := br.State(time.Now()); st != breaker.Closed {
			t.Errorf("breaker %v after 2 successful probes, want Closed", st)
		}
	})
}

// TestTransportBreakerStopsRetries checks a retry is not attempted once the
// failure has opened the breaker.
func TestTransportBreakerStopsRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var s seen
		var m Metrics
		br := mustBreaker(t, breaker.Config{MinVolume: 1, Threshold: 1})
		rt := NewTransport(network{answers(&s, nil, 503)}, ClientConfig{Budget: mustBudget(t, budget.Finagle()), Breaker: br, Metrics: &m})
		resp, err := get(t, context.Background(), rt)
		if err != nil || resp.StatusCode != 503 || s.n() != 1 {
			t.Fatalf("got %v, %v after %d attempts; want the 503 after 1", resp, err, s.n())
		}
		if m.deps[""].retries[retryBreakerOpen].Load() != 1 {
			t.Errorf("breaker-open retry decisions %d, want 1", m.deps[""].retries[retryBreakerOpen].Load())
		}
	})
}

// closeTracker records whether a request body was closed.
type closeTracker struct {
	io.Reader
	closed bool
}

func (c *closeTracker) Close() error { c.closed = true; return nil }

// TestTransportDeadlineRefusals checks a call is not made when the deadline
// has passed or leaves no more than the reserve, and its body is closed.
func TestTransportDeadlineRefusals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		left   time.Duration
		want   error
		reason int
	}{
		{"expired", -time.Millisecond, deadline.ErrExpired, refusalDeadlineExpired},
		{"within the reserve", 100 * time.Millisecond, deadline.ErrInsufficient, refusalDeadlineInsufficient},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var m Metrics
				called := false
				rt := NewTransport(rtFunc(func(*http.Request) (*http.Response, error) {
					called = true
					return nil, errors.New("unreachable")
				}), ClientConfig{Reserve: 100 * time.Millisecond, Metrics: &m})
				ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(tc.left))
				defer cancel()
				body := &closeTracker{Reader: strings.NewReader("x")}
				req, _ := http.NewRequestWithContext(ctx, "PUT", "http://dep.test/x", body)
				_, err := rt.RoundTrip(req)
				if !errors.Is(err, tc.want) {
					t.Errorf("error %v, want %v", err, tc.want)
				}
				if called || !body.closed {
					t.Errorf("call made %v, body closed %v; want false, true", called, body.closed)
				}
				if m.deps[""].refusals[tc.reason].Load() != 1 {
					t.Errorf("refusal %s not counted", refusalNames[tc.reason])
				}
			})
		})
	}
}

// TestTransportTimeout checks a per-call timeout without a deadline comes
// from Ceiling, is classified as a timeout, and is retried.
func TestTransportTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var s seen
		dep := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.record(r)
			if s.n() == 1 {
				time.Sleep(time.Second) // longer than the ceiling
			}
		})
		bud := mustBudget(t, budget.Finagle())
		rt := NewTransport(network{dep}, ClientConfig{Budget: bud, Ceiling: 100 * time.Millisecond})
		start := time.Now()
		resp, err := get(t, context.Background(), rt)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("got %v, %v; want 200 on the retry", resp, err)
		}
		if got := s.calls[0].Header.Get(deadline.TimeoutHeader); got != "100m" {
			t.Errorf("first attempt's timeout header %q, want 100m", got)
		}
		if d := s.at[1].Sub(start); d < 100*time.Millisecond || d >= 125*time.Millisecond {
			t.Errorf("retry sent %v after the start, want the 100ms timeout plus < 25ms backoff", d)
		}
		time.Sleep(time.Second) // let the abandoned first attempt finish
	})
}

// TestTransportBackoffHonoursContext checks a caller that gives up during
// the backoff gets its answer at once, with its context's cause.
func TestTransportBackoffHonoursContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var s seen
		rt := NewTransport(network{answers(&s, nil, 503)}, ClientConfig{
			Budget: mustBudget(t, budget.Finagle()), BackoffBase: time.Hour, BackoffMax: time.Hour,
		})
		ctx, cancel := context.WithCancelCause(context.Background())
		stop := errors.New("caller gave up")
		time.AfterFunc(time.Second, func() { cancel(stop) })
		start := time.Now()
		_, err := get(t, ctx, rt)
		if !errors.Is(err, stop) {
			t.Errorf("error %v, want the cause %v", err, stop)
		}
		if d := time.Since(start); d != time.Second {
			t.Errorf("returned after %v, want 1s (when the caller gave up)", d)
		}
		if s.n() != 1 {
			t.Errorf("%d attempts, want 1", s.n())
		}
	})
}

// TestTransportCanceledNotRecorded checks a call the caller cancels is
// neither retried nor counted against the breaker.
func TestTransportCanceledNotRecorded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		br := mustBreaker(t, breaker.Config{MinVolume: 1, Threshold: 1})
		bud := mustBudget(t, budget.Finagle())
		rt := NewTransport(network{http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(time.Second)
		})}, ClientConfig{Budget: bud, Breaker: br})
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(10*time.Millisecond, cancel)
		if _, err := get(t, ctx, rt); !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want context.Canceled", err)
		}
		if st := br.Stats(); st.Failures != 0 || st.State != breaker.Closed {
			t.Errorf("breaker failures %d state %v; want 0, Closed", st.Failures, st.State)
		}
		if st := bud.Stats(); st.Retries != 0 || st.Suppressed[budget.ReasonNotTransient] != 1 {
			t.Errorf("budget retries %d, not-transient %d; want 0, 1", st.Retries, st.Suppressed[budget.ReasonNotTransient])
		}
		time.Sleep(time.Second)
	})
}

// TestTransportHeaderIdentity checks an Idempotency-Key set on the request
// wins over the context's, and a malformed one is an error.
func TestTransportHeaderIdentity(t *testing.T) {
	var out *http.Request
	rt := NewTransport(rtFunc(func(r *http.Request) (*http.Response, error) {
		out = r
		return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
	}), ClientConfig{})
	ctx := identity.NewContext(context.Background(), identity.First("from-context"))
	req, _ := http.NewRequestWithContext(ctx, "POST", "http://dep.test/x", nil)
	req.Header.Set(identity.Header, "explicit")
	if _, err := rt.RoundTrip(req); err != nil {
		t.Fatal(err)
	}
	if got := out.Header.Get(identity.Header); got != `"explicit"` {
		t.Errorf("key %q, want the request's own \"explicit\"", got)
	}
	req.Header.Set(identity.Header, "not a key")
	if _, err := rt.RoundTrip(req); !errors.Is(err, identity.ErrMalformed) {
		t.Errorf("malformed key: %v, want identity.ErrMalformed", err)
	}
}

func TestClientConfigValidate(t *testing.T) {
	for _, c := range []ClientConfig{
		{Reserve: -1}, {Expected: -1}, {BackoffBase: -1}, {BackoffMax: -1}, {MaxAttempts: -1}, {MaxAttempts: identity.MaxAttempt + 1},
	} {
		if c.Validate() == nil {
			t.Errorf("%+v: Validate accepted it", c)
		}
	}
	for _, c := range []ClientConfig{{}, {Ceiling: NoCeiling}, {Ceiling: -time.Hour}} {
		if err := c.Validate(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
}
