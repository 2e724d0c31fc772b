package controlhttp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/breaker"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/deadline"
	"github.com/goodput-lab/goodput/control/identity"
	"github.com/goodput-lab/goodput/control/loadstate"
)

// classFromHeader classifies by the X-Class header (default Standard).
func classFromHeader(r *http.Request) admission.Class {
	if c, err := admission.ParseClass(r.Header.Get("X-Class")); err == nil {
		return c
	}
	return admission.Standard
}

func mustAdmission(t *testing.T, cfg admission.Config) *admission.Controller {
	t.Helper()
	c, err := admission.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// occupy admits n continuations at now and leaves them in flight.
func occupy(t *testing.T, c *admission.Controller, now time.Time, n int) {
	t.Helper()
	for range n {
		if d := c.Admit(now, admission.Request{Class: admission.Continuation, Slack: admission.NoDeadline}); !d.Admitted {
			t.Fatalf("occupying a slot: %v", d.Err())
		}
	}
}

// TestHandlerDecisions is the admit/refuse table: status, reason, overload
// marker and Retry-After of every way the middleware answers. Time is the
// synctest bubble's, so absolute deadline headers are exact.
func TestHandlerDecisions(t *testing.T) {
	for _, tc := range []struct {
		name     string
		header   map[string]string // besides X-Class
		class    admission.Class
		inFlight int // continuations already in flight (limit 10)
		setup    func(*admission.Controller)
		status   int
		reason   string // ReasonHeader; "" when admitted
		retry    string // Retry-After
		overload bool
	}{
		{name: "admitted without headers", class: admission.Standard, status: 200},
		{name: "admitted with relative deadline", header: map[string]string{"Goodput-Timeout": "2S"}, class: admission.Standard, status: 200},
		{name: "admitted with identity", header: map[string]string{"Idempotency-Key": `"k1"`, "Goodput-Attempt": "2"}, class: admission.Standard, status: 200},
		{name: "malformed absolute deadline", header: map[string]string{"Goodput-Deadline": "yesterday"}, status: 400, reason: "malformed-deadline"},
		{name: "malformed relative deadline", header: map[string]string{"Goodput-Timeout": "12x"}, status: 400, reason: "malformed-deadline"},
		{name: "malformed key", header: map[string]string{"Idempotency-Key": "two words"}, status: 400, reason: "malformed-identity"},
		{name: "attempt without key", header: map[string]string{"Goodput-Attempt": "2"}, status: 400, reason: "malformed-identity"},
		{name: "attempt zero", header: map[string]string{"Idempotency-Key": "k", "Goodput-Attempt": "0"}, status: 400, reason: "malformed-identity"},
		{name: "expired absolute deadline", header: map[string]string{"Goodput-Deadline": "1999-12-31T23:59:59.999Z"}, status: 503, reason: "expired", overload: true},
		{name: "expired relative deadline", header: map[string]string{"Goodput-Timeout": "0n"}, status: 503, reason: "expired", overload: true},
		{name: "deadline shorter than expected service", header: map[string]string{"Goodput-Timeout": "100m"}, class: admission.Standard, status: 503, reason: "deadline", overload: true},
		{name: "limit", class: admission.Standard, inFlight: 10, status: 503, reason: "limit", retry: "2", overload: true},
		{name: "continuation takes the last slot", class: admission.Continuation, inFlight: 9, status: 200},
		{name: "reserved for continuations", class: admission.Standard, inFlight: 8, status: 429, reason: "reserved", retry: "2", overload: true},
		{name: "sheddable refused first", class: admission.Sheddable, inFlight: 6, status: 429, reason: "reserved", retry: "2", overload: true},
		{name: "lookup still admitted", class: admission.Lookup, inFlight: 8, status: 200},
		{name: "class closed", class: admission.Sheddable,
			setup:  func(c *admission.Controller) { c.SetClassOpen(admission.Sheddable, false) },
			status: 429, reason: "class-closed", retry: "2", overload: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				now := time.Now()
				ctl := mustAdmission(t, admission.Config{Max: 10, RetryAfter: 1500 * time.Millisecond})
				occupy(t, ctl, now, tc.inFlight)
				if tc.setup != nil {
					tc.setup(ctl)
				}
				served := false
				h := Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					served = true
					w.WriteHeader(http.StatusOK)
				}), ServerConfig{Admission: ctl, Classify: classFromHeader, Expected: 300 * time.Millisecond})

				req := httptest.NewRequest("GET", "/checkout", nil)
				req.Header.Set("X-Class", tc.class.String())
				for k, v := range tc.header {
					req.Header.Set(k, v)
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)

				if rec.Code != tc.status {
					t.Fatalf("status %d, want %d; body %q", rec.Code, tc.status, rec.Body)
				}
				if served != (tc.reason == "") {
					t.Fatalf("next served = %v, want %v", served, tc.reason == "")
				}
				got := rec.Result().Header
				if g := got.Get(ReasonHeader); g != tc.reason {
					t.Errorf("%s = %q, want %q", ReasonHeader, g, tc.reason)
				}
				if g := got.Get("Retry-After"); g != tc.retry {
					t.Errorf("Retry-After = %q, want %q", g, tc.retry)
				}
				if g, want := got.Get(OverloadHeader) == NoRetry, tc.overload; g != want {
					t.Errorf("%s: no-retry = %v, want %v", OverloadHeader, g, want)
				}
				if tc.reason != "" {
					if g := got.Get(GenerationHeader); g != "0" {
						t.Errorf("%s = %q, want 0 (no load-state machine)", GenerationHeader, g)
					}
					body := rec.Body.String()
					if !strings.HasPrefix(body, tc.reason+": ") || !strings.Contains(body, "class "+tc.class.String()) {
						t.Errorf("body %q does not start with the reason %q and name class %s", body, tc.reason, tc.class)
					}
				}
				if want := tc.inFlight; ctl.InFlight() != want {
					t.Errorf("in flight after the request = %d, want %d (Done not called?)", ctl.InFlight(), want)
				}
			})
		})
	}
}

