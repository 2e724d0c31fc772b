package faultproxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/goodput-lab/goodput/control/deadline"
	"github.com/goodput-lab/goodput/control/identity"
)

// Config configures a [Proxy]. Upstream is required; the zero value of every other field
// is documented.
type Config struct {
	// Upstream is the dependency's base URL, e.g. http://127.0.0.1:8081.
	Upstream *url.URL
	// Schedule is the fault over the run's time. The zero Schedule forwards every call.
	Schedule Schedule
	// Seed seeds the per-call draws (see [Draws]).
	Seed uint64
	// Start is the instant the run's time counts from (Schedule.At gets the time since
	// Start, measured on the monotonic clock). Zero means when New is called.
	Start time.Time
	// Transport carries the forwarded calls. Nil means a clone of http.DefaultTransport
	// that keeps up to 1024 idle connections to the upstream (the default's 2 would make
	// a connection per call under load).
	Transport http.RoundTripper
}

// Proxy is an HTTP reverse proxy in front of one dependency that applies the
// dependency's fault to every call and counts what happened. Make one with New and serve
// it; it is safe for concurrent use. Paths under ControlPrefix are its control API, not
// forwarded.
type Proxy struct {
	sched    Schedule
	start    time.Time
	draws    Draws
	override atomic.Pointer[Fault] // nil: the schedule's fault
	lim      limiter
	n        counters
	seq      atomic.Uint64 // numbers the calls without an identity
	rp       *httputil.ReverseProxy
	forward  http.Handler // rp; the benchmark swaps in another forwarder
	control  http.Handler
	observe  func(event string) // tests: called with "hung", "delay" and "cancelled"; nil otherwise
}

// New returns a proxy for cfg, or an error if cfg has no upstream or an invalid schedule.
func New(cfg Config) (*Proxy, error) {
	if cfg.Upstream == nil || cfg.Upstream.Scheme == "" || cfg.Upstream.Host == "" {
		return nil, errors.New("faultproxy: no upstream; expected an absolute URL such as http://127.0.0.1:8081")
	}
	if err := cfg.Schedule.Validate(); err != nil {
		return nil, err
	}
	p := &Proxy{sched: cfg.Schedule, start: cfg.Start, draws: NewDraws(cfg.Seed)}
	if p.start.IsZero() {
		p.start = time.Now()
	}
	tr := cfg.Transport
	if tr == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConns, t.MaxIdleConnsPerHost = 1024, 1024
		tr = t
	}
	up := cfg.Upstream
	p.rp = &httputil.ReverseProxy{
		Rewrite:      func(r *httputil.ProxyRequest) { r.SetURL(up) },
		Transport:    tr,
		ErrorLog:     log.New(io.Discard, "", 0),
		ErrorHandler: p.upstreamError,
		BufferPool:   bufferPool{},
	}
	p.forward = p.rp
	p.control = p.controlHandler()
	return p, nil
}

// Elapsed is the run's time now: the time since Config.Start.
func (p *Proxy) Elapsed() time.Duration { return time.Since(p.start) }

// Fault is the fault in force now: the one SetFault set, else the schedule's at Elapsed.
func (p *Proxy) Fault() Fault {
	if f := p.override.Load(); f != nil {
		return *f
	}
	return p.sched.At(p.Elapsed())
}

// SetFault replaces the schedule with f until ClearFault. Calls already waiting for a slot
// see a raised ceiling at once.
func (p *Proxy) SetFault(f Fault) error {
	if err := f.Validate(); err != nil {
		return err
	}
	p.override.Store(&f)
	p.lim.regrant(f.Concurrency)
	return nil
}

// ClearFault returns the proxy to its schedule.
func (p *Proxy) ClearFault() {
	p.override.Store(nil)
	p.lim.regrant(p.Fault().Concurrency)
}

// Stats returns the counters now.
func (p *Proxy) Stats() Stats {
	v := p.n.values()
	s := Stats{Requests: v[0], Malformed: v[1], Rejected: v[2], WorkStarted: v[3],
		StartedAfterDeadline: v[4], StartedAfterCancel: v[5], Hung: v[6], Errors: v[7],
		Forwarded: v[8], UpstreamFailed: v[9], Cancelled: v[10]}
	s.InService, s.Waiting = p.lim.counts()
	return s
}

// Collector returns the counters as a prometheus.Collector (the metrics GET
// /_goodput/metrics serves), to register on a registry of your own.
func (p *Proxy) Collector() prometheus.Collector { return collector{p} }

// ServeHTTP serves the control API under ControlPrefix and proxies everything else.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, ControlPrefix) {
		p.control.ServeHTTP(w, r)
		return
	}
	p.serve(w, r)
}

