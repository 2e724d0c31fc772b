package model

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/goodput-lab/goodput/control/identity"
	"github.com/goodput-lab/goodput/control/queue"
	"github.com/goodput-lab/goodput/control/readiness"
	"github.com/goodput-lab/goodput/internal/draw"
	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
	"github.com/goodput-lab/goodput/sim"
)

// Options are the run-time choices of a replay that are not part of the scenario.
type Options struct {
	// Seed is the random seed. Every arm uses it, so the arms see the same offered load and
	// the same draws for the same purposes (common random numbers).
	Seed uint64
	// Progress, when set, is called now and then with the simulated time done by the
	// slowest arm and the total to do (the scenario's duration). It is called from the
	// arms' goroutines, one call at a time.
	Progress func(done, total time.Duration)
	// ArmDone, when set, is called once per arm as it finishes, with the number of events
	// its engine delivered: for benchmarks and run logs. It is called from the arms'
	// goroutines, possibly at the same time.
	ArmDone func(arm string, events uint64)
	// MaxEvents, when not zero, is the most events an arm's engine may deliver: an arm
	// that reaches it stops, and Run returns an error wrapping [ErrMaxEvents]. A budget for
	// fuzzing and for scenarios not to be trusted; zero means no limit.
	MaxEvents uint64
}

// ErrMaxEvents is the error of a run stopped at Options.MaxEvents.
var ErrMaxEvents = errors.New("model: event budget exhausted")

// Version numbers the model's behaviour. It changes whenever a scenario and seed that
// replayed before give other figures (a mechanism added or corrected, a draw moved), so
// that a packet says which model replayed it ([packet.Packet.ModelVersion]) and goodput
// merge refuses to join sweeps replayed by two models. TestSmallGolden fails when the
// outcome of its scenarios changes and Version does not.
const Version = 5

// Run replays the scenario: one arm per declared policy, each on its own [sim.Sim] and
// goroutine, all on the same seed. Offered load follows the schedule whatever happens
// (open loop); at the end of the clock arrivals stop and work in flight runs on for the
// scenario's drain time, so that every admitted logical request reaches exactly one
// terminal state. Run returns the comparison packet, or the first error; it stops early
// with ctx's error when ctx is cancelled.
func Run(ctx context.Context, sc *scenario.Scenario, opts Options) (*packet.Packet, error) {
	return run(ctx, sc, opts, nil)
}

// hooks observe the arms from the inside, for tests and benchmarks: every offered
// request's fate. They are called from the arms' goroutines, concurrently.
type hooks struct {
	// rejected is called once per rejected request; terminal once per admitted request,
	// when its terminal state is recorded.
	rejected func(arm string, id int64)
	terminal func(arm string, id int64, out packet.Outcome)
}

func run(ctx context.Context, sc *scenario.Scenario, opts Options, h *hooks) (*packet.Packet, error) {
	p, err := compile(sc)
	if err != nil {
		return nil, err
	}
	arms := make([]*arm, len(sc.Arms))
	sets := make([][]string, len(sc.Arms))
	for i, ad := range sc.Arms {
		a, set, err := armOf(p, sc, ad, opts.Seed)
		if err != nil {
			return nil, fmt.Errorf("model: arm %s: %w", ad.Name, err)
		}
		sets[i] = set
		a.hooks = h
		a.armDone = opts.ArmDone
		a.maxEvents = opts.MaxEvents
		arms[i] = a
	}

	prog := newProgress(len(arms), p.duration, opts.Progress)
	results := make([]packet.Arm, len(arms))
	errs := make([]error, len(arms))
	var wg sync.WaitGroup
	for i, a := range arms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = a.run(ctx, func(d time.Duration) { prog.report(i, d) })
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	for i := range results {
		results[i].Set = sets[i]
	}
	return &packet.Packet{Scenario: sc.Name, Seed: opts.Seed, ModelVersion: Version, Arms: results}, nil
}

