package lab

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/goodput-lab/goodput/internal/proccpu"
	"github.com/goodput-lab/goodput/live/demo"
	"github.com/goodput-lab/goodput/live/faultproxy"
	"github.com/goodput-lab/goodput/live/loadgen"
	"github.com/goodput-lab/goodput/scenario"
)

// The kinds of part [RunPart] runs.
const (
	partStub    = "stub"
	partProxy   = "proxy"
	partService = "service"
)

// PartEnv is set to 1 in the environment of every part [Run] starts, so that a binary that
// is not goodput itself (a test binary re-executed as goodput) can tell that it is to run
// `goodput lab part`.
const PartEnv = "GOODPUT_LAB_PART"

// partSpec is what one part runs: the scenario it serves and its own settings. The parent
// passes it as JSON, the only argument of `goodput lab part`; the part's listener is the
// child's file descriptor 3.
type partSpec struct {
	Kind     string `json:"kind"`
	Scenario string `json:"scenario"` // the scenario's file
	Name     string `json:"name"`     // the scenario's name, checked against the file's
	Seed     uint64 `json:"seed"`
	// A stub's kind (demo.KindRisk or demo.KindPayment).
	Stub string `json:"stub,omitempty"`
	// A proxy's dependency, upstream (its stub) and the generator's identity prefix,
	// which with the scenario, the seed and t0 gives every order's caller deadline.
	Dependency string `json:"dependency,omitempty"`
	Upstream   string `json:"upstream,omitempty"`
	Identity   string `json:"identity,omitempty"`
	// The service's arm, dependency URLs (the proxies) and database.
	Arm  string            `json:"arm,omitempty"`
	Deps map[string]string `json:"deps,omitempty"`
	DB   string            `json:"db,omitempty"`
}

// partStart is the parent's one line on a part's stdin: the run's time zero, the wall
// clock's instant the generator starts at. The end of stdin stops the part.
type partStart struct {
	T0 time.Time `json:"t0"`
}

// partMsg is one line a part writes on its stdout: ready once it serves, started once it
// has t0 (with its CPU so far, so that the parent counts only the run's), and at the end
// its counters, done.
type partMsg struct {
	Ready      bool              `json:"ready,omitempty"`
	Started    bool              `json:"started,omitempty"`
	CPUAtStart time.Duration     `json:"cpu_at_start_ns,omitempty"`
	Done       bool              `json:"done,omitempty"`
	Proxy      *faultproxy.Stats `json:"proxy,omitempty"`
	Stub       *demo.StubStats   `json:"stub,omitempty"`
	DupTicks   []int64           `json:"dup_ticks,omitempty"`
	DBError    string            `json:"db_error,omitempty"`
	Error      string            `json:"error,omitempty"`
}

// RunPart runs one part of a lab's arm in this process, as [Run] starts it in a child
// process of its own: `goodput lab part SPEC` calls it with the part's spec (args[0]), its
// stdin and stdout, and serves on the listener the parent passed as file descriptor 3. It
// returns when stdin ends (the parent stops it) or ctx ends.
func RunPart(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) != 1 {
		return fmt.Errorf("lab part: expected one argument, the part's JSON spec; got %d (goodput lab part is started by goodput lab, not by hand)", len(args))
	}
	var spec partSpec
	if err := json.Unmarshal([]byte(args[0]), &spec); err != nil {
		return fmt.Errorf("lab part: the spec: %v", err)
	}
	f := os.NewFile(3, "listener")
	if f == nil {
		return errors.New("lab part: no listener on file descriptor 3")
	}
	ln, err := net.FileListener(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("lab part: the listener on file descriptor 3: %v", err)
	}
	return runPart(ctx, spec, ln, stdin, stdout)
}

// part is a running part: its handler, what to do at t0 and at the end.
type part struct {
	handler http.Handler
	start   func(t0 time.Time) error
	stop    func(*partMsg) error // after the server has stopped
}

func runPart(ctx context.Context, spec partSpec, ln net.Listener, stdin io.Reader, stdout io.Writer) (err error) {
	defer ln.Close()
	enc := json.NewEncoder(stdout)
	defer func() {
		if err != nil {
			_ = enc.Encode(partMsg{Error: err.Error()})
		}
	}()
	sc, err := scenario.Load(spec.Scenario)
	if err != nil {
		return err
	}
	if sc.Name != spec.Name {
		return fmt.Errorf("lab part: %s is scenario %q, expected %q", spec.Scenario, sc.Name, spec.Name)
	}
	var p *part
	switch spec.Kind {
	case partStub:
		p, err = stubPart(sc, spec)
	case partProxy:
		p, err = proxyPart(sc, spec)
	case partService:
		p, err = servicePart(ctx, sc, spec)
	default:
		err = fmt.Errorf("lab part: kind %q; expected stub, proxy or service", spec.Kind)
	}
	if err != nil {
		return err
	}
	s := serve(ln, p.handler)
	if err := enc.Encode(partMsg{Ready: true}); err != nil {
		s.shutdown()
		return err
	}

	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdin)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var runErr error
	for running := true; running; {
		select {
		case <-ctx.Done():
			running = false
		case line, ok := <-lines:
			if !ok {
				running = false
				break
			}
			var st partStart
			if err := json.Unmarshal([]byte(line), &st); err != nil || st.T0.IsZero() {
				runErr, running = fmt.Errorf("lab part: stdin: %q; expected {\"t0\": INSTANT}", line), false
				break
			}
			// t0 on this process's monotonic clock: the wall clock's instant, as seen now.
			now := time.Now()
			t0 := now.Add(st.T0.Sub(now.Round(0)))
			if err := p.start(t0); err != nil {
				runErr, running = err, false
				break
			}
			if err := enc.Encode(partMsg{Started: true, CPUAtStart: proccpu.Self()}); err != nil {
				runErr, running = err, false
			}
		}
	}
	msg := partMsg{Done: true}
	err = errors.Join(runErr, s.shutdown(), p.stop(&msg))
	if err != nil {
		return err
	}
	return enc.Encode(msg)
}