func TestRetryAfterSeconds(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{time.Nanosecond, "1"}, {time.Second, "1"}, {time.Second + 1, "2"}, {1500 * time.Millisecond, "2"}, {30 * time.Second, "30"},
	} {
		if got := retryAfterSeconds(tc.d); got != tc.want {
			t.Errorf("retryAfterSeconds(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

// TestHandlerContext checks what an admitted request's context carries:
// the deadline less the skew margin, the identity, the class, the load
// state and generation, and the shed set of that state.
func TestHandlerContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := time.Now()
		m, err := loadstate.New(testLoadState(), now)
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := testShedPlan().Compile()
		if err != nil {
			t.Fatal(err)
		}
		recs, _ := tbl.Feature("recommendations")
		analytics, _ := tbl.Feature("analytics")

		var got Info
		var ctxDL time.Time
		var ctxID identity.Request
		var shedRecs, shedAnalytics bool
		h := Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx := r.Context()
			got, _ = FromContext(ctx)
			ctxDL, _ = ctx.Deadline()
			ctxID, _ = identity.FromContext(ctx)
			shedRecs, shedAnalytics = Shed(ctx, recs), Shed(ctx, analytics)
		}), ServerConfig{
			Deadline:  deadline.Config{SkewMargin: 20 * time.Millisecond},
			Classify:  classFromHeader,
			LoadState: m,
			Shed:      tbl,
		})
		serve := func() {
			req := httptest.NewRequest("POST", "/pay", nil)
			req.Header.Set("X-Class", "continuation")
			deadline.Inject(req.Header, now.Add(time.Second), now)
			identity.Inject(req.Header, identity.Request{Key: "pay-42", Attempt: 3})
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != 200 {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
		}

		serve()
		wantDL := now.Add(time.Second - 20*time.Millisecond)
		want := Info{
			Class: admission.Continuation, Deadline: wantDL,
			Identity: identity.Request{Key: "pay-42", Attempt: 3},
			State:    loadstate.Normal, Generation: 1, Shed: tbl.Set(loadstate.Normal), Admitted: now,
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Info (-want +got):\n%s", diff)
		}
		if !ctxDL.Equal(wantDL) {
			t.Errorf("context deadline %v, want %v", ctxDL, wantDL)
		}
		if ctxID != want.Identity {
			t.Errorf("identity in context %v, want %v", ctxID, want.Identity)
		}
		if shedRecs || shedAnalytics {
			t.Errorf("Normal sheds recommendations %v, analytics %v; want neither", shedRecs, shedAnalytics)
		}

		m.Override(now, loadstate.Pressured, "test")
		serve()
		if got.State != loadstate.Pressured || got.Generation != 2 || shedRecs || !shedAnalytics {
			t.Errorf("Pressured: state %v gen %d, shed recommendations %v analytics %v; want Pressured 2 false true",
				got.State, got.Generation, shedRecs, shedAnalytics)
		}
		m.Override(now, loadstate.Protected, "test")
		serve()
		if got.State != loadstate.Protected || got.Generation != 3 || !shedRecs || !shedAnalytics {
			t.Errorf("Protected: state %v gen %d, shed recommendations %v analytics %v; want Protected 3 true true",
				got.State, got.Generation, shedRecs, shedAnalytics)
		}
	})
}

