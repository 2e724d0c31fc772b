package loadgen

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"text/template"
	"time"

	"github.com/goodput-lab/goodput/control/controlhttp"
	"github.com/goodput-lab/goodput/control/deadline"
	"github.com/goodput-lab/goodput/control/identity"
	"github.com/goodput-lab/goodput/internal/proccpu"
	"github.com/goodput-lab/goodput/scenario"
)

// DefaultMaxInFlight is the default bound on logical requests in flight.
const DefaultMaxInFlight = 10_000

// Clock is the attacker's time source: the one real-time part of a run. Its time must
// pass as the wall clock's (the attacker also waits on timers, and the target answers in
// real time); a test can shift or observe it.
type Clock interface {
	Now() time.Time
	// Sleep waits for d (or about d: the attacker measures what it gets).
	Sleep(d time.Duration)
}

type realClock struct{}

// pacerTimer is the pacer's own sleep on the wall clock when the platform has a finer one
// than time.Sleep (see newPacerTimer).
type pacerTimer interface {
	Sleep(d time.Duration)
	Close() error
}

func (realClock) Now() time.Time        { return time.Now() }
func (realClock) Sleep(d time.Duration) { time.Sleep(d) }

// pacerQuantum is the shortest time between the pacer's wakes: each costs the process a
// wake from idle (tens of µs of CPU), so above 1/pacerQuantum requests a second a wake
// sends every request then due, up to a quantum late. BenchmarkAttack measured the trade
// (-attack.quantum): 0 doubled the CPU per request, 500µs cost a third more than 1ms.
const pacerQuantum = time.Millisecond

// Options configure an [Attacker]. The zero Options are usable.
type Options struct {
	// Client, if not nil, sends the requests through net/http. Nil means the
	// generator's own HTTP/1.1 client: one keep-alive connection per worker, written and
	// read by the worker itself (no proxy, no compression, no redirects: a 3xx is an
	// answer), which costs about half the CPU per request.
	Client *http.Client
	// MaxInFlight bounds the logical requests in flight (the workers). Zero means
	// [DefaultMaxInFlight].
	MaxInFlight int
	// Timeout, when positive, replaces every class's per-attempt timeout.
	Timeout time.Duration
	// Drain is how long after the plan's last intended send time requests still in flight
	// may run before they are cut and counted failed ("unfinished"). Zero means the
	// longest deadline plus the longest a class's attempts and backoffs can take (10s for
	// an attempt without a timeout).
	Drain time.Duration
	// Tick is the period of the result's series rows. Zero means 1s.
	Tick time.Duration
	// Identity is the prefix of every request's Idempotency-Key (prefix-ID). Empty means
	// a fresh random one, so that two runs against one service never share a key.
	Identity string
	// Clock is the time source. Nil means the wall clock.
	Clock Clock
	// TLS configures the generator's own client for an https:// target (its ServerName
	// defaults to the target's host). Nil means the system's roots.
	TLS *tls.Config
}

// Attacker sends a [Plan]'s requests to a target in real time: open loop (each at its
// intended send time whatever the answers), at most MaxInFlight at once, and beside them
// the plan's closed-loop users, each sending its next request a think time after its
// last was answered (users.go). Make one with [New] and call [Attacker.Run] once.
type Attacker struct {
	plan    *Plan
	opts    Options
	client  *http.Client
	clock   Clock
	target  string
	base    *url.URL
	urls    []*url.URL
	paths   []*template.Template // a class's path template, nil for a static path
	orders  []bool               // the class's path or body uses {{.Order}}
	acked   []atomic.Int64       // by class: 1 + the ID of its last request answered 2xx, 0 for none
	classes []Class
	drain   time.Duration
	tick    time.Duration

	// The raw path (Options.Client nil): where to dial, the Host header and each class's
	// request-target.
	raw  bool
	ep   endpoint
	host string
	uris []string

	// quantum is the shortest the pacer sleeps between wakes; coarse makes it sleep with
	// the clock's Sleep even on the wall clock (both for BenchmarkAttack's comparisons).
	quantum time.Duration
	coarse  bool

	start          time.Time
	runCtx         context.Context
	rows           []row
	lat            seriesLatency
	rec            recorders
	inFlight, peak atomic.Int64
}

