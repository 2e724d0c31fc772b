package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/report"
	"github.com/goodput-lab/goodput/scenario"
)

// parseArmList is the value of --fail-on-objectives: ARM[,ARM…], added to arms.
func parseArmList(v string, arms []string) ([]string, error) {
	for _, a := range strings.Split(v, ",") {
		a = strings.TrimSpace(a)
		if a == "" {
			return nil, fmt.Errorf("%q: expected ARM[,ARM…], the names of arms of the scenario", v)
		}
		if !slices.Contains(arms, a) {
			arms = append(arms, a)
		}
	}
	return arms, nil
}

// checkGateArms checks, before anything runs, that every arm --fail-on-objectives names is
// an arm of sc and that sc declares objectives to gate on.
func checkGateArms(failOn []string, sc *scenario.Scenario) error {
	if len(failOn) == 0 {
		return nil
	}
	var names []string
	for _, a := range sc.Arms {
		names = append(names, a.Name)
	}
	for _, a := range failOn {
		if !slices.Contains(names, a) {
			return fmt.Errorf("%w: replay: --fail-on-objectives: %s has no arm %q; its arms are %s", errUsage, sc.Name, a, strings.Join(names, ", "))
		}
	}
	if len(sc.Objectives) == 0 {
		return fmt.Errorf("%w: replay: --fail-on-objectives: %s declares no objectives to gate on", errUsage, sc.Name)
	}
	return nil
}

// outcomes gathers what --fail-on-objectives and --junit report: every arm's objectives and
// invariants in every trial of a replay or a sweep. Its methods are safe for concurrent use.
type outcomes struct {
	scenario string
	sweep    bool                       // a sweep: results are told trial by trial
	labels   []string                   // each variant's --vary values, "" without --vary
	variant  map[*scenario.Scenario]int // a variant's scenario to its index

	mu     sync.Mutex
	trials []trialOutcome
}

// trialOutcome is one trial: a seed of one variant.
type trialOutcome struct {
	variant int
	seed    uint64
	arms    []armOutcome
}

// armOutcome is what the gate and the JUnit report keep of one arm's packet.
type armOutcome struct {
	name       string
	objectives []packet.Objective
	invariants []packet.Invariant
}

// replayOutcomes are the outcomes of one replay: the packet p.
func replayOutcomes(p *packet.Packet) *outcomes {
	o := &outcomes{scenario: p.Scenario, labels: []string{""}}
	o.add(0, p.Seed, p)
	return o
}

// sweepOutcomes are the outcomes of a sweep of the scenario name's variants (one, or one per
// combination of the grid's --vary values), gathered by the function record returns.
func sweepOutcomes(name string, variants []variant, grid report.VaryGrid) *outcomes {
	o := &outcomes{scenario: name, sweep: true, variant: map[*scenario.Scenario]int{}}
	for i, v := range variants {
		o.variant[v.sc] = i
		label := ""
		if len(grid.Paths) > 0 {
			label = grid.Label(i)
		}
		o.labels = append(o.labels, label)
	}
	return o
}

func (o *outcomes) add(variant int, seed uint64, p *packet.Packet) {
	t := trialOutcome{variant: variant, seed: seed}
	for _, a := range p.Arms {
		t.arms = append(t.arms, armOutcome{name: a.Name, objectives: a.Objectives, invariants: a.Invariants})
	}
	o.mu.Lock()
	o.trials = append(o.trials, t)
	o.mu.Unlock()
}

// record wraps run so that every packet it makes is added to the outcomes.
func (o *outcomes) record(run runScenario) runScenario {
	return func(ctx context.Context, sc *scenario.Scenario, seed uint64, progress func(done, total time.Duration)) (*packet.Packet, error) {
		p, err := run(ctx, sc, seed, progress)
		if err == nil && p != nil {
			o.add(o.variant[sc], seed, p)
		}
		return p, err
	}
}

// suite is one arm of one variant: its objectives and invariants over the trials.
type suite struct {
	variant int
	arm     string
	name    string // the arm, and the variant's --vary values if any
	cases   []testCase
}

// testCase is one objective or invariant of an arm over the trials: the trials it was
// evaluated in and those it failed in.
type testCase struct {
	name      string
	objective bool
	target    string // an objective's bound: "≤ 500 ms"
	metric    string
	trials    int
	failures  []trialFailure
}

// trialFailure is one failed trial of a test case: the objective's value ("value 612.3
// ms") or the invariant's message, and the objective's note.
type trialFailure struct {
	seed       uint64
	text, note string
}

