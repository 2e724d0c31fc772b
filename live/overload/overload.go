package overload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/goodput-lab/goodput/live/faultproxy"
	"github.com/goodput-lab/goodput/live/loadgen"
	"github.com/goodput-lab/goodput/scenario"
)

// Case is one incident of the benchmark: the offered load, the caller's deadline, the
// dependency as it is healthy, and the fault that changes it for a while.
type Case struct {
	// Name names the case, e.g. "slow-1800ms".
	Name string
	// Rate is the offered load, open loop, uniform arrivals, per second.
	Rate float64
	// Deadline is the caller's deadline: each request carries it, and the caller gives up
	// at it.
	Deadline time.Duration
	// Healthy, Fault and After are the phases of the run: healthy, the fault in force,
	// healthy again. Each a positive multiple of [Tick].
	Healthy, Fault, After time.Duration
	// Dependency is the dependency's base behaviour at the proxy: its service time and
	// concurrency ceiling.
	Dependency faultproxy.Fault
	// ServiceTime and ErrorRate, when set, replace the dependency's during the fault.
	ServiceTime *scenario.Quantiles
	ErrorRate   *scenario.Fraction
}

// Duration is how long c sends load.
func (c Case) Duration() time.Duration { return c.Healthy + c.Fault + c.After }

// Validate reports whether c can be run.
func (c Case) Validate() error {
	for _, d := range []time.Duration{c.Healthy, c.Fault, c.After} {
		if d <= 0 || d%Tick != 0 {
			return errTimeline
		}
	}
	if c.Rate <= 0 || c.Deadline <= 0 {
		return fmt.Errorf("overload: case %q: rate %v and deadline %v must be positive", c.Name, c.Rate, c.Deadline)
	}
	if err := c.schedule().Validate(); err != nil {
		return fmt.Errorf("overload: case %q: %w", c.Name, err)
	}
	return nil
}

func (c Case) schedule() faultproxy.Schedule {
	return faultproxy.Schedule{Base: c.Dependency, Windows: []faultproxy.Window{{
		At: c.Healthy, For: c.Fault, Note: c.Name, ServiceTime: c.ServiceTime, ErrorRate: c.ErrorRate,
	}}}
}

// Risk is the benchmark's dependency as it is healthy: 20 concurrent slots (beyond them
// calls wait in order), a service time of p50 20 ms, p99 80 ms.
func Risk() faultproxy.Fault {
	return faultproxy.Fault{
		ServiceTime: scenario.Quantiles{P50: scenario.Duration(20 * time.Millisecond), P99: scenario.Duration(80 * time.Millisecond)},
		Concurrency: 20,
		Beyond:      faultproxy.BeyondWait,
	}
}

// Cases are the benchmark's cases, each 4 s healthy, 12 s of fault and 8 s after, at
// 400 requests a second on [Risk]: slow-1800ms and slow-600ms (the dependency 5× slower,
// p50 100 ms, p99 400 ms, under a caller deadline of 1.8 s or 600 ms) and errors-40pct
// (40% of calls answered 503 after the usual service time, deadline 1.8 s).
func Cases() []Case {
	slow := &scenario.Quantiles{P50: scenario.Duration(100 * time.Millisecond), P99: scenario.Duration(400 * time.Millisecond)}
	errs := scenario.Fraction(0.4)
	c := Case{Rate: 400, Healthy: 4 * time.Second, Fault: 12 * time.Second, After: 8 * time.Second, Dependency: Risk()}
	slow1800, slow600, errors40 := c, c, c
	slow1800.Name, slow1800.Deadline, slow1800.ServiceTime = "slow-1800ms", 1800*time.Millisecond, slow
	slow600.Name, slow600.Deadline, slow600.ServiceTime = "slow-600ms", 600*time.Millisecond, slow
	errors40.Name, errors40.Deadline, errors40.ErrorRate = "errors-40pct", 1800*time.Millisecond, &errs
	return []Case{slow1800, slow600, errors40}
}

// Variant builds the checkout's handler. It serves POST /checkout by calling the
// dependency once (POST dependency+"/score") with its own resilience code, and builds its
// clients on base, a transport the run owns (and closes once the run is over).
type Variant func(dependency string, base http.RoundTripper) (http.Handler, error)

