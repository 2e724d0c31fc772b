package scenario

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/control/loadstate"
)

// The Northstar examples declare their controller in YAML: each protected arm's machine is
// exactly the one `preset: northstar` expands to (NorthstarLoadState), slack gates
// included (derived from the 1.8 s deadline), and each optional stage is shed in the
// states NorthstarShedPlan sheds its feature in.
func TestNorthstarControllerWrittenOut(t *testing.T) {
	plan, err := NorthstarShedPlan().Compile()
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{
		"../examples/northstar/northstar.scenario.yaml",
		"../examples/northstar/cache/northstar-cache.scenario.yaml",
		"../examples/northstar/health/northstar-health.scenario.yaml",
	} {
		sc, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		ls := sc.Arms[1].Policy.LoadState
		if ls == nil || ls.Preset != "" {
			t.Fatalf("%s: the protected arm's loadstate is %+v; want the machine written out", path, ls)
		}
		got, err := ls.Config(sc)
		if err != nil {
			t.Fatal(err)
		}
		if want := NorthstarLoadState(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the declared machine is\n%+v\nwant NorthstarLoadState()\n%+v", path, got, want)
		}
		n := 0
		for _, st := range sc.Classes[0].Stages {
			if !st.Optional {
				continue
			}
			n++
			f, ok := plan.Feature(StageFeature(st))
			if !ok {
				t.Errorf("%s: stage %s is not in NorthstarShedPlan", path, st.Name)
				continue
			}
			o, _ := plan.Optional(f)
			if ShedText(st) != o.Fallback {
				t.Errorf("%s: stage %s falls back to %q, NorthstarShedPlan to %q", path, st.Name, ShedText(st), o.Fallback)
			}
			var states []loadstate.State
			for s := loadstate.Normal; s <= loadstate.Recovering; s++ {
				if plan.Shed(s, f) {
					states = append(states, s)
				}
			}
			want := ShedStates(st.ShedFrom)
			if !sameStates(states, want) {
				t.Errorf("%s: stage %s is shed in %v by shed_from %q, in %v by NorthstarShedPlan", path, st.Name, want, st.ShedFrom, states)
			}
		}
		if n != 4 {
			t.Errorf("%s: %d optional stages, want Northstar's 4", path, n)
		}
	}
}

func sameStates(a, b []loadstate.State) bool {
	set := func(xs []loadstate.State) (m uint8) {
		for _, x := range xs {
			m |= 1 << x
		}
		return m
	}
	return set(a) == set(b)
}

// The slack gate derived from the tightest deadline: 2/3, 1/3 and 7/9 of it, exact for
// Northstar's 1.8 s.
func TestDerivedSlack(t *testing.T) {
	for _, tt := range []struct {
		d                time.Duration
		warn, hard, exit time.Duration
	}{
		{1800 * time.Millisecond, 1200 * time.Millisecond, 600 * time.Millisecond, 1400 * time.Millisecond},
		{300 * time.Millisecond, 200 * time.Millisecond, 100 * time.Millisecond, 233333333},
		{9, 6, 3, 7},
		{1, 0, 0, 0},
		{1<<63 - 1, 6148914691236517204, 3074457345618258602, 7173733806442603405},
	} {
		got := DerivedSlack(tt.d)
		if want := (loadstate.DurationGate{Warn: tt.warn, Hard: tt.hard, Exit: tt.exit}); got != want {
			t.Errorf("DerivedSlack(%v) = %+v, want %+v", tt.d, got, want)
		}
	}
}