// New returns an attacker that runs plan against target, an http:// or https:// URL; each
// class's path is joined to target's path.
func New(plan *Plan, target string, o Options) (*Attacker, error) {
	base, err := url.Parse(target)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("loadgen: target %q: expected an http:// or https:// URL with a host, e.g. http://127.0.0.1:8080", target)
	}
	if o.MaxInFlight < 0 || o.Timeout < 0 || o.Drain < 0 || o.Tick < 0 {
		return nil, errors.New("loadgen: MaxInFlight, Timeout, Drain and Tick must be zero or more")
	}
	if o.MaxInFlight == 0 {
		o.MaxInFlight = DefaultMaxInFlight
	}
	if n := plan.users(); n > o.MaxInFlight {
		// Each user is a goroutine with a connection of its own, beside the workers.
		return nil, fmt.Errorf("loadgen: the plan has %d closed-loop users, more than MaxInFlight %d; expected at most that many users (raise MaxInFlight, --max-in-flight)", n, o.MaxInFlight)
	}
	if o.Tick == 0 {
		o.Tick = time.Second
	}
	if o.Identity == "" {
		var seed [32]byte
		_, _ = crand.Read(seed[:])
		o.Identity = string(identity.NewKey(rand.New(rand.NewChaCha8(seed))))
	}
	if err := identity.Key(o.Identity + "-0").Validate(); err != nil {
		return nil, fmt.Errorf("loadgen: Identity %q: %w", o.Identity, err)
	}
	a := &Attacker{plan: plan, opts: o, client: o.Client, clock: o.Clock, target: target, base: base, tick: o.Tick, quantum: pacerQuantum}
	if a.clock == nil {
		a.clock = realClock{}
	}
	if a.client == nil {
		a.raw = true
		a.ep = newEndpoint(base.Scheme, base.Host, o.TLS)
		a.host = base.Host
	}
	for _, c := range plan.Classes() {
		if o.Timeout > 0 {
			c.Timeout = o.Timeout
		}
		if c.Method == "" {
			c.Method = http.MethodGet
		}
		pt, err := scenario.HTTP{Path: c.Path}.PathTemplate()
		if err != nil {
			return nil, fmt.Errorf("loadgen: class %s: path: %w", c.Name, err)
		}
		u := base
		if pt == nil {
			if u, err = joinPath(base, c.Path); err != nil {
				return nil, fmt.Errorf("loadgen: class %s: %w", c.Name, err)
			}
		}
		order := scenario.UsesOrder(pt) || scenario.UsesOrder(c.Body)
		if order && len(c.OrdersFrom) == 0 {
			return nil, fmt.Errorf("loadgen: class %s: its path or body uses {{.Order}} but OrdersFrom names no class", c.Name)
		}
		for _, j := range c.OrdersFrom {
			if j < 0 || j >= len(plan.Classes()) {
				return nil, fmt.Errorf("loadgen: class %s: OrdersFrom %d: expected an index of the plan's classes", c.Name, j)
			}
		}
		a.urls = append(a.urls, u)
		a.paths = append(a.paths, pt)
		a.orders = append(a.orders, order)
		a.classes = append(a.classes, c)
		a.uris = append(a.uris, u.RequestURI())
	}
	a.acked = make([]atomic.Int64, len(a.classes))
	a.drain = o.Drain
	if a.drain == 0 {
		a.drain = defaultDrain(a.classes)
	}
	return a, nil
}

