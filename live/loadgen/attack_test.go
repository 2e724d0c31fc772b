package loadgen

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/control/controlhttp"
	"github.com/goodput-lab/goodput/control/deadline"
	"github.com/goodput-lab/goodput/control/identity"
	"github.com/goodput-lab/goodput/scenario"
)

// target is a loopback server that answers by path: /ok 200 at once, /slow 200 after
// 60ms, /limit 429 with a reason, /unavailable 503, /error 500, /missing 404, /hang
// never (until the client gives up), /flaky 503 until the third attempt of a key.
type target struct {
	*httptest.Server
	mu    sync.Mutex
	seen  map[string][]http.Header // by Idempotency-Key, every attempt's headers
	calls int
}

func newTarget(t *testing.T) *target {
	t.Helper()
	tg := &target{seen: map[string][]http.Header{}}
	tg.Server = httptest.NewServer(http.HandlerFunc(tg.serve))
	t.Cleanup(tg.Close)
	return tg
}

func (tg *target) serve(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get(identity.Header)
	tg.mu.Lock()
	tg.calls++
	tg.seen[key] = append(tg.seen[key], r.Header.Clone())
	n := len(tg.seen[key])
	tg.mu.Unlock()
	switch r.URL.Path {
	case "/ok":
		fmt.Fprint(w, "ok")
	case "/slow":
		select {
		case <-time.After(60 * time.Millisecond): // the service's latency, not a synchronisation
		case <-r.Context().Done():
		}
		fmt.Fprint(w, "slow")
	case "/limit":
		w.Header().Set(controlhttp.ReasonHeader, "limit")
		w.WriteHeader(http.StatusTooManyRequests)
	case "/unavailable":
		w.WriteHeader(http.StatusServiceUnavailable)
	case "/error":
		w.WriteHeader(http.StatusInternalServerError)
	case "/missing":
		w.WriteHeader(http.StatusNotFound)
	case "/hang":
		<-r.Context().Done()
	case "/chunked":
		fmt.Fprint(w, "a")
		w.(http.Flusher).Flush() // a chunked answer
		fmt.Fprint(w, "b")
	case "/flaky":
		if n < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, "ok")
	}
}

func uniform(rate float64) scenario.Traffic {
	return scenario.Traffic{Arrivals: scenario.ArrivalsUniform, Schedule: []scenario.RateStep{{At: 0, Rate: scenario.Rate(rate)}}}
}

func attack(t *testing.T, url string, load scenario.Traffic, d time.Duration, cs []Class, o Options) *Result {
	t.Helper()
	p, err := NewPlan(load, d, cs, 1)
	if err != nil {
		t.Fatal(err)
	}
	if o.Identity == "" {
		o.Identity = "test"
	}
	a, err := New(p, url, o)
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	checkSums(t, res)
	checkNoGoroutines(t)
	return res
}

// checkSums checks that every logical request is counted once.
func checkSums(t *testing.T, res *Result) {
	t.Helper()
	for _, c := range append(res.Classes, res.Total) {
		if c.Offered != c.Sent+c.Unsent || c.Sent != c.Goodput+c.Late+c.Rejected+c.Failed || c.Attempts < c.Sent {
			t.Errorf("class %s does not add up: %+v", c.Name, c)
		}
		if c.Latency.Count != c.Sent {
			t.Errorf("class %s: %d latencies for %d sent", c.Name, c.Latency.Count, c.Sent)
		}
	}
	var offered, sent, unsent, terminal, attempts int64
	for _, r := range res.Series {
		offered += r.Offered
		sent += r.Sent
		unsent += r.Unsent
		terminal += r.Goodput + r.Late + r.Rejected + r.Failed
		attempts += r.Attempts
	}
	tot := res.Total
	if offered != tot.Offered || sent != tot.Sent || unsent != tot.Unsent || terminal != tot.Sent || attempts != tot.Attempts {
		t.Errorf("series sums offered %d sent %d unsent %d terminal %d attempts %d; totals %+v", offered, sent, unsent, terminal, attempts, tot)
	}
}

