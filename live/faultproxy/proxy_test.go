package faultproxy

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/control/deadline"
	"github.com/goodput-lab/goodput/control/identity"
)

// guard bounds every wait of these tests; none should come near it.
const guard = 5 * time.Second

// lab is a proxy in front of an upstream, both on loopback, with a client.
type lab struct {
	t      *testing.T
	p      *Proxy
	srv    *httptest.Server
	client *http.Client
	events chan string
}

// newLab serves a proxy for cfg in front of upstream. When the test ends it closes
// everything and checks that no goroutine of the proxy is left.
func newLab(t *testing.T, upstream http.Handler, cfg Config) *lab {
	t.Helper()
	t.Cleanup(func() { noProxyGoroutines(t) })
	up := httptest.NewServer(upstream)
	t.Cleanup(up.Close)
	if cfg.Upstream == nil {
		cfg.Upstream, _ = url.Parse(up.URL)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l := &lab{t: t, p: p, events: make(chan string, 1000)}
	p.observe = func(e string) { l.events <- e }
	p.lim.observe = p.observe
	l.srv = httptest.NewServer(p)
	l.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 100}}
	t.Cleanup(func() {
		l.srv.CloseClientConnections() // ends the calls a failed test left waiting
		l.srv.Close()                  // waits for the proxy's handlers
		p.CloseIdleConnections()
		l.client.CloseIdleConnections()
	})
	return l
}

// noProxyGoroutines fails if a goroutine is still running proxy code.
func noProxyGoroutines(t *testing.T) {
	t.Helper()
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "faultproxy.(*Proxy)") || strings.Contains(g, "faultproxy.(*limiter)") {
			t.Errorf("a goroutine of the proxy is left:\n%s", g)
		}
	}
}

// wait waits for the next event from the proxy, which must be want.
func (l *lab) wait(want string) {
	l.t.Helper()
	select {
	case e := <-l.events:
		if e != want {
			l.t.Fatalf("event %q; want %q", e, want)
		}
	case <-time.After(guard):
		l.t.Fatalf("no %q event within %v", want, guard)
	}
}

type result struct {
	status int
	header http.Header
	body   string
	err    error
}

// call makes one call through the proxy with the given identity (none if key is empty)
// and extra headers.
func (l *lab) call(ctx context.Context, method, path string, key string, attempt int, hdr http.Header, body string) result {
	req, err := http.NewRequestWithContext(ctx, method, l.srv.URL+path, strings.NewReader(body))
	if err != nil {
		return result{err: err}
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	if key != "" {
		identity.Inject(req.Header, identity.Request{Key: identity.Key(key), Attempt: attempt})
	}
	resp, err := l.client.Do(req)
	if err != nil {
		return result{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return result{status: resp.StatusCode, header: resp.Header, body: string(b), err: err}
}

// async makes the call in a goroutine.
func (l *lab) async(ctx context.Context, key string, hdr http.Header) <-chan result {
	ch := make(chan result, 1)
	go func() { ch <- l.call(ctx, "GET", "/work", key, 1, hdr, "") }()
	return ch
}

func (l *lab) get(ch <-chan result) result {
	l.t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(guard):
		l.t.Fatalf("no answer within %v", guard)
		return result{}
	}
}

func ok(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }

// gate is an upstream that holds every call until released, one token per call.
type gate struct {
	arrived chan string // the Idempotency-Key of each call as it arrives
	release chan struct{}
}

func newGate() *gate {
	return &gate{arrived: make(chan string, 100), release: make(chan struct{}, 100)}
}

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.arrived <- strings.Trim(r.Header.Get(identity.Header), `"`)
	select {
	case <-g.release:
		io.WriteString(w, "ok")
	case <-r.Context().Done():
	}
}

func (g *gate) next(t *testing.T) string {
	t.Helper()
	select {
	case k := <-g.arrived:
		return k
	case <-time.After(guard):
		t.Fatalf("no call reached the upstream within %v", guard)
		return ""
	}
}

func (l *lab) stats(want Stats) {
	l.t.Helper()
	if got := l.p.Stats(); got != want {
		l.t.Errorf("stats\n got %+v\nwant %+v", got, want)
	}
}

// The call reaches the upstream as sent (method, path, query, body, identity and deadline
// headers) after its added service time, and the answer comes back with the delay named.
func TestProxyForwards(t *testing.T) {
	var seen *http.Request
	var seenBody string
	l := newLab(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		seen, seenBody = r.Clone(context.Background()), string(b)
		w.Header().Set("X-Upstream", "yes")
		w.WriteHeader(201)
		io.WriteString(w, "created")
	}), Config{Schedule: Schedule{Base: Fault{ServiceTime: q(2*ms, 2*ms)}}})
	dl := time.Now().Add(time.Minute)
	hdr := http.Header{}
	deadline.Inject(hdr, dl, time.Now())
	r := l.call(context.Background(), "POST", "/orders?x=1", "order-1", 2, hdr, "body")
	if r.err != nil || r.status != 201 || r.body != "created" || r.header.Get("X-Upstream") != "yes" {
		t.Fatalf("answer %d %q %v (%v)", r.status, r.body, r.header, r.err)
	}
	if got := r.header.Get(DelayHeader); got != "2ms" {
		t.Errorf("%s = %q; want 2ms", DelayHeader, got)
	}
	if seen.Method != "POST" || seen.URL.Path != "/orders" || seen.URL.RawQuery != "x=1" || seenBody != "body" {
		t.Errorf("upstream saw %s %s ? %s body %q", seen.Method, seen.URL.Path, seen.URL.RawQuery, seenBody)
	}
	if got, _, _ := identity.Extract(seen.Header); got != (identity.Request{Key: "order-1", Attempt: 2}) {
		t.Errorf("upstream saw identity %v", got)
	}
	if got, _ := deadline.ParseDeadline(seen.Header.Get(deadline.Header)); !got.Equal(dl.Round(0)) {
		t.Errorf("upstream saw deadline %v; want %v", got, dl)
	}
	l.stats(Stats{Requests: 1, WorkStarted: 1, Forwarded: 1})
}

