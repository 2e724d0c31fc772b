package ramp

import (
	"math"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/scenario"
)

func rate(r float64) *scenario.Rate { x := scenario.Rate(r); return &x }

func sec(s float64) scenario.Duration { return scenario.Duration(s * float64(time.Second)) }

// A compiled schedule, at fixed instants: bursts are left out, a ramp_to reaches its rate
// by the next rate step (the end of the run for the last), a step without one holds, and
// there is no rate before the first step.
func TestScheduleAtFixedInstants(t *testing.T) {
	s := Compile([]scenario.RateStep{
		{At: sec(1), Rate: 100, RampTo: rate(300)}, // 100 → 300 over [1s, 3s): slope 100
		{At: sec(2), Burst: 50},                    // not a rate step: the ramp runs on
		{At: sec(3), Rate: 50},                     // holds
		{At: sec(6), Rate: 200, RampTo: rate(0)},   // 200 → 0 over [6s, 10s): slope -50
	}, 10*time.Second)
	if len(s) != 3 {
		t.Fatalf("compiled %d rate steps; want 3 (the burst left out): %+v", len(s), s)
	}
	for i, want := range []float64{100, 0, -50} {
		if s[i].Slope != want {
			t.Errorf("step %d slope %v; want %v", i, s[i].Slope, want)
		}
	}
	for _, tc := range []struct {
		t    float64 // seconds
		step int     // -1: none in force
		rate float64
	}{
		{0, -1, 0},
		{0.999, -1, 0},
		{1, 0, 100},
		{2, 0, 200},
		{2.5, 0, 250},
		{3, 1, 50},
		{5.9, 1, 50},
		{6, 2, 200},
		{8, 2, 100},
		{10, 2, 0},
		{12, 2, 0}, // past the ramp's end: not below zero
	} {
		at := time.Duration(tc.t * float64(time.Second))
		st := s.InForce(at)
		switch {
		case tc.step < 0 && st != nil:
			t.Errorf("InForce(%v) = %+v; want none", at, *st)
		case tc.step >= 0 && st != &s[tc.step]:
			t.Errorf("InForce(%v) = %v; want step %d", at, st, tc.step)
		}
		if got := s.RateAt(at); math.Abs(got-tc.rate) > 1e-9 {
			t.Errorf("RateAt(%v) = %v; want %v", at, got, tc.rate)
		}
	}
}

// The last rate step's ramp ends with the run; a ramp over no time (a step at the end of
// the run, or two at one instant) holds its rate.
func TestCompileRampSpan(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []scenario.RateStep
		d     time.Duration
		slope []float64
	}{
		{"last to the end", []scenario.RateStep{{At: sec(0), Rate: 0, RampTo: rate(40)}}, 4 * time.Second, []float64{10}},
		{"at the end", []scenario.RateStep{{At: sec(4), Rate: 5, RampTo: rate(40)}}, 4 * time.Second, []float64{0}},
		{"same instant", []scenario.RateStep{{At: sec(1), Rate: 5, RampTo: rate(40)}, {At: sec(1), Rate: 7}}, 4 * time.Second, []float64{0, 0}},
		{"none", nil, time.Second, nil},
	} {
		s := Compile(tc.steps, tc.d)
		if len(s) != len(tc.slope) {
			t.Errorf("%s: %d steps; want %d", tc.name, len(s), len(tc.slope))
			continue
		}
		for i, want := range tc.slope {
			if s[i].Slope != want {
				t.Errorf("%s: step %d slope %v; want %v", tc.name, i, s[i].Slope, want)
			}
		}
	}
	if st := Compile(nil, time.Second).InForce(0); st != nil {
		t.Errorf("an empty schedule has step %+v in force", *st)
	}
}

// A step's gap is Gap of its rate at t: from 2s into a step of 5/s rising by 3/s², the rate
// is 11/s, and 11g + 1.5g² = 1.
func TestStepGap(t *testing.T) {
	st := Step{At: time.Second, Rate: 5, Slope: 3}
	g, ok := st.Gap(3*time.Second, 1)
	if want := (math.Sqrt(121+6) - 11) / 3; !ok || math.Abs(g-want) > 1e-12 {
		t.Errorf("Gap = %v, %v; want %v", g, ok, want)
	}
	if _, ok := (&Step{Rate: 1, Slope: -1}).Gap(0, 1); ok {
		t.Error("a rate that falls to zero after ½ arrival has a gap to 1")
	}
}
