package scenario

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Action is a change of inputs at an instant of the run, in every arm or in the arms it
// names: a release that raises a timeout, an on-call engineer scaling a service, a
// rollback, an admission pause at an entry, a restart throttle, a switch of a stage to
// another dependency — one mechanism, in the --set path syntax ([Sets]). From At on, the
// arm runs with the changed inputs: new arrivals, attempts and calls use the new values,
// while work in progress keeps what it started with (a call already waiting keeps its
// timeout; an attempt already running keeps its worker). A change of instances scales
// the service to that many instances: new ones start cold, as a scale fault's do, and
// removed ones (the newest first) stop taking traffic and finish what they hold.
//
// Each action is recorded in events.jsonl (kind "action") at its instant in every arm it
// applies to; in an arm with a load-state machine it also starts a new policy generation,
// in the same state, marked manual, with the note and the sets as its reason.
//
// Only inputs that can change mid-run may be set (see [ActionPaths]); the offered load
// cannot (it is open loop and shared by the arms). A budget ratio an action sets holds
// until the next policy generation applies its load state's ratio again; an admission
// policy an action sets is a new controller from then on, and the requests the old one
// admitted finish with it.
type Action struct {
	// At is the instant of the action, from the start of the run, e.g. 10m26s.
	At Duration `yaml:"at" json:"at"`
	// Arms names the arms the action applies to; empty means every arm.
	Arms []string `yaml:"arms,omitempty" json:"arms,omitempty,omitzero"`
	// Set is what the action changes, e.g. {topology.services.checkout.instances: 40}.
	Set Sets `yaml:"set" json:"set"`
	// Note describes the action on the timeline, e.g. "on-call scales pods 12 → 40".
	Note string `yaml:"note,omitempty" json:"note,omitempty,omitzero"`
}

// appliesTo reports whether the action applies to the named arm.
func (a Action) appliesTo(arm string) bool { return len(a.Arms) == 0 || slices.Contains(a.Arms, arm) }

// Text describes the action for the timeline: its note and its sets.
func (a Action) Text() string {
	sets := strings.Join(a.Set.Strings(), ", ")
	if a.Note == "" {
		return "set " + sets
	}
	return a.Note + ": set " + sets
}

// ActionPaths are the inputs an action may set, with * for one element of a list (by name
// or index) and a trailing .** for anything inside.
var ActionPaths = []string{
	"topology.entries.*.timeout",
	"topology.entries.*.retries.**",
	"topology.entries.*.rate_limit",
	"topology.dependencies.*.timeout",
	"topology.dependencies.*.retries.**",
	"topology.dependencies.*.service_time.**",
	"topology.dependencies.*.error_rate",
	"topology.dependencies.*.concurrency",
	"topology.dependencies.*.pool.**",
	"topology.dependencies.*.hang_rate",
	"topology.dependencies.*.beyond",
	"topology.dependencies.*.load_factor.**",
	"topology.services.*.load_factor.**",
	"topology.services.*.memory.gc.**",
	"topology.services.*.instances",
	"topology.services.*.workers",
	"topology.services.*.health.restart",
	"topology.services.*.health.backoff.**",
	"classes.*.stages.*.dependency",
	"arms.*.policy.retries.budget.ratio",
	"arms.*.policy.admission.**",
}

// maxActions bounds the actions of a scenario, and maxActionArms the actions times the
// arms (each action is applied to every arm it names, as a scenario of its own).
const (
	maxActions    = 200
	maxActionArms = 1000
)

