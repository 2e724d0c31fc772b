package model

import (
	"time"

	"github.com/goodput-lab/goodput/internal/ramp"
	"github.com/goodput-lab/goodput/scenario"
)

// Rate schedules, compiled: the open-loop sources of arrivals (load.schedule's, whose
// requests draw their class by the shares, and each class's own), each a piecewise-linear
// rate with bursts beside it.

// rateStep is one rate step of a schedule: rate at at, changing by slope per second until
// the next step (slope 0: constant).
type rateStep struct {
	at    time.Duration
	rate  float64 // per second
	slope float64 // per second, per second
}

// burstPlan is one burst step: n arrivals at at, or evenly spread over within.
type burstPlan struct {
	at, within time.Duration
	n          int
}

// sourcePlan is one open-loop source of arrivals.
type sourcePlan struct {
	steps  []rateStep
	bursts []burstPlan
	class  int    // the class of its requests; -1: drawn by the shares
	stream string // the name of its arrival stream (sim.Streams)
}

// compileSchedule compiles the steps of a schedule for a run of length d.
func compileSchedule(steps []scenario.RateStep, d time.Duration, class int, stream string) sourcePlan {
	sp := sourcePlan{class: class, stream: stream}
	var ramps []*scenario.Rate // each rate step's ramp_to
	for _, st := range steps {
		if st.IsBurst() {
			sp.bursts = append(sp.bursts, burstPlan{at: st.At.Std(), within: st.Within.Std(), n: st.Burst})
			continue
		}
		sp.steps = append(sp.steps, rateStep{at: st.At.Std(), rate: st.Rate.PerSecond()})
		ramps = append(ramps, st.RampTo)
	}
	for i, to := range ramps {
		if to == nil {
			continue
		}
		end := d
		if i+1 < len(sp.steps) {
			end = sp.steps[i+1].at
		}
		if span := (end - sp.steps[i].at).Seconds(); span > 0 {
			sp.steps[i].slope = (to.PerSecond() - sp.steps[i].rate) / span
		}
	}
	return sp
}

// step is the rate step in force at t, nil before the first.
func (sp *sourcePlan) step(t time.Duration) *rateStep {
	var cur *rateStep
	for i := range sp.steps {
		if sp.steps[i].at > t {
			break
		}
		cur = &sp.steps[i]
	}
	return cur
}

// rateAt is the source's scheduled rate at t (before shifts).
func (sp *sourcePlan) rateAt(t time.Duration) float64 {
	st := sp.step(t)
	if st == nil {
		return 0
	}
	if st.slope == 0 {
		return st.rate
	}
	return max(0, st.rate+st.slope*(t-st.at).Seconds())
}

// rateAt is load.schedule's logical rate at t (before shifts).
func (p *plan) rateAt(t time.Duration) float64 { return p.srcs[0].rateAt(t) }

// rampGap is the time from t until the rate of st (times shift) has integrated to e: the
// inversion of the integrated rate, exact for a linear rate; false if it never does
// within the ramp (a falling rate that reaches zero first). The arithmetic is
// internal/ramp's, which the live generator's plan uses too.
func rampGap(st *rateStep, t time.Duration, shift, e float64) (float64, bool) {
	return ramp.Gap(ramp.Rate(st.rate, st.slope, (t-st.at).Seconds()), st.slope, e/shift)
}

// mean is the expected arrivals of the source from the schedule over [from, to), before
// shifts: the integral of its rate (bursts not included).
func (sp *sourcePlan) mean(from, to time.Duration) float64 {
	if to <= from {
		return 0
	}
	return (sp.rateAt(from) + sp.rateAt(to-1)) / 2 * (to - from).Seconds()
}