// checkNoGoroutines checks that no goroutine of the attacker outlives its Run.
func checkNoGoroutines(t *testing.T) {
	t.Helper()
	var stacks string
	for range 1000 {
		buf := make([]byte, 1<<20)
		stacks = string(buf[:runtime.Stack(buf, true)])
		if !strings.Contains(stacks, "loadgen.(*Attacker)") && !strings.Contains(stacks, "loadgen.(*worker)") {
			return
		}
		runtime.Gosched()
	}
	t.Errorf("attacker goroutines left after Run:\n%s", stacks)
}

// TestAttackOutcomes classifies the answers of each path, with the generator's own client
// and with net/http's.
func TestAttackOutcomes(t *testing.T) {
	t.Run("own client", func(t *testing.T) { testOutcomes(t, Options{}) })
	t.Run("net/http", func(t *testing.T) { testOutcomes(t, Options{Client: NewClient(100)}) })
}

func testOutcomes(t *testing.T, o Options) {
	tg := newTarget(t)
	refused, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refusedURL := "http://" + refused.Addr().String()
	refused.Close()

	paths := []string{"/ok", "/slow", "/limit", "/unavailable", "/error", "/missing", "/hang", "/chunked", "HEAD /ok"}
	var cs []Class
	for _, p := range paths {
		// Deadlines far from every answer's time but /slow's, which always comes after its
		// deadline; a request held up past its deadline before it is sent (on a loaded
		// machine) is unsent, which the sums check.
		d := 5 * time.Second
		if p == "/slow" {
			d = 30 * time.Millisecond
		}
		method, path, ok := strings.Cut(p, " ")
		if !ok {
			method, path = "", p
		}
		cs = append(cs, Class{Name: p, Share: 1 / float64(len(paths)), Deadline: d, Method: method, Path: path, Timeout: 2 * time.Second})
		if p == "/hang" {
			cs[len(cs)-1].Timeout = 100 * time.Millisecond
		}
	}
	res := attack(t, tg.URL, uniform(350), time.Second, cs, o)
	want := map[string]struct {
		field  func(ClassResult) int64
		detail string
	}{
		"/ok":          {func(c ClassResult) int64 { return c.Goodput }, ""},
		"/slow":        {func(c ClassResult) int64 { return c.Late }, ""},
		"/limit":       {func(c ClassResult) int64 { return c.Rejected }, "429 limit"},
		"/unavailable": {func(c ClassResult) int64 { return c.Rejected }, "503"},
		"/error":       {func(c ClassResult) int64 { return c.Failed }, "status 500"},
		"/missing":     {func(c ClassResult) int64 { return c.Failed }, "status 404"},
		"/hang":        {func(c ClassResult) int64 { return c.Failed }, "timeout"},
		"/chunked":     {func(c ClassResult) int64 { return c.Goodput }, ""},
		"HEAD /ok":     {func(c ClassResult) int64 { return c.Goodput }, ""},
	}
	for _, c := range res.Classes {
		w := want[c.Name]
		if c.Sent == 0 || w.field(c) != c.Sent || c.Attempts != c.Sent {
			t.Errorf("%s: %+v; want every request sent once and in its one outcome", c.Name, c)
		}
		var detail string
		switch {
		case len(c.Rejections) == 1:
			detail = c.Rejections[0].String()
		case len(c.Failures) == 1:
			detail = c.Failures[0].Cause
		}
		if detail != w.detail {
			t.Errorf("%s: rejections %v, failures %v; want %q", c.Name, c.Rejections, c.Failures, w.detail)
		}
	}
	if l := res.Classes[1].Latency.P50; l < 60*time.Millisecond {
		t.Errorf("/slow latency p50 %s; want at least the 60ms the server takes", l)
	}

	res = attack(t, refusedURL, uniform(100), 300*time.Millisecond, []Class{{Name: "refused", Share: 1, Deadline: time.Second}}, o)
	if c := res.Classes[0]; c.Sent == 0 || c.Failed != c.Sent || len(c.Failures) != 1 || c.Failures[0].Cause != "error" {
		t.Errorf("connection refused: %+v; want every request failed with cause error", c)
	}
}

