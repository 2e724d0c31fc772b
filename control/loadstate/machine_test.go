package loadstate

import (
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
)

var t14 = day.Add(14 * time.Hour)

func mustNew(tb testing.TB, cfg Config) *Machine {
	tb.Helper()
	m, err := New(cfg, t14)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	return m
}

// northstar is the Northstar case study's machine (scenario.NorthstarLoadState, which
// this package's tests cannot import), the calibrated config the tests below step.
func northstar() Config {
	return Config{
		Gates: Gates{
			Amplification:        Gate{Warn: 1.08, Hard: 1.3, Exit: 1.05},
			Slack:                DurationGate{Warn: 1200 * time.Millisecond, Hard: 600 * time.Millisecond, Exit: 1400 * time.Millisecond},
			QueueAge:             DurationGate{Warn: 250 * time.Millisecond, Hard: 1000 * time.Millisecond, Exit: 200 * time.Millisecond},
			DependencySaturation: Gate{Warn: 0.8, Hard: 0.95, Exit: 0.7},
			ReadyReserve:         Gate{Warn: 0.10, Exit: 0.15},
		},
		Sustain: 30 * time.Second,
		Hold:    Holds{Pressured: time.Minute, Protected: 2 * time.Minute, Recovering: 6 * time.Minute},
		Ramp: []RampStep{
			{Admission: 0.5, Hold: 2 * time.Minute},
			{Admission: 0.75, Hold: 2 * time.Minute},
			{Admission: 1, Hold: 2 * time.Minute},
		},
		Policies: Policies{
			Normal:     Policy{RetryRatio: 0.05, AdmissionScale: 1, Shed: Normal},
			Pressured:  Policy{RetryRatio: 0.03, AdmissionScale: 1, Shed: Pressured, Prewarm: true, StopBackground: true},
			Protected:  Policy{RetryRatio: 0.02, AdmissionScale: 0.5, Shed: Protected, FreezeFailover: true, Prewarm: true, StopBackground: true},
			Recovering: Policy{RetryRatio: 0.02, Shed: Recovering, FreezeFailover: true, Prewarm: true, StopBackground: true},
		},
	}
}