// Two proxies with the same seed give the same calls the same delays though the calls come
// in different orders, and the delays are the Draws'.
func TestProxySameSeedSameDelays(t *testing.T) {
	cfg := Config{Seed: 9, Schedule: Schedule{Base: Fault{ServiceTime: q(500*time.Microsecond, 3*ms)}}}
	a, b := newLab(t, http.HandlerFunc(ok), cfg), newLab(t, http.HandlerFunc(ok), cfg)
	const n = 16
	delays := func(l *lab, order []int) map[int]string {
		out := make(map[int]string)
		for _, i := range order {
			r := l.call(context.Background(), "GET", "/", "k"+strconv.Itoa(i), 1, nil, "")
			if r.err != nil || r.status != 200 {
				t.Fatalf("call %d: %d %v", i, r.status, r.err)
			}
			out[i] = r.header.Get(DelayHeader)
		}
		return out
	}
	var fwd, rev []int
	for i := range n {
		fwd, rev = append(fwd, i), append(rev, n-1-i)
	}
	da, db := delays(a, fwd), delays(b, rev)
	distinct := make(map[string]bool)
	for i := range n {
		want := NewDraws(9).Decide(identity.First(identity.Key("k"+strconv.Itoa(i))), cfg.Schedule.Base).Delay.String()
		if da[i] != want || db[i] != want {
			t.Errorf("k%d: delays %s and %s; want %s", i, da[i], db[i], want)
		}
		distinct[da[i]] = true
	}
	if len(distinct) < n/2 {
		t.Errorf("only %d distinct delays in %d calls", len(distinct), n)
	}
	// Without an identity the n-th call draws the same in both.
	ra := a.call(context.Background(), "GET", "/", "", 0, nil, "")
	rb := b.call(context.Background(), "GET", "/", "", 0, nil, "")
	if ra.header.Get(DelayHeader) != rb.header.Get(DelayHeader) || ra.header.Get(DelayHeader) == "" {
		t.Errorf("first calls without identity: delays %q and %q", ra.header.Get(DelayHeader), rb.header.Get(DelayHeader))
	}
}

// Under an error rate the calls the draws pick are answered the fault's status and body
// without reaching the upstream; their share is the rate's within five standard deviations.
func TestProxyErrorRate(t *testing.T) {
	var reached atomic.Int64
	l := newLab(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached.Add(1); ok(w, r) }),
		Config{Seed: 3, Schedule: Schedule{Base: Fault{ErrorRate: 0.5, ErrorStatus: 500, ErrorBody: "boom"}}})
	const n = 400
	var errs int
	for i := range n {
		key := "e" + strconv.Itoa(i)
		r := l.call(context.Background(), "GET", "/", key, 1, nil, "")
		want := NewDraws(3).Decide(identity.First(identity.Key(key)), l.p.Fault()).Error
		switch {
		case r.err != nil:
			t.Fatal(r.err)
		case r.status == 500 && r.body == "boom" && r.header.Get(FaultHeader) == "error" && want:
			errs++
		case r.status == 200 && !want:
		default:
			t.Fatalf("%s: %d %q %s=%q; draw says error %v", key, r.status, r.body, FaultHeader, r.header.Get(FaultHeader), want)
		}
	}
	if sd := 10.0; float64(errs) < n/2-5*sd || float64(errs) > n/2+5*sd {
		t.Errorf("%d errors in %d calls; want %d ± %.0f", errs, n, n/2, 5*sd)
	}
	if got := reached.Load(); got != int64(n-errs) {
		t.Errorf("upstream reached %d times; want %d", got, n-errs)
	}
	l.stats(Stats{Requests: n, WorkStarted: n, Errors: uint64(errs), Forwarded: uint64(n - errs)})
}