// Result is what one run measured.
type Result struct {
	Metrics
	// Load is the load generator's result; Proxy the fault proxy's counters at the end.
	Load  *loadgen.Result
	Proxy faultproxy.Stats
	// Buckets is the timeline Metrics were computed from.
	Buckets []Bucket
	// Skew is how long after the proxy's time zero the load generator's began.
	Skew time.Duration
}

// Run runs c against the checkout v builds, all on 127.0.0.1, and stops every part before
// it returns. seed seeds the proxy's draws and the load generator's plan.
func Run(ctx context.Context, c Case, v Variant, seed uint64) (*Result, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if v == nil {
		return nil, errors.New("overload: no variant")
	}
	var servers []*http.Server
	var closers []func() // after the servers have stopped
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		// Stop in order: the checkout (waiting for its handlers, some of which may still be
		// calling the dependency after their caller left), then the proxy, then the stub.
		for _, s := range servers {
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
			if s.Shutdown(sctx) != nil {
				s.Close()
			}
			cancel()
		}
		for _, f := range closers {
			f()
		}
	}
	defer stop()
	serve := func(h http.Handler) (string, error) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", err
		}
		s := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
		servers = append([]*http.Server{s}, servers...) // the last served is stopped first
		go s.Serve(ln)
		return "http://" + ln.Addr().String(), nil
	}

	stub, err := serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Write([]byte("ok\n"))
	}))
	if err != nil {
		return nil, err
	}
	upstream, _ := url.Parse(stub)

	// The proxy is made when the load starts, so that its time zero is the load's.
	type live struct {
		proxy *faultproxy.Proxy
		start time.Time
	}
	var running atomic.Pointer[live]
	calls := make([]atomic.Int64, int(c.Duration()/Tick)+1)
	dep, err := serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l := running.Load()
		if l == nil {
			http.Error(w, "overload: the run has not started", http.StatusServiceUnavailable)
			return
		}
		if i := int(time.Since(l.start) / Tick); i >= 0 && i < len(calls) {
			calls[i].Add(1)
		}
		l.proxy.ServeHTTP(w, r)
	}))
	if err != nil {
		return nil, err
	}

	base := http.DefaultTransport.(*http.Transport).Clone()
	base.MaxIdleConns, base.MaxIdleConnsPerHost = 4096, 4096
	closers = append(closers, base.CloseIdleConnections)
	h, err := v(dep, base)
	if err != nil {
		return nil, fmt.Errorf("overload: building the checkout: %w", err)
	}
	checkout, err := serve(h)
	if err != nil {
		return nil, err
	}

	plan, err := loadgen.ConstantPlan(scenario.Rate(c.Rate), c.Duration(), false, loadgen.Class{
		Name: "checkout", Deadline: c.Deadline, Method: http.MethodPost, Path: "/checkout",
		Timeout: c.Deadline, // the caller gives up at its deadline
	}, seed)
	if err != nil {
		return nil, err
	}
	att, err := loadgen.New(plan, checkout, loadgen.Options{Tick: Tick, Drain: c.Deadline + time.Second, Identity: "overload"})
	if err != nil {
		return nil, err
	}
	start := time.Now()
	p, err := faultproxy.New(faultproxy.Config{Upstream: upstream, Schedule: c.schedule(), Seed: seed, Start: start})
	if err != nil {
		return nil, err
	}
	closers = append(closers, p.CloseIdleConnections)
	running.Store(&live{proxy: p, start: start})
	res, err := att.Run(ctx)
	if err != nil {
		return nil, err
	}
	if res.Interrupted {
		return nil, fmt.Errorf("overload: case %q interrupted: %w", c.Name, context.Cause(ctx))
	}

	stop() // so that the proxy's counters include every call the checkout made
	out := &Result{Load: res, Proxy: p.Stats(), Skew: res.Start.Sub(start)}
	out.Buckets = make([]Bucket, len(calls))
	for i := range out.Buckets {
		out.Buckets[i].Calls = calls[i].Load()
		if i < len(res.Series) {
			out.Buckets[i].Offered, out.Buckets[i].Goodput = res.Series[i].Offered, res.Series[i].Goodput
		}
	}
	if out.Metrics, err = Measure(c, out.Buckets); err != nil {
		return nil, err
	}
	return out, nil
}