func TestOutsideHandler(t *testing.T) {
	ctx := context.Background()
	if _, ok := FromContext(ctx); ok {
		t.Error("FromContext found an Info outside the middleware")
	}
	if Shed(ctx, 0) {
		t.Error("Shed outside the middleware")
	}
	Started(ctx) // no effect, no panic
}

// TestHandlerFeedsAdmission checks Done reports what happened: the queueing
// delay up to Started, and a request whose deadline passed as dropped.
// Windows of the AIMD rule close every second; a window's mean queueing
// delay above 20 ms, or its drops, lower the limit, otherwise it rises.
func TestHandlerFeedsAdmission(t *testing.T) {
	for _, tc := range []struct {
		name               string
		handler            http.HandlerFunc
		header             string // Goodput-Timeout
		increase, decrease uint64
	}{
		{"served at once", func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(50 * time.Millisecond) // serving, not queueing
		}, "", 1, 0},
		{"queued 50ms", func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(50 * time.Millisecond) // waiting for a worker
			Started(r.Context())
		}, "", 0, 1},
		{"expired while served", func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
			Started(r.Context()) // too late to count as the start: already dropped
		}, "10m", 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctl := mustAdmission(t, admission.Config{Max: 4, Initial: 2})
				h := Handler(tc.handler, ServerConfig{Admission: ctl})
				req := httptest.NewRequest("GET", "/", nil)
				if tc.header != "" {
					req.Header.Set(deadline.TimeoutHeader, tc.header)
				}
				h.ServeHTTP(httptest.NewRecorder(), req)
				if ctl.InFlight() != 0 {
					t.Fatalf("in flight %d after the request, want 0", ctl.InFlight())
				}
				time.Sleep(time.Second)
				// The next decision closes the window. Its deadline ends it
				// in "expired while served", whose handler it may reach now
				// that the reserve is lent while no continuation asks.
				closing := httptest.NewRequest("GET", "/", nil)
				closing.Header.Set(deadline.TimeoutHeader, "100m") // within the next window
				h.ServeHTTP(httptest.NewRecorder(), closing)
				st := ctl.Stats()
				if st.Increases != tc.increase || st.Decreases != tc.decrease {
					t.Errorf("increases %d, decreases %d; want %d, %d", st.Increases, st.Decreases, tc.increase, tc.decrease)
				}
			})
		})
	}
}

// TestHandlerPanic checks a panicking handler still releases its slot and
// the panic reaches the server.
func TestHandlerPanic(t *testing.T) {
	ctl := mustAdmission(t, admission.Config{Max: 10})
	var m Metrics
	h := Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic(http.ErrAbortHandler)
	}), ServerConfig{Admission: ctl, Metrics: &m})
	func() {
		defer func() {
			if p := recover(); p != http.ErrAbortHandler {
				t.Errorf("recovered %v, want http.ErrAbortHandler", p)
			}
		}()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	}()
	if ctl.InFlight() != 0 {
		t.Errorf("in flight %d after a panic, want 0", ctl.InFlight())
	}
	if n := m.outcomes[admission.Standard][outcomeFailed].Load(); n != 1 {
		t.Errorf("failed outcomes %d, want 1", n)
	}
}

