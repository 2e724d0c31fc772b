package loadgen

import (
	"math/rand/v2"
	"time"

	"github.com/goodput-lab/goodput/internal/floatdur"
	"github.com/goodput-lab/goodput/internal/ramp"
	"github.com/goodput-lab/goodput/scenario"
	"github.com/goodput-lab/goodput/sim"
)

// A plan's open-loop sources, by the replay's rules (package model, schedule.go and
// arrival.go): load.schedule's, whose requests draw their class by the shares, and each
// class's own schedule. A source's rate steps are piecewise linear (a step with ramp_to
// moves linearly to that rate by the next rate step, the end of the run for the last);
// its burst steps send their arrivals at their instant, or evenly over within, beside the
// rate.

// burstStep is one burst step: n arrivals at at, or the j-th at at + within·j/n.
type burstStep struct {
	at, within time.Duration
	n          int
}

// source is one open-loop source and where the plan is in it.
type source struct {
	steps  ramp.Schedule // its rate steps, compiled as the replay's
	bursts []burstStep
	class  int // the class of its requests; -1: drawn by the shares

	arrivals *rand.Rand // the gaps between arrivals
	classes  *rand.Rand // the classes its rate arrivals draw by the shares (class -1)
	bclasses *rand.Rand // the classes its bursts draw by the shares (class -1, with bursts)

	step    int           // the next rate step to come into force
	pending time.Duration // the next rate arrival; -1 for none until the next step
	sent    []int         // arrivals each burst has sent
}

// newSource compiles steps for a run of length d, with the streams the replay's source
// of the same stream name and class draws from.
func newSource(steps []scenario.RateStep, d time.Duration, class int, stream string, st sim.Streams) source {
	s := source{steps: ramp.Compile(steps, d), class: class, arrivals: st.Stream(stream), pending: -1, step: 1}
	for _, x := range steps {
		if x.IsBurst() {
			s.bursts = append(s.bursts, burstStep{at: x.At.Std(), within: x.Within.Std(), n: x.Burst})
		}
	}
	s.sent = make([]int, len(s.bursts))
	if class < 0 {
		s.classes = st.Stream("class")
		if len(s.bursts) > 0 {
			s.bclasses = st.Stream("bursts")
		}
	}
	return s
}

// draw sets the pending arrival from t, as the replay's scheduleArrival does: a constant
// rate r draws a gap of Exp(1)/r (Poisson) or 1/r (uniform), a ramp inverts its
// integrated rate at Exp(1) or 1; none when the rate is zero (the next step draws again)
// or the gap ends the run.
func (s *source) draw(t, duration time.Duration, poisson bool) {
	s.pending = -1
	st := s.steps.InForce(t)
	if st == nil {
		return
	}
	var gap float64
	if st.Slope == 0 {
		r := st.Rate
		if r <= 0 {
			return
		}
		if poisson {
			gap = s.arrivals.ExpFloat64() / r
		} else {
			gap = 1 / r
		}
	} else {
		e := 1.0
		if poisson {
			e = s.arrivals.ExpFloat64()
		}
		var ok bool
		if gap, ok = st.Gap(t, e); !ok {
			return
		}
	}
	d := floatdur.Trunc(gap * float64(time.Second))
	if d >= duration-t { // not t+d, which overflows for a saturated gap
		return
	}
	s.pending = t + d
}

// nextChange is the instant of the next rate step that changes the rate inside the run,
// -1 for none; it skips the steps at 0 or after the run.
func (s *source) nextChange(duration time.Duration) time.Duration {
	for s.step < len(s.steps) {
		if at := s.steps[s.step].At; at > 0 && at < duration {
			return at
		}
		s.step++
	}
	return -1
}

// nextBurst is the burst whose next arrival comes first, and when; -1 for none left.
// Bursts at one instant go in the schedule's order.
func (s *source) nextBurst(duration time.Duration) (int, time.Duration) {
	b, at := -1, time.Duration(-1)
	for i, bp := range s.bursts {
		j := s.sent[i]
		if j >= bp.n {
			continue
		}
		t := bp.at
		if bp.within > 0 {
			t += floatdur.Trunc(float64(bp.within) * float64(j) / float64(bp.n))
		}
		if t >= duration {
			s.sent[i] = bp.n // after the run: never sent
			continue
		}
		if b < 0 || t < at {
			b, at = i, t
		}
	}
	return b, at
}

// The kinds of a source's next event, in the order they go at one instant: a rate step
// first (it cancels the arrival due then, as in the replay), then bursts, then the rate's
// arrival.
const (
	evChange = iota
	evBurst
	evArrival
	evNone
)

// next is the source's next event: its kind, instant and, for a burst, which.
func (s *source) next(duration time.Duration) (kind int, at time.Duration, burst int) {
	kind, at = evNone, -1
	if c := s.nextChange(duration); c >= 0 {
		kind, at = evChange, c
	}
	if b, t := s.nextBurst(duration); b >= 0 && (at < 0 || t < at) {
		kind, at, burst = evBurst, t, b
	}
	if s.pending >= 0 && (at < 0 || s.pending < at) {
		kind, at = evArrival, s.pending
	}
	return kind, at, burst
}
