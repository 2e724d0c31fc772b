package model

import (
	"fmt"
	"strings"
	"time"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/levers"
	"github.com/goodput-lab/goodput/control/loadstate"
	"github.com/goodput-lab/goodput/control/queue"
	"github.com/goodput-lab/goodput/control/shed"
	"github.com/goodput-lab/goodput/scenario"
)

// policyRT is an arm's policy wired to the control packages.
type policyRT struct {
	propagate, cancel bool
	reserve           time.Duration
	identity          bool
	derived           bool
	ceiling           time.Duration // caps a derived call timeout (DeadlinePolicy.Ceiling); 0: no cap
	readyWarm         bool
	freezeFailover    bool // the load state refuses failover traffic into the cell
	// retryByDeadline: retries are refused when the time left cannot cover them (a
	// budget, or propagation), so the dependencies' median service times are measured.
	retryByDeadline bool

	budget   *budget.Budget        // nil: layered retries
	adm      *admission.Controller // nil: every request admitted
	machine  *loadstate.Machine    // nil: no load state
	levers   *levers.Applier       // applies the machine's policy; nil without a load state
	trigger  int                   // dependency whose health gates leaving Protected; -1 without a load state
	queueCfg func(capacity int) queue.Config

	shedTable shed.Table
	shedOn    bool
	shedFeat  [][]shed.Feature // per class, per stage; only optional stages are looked up
	shedable  [][]bool
	shedSet   shed.Set // the levers' shed set in force

	brk *breakerRT // the services' circuit breakers (breaker.go); nil without
}

// sync applies the load state's policy generation in force at now, if it is new, through
// the same [levers.Applier] a service's controlhttp.Stepper uses: the budget's ratio and
// the admission scale, then the shed set and the failover freeze the arm reads.
func (p *policyRT) sync(now time.Time) error {
	if p.levers == nil {
		return nil
	}
	l, applied, err := p.levers.Sync(now)
	if err != nil || !applied {
		return err
	}
	if p.shedOn {
		p.shedSet = l.Shed
	}
	p.freezeFailover = l.FreezeFailover
	return nil
}

// shedding reports whether the optional stage of class ci is shed in the current state.
func (p *policyRT) shedding(ci int16, stage int32) bool {
	if !p.shedOn || !p.shedable[ci][stage] {
		return false
	}
	return p.shedSet.Has(p.shedFeat[ci][stage])
}