// NewClient returns a net/http client for [Options.Client]: keep-alive connections up to
// maxConns, no proxy, no compression, redirects not followed.
func NewClient(maxConns int) *http.Client {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost: maxConns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	return &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// defaultDrain is the longest a logical request can run: its deadline, or its attempts
// and backoffs, whichever is longer (10s for an attempt with no timeout).
func defaultDrain(cs []Class) time.Duration {
	var d time.Duration
	for _, c := range cs {
		per := c.Timeout
		if per <= 0 {
			per = 10 * time.Second
		}
		n := time.Duration(1 + max(c.Retries.Max, 0))
		d = max(d, c.Deadline, n*per+c.Retries.Backoff.Exponential().Total(int(n-1)))
	}
	return d
}

// Run sends the plan and returns what became of every logical request. It returns when
// every request sent has its answer or the drain after the plan has passed; if ctx is
// cancelled first it stops sending, cuts what is in flight and returns what it has, with
// Interrupted set.
func (a *Attacker) Run(ctx context.Context) (*Result, error) {
	if a.runCtx != nil {
		return nil, errors.New("loadgen: Run called twice; make a new Attacker with a new Plan")
	}
	runCtx, cut := context.WithCancel(context.WithoutCancel(ctx))
	defer cut()
	a.runCtx = runCtx
	nrows := int((a.plan.Duration()+a.drain)/a.tick) + 2
	a.rows = make([]row, nrows)
	a.lat.init(nrows)
	a.rec.init(len(a.classes))
	sleep := a.clock.Sleep
	if _, ok := a.clock.(realClock); ok && !a.coarse {
		if t, err := newPacerTimer(); err == nil {
			defer t.Close()
			sleep = t.Sleep
		}
	}
	cpu0 := proccpu.Self()
	a.start = a.clock.Now()

	jobs := make(chan Request)
	var wg sync.WaitGroup
	workers := 0
	offered := make([]int64, len(a.classes))
	interrupted := false
	userOffered := make([]atomic.Int64, len(a.classes))
	a.startUsers(ctx, &wg, userOffered, a.clock.Sleep)
	woke := time.Duration(math.MinInt64 / 2)
	for r, ok := a.plan.Next(); ok; r, ok = a.plan.Next() {
		// Open loop: r goes at r.At, or with the others due when the pacer last woke if
		// that was less than a quantum ago (its lateness counts, from r.At).
		if now := a.since(); r.At > now {
			if !a.waitUntil(ctx, max(r.At, woke+a.quantum), sleep) {
				interrupted = true
				break
			}
			woke = a.since()
		} else if ctx.Err() != nil {
			interrupted = true
			break
		}
		offered[r.Class]++
		a.rows[a.row(r.At)].offered.Add(1)
		select {
		case jobs <- r:
			continue
		default:
		}
		if workers < a.opts.MaxInFlight {
			workers++
			wg.Add(1)
			go a.worker(r, jobs, &wg)
			continue
		}
		if a.since() >= r.Deadline {
			a.unsent(r, false)
			continue
		}
		// Every worker is busy: the request waits for the first to free up and is sent
		// late (its latency still counts from r.At), unless its deadline passes first.
		select {
		case jobs <- r:
		case <-ctx.Done():
			a.unsent(r, false)
			interrupted = true
		}
		if interrupted {
			break
		}
	}
	close(jobs)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	if interrupted {
		cut()
	} else if left := a.plan.Duration() + a.drain - a.since(); left > 0 {
		t := time.NewTimer(left)
		select {
		case <-done:
		case <-t.C:
		case <-ctx.Done():
			interrupted = true
		}
		t.Stop()
	}
	cut()
	<-done
	for ci := range offered {
		offered[ci] += userOffered[ci].Load()
	}
	res := a.result(offered, workers)
	res.Interrupted = interrupted
	res.CPU = proccpu.Self() - cpu0
	return res, nil
}

// since is the time since the start of the run.
func (a *Attacker) since() time.Duration { return a.clock.Now().Sub(a.start) }

// waitUntil sleeps until at (from the start) with sleep; false if ctx is done first.
func (a *Attacker) waitUntil(ctx context.Context, at time.Duration, sleep func(time.Duration)) bool {
	for {
		if ctx.Err() != nil {
			return false
		}
		d := at - a.since()
		if d <= 0 {
			return true
		}
		sleep(min(d, 50*time.Millisecond))
	}
}

func (a *Attacker) row(t time.Duration) int {
	if t < 0 {
		return 0
	}
	return min(int(t/a.tick), len(a.rows)-1)
}

func (a *Attacker) worker(r Request, jobs <-chan Request, wg *sync.WaitGroup) {
	defer wg.Done()
	w := &worker{a: a, hdr: make(http.Header, 4)}
	for ok := true; ok; r, ok = <-jobs {
		w.do(r)
	}
	w.closeConn()
}

// unsent counts r as not sent: its deadline passed before a worker was free, or (noOrder)
// it names an order and none was acknowledged yet.
func (a *Attacker) unsent(r Request, noOrder bool) {
	a.rows[a.row(r.At)].unsent.Add(1)
	s := a.rec.borrow()
	s.classes[r.Class].unsent++
	if noOrder {
		s.classes[r.Class].noOrder++
	}
	a.rec.put(s)
}

// order is the identity of the latest request of one of c's OrdersFrom classes answered
// 2xx so far (the most recent among each class's last), false if there is none yet.
func (a *Attacker) order(c *Class, buf []byte) ([]byte, bool) {
	var best int64
	for _, j := range c.OrdersFrom {
		best = max(best, a.acked[j].Load())
	}
	if best == 0 {
		return buf, false
	}
	return strconv.AppendInt(append(append(buf[:0], a.opts.Identity...), '-'), best-1, 10), true
}

// worker is one goroutine's state: its connection (the raw path) and its buffers.
type worker struct {
	a     *Attacker
	cn    *conn
	hdr   http.Header
	req   []byte
	body  bytes.Buffer
	path  bytes.Buffer
	id    []byte
	order []byte
	// url and uri are the request's: its class's, or written from its path template.
	url *url.URL
	uri string
}

// cause is how an attempt ended.
type cause uint8

const (
	causeOK       cause = iota // a 2xx
	causeOverload              // 429 or 503
	causeError                 // a transport error or another 5xx
	causeTimeout               // the per-attempt timeout
	causeStatus                // another status: an answer not retried
	causeCut                   // cut at the end of the drain (or an interruption)
)

// trigger is the retry trigger a cause answers to, "" for none.
func (c cause) trigger() string {
	switch c {
	case causeOverload:
		return scenario.RetryOnOverload
	case causeError:
		return scenario.RetryOnError
	case causeTimeout:
		return scenario.RetryOnTimeout
	}
	return ""
}

func retries(r scenario.Retries, c cause) bool {
	t := c.trigger()
	if t == "" {
		return false
	}
	if len(r.On) == 0 {
		return true
	}
	for _, on := range r.On {
		if on == t {
			return true
		}
	}
	return false
}

// do sends logical request r: its attempts, then its terminal state.
func (w *worker) do(r Request) {
	a := w.a
	now := a.since()
	if now >= r.Deadline {
		a.unsent(r, false)
		return
	}
	c := &a.classes[r.Class]
	w.id = strconv.AppendInt(append(append(w.id[:0], a.opts.Identity...), '-'), r.ID, 10)
	id := identity.First(identity.Key(w.id))
	data := scenario.BodyData{ID: string(id.Key), Key: r.Key, Class: c.Name}
	if a.orders[r.Class] {
		var ok bool
		if w.order, ok = a.order(c, w.order); !ok {
			a.unsent(r, true)
			return
		}
		data.Order = string(w.order)
	}
	w.url, w.uri = a.urls[r.Class], a.uris[r.Class]
	if pt := a.paths[r.Class]; pt != nil {
		w.path.Reset()
		u, err := (*url.URL)(nil), scenario.ExecuteBody(pt, &w.path, data)
		if err == nil {
			u, err = joinPath(a.base, w.path.String())
		}
		if err != nil {
			// Validation writes every template once, and identities are URL-safe: a path
			// that still fails is not sent malformed but counted unsent.
			a.unsent(r, false)
			return
		}
		w.url, w.uri = u, u.RequestURI()
	}
	var body []byte
	if c.Body != nil {
		w.body.Reset()
		if err := scenario.ExecuteBody(c.Body, &w.body, data); err == nil {
			body = w.body.Bytes()
		}
	}
	n := a.inFlight.Add(1)
	for p := a.peak.Load(); n > p && !a.peak.CompareAndSwap(p, n); p = a.peak.Load() {
	}
	lateness := max(now-r.At, 0)
	a.rows[a.row(r.At)].sent.Add(1)
	var (
		res      cause
		status   int
		reason   string
		attempts int64
	)
	for {
		a.rows[a.row(a.since())].attempts.Add(1)
		attempts++
		if a.raw {
			res, status, reason = w.rawAttempt(r, c, id, body)
		} else {
			res, status, reason = w.attempt(r, c, id, body)
		}
		if int(attempts) > c.Retries.Max || !retries(c.Retries, res) {
			break
		}
		if b := c.Retries.Backoff.Exponential().Wait(int(attempts), rand.Float64()); b > 0 {
			a.clock.Sleep(b)
		}
		if a.runCtx.Err() != nil {
			res = causeCut
			break
		}
		id = id.Retry()
	}
	end := a.since()
	if res == causeOK {
		a.acked[r.Class].Store(r.ID + 1)
	}
	a.inFlight.Add(-1)
	latency := end - r.At
	row := &a.rows[a.row(end)]
	s := a.rec.borrow()
	cs := &s.classes[r.Class]
	cs.sent++
	cs.attempts += attempts
	record(s.lateness, lateness)
	record(cs.latency, latency)
	switch {
	case res == causeOK && end <= r.Deadline:
		cs.goodput++
		row.goodput.Add(1)
	case res == causeOK:
		cs.late++
		row.late.Add(1)
	case res == causeOverload:
		cs.rejected++
		row.rejected.Add(1)
		cs.reject(status, reason)
	default:
		cs.failed++
		row.failed.Add(1)
		cs.fail(res, status)
	}
	a.rec.put(s)
	a.lat.record(a.row(end), latency)
}

// attempt sends one attempt of r and reads its answer to the end.
func (w *worker) attempt(r Request, c *Class, id identity.Request, body []byte) (res cause, status int, reason string) {
	a := w.a
	ctx := a.runCtx
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	u := *w.url
	h := make(http.Header, 4)
	now := a.clock.Now()
	deadline.Inject(h, a.start.Add(r.Deadline), now)
	identity.Inject(h, id)
	req := (&http.Request{Method: c.Method, URL: &u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: h, Host: u.Host}).WithContext(ctx)
	if body != nil {
		req.ContentLength = int64(len(body))
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	resp, err := a.client.Do(req)
	if err == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	switch {
	case err != nil && a.runCtx.Err() != nil:
		return causeCut, 0, ""
	case err != nil && ctx.Err() != nil:
		return causeTimeout, 0, ""
	case err != nil:
		return causeError, 0, ""
	}
	res = classifyStatus(resp.StatusCode)
	if res == causeOverload {
		reason = resp.Header.Get(controlhttp.ReasonHeader)
	}
	return res, resp.StatusCode, reason
}