// TestAttackRetries checks the edge's retries: the same Idempotency-Key and deadline on
// every attempt, the attempt number counting up, only on the triggers given.
func TestAttackRetries(t *testing.T) {
	tg := newTarget(t)
	cs := []Class{
		{Name: "flaky", Share: .5, Deadline: time.Second, Path: "/flaky", Retries: scenario.Retries{Max: 2, On: []string{scenario.RetryOnOverload}, Backoff: scenario.Backoff{Initial: scenario.Duration(time.Millisecond), Multiplier: 1}}},
		{Name: "no-retry", Share: .5, Deadline: time.Second, Path: "/unavailable", Retries: scenario.Retries{Max: 2, On: []string{scenario.RetryOnTimeout}}},
	}
	res := attack(t, tg.URL, uniform(200), 500*time.Millisecond, cs, Options{})
	flaky, once := res.Classes[0], res.Classes[1]
	if flaky.Sent == 0 || flaky.Goodput != flaky.Sent || flaky.Attempts != 3*flaky.Sent {
		t.Errorf("flaky: %+v; want every request goodput on its third attempt", flaky)
	}
	if once.Sent == 0 || once.Rejected != once.Sent || once.Attempts != once.Sent {
		t.Errorf("no-retry: %+v; want every request rejected after one attempt (503 is not a timeout)", once)
	}
	tg.mu.Lock()
	defer tg.mu.Unlock()
	keys := 0
	for key, hs := range tg.seen {
		if hs[0].Get("Goodput-Attempt") == "" || len(hs) != 3 {
			continue
		}
		keys++
		for i, h := range hs {
			if got := h.Get(identity.Header); got != key {
				t.Errorf("attempt %d of %s carries key %s", i+1, key, got)
			}
			if got, want := h.Get(identity.AttemptHeader), fmt.Sprint(i+1); got != want {
				t.Errorf("attempt %d of %s: %s %q; want %q", i+1, key, identity.AttemptHeader, got, want)
			}
			if got, want := h.Get(deadline.Header), hs[0].Get(deadline.Header); got != want {
				t.Errorf("attempt %d of %s: deadline %s; want the first attempt's %s", i+1, key, got, want)
			}
		}
	}
	if int64(keys) != flaky.Sent {
		t.Errorf("%d keys with three attempts; want %d", keys, flaky.Sent)
	}
}

// TestAttackHeaders checks the wire format of the first request's headers.
func TestAttackHeaders(t *testing.T) {
	tg := newTarget(t)
	res := attack(t, tg.URL, uniform(100), 15*time.Millisecond, []Class{{Name: "c", Share: 1, Deadline: 250 * time.Millisecond, Path: "/ok"}}, Options{Identity: "run1"})
	tg.mu.Lock()
	defer tg.mu.Unlock()
	hs := tg.seen[`"run1-0"`]
	if len(hs) != 1 || res.Total.Sent != 1 {
		t.Fatalf("requests by key: %v; want one request with key \"run1-0\"", tg.seen)
	}
	h := hs[0]
	// Uniform at 100/s: request 0 is intended 10ms after the start; its deadline 250ms later.
	want := map[string]string{
		identity.Header:        `"run1-0"`,
		identity.AttemptHeader: "1",
		deadline.Header:        deadline.FormatDeadline(res.Start.Add(260 * time.Millisecond)),
	}
	for k, v := range want {
		if got := h.Get(k); got != v {
			t.Errorf("%s: %q; want %q", k, got, v)
		}
	}
	if _, ok, err := deadline.Extract(h, res.Start, deadline.AsSent); !ok || err != nil {
		t.Errorf("deadline.Extract: ok %v, %v", ok, err)
	}
}