// TestZeroConfig: the zero Config is valid; its machine stays Normal under
// DefaultPolicies whatever the signals, and moves only by Override.
func TestZeroConfig(t *testing.T) {
	t0 := time.Date(2025, 3, 11, 14, 0, 0, 0, time.UTC)
	m, err := New(Config{}, t0)
	if err != nil {
		t.Fatalf("New(Config{}) = %v", err)
	}
	def := DefaultPolicies()
	if got := m.Policy(); got != def.Normal {
		t.Errorf("policy %+v, want DefaultPolicies().Normal %+v", got, def.Normal)
	}
	bad := Signals{Amplification: 9, QueueAge: time.Hour, DependencySaturation: 1}
	for i := range 10 {
		if tr, ok := m.Step(t0.Add(time.Duration(i)*time.Minute), bad); ok {
			t.Fatalf("zero Config moved by itself: %v", tr)
		}
	}
	m.Override(t0.Add(time.Hour), Protected, "operator")
	if got := m.Policy(); got != def.Protected || m.State() != Protected {
		t.Errorf("after Override: %v %+v, want Protected %+v", m.State(), got, def.Protected)
	}
	// With a Ramp, the ramp sets Recovering's admission, so the default leaves it 0.
	if err := (Config{Ramp: []RampStep{{Admission: 0.5}, {Admission: 1}}}).Validate(); err != nil {
		t.Errorf("zero Policies with a Ramp: %v", err)
	}
	for s := Normal; s <= Recovering; s++ {
		p := def.of(s)
		if p.Shed != s {
			t.Errorf("DefaultPolicies %v sheds the %v set, want its own", s, p.Shed)
		}
		if s > Normal && p.RetryRatio >= def.Normal.RetryRatio {
			t.Errorf("DefaultPolicies %v retries %v, want fewer than Normal's %v", s, p.RetryRatio, def.Normal.RetryRatio)
		}
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
		want string // substring of the error; "" for valid
	}{
		{"northstar", northstar(), ""},
		{"only normal policy", Config{Policies: Policies{Normal: Policy{AdmissionScale: 1}}}, ""},
		{"zero config", Config{}, ""},
		{"normal admits nothing", Config{Policies: Policies{Pressured: Policy{AdmissionScale: 1}}}, "Normal must admit"},
		{"exit equals warn", mod(func(c *Config) { c.Gates.QueueAge.Exit = 250 * time.Millisecond }), "QueueAge.Exit 250ms must be strictly below Warn 250ms"},
		{"exit above warn", mod(func(c *Config) { c.Gates.Amplification.Exit = 1.1 }), "Amplification.Exit 1.1 must be strictly below Warn"},
		{"exit above hard, no warn", mod(func(c *Config) {
			c.Gates.DependencySaturation = Gate{Hard: 0.9, Exit: 0.95}
		}), "DependencySaturation.Exit 0.95 must be strictly below Hard"},
		{"lower-is-worse exit below warn", mod(func(c *Config) { c.Gates.Slack.Exit = time.Second }), "Slack.Exit 1s must be strictly above Warn 1.2s"},
		{"lower-is-worse hard above warn", mod(func(c *Config) { c.Gates.Slack.Hard = 1300 * time.Millisecond }), "Slack.Hard 1.3s must be strictly below Warn 1.2s"},
		{"hard not beyond warn", mod(func(c *Config) { c.Gates.QueueAge.Hard = 240 * time.Millisecond }), "QueueAge.Hard 240ms must be strictly above Warn"},
		{"reserve hard above warn", mod(func(c *Config) { c.Gates.ReadyReserve.Hard = 0.12 }), "ReadyReserve.Hard 0.12 must be strictly below Warn"},
		{"enabled gate without exit", mod(func(c *Config) { c.Gates.QueueAge.Exit = 0 }), "QueueAge.Exit is 0"},
		{"exit without enter", mod(func(c *Config) { c.Gates.Amplification = Gate{Exit: 1.05} }), "Amplification.Exit 1.05 is set but Warn and Hard are 0"},
		{"negative threshold", mod(func(c *Config) { c.Gates.Amplification.Warn = -1 }), "Amplification.Warn -1 is negative"},
		{"NaN threshold", mod(func(c *Config) { c.Gates.Amplification.Hard = math.NaN() }), "want a finite threshold"},
		{"saturation above 1", mod(func(c *Config) { c.Gates.DependencySaturation.Hard = 1.5 }), "above 1"},
		{"negative sustain", mod(func(c *Config) { c.Sustain = -time.Second }), "Sustain -1s is negative"},
		{"negative hold", mod(func(c *Config) { c.Hold.Protected = -time.Second }), "Hold.Protected -1s is negative"},
		{"retry ratio above 1", mod(func(c *Config) { c.Policies.Pressured.RetryRatio = 2 }), "Policies.Pressured.RetryRatio 2"},
		{"admission NaN", mod(func(c *Config) { c.Policies.Protected.AdmissionScale = math.NaN() }), "Policies.Protected.AdmissionScale NaN"},
		{"shed not a state", mod(func(c *Config) { c.Policies.Protected.Shed = 9 }), "Shed State(9) is not a load state"},
		{"recovering admission with a ramp", mod(func(c *Config) { c.Policies.Recovering.AdmissionScale = 0.6 }), "the Ramp sets admission"},
		{"ramp below protected", mod(func(c *Config) { c.Ramp[0].Admission = 0.25 }), "Ramp[0].Admission 0.25 is below Protected's 0.5"},
		{"ramp decreasing", mod(func(c *Config) { c.Ramp[2].Admission = 0.6 }), "Ramp[2].Admission 0.6 is below Ramp[1]'s 0.75"},
		{"ramp zero admission", mod(func(c *Config) { c.Policies.Protected.AdmissionScale = 0; c.Ramp[0].Admission = 0 }), "Ramp[0].Admission 0 is out of range"},
		{"ramp negative hold", mod(func(c *Config) { c.Ramp[1].Hold = -1 }), "Ramp[1].Hold -1ns is negative"},
		{"ramp above normal", mod(func(c *Config) { c.Policies.Normal.AdmissionScale = 0.9 }), "Ramp[2].Admission 1 is above Normal's 0.9"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "loadstate: ") {
				t.Fatalf("Validate() = %v, want an error containing %q", err, tc.want)
			}
			if _, err := New(tc.cfg, t14); err == nil {
				t.Fatal("New accepted an invalid config")
			}
		})
	}
}