// progress reports the slowest arm's simulated time.
type progress struct {
	mu    sync.Mutex
	done  []time.Duration
	total time.Duration
	fn    func(done, total time.Duration)
	last  time.Duration
}

func newProgress(n int, total time.Duration, fn func(done, total time.Duration)) *progress {
	return &progress{done: make([]time.Duration, n), total: total, fn: fn, last: -1}
}

func (p *progress) report(i int, d time.Duration) {
	if p.fn == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done[i] = d
	low := d
	for _, v := range p.done {
		low = min(low, v)
	}
	if low > p.last {
		p.last = low
		p.fn(low, p.total)
	}
}

func newQueue(cfg queue.Config) (*queue.Queue[int64], error) { return queue.New[int64](cfg) }

// ledgerTTL is how long the mutation ledgers remember a logical identity: longer than any
// request can keep retrying or running (twice the longest deadline plus every entry
// attempt's timeout and backoff), so that a late repeat is still deduplicated.
// A job re-submits a request long after it ended, so with jobs the ledgers remember every
// identity for the whole run.
func ledgerTTL(p *plan) time.Duration {
	if len(p.jobs) > 0 {
		return max(p.lifetime, p.duration+p.drain)
	}
	return p.lifetime
}

// ledger is a keyed dependency's idempotency record, a control/identity Ledger. The
// record is only ever read when a request's identity comes back (a retry, or an orphaned
// attempt, reaching the mutation again), so the model writes a request's first execution
// into the Ledger when its identity is first used again, and lets the Ledger decide the
// repeat. The Ledger's answers are the same as if every execution had been written at
// once (its TTL is far longer than a request lives), only the record's timestamp is the
// instant it was written; requests whose identity never returns cost nothing.
type ledger struct {
	l *identity.Ledger
}

func newLedger(ttl time.Duration) (*ledger, error) {
	l, err := identity.NewLedger(identity.Config{Dedupe: true, TTL: max(ttl, time.Second)})
	if err != nil {
		return nil, err
	}
	return &ledger{l: l}, nil
}

// execute is called for a repeat of key's mutation at now; prior says the first execution
// is not written yet. It reports whether the repeat is applied.
func (l *ledger) execute(now time.Time, key identity.Key, prior bool) bool {
	if prior {
		l.l.Execute(now, key) // the first execution, written now that it is needed
	}
	_, executed := l.l.Execute(now, key)
	return executed
}

// armOf builds arm ad of the scenario, whose plan is p: on p itself when the arm has
// neither sets nor actions, else on plans of its own, one from the start (the scenario
// with the arm's sets) and one per action (with the action's sets too). Its drain and the
// ledgers' memory are then the longest any of its plans needs, unless the scenario
// declares a drain. It also returns the arm's sets, as PATH=VALUE.
func armOf(p *plan, sc *scenario.Scenario, ad scenario.Arm, seed uint64) (*arm, []string, error) {
	acts := slices.ContainsFunc(sc.Actions, func(act scenario.Action) bool {
		return len(act.Arms) == 0 || slices.Contains(act.Arms, ad.Name)
	})
	if len(ad.Set) == 0 && !acts {
		a, err := newArm(p, sc, ad, seed)
		return a, nil, err
	}
	in, err := sc.Inputs(ad.Name)
	if err != nil {
		return nil, nil, err
	}
	ap, err := compile(in.Scenario)
	if err != nil {
		return nil, nil, err
	}
	steps, err := compileActions(in, ad.Name)
	if err != nil {
		return nil, nil, err
	}
	if sc.Clock.Drain == 0 {
		for _, st := range steps {
			ap.drain = max(ap.drain, st.p.drain)
		}
	}
	for _, st := range steps {
		ap.lifetime = max(ap.lifetime, st.p.lifetime)
	}
	arms := in.Scenario.Arms
	a, err := newArm(ap, in.Scenario, arms[slices.IndexFunc(arms, func(x scenario.Arm) bool { return x.Name == ad.Name })], seed)
	if err != nil {
		return nil, nil, err
	}
	if len(steps) > 0 {
		if a.act == nil {
			a.act = newActionRT(ap, seed)
		}
		a.act.steps = steps
	}
	return a, in.Set, nil
}

