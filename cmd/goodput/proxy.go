package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/goodput-lab/goodput/live/faultproxy"
	"github.com/goodput-lab/goodput/scenario"
)

// runProxy is the 'proxy' subcommand: an HTTP fault proxy in front of one dependency, until
// SIGINT or SIGTERM.
func runProxy(args []string, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return proxy(ctx, args, stdout, stderr, nil)
}

func proxyUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintln(w, "usage: goodput proxy --upstream URL [--listen ADDR] [FILE.scenario.yaml [--dependency NAME]] [--seed N]")
	fmt.Fprintln(w, "                     [--latency p50=20ms,p99=100ms] [--error-rate 40%] [--concurrency 20 [--beyond reject]] [--hang-rate 1%] …")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Forwards every call to URL, applying a dependency's fault: added service time, an error")
	fmt.Fprintln(w, "rate, a concurrency ceiling and calls that hang until the caller gives up. With a scenario")
	fmt.Fprintln(w, "file the fault follows the dependency's base and its faults on the timeline, from the")
	fmt.Fprintln(w, "proxy's start (or --start); the fault flags replace the base's values. The per-call draws")
	fmt.Fprintln(w, "are seeded by the Idempotency-Key and Goodput-Attempt headers, so two runs with the same")
	fmt.Fprintln(w, "seed draw the same delays. The address is printed on stderr once it listens; the control")
	fmt.Fprintln(w, "API is under /_goodput/ (GET, PUT, DELETE fault; GET stats, metrics). It runs until")
	fmt.Fprintln(w, "SIGINT or SIGTERM and then prints its counters as JSON on stdout.")
	fmt.Fprintln(w)
	fs.PrintDefaults()
	fmt.Fprintln(w)
	exitStatus(w, "a bad scenario file, an address that cannot be listened on", "")
}

// proxyFlags are the parsed command line of 'goodput proxy'.
type proxyFlags struct {
	listen, upstream, file, dependency string
	seed                               uint64
	seedSet                            bool
	start                              time.Time
	fault                              faultproxy.Fault
	set                                map[string]bool // the fault flags given
}

func parseProxyFlags(args []string, stderr io.Writer) (proxyFlags, error) {
	f := proxyFlags{set: map[string]bool{}}
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.listen, "listen", "127.0.0.1:0", "listen on `ADDR` (host:port; port 0 picks a free one)")
	fs.StringVar(&f.upstream, "upstream", "", "forward to the dependency at `URL`, e.g. http://127.0.0.1:8081 (required)")
	fs.StringVar(&f.dependency, "dependency", "", "the scenario's dependency to proxy, by `NAME` (default: its only one)")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the per-call draws (default: the scenario's seed, else 0)")
	fs.Func("start", "the run's time 0 as an RFC 3339 `INSTANT`, e.g. the load generator's start (default: when the proxy listens)", func(v string) error {
		t, err := scenario.ParseInstant(v)
		f.start = t.Time()
		return err
	})
	fs.Func("latency", "added service time, `p50=D,p99=D` (a log-normal) or one duration (a constant)", func(v string) error {
		q, err := faultproxy.ParseServiceTime(v)
		f.fault.ServiceTime = q
		return err
	})
	fraction := func(dst *scenario.Fraction) func(string) error {
		return func(v string) error {
			x, err := scenario.ParseFraction(v)
			*dst = x
			return err
		}
	}
	fs.Func("error-rate", "share of calls answered an injected error, `R` (40% or 0.4)", fraction(&f.fault.ErrorRate))
	fs.IntVar(&f.fault.ErrorStatus, "error-status", faultproxy.DefaultErrorStatus, "`STATUS` of an injected error")
	fs.StringVar(&f.fault.ErrorBody, "error-body", faultproxy.DefaultErrorBody, "`BODY` of an injected error")
	fs.IntVar(&f.fault.Concurrency, "concurrency", 0, "at most `N` calls in service at once (0: no ceiling)")
	fs.StringVar(&f.fault.Beyond, "beyond", faultproxy.BeyondWait, "beyond the ceiling, `wait` for a slot or reject")
	fs.IntVar(&f.fault.RejectStatus, "reject-status", faultproxy.DefaultRejectStatus, "`STATUS` of a rejection over the ceiling")
	fs.Func("hang-rate", "share of calls never answered until the caller gives up, `R` (1% or 0.01)", fraction(&f.fault.HangRate))
	fs.Usage = func() { proxyUsage(stderr, fs) }

	files, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return f, err
	}
	if err != nil {
		return f, fmt.Errorf("%w: proxy: %v", errUsage, err)
	}
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "seed":
			f.seedSet = true
		case "latency", "error-rate", "error-status", "error-body", "concurrency", "beyond", "reject-status", "hang-rate":
			f.set[fl.Name] = true
		}
	})
	switch len(files) {
	case 0:
		if f.dependency != "" {
			return f, fmt.Errorf("%w: proxy: --dependency %s names a dependency of a scenario; give the scenario file", errUsage, f.dependency)
		}
	case 1:
		f.file = files[0]
	default:
		return f, fmt.Errorf("%w: proxy takes one scenario file, got %d: %s", errUsage, len(files), strings.Join(files, " "))
	}
	if f.upstream == "" {
		fs.Usage()
		return f, fmt.Errorf("%w: proxy needs --upstream URL, the dependency to forward to", errUsage)
	}
	if u, err := url.Parse(f.upstream); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return f, fmt.Errorf("%w: proxy: --upstream %q: expected an http:// or https:// URL with a host, e.g. http://127.0.0.1:8081", errUsage, f.upstream)
	}
	if err := f.fault.Validate(); err != nil {
		return f, fmt.Errorf("%w: proxy: %v", errUsage, strings.TrimPrefix(err.Error(), "faultproxy: fault: "))
	}
	return f, nil
}