// TestSustainPerGate: the sustain clock belongs to one gate; two gates that
// take turns breaching never sustain.
func TestSustainPerGate(t *testing.T) {
	m := mustNew(t, northstar())
	sig := func(amp float64, q time.Duration) Signals {
		s := calm
		s.Amplification, s.QueueAge = amp, q
		return s
	}
	steps := []struct {
		at   time.Duration
		s    Signals
		want State
	}{
		{0, sig(1.1, 0), Normal},                       // amplification warns
		{20 * time.Second, sig(1.02, 300e6), Normal},   // it stops, queue age warns
		{40 * time.Second, sig(1.1, 0), Normal},        // and back
		{60 * time.Second, sig(1.02, 300e6), Normal},   // 20 s each, never 30 s
		{80 * time.Second, sig(1.1, 300e6), Normal},    // both: amplification since 80 s, queue age since 60 s
		{90 * time.Second, sig(1.1, 300e6), Pressured}, // queue age for 30 s
	}
	for i, st := range steps {
		m.Step(t14.Add(st.at), st.s)
		if got := m.State(); got != st.want {
			t.Fatalf("step %d at +%v: %v, want %v", i, st.at, got, st.want)
		}
	}
	if r := m.Log()[0].Reason; r != "queue_age 300ms ≥ 250ms for 30s" {
		t.Fatalf("reason %q", r)
	}
}

func TestZeroSustainAndHolds(t *testing.T) {
	c := northstar()
	c.Sustain, c.Hold = 0, Holds{}
	for i := range c.Ramp {
		c.Ramp[i].Hold = 0
	}
	m := mustNew(t, c)
	warn := calm
	warn.QueueAge = 300 * time.Millisecond
	hard := calm
	hard.QueueAge = 2 * time.Second
	healthy := calm
	healthy.TriggerHealthy = true
	steps := []struct {
		s     Signals
		moved bool
		want  State
		stage int
	}{
		{warn, true, Pressured, 0},
		{calm, true, Normal, 0},
		{hard, true, Protected, 0},
		{calm, false, Protected, 0}, // trigger unhealthy
		{healthy, true, Recovering, 1},
		{healthy, true, Recovering, 2},
		{healthy, true, Recovering, 3},
		{healthy, true, Normal, 0},
	}
	gen := uint64(1)
	for i, st := range steps {
		// All at the same instant: with no holds, one transition per Step
		// still applies.
		if _, ok := m.Step(t14, st.s); ok != st.moved {
			t.Fatalf("step %d: transition %v, want %v", i, ok, st.moved)
		}
		if st.moved {
			gen++
		}
		if s := m.Snapshot(); s.State != st.want || s.Stage != st.stage || s.Generation != gen {
			t.Fatalf("step %d: %+v, want %v stage %d gen %d", i, s, st.want, st.stage, gen)
		}
	}
}

func TestNaNHoldsPosition(t *testing.T) {
	m := mustNew(t, northstar())
	nan := calm
	nan.Amplification = math.NaN()
	for i := range 100 {
		if tr, ok := m.Step(t14.Add(time.Duration(i)*time.Minute), nan); ok {
			t.Fatalf("NaN amplification made a transition: %v", tr)
		}
	}
	m.Override(t14.Add(2*time.Hour), Pressured, "test")
	for i := range 100 {
		if tr, ok := m.Step(t14.Add(2*time.Hour+time.Duration(i)*time.Minute), nan); ok {
			t.Fatalf("NaN amplification cleared Pressured: %v", tr)
		}
	}
}