func TestHandlerPanicsOnBadConfig(t *testing.T) {
	defer func() {
		if p := recover(); p == nil {
			t.Error("Handler accepted a negative Expected")
		}
	}()
	Handler(http.NotFoundHandler(), ServerConfig{Expected: -time.Second})
}

// plainWriter is a ResponseWriter with none of the optional interfaces.
type plainWriter struct {
	h    http.Header
	code int
}

func (w *plainWriter) Header() http.Header         { return w.h }
func (w *plainWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *plainWriter) WriteHeader(code int)        { w.code = code }

// hijackWriter is a ResponseWriter that can be hijacked.
type hijackRecorder struct {
	*httptest.ResponseRecorder
	hijacked bool
}

func (w *hijackRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.hijacked = true
	return nil, nil, nil
}

// TestWriterInterfaces checks the writer next sees offers Flusher and
// Hijacker exactly when the server's writer does, and that
// http.ResponseController reaches the server's writer through Unwrap.
func TestWriterInterfaces(t *testing.T) {
	var m Metrics
	serve := func(w http.ResponseWriter, next http.HandlerFunc) {
		Handler(next, ServerConfig{Metrics: &m}).ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	}

	rec := httptest.NewRecorder()
	serve(rec, func(w http.ResponseWriter, r *http.Request) {
		if _, ok := w.(http.Hijacker); ok {
			t.Error("recorder writer offers Hijacker")
		}
		f, ok := w.(http.Flusher)
		if !ok {
			t.Fatal("recorder writer lost http.Flusher")
		}
		w.Write([]byte("part"))
		f.Flush()
		if err := http.NewResponseController(w).Flush(); err != nil {
			t.Errorf("ResponseController.Flush: %v", err)
		}
	})
	if !rec.Flushed || rec.Body.String() != "part" {
		t.Errorf("flushed %v, body %q; want true, part", rec.Flushed, rec.Body)
	}

	pw := &plainWriter{h: http.Header{}}
	serve(pw, func(w http.ResponseWriter, r *http.Request) {
		if _, ok := w.(http.Flusher); ok {
			t.Error("plain writer gained http.Flusher")
		}
		if err := http.NewResponseController(w).Flush(); !errors.Is(err, http.ErrNotSupported) {
			t.Errorf("ResponseController.Flush on a plain writer: %v, want ErrNotSupported", err)
		}
		w.WriteHeader(http.StatusTeapot)
	})
	if pw.code != http.StatusTeapot {
		t.Errorf("status %d reached the server, want 418", pw.code)
	}

	hr := &hijackRecorder{ResponseRecorder: httptest.NewRecorder()}
	serve(hr, func(w http.ResponseWriter, r *http.Request) {
		if _, ok := w.(http.Flusher); !ok {
			t.Error("hijackable recorder lost http.Flusher")
		}
		hj, ok := w.(http.Hijacker)
		if !ok {
			t.Fatal("hijackable recorder lost http.Hijacker")
		}
		hj.Hijack()
	})
	if !hr.hijacked {
		t.Error("Hijack did not reach the server's writer")
	}
	want := [numOutcomes]uint64{outcomeGoodput: 1, outcomeClientError: 1, outcomeHijacked: 1}
	for o := range numOutcomes {
		if g := m.outcomes[admission.Standard][o].Load(); g != want[o] {
			t.Errorf("outcome %s = %d, want %d", outcomeNames[o], g, want[o])
		}
	}
}

