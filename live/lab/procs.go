package lab

import (
	"bufio"
	"context"
	crand "crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/goodput-lab/goodput/control/identity"
	"github.com/goodput-lab/goodput/live/demo"
	"github.com/goodput-lab/goodput/live/loadgen"
	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
)

// PartStartTimeout bounds how long [Run] waits for each part's process to serve, and then
// to take the run's time zero.
const PartStartTimeout = 30 * time.Second

// startTimeout is PartStartTimeout, shorter in tests.
var startTimeout = PartStartTimeout

// startLead is how far ahead the parent sets t0 when it sends it to the parts: they make
// their schedules from it before the generator starts at it.
const startLead = time.Second

// child is one part running in a process of its own.
type child struct {
	name   string // "the service", "the proxy of payment", "the stub of payment"
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	msgs   chan partMsg // its stdout's lines, closed at its end
	stderr *tail
	exited chan struct{} // closed once it has exited and been waited for
	wait   error
	cpu0   time.Duration // its CPU when it took t0
}

// startChild starts `exe lab part SPEC` serving on ln and waits until it serves.
func startChild(ctx context.Context, exe, name string, spec partSpec, ln net.Listener) (*child, error) {
	tl, ok := ln.(*net.TCPListener)
	if !ok {
		return nil, fmt.Errorf("%s: the listener is not TCP", name)
	}
	f, err := tl.File()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer f.Close()
	b, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	c := &child{name: name, msgs: make(chan partMsg, 16), stderr: &tail{max: 4 << 10}, exited: make(chan struct{})}
	c.cmd = exec.Command(exe, "lab", "part", string(b))
	c.cmd.Env = append(os.Environ(), PartEnv+"=1")
	c.cmd.ExtraFiles = []*os.File{f}
	c.cmd.Stderr = c.stderr
	isolate(c.cmd)
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if err := c.cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: starting %s: %w", name, exe, err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			var m partMsg
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				c.msgs <- m
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
		c.wait = c.cmd.Wait()
		close(c.msgs)
		close(c.exited)
	}()
	if _, err := c.await(ctx, "serve", startTimeout, func(m partMsg) bool { return m.Ready }); err != nil {
		c.kill()
		return nil, err
	}
	return c, nil
}

// await waits for the first message of c that ok accepts, for at most d.
func (c *child) await(ctx context.Context, doing string, d time.Duration, ok func(partMsg) bool) (partMsg, error) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case m, open := <-c.msgs:
			switch {
			case !open:
				<-c.exited
				return m, fmt.Errorf("%s (pid %d) exited before it could %s: %v%s", c.name, c.cmd.Process.Pid, doing, c.wait, c.stderr.words())
			case m.Error != "":
				return m, fmt.Errorf("%s: %s", c.name, m.Error)
			case ok(m):
				return m, nil
			}
		case <-t.C:
			return partMsg{}, fmt.Errorf("%s (pid %d) did not %s within %v%s", c.name, c.cmd.Process.Pid, doing, d, c.stderr.words())
		case <-ctx.Done():
			return partMsg{}, ctx.Err()
		}
	}
}

// start sends c the run's time zero.
func (c *child) start(t0 time.Time) error {
	b, _ := json.Marshal(partStart{T0: t0.Round(0)})
	if _, err := c.stdin.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("%s: sending it t0: %w", c.name, err)
	}
	return nil
}

// stop ends c's stdin, which stops it, and returns its last message: its counters. A part
// that does not end within ShutdownTimeout and a margin, or when ctx ends, is killed.
func (c *child) stop(ctx context.Context) (partMsg, error) {
	c.stdin.Close()
	m, err := c.await(ctx, "stop", ShutdownTimeout+10*time.Second, func(m partMsg) bool { return m.Done })
	if err != nil {
		c.kill()
		return m, err
	}
	t := time.NewTimer(10 * time.Second)
	defer t.Stop()
	select {
	case <-c.exited:
	case <-t.C:
		c.kill()
		return m, fmt.Errorf("%s (pid %d) did not exit after it stopped", c.name, c.cmd.Process.Pid)
	}
	if c.wait != nil {
		return m, fmt.Errorf("%s: %v%s", c.name, c.wait, c.stderr.words())
	}
	return m, nil
}