// Beyond a ceiling of 2 under reject, a third call is answered 429 at once; the two in
// service finish.
func TestProxyCeilingReject(t *testing.T) {
	g := newGate()
	l := newLab(t, g, Config{Schedule: Schedule{Base: Fault{Concurrency: 2, Beyond: BeyondReject, RejectStatus: 429}}})
	a, b := l.async(context.Background(), "a", nil), l.async(context.Background(), "b", nil)
	g.next(t)
	g.next(t)
	r := l.call(context.Background(), "GET", "/", "c", 1, nil, "")
	if r.status != 429 || r.header.Get(FaultHeader) != "concurrency" {
		t.Errorf("third call: %d %s=%q %v", r.status, FaultHeader, r.header.Get(FaultHeader), r.err)
	}
	if s := l.p.Stats(); s.InService != 2 {
		t.Errorf("in service %d; want 2", s.InService)
	}
	g.release <- struct{}{}
	g.release <- struct{}{}
	for _, ch := range []<-chan result{a, b} {
		if r := l.get(ch); r.status != 200 {
			t.Errorf("call in service: %d %v", r.status, r.err)
		}
	}
	l.stats(Stats{Requests: 3, Rejected: 1, WorkStarted: 2, Forwarded: 2})
}

// Beyond a ceiling of 1 under wait, calls queue and reach the upstream one at a time in
// the order they came.
func TestProxyCeilingWait(t *testing.T) {
	g := newGate()
	l := newLab(t, g, Config{Schedule: Schedule{Base: Fault{Concurrency: 1}}})
	a := l.async(context.Background(), "a", nil)
	if k := g.next(t); k != "a" {
		t.Fatalf("first at the upstream: %q", k)
	}
	b := l.async(context.Background(), "b", nil)
	l.wait("queued")
	c := l.async(context.Background(), "c", nil)
	l.wait("queued")
	if s := l.p.Stats(); s.InService != 1 || s.Waiting != 2 {
		t.Errorf("in service %d, waiting %d; want 1 and 2", s.InService, s.Waiting)
	}
	for _, want := range []string{"b", "c"} {
		g.release <- struct{}{}
		if k := g.next(t); k != want {
			t.Errorf("next at the upstream: %q; want %q", k, want)
		}
	}
	g.release <- struct{}{}
	for _, ch := range []<-chan result{a, b, c} {
		if r := l.get(ch); r.status != 200 {
			t.Errorf("%d %v", r.status, r.err)
		}
	}
	l.stats(Stats{Requests: 3, WorkStarted: 3, Forwarded: 3})
}

// The cancellation evidence. Behind a call that holds the only slot, a caller whose deadline
// passes while it waits and who does not cancel (a baseline policy) gets its work started
// after the deadline, and the proxy counts it; a caller who gives up at its deadline (a
// protected policy) leaves the queue and no work starts for it.
func TestProxyCancellationEvidence(t *testing.T) {
	g := newGate()
	l := newLab(t, g, Config{Schedule: Schedule{Base: Fault{Concurrency: 1}}})
	withDeadline := func(d time.Time) http.Header {
		h := http.Header{}
		deadline.Inject(h, d, time.Now())
		return h
	}
	hold := l.async(context.Background(), "hold", withDeadline(time.Now().Add(time.Minute)))
	g.next(t)

	// The baseline caller: its deadline has passed by the time its work can start.
	late := l.async(context.Background(), "late", withDeadline(time.Now().Add(-time.Millisecond)))
	l.wait("queued")
	// The protected caller gives up (its context ends at its deadline) while it waits.
	ctx, cancel := context.WithCancel(context.Background())
	gone := make(chan result, 1) // a call with a body: the proxy must notice its caller leave
	go func() {
		gone <- l.call(ctx, "POST", "/work", "gone", 1, withDeadline(time.Now().Add(time.Minute)), "a body")
	}()
	l.wait("queued")
	cancel()
	l.wait("gave-up")
	l.wait("cancelled")
	if r := l.get(gone); r.err == nil {
		t.Errorf("the cancelled call was answered %d", r.status)
	}

	g.release <- struct{}{}
	if k := g.next(t); k != "late" {
		t.Errorf("next at the upstream: %q; want late", k)
	}
	g.release <- struct{}{}
	for _, ch := range []<-chan result{hold, late} {
		if r := l.get(ch); r.status != 200 {
			t.Errorf("%d %v", r.status, r.err)
		}
	}
	l.stats(Stats{Requests: 3, WorkStarted: 2, StartedAfterDeadline: 1, Forwarded: 2, Cancelled: 1})
}