func TestTimeBackwardsIsClamped(t *testing.T) {
	m := mustNew(t, northstar())
	warn := calm
	warn.QueueAge = 300 * time.Millisecond
	m.Step(t14.Add(time.Minute), warn)
	// 14:00:10 is before 14:01:00: taken as 14:01:00, so no sustain yet.
	if _, ok := m.Step(t14.Add(10*time.Second), warn); ok {
		t.Fatal("a step back in time completed the sustain")
	}
	tr, ok := m.Step(t14.Add(90*time.Second), warn)
	if !ok || tr.To != Pressured || !tr.At.Equal(t14.Add(90*time.Second)) {
		t.Fatalf("got %v %v", tr, ok)
	}
	tr = m.Override(t14, Normal, "")
	if !tr.At.Equal(t14.Add(90*time.Second)) || tr.Reason != "manual override" {
		t.Fatalf("override back in time: %v", tr)
	}
}

func TestOverrideInvalidStatePanics(t *testing.T) {
	m := mustNew(t, northstar())
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "State(7)") {
			t.Fatalf("recover() = %v", r)
		}
		if m.Generation() != 1 {
			t.Fatal("a refused override changed the generation")
		}
	}()
	m.Override(t14, 7, "bad")
}

func TestConfigIsCopied(t *testing.T) {
	c := northstar()
	m := mustNew(t, c)
	c.Ramp[0].Admission = 0.9
	m.Config().Ramp[0].Admission = 0.9
	m.Override(t14, Recovering, "")
	if got := m.Policy().AdmissionScale; got != 0.5 {
		t.Fatalf("ramp aliased the caller's slice: admission %v", got)
	}
}

func TestTransitionString(t *testing.T) {
	tr := Transition{At: t14.Add(4 * time.Minute), From: Pressured, To: Protected, Generation: 3, Reason: "queue_age 1.2s ≥ 1s"}
	if got, want := tr.String(), "14:04:00 Pressured → Protected gen 3: queue_age 1.2s ≥ 1s"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	tr = Transition{At: t14, From: Protected, To: Recovering, Stage: 1, Generation: 9, Reason: "go", Manual: true}
	if got, want := tr.String(), "14:00:00 Protected → Recovering stage 1 gen 9 (manual): go"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	for s, want := range map[State]string{Normal: "Normal", Pressured: "Pressured", Protected: "Protected", Recovering: "Recovering", 4: "State(4)"} {
		if s.String() != want {
			t.Errorf("%d: %q", s, s.String())
		}
	}
}

// breaches recomputes, naively from the Config, which gates a sample
// breaches, for the property test.
func breaches(c Config, s Signals) (hard, warn, clear bool) {
	clear = true
	check := func(v, w, h, e float64, lowerWorse bool) {
		if w == 0 && h == 0 {
			return
		}
		if lowerWorse {
			v, w, h, e = -v, -w, -h, -e
		}
		if h != 0 && v >= h {
			hard = true
		}
		if w != 0 && v >= w {
			warn = true
		}
		if !(v <= e) {
			clear = false
		}
	}
	g := c.Gates
	check(s.Amplification, g.Amplification.Warn, g.Amplification.Hard, g.Amplification.Exit, false)
	check(float64(s.Slack), float64(g.Slack.Warn), float64(g.Slack.Hard), float64(g.Slack.Exit), true)
	check(float64(s.QueueAge), float64(g.QueueAge.Warn), float64(g.QueueAge.Hard), float64(g.QueueAge.Exit), false)
	check(s.DependencySaturation, g.DependencySaturation.Warn, g.DependencySaturation.Hard, g.DependencySaturation.Exit, false)
	check(s.ReadyReserve, g.ReadyReserve.Warn, g.ReadyReserve.Hard, g.ReadyReserve.Exit, true)
	return hard, warn, clear
}

