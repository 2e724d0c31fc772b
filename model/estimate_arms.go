package model

import (
	"slices"

	"github.com/goodput-lab/goodput/scenario"
)

// estimateArms costs every arm of sc (whose plan is p) on the plans it replays, as armOf
// builds them: an arm without sets or actions on p; one with them on the plan of its
// scenario from the start and on each of its actions' plans, every plan with the arm's
// longest drain. An arm's figure is the most of its plans' (a request runs under one
// plan or, for work in progress at an action, keeps what it started with), plus the
// events its actions add: one each, and a start and a warm-up for every instance an
// action adds. The cost's per-arm figures are then the most over the arms, and Memory
// their sum.
func estimateArms(p *plan, sc *scenario.Scenario) (Cost, error) {
	var plain []scenario.Arm // the arms that replay p itself
	var own []Cost
	for _, ad := range sc.Arms {
		acts := slices.ContainsFunc(sc.Actions, func(act scenario.Action) bool {
			return len(act.Arms) == 0 || slices.Contains(act.Arms, ad.Name)
		})
		if len(ad.Set) == 0 && !acts {
			plain = append(plain, ad)
			continue
		}
		c, err := estimateOwnArm(sc, ad.Name)
		if err != nil {
			return Cost{}, err
		}
		own = append(own, c)
	}
	if len(own) == 0 {
		return estimatePlan(p, []*plan{p}, sc.Arms), nil
	}
	var c Cost
	if len(plain) > 0 {
		c = estimatePlan(p, []*plan{p}, plain)
	}
	for _, o := range own {
		c = c.and(o)
	}
	c.Arms = len(sc.Arms)
	return c, nil
}

// estimateOwnArm costs arm name of sc on every plan it replays (see estimateArms).
func estimateOwnArm(sc *scenario.Scenario, name string) (Cost, error) {
	in, err := sc.Inputs(name)
	if err != nil {
		return Cost{}, err
	}
	scs := []*scenario.Scenario{in.Scenario}
	for _, act := range in.Actions {
		scs = append(scs, act.Scenario)
	}
	plans := make([]*plan, len(scs))
	for i, s := range scs {
		if plans[i], err = compile(s); err != nil {
			return Cost{}, err
		}
	}
	if sc.Clock.Drain == 0 { // as armOf: the longest drain any of the arm's plans needs
		var drain = plans[0].drain
		for _, q := range plans {
			drain = max(drain, q.drain)
		}
		for _, q := range plans {
			q.drain = drain
		}
	}
	var c Cost
	for i, q := range plans {
		arms := scs[i].Arms
		ad := arms[slices.IndexFunc(arms, func(a scenario.Arm) bool { return a.Name == name })]
		k := estimatePlan(q, plans, []scenario.Arm{ad})
		if i == 0 {
			c = k
			continue
		}
		c = c.most(k)
		// The action itself, and a start and a warm-up for each instance it adds.
		added := 0
		for s := range q.services {
			if s < len(plans[i-1].services) {
				added += max(0, q.services[s].instances-plans[i-1].services[s].instances)
			}
		}
		extra := int64(1 + 2*added)
		c.Events = satAdd(c.Events, extra)
		c.EventsMax = satAdd(c.EventsMax, extra)
	}
	return c, nil
}

// most is the most of each figure of one arm's costs on two plans (Memory too: the arm
// holds one plan's requests or the other's at a time, and the larger fixed costs).
func (c Cost) most(o Cost) Cost {
	c.Requests = max(c.Requests, o.Requests)
	for i := range min(len(c.ByClass), len(o.ByClass)) {
		c.ByClass[i] = max(c.ByClass[i], o.ByClass[i])
	}
	c.Attempts = max(c.Attempts, o.Attempts)
	c.Events = max(c.Events, o.Events)
	c.EventsMax = max(c.EventsMax, o.EventsMax)
	c.PeakRate = max(c.PeakRate, o.PeakRate)
	c.Lifetime = max(c.Lifetime, o.Lifetime)
	c.InFlight = max(c.InFlight, o.InFlight)
	c.Memory = max(c.Memory, o.Memory)
	return c
}

// and is the cost of the arms of c and those of o replayed together: each per-arm figure
// the most of the two, Memory and Arms their sums.
func (c Cost) and(o Cost) Cost {
	if c.Arms == 0 {
		o.ByClass = slices.Clone(o.ByClass)
		return o
	}
	mem, arms := satAdd(c.Memory, o.Memory), c.Arms+o.Arms
	c = c.most(o)
	c.Memory, c.Arms = mem, arms
	return c
}

// satAdd is a + b for counts of zero or more, saturating.
func satAdd(a, b int64) int64 {
	if s := a + b; s >= a {
		return s
	}
	return 1<<63 - 1
}