// actionPathAllowed reports whether an action may set path.
func actionPathAllowed(path string) bool {
	steps := strings.Split(path, ".")
	for _, pat := range ActionPaths {
		ps := strings.Split(pat, ".")
		deep := ps[len(ps)-1] == "**"
		if deep {
			ps = ps[:len(ps)-1]
		}
		if len(steps) < len(ps) || !deep && len(steps) != len(ps) {
			continue
		}
		ok := true
		for i, p := range ps {
			if p != "*" && p != steps[i] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// rateLimits checks the entries' rate limits.
func (v *validator) rateLimits() {
	for i, e := range v.s.Topology.Entries {
		if r := e.RateLimit; r != nil {
			p := fmt.Sprintf("$.topology.entries[%d].rate_limit", i)
			switch {
			case *r < 0:
				v.addf(p, "rate_limit is %s; expected zero (a pause) or more, e.g. 100/s", *r)
			case *r > 10_000_000:
				v.addf(p, "rate_limit %s is more than 10,000,000/s; expected a rate one machine can replay", *r)
			}
		}
	}
}

// actionsDeclared checks what can be checked of the actions without applying them: each
// instant inside the run, the arms named, and the paths an action may set.
func (v *validator) actionsDeclared() {
	if len(v.s.Actions) > maxActions {
		v.addf("$.actions", "%d actions; expected at most %d", len(v.s.Actions), maxActions)
		return
	}
	if n := len(v.s.Actions) * len(v.s.Arms); n > maxActionArms {
		v.addf("$.actions", "%d actions in %d arms make %d arm scenarios to derive; expected at most %d", len(v.s.Actions), len(v.s.Arms), n, maxActionArms)
		return
	}
	arms := map[string]bool{}
	for _, a := range v.s.Arms {
		arms[a.Name] = true
	}
	for i, act := range v.s.Actions {
		p := fmt.Sprintf("$.actions[%d]", i)
		switch {
		case act.At < 0:
			v.addf(p+".at", "at is %s; expected zero or more", act.At)
		case v.outside(act.At):
			v.addf(p+".at", "action at %s is at or after the end of the run (%s); expected an instant inside the run", act.At, v.s.Clock.Duration)
		}
		seen := map[string]bool{}
		for j, name := range act.Arms {
			ap := fmt.Sprintf("%s.arms[%d]", p, j)
			switch {
			case !arms[name]:
				v.addf(ap, "arm %q is not declared; expected one of %s", name, quoteList(armNames(v.s)))
			case seen[name]:
				v.addf(ap, "arm %q is named twice; expected each arm once", name)
			}
			seen[name] = true
		}
		if len(act.Set) == 0 {
			v.addf(p+".set", "the action sets nothing; expected at least one PATH: VALUE, e.g. {topology.services.checkout.instances: 40}")
			continue
		}
		v.overlapping(p+".set", act.Set)
		for _, q := range placedSets(p+".set", act.Set) {
			if !actionPathAllowed(q.o.Path) {
				v.addf(q.at, "an action cannot change %s during the run; expected one of %s", q.o.Path, strings.Join(ActionPaths, ", "))
				continue
			}
			steps := strings.Split(q.o.Path, ".")
			if steps[0] != "arms" {
				continue
			}
			name := steps[1]
			if !arms[name] && indexName(v.s, name) != "" {
				name = indexName(v.s, name)
			}
			if arms[name] && !act.appliesTo(name) {
				v.addf(q.at, "the action sets arm %q's policy, but applies to %s only; expected the arm among the action's arms", name, quoteList(act.Arms))
			}
		}
	}
	for i, a := range v.s.Arms {
		if len(a.Set) > 0 {
			v.overlapping(fmt.Sprintf("$.arms[%d].set", i), a.Set)
		}
	}
}

// indexName is the name of the arm an index step ("0") stands for, or "".
func indexName(s *Scenario, step string) string {
	k, err := strconv.Atoi(step)
	if err != nil || k < 0 || k >= len(s.Arms) {
		return ""
	}
	return s.Arms[k].Name
}

func armNames(s *Scenario) []string {
	var out []string
	for _, a := range s.Arms {
		out = append(out, a.Name)
	}
	return out
}

// actionOrder is the order in which actions apply: by instant, in the file's order at one
// instant.
func (s *Scenario) actionOrder() []int {
	order := make([]int, len(s.Actions))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch x, y := s.Actions[a].At, s.Actions[b].At; {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	return order
}

// derived checks the arms' sets and the actions by applying them, arm by arm, as the
// replay will: each must leave a valid scenario. It runs on a scenario valid without them.
func (v *validator) derived() {
	if len(v.s.Actions) == 0 && !slices.ContainsFunc(v.s.Arms, func(a Arm) bool { return len(a.Set) > 0 }) {
		return
	}
	plain := v.s.plain()
	v.armSets(plain)
	if len(v.errs) > 0 {
		return
	}
	order := v.s.actionOrder()
	reported := map[int]bool{} // an action's problem is reported once, for its first arm
	for _, a := range v.s.Arms {
		before := a.Set.Overrides()
		within := ""
		if len(v.s.Arms) > 1 {
			within = a.Name
		}
		for _, k := range order {
			act := v.s.Actions[k]
			if !act.appliesTo(a.Name) || reported[k] {
				continue
			}
			these := placedSets(fmt.Sprintf("$.actions[%d].set", k), act.Set)
			if _, errs := derive(plain, before, these, within); errs != nil {
				v.errs = append(v.errs, errs...)
				reported[k] = true
				break // later actions of this arm build on this one
			}
			before = append(before, act.Set.Overrides()...)
		}
	}
}