// TestAttackUnsent checks that, with one worker held by a hanging request, requests whose
// deadline passes before the worker frees up are counted unsent, and the pool never grows.
func TestAttackUnsent(t *testing.T) {
	tg := newTarget(t)
	cs := []Class{{Name: "hang", Share: 1, Deadline: 30 * time.Millisecond, Path: "/hang", Timeout: 200 * time.Millisecond}}
	res := attack(t, tg.URL, uniform(100), time.Second, cs, Options{MaxInFlight: 1})
	c := res.Total
	if c.Unsent == 0 || c.Sent == 0 || c.Offered != 99 {
		t.Errorf("total %+v; want 99 offered, some sent and some unsent", c)
	}
	if res.Workers != 1 || res.PeakInFlight != 1 {
		t.Errorf("workers %d, peak in flight %d; want 1 and 1", res.Workers, res.PeakInFlight)
	}
}

// TestAttackBody checks that a class's body template gets the request's identity, key
// and class.
func TestAttackBody(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, 200)
		n, _ := r.Body.Read(b)
		mu.Lock()
		bodies = append(bodies, r.Method+" "+r.URL.RequestURI()+" "+string(b[:n]))
		mu.Unlock()
	}))
	defer srv.Close()
	body, err := scenario.HTTP{Body: `{"id":"{{.ID}}","key":{{.Key}},"class":"{{.Class}}"}`}.BodyTemplate()
	if err != nil {
		t.Fatal(err)
	}
	load := uniform(100)
	load.Keys = scenario.Keys{Count: 1}
	attack(t, srv.URL+"/api/", load, 15*time.Millisecond, []Class{{Name: "buy", Share: 1, Deadline: time.Second, Method: "POST", Path: "/buy?x=1", Body: body}}, Options{Identity: "b"})
	if want := `POST /api/buy?x=1 {"id":"b-0","key":0,"class":"buy"}`; len(bodies) != 1 || bodies[0] != want {
		t.Errorf("bodies %q; want [%q]", bodies, want)
	}
}

func TestNewErrors(t *testing.T) {
	p, err := NewPlan(uniform(1), time.Second, oneClass, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		url string
		o   Options
	}{
		{"127.0.0.1:8080", Options{}},
		{"ftp://host/", Options{}},
		{"http:///path", Options{}},
		{"http://127.0.0.1/", Options{MaxInFlight: -1}},
		{"http://127.0.0.1/", Options{Identity: "bad\tkey"}}, // a key is printable ASCII
	} {
		if _, err := New(p, tc.url, tc.o); err == nil {
			t.Errorf("New(%q, %+v): no error", tc.url, tc.o)
		}
	}
}

// TestAttackClosedConnections checks that connections the server closes, after an answer
// (Connection: close) or while idle (its idle timeout), cost no request: each is sent
// again on a new connection as the same attempt.
func TestAttackClosedConnections(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/close" {
			w.Header().Set("Connection", "close")
		}
		fmt.Fprint(w, "ok")
	}))
	srv.Config.IdleTimeout = time.Millisecond
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	cs := []Class{{Name: "close", Share: .5, Deadline: 5 * time.Second, Path: "/close"}, {Name: "idle", Share: .5, Deadline: 5 * time.Second, Path: "/idle"}}
	res := attack(t, srv.URL, uniform(100), 500*time.Millisecond, cs, Options{})
	if tot := res.Total; tot.Goodput != tot.Offered || tot.Attempts != tot.Offered {
		t.Errorf("total %+v; want every request goodput at its first attempt", tot)
	}
	if n := conns.Load(); n < res.Classes[0].Sent {
		t.Errorf("%d connections for %d answers with Connection: close; want one each at least", n, res.Classes[0].Sent)
	}
}

