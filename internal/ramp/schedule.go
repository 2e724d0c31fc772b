package ramp

import (
	"time"

	"github.com/goodput-lab/goodput/scenario"
)

// Step is one compiled rate step of a schedule: Rate at At, changing by Slope per second
// until the next step (Slope 0: constant).
type Step struct {
	At    time.Duration
	Rate  float64 // per second
	Slope float64 // per second, per second
}

// Schedule is a schedule's rate steps compiled into a piecewise-linear rate, in the
// schedule's order: a step with ramp_to moves linearly to that rate by the next rate step
// (the end of the run for the last). Its burst steps are not in it; the replay and the
// live generator place them beside the rate.
type Schedule []Step

// Compile compiles the rate steps of steps (bursts skipped) for a run of length d.
func Compile(steps []scenario.RateStep, d time.Duration) Schedule {
	var s Schedule
	var ramps []*scenario.Rate // each rate step's ramp_to
	for _, st := range steps {
		if st.IsBurst() {
			continue
		}
		s = append(s, Step{At: st.At.Std(), Rate: st.Rate.PerSecond()})
		ramps = append(ramps, st.RampTo)
	}
	for i, to := range ramps {
		if to == nil {
			continue
		}
		end := d
		if i+1 < len(s) {
			end = s[i+1].At
		}
		if span := (end - s[i].At).Seconds(); span > 0 {
			s[i].Slope = (to.PerSecond() - s[i].Rate) / span
		}
	}
	return s
}

// InForce is the step in force at t (the last that began by t), nil before the first.
func (s Schedule) InForce(t time.Duration) *Step {
	var cur *Step
	for i := range s {
		if s[i].At > t {
			break
		}
		cur = &s[i]
	}
	return cur
}

// RateAt is the scheduled rate at t, 0 before the first step.
func (s Schedule) RateAt(t time.Duration) float64 {
	st := s.InForce(t)
	if st == nil {
		return 0
	}
	return st.RateAt(t)
}

// RateAt is the step's rate at t (an instant at or after it begins), never below zero.
func (st *Step) RateAt(t time.Duration) float64 {
	if st.Slope == 0 {
		return st.Rate
	}
	return Rate(st.Rate, st.Slope, (t - st.At).Seconds())
}

// Gap is the time, in seconds, from t until the step's rate has integrated to e (Gap of
// its rate at t); false when it never does (a falling rate that reaches zero first).
func (st *Step) Gap(t time.Duration, e float64) (float64, bool) {
	return Gap(Rate(st.Rate, st.Slope, (t-st.At).Seconds()), st.Slope, e)
}