// A hung call holds its slot until its caller gives up; then the next call gets it.
func TestProxyHangReleasedByCancel(t *testing.T) {
	f := Fault{HangRate: 0.5, Concurrency: 1}
	d := NewDraws(5)
	var hangs, answers string
	for i := 0; hangs == "" || answers == ""; i++ {
		k := "h" + strconv.Itoa(i)
		if d.Decide(identity.First(identity.Key(k)), f).Hang {
			hangs = cmpOr(hangs, k)
		} else {
			answers = cmpOr(answers, k)
		}
	}
	l := newLab(t, http.HandlerFunc(ok), Config{Seed: 5, Schedule: Schedule{Base: f}})
	ctx, cancel := context.WithCancel(context.Background())
	hung := l.async(ctx, hangs, nil)
	l.wait("hung")
	next := l.async(context.Background(), answers, nil)
	l.wait("queued")
	cancel()
	l.wait("cancelled")
	if r := l.get(hung); r.err == nil {
		t.Errorf("the hung call was answered %d", r.status)
	}
	if r := l.get(next); r.status != 200 {
		t.Errorf("the call behind it: %d %v", r.status, r.err)
	}
	l.stats(Stats{Requests: 2, WorkStarted: 2, Hung: 1, Cancelled: 1, Forwarded: 1})
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// The added service time ends when the caller gives up: nothing is forwarded and the
// handler returns (else closing the server would hang the test).
func TestProxyServiceTimeStopsOnCancel(t *testing.T) {
	l := newLab(t, http.HandlerFunc(ok), Config{Schedule: Schedule{Base: Fault{ServiceTime: q(time.Hour, time.Hour)}}})
	ctx, cancel := context.WithCancel(context.Background())
	ch := l.async(ctx, "slow", nil)
	l.wait("delay")
	cancel()
	l.wait("cancelled")
	if r := l.get(ch); r.err == nil {
		t.Errorf("answered %d", r.status)
	}
	l.stats(Stats{Requests: 1, WorkStarted: 1, Cancelled: 1})
}

// Malformed identity and deadline headers are answered 400 and not forwarded.
func TestProxyMalformed(t *testing.T) {
	l := newLab(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { t.Error("forwarded") }), Config{})
	for _, h := range []http.Header{
		{deadline.Header: {"tomorrow"}},
		{identity.AttemptHeader: {"2"}},
		{identity.Header: {`"a"`, `"b"`}},
	} {
		r := l.call(context.Background(), "GET", "/", "", 0, h, "")
		if r.status != 400 || !strings.Contains(r.body, "faultproxy: ") {
			t.Errorf("%v: %d %q", h, r.status, r.body)
		}
	}
	big := strings.Repeat("x", MaxBody+1)
	if r := l.call(context.Background(), "POST", "/", "", 0, nil, big); r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over MaxBody: %d %q", r.status, r.body)
	}
	l.stats(Stats{Requests: 4, Malformed: 4})
}

func TestProxyUpstreamDown(t *testing.T) {
	down := httptest.NewServer(http.HandlerFunc(ok))
	u, _ := url.Parse(down.URL)
	down.Close()
	l := newLab(t, http.HandlerFunc(ok), Config{Upstream: u})
	if r := l.call(context.Background(), "GET", "/", "k", 1, nil, ""); r.status != 502 {
		t.Errorf("%d %q", r.status, r.body)
	}
	l.stats(Stats{Requests: 1, WorkStarted: 1, Forwarded: 1, UpstreamFailed: 1})
}