// TestProperties drives machines with random signal sequences (values near
// the thresholds, random gaps, occasional steps back in time and overrides)
// and checks the invariants after every call.
func TestProperties(t *testing.T) {
	cfg := northstar()
	pick := func(r *rand.Rand, vs ...float64) float64 { return vs[r.IntN(len(vs))] }
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	seen := map[[2]State]int{}
	for seed := range uint64(80) {
		r := rand.New(rand.NewPCG(seed, 0x10AD5747E))
		m := mustNew(t, cfg)
		now, last := t14, t14
		var prev Snapshot = m.Snapshot()
		entered := map[State]time.Time{Normal: t14}
		var clearSince time.Time // last instant a sample was not clear, per state stay
		regime := 0
		for i := range 2000 {
			now = now.Add(time.Duration(r.IntN(40)) * time.Second)
			at := now
			if r.IntN(50) == 0 {
				at = now.Add(-time.Duration(r.IntN(120)) * time.Second) // back in time
			}
			if at.After(last) {
				last = at
			}
			if r.IntN(200) == 0 {
				to := State(r.IntN(4))
				tr := m.Override(at, to, "")
				if !tr.Manual || tr.To != to || tr.From != prev.State || tr.Generation != prev.Generation+1 {
					t.Fatalf("seed %d step %d: override %v from %+v", seed, i, tr, prev)
				}
				prev = m.Snapshot()
				entered[to], clearSince = last, last
				continue
			}
			// Regimes last a while, so that sustains, holds and ramps can
			// complete: calm (within exit), band (between exit and warn),
			// warn (a warning, no hard gate) and wild (anything).
			if r.IntN(25) == 0 {
				regime = r.IntN(4)
			}
			s := calm
			switch regime {
			case 1:
				s = Signals{Amplification: pick(r, 1.02, 1.06), Slack: ms(pick(r, 1600, 1300)), QueueAge: ms(pick(r, 100, 220)),
					DependencySaturation: pick(r, 0.5, 0.75), ReadyReserve: pick(r, 0.3, 0.12)}
			case 2:
				s = Signals{Amplification: pick(r, 1.02, 1.1), Slack: ms(pick(r, 1600, 1100)), QueueAge: ms(pick(r, 100, 300)),
					DependencySaturation: pick(r, 0.5, 0.85), ReadyReserve: pick(r, 0.3, 0.05)}
			case 3:
				s = Signals{
					Amplification:        pick(r, 1.0, 1.04, 1.06, 1.1, 1.35, math.NaN()),
					Slack:                ms(pick(r, 1600, 1450, 1300, 1100, 500)),
					QueueAge:             ms(pick(r, 0, 150, 220, 300, 1200)),
					DependencySaturation: pick(r, 0.3, 0.65, 0.75, 0.85, 0.97),
					ReadyReserve:         pick(r, 0.5, 0.2, 0.12, 0.05),
				}
			}
			s.TriggerHealthy = r.IntN(10) != 0
			hard, warn, clear := breaches(cfg, s)
			tr, ok := m.Step(at, s)
			cur := m.Snapshot()
			if !ok {
				if cur != prev {
					t.Fatalf("seed %d step %d: no transition reported but %+v → %+v", seed, i, prev, cur)
				}
				if hard && cur.State != Protected {
					t.Fatalf("seed %d step %d: a hard gate binds but the machine stays %v", seed, i, cur.State)
				}
			} else {
				if tr.Generation != prev.Generation+1 || cur.Generation != tr.Generation {
					t.Fatalf("seed %d step %d: generation %d after %d", seed, i, tr.Generation, prev.Generation)
				}
				if tr.From != prev.State || tr.To != cur.State || tr.Stage != cur.Stage || tr.Manual || !tr.At.Equal(last) {
					t.Fatalf("seed %d step %d: transition %+v does not match %+v → %+v", seed, i, tr, prev, cur)
				}
				switch {
				case tr.From == Protected && tr.To == Normal:
					t.Fatalf("seed %d step %d: Protected → Normal directly", seed, i)
				case tr.To == Recovering && tr.From != Protected && tr.From != Recovering:
					t.Fatalf("seed %d step %d: %v → Recovering", seed, i, tr.From)
				case tr.From == Recovering && tr.To == Pressured:
					t.Fatalf("seed %d step %d: Recovering → Pressured", seed, i)
				case tr.To == Protected && !hard && !(tr.From == Recovering && (warn || !s.TriggerHealthy)):
					t.Fatalf("seed %d step %d: → Protected without cause (%v): %v", seed, i, s, tr)
				case tr.To == Pressured && (tr.From != Normal || !warn):
					t.Fatalf("seed %d step %d: → Pressured without a sustained warning: %v", seed, i, tr)
				case tr.To == Normal && !clear:
					t.Fatalf("seed %d step %d: → Normal while not clear: %v", seed, i, tr)
				case tr.To == Normal && tr.From == Pressured && last.Sub(clearSince) < cfg.Hold.Pressured:
					t.Fatalf("seed %d step %d: left Pressured after %v clear", seed, i, last.Sub(clearSince))
				case tr.To == Normal && tr.From == Recovering && last.Sub(entered[Recovering]) < cfg.Hold.Recovering:
					t.Fatalf("seed %d step %d: left Recovering after %v", seed, i, last.Sub(entered[Recovering]))
				case tr.From == Protected && tr.To == Recovering && !s.TriggerHealthy:
					t.Fatalf("seed %d step %d: Recovering while the trigger is unhealthy", seed, i)
				case tr.From == Protected && tr.To == Recovering && last.Sub(entered[Protected]) < cfg.Hold.Protected:
					t.Fatalf("seed %d step %d: left Protected after %v", seed, i, last.Sub(entered[Protected]))
				}
				if tr.From != tr.To {
					entered[tr.To] = last
				}
				seen[[2]State{tr.From, tr.To}]++
				clearSince = last
			}
			if !clear {
				clearSince = last
			}
			// The policy is the state's, with the ramp's admission.
			want := *cfg.Policies.of(cur.State)
			if cur.State == Recovering {
				if cur.Stage < 1 || cur.Stage > len(cfg.Ramp) {
					t.Fatalf("seed %d step %d: Recovering at stage %d", seed, i, cur.Stage)
				}
				want.AdmissionScale = cfg.Ramp[cur.Stage-1].Admission
			} else if cur.Stage != 0 {
				t.Fatalf("seed %d step %d: stage %d outside Recovering", seed, i, cur.Stage)
			}
			if m.Policy() != want || cur.Policy != want {
				t.Fatalf("seed %d step %d: policy %+v, want %+v", seed, i, m.Policy(), want)
			}
			prev = cur
		}
		// The log is the sequence of generations 2, 3, ...
		for j, tr := range m.Log() {
			if tr.Generation != uint64(j+2) {
				t.Fatalf("seed %d: log[%d] has generation %d", seed, j, tr.Generation)
			}
			if j > 0 && tr.At.Before(m.Log()[j-1].At) {
				t.Fatalf("seed %d: log goes back in time at %d", seed, j)
			}
		}
	}
	// The generator must reach every automatic transition, or the checks
	// above prove little.
	for _, k := range [][2]State{
		{Normal, Pressured}, {Normal, Protected}, {Pressured, Normal}, {Pressured, Protected},
		{Protected, Recovering}, {Recovering, Recovering}, {Recovering, Protected}, {Recovering, Normal},
	} {
		if seen[k] == 0 {
			t.Errorf("no %v → %v transition in any sequence (%v)", k[0], k[1], seen)
		}
	}
	t.Logf("transitions: %v", seen)
}

// TestConcurrentReaders runs Policy readers against a stepping writer; run
// with -race.
func TestConcurrentReaders(t *testing.T) {
	m := mustNew(t, northstar())
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				s := m.Snapshot()
				if s.Policy.AdmissionScale == 0 {
					t.Error("zero admission read")
					return
				}
			}
		}()
	}
	hard := calm
	hard.QueueAge = 2 * time.Second
	healthy := calm
	healthy.TriggerHealthy = true
	now := t14
	for i := range 2000 {
		now = now.Add(10 * time.Second)
		s := healthy
		if i%200 == 0 {
			s = hard
		}
		m.Step(now, s)
	}
	close(stop)
	wg.Wait()
	if len(m.Log()) < 10 {
		t.Fatalf("only %d transitions", len(m.Log()))
	}
}