// kill kills c's process group and waits for it to exit.
func (c *child) kill() {
	if c.cmd.Process == nil {
		return
	}
	select {
	case <-c.exited:
		return
	default:
	}
	killGroup(c.cmd.Process.Pid)
	_ = c.cmd.Process.Kill()
	<-c.exited
}

// cpu is the CPU time c used from t0 to its exit, by its rusage.
func (c *child) cpu() time.Duration {
	s := c.cmd.ProcessState
	if s == nil {
		return 0
	}
	return max(s.UserTime()+s.SystemTime()-c.cpu0, 0)
}

// tail keeps the last max bytes written to it: a part's stderr, for the errors that name it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

// words is "; it said: …" with the tail's last lines, or "".
func (t *tail) words() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.b))
	if s == "" {
		return ""
	}
	return "; it said: " + s
}

// runArmParts runs one arm with every part but the generator in a process of its own (see
// [Options.Executable]) and converts its run; every part has ended before it returns.
func runArmParts(ctx context.Context, sc *scenario.Scenario, arm string, o Options) (a packet.Arm, err error) {
	if o.Scenario == "" {
		return a, errors.New("Options.Executable needs Options.Scenario, the scenario's file, which every part loads")
	}
	file, err := filepath.Abs(o.Scenario)
	if err != nil {
		return a, err
	}
	cfg, plan, err := armPlan(sc, arm, o.Seed)
	if err != nil {
		return a, err
	}
	var seed [32]byte
	_, _ = crand.Read(seed[:])
	ident := string(identity.NewKey(rand.New(rand.NewChaCha8(seed))))

	var kids []*child
	defer func() {
		if err != nil {
			for _, c := range kids {
				c.kill()
			}
		}
	}()
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close() // the parts serve their own copies
		}
	}()
	listenFor := func(what, addr string) (string, error) {
		ln, u, err := listen(addr)
		if err != nil {
			return "", fmt.Errorf("%s: %w", what, err)
		}
		lns = append(lns, ln)
		return u, nil
	}
	base := partSpec{Scenario: file, Name: sc.Name, Seed: o.Seed}

	tmp := ""
	defer func() {
		if tmp != "" {
			if e := os.RemoveAll(tmp); e != nil && err == nil {
				err = e
			}
		}
	}()
	dsn := o.DB
	if dsn == "" {
		if tmp, err = os.MkdirTemp("", "goodput-lab-"); err != nil {
			return a, err
		}
		dsn = filepath.Join(tmp, "orders-"+arm+".db")
	}
	before, err := audit(ctx, dsn)
	if err != nil {
		return a, err
	}

	target, err := listenFor("the service", cmpOr(o.Listen, "127.0.0.1:0"))
	if err != nil {
		return a, err
	}
	deps := []string{cfg.Risk.Name, cfg.Payment.Name}
	kinds := []string{demo.KindRisk, demo.KindPayment}
	var stubs, proxies []*child
	urls := map[string]string{}
	for i, name := range deps {
		u, err := listenFor("the stub of "+name, "127.0.0.1:0")
		if err != nil {
			return a, err
		}
		s := base
		s.Kind, s.Stub = partStub, kinds[i]
		c, err := startChild(ctx, o.Executable, "the stub of "+name, s, lns[len(lns)-1])
		if err != nil {
			return a, err
		}
		kids = append(kids, c)
		stubs = append(stubs, c)

		if urls[name], err = listenFor("the proxy of "+name, "127.0.0.1:0"); err != nil {
			return a, err
		}
		p := base
		p.Kind, p.Dependency, p.Upstream, p.Identity = partProxy, name, u, ident
		if c, err = startChild(ctx, o.Executable, "the proxy of "+name, p, lns[len(lns)-1]); err != nil {
			return a, err
		}
		kids = append(kids, c)
		proxies = append(proxies, c)
	}
	s := base
	s.Kind, s.Arm, s.Deps, s.DB = partService, arm, urls, dsn
	service, err := startChild(ctx, o.Executable, "the service", s, lns[0])
	if err != nil {
		return a, err
	}
	kids = append(kids, service)
	if o.Log != nil {
		var pids []string
		for _, c := range kids {
			pids = append(pids, fmt.Sprintf("%s pid %d", c.name, c.cmd.Process.Pid))
		}
		o.Log(fmt.Sprintf("arm %s: parts in processes of their own: %s", arm, strings.Join(pids, ", ")))
	}

	attacker, err := loadgen.New(plan, target, loadgen.Options{MaxInFlight: o.MaxInFlight, Tick: tickOf(sc), Identity: ident})
	if err != nil {
		return a, err
	}
	t0 := time.Now().Add(startLead)
	for _, c := range kids {
		if err := c.start(t0); err != nil {
			return a, err
		}
	}
	for _, c := range kids {
		m, err := c.await(ctx, "take t0", startTimeout, func(m partMsg) bool { return m.Started })
		if err != nil {
			return a, err
		}
		c.cpu0 = m.CPUAtStart
	}
	if late := time.Since(t0); late > 0 {
		return a, fmt.Errorf("the parts took t0 %v after it; expected them within %v (the machine is overloaded)", late.Round(time.Millisecond), startLead)
	}
	wait := time.NewTimer(time.Until(t0))
	select {
	case <-wait.C:
	case <-ctx.Done():
		wait.Stop()
		return a, ctx.Err()
	}
	if o.Log != nil {
		o.Log(fmt.Sprintf("arm %s: the load runs from t0, %s", arm, t0.UTC().Format(time.RFC3339Nano)))
	}
	res, err := attacker.Run(ctx)
	if err != nil {
		return a, err
	}
	if err := ctx.Err(); err != nil {
		return a, err
	}

	// The service first, so that its work still reaches the proxies, then the proxies and
	// the stubs behind them.
	svcEnd, err := service.stop(ctx)
	if err != nil {
		return a, err
	}
	extra := LiveCounts{Cores: runtime.NumCPU(), ServiceCPU: service.cpu()}
	for i, c := range proxies {
		m, err := c.stop(ctx)
		if err != nil {
			return a, err
		}
		if m.Proxy == nil {
			return a, fmt.Errorf("%s stopped without its counters", c.name)
		}
		extra.Proxies = append(extra.Proxies, Proxy{Dependency: deps[i], Stats: *m.Proxy})
		extra.ProxyCPU += c.cpu()
	}
	var payment partMsg
	for i, c := range stubs {
		m, err := c.stop(ctx)
		if err != nil {
			return a, err
		}
		if m.Stub == nil {
			return a, fmt.Errorf("%s stopped without its counters", c.name)
		}
		if kinds[i] == demo.KindPayment {
			payment = m
		}
		extra.ProxyCPU += c.cpu()
	}
	if err := ctx.Err(); err != nil {
		return a, err
	}

	after, err := audit(context.Background(), dsn)
	if err != nil {
		if svcEnd.DBError != "" {
			return a, fmt.Errorf("the database failed during the run (%s), and the audit after it: %w", svcEnd.DBError, err)
		}
		return a, err
	}
	dupAuth := payment.Stub.DuplicateAuthorisations
	if o.Log != nil {
		if svcEnd.DBError != "" {
			o.Log(fmt.Sprintf("arm %s: the database failed during the run: %s; the service answered 503 while it did", arm, svcEnd.DBError))
		}
		o.Log(fmt.Sprintf("arm %s: by query on the database, %d orders, %d duplicate order rows, %d duplicate commits refused; %d duplicate authorisations at the payment stub",
			arm, after.Orders-before.Orders, after.Duplicates-before.Duplicates, after.Refused-before.Refused, dupAuth))
		o.Log(fmt.Sprintf("arm %s: CPU: generator %v, proxies and stubs %v, service %v",
			arm, res.CPU.Round(time.Millisecond), extra.ProxyCPU.Round(time.Millisecond), extra.ServiceCPU.Round(time.Millisecond)))
	}
	extra.Duplicates = packet.Duplicates{PaymentAuthorizations: dupAuth, OrderCommits: after.Duplicates - before.Duplicates}
	dups := &dupTicks{ticks: payment.DupTicks}
	extra.DuplicatesByTick = dups.byTick(len(res.Series), extra.Duplicates.Total())
	return Arm(arm, sc, res, extra)
}

// audit opens the database, audits it by query and closes it.
func audit(ctx context.Context, dsn string) (demo.Audit, error) {
	store, err := demo.Open(ctx, dsn)
	if err != nil {
		return demo.Audit{}, err
	}
	au, err := store.Audit(ctx)
	return au, errors.Join(err, store.Close())
}
