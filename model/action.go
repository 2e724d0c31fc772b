package model

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/levers"
	"github.com/goodput-lab/goodput/internal/draw"
	"github.com/goodput-lab/goodput/scenario"
)

// Actions (scenario.Action): at an action's instant the arm adopts the plan compiled from
// its scenario with the action's sets applied, and reconciles what it holds at run time
// with it. What the arm reads from the plan when it uses it — timeouts, retry rules, a
// stage's dependency, the health check's restart and back-off, the pools' and the
// dependencies' limits — changes for every use from then on, while work in progress keeps
// what it started with. What the arm holds itself is brought in line here: the
// dependencies' service time and error rate (under the faults in force), calls waiting for
// a connection or a server that a larger limit now lets in, the instances' workers, the
// number of instances, the entries' rate limits, the retry budget's ratio and the
// admission controller.

// actionRT is an arm's actions and its entries' rate limits.
type actionRT struct {
	seed    uint64
	steps   []actionStep
	retired []bool   // by instance: taken out of service by an action that scaled in
	buckets []bucket // by entry; nil when no plan of the arm limits an entry's rate
	// eras are the admission controllers an action replaced, in order, each with the id
	// of the first request it did not see: the requests it admitted are done with it.
	eras []admEra
}

type admEra struct {
	until int64
	c     *admission.Controller
}

// actionStep is one action as the arm applies it.
type actionStep struct {
	at    time.Duration
	p     *plan  // the arm's plan from at on
	text  string // the note and the sets, for the timeline and the policy generation
	scale []int  // the services whose instances the action sets
	ratio *float64
	// admission is the arm's new policy when the action changes its admission, and sc
	// the scenario it is built from; nil otherwise.
	admission *scenario.Policy
	sc        *scenario.Scenario
}

// newActionRT is the actions' runtime for an arm on plan p with the given seed.
func newActionRT(p *plan, seed uint64) *actionRT {
	r := &actionRT{seed: seed}
	r.limits(p, 0)
	return r
}

func (r *actionRT) isRetired(ii int32) bool { return int(ii) < len(r.retired) && r.retired[ii] }

// compileActions compiles the actions that apply to arm name: one plan per action.
func compileActions(in *scenario.ArmInputs, name string) ([]actionStep, error) {
	var out []actionStep
	policyOf := func(sc *scenario.Scenario) scenario.Policy {
		return sc.Arms[slices.IndexFunc(sc.Arms, func(a scenario.Arm) bool { return a.Name == name })].Policy
	}
	prev := policyOf(in.Scenario)
	for _, act := range in.Actions {
		p, err := compile(act.Scenario)
		if err != nil {
			return nil, err
		}
		st := actionStep{at: act.At.Std(), p: p, text: act.Text()}
		if pol := policyOf(act.Scenario); !reflect.DeepEqual(pol.Admission, prev.Admission) {
			st.admission, st.sc = &pol, act.Scenario
			prev = pol
		}
		for _, o := range act.Set.Overrides() {
			steps := strings.Split(o.Path, ".")
			switch {
			case len(steps) == 4 && steps[0] == "topology" && steps[1] == "services" && steps[3] == "instances":
				for _, s := range p.servicesNamed(steps[2]) { // with cells, every cell's copy (cell.go)
					if !slices.Contains(st.scale, s) {
						st.scale = append(st.scale, s)
					}
				}
			case steps[0] == "arms" && len(steps) > 1:
				arms := act.Scenario.Arms
				k := named(steps[1], len(arms), func(i int) string { return arms[i].Name })
				if k >= 0 && arms[k].Name == name && o.Path == "arms."+steps[1]+".policy.retries.budget.ratio" {
					if b := arms[k].Policy.Retries.Budget; b != nil {
						r := float64(b.Ratio)
						st.ratio = &r
					}
				}
			}
		}
		out = append(out, st)
	}
	return out, nil
}

// named finds a path step among n names: by name, else as an index.
func named(step string, n int, name func(int) string) int {
	for i := range n {
		if name(i) == step {
			return i
		}
	}
	if k, err := strconv.Atoi(step); err == nil && k >= 0 && k < n {
		return k
	}
	return -1
}

