package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/goodput-lab/goodput/control/deadline"
	"github.com/goodput-lab/goodput/control/identity"
	"github.com/goodput-lab/goodput/live/demo"
	"github.com/goodput-lab/goodput/live/faultproxy"
	"github.com/goodput-lab/goodput/live/loadgen"
	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
)

// Options configure [Run]. The zero Options run every arm with seed 0 on a fresh SQLite
// database each, the service on a free loopback port.
type Options struct {
	// Seed seeds the load plan and the fault proxies' draws, the same for every arm; pass
	// the scenario's (sc.Seed) to run it as written.
	Seed uint64
	// Arms names the arms to run, in the scenario's order; nil means every arm.
	Arms []string
	// DB is the orders database every arm commits to: a SQLite file or a postgres:// URL.
	// Empty means a fresh SQLite file per arm in a temporary directory, removed after the
	// arm. A given database is shared by the arms and not emptied: each arm's duplicates
	// are the difference between the audits before and after it.
	DB string
	// Listen is the reference service's address, a loopback host:port; empty means
	// 127.0.0.1:0 (a free port). The stubs and proxies always take free loopback ports.
	Listen string
	// MaxInFlight bounds the generator's logical requests in flight; zero means
	// loadgen.DefaultMaxInFlight.
	MaxInFlight int
	// Log, when not nil, is called with a line as each arm starts and ends.
	Log func(string)
	// Executable, when not empty, is the goodput binary (os.Executable()) that runs each
	// part but the generator in a process of its own, as `goodput lab part`: the stubs,
	// the proxies and the service; the packet's overhead then has each one's CPU. Empty
	// means every part runs in the calling process, as it does off unix. It needs Scenario.
	Executable string
	// Scenario is the file the scenario was loaded from, which every part's process
	// loads; only with Executable.
	Scenario string

	// wrap, in tests, wraps the service's handler of an arm.
	wrap func(arm string, store *demo.Store, h http.Handler) http.Handler
}

// ShutdownTimeout bounds how long [Run] waits for the parts of an arm to finish their
// work once the load has ended (the baseline's calls go on after their callers left).
const ShutdownTimeout = 30 * time.Second

// Run runs each arm of sc against real processes on loopback, one arm after the other,
// each on the scenario's clock from its own load start: the stub dependencies
// ([demo.Stub]), a fault proxy in front of each with the dependency's schedule
// ([faultproxy.FromScenario], time zero the load's start, the same seed for every arm),
// the reference service ([demo.Service]) under the arm's policy over the proxies and the
// database, and the scenario's load ([loadgen.ScenarioPlan]) against it. It then stops
// every part, audits the database by query ([demo.Store.Audit]) and the payment stub's
// duplicate authorisations, and converts the run with [Arm]. The packet has one live arm
// per arm run; [Join] puts a replay beside it.
//
// When ctx ends, the load stops, every part is stopped and Run returns ctx's error and no
// packet.
func Run(ctx context.Context, sc *scenario.Scenario, o Options) (*packet.Packet, error) {
	arms, err := armsOf(sc, o.Arms)
	if err != nil {
		return nil, err
	}
	if err := CheckDB(o.DB); err != nil {
		return nil, err
	}
	if o.Listen != "" {
		if err := checkLoopback(o.Listen); err != nil {
			return nil, err
		}
	}
	p := &packet.Packet{Scenario: sc.Name, Seed: o.Seed}
	for _, arm := range arms {
		if o.Log != nil {
			o.Log(fmt.Sprintf("arm %s: %v of load", arm, sc.Clock.Duration.Std()))
		}
		run := runArm
		if o.Executable != "" && canRunParts {
			run = runArmParts
		}
		a, err := run(ctx, sc, arm, o)
		if err != nil {
			return nil, fmt.Errorf("lab: arm %s: %w", arm, err)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if o.Log != nil {
			t := a.Totals
			o.Log(fmt.Sprintf("arm %s: %d offered, %d goodput, %d rejected, %d late, %d expired, %d failed, %d duplicates",
				arm, t.Offered, t.Goodput, t.Rejected, t.Late, t.Expired, t.Failed, a.Duplicates.Total()))
		}
		p.Arms = append(p.Arms, a)
	}
	return p, nil
}

// armsOf is the arms of sc that names selects, in sc's order.
func armsOf(sc *scenario.Scenario, names []string) ([]string, error) {
	var all []string
	for _, a := range sc.Arms {
		all = append(all, a.Name)
	}
	if len(names) == 0 {
		return all, nil
	}
	for i, n := range names {
		if !slices.Contains(all, n) {
			return nil, fmt.Errorf("lab: scenario %s has no arm %q; expected one of %s", sc.Name, n, strings.Join(all, ", "))
		}
		if slices.Contains(names[:i], n) {
			return nil, fmt.Errorf("lab: arm %s named twice", n)
		}
	}
	var out []string
	for _, a := range all {
		if slices.Contains(names, a) {
			out = append(out, a)
		}
	}
	return out, nil
}

// CheckDB checks a database name for [Options.DB]: empty, a SQLite file path, or a
// postgres:// URL with a host.
func CheckDB(dsn string) error {
	if !demo.IsPostgres(dsn) {
		if strings.ContainsAny(dsn, "?#") || strings.Contains(dsn, "://") {
			return fmt.Errorf("lab: database %q: expected a SQLite file path without ?, # or :// or a postgres:// URL", dsn)
		}
		return nil
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return fmt.Errorf("lab: database URL: %v; expected postgres://user:password@host:port/database", err)
	}
	if u.Host == "" {
		return fmt.Errorf("lab: database URL %q has no host; expected postgres://user:password@host:port/database", u.Redacted())
	}
	return nil
}

// checkLoopback refuses an address that is not host:port on a loopback host.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("lab: address %q: %v; expected host:port on loopback, e.g. 127.0.0.1:8080", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("lab: address %q is not a loopback address; expected 127.0.0.1, ::1 or localhost", addr)
	}
	return nil
}

