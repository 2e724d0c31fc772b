package loadgen

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/model"
	"github.com/goodput-lab/goodput/scenario"
)

// Uniform arrivals on a ramp come each time the integrated rate grows by one, at fixed
// instants: from 0/s ramping to 200/s over 1 s (rate 200·t, integral 100·t²), the n-th at
// √(n/100) s; a burst sends its arrivals at its instant, or the j-th of n at
// at + within·j/n, beside the rate.
func TestPlanRampsAndBursts(t *testing.T) {
	ramp := scenario.Rate(200)
	load := scenario.Traffic{Arrivals: scenario.ArrivalsUniform, Schedule: []scenario.RateStep{
		{At: 0, Rate: 0, RampTo: &ramp},
		{At: scenario.Duration(time.Second), Rate: 0},
		{At: scenario.Duration(1500 * time.Millisecond), Burst: 3},
		{At: scenario.Duration(1600 * time.Millisecond), Burst: 4, Within: scenario.Duration(200 * time.Millisecond)},
	}}
	got := drain(t, mustPlan(t, load, 2*time.Second, oneClass, 1))
	var want []time.Duration
	// The n-th arrival is at √(n/100) s; each gap is computed from the previous arrival,
	// so allow the truncation to whole nanoseconds to add up.
	for n := 1; n <= 100; n++ { // the 100th at 1 s less the truncations, before the step
		want = append(want, time.Duration(float64(time.Second)*math.Sqrt(float64(n)/100)))
	}
	want = append(want, 1500*time.Millisecond, 1500*time.Millisecond, 1500*time.Millisecond,
		1600*time.Millisecond, 1650*time.Millisecond, 1700*time.Millisecond, 1750*time.Millisecond)
	if len(got) != len(want) {
		t.Fatalf("%d arrivals, want %d: %v", len(got), len(want), got)
	}
	for i, r := range got {
		if d := r.At - want[i]; d < -100 || d > 100 || r.ID != int64(i) {
			t.Errorf("arrival %d (ID %d) at %v, want %v", i, r.ID, r.At, want[i])
		}
	}
	// A falling ramp that reaches zero before the next arrival's share sends nothing more.
	down := scenario.Rate(0)
	load = scenario.Traffic{Arrivals: scenario.ArrivalsUniform, Schedule: []scenario.RateStep{{At: 0, Rate: 3, RampTo: &down}}}
	if got := drain(t, mustPlan(t, load, time.Second, oneClass, 1)); len(got) != 1 || !near(got[0].At, time.Duration(float64(time.Second)*(1-math.Sqrt(1.0/3)))) {
		// 3t − 1.5t² is 1 at t = 1 − √(1/3); 1.5 by the end, so no second one.
		t.Errorf("falling ramp: %v", got)
	}
}

// A class with a schedule of its own sends only by it, and the others share load.schedule.
func TestPlanClassSchedule(t *testing.T) {
	cs := []Class{{Name: "a", Share: 1, Deadline: time.Second}, {Name: "own", Deadline: time.Second,
		Schedule: []scenario.RateStep{{At: 0, Rate: 0}, {At: scenario.Duration(500 * time.Millisecond), Burst: 5}}}}
	load := scenario.Traffic{Arrivals: scenario.ArrivalsUniform, Schedule: []scenario.RateStep{{At: 0, Rate: 10}}}
	var own []time.Duration
	n := 0
	for _, r := range drain(t, mustPlan(t, load, time.Second, cs, 1)) {
		if r.Class == 1 {
			own = append(own, r.At)
		} else {
			n++
		}
	}
	if n != 9 || !slices.Equal(own, []time.Duration{5e8, 5e8, 5e8, 5e8, 5e8}) {
		t.Errorf("load.schedule sent %d (want 9), the class's own %v (want 5 at 500ms)", n, own)
	}
}

// TestPlanShapesAreTheReplays checks that a scenario with ramps, bursts and a class's own
// schedule is offered by the plan as by the replay: the same arrivals each second and the
// same count of each class.
func TestPlanShapesAreTheReplays(t *testing.T) {
	sc, err := scenario.Load("testdata/shapes.scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ScenarioPlan(sc, sc.Seed)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := model.Run(context.Background(), sc, model.Options{Seed: sc.Seed})
	if err != nil {
		t.Fatal(err)
	}
	arm := pk.Arms[0]
	perSecond := make([]int64, len(arm.Series))
	perClass := make([]int64, len(arm.Classes))
	for _, r := range drain(t, p) {
		perSecond[int(r.At/time.Second)]++
		perClass[r.Class]++
	}
	for i, row := range arm.Series {
		if perSecond[i] != row.Offered {
			t.Errorf("second %d: plan offers %d, the replay %d", i, perSecond[i], row.Offered)
		}
	}
	for i, c := range arm.Classes {
		if perClass[i] != c.Offered {
			t.Errorf("class %s: plan offers %d, the replay %d", c.Name, perClass[i], c.Offered)
		}
	}
	if perClass[2] == 0 || arm.Totals.Offered < 5000 {
		t.Errorf("the shapes offer too little to test: %v of %d", perClass, arm.Totals.Offered)
	}
}

func near(a, b time.Duration) bool { return a-b < 100 && b-a < 100 }

// An attack sends a ramp and a burst as its plan schedules them: every request the plan
// offers (the ramp's and the burst's 40 at 500 ms) is sent and answered.
func TestAttackRampAndBurst(t *testing.T) {
	tg := newTarget(t)
	up := scenario.Rate(100)
	load := scenario.Traffic{Arrivals: scenario.ArrivalsUniform, Schedule: []scenario.RateStep{
		{At: 0, Rate: 20, RampTo: &up},
		{At: scenario.Duration(500 * time.Millisecond), Burst: 40},
	}}
	cs := []Class{{Name: "c", Share: 1, Deadline: 5 * time.Second, Path: "/ok"}}
	want := drain(t, mustPlan(t, load, time.Second, cs, 1))
	res := attack(t, tg.URL, load, time.Second, cs, Options{MaxInFlight: 64})
	if tot := res.Total; tot.Offered != int64(len(want)) || tot.Sent != tot.Offered || tot.Goodput != tot.Offered {
		t.Errorf("planned %d; %+v", len(want), tot)
	}
}