func newArm(p *plan, sc *scenario.Scenario, ad scenario.Arm, seed uint64) (*arm, error) {
	s := sim.New(p.start)
	pol, err := newPolicy(p, sc, ad.Policy, p.start)
	if err != nil {
		return nil, err
	}
	if err := pol.queueCfg(0).Validate(); err != nil {
		return nil, err
	}
	streams := sim.NewStreams(seed)
	a := &arm{
		p:     p,
		name:  ad.Name,
		pol:   pol,
		s:     s,
		srcs:  newSources(p, streams),
		shift: 1,
		al:    newAlertRT(p, ad.Name),
		tk:    tickStats{slack: newSignalHist()},
	}
	a.dropFn = a.dropped
	a.jobs = newJobs(p, ad.Name)
	a.scalers = newScalers(p)
	a.cells = newCellsRT(p, ad.Policy.Failover)
	if p.limited {
		a.act = newActionRT(p, seed)
	}
	a.keys = make([]uint64, len(p.purposes))
	for i, h := range p.purposes {
		a.keys[i] = draw.KeyOf(seed, h)
	}
	a.tqEntry = 0
	a.tqDep = len(p.entries)
	a.tqClass = a.tqDep + len(p.deps)
	a.tqReserve = a.tqClass + len(p.classes)
	a.tqs = make([]timerQueue, a.tqReserve+len(p.classes))
	for i := range a.tqs {
		switch {
		case i < a.tqDep:
			a.tqs[i].kind = evEntryTimeout
		case i < a.tqClass:
			a.tqs[i].kind = evCallTimeout
		case i < a.tqReserve:
			a.tqs[i].kind = evDeadline
		default:
			a.tqs[i].kind = evReserve
		}
		a.tqs[i].marks = i < a.tqClass // entry and dependency timeouts: see freeAttempt, freeCall
	}
	for _, c := range p.classes {
		a.maxSlack = max(a.maxSlack, c.deadline)
	}
	a.rec = packet.NewRecorder(packet.Config{
		Arm:          ad.Name,
		Start:        p.start,
		Tick:         p.tick,
		Duration:     p.duration,
		Classes:      p.classNames,
		Layers:       p.layers,
		Dependencies: p.depNames,
		Caches:       p.cacheNames(),
		Objectives:   p.objectives,
		Alerts:       p.alertNames(ad.Name),
	})
	a.hs = newHandles(a.rec, p)
	if pol.brk != nil {
		a.rec.Breakers(pol.brk.names...)
	}
	// Readiness: an instance may take traffic (RouteReady) and counts as warm once its
	// cold period is over; the policy decides whether traffic waits for that.
	rcfg := readiness.Config{Route: readiness.Criteria{CacheWarm: 1}, Warm: readiness.Criteria{CacheWarm: 1}}
	for range p.services {
		fleet, err := readiness.NewFleet(rcfg)
		if err != nil {
			return nil, err
		}
		a.svcs = append(a.svcs, svcRT{workFactor: 1, fleet: fleet})
	}
	for i := range p.services {
		for range p.services[i].instances {
			a.newInstance(i, true)
		}
	}
	for i := range p.deps {
		// Until a tick has measured it, a retry expects the declared median service time.
		a.deps = append(a.deps, depRT{ln: p.deps[i].ln, errRate: p.deps[i].errRate, hangRate: p.deps[i].hangRate, p50: p.deps[i].serviceTime.P50.Std(), hist: newSignalHist()})
	}
	if pol.identity {
		// With identity, a keyed dependency keeps an idempotency record (control/identity's
		// Ledger) and applies a mutation once per logical request. Without identity there is
		// no record: every attempt's mutation is applied, and the model counts the repeats.
		for k := mutAuth; k < numMut; k++ {
			keyed := false
			for _, c := range p.classes {
				for _, st := range c.stages {
					if st.mutation == k && p.deps[st.dep].keyed {
						keyed = true
					}
				}
			}
			if !keyed {
				continue
			}
			l, err := newLedger(ledgerTTL(p))
			if err != nil {
				return nil, err
			}
			a.ledgers[k] = l
		}
	}
	return a, nil
}