// parts are the running parts of one arm: stop stops the servers, close the store.
type parts struct {
	service *server        // the reference service, stopped first
	others  []*server      // the proxies, then the stubs they forward to
	work    sync.WaitGroup // the service's handlers, the baseline's orphans included
	proxies []*faultproxy.Proxy
	svc     *demo.Service
	store   *demo.Store
	tmp     string
}

// server is one part's HTTP server and the end of its Serve.
type server struct {
	srv    *http.Server
	served chan error
}

func serve(ln net.Listener, h http.Handler) *server {
	s := &server{srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}, served: make(chan error, 1)}
	go func() { s.served <- s.srv.Serve(ln) }()
	return s
}

// shutdown stops s within [ShutdownTimeout], then closes what is left.
func (s *server) shutdown() error {
	ctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		s.srv.Close()
	}
	if err := <-s.served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// stop shuts the service down first and waits for its handlers (so that its work still
// reaches the proxies), then the proxies and the stubs, each within a bound. It may be
// called again: stopped parts are not stopped twice.
func (ps *parts) stop() error {
	var errs []error
	if ps.service != nil {
		errs = append(errs, ps.service.shutdown())
		if !waitGroup(&ps.work, ShutdownTimeout) {
			errs = append(errs, fmt.Errorf("the service's work did not end within %v of the load's end", ShutdownTimeout))
		}
		ps.service = nil
	}
	for _, s := range ps.others {
		errs = append(errs, s.shutdown())
	}
	ps.others = nil
	if ps.svc != nil {
		ps.svc.Close()
		ps.svc = nil
	}
	for _, p := range ps.proxies {
		p.CloseIdleConnections()
	}
	return errors.Join(errs...)
}

// close closes the store and removes the temporary directory; call it after stop.
func (ps *parts) close() error {
	var errs []error
	if ps.store != nil {
		errs = append(errs, ps.store.Close())
	}
	if ps.tmp != "" {
		errs = append(errs, os.RemoveAll(ps.tmp))
	}
	return errors.Join(errs...)
}

// waitGroup waits for wg for at most d, and reports whether it ended.
func waitGroup(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

func listen(addr string) (net.Listener, string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", err
	}
	return ln, "http://" + ln.Addr().String(), nil
}

// armPlan is the service's configuration for arm (its dependencies' URLs placeholders:
// FromScenario needs URLs to name them) and the load plan the generator sends.
func armPlan(sc *scenario.Scenario, arm string, seed uint64) (demo.Config, *loadgen.Plan, error) {
	placeholder := map[string]string{}
	for _, d := range sc.Topology.Dependencies {
		placeholder[d.Name] = "http://127.0.0.1:1"
	}
	cfg, err := demo.FromScenario(sc, arm, placeholder)
	if err != nil {
		return demo.Config{}, nil, err
	}
	plan, err := loadgen.ScenarioPlan(sc, seed)
	return cfg, plan, err
}