// The control API: the schedule's fault, an override and its effect, bad bodies, back to
// the schedule, the counters as JSON and as Prometheus text.
func TestProxyControlAPI(t *testing.T) {
	s, err := FromScenario(loadRisk(t), "payment-risk")
	if err != nil {
		t.Fatal(err)
	}
	// 90 s into the run: storage maintenance.
	l := newLab(t, http.HandlerFunc(ok), Config{Schedule: s, Start: time.Now().Add(-90 * time.Second)})
	state := func(r result) FaultState {
		t.Helper()
		if r.err != nil || r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
			t.Fatalf("%d %q %v", r.status, r.body, r.err)
		}
		var st FaultState
		if err := json.Unmarshal([]byte(r.body), &st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	bg := context.Background()
	st := state(l.call(bg, "GET", "/_goodput/fault", "", 0, nil, ""))
	if want := s.At(90 * time.Second); st.Source != "schedule" || st.Fault != want || st.Elapsed.Std() < 90*time.Second {
		t.Errorf("GET: %+v; want %v from the schedule at 90s or later", st, want)
	}

	st = state(l.call(bg, "PUT", "/_goodput/fault", "", 0, nil, `{"error_rate": "100%", "error_status": 500}`))
	if want := (Fault{ErrorRate: 1, ErrorStatus: 500}); st.Source != "override" || st.Fault != want {
		t.Errorf("PUT: %+v; want %v", st, want)
	}
	if r := l.call(bg, "GET", "/x", "k", 1, nil, ""); r.status != 500 {
		t.Errorf("call under the override: %d", r.status)
	}
	for _, tc := range []struct{ body, want string }{
		{`{"error_rate": "150%"}`, "more than 100%"},
		{`{"error_rat": 0.5}`, `unknown field "error_rat"`},
		{`{"concurrency": -1}`, "concurrency -1"},
		{`{} {}`, "more than one JSON value"},
		{`[`, "expected a JSON object"},
	} {
		r := l.call(bg, "PUT", "/_goodput/fault", "", 0, nil, tc.body)
		if r.status != 400 || !strings.Contains(r.body, tc.want) {
			t.Errorf("PUT %s: %d %q; want 400 with %q", tc.body, r.status, r.body, tc.want)
		}
	}
	if got := l.p.Fault(); got != (Fault{ErrorRate: 1, ErrorStatus: 500}) {
		t.Errorf("a bad PUT changed the fault to %v", got)
	}
	if r := l.call(bg, "POST", "/_goodput/fault", "", 0, nil, `{}`); r.status != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", r.status)
	}

	st = state(l.call(bg, "DELETE", "/_goodput/fault", "", 0, nil, ""))
	if st.Source != "schedule" || st.Fault != s.At(90*time.Second) {
		t.Errorf("DELETE: %+v", st)
	}

	r := l.call(bg, "GET", "/_goodput/stats", "", 0, nil, "")
	var stats Stats
	if err := json.Unmarshal([]byte(r.body), &stats); err != nil || stats != l.p.Stats() || stats.Errors != 1 {
		t.Errorf("stats: %q (%v); want %+v", r.body, err, l.p.Stats())
	}
	if !strings.Contains(r.body, `"started_after_deadline": 0`) {
		t.Errorf("stats JSON has no started_after_deadline: %s", r.body)
	}
	r = l.call(bg, "GET", "/_goodput/metrics", "", 0, nil, "")
	for _, want := range []string{
		"goodput_proxy_requests_total 1\n",
		"goodput_proxy_errors_injected_total 1\n",
		"goodput_proxy_work_started_after_deadline_total 0\n",
		"# TYPE goodput_proxy_in_service gauge\n",
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("metrics lack %q:\n%s", want, r.body)
		}
	}
}

// Raising the ceiling by the control API lets waiting calls in at once.
func TestProxySetFaultRegrants(t *testing.T) {
	g := newGate()
	l := newLab(t, g, Config{Schedule: Schedule{Base: Fault{Concurrency: 1}}})
	a := l.async(context.Background(), "a", nil)
	g.next(t)
	b := l.async(context.Background(), "b", nil)
	l.wait("queued")
	if err := l.p.SetFault(Fault{Concurrency: 2}); err != nil {
		t.Fatal(err)
	}
	if k := g.next(t); k != "b" {
		t.Errorf("let in %q; want b", k)
	}
	g.release <- struct{}{}
	g.release <- struct{}{}
	for _, ch := range []<-chan result{a, b} {
		if r := l.get(ch); r.status != 200 {
			t.Errorf("%d %v", r.status, r.err)
		}
	}
}

func TestNewErrors(t *testing.T) {
	u, _ := url.Parse("http://127.0.0.1:1")
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "no upstream"},
		{Config{Upstream: &url.URL{Path: "/x"}}, "no upstream"},
		{Config{Upstream: u, Schedule: Schedule{Base: Fault{Beyond: "x"}}}, `beyond "x"`},
	} {
		if _, err := New(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v): %v; want %q", tc.cfg, err, tc.want)
		}
	}
}