// TestAttackTLS checks the generator's own client against an https:// target.
func TestAttackTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") }))
	defer srv.Close()
	conf := srv.Client().Transport.(*http.Transport).TLSClientConfig
	res := attack(t, srv.URL, uniform(100), 200*time.Millisecond, oneClass, Options{TLS: conf})
	if tot := res.Total; tot.Goodput != 19 {
		t.Errorf("total %+v; want 19 goodput", tot)
	}
	res = attack(t, srv.URL, uniform(100), 50*time.Millisecond, oneClass, Options{})
	if c := res.Total; c.Failed != 4 || len(c.Failures) != 1 || c.Failures[0].Cause != "error" {
		t.Errorf("untrusted certificate: %+v; want every request failed with cause error", c)
	}
}

// A lookup class names, with {{.Order}} in its path and body, an order another class's
// request created and the target acknowledged: every lookup sent finds its order, and a
// lookup before any order exists is counted unsent as NoOrder, never sent. Both clients.
func TestOrderLookups(t *testing.T) {
	for _, raw := range []bool{true, false} {
		for _, makeStatus := range []int{http.StatusCreated, http.StatusInternalServerError} {
			t.Run(fmt.Sprintf("raw=%v/create=%d", raw, makeStatus), func(t *testing.T) {
				var mu sync.Mutex
				orders := map[string]bool{}
				var lookups, missing, bodyMismatch int
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					id, _, _ := identity.Extract(r.Header)
					key := string(id.Key)
					mu.Lock()
					defer mu.Unlock()
					switch {
					case r.Method == "POST" && r.URL.Path == "/orders":
						if makeStatus < 300 {
							orders[key] = true
						}
						w.WriteHeader(makeStatus)
					case r.Method == "PUT" && strings.HasPrefix(r.URL.Path, "/orders/"):
						lookups++
						id := strings.TrimPrefix(r.URL.Path, "/orders/")
						b, _ := io.ReadAll(r.Body)
						if string(b) != `{"order":"`+id+`"}` {
							bodyMismatch++
						}
						if !orders[id] {
							missing++
							w.WriteHeader(http.StatusNotFound)
						}
					default:
						w.WriteHeader(http.StatusBadRequest)
					}
				}))
				defer srv.Close()
				body, _ := scenario.HTTP{Body: `{"order":"{{.Order}}"}`}.BodyTemplate()
				classes := []Class{
					{Name: "create", Share: 0.5, Deadline: time.Second, Method: "POST", Path: "/orders"},
					{Name: "lookup", Share: 0.5, Deadline: time.Second, Method: "PUT", Path: "/orders/{{.Order}}", Body: body, OrdersFrom: []int{0}},
				}
				load := scenario.Traffic{Arrivals: scenario.ArrivalsUniform, Schedule: []scenario.RateStep{{At: 0, Rate: 200}}}
				p, err := NewPlan(load, 300*time.Millisecond, classes, 3)
				if err != nil {
					t.Fatal(err)
				}
				o := Options{Identity: "run"}
				if !raw {
					o.Client = NewClient(8)
				}
				a, err := New(p, srv.URL, o)
				if err != nil {
					t.Fatal(err)
				}
				res, err := a.Run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				look := res.Classes[1]
				mu.Lock()
				defer mu.Unlock()
				if missing != 0 || bodyMismatch != 0 || int64(lookups) != look.Attempts {
					t.Errorf("%d lookups at the target, %d of a missing order, %d with another body; want %d, 0, 0", lookups, missing, bodyMismatch, look.Attempts)
				}
				if look.Unsent != look.NoOrder || look.Failed != 0 || look.Offered != look.Sent+look.Unsent || look.Offered == 0 {
					t.Errorf("lookups %+v; want none failed, the unsent all NoOrder", look)
				}
				if makeStatus >= 300 && (look.Sent != 0 || look.NoOrder != look.Offered || res.Total.NoOrder != look.NoOrder) {
					t.Errorf("no order created, lookups %+v; want all NoOrder", look)
				}
				if makeStatus < 300 && (look.Goodput == 0 || look.NoOrder >= look.Offered/2) {
					t.Errorf("orders created, lookups %+v; want most sent and found", look)
				}
			})
		}
	}
}