// TestWriterStatus checks the status recorded for outcomes: informational
// answers do not count, an implicit 200 does.
func TestWriterStatus(t *testing.T) {
	for _, tc := range []struct {
		name string
		do   func(w http.ResponseWriter)
		want int
	}{
		{"nothing written", func(w http.ResponseWriter) {}, 200},
		{"body only", func(w http.ResponseWriter) { w.Write([]byte("x")) }, 200},
		{"early hints then 503", func(w http.ResponseWriter) { w.WriteHeader(103); w.WriteHeader(503) }, 503},
		{"second WriteHeader ignored", func(w http.ResponseWriter) { w.WriteHeader(201); w.WriteHeader(500) }, 201},
	} {
		w := newWriter(httptest.NewRecorder())
		tc.do(w)
		if got := w.status(); got != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestOutcomes checks goodput, late, failed and client-error are told apart.
func TestOutcomes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var m Metrics
		h := Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			d, _ := time.ParseDuration(r.URL.Query().Get("work"))
			time.Sleep(d) // ignores the context: a late success is possible
			code := 200
			if c := r.URL.Query().Get("code"); c != "" {
				code = map[string]int{"500": 500, "404": 404}[c]
			}
			w.WriteHeader(code)
		}), ServerConfig{Metrics: &m})
		for _, q := range []string{"work=10ms", "work=2s", "work=10ms&code=500", "work=10ms&code=404", "work=2s&code=500"} {
			req := httptest.NewRequest("GET", "/?"+q, nil)
			req.Header.Set(deadline.TimeoutHeader, "1S")
			h.ServeHTTP(httptest.NewRecorder(), req)
		}
		want := [numOutcomes]uint64{outcomeGoodput: 1, outcomeLate: 1, outcomeFailed: 2, outcomeClientError: 1}
		for o := range numOutcomes {
			if g := m.outcomes[admission.Standard][o].Load(); g != want[o] {
				t.Errorf("outcome %s = %d, want %d", outcomeNames[o], g, want[o])
			}
		}
	})
}

// TestHandlerDeadlineDefaults checks the zero ServerConfig bounds every
// request: one without a deadline header is served with a context that ends
// deadline.DefaultTimeout after arrival, and one carrying the largest
// Goodput-Timeout (99999999H) is cut to deadline.DefaultMax, which is what a
// Transport then propagates to the dependency.
func TestHandlerDeadlineDefaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var sent http.Header
		dep := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { sent = r.Header.Clone() })
		client := NewTransport(network{dep}, ClientConfig{})
		var ctxDL time.Time
		var hasDL bool
		h := Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctxDL, hasDL = r.Context().Deadline()
			resp, err := get(t, r.Context(), client)
			if err != nil {
				t.Errorf("call: %v", err)
			} else if resp.StatusCode != 200 {
				t.Errorf("call: status %d", resp.StatusCode)
			}
		}), ServerConfig{})
		for _, tc := range []struct {
			name   string
			header string // Goodput-Timeout; empty for none
			want   time.Duration
		}{
			{"no deadline header", "", deadline.DefaultTimeout},
			{"99999999H", "99999999H", deadline.DefaultMax},
		} {
			now := time.Now()
			req := httptest.NewRequest("GET", "/", nil)
			if tc.header != "" {
				req.Header.Set(deadline.TimeoutHeader, tc.header)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != 200 {
				t.Fatalf("%s: status %d: %s", tc.name, rec.Code, rec.Body)
			}
			if !hasDL || !ctxDL.Equal(now.Add(tc.want)) {
				t.Errorf("%s: context deadline %v (set %v), want %v after arrival", tc.name, ctxDL.Sub(now), hasDL, tc.want)
			}
			got, ok, err := deadline.Extract(sent, now, deadline.AsSent)
			if err != nil || !ok || got.After(now.Add(tc.want)) {
				t.Errorf("%s: propagated deadline %v after arrival (%v, %v), want at most %v", tc.name, got.Sub(now), ok, err, tc.want)
			}
		}
	})
}

