package readiness

import (
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2025, 3, 11, 14, 6, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

// obs is a compact observation: connections, cache warm, throughput.
func obs(c int, w, r float64) Observation {
	return Observation{Connections: c, CacheWarm: w, Throughput: r}
}

func TestStageString(t *testing.T) {
	want := []string{"Requested", "Scheduled", "ProcessReady", "RouteReady", "Warm"}
	for s := range Stage(NumStages) {
		if s.String() != want[s] {
			t.Errorf("%d: %q, want %q", s, s, want[s])
		}
	}
	if got := Stage(9).String(); got != "Stage(9)" {
		t.Errorf("Stage(9) = %q", got)
	}
}

// northstar is the Northstar case study's criteria (scenario.NorthstarReadiness,
// which this package's tests cannot import).
func northstar() Config {
	return Config{
		Route:   Criteria{Connections: 20, CacheWarm: 0.85, CanaryRate: 350, CanaryFor: 30 * time.Second},
		Warm:    Criteria{Connections: 20, CacheWarm: 0.93, CanaryRate: 400, CanaryFor: time.Minute},
		Nominal: 420,
	}
}

func TestConfigValidate(t *testing.T) {
	mod := func(f func(*Config)) Config {
		c := northstar()
		f(&c)
		return c
	}
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"zero", Config{}, ""},
		{"northstar", northstar(), ""},
		{"route only", Config{Route: Criteria{CanaryRate: 350}}, ""},
		{"negative connections", mod(func(c *Config) { c.Route.Connections = -1 }), "Route.Connections -1 is negative"},
		{"cache above 1", mod(func(c *Config) { c.Warm.CacheWarm = 1.2 }), "Warm.CacheWarm 1.2 is out of range"},
		{"cache NaN", mod(func(c *Config) { c.Route.CacheWarm = math.NaN() }), "Route.CacheWarm NaN"},
		{"rate negative", mod(func(c *Config) { c.Route.CanaryRate = -5 }), "Route.CanaryRate -5"},
		{"rate infinite", mod(func(c *Config) { c.Warm.CanaryRate = math.Inf(1) }), "Warm.CanaryRate +Inf"},
		{"negative canary", mod(func(c *Config) { c.Route.CanaryFor = -time.Second }), "Route.CanaryFor -1s is negative"},
		{"warm looser connections", mod(func(c *Config) { c.Warm.Connections = 10 }), "Warm.Connections 10 is below Route's 20"},
		{"warm looser cache", mod(func(c *Config) { c.Warm.CacheWarm = 0.8 }), "Warm.CacheWarm 0.8 is below Route's 0.85"},
		{"warm looser rate", mod(func(c *Config) { c.Warm.CanaryRate = 300 }), "Warm.CanaryRate 300 is below Route's 350"},
		{"nominal negative", mod(func(c *Config) { c.Nominal = -1 }), "Nominal -1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Validate() = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "readiness: ") {
				t.Fatalf("Validate() = %v, want an error containing %q", err, tc.want)
			}
			if _, err := NewFleet(tc.cfg); err == nil {
				t.Fatal("NewFleet accepted an invalid config")
			}
			if _, err := NewInstance(tc.cfg, t0); err == nil {
				t.Fatal("NewInstance accepted an invalid config")
			}
		})
	}
}

// event is one row of an instance script.
type event struct {
	at    time.Duration
	op    string // "sched", "ready", "obs"
	o     Observation
	want  Stage
	moved bool
}

