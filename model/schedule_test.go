package model

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/internal/ramp"
	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
)

// scheduleScenario is one class of one short work stage through entry e0 to a service
// with room for everything, under the load and the classes' extra YAML given.
func scheduleScenario(t *testing.T, load, classes string) *scenario.Scenario {
	t.Helper()
	src := `name: sched
clock: {duration: 20s, tick: 1s}
load:
` + load + `
classes:
  - {name: a, share: 1, deadline: 1s, stages: [{name: w, work: {constant: 1ms}}]}
` + classes + `
topology:
  entries:
    - {name: e0, target: s0, timeout: 1s}
    - {name: e1, target: s0, timeout: 1s}
  services:
    - {name: s0, instances: 4, workers: 500, queue: {capacity: 1000}}
arms:
  - {name: a0, policy: {}}
  - {name: a1, policy: {identity: true}}
`
	sc, err := scenario.Decode("sched.scenario.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func runScenario(t *testing.T, sc *scenario.Scenario, seed uint64) *packet.Packet {
	t.Helper()
	pk, err := Run(context.Background(), sc, Options{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return pk
}

// offeredBetween is the arm's offered requests in the ticks [from, to).
func offeredBetween(a *packet.Arm, from, to time.Duration) int64 {
	var n int64
	for _, r := range a.Series {
		if r.T >= from && r.T < to {
			n += r.Offered
		}
	}
	return n
}

// TestRampArrivalsMatchIntegral: a linear ramp offers its integrated rate, overall and in
// each half (Poisson within four standard deviations; uniform within one arrival), and
// both arms see the same arrivals.
func TestRampArrivalsMatchIntegral(t *testing.T) {
	for _, tc := range []struct {
		name, load string
		// the expected arrivals in [0, 10s) and [10s, 20s)
		first, second float64
		poisson       bool
	}{
		{"up from zero", "  schedule: [{at: 0s, rate: 0/s, ramp_to: 1000/s}]", 2500, 7500, true},
		{"down", "  schedule: [{at: 0s, rate: 1000/s, ramp_to: 200/s}]", 8000, 4000, true},
		{"ramp then hold", "  schedule: [{at: 0s, rate: 100/s, ramp_to: 500/s}, {at: 10s, rate: 500/s}]", 3000, 5000, true},
		{"uniform", "  arrivals: uniform\n  schedule: [{at: 0s, rate: 0/s, ramp_to: 1000/s}]", 2500, 7500, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pk := runScenario(t, scheduleScenario(t, tc.load, ""), 3)
			a := &pk.Arms[0]
			for _, h := range []struct {
				from, to time.Duration
				want     float64
			}{{0, 10 * time.Second, tc.first}, {10 * time.Second, 20 * time.Second, tc.second}} {
				got := float64(offeredBetween(a, h.from, h.to))
				tol := 1.0
				if tc.poisson {
					tol = 4 * math.Sqrt(h.want)
				}
				if math.Abs(got-h.want) > tol {
					t.Errorf("[%v, %v): %v arrivals; want %v ± %.0f", h.from, h.to, got, h.want, tol)
				}
			}
			if !slices.EqualFunc(pk.Arms[0].Series, pk.Arms[1].Series, func(x, y packet.Row) bool { return x.Offered == y.Offered }) {
				t.Error("the arms were offered different arrivals")
			}
		})
	}
}

// TestRampIsExactInversion: rampGap integrates the linear rate to e, at fixed instants.
func TestRampIsExactInversion(t *testing.T) {
	for _, tc := range []struct {
		st    ramp.Step
		t     time.Duration
		shift float64
		e     float64
		ok    bool
	}{
		{ramp.Step{Rate: 0, Slope: 2}, 0, 1, 1, true},                 // g² = 1
		{ramp.Step{Rate: 10, Slope: 0.5}, time.Second, 1, 3, true},    // from 10.5/s
		{ramp.Step{Rate: 10, Slope: -1}, 2 * time.Second, 2, 5, true}, // falling, shifted
		{ramp.Step{Rate: 1, Slope: -1}, 0, 1, 1, false},               // reaches 0 after ½ arrival
		{ramp.Step{At: time.Second, Rate: 5, Slope: 3}, time.Second, 1, 0.25, true},
	} {
		g, ok := rampGap(&tc.st, tc.t, tc.shift, tc.e)
		if ok != tc.ok {
			t.Errorf("%+v at %v: ok %v; want %v", tc.st, tc.t, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		r0 := tc.st.Rate + tc.st.Slope*(tc.t-tc.st.At).Seconds()
		if got := tc.shift * (r0*g + tc.st.Slope*g*g/2); math.Abs(got-tc.e) > 1e-9 {
			t.Errorf("%+v at %v: gap %v integrates to %v; want %v", tc.st, tc.t, g, got, tc.e)
		}
	}
}

// TestBurstArrivesAtItsInstant: a burst's arrivals all come in the tick of its instant,
// or evenly over its within, beside a rate that it leaves alone.
func TestBurstArrivesAtItsInstant(t *testing.T) {
	pk := runScenario(t, scheduleScenario(t, "  schedule: [{at: 0s, rate: 0/s}, {at: 5s, burst: 700}, {at: 12s, burst: 400, within: 4s}]", ""), 1)
	for _, r := range pk.Arms[0].Series {
		want := int64(0)
		switch s := r.T / time.Second; {
		case s == 5:
			want = 700
		case s >= 12 && s < 16:
			want = 100
		}
		if r.Offered != want {
			t.Errorf("tick %v: offered %d; want %d", r.T, r.Offered, want)
		}
	}
	// Beside a rate: the burst adds, the rate stays.
	pk = runScenario(t, scheduleScenario(t, "  arrivals: uniform\n  schedule: [{at: 0s, rate: 50/s}, {at: 5s, burst: 300}]", ""), 1)
	for _, r := range pk.Arms[0].Series {
		want := int64(50)
		if r.T == 5*time.Second {
			want = 350
		}
		if d := r.Offered - want; d < -1 || d > 1 {
			t.Errorf("tick %v: offered %d; want %d", r.T, r.Offered, want)
		}
	}
}

// TestClassSchedules: a class with a schedule of its own is offered by it, and adding it
// does not move the arrivals of the class drawing from load.schedule.
func TestClassSchedules(t *testing.T) {
	load := "  schedule: [{at: 0s, rate: 200/s}]"
	base := runScenario(t, scheduleScenario(t, load, ""), 5)
	own := runScenario(t, scheduleScenario(t, load, "  - {name: b, entry: e1, deadline: 1s, schedule: [{at: 0s, rate: 100/s, ramp_to: 300/s}, {at: 15s, burst: 50}], stages: [{name: w, work: {constant: 1ms}}]}"), 5)
	b := own.Arms[0].Classes[1]
	if want := 4000.0 + 50; math.Abs(float64(b.Offered)-want) > 4*math.Sqrt(want) {
		t.Errorf("class b offered %d; want about %v", b.Offered, want)
	}
	a0, a1 := base.Arms[0], own.Arms[0]
	if a0.Classes[0].Offered != a1.Classes[0].Offered {
		t.Errorf("class a offered %d alone, %d beside b", a0.Classes[0].Offered, a1.Classes[0].Offered)
	}
	for i := range a0.Series {
		if x, y := a0.Series[i].LayerAttempts[0], a1.Series[i].LayerAttempts[0]; x != y {
			t.Errorf("tick %v: class a's entry saw %d attempts alone, %d beside b", a0.Series[i].T, x, y)
		}
	}
}

// TestScheduleDeterministic: the same scenario and seed give the same packet, with ramps,
// bursts, class schedules and users.
func TestScheduleDeterministic(t *testing.T) {
	sc := scheduleScenario(t, "  schedule: [{at: 0s, rate: 50/s, ramp_to: 150/s}, {at: 4s, burst: 100, within: 2s}]\n  users: [{name: u, count: 30, class: b, think: {mean: 200ms}, abandon_after: 300ms}]",
		"  - {name: b, entry: e1, deadline: 1s, schedule: [{at: 0s, rate: 20/s}], stages: [{name: w, work: {mean: 50ms}}]}")
	x, _ := json.Marshal(runScenario(t, sc, 9))
	y, _ := json.Marshal(runScenario(t, sc, 9))
	if string(x) != string(y) {
		t.Error("two runs with the same seed differ")
	}
}

// TestEstimateCountsClients: the estimate counts a ramp by its integral, a burst by its
// arrivals, a class's own schedule, and users at the most they can send, and bounds what
// the replay offers.
func TestEstimateCountsClients(t *testing.T) {
	sc := scheduleScenario(t, "  schedule: [{at: 0s, rate: 0/s, ramp_to: 1000/s}, {at: 5s, burst: 500}]\n  users: [{name: u, count: 200, class: b, think: {constant: 1s}}]",
		"  - {name: b, entry: e1, deadline: 1s, schedule: [{at: 0s, rate: 100/s}], stages: [{name: w, work: {constant: 1ms}}]}")
	c, err := Estimate(sc)
	if err != nil {
		t.Fatal(err)
	}
	// 10,000 from the ramp and 500 from the burst for a; 2,000 from b's schedule and
	// 200 users × 20 s / 1 s for b.
	for _, tc := range []struct {
		name      string
		got, mean float64
	}{
		{"requests", float64(c.Requests), 16500},
		{"class a", float64(c.ByClass[0]), 10500},
		{"class b", float64(c.ByClass[1]), 6000},
	} {
		if lo, hi := tc.mean, tc.mean+6*math.Sqrt(tc.mean)+2; tc.got < lo || tc.got > hi {
			t.Errorf("%s: %v; want in [%v, %.0f]", tc.name, tc.got, lo, hi)
		}
	}
	if want := 1000.0 + 500 + 100 + 200; math.Abs(c.PeakRate-want) > 1 {
		t.Errorf("peak rate %v; want %v", c.PeakRate, want)
	}
	pk := runScenario(t, sc, 2)
	for _, a := range pk.Arms {
		if a.Totals.Offered > c.Requests {
			t.Errorf("%s offered %d, above the estimate's %d", a.Name, a.Totals.Offered, c.Requests)
		}
	}
}