func TestOrderLookupsBadInput(t *testing.T) {
	p, _ := NewPlan(scenario.Traffic{Schedule: []scenario.RateStep{{At: 0, Rate: 10}}}, time.Second,
		[]Class{{Name: "lookup", Share: 1, Deadline: time.Second, Path: "/orders/{{.Order}}"}}, 1)
	if _, err := New(p, "http://127.0.0.1:1", Options{}); err == nil || !strings.Contains(err.Error(), "OrdersFrom names no class") {
		t.Errorf("New: %v; want an error naming OrdersFrom", err)
	}
	p, _ = NewPlan(scenario.Traffic{Schedule: []scenario.RateStep{{At: 0, Rate: 10}}}, time.Second,
		[]Class{{Name: "lookup", Share: 1, Deadline: time.Second, Path: "/orders/{{.Order}}", OrdersFrom: []int{3}}}, 1)
	if _, err := New(p, "http://127.0.0.1:1", Options{}); err == nil || !strings.Contains(err.Error(), "expected an index") {
		t.Errorf("New: %v; want an error on the index", err)
	}
	p, _ = NewPlan(scenario.Traffic{Schedule: []scenario.RateStep{{At: 0, Rate: 10}}}, time.Second,
		[]Class{{Name: "lookup", Share: 1, Deadline: time.Second, Path: "/orders/{{.Nope}}"}}, 1)
	if _, err := New(p, "http://127.0.0.1:1", Options{}); err == nil || !strings.Contains(err.Error(), "expected only") {
		t.Errorf("New: %v; want a template error", err)
	}
}

// stepClock is a Clock whose time moves only when slept on; it records the instants the
// sleeps end at. Safe for concurrent use.
type stepClock struct {
	mu    sync.Mutex
	now   time.Time
	wakes []time.Time
}

func (c *stepClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *stepClock) Sleep(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.wakes = append(c.wakes, c.now)
}

// The pacer wakes at most once a quantum and then sends every request due: no request
// waits more than a quantum past its intended send time for a wake, and below 1/quantum
// requests a second each has a wake of its own, at its time. (The clock moves only when
// the pacer sleeps, so the wakes are exact.)
func TestPacerQuantum(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	for _, rate := range []scenario.Rate{4000, 500} {
		t.Run(fmt.Sprint(rate), func(t *testing.T) {
			plan := func() *Plan {
				p, err := ConstantPlan(rate, 20*time.Millisecond, false, Class{Deadline: time.Hour}, 1)
				if err != nil {
					t.Fatal(err)
				}
				return p
			}
			clock := &stepClock{now: time.Now()}
			start := clock.now
			a, err := New(plan(), srv.URL, Options{Clock: clock, Drain: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			res, err := a.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			clock.mu.Lock()
			defer clock.mu.Unlock()
			var wakes []time.Duration
			for i, w := range clock.wakes {
				wakes = append(wakes, w.Sub(start))
				if i > 0 && wakes[i]-wakes[i-1] < pacerQuantum {
					t.Errorf("wakes at %s and %s; want a quantum (%s) apart at least", wakes[i-1], wakes[i], pacerQuantum)
				}
			}
			p := plan()
			for r, ok := p.Next(); ok; r, ok = p.Next() {
				i := slices.IndexFunc(wakes, func(w time.Duration) bool { return w >= r.At })
				switch {
				case i < 0:
					t.Errorf("request %d at %s: no wake after it", r.ID, r.At)
				case wakes[i]-r.At > pacerQuantum:
					t.Errorf("request %d at %s: first wake after it at %s, more than a quantum late", r.ID, r.At, wakes[i])
				case rate < scenario.Rate(time.Second/pacerQuantum) && wakes[i] != r.At:
					t.Errorf("request %d at %s: woken at %s; want on time", r.ID, r.At, wakes[i])
				}
			}
			if res.Total.Sent != res.Total.Offered || res.Total.Offered != int64(rate)/50-1 {
				t.Errorf("%d of %d sent; want all of %d", res.Total.Sent, res.Total.Offered, int64(rate)/50-1)
			}
		})
	}
}