func TestInstanceScripts(t *testing.T) {
	s := time.Second
	warmObs := obs(20, 0.95, 420)
	routeObs := obs(20, 0.86, 360)
	tests := []struct {
		name   string
		cfg    Config
		events []event
		// reached: the instant (offset) each stage was reached; -1: not reached
		reached [NumStages]time.Duration
	}{
		{
			name: "canary must hold for CanaryFor",
			cfg:  northstar(),
			events: []event{
				{at: 60 * s, op: "sched", want: Scheduled, moved: true},
				{at: 6 * 60 * s, op: "ready", want: ProcessReady, moved: true},
				{at: 370 * s, op: "obs", o: routeObs, want: ProcessReady},
				{at: 399 * s, op: "obs", o: routeObs, want: ProcessReady},
				{at: 400 * s, op: "obs", o: routeObs, want: RouteReady, moved: true},
				{at: 410 * s, op: "obs", o: warmObs, want: RouteReady},
				{at: 469 * s, op: "obs", o: warmObs, want: RouteReady},
				{at: 470 * s, op: "obs", o: warmObs, want: Warm, moved: true},
				{at: 480 * s, op: "obs", o: obs(0, 0, 0), want: Warm}, // stages never go back
			},
			reached: [NumStages]time.Duration{0, 60 * s, 360 * s, 400 * s, 470 * s},
		},
		{
			name: "a break restarts the canary",
			cfg:  northstar(),
			events: []event{
				{at: 0, op: "ready", want: ProcessReady, moved: true},
				{at: 10 * s, op: "obs", o: routeObs, want: ProcessReady},
				{at: 30 * s, op: "obs", o: obs(20, 0.86, 340), want: ProcessReady}, // rate dips below 350
				{at: 40 * s, op: "obs", o: routeObs, want: ProcessReady},
				{at: 60 * s, op: "obs", o: routeObs, want: ProcessReady}, // 20 s since the break
				{at: 70 * s, op: "obs", o: routeObs, want: RouteReady, moved: true},
			},
			// ProcessReady without Scheduled: scheduled at the same instant.
			reached: [NumStages]time.Duration{0, 0, 0, 70 * s, -1},
		},
		{
			name: "each criterion gates on its own",
			cfg:  Config{Route: Criteria{Connections: 20, CacheWarm: 0.85, CanaryRate: 350}},
			events: []event{
				{at: 0, op: "ready", want: ProcessReady, moved: true},
				{at: 1 * s, op: "obs", o: obs(19, 0.95, 420), want: ProcessReady},
				{at: 2 * s, op: "obs", o: obs(20, 0.84, 420), want: ProcessReady},
				{at: 3 * s, op: "obs", o: obs(20, 0.95, 349), want: ProcessReady},
				// Zero CanaryFor: one observation at the criteria; zero Warm
				// criteria: Warm with RouteReady, in one call.
				{at: 4 * s, op: "obs", o: obs(20, 0.85, 350), want: Warm, moved: true},
			},
			reached: [NumStages]time.Duration{0, 0, 0, 4 * s, 4 * s},
		},
		{
			name: "warm criteria already held at route-ready",
			cfg: Config{
				Route: Criteria{CanaryRate: 350, CanaryFor: 60 * s},
				Warm:  Criteria{CanaryRate: 400, CanaryFor: 30 * s},
			},
			events: []event{
				{at: 0, op: "ready", want: ProcessReady, moved: true},
				{at: 0, op: "obs", o: obs(0, 0, 420), want: ProcessReady},
				{at: 59 * s, op: "obs", o: obs(0, 0, 420), want: ProcessReady},
				{at: 60 * s, op: "obs", o: obs(0, 0, 420), want: Warm, moved: true},
			},
			reached: [NumStages]time.Duration{0, 0, 0, 60 * s, 60 * s},
		},
		{
			name: "observations before process-ready are ignored",
			cfg:  Config{},
			events: []event{
				{at: 0, op: "obs", o: warmObs, want: Requested},
				{at: 5 * s, op: "sched", want: Scheduled, moved: true},
				{at: 6 * s, op: "obs", o: warmObs, want: Scheduled},
				{at: 9 * s, op: "ready", want: ProcessReady, moved: true},
				{at: 9 * s, op: "obs", o: obs(0, 0, 0), want: Warm, moved: true},
			},
			reached: [NumStages]time.Duration{0, 5 * s, 9 * s, 9 * s, 9 * s},
		},
		{
			name: "time running backwards is clamped",
			cfg:  Config{Route: Criteria{CanaryFor: 30 * s}},
			events: []event{
				{at: 100 * s, op: "ready", want: ProcessReady, moved: true},
				{at: 50 * s, op: "obs", want: ProcessReady}, // taken as 100 s
				{at: 129 * s, op: "obs", want: ProcessReady},
				{at: 130 * s, op: "obs", want: Warm, moved: true},
			},
			reached: [NumStages]time.Duration{0, 100 * s, 100 * s, 130 * s, 130 * s},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, err := NewInstance(tc.cfg, t0)
			if err != nil {
				t.Fatal(err)
			}
			for k, e := range tc.events {
				var got Stage
				var moved bool
				before := in.Stage()
				switch e.op {
				case "sched":
					if err := in.Scheduled(at(e.at)); err != nil {
						t.Fatalf("event %d: %v", k, err)
					}
				case "ready":
					if err := in.ProcessReady(at(e.at)); err != nil {
						t.Fatalf("event %d: %v", k, err)
					}
				case "obs":
					got, moved = in.Observe(at(e.at), e.o)
					if got != in.Stage() {
						t.Fatalf("event %d: Observe returned %v, Stage() %v", k, got, in.Stage())
					}
				}
				got = in.Stage()
				if e.op != "obs" {
					moved = got != before
				}
				if got != e.want || moved != e.moved {
					t.Fatalf("event %d (%s at +%v): %v moved=%v, want %v moved=%v", k, e.op, e.at, got, moved, e.want, e.moved)
				}
			}
			for s, off := range tc.reached {
				when, ok := in.Reached(Stage(s))
				if off < 0 {
					if ok {
						t.Errorf("%v reached at %v, want not reached", Stage(s), when)
					}
					continue
				}
				if !ok || !when.Equal(at(off)) {
					t.Errorf("%v reached at %v (%v), want +%v", Stage(s), when, ok, off)
				}
			}
		})
	}
}