// run simulates the arm and returns its packet arm.
func (a *arm) run(ctx context.Context, progress func(time.Duration)) (packet.Arm, error) {
	p := a.p
	a.begin()

	// Run in slices of a few ticks so that cancellation and progress are prompt.
	slice := 10 * p.tick
	for t := slice; ; t += slice {
		if err := ctx.Err(); err != nil {
			return packet.Arm{}, err
		}
		end := min(t, p.duration)
		if a.maxEvents == 0 {
			a.s.Run(end)
		} else if !a.s.RunLimit(end, a.maxEvents-a.s.Processed()) {
			return packet.Arm{}, a.overBudget()
		}
		progress(end)
		if end >= p.duration {
			break
		}
	}
	// Arrivals have stopped; let the work in flight finish.
	a.stopped = true
	limit := p.duration + p.drain
	for a.sl.lgLive > 0 && a.s.Step(limit) {
		if a.maxEvents != 0 && a.s.Processed() >= a.maxEvents {
			return packet.Arm{}, a.overBudget()
		}
	}
	if a.sl.lgLive > 0 {
		a.unfinished()
	}
	if a.armDone != nil {
		a.armDone(a.name, a.s.Processed())
	}
	if b := a.pol.budget; b != nil {
		st := b.Stats()
		a.rec.RetryBudget(st.Requests, st.Retries)
	}
	out := a.rec.Finish(p.objectives)
	out.Cells = a.cellStats()
	out.Jobs = a.jobResults()
	return out, nil
}

// overBudget is the error of an arm stopped at its event budget.
func (a *arm) overBudget() error {
	return fmt.Errorf("%w: arm %s delivered %d events by %v of simulated time (Options.MaxEvents)", ErrMaxEvents, a.name, a.s.Processed(), a.now())
}

// begin schedules what starts the arm's run: the rate changes, the faults, the first tick
// and the first arrival.
func (a *arm) begin() {
	p := a.p
	a.beginSources()
	for i, f := range p.faults {
		if f.at < p.duration {
			a.s.ScheduleAt(f.at, a, evFaultStart, int64(i))
			if f.end > 0 && f.end < p.duration {
				a.s.ScheduleAt(f.end, a, evFaultEnd, int64(i))
			}
		}
	}
	if a.act != nil {
		for i, st := range a.act.steps {
			if st.at < p.duration {
				a.s.ScheduleAt(st.at, a, evAction, int64(i))
			}
		}
	}
	a.beginNotes()
	a.schedule(p.tick, evTick, 0)
	a.beginJobs()
	a.beginArrivals()
}

// unfinished records every request still without a terminal state at the end of the
// drain as failed, so that conservation holds and the count is visible.
func (a *arm) unfinished() {
	now := a.now()
	n := 0
	for i := int32(0); i < a.sl.recs.n; i++ {
		lg := a.sl.lg(i)
		if lg.state == lgRecorded || lg.state == lgFreed {
			continue
		}
		if lg.state == lgActive {
			a.terminal(now, lg, packetFailed(lg), now-lg.t0)
		} else {
			a.settled(lg, packetFailed(lg)) // given up: its latency is recorded
		}
		lg.state = lgRecorded
		n++
	}
	if n > 0 {
		a.rec.Annotate(now, "drain", fmt.Sprintf("%d requests still running at the end of the drain counted as failed", n))
	}
}

func packetFailed(lg *logical) packet.Outcome {
	if lg.mutated {
		return packet.Ambiguous
	}
	return packet.Failed
}