// schedule is the proxy's schedule: the scenario dependency's, or a constant fault, with
// the fault flags given replacing the base's values.
func (f proxyFlags) schedule() (faultproxy.Schedule, uint64, string, error) {
	var (
		s    faultproxy.Schedule
		seed uint64
		what = "the fault flags"
	)
	if f.file != "" {
		sc, err := scenario.Load(f.file)
		if err != nil {
			return s, 0, "", err
		}
		dep := f.dependency
		if dep == "" {
			if n := len(sc.Topology.Dependencies); n != 1 {
				var names []string
				for _, d := range sc.Topology.Dependencies {
					names = append(names, d.Name)
				}
				return s, 0, "", fmt.Errorf("%w: proxy: %s has %d dependencies (%s); name one with --dependency", errUsage, f.file, n, strings.Join(names, ", "))
			}
			dep = sc.Topology.Dependencies[0].Name
		}
		if s, err = faultproxy.FromScenario(sc, dep); err != nil {
			return s, 0, "", fmt.Errorf("%w: proxy: %s: %v", errUsage, f.file, strings.TrimPrefix(err.Error(), "faultproxy: "))
		}
		seed, what = sc.Seed, fmt.Sprintf("%s of %s", dep, f.file)
	}
	b, v := &s.Base, f.fault
	for name := range f.set {
		switch name {
		case "latency":
			b.ServiceTime = v.ServiceTime
		case "error-rate":
			b.ErrorRate = v.ErrorRate
		case "error-status":
			b.ErrorStatus = v.ErrorStatus
		case "error-body":
			b.ErrorBody = v.ErrorBody
		case "concurrency":
			b.Concurrency = v.Concurrency
		case "beyond":
			b.Beyond = v.Beyond
		case "reject-status":
			b.RejectStatus = v.RejectStatus
		case "hang-rate":
			b.HangRate = v.HangRate
		}
	}
	if f.seedSet {
		seed = f.seed
	}
	return s, seed, what, nil
}

// proxy runs 'goodput proxy' until ctx ends. ready, if not nil, is called with the address
// once the proxy listens.
func proxy(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(addr string)) error {
	f, err := parseProxyFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	s, seed, what, err := f.schedule()
	if err != nil {
		return err
	}
	up, _ := url.Parse(f.upstream) // checked by parseProxyFlags
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return fmt.Errorf("proxy: %w", err)
	}
	start := time.Now()
	if !f.start.IsZero() {
		start = start.Add(-time.Since(f.start)) // on the monotonic clock, the instant --start names
	}
	p, err := faultproxy.New(faultproxy.Config{Upstream: up, Schedule: s, Seed: seed, Start: start})
	if err != nil {
		ln.Close()
		return fmt.Errorf("%w: proxy: %v", errUsage, err)
	}
	base, cancel := context.WithCancel(context.Background())
	srv := &http.Server{
		Handler:           p,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return base },
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	addr := "http://" + ln.Addr().String()
	fmt.Fprintf(stderr, "goodput proxy: listening on %s, forwarding to %s with %s, seed %d\n", addr, up, what, seed)
	if ready != nil {
		ready(addr)
	}
	logCtx, stopLogs := context.WithCancel(ctx)
	logs := make(chan struct{})
	go func() { defer close(logs); logFaults(logCtx, p, s, stderr) }()

	select {
	case <-ctx.Done():
	case err = <-served:
	}
	// Calls still waiting or hung end with the proxy: their contexts derive from base.
	cancel()
	shut, done := context.WithTimeout(context.Background(), 5*time.Second)
	defer done()
	if e := srv.Shutdown(shut); e != nil {
		srv.Close()
	}
	p.CloseIdleConnections()
	stopLogs()
	<-logs
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("proxy: %w", err)
	}
	b, _ := json.MarshalIndent(p.Stats(), "", "  ")
	_, err = fmt.Fprintf(stdout, "%s\n", b)
	return err
}

// logFaults writes the fault in force on stderr now and at each change of the schedule,
// until ctx ends. A fault set through the control API is not logged.
func logFaults(ctx context.Context, p *faultproxy.Proxy, s faultproxy.Schedule, w io.Writer) {
	fmt.Fprintf(w, "goodput proxy: fault now: %v\n", s.At(p.Elapsed()))
	for _, at := range s.Changes() {
		d := at - p.Elapsed()
		if d <= 0 {
			continue
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		fmt.Fprintf(w, "goodput proxy: at %v: %v%s\n", scenario.Duration(at), s.At(at), windowNotes(s, at))
	}
}

// windowNotes names the windows that begin or end at at, e.g. " (begins: storage
// maintenance; ends: failover)"; "" if none has a note.
func windowNotes(s faultproxy.Schedule, at time.Duration) string {
	var notes []string
	for _, w := range s.Windows {
		switch {
		case w.Note == "":
		case w.At == at:
			notes = append(notes, "begins: "+w.Note)
		case w.For > 0 && w.At+w.For == at:
			notes = append(notes, "ends: "+w.Note)
		}
	}
	if len(notes) == 0 {
		return ""
	}
	return " (" + strings.Join(notes, "; ") + ")"
}