// action applies action step i: the arm adopts its plan, records it and, with a load-state
// machine, starts a new policy generation for it.
func (a *arm) action(i int) {
	st := &a.act.steps[i]
	now, wall := a.now(), a.wall()
	a.adopt(st)
	a.rec.Annotate(now, "action", st.text)
	if m := a.pol.machine; m != nil {
		t := m.Revise(wall, "action: "+st.text)
		a.rec.Transition(now, t.From.String(), t.To.String(), t.Generation, t.Reason, t.Manual)
		a.applyPolicy(wall)
	}
	if st.ratio != nil && a.pol.budget != nil {
		// After the generation's levers, which set the state's ratio: the action's holds
		// until the next transition sets its state's again.
		if err := a.pol.budget.SetRatio(wall, *st.ratio); err != nil {
			panic(err) // the ratio is validated with the scenario
		}
	}
}

// adopt makes st's plan the arm's and reconciles the arm's run-time state with it.
func (a *arm) adopt(st *actionStep) {
	old, np := a.p, st.p
	a.p = np
	// The draws' keys follow the plan's purposes (a stage switched to another dependency
	// draws for that dependency).
	a.keys = make([]uint64, len(np.purposes))
	for i, h := range np.purposes {
		a.keys[i] = draw.KeyOf(a.act.seed, h)
	}
	for d := range a.deps {
		a.applyDepFaults(d)
		dr := &a.deps[d]
		if conc := np.deps[d].concurrency; conc == 0 || conc > old.deps[d].concurrency {
			for dr.waiting > 0 && (conc == 0 || dr.busy < conc) {
				a.serveWaiting(dr)
			}
		}
		if np.deps[d].pool != old.deps[d].pool {
			for ii := range a.insts {
				a.grantConns(int32(ii), int32(d))
			}
		}
	}
	for s := range np.services {
		w := np.services[s].workers
		if w == old.services[s].workers {
			continue
		}
		for _, ii := range a.svcs[s].insts {
			in := &a.insts[ii]
			in.workers = w
			in.invCap = 1 / (float64(w) * in.factor)
			a.pump(ii)
		}
	}
	for _, s := range st.scale {
		a.scaleTo(s, np.services[s].instances)
	}
	a.act.limits(np, a.now())
	if st.admission != nil {
		a.readmit(st)
	}
}

// readmit replaces the arm's admission controller with the one st's policy declares (none,
// if it declares none). The requests the old one admitted are done with it.
func (a *arm) readmit(st *actionStep) {
	fresh, err := newPolicy(st.p, st.sc, *st.admission, a.wall())
	if err != nil {
		panic(err) // the policy is validated with the scenario
	}
	a.act.eras = append(a.act.eras, admEra{until: a.nextID, c: a.pol.adm})
	a.pol.adm = fresh.adm
	if a.pol.levers != nil {
		a.pol.levers = &levers.Applier{Machine: a.pol.machine, Shed: a.pol.shedTable,
			Controls: levers.Controls{Admission: a.pol.adm, Budget: a.pol.budget}}
		a.applyPolicy(a.wall())
	}
}

// admitter is the admission controller that admitted request lg.
func (a *arm) admitter(lg *logical) *admission.Controller {
	if a.act != nil {
		for _, e := range a.act.eras {
			if lg.id < e.until {
				return e.c
			}
		}
	}
	return a.pol.adm
}

// scaleTo brings service s to n instances in service: more start cold, as a scale fault's
// do; fewer retire the newest first.
func (a *arm) scaleTo(s, n int) {
	var live []int32
	for _, ii := range a.svcs[s].insts {
		if !a.act.isRetired(ii) {
			live = append(live, ii)
		}
	}
	if n > len(live) {
		a.scaleOut(&faultPlan{kind: faultScale, target: s, add: n - len(live)})
	}
	for k := len(live) - 1; k >= n; k-- {
		a.retire(live[k])
	}
}

// retire takes instance ii out of service: it takes no more traffic and is no longer
// probed, restarted or counted as requested capacity, and it finishes the work it holds.
func (a *arm) retire(ii int32) {
	for int(ii) >= len(a.act.retired) {
		a.act.retired = append(a.act.retired, false)
	}
	a.act.retired[ii] = true
	in := &a.insts[ii]
	in.life++ // what was scheduled for its process (start, warm-up, probes, a kill) is void
	in.removed = true
	in.probing, in.killing = false, false
	a.updateRoutable(ii)
	if in.ready != nil {
		a.svcs[in.svc].fleet.Remove(in.ready)
		in.ready = nil
	}
}