// What a loadstate block that declares little stands for: the derived slack gate from the
// tightest class deadline, every other gate disabled, no waits, DefaultPolicies field by
// field, and the ramp's admission while Recovering.
func TestLoadStateConfigDerives(t *testing.T) {
	sc := &Scenario{Classes: []Class{{Deadline: Duration(time.Second)}, {Deadline: Duration(300 * time.Millisecond)}}}
	def := loadstate.DefaultPolicies()
	pct := func(x float64) *Fraction { f := Fraction(x); return &f }
	no := new(bool)
	d := func(x time.Duration) *Duration { v := Duration(x); return &v }
	for _, tt := range []struct {
		name string
		ls   LoadStatePolicy
		want func(c *loadstate.Config)
	}{
		{"nothing declared", LoadStatePolicy{}, func(c *loadstate.Config) {}},
		{"trigger only", LoadStatePolicy{Trigger: "pay"}, func(c *loadstate.Config) {}},
		{"one policy field", LoadStatePolicy{Policies: StatePolicies{Protected: StatePolicy{RetryRatio: pct(0.02), FreezeFailover: no}}},
			func(c *loadstate.Config) {
				c.Policies.Protected.RetryRatio, c.Policies.Protected.FreezeFailover = 0.02, false
			}},
		{"a ramp leaves Recovering's admission to it", LoadStatePolicy{Ramp: []RampStep{{Admission: 0.5, Hold: Duration(time.Minute)}, {Admission: 1}}},
			func(c *loadstate.Config) {
				c.Ramp = []loadstate.RampStep{{Admission: 0.5, Hold: time.Minute}, {Admission: 1}}
				c.Policies.Recovering.AdmissionScale = 0
			}},
		{"slack warn declared", LoadStatePolicy{Gates: LoadStateGates{Slack: SlackGate{Warn: d(150 * time.Millisecond)}}},
			func(c *loadstate.Config) { c.Gates.Slack.Warn = 150 * time.Millisecond }},
		{"slack disabled", LoadStatePolicy{Gates: LoadStateGates{Slack: SlackGate{Warn: d(0), Hard: d(0)}}},
			func(c *loadstate.Config) { c.Gates.Slack = loadstate.DurationGate{} }},
		{"other gates, sustain and holds as declared", LoadStatePolicy{
			Gates:   LoadStateGates{QueueAge: DurationGate{Warn: Duration(time.Second), Exit: Duration(time.Millisecond)}, ReadyReserve: FractionGate{Warn: 0.1, Exit: 0.2}},
			Sustain: Duration(time.Second), Holds: LoadStateHolds{Protected: Duration(time.Minute)}},
			func(c *loadstate.Config) {
				c.Gates.QueueAge = loadstate.DurationGate{Warn: time.Second, Exit: time.Millisecond}
				c.Gates.ReadyReserve = loadstate.Gate{Warn: 0.1, Exit: 0.2}
				c.Sustain, c.Hold.Protected = time.Second, time.Minute
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := loadstate.Config{Gates: loadstate.Gates{Slack: loadstate.DurationGate{Warn: 200 * time.Millisecond, Hard: 100 * time.Millisecond, Exit: 233333333}}, Policies: def}
			tt.want(&want)
			got, err := tt.ls.Config(sc)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Config =\n%+v\nwant\n%+v", got, want)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("the derived machine is invalid: %v", err)
			}
		})
	}
	if _, err := (&LoadStatePolicy{Preset: LoadStateNorthstar, Sustain: 1}).Config(sc); err == nil || !strings.Contains(err.Error(), "cannot be combined") {
		t.Errorf("preset with fields: %v, want an error", err)
	}
	if got, err := (&LoadStatePolicy{Preset: LoadStateNorthstar}).Config(sc); err != nil || !reflect.DeepEqual(got, NorthstarLoadState()) {
		t.Errorf("preset northstar = %+v, %v; want NorthstarLoadState()", got, err)
	}
}