// runArm runs one arm and converts its run; the parts are stopped before it returns.
func runArm(ctx context.Context, sc *scenario.Scenario, arm string, o Options) (a packet.Arm, err error) {
	cfg, plan, err := armPlan(sc, arm, o.Seed)
	if err != nil {
		return a, err
	}

	ps := &parts{}
	defer func() {
		if e := errors.Join(ps.stop(), ps.close()); e != nil && err == nil {
			err = e
		}
	}()

	// Listeners first: the service is configured with the proxies' addresses, and the
	// proxies are made at the load's start, time zero of their schedules.
	svcLn, target, err := listen(cmpOr(o.Listen, "127.0.0.1:0"))
	if err != nil {
		return a, fmt.Errorf("the service: %w", err)
	}
	defer func() {
		if ps.service == nil {
			svcLn.Close() // not served yet
		}
	}()

	deps := []string{cfg.Risk.Name, cfg.Payment.Name}
	kinds := []string{demo.KindRisk, demo.KindPayment}
	stubs := make([]*demo.Stub, len(deps))
	proxyLns := make([]net.Listener, len(deps))
	stubURLs := make([]*url.URL, len(deps))
	urls := map[string]string{}
	dups := &dupTicks{}
	for i, name := range deps {
		if stubs[i], err = demo.NewStub(kinds[i], 0); err != nil {
			return a, err
		}
		ln, u, err := listen("127.0.0.1:0")
		if err != nil {
			return a, fmt.Errorf("the stub of %s: %w", name, err)
		}
		var h http.Handler = stubs[i]
		if kinds[i] == demo.KindPayment {
			h = dups.observe(stubs[i])
		}
		ps.others = append(ps.others, serve(ln, h))
		stubURLs[i], _ = url.Parse(u)
		if proxyLns[i], urls[name], err = listen("127.0.0.1:0"); err != nil {
			return a, fmt.Errorf("the proxy of %s: %w", name, err)
		}
		defer proxyLns[i].Close() // a listener served is closed by its server first
	}
	if cfg, err = demo.FromScenario(sc, arm, urls); err != nil {
		return a, err
	}
	cfg.Seed = o.Seed

	dsn := o.DB
	if dsn == "" {
		if ps.tmp, err = os.MkdirTemp("", "goodput-lab-"); err != nil {
			return a, err
		}
		dsn = filepath.Join(ps.tmp, "orders-"+arm+".db")
	}
	if ps.store, err = demo.Open(ctx, dsn); err != nil {
		return a, err
	}
	before, err := ps.store.Audit(ctx)
	if err != nil {
		return a, err
	}
	if ps.svc, err = demo.New(cfg, ps.store); err != nil {
		return a, err
	}
	var dbErr error
	var dbMu sync.Mutex
	ps.svc.ErrorLog = func(err error) {
		dbMu.Lock()
		defer dbMu.Unlock()
		if dbErr == nil {
			dbErr = err
		}
	}
	callers := &callerDeadlines{m: map[string]time.Time{}}
	var h http.Handler = ps.svc
	if o.wrap != nil {
		h = o.wrap(arm, ps.store, h)
	}
	ps.service = serve(svcLn, callers.record(&ps.work, h))

	attacker, err := loadgen.New(plan, target, loadgen.Options{MaxInFlight: o.MaxInFlight, Tick: tickOf(sc)})
	if err != nil {
		return a, err
	}
	start := time.Now()
	for i, name := range deps {
		s, err := faultproxy.FromScenario(sc, name)
		if err != nil {
			return a, err
		}
		p, err := faultproxy.New(faultproxy.Config{Upstream: stubURLs[i], Schedule: s, Seed: o.Seed, Start: start})
		if err != nil {
			return a, fmt.Errorf("the proxy of %s: %w", name, err)
		}
		ps.proxies = append(ps.proxies, p)
		ps.others = append([]*server{serve(proxyLns[i], callers.stamp(p))}, ps.others...)
	}
	dups.start(start, tickOf(sc))
	res, err := attacker.Run(ctx)
	if err != nil {
		return a, err
	}
	if err := ps.stop(); err != nil {
		return a, err
	}
	if err := ctx.Err(); err != nil {
		return a, err
	}

	extra := LiveCounts{Cores: runtime.NumCPU()}
	for i, name := range deps {
		extra.Proxies = append(extra.Proxies, Proxy{Dependency: name, Stats: ps.proxies[i].Stats()})
	}
	dbMu.Lock()
	failed := dbErr
	dbMu.Unlock()
	after, err := ps.store.Audit(context.Background())
	if err != nil {
		if failed != nil {
			return a, fmt.Errorf("the database failed during the run (%v), and the audit after it: %w", failed, err)
		}
		return a, err
	}
	if o.Log != nil {
		if failed != nil {
			o.Log(fmt.Sprintf("arm %s: the database failed during the run: %v; the service answered 503 while it did", arm, failed))
		}
		o.Log(fmt.Sprintf("arm %s: by query on the database, %d orders, %d duplicate order rows, %d duplicate commits refused; %d duplicate authorisations at the payment stub",
			arm, after.Orders-before.Orders, after.Duplicates-before.Duplicates, after.Refused-before.Refused, stubs[1].Stats().DuplicateAuthorisations))
	}
	extra.Duplicates = packet.Duplicates{
		PaymentAuthorizations: stubs[1].Stats().DuplicateAuthorisations,
		OrderCommits:          after.Duplicates - before.Duplicates,
	}
	extra.DuplicatesByTick = dups.byTick(len(res.Series), extra.Duplicates.Total())
	return Arm(arm, sc, res, extra)
}

