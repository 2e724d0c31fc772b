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

func steps(rs ...any) scenario.Traffic {
	var t scenario.Traffic
	for i := 0; i < len(rs); i += 2 {
		t.Schedule = append(t.Schedule, scenario.RateStep{At: scenario.Duration(rs[i].(time.Duration)), Rate: scenario.Rate(rs[i+1].(float64))})
	}
	return t
}

var oneClass = []Class{{Name: "c", Share: 1, Deadline: time.Second}}

func drain(t *testing.T, p *Plan) []Request {
	t.Helper()
	var out []Request
	for r, ok := p.Next(); ok; r, ok = p.Next() {
		out = append(out, r)
	}
	return out
}

func mustPlan(t *testing.T, load scenario.Traffic, d time.Duration, cs []Class, seed uint64) *Plan {
	t.Helper()
	p, err := NewPlan(load, d, cs, seed)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPlanDeterministic(t *testing.T) {
	load := steps(time.Duration(0), 2000.0, 3*time.Second, 500.0)
	load.Keys = scenario.Keys{Count: 100, Zipf: 1.1}
	cs := []Class{{Name: "a", Share: .25, Deadline: time.Second}, {Name: "b", Share: .75, Deadline: 2 * time.Second}}
	a := drain(t, mustPlan(t, load, 5*time.Second, cs, 1))
	b := drain(t, mustPlan(t, load, 5*time.Second, cs, 1))
	c := drain(t, mustPlan(t, load, 5*time.Second, cs, 2))
	if !slices.Equal(a, b) {
		t.Error("two plans with seed 1 differ")
	}
	if slices.Equal(a, c) {
		t.Error("plans with seeds 1 and 2 are the same")
	}
	for i, r := range a {
		switch {
		case r.ID != int64(i):
			t.Fatalf("request %d has ID %d", i, r.ID)
		case i > 0 && r.At < a[i-1].At:
			t.Fatalf("request %d at %s before request %d at %s", i, r.At, i-1, a[i-1].At)
		case r.At < 0 || r.At >= 5*time.Second:
			t.Fatalf("request %d at %s outside the run", i, r.At)
		case r.Deadline != r.At+cs[r.Class].Deadline:
			t.Fatalf("request %d deadline %s; want %s + %s", i, r.Deadline, r.At, cs[r.Class].Deadline)
		case r.Key < 0 || r.Key >= 100:
			t.Fatalf("request %d key %d outside [0, 100)", i, r.Key)
		}
	}
}

func TestPlanUniformExact(t *testing.T) {
	load := steps(time.Duration(0), 100.0, 500*time.Millisecond, 0.0, 700*time.Millisecond, 1000.0)
	load.Arrivals = scenario.ArrivalsUniform
	got := drain(t, mustPlan(t, load, time.Second, oneClass, 9))
	var want []time.Duration
	for at := 10 * time.Millisecond; at < 500*time.Millisecond; at += 10 * time.Millisecond {
		want = append(want, at) // 100/s: every 10ms from 10ms; the step at 500ms cancels the one due then
	}
	for at := 701 * time.Millisecond; at < time.Second; at += time.Millisecond {
		want = append(want, at) // 0/s until 700ms, then 1000/s from 701ms
	}
	var ats []time.Duration
	for _, r := range got {
		ats = append(ats, r.At)
	}
	if !slices.Equal(ats, want) {
		t.Errorf("uniform send times:\n got %d: %v\nwant %d: %v", len(ats), ats, len(want), want)
	}
}

// TestPlanRate checks the poisson count in each step against the schedule, within four
// standard deviations (sqrt of the expected count).
func TestPlanRate(t *testing.T) {
	load := steps(time.Duration(0), 1000.0, 40*time.Second, 5000.0, 60*time.Second, 0.0, 70*time.Second, 200.0)
	windows := []struct {
		from, to time.Duration
		rate     float64
	}{{0, 40 * time.Second, 1000}, {40 * time.Second, 60 * time.Second, 5000}, {60 * time.Second, 70 * time.Second, 0}, {70 * time.Second, 100 * time.Second, 200}}
	counts := make([]int, len(windows))
	for _, r := range drain(t, mustPlan(t, load, 100*time.Second, oneClass, 3)) {
		for i, w := range windows {
			if r.At >= w.from && r.At < w.to {
				counts[i]++
			}
		}
	}
	for i, w := range windows {
		want := w.rate * (w.to - w.from).Seconds()
		if tol := 4 * math.Sqrt(want); math.Abs(float64(counts[i])-want) > tol {
			t.Errorf("window %s–%s: %d arrivals; want %.0f ± %.0f", w.from, w.to, counts[i], want, tol)
		}
		if w.rate == 0 && counts[i] != 0 {
			t.Errorf("window %s–%s at 0/s: %d arrivals", w.from, w.to, counts[i])
		}
	}
}

func TestPlanShares(t *testing.T) {
	cs := []Class{{Name: "a", Share: .5, Deadline: time.Second}, {Name: "b", Share: .3, Deadline: time.Second}, {Name: "c", Share: .2, Deadline: time.Second}}
	n := make([]int, len(cs))
	rs := drain(t, mustPlan(t, steps(time.Duration(0), 10000.0), 10*time.Second, cs, 5))
	for _, r := range rs {
		n[r.Class]++
	}
	for i, c := range cs {
		want := c.Share * float64(len(rs))
		if tol := 4 * math.Sqrt(want*(1-c.Share)); math.Abs(float64(n[i])-want) > tol {
			t.Errorf("class %s: %d of %d; want %.0f ± %.0f", c.Name, n[i], len(rs), want, tol)
		}
	}
}

func TestPlanKeys(t *testing.T) {
	load := steps(time.Duration(0), 10000.0)
	load.Keys = scenario.Keys{Count: 50, Zipf: 1.5}
	n := make([]int, 50)
	for _, r := range drain(t, mustPlan(t, load, 5*time.Second, oneClass, 1)) {
		n[r.Key]++
	}
	if n[0] <= n[1] || n[1] <= n[10] || n[10] <= n[49] {
		t.Errorf("zipf key counts not falling with rank: key 0 %d, 1 %d, 10 %d, 49 %d", n[0], n[1], n[10], n[49])
	}
	load.Keys.Zipf = 0
	clear(n)
	for _, r := range drain(t, mustPlan(t, load, 5*time.Second, oneClass, 1)) {
		n[r.Key]++
	}
	if lo, hi := slices.Min(n), slices.Max(n); lo < 800 || hi > 1200 {
		t.Errorf("uniform key counts from %d to %d; want each about 1000", lo, hi)
	}
}

func ptrRate(r float64) *scenario.Rate { x := scenario.Rate(r); return &x }

func TestPlanErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		load    scenario.Traffic
		d       time.Duration
		classes []Class
	}{
		{"no schedule", scenario.Traffic{}, time.Second, oneClass},
		{"late start", steps(time.Second, 10.0), time.Second, oneClass},
		{"negative rate", steps(time.Duration(0), -1.0), time.Second, oneClass},
		{"no duration", steps(time.Duration(0), 10.0), 0, oneClass},
		{"no classes", steps(time.Duration(0), 10.0), time.Second, nil},
		{"shares", steps(time.Duration(0), 10.0), time.Second, []Class{{Name: "a", Share: .5, Deadline: time.Second}}},
		{"deadline", steps(time.Duration(0), 10.0), time.Second, []Class{{Name: "a", Share: 1}}},
		{"empty burst", scenario.Traffic{Schedule: []scenario.RateStep{{At: 0, Rate: 1}, {At: 1, Within: scenario.Duration(time.Second)}}}, time.Second, oneClass},
		{"burst with a rate", scenario.Traffic{Schedule: []scenario.RateStep{{At: 0, Rate: 1}, {At: 1, Burst: 2, Rate: 3}}}, time.Second, oneClass},
		{"negative ramp", scenario.Traffic{Schedule: []scenario.RateStep{{At: 0, Rate: 1, RampTo: ptrRate(-1)}}}, time.Second, oneClass},
		{"rate steps out of order", steps(time.Duration(0), 1.0, time.Second, 2.0, time.Second, 3.0), 2 * time.Second, oneClass},
		{"users without a think", scenario.Traffic{Schedule: []scenario.RateStep{{At: 0, Rate: 1}}, Users: []scenario.Users{{Name: "u", Count: 1, Class: "c"}}}, time.Second, oneClass},
		{"users of no class", scenario.Traffic{Users: []scenario.Users{{Name: "u", Count: 1, Class: "x", Think: scenario.Dist{Mean: scenario.Duration(time.Second)}}}}, time.Second, oneClass},
		{"no users", scenario.Traffic{Users: []scenario.Users{{Name: "u", Count: 0, Class: "c", Think: scenario.Dist{Mean: scenario.Duration(time.Second)}}}}, time.Second, oneClass},
		{"bad class schedule", steps(time.Duration(0), 10.0), time.Second, []Class{{Name: "a", Share: 1, Deadline: time.Second}, {Name: "b", Deadline: time.Second, Schedule: []scenario.RateStep{{At: 0, Rate: -1}}}}},
	} {
		if _, err := NewPlan(tc.load, tc.d, tc.classes, 1); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// TestPlanIsTheReplaysLoad checks that a scenario's plan offers what the replay offers:
// the same arrivals each second and the same count of each class.
func TestPlanIsTheReplaysLoad(t *testing.T) {
	sc, err := scenario.Load("testdata/mix.scenario.yaml")
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
	cs := p.Classes()
	if cs[0].Method != "POST" || cs[0].Path != "/buy" || cs[0].Body == nil || cs[0].Timeout != 400*time.Millisecond || cs[0].Retries.Max != 2 {
		t.Errorf("class buy: %+v; want POST /buy with a body, the web entry's 400ms timeout and 2 retries", cs[0])
	}
	if cs[1].Method != "" || cs[1].Path != "/look?full=1" || cs[1].Timeout != 100*time.Millisecond || cs[1].Retries.Max != 0 {
		t.Errorf("class look: %+v; want GET /look?full=1 with the api entry's 100ms timeout and no retries", cs[1])
	}
}