// shed_from names the states an optional stage is shed in, cumulatively.
func TestShedStates(t *testing.T) {
	for _, tt := range []struct {
		from string
		want []loadstate.State
	}{
		{"", []loadstate.State{loadstate.Recovering, loadstate.Protected}},
		{ShedFromProtected, []loadstate.State{loadstate.Recovering, loadstate.Protected}},
		{ShedFromPressured, []loadstate.State{loadstate.Pressured, loadstate.Recovering, loadstate.Protected}},
		{ShedFromNever, nil},
	} {
		if got := ShedStates(tt.from); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ShedStates(%q) = %v, want %v", tt.from, got, tt.want)
		}
	}
	for _, tt := range []struct {
		st   Stage
		want string
	}{
		{Stage{Name: "recs", Optional: true}, "response without recs"},
		{Stage{Name: "recs", Feature: "blocks", Optional: true}, "response without blocks"},
		{Stage{Name: "fraud", Optional: true, Fallback: FallbackConservative}, "the stage's fallback (conservative)"},
		{Stage{Name: "fraud", Optional: true, Fallback: FallbackConservative, FallbackText: "mandatory checks alone"}, "mandatory checks alone"},
	} {
		if got := ShedText(tt.st); got != tt.want {
			t.Errorf("ShedText(%+v) = %q, want %q", tt.st, got, tt.want)
		}
	}
}

// The valid controller example: a machine declared in part and shared through an anchor
// (a merge key changes one hold), the rest derived; the JSON round trip of --set keeps
// every declared field, zero values included.
func TestControllerScenario(t *testing.T) {
	sc, err := Load("testdata/valid/controller.scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	prot, err := sc.Arms[1].Policy.LoadState.Config(sc)
	if err != nil {
		t.Fatal(err)
	}
	def := loadstate.DefaultPolicies()
	want := loadstate.Config{
		Gates: loadstate.Gates{
			Amplification: loadstate.Gate{Warn: 1.1, Hard: 1.3, Exit: 1.05},
			Slack:         loadstate.DurationGate{Warn: 200 * time.Millisecond, Hard: 100 * time.Millisecond, Exit: 233333333},
			QueueAge:      loadstate.DurationGate{Warn: 100 * time.Millisecond, Hard: 250 * time.Millisecond, Exit: 50 * time.Millisecond},
		},
		Sustain: 5 * time.Second,
		Hold:    loadstate.Holds{Pressured: 10 * time.Second, Protected: 20 * time.Second, Recovering: 30 * time.Second},
		Ramp:    []loadstate.RampStep{{Admission: 0.5, Hold: 10 * time.Second}, {Admission: 1, Hold: 10 * time.Second}},
		Policies: loadstate.Policies{
			Normal:     def.Normal,
			Pressured:  def.Pressured,
			Protected:  loadstate.Policy{RetryRatio: 0, AdmissionScale: 0.5, Shed: loadstate.Protected, Prewarm: true, StopBackground: true},
			Recovering: loadstate.Policy{RetryRatio: def.Recovering.RetryRatio, Shed: loadstate.Recovering, FreezeFailover: true, Prewarm: true, StopBackground: true},
		},
	}
	if !reflect.DeepEqual(prot, want) {
		t.Errorf("protected:\n%+v\nwant\n%+v", prot, want)
	}
	pat, err := sc.Arms[2].Policy.LoadState.Config(sc)
	if err != nil {
		t.Fatal(err)
	}
	want.Hold.Protected = time.Minute
	if !reflect.DeepEqual(pat, want) {
		t.Errorf("patient (the anchor with one hold changed):\n%+v\nwant\n%+v", pat, want)
	}
	got, err := sc.With()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, sc) {
		t.Errorf("the scenario changed on its way through With:\n%+v\nwant\n%+v", got.Arms[1].Policy.LoadState, sc.Arms[1].Policy.LoadState)
	}
	changed, err := sc.With(Override{Path: "arms.protected.policy.loadstate.gates.slack.warn", Value: "150ms"})
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := changed.Arms[1].Policy.LoadState.Config(changed); c.Gates.Slack.Warn != 150*time.Millisecond || c.Gates.Slack.Hard != 100*time.Millisecond {
		t.Errorf("--set slack.warn=150ms: slack gate %+v, want warn 150ms with hard still derived", c.Gates.Slack)
	}
}