func tickOf(sc *scenario.Scenario) time.Duration {
	if t := sc.Clock.Tick.Std(); t > 0 {
		return t
	}
	return time.Second
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// callerDeadlines keeps the absolute deadline each logical request's caller (the
// generator) gave the service, by identity, so that the proxies judge every call against
// its caller's deadline, in both arms alike: the baseline sends none to its dependencies
// (its calls go on after the caller has left), and the protected arm sends its own, the
// caller's less the reserve and the time spent, which its transport cancels at. A call
// started after its caller's deadline is work nobody waits for; one started between its
// own deadline and its caller's is not, and under load a cancellation takes a moment to
// cross the connection, so judging by the call's own deadline would count the transport's
// delay as the policy's failure. An entry is dropped [ShutdownTimeout] after its deadline,
// so the map holds the requests of that long, not of the whole run.
type callerDeadlines struct {
	mu    sync.Mutex
	m     map[string]time.Time
	added int
}

// note records the deadline dl of key, and every 1024 notes drops the entries past use.
func (c *callerDeadlines) note(key string, dl, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[key] = dl
	if c.added++; c.added%1024 == 0 {
		for k, d := range c.m {
			if now.Sub(d) > ShutdownTimeout {
				delete(c.m, k)
			}
		}
	}
}

// record wraps the service's handler: it notes the caller's deadline and counts the
// handler in work.
func (c *callerDeadlines) record(work *sync.WaitGroup, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		work.Add(1)
		defer work.Done()
		now := time.Now()
		if id, ok, err := identity.Extract(r.Header); ok && err == nil {
			if dl, ok, err := deadline.Extract(r.Header, now, deadline.AsSent); ok && err == nil {
				c.note(string(id.Key), dl, now)
			}
		}
		h.ServeHTTP(w, r)
	})
}

// stamp wraps a proxy: a call whose caller's deadline is known (by the body's order) carries
// that deadline to the proxy in place of any of its own; the proxy only counts by it, and
// the stub behind it reads none.
func (c *callerDeadlines) stamp(h http.Handler) http.Handler {
	return stampDeadlines(func(order string) (time.Time, bool) {
		c.mu.Lock()
		defer c.mu.Unlock()
		dl, ok := c.m[order]
		return dl, ok
	}, h)
}

// stampDeadlines wraps a proxy: a call whose body names an order whose caller's deadline
// lookup knows carries that deadline in place of any of its own.
func stampDeadlines(lookup func(order string) (time.Time, bool), h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			body, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
			r.Body.Close()
			if err != nil {
				http.Error(w, "lab: reading the call's body: "+err.Error(), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			var call struct {
				Order string `json:"order"`
			}
			if json.Unmarshal(body, &call) == nil && call.Order != "" {
				if dl, ok := lookup(call.Order); ok {
					deadline.Inject(r.Header, dl, time.Now())
				}
			}
		}
		h.ServeHTTP(w, r)
	})
}

// dupTicks counts the payment stub's duplicate authorisations by tick of the run.
type dupTicks struct {
	mu    sync.Mutex
	t0    time.Time
	tick  time.Duration
	last  int64
	ticks []int64
}

func (d *dupTicks) start(t0 time.Time, tick time.Duration) {
	d.mu.Lock()
	d.t0, d.tick = t0, tick
	d.mu.Unlock()
}

// observe wraps the payment stub: after each call, the duplicates it added are counted
// in the tick of now.
func (d *dupTicks) observe(s *demo.Stub) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.ServeHTTP(w, r)
		d.mu.Lock()
		defer d.mu.Unlock()
		n := s.Stats().DuplicateAuthorisations
		if n > d.last && d.tick > 0 {
			i := max(int(time.Since(d.t0)/d.tick), 0)
			for len(d.ticks) <= i {
				d.ticks = append(d.ticks, 0)
			}
			d.ticks[i] += n - d.last
			d.last = n
		}
	})
}

// byTick is the duplicates by tick over rows rows, total in all: the payment's as observed
// (past the last row in the last), and what was not observed (orders duplicated in the
// database, which the table's key refuses, or an authorisation whose call outlived the
// shutdown) in the last row.
func (d *dupTicks) byTick(rows int, total int64) []int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	if rows <= 0 {
		return nil
	}
	var out []int64
	for i, n := range d.ticks {
		if n == 0 {
			continue
		}
		j := min(i, rows-1)
		for len(out) <= j {
			out = append(out, 0)
		}
		out[j] += n
		total -= n
	}
	if total > 0 {
		for len(out) < rows {
			out = append(out, 0)
		}
		out[rows-1] += total
	}
	return out
}