// stubPart is a stub dependency; the payment stub's duplicate authorisations are counted
// by tick from t0.
func stubPart(sc *scenario.Scenario, spec partSpec) (*part, error) {
	stub, err := demo.NewStub(spec.Stub, 0)
	if err != nil {
		return nil, err
	}
	dups := &dupTicks{}
	p := &part{handler: stub, start: func(time.Time) error { return nil }}
	if spec.Stub == demo.KindPayment {
		p.handler = dups.observe(stub)
		p.start = func(t0 time.Time) error { dups.start(t0, tickOf(sc)); return nil }
	}
	p.stop = func(m *partMsg) error {
		st := stub.Stats()
		m.Stub = &st
		dups.mu.Lock()
		m.DupTicks = append([]int64(nil), dups.ticks...)
		dups.mu.Unlock()
		return nil
	}
	return p, nil
}

// proxyPart is a fault proxy made at t0, the start of its schedule, which judges every call
// against its caller's deadline: the order's logical request in the load plan (the same
// scenario, seed and identity prefix as the generator's), its deadline from t0.
func proxyPart(sc *scenario.Scenario, spec partSpec) (*part, error) {
	up, err := url.Parse(spec.Upstream)
	if err != nil || up.Host == "" {
		return nil, fmt.Errorf("lab part: upstream %q: expected an http:// URL", spec.Upstream)
	}
	sched, err := faultproxy.FromScenario(sc, spec.Dependency)
	if err != nil {
		return nil, err
	}
	if spec.Identity == "" {
		return nil, errors.New("lab part: a proxy needs the generator's identity prefix")
	}
	plan, err := loadgen.ScenarioPlan(sc, spec.Seed)
	if err != nil {
		return nil, err
	}
	var deadlines []time.Duration // by logical request
	for r, ok := plan.Next(); ok; r, ok = plan.Next() {
		deadlines = append(deadlines, r.Deadline)
	}
	prefix := spec.Identity + "-"

	var (
		mu      sync.Mutex
		proxy   *faultproxy.Proxy
		stamped http.Handler
		t0      time.Time
		started = make(chan struct{})
	)
	lookup := func(order string) (time.Time, bool) {
		n, ok := strings.CutPrefix(order, prefix)
		if !ok {
			return time.Time{}, false
		}
		i, err := strconv.Atoi(n)
		if err != nil || i < 0 || i >= len(deadlines) {
			return time.Time{}, false
		}
		return t0.Add(deadlines[i]), true
	}
	p := &part{}
	p.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-started:
		case <-r.Context().Done():
			return
		}
		stamped.ServeHTTP(w, r)
	})
	p.start = func(at time.Time) error {
		mu.Lock()
		defer mu.Unlock()
		if proxy != nil {
			return errors.New("lab part: started twice")
		}
		px, err := faultproxy.New(faultproxy.Config{Upstream: up, Schedule: sched, Seed: spec.Seed, Start: at})
		if err != nil {
			return err
		}
		proxy, t0 = px, at
		stamped = stampDeadlines(lookup, px)
		close(started)
		return nil
	}
	p.stop = func(m *partMsg) error {
		mu.Lock()
		defer mu.Unlock()
		st := faultproxy.Stats{}
		if proxy != nil {
			st = proxy.Stats()
			proxy.CloseIdleConnections()
		}
		m.Proxy = &st
		return nil
	}
	return p, nil
}

// servicePart is the reference service under the arm's policy over the proxies and the
// database; at the end it waits for its handlers (the baseline's orphans too) within
// [ShutdownTimeout] and reports the first database error.
func servicePart(ctx context.Context, sc *scenario.Scenario, spec partSpec) (*part, error) {
	cfg, err := demo.FromScenario(sc, spec.Arm, spec.Deps)
	if err != nil {
		return nil, err
	}
	cfg.Seed = spec.Seed
	store, err := demo.Open(ctx, spec.DB)
	if err != nil {
		return nil, err
	}
	svc, err := demo.New(cfg, store)
	if err != nil {
		store.Close()
		return nil, err
	}
	var (
		dbMu  sync.Mutex
		dbErr error
		work  sync.WaitGroup
	)
	svc.ErrorLog = func(err error) {
		dbMu.Lock()
		defer dbMu.Unlock()
		if dbErr == nil {
			dbErr = err
		}
	}
	p := &part{start: func(time.Time) error { return nil }}
	p.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		work.Add(1)
		defer work.Done()
		svc.ServeHTTP(w, r)
	})
	p.stop = func(m *partMsg) error {
		var errs []error
		if !waitGroup(&work, ShutdownTimeout) {
			errs = append(errs, fmt.Errorf("the service's work did not end within %v of the load's end", ShutdownTimeout))
		}
		svc.Close()
		errs = append(errs, store.Close())
		dbMu.Lock()
		if dbErr != nil {
			m.DBError = dbErr.Error()
		}
		dbMu.Unlock()
		return errors.Join(errs...)
	}
	return p, nil
}