func TestStageAlreadyReached(t *testing.T) {
	in, _ := NewInstance(northstar(), t0)
	if err := in.ProcessReady(at(time.Minute)); err != nil {
		t.Fatal(err)
	}
	err := in.Scheduled(at(2 * time.Minute))
	if !errors.Is(err, ErrStage) || !strings.Contains(err.Error(), "is ProcessReady") {
		t.Fatalf("Scheduled after ProcessReady: %v", err)
	}
	if err := in.ProcessReady(at(3 * time.Minute)); !errors.Is(err, ErrStage) {
		t.Fatalf("ProcessReady twice: %v", err)
	}
	if when, _ := in.Reached(ProcessReady); !when.Equal(at(time.Minute)) {
		t.Fatalf("a refused event moved the timestamp to %v", when)
	}
}

func TestFleetSummary(t *testing.T) {
	f, err := NewFleet(Config{Route: Criteria{CanaryRate: 350}, Warm: Criteria{CanaryRate: 400}, Nominal: 420})
	if err != nil {
		t.Fatal(err)
	}
	var in [6]*Instance
	for k := range in {
		in[k] = f.Request(t0)
		if in[k].ID() != k+1 {
			t.Fatalf("ID %d, want %d", in[k].ID(), k+1)
		}
	}
	// 0: requested; 1: scheduled; 2: process-ready cold; 3: route-ready;
	// 4: warm; 5: warm, then removed.
	in[1].Scheduled(at(time.Minute))
	for _, k := range []int{2, 3, 4, 5} {
		in[k].ProcessReady(at(2 * time.Minute))
	}
	in[2].Observe(at(3*time.Minute), obs(0, 0, 180))
	in[3].Observe(at(3*time.Minute), obs(0, 0, 360))
	in[4].Observe(at(3*time.Minute), obs(0, 0, 410))
	in[5].Observe(at(3*time.Minute), obs(0, 0, 420))
	if !f.Remove(in[5]) || f.Remove(in[5]) {
		t.Fatal("Remove: want true once, then false")
	}
	got := f.Summary()
	want := Summary{
		Count:        [NumStages]int{1, 1, 1, 1, 1},
		Nominal:      [NumStages]float64{5 * 420, 4 * 420, 3 * 420, 2 * 420, 420},
		Demonstrated: [NumStages]float64{950, 950, 950, 770, 410},
	}
	if got != want {
		t.Fatalf("Summary() =\n%+v, want\n%+v", got, want)
	}
	for s, n := range []int{5, 4, 3, 2, 1} {
		if got.AtLeast(Stage(s)) != n {
			t.Errorf("AtLeast(%v) = %d, want %d", Stage(s), got.AtLeast(Stage(s)), n)
		}
	}
	if s, want := got.String(), "requested 5 (2100/s nominal) · scheduled 4 · process-ready 3 (950/s shown) · route-ready 2 (770/s) · warm 1 (410/s)"; s != want {
		t.Errorf("String() = %q, want %q", s, want)
	}
}

// TestConcurrentFleet exercises a fleet from several goroutines; run with
// -race.
func TestConcurrentFleet(t *testing.T) {
	f, _ := NewFleet(Config{Route: Criteria{CanaryRate: 1}})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 50 {
				in := f.Request(at(time.Duration(k) * time.Second))
				in.ProcessReady(at(time.Duration(k) * time.Second))
				in.Observe(at(time.Duration(k+1)*time.Second), obs(0, 0, float64(w+1)))
				_ = f.Summary()
			}
		}()
	}
	wg.Wait()
	s := f.Summary()
	if s.Count[Warm] != 200 || s.Demonstrated[Warm] != 50*(1+2+3+4) {
		t.Fatalf("summary %+v", s)
	}
}