// newPolicy builds the controls of one arm from its declared policy. Nothing here is a
// result: the admission limit starts at a bound derived from the topology (twice the
// workers of every instance the run can have) and the controller moves it from measured
// queueing delay.
func newPolicy(p *plan, sc *scenario.Scenario, pol scenario.Policy, start time.Time) (*policyRT, error) {
	rt := &policyRT{
		trigger:   -1, // no load state: no dependency's saturation or health is tracked
		propagate: pol.Deadline.Propagate,
		cancel:    pol.Deadline.Cancel,
		reserve:   pol.Deadline.Reserve.Std(),
		identity:  pol.Identity,
		derived:   pol.DependencyTimeout == scenario.TimeoutDerived,
		ceiling:   pol.Deadline.Ceiling.Cap(),
		readyWarm: pol.Readiness == scenario.ReadyWarm,
	}
	brk, err := newBreakers(p, pol.Breakers)
	if err != nil {
		return nil, err
	}
	rt.brk = brk
	if pol.Retries.Mode == scenario.RetryModeBudget {
		b := pol.Retries.Budget
		b2, err := budget.New(budget.Config{
			Ratio:        float64(b.Ratio),
			MinPerSecond: b.MinPerSecond.PerSecond(),
			TTL:          b.TTL.Std(),
		})
		if err != nil {
			return nil, err
		}
		rt.budget = b2
	}
	rt.retryByDeadline = rt.budget != nil || rt.propagate
	q := pol.Queue
	if q.Kind == scenario.QueueAge {
		expected := rt.reserve
		rt.queueCfg = func(capacity int) queue.Config {
			c := queue.Config{
				Capacity:     capacity,
				MaxAge:       q.MaxAge.Std(),
				Target:       q.Target.Std(),
				Interval:     q.Interval.Std(),
				AdaptiveLIFO: q.AdaptiveLIFO,
				// An arm is one goroutine.
				Unsynchronized: true,
			}
			if rt.propagate {
				c.Expected = expected
			}
			return c
		}
	} else {
		rt.queueCfg = func(capacity int) queue.Config {
			return queue.Config{Capacity: capacity, Unsynchronized: true} // an arm is one goroutine
		}
	}
	if a := pol.Admission; a != nil {
		limit := min(2*p.maxWorkers, admission.MaxLimit)
		cfg := admission.Config{Max: limit, Initial: limit, Target: a.Target.Std()}
		if !a.Adaptive {
			cfg.Min = limit // pinned: only reservations and the deadline check apply
		}
		cont, look := float64(a.Reserve.Continuation), float64(a.Reserve.Lookup)
		if cont > 0 || look > 0 {
			// Standard work may fill what is not reserved; sheddable work half of that.
			cfg.Share = [admission.NumClasses]float64{1, 1 - cont, 1 - cont - look, (1 - cont - look) / 2}
		}
		ctl, err := admission.New(cfg)
		if err != nil {
			return nil, fmt.Errorf("admission: %w", err)
		}
		rt.adm = ctl
	}
	if ls := pol.LoadState; ls != nil {
		cfg, err := ls.Config(sc)
		if err != nil {
			return nil, err
		}
		m, err := loadstate.New(cfg, start)
		if err != nil {
			return nil, err
		}
		rt.machine = m
		rt.trigger = triggerDependency(sc, p.depNames, ls.Trigger)
	}
	if sh := pol.Shed; sh != nil {
		table, err := shedPlan(sc, sh.Features).Compile()
		if err != nil {
			return nil, fmt.Errorf("shed: %w", err)
		}
		rt.shedTable = table
		rt.shedOn = true
	}
	if rt.machine != nil {
		// The policy in force applies from the arm's first instant, as a Stepper applies
		// it when it starts: Normal's retry ratio replaces the declared budget ratio.
		rt.levers = &levers.Applier{Machine: rt.machine, Shed: rt.shedTable,
			Controls: levers.Controls{Admission: rt.adm, Budget: rt.budget}}
		if err := rt.sync(start); err != nil {
			return nil, err
		}
	}
	for ci, c := range p.classes {
		rt.shedFeat = append(rt.shedFeat, make([]shed.Feature, len(c.stages)))
		rt.shedable = append(rt.shedable, make([]bool, len(c.stages)))
		for si, st := range c.stages {
			if !st.optional || !rt.shedOn {
				continue
			}
			if f, ok := rt.shedTable.Feature(st.feature); ok {
				rt.shedFeat[ci][si] = f
				rt.shedable[ci][si] = true
			}
		}
	}
	return rt, nil
}

// triggerDependency is the dependency whose health lets Protected end: the declared one,
// else the dependency of the first dependency fault, else the first dependency.
func triggerDependency(sc *scenario.Scenario, deps []string, name string) int {
	if name == "" {
		for _, f := range sc.Faults {
			if f.Dependency != "" {
				name = f.Dependency
				break
			}
		}
	}
	for i, d := range deps { // the plan's: with cells, their copies (cell/name)
		if d == name {
			return i
		}
	}
	for i, d := range deps { // a fault on every cell's copy: the first cell's
		if name != "" && strings.HasSuffix(d, "/"+name) {
			return i
		}
	}
	return 0
}

// shedPlan is the stages' own plan: each optional stage of the scenario whose shed_from is
// not never is shed from the state it names (scenario.ShedStates), under its feature with
// its fallback text (the first stage's, for a feature several stages share). With only
// set, features outside it are never shed. Required stages are never in the plan, and no
// name means anything.
func shedPlan(sc *scenario.Scenario, only []string) shed.Plan {
	keep := func(name string) bool {
		if len(only) == 0 {
			return true
		}
		for _, o := range only {
			if strings.EqualFold(o, name) {
				return true
			}
		}
		return false
	}
	plan := shed.Plan{States: map[loadstate.State][]shed.Optional{}}
	known := map[string]bool{}
	for _, c := range sc.Classes {
		for _, st := range c.Stages {
			f := scenario.StageFeature(st)
			if !st.Optional || known[strings.ToLower(f)] || !keep(f) {
				continue
			}
			known[strings.ToLower(f)] = true
			o := shed.Optional{Name: f, Fallback: scenario.ShedText(st)}
			for _, s := range scenario.ShedStates(st.ShedFrom) {
				plan.States[s] = append(plan.States[s], o)
			}
		}
	}
	return plan
}