// suites groups the outcomes by variant and arm, in variant order and each variant's arms
// in the scenario's order, the trials in seed order.
func (o *outcomes) suites() []suite {
	o.mu.Lock()
	trials := slices.Clone(o.trials)
	o.mu.Unlock()
	slices.SortFunc(trials, func(a, b trialOutcome) int {
		return cmp.Or(cmp.Compare(a.variant, b.variant), cmp.Compare(a.seed, b.seed))
	})
	var out []suite
	for _, t := range trials {
		for _, a := range t.arms {
			i := slices.IndexFunc(out, func(s suite) bool { return s.variant == t.variant && s.arm == a.name })
			if i < 0 {
				name := a.name
				if l := o.labels[t.variant]; l != "" {
					name += " (" + l + ")"
				}
				out = append(out, suite{variant: t.variant, arm: a.name, name: name})
				i = len(out) - 1
			}
			s := &out[i]
			for _, ob := range a.objectives {
				c := s.testCase(ob.Name, true)
				c.target, c.metric = objectiveTarget(ob), ob.Metric
				c.trials++
				if !ob.Pass {
					c.failures = append(c.failures, trialFailure{seed: t.seed, text: objectiveValue(ob), note: ob.Note})
				}
			}
			for _, inv := range a.invariants {
				c := s.testCase(inv.Name, false)
				c.trials++
				if !inv.Pass {
					c.failures = append(c.failures, trialFailure{seed: t.seed, text: inv.Message})
				}
			}
		}
	}
	return out
}

// testCase returns the suite's test case of that name and kind, added if it is new.
func (s *suite) testCase(name string, objective bool) *testCase {
	for i := range s.cases {
		if s.cases[i].name == name && s.cases[i].objective == objective {
			return &s.cases[i]
		}
	}
	s.cases = append(s.cases, testCase{name: name, objective: objective})
	return &s.cases[len(s.cases)-1]
}

// maxListed is how many failed trials a message names; the JUnit failure's text has all.
const maxListed = 5

// message says how a failed test case failed: an objective's value and target ("value
// 612.3 ms, target ≤ 500 ms"), an invariant's message; in a sweep, in which trials
// ("failed in 2 of 10 trials (seed 4 value 512.3 ms, seed 7 value 530 ms), target ≤ 500 ms").
func (c *testCase) message(sweep bool) string {
	if !sweep {
		f := c.failures[0]
		if c.objective {
			return f.text + ", target " + c.target
		}
		return f.text
	}
	var each []string
	for i, f := range c.failures {
		if i == maxListed {
			each = append(each, fmt.Sprintf("and %d more", len(c.failures)-maxListed))
			break
		}
		if c.objective {
			each = append(each, fmt.Sprintf("seed %d %s", f.seed, f.text))
		} else {
			each = append(each, fmt.Sprintf("seed %d: %s", f.seed, f.text))
		}
	}
	m := fmt.Sprintf("failed in %d of %d trials (%s)", len(c.failures), c.trials, strings.Join(each, ", "))
	if c.objective {
		m += ", target " + c.target
	}
	return m
}

// gate is the result of --fail-on-objectives: nil when every objective of the named arms
// passed (in a sweep: in every trial), else an error wrapping errGate that names each
// failed objective with its value and target.
func (o *outcomes) gate(failOn []string) error {
	if len(failOn) == 0 {
		return nil
	}
	var failed []string
	for _, s := range o.suites() {
		if !slices.Contains(failOn, s.arm) {
			continue
		}
		for _, c := range s.cases {
			if c.objective && len(c.failures) > 0 {
				failed = append(failed, fmt.Sprintf("%s: %s: %s", s.name, c.name, c.message(o.sweep)))
			}
		}
	}
	if len(failed) == 0 {
		return nil
	}
	what := "objective"
	if len(failed) > 1 {
		what = fmt.Sprintf("%d objectives", len(failed))
	}
	return fmt.Errorf("%w: replay: %s failed (--fail-on-objectives %s): %s", errGate, what, strings.Join(failOn, ","), strings.Join(failed, "; "))
}

// objectiveValue is an objective's value in its unit: "value 612.3 ms", "value 0.8945";
// "value at least 900 s" when it is only a lower bound, "no value" when there is none.
func objectiveValue(o packet.Objective) string {
	switch {
	case o.NoData:
		return "no value"
	case o.Censored:
		return "value at least " + inUnit(o.Value, o.Unit)
	}
	return "value " + inUnit(o.Value, o.Unit)
}

// objectiveTarget is an objective's bound: "≤ 500 ms", "≥ 0.9"; an objective with both a
// minimum and a maximum shows its maximum.
func objectiveTarget(o packet.Objective) string {
	switch o.Op {
	case "<=":
		return "≤ " + inUnit(o.Target, o.Unit)
	case ">=":
		return "≥ " + inUnit(o.Target, o.Unit)
	case "in":
		return "within bounds, maximum " + inUnit(o.Target, o.Unit)
	}
	return "none declared"
}

// inUnit writes v as the packet holds it, with the unit: "612.3 ms", "7800/s", "0.9" (a
// ratio), "3" (a count).
func inUnit(v float64, unit string) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	switch unit {
	case "", "x":
		return s
	case "/s":
		return s + "/s"
	}
	return s + " " + unit
}
