package scenario

import (
	"fmt"
	"slices"
)

// Rate schedules: load.schedule and a class's own schedule share one form, rate steps
// (constant or ramping) and burst steps, checked here.

// maxBurst is the most arrivals one burst step may send.
const maxBurst = 1_000_000

// IsBurst reports whether st is a burst step (it sets burst or within) rather than a rate
// step.
func (st RateStep) IsBurst() bool { return st.Burst != 0 || st.Within != 0 }

// schedule checks the steps of the schedule at path p and reports whether it offers any
// load (some rate, ramp or burst above zero).
func (v *validator) schedule(p string, steps []RateStep) bool {
	offers := false
	prev := -1 // the previous rate step
	for i, st := range steps {
		sp := fmt.Sprintf("%s[%d]", p, i)
		switch {
		case st.At < 0:
			v.addf(sp+".at", "at is %s; expected zero or more", st.At)
		case i > 0 && st.At < steps[i-1].At:
			v.addf(sp+".at", "step at %s does not come after the previous step (%s); expected steps in increasing time", st.At, steps[i-1].At)
		}
		if st.At > 0 && v.outside(st.At) {
			v.addf(sp+".at", "step at %s is at or after the end of the run (%s); expected a time inside the run", st.At, v.s.Clock.Duration)
		}
		if st.IsBurst() {
			offers = v.burst(sp, st) || offers
			continue
		}
		switch {
		case prev < 0 && st.At != 0:
			v.addf(sp+".at", "first step is at %s; expected the schedule to start at 0s", st.At)
		case prev >= 0 && st.At <= steps[prev].At:
			v.addf(sp+".at", "step at %s does not come after the previous rate step (%s); expected rate steps in increasing time (only a burst may share an instant)", st.At, steps[prev].At)
		}
		prev = i
		v.rate(sp+".rate", st.Rate)
		offers = offers || st.Rate > 0
		if st.RampTo != nil {
			v.rate(sp+".ramp_to", *st.RampTo)
			offers = offers || *st.RampTo > 0
			if *st.RampTo == st.Rate {
				v.addf(sp+".ramp_to", "ramp_to %s is the step's rate; expected a different rate to ramp to (or no ramp_to for a constant rate)", *st.RampTo)
			}
		}
	}
	return offers
}

// rate checks one rate of a schedule.
func (v *validator) rate(p string, r Rate) {
	switch {
	case r < 0:
		v.addf(p, "rate %s is negative; expected 0/s or more", r)
	case r > 10_000_000:
		v.addf(p, "rate %s is more than 10,000,000/s; expected a rate one machine can replay", r)
	case r > 0 && v.end > 0 && r.In(v.end) < 1:
		v.addf(p, "rate %s offers less than one arrival in the %s run; expected at least one arrival per run (%s or more), or 0/s for a pause", r, v.s.Clock.Duration, v.minRate())
	}
}

// burst checks a burst step and reports whether it sends any arrivals.
func (v *validator) burst(p string, st RateStep) bool {
	if st.Rate != 0 || st.RampTo != nil {
		v.addf(p+".rate", "a burst step does not change the rate; expected rate and ramp_to on a step of their own")
	}
	switch {
	case st.Burst <= 0:
		v.addf(p+".burst", "burst is %d; expected a positive number of arrivals, e.g. {at: 5m, burst: 2000}", st.Burst)
	case st.Burst > maxBurst:
		v.addf(p+".burst", "burst is %d; expected at most %d arrivals in one burst", st.Burst, maxBurst)
	}
	switch {
	case st.Within < 0:
		v.addf(p+".within", "within is %s; expected zero (all at once) or more", st.Within)
	case st.Within > 0 && v.end > 0 && st.At >= 0 && st.At.Std()+st.Within.Std() > v.end:
		v.addf(p+".within", "burst from %s within %s ends after the run (%s); expected it to end inside the run", st.At, st.Within, v.s.Clock.Duration)
	}
	return st.Burst > 0
}

// classSchedule checks class c's own schedule; p is the class's path.
func (v *validator) classSchedule(p string, c Class) {
	if c.Share != 0 {
		v.addf(p+".share", "class %q has a schedule of its own, and shares divide only load.schedule; expected no share", c.Name)
	}
	if !v.schedule(p+".schedule", c.Schedule) {
		v.addf(p+".schedule", "every step has rate 0/s; expected some offered load")
	}
}

// truncateSchedule is steps for a run cut at end (see [Scenario.Truncate]): the steps
// from end on dropped (the first kept), a burst spread past end cut at it.
func truncateSchedule(steps []RateStep, end Duration) []RateStep {
	var out []RateStep
	for _, st := range steps {
		if st.At != 0 && st.At >= end {
			continue
		}
		if st.Within > end-st.At {
			st.Within = end - st.At
		}
		out = append(out, st)
	}
	return out
}

// truncateClassSchedules is cs with each class's own schedule cut at end; cs itself
// when no class has one.
func truncateClassSchedules(cs []Class, end Duration) []Class {
	if !slices.ContainsFunc(cs, func(c Class) bool { return len(c.Schedule) > 0 }) {
		return cs
	}
	out := slices.Clone(cs)
	for i := range out {
		if len(out[i].Schedule) > 0 {
			out[i].Schedule = truncateSchedule(out[i].Schedule, end)
		}
	}
	return out
}
