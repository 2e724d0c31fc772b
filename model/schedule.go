package model

import (
	"time"

	"github.com/goodput-lab/goodput/internal/ramp"
	"github.com/goodput-lab/goodput/scenario"
)

// Rate schedules, compiled: the open-loop sources of arrivals (load.schedule's, whose
// requests draw their class by the shares, and each class's own), each a piecewise-linear
// rate with bursts beside it.

// burstPlan is one burst step: n arrivals at at, or evenly spread over within.
type burstPlan struct {
	at, within time.Duration
	n          int
}

// sourcePlan is one open-loop source of arrivals.
type sourcePlan struct {
	steps  ramp.Schedule // its rate steps
	bursts []burstPlan
	class  int    // the class of its requests; -1: drawn by the shares
	stream string // the name of its arrival stream (sim.Streams)
}

// compileSchedule compiles the steps of a schedule for a run of length d: its rate steps
// into internal/ramp's Schedule (which the live generator compiles alike), its bursts
// beside them.
func compileSchedule(steps []scenario.RateStep, d time.Duration, class int, stream string) sourcePlan {
	sp := sourcePlan{steps: ramp.Compile(steps, d), class: class, stream: stream}
	for _, st := range steps {
		if st.IsBurst() {
			sp.bursts = append(sp.bursts, burstPlan{at: st.At.Std(), within: st.Within.Std(), n: st.Burst})
		}
	}
	return sp
}

// step is the rate step in force at t, nil before the first.
func (sp *sourcePlan) step(t time.Duration) *ramp.Step { return sp.steps.InForce(t) }

// rateAt is the source's scheduled rate at t (before shifts).
func (sp *sourcePlan) rateAt(t time.Duration) float64 { return sp.steps.RateAt(t) }

// rateAt is load.schedule's logical rate at t (before shifts).
func (p *plan) rateAt(t time.Duration) float64 { return p.srcs[0].rateAt(t) }

// rampGap is the time from t until the rate of st (times shift) has integrated to e: the
// inversion of the integrated rate, exact for a linear rate; false if it never does
// within the ramp (a falling rate that reaches zero first). The arithmetic is
// internal/ramp's, which the live generator's plan uses too.
func rampGap(st *ramp.Step, t time.Duration, shift, e float64) (float64, bool) {
	return st.Gap(t, e/shift)
}

// mean is the expected arrivals of the source from the schedule over [from, to), before
// shifts: the integral of its rate (bursts not included).
func (sp *sourcePlan) mean(from, to time.Duration) float64 {
	if to <= from {
		return 0
	}
	return (sp.rateAt(from) + sp.rateAt(to-1)) / 2 * (to - from).Seconds()
}