// TestRefuse checks the answer Refuse writes for each control error it
// recognises is the middleware's own refusal (503, reason, generation,
// no-retry, Retry-After only where waiting helps), that it leaves other
// errors to the handler, and that the refusal counts as the outcome
// "refused" and reaches the observer.
func TestRefuse(t *testing.T) {
	for _, tc := range []struct {
		name       string
		err        error
		refused    bool
		reason     string
		retryAfter string
	}{
		{"nil", nil, false, "", ""},
		{"other error", errors.New("connection reset"), false, "", ""},
		{"breaker open", fmt.Errorf("controlhttp: call not made: %w", breaker.ErrOpen), true, "breaker-open", "1"},
		{"probe limit", fmt.Errorf("controlhttp: call not made: %w", breaker.ErrProbeLimit), true, "breaker-probe-limit", "1"},
		{"budget exhausted", fmt.Errorf("controlhttp: retry not made: %w", budget.ErrExhausted), true, "budget-exhausted", "1"},
		{"own wait", retryAfterErr{3 * time.Second, breaker.ErrOpen}, true, "breaker-open", "3"},
		{"deadline insufficient", fmt.Errorf("controlhttp: call not made: %w", deadline.ErrInsufficient), true, "deadline-insufficient", ""},
		{"deadline expired", fmt.Errorf("controlhttp: call not made: %w", deadline.ErrExpired), true, "expired", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var m Metrics
				var obs recordingObserver
				ls := metricsMachine(t, time.Now())
				ls.Override(time.Now(), loadstate.Pressured, "test")
				var refused bool
				h := Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if refused = Refuse(w, r, tc.err); !refused {
						fmt.Fprint(w, "handled")
					}
				}), ServerConfig{Classify: classFromHeader, LoadState: ls, Metrics: &m, Observer: &obs})
				req := httptest.NewRequest("GET", "/", nil)
				req.Header.Set("X-Class", "continuation")
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if refused != tc.refused {
					t.Fatalf("Refuse = %v, want %v", refused, tc.refused)
				}
				if !tc.refused {
					if rec.Code != 200 || rec.Body.String() != "handled" || rec.Header().Get(ReasonHeader) != "" {
						t.Errorf("not refused: %d %q %v", rec.Code, rec.Body, rec.Header())
					}
					return
				}
				hd := rec.Header()
				if rec.Code != 503 || hd.Get(ReasonHeader) != tc.reason || hd.Get(OverloadHeader) != NoRetry ||
					hd.Get(GenerationHeader) != "2" || hd.Get("Retry-After") != tc.retryAfter {
					t.Errorf("answer %d %v; want 503, reason %s, no-retry, generation 2, Retry-After %q", rec.Code, hd, tc.reason, tc.retryAfter)
				}
				if want := tc.reason + ": "; !strings.HasPrefix(rec.Body.String(), want) || !strings.HasSuffix(rec.Body.String(), "(class continuation, generation 2)\n") {
					t.Errorf("body %q", rec.Body)
				}
				if v, _ := lookup(&m, time.Now(), "goodput_server_outcomes_total", "class", "continuation", "outcome", "refused"); v != 1 {
					t.Errorf("refused outcomes %v, want 1", v)
				}
				if v, _ := lookup(&m, time.Now(), "goodput_server_outcomes_total", "class", "continuation", "outcome", "failed"); v != 0 {
					t.Errorf("failed outcomes %v, want 0", v)
				}
				if len(obs.served) != 1 || obs.served[0].Result != ResultRefused || obs.served[0].Reason != tc.reason || obs.served[0].Status != 503 {
					t.Errorf("observed %+v", obs.served)
				}
			})
		})
	}
}

// TestRefuseOutsideHandler checks Refuse answers a request outside a
// Handler too, as class standard at generation 0.
func TestRefuseOutsideHandler(t *testing.T) {
	rec := httptest.NewRecorder()
	if !Refuse(rec, httptest.NewRequest("GET", "/", nil), breaker.ErrOpen) {
		t.Fatal("Refuse(ErrOpen) = false")
	}
	if rec.Code != 503 || rec.Header().Get(ReasonHeader) != "breaker-open" || rec.Header().Get(GenerationHeader) != "0" ||
		rec.Body.String() != "breaker-open: breaker: open (class standard, generation 0)\n" {
		t.Errorf("answer %d %v %q", rec.Code, rec.Header(), rec.Body)
	}
}

// retryAfterErr is an error that says how long to wait.
type retryAfterErr struct {
	wait time.Duration
	err  error
}

func (e retryAfterErr) Error() string             { return e.err.Error() }
func (e retryAfterErr) Unwrap() error             { return e.err }
func (e retryAfterErr) RetryAfter() time.Duration { return e.wait }

// recordingObserver keeps what a Handler reports.
type recordingObserver struct {
	mu     sync.Mutex
	served []Served
}

func (o *recordingObserver) Begin(r *http.Request) context.Context { return r.Context() }
func (o *recordingObserver) Served(_ context.Context, s Served) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.served = append(o.served, s)
}