// serve is the data path: identity and deadline, the ceiling, the work (hang, added service
// time, injected error or forwarding), counting each step.
func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	p.n.requests.Add(1)
	ctx := r.Context()
	id, hasID, err := identity.Extract(r.Header)
	if err != nil {
		p.n.malformed.Add(1)
		http.Error(w, "faultproxy: "+err.Error(), http.StatusBadRequest)
		return
	}
	// The deadline header is wall time (the caller's clock), so this one instant is the
	// wall clock's; a Goodput-Timeout header becomes an instant on this reading.
	dl, hasDL, err := deadline.Extract(r.Header, time.Now(), deadline.AsSent)
	if err != nil {
		p.n.malformed.Add(1)
		http.Error(w, "faultproxy: "+err.Error(), http.StatusBadRequest)
		return
	}
	if !p.readBody(w, r) {
		return
	}
	var seq uint64
	if !hasID {
		seq = p.seq.Add(1)
	}

	f := p.Fault()
	switch p.lim.acquire(ctx, f.Concurrency, f.beyond() == BeyondReject) {
	case overCeiling:
		p.n.rejected.Add(1)
		w.Header().Set(FaultHeader, "concurrency")
		http.Error(w, "faultproxy: over the concurrency ceiling", f.rejectStatus())
		return
	case gaveUp:
		p.cancelled()
		return
	}
	defer p.release()

	// The work starts now, after any wait for a slot.
	p.n.started.Add(1)
	if hasDL && time.Now().After(dl) {
		p.n.afterDeadline.Add(1)
	}
	if ctx.Err() != nil {
		p.n.afterCancel.Add(1)
	}
	f = p.Fault() // as it stands when the work starts
	var dec Decision
	if hasID {
		dec = p.draws.Decide(id, f)
	} else {
		dec = p.draws.decideSeq(seq, f)
	}
	if dec.Hang {
		p.n.hung.Add(1)
		if p.observe != nil {
			p.observe("hung")
		}
		<-ctx.Done()
		p.cancelled()
		return
	}
	if dec.Delay > 0 {
		w.Header().Set(DelayHeader, dec.Delay.String())
		t := time.NewTimer(dec.Delay)
		if p.observe != nil {
			p.observe("delay")
		}
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			p.cancelled()
			return
		}
	}
	if dec.Error {
		p.n.errors.Add(1)
		h := w.Header()
		h.Set(FaultHeader, "error")
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(f.errorStatus())
		io.WriteString(w, f.errorBody())
		return
	}
	p.n.forwarded.Add(1)
	p.forward.ServeHTTP(w, r)
}

// release gives the call's slot back under the ceiling in force now.
func (p *Proxy) release() { p.lim.release(p.Fault().Concurrency) }

// upstreamError answers a forwarded call the upstream did not answer: nothing if the caller
// has gone, else 502.
func (p *Proxy) upstreamError(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		p.cancelled()
		return
	}
	p.n.upstreamFailed.Add(1)
	http.Error(w, fmt.Sprintf("faultproxy: upstream: %v", err), http.StatusBadGateway)
}

// CloseIdleConnections closes the transport's idle connections to the upstream; call it
// once the server serving the proxy has shut down.
func (p *Proxy) CloseIdleConnections() {
	if c, ok := p.rp.Transport.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// cancelled counts a call whose caller gave up before the answer.
func (p *Proxy) cancelled() {
	p.n.cancelled.Add(1)
	if p.observe != nil {
		p.observe("cancelled")
	}
}

// bufferPool lends ReverseProxy its 32 KiB copy buffers, which it would otherwise allocate
// for every call.
type bufferPool struct{}

var buffers = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func (bufferPool) Get() []byte  { return *buffers.Get().(*[]byte) }
func (bufferPool) Put(b []byte) { buffers.Put(&b) }

// MaxBody is the largest request body the proxy takes, in bytes; a larger one is answered
// 413.
const MaxBody = 8 << 20

// readBody reads the call's body into memory before the call waits: net/http notices a
// caller leave (and ends the request's context) only once the body has been read, so a
// caller with a body who gives up while waiting for a slot or during the added service
// time would otherwise go unseen. It answers and returns false if the body cannot be read.
func (p *Proxy) readBody(w http.ResponseWriter, r *http.Request) bool {
	if r.Body == nil || r.Body == http.NoBody {
		return true
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	r.Body.Close()
	if err != nil {
		var mb *http.MaxBytesError
		switch {
		case errors.As(err, &mb):
			p.n.malformed.Add(1)
			http.Error(w, fmt.Sprintf("faultproxy: request body over %d bytes", MaxBody), http.StatusRequestEntityTooLarge)
		case r.Context().Err() != nil:
			p.cancelled()
		default:
			p.n.malformed.Add(1)
			http.Error(w, "faultproxy: reading the request body: "+err.Error(), http.StatusBadRequest)
		}
		return false
	}
	r.ContentLength, r.TransferEncoding = int64(len(b)), nil
	r.Body = http.NoBody
	if len(b) > 0 {
		r.Body = io.NopCloser(bytes.NewReader(b))
	}
	return true
}
