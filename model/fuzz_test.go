package model

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
)

// fuzzMaxEvents is FuzzReplay's event budget per arm: its scenarios are small (at most
// 20 s at a few hundred requests a second), and a run that needs more is stopped.
const fuzzMaxEvents = 300_000

// fuzzBases are the scenarios FuzzReplay starts from, by the first byte of its input (0:
// the minimal scenario, minimalScenario): the examples and the test scenarios, shrunk to
// a fuzzer's size by shrink.
var fuzzBases = []string{
	"examples/single-server/single-server.scenario.yaml",
	"cmd/goodput/testdata/small.scenario.yaml",
	"examples/northstar/northstar.scenario.yaml",
	"examples/northstar/health/northstar-health.scenario.yaml",
	"examples/northstar/cache/northstar-cache.scenario.yaml",
	"small", // the small scenario of model_test.go
}

// FuzzReplay replays random small scenarios: a base (the first byte: the minimal scenario
// or one of fuzzBases, shrunk) changed by the mutations the other bytes pick — services,
// dependencies, caches, health checks, classes, stages, entries, faults, arms and their
// policies added or changed. A scenario that fails validation is skipped. Each one is
// replayed twice with the same seed under an event budget, and the test fails on a panic,
// an error other than the budget (or the budget's where the estimate says the run needs
// less), a failed invariant, two packets that differ, or a run above its estimate's bounds
// (offered requests, attempts, events).
//
//	go test -run '^$' -fuzz FuzzReplay -fuzztime 5m ./model/
func FuzzReplay(f *testing.F) {
	bases := []*scenario.Scenario{minimalScenario()}
	for _, path := range fuzzBases {
		var sc *scenario.Scenario
		var err error
		if path == "small" {
			sc, err = scenario.Decode("small.scenario.yaml", []byte(small))
		} else {
			sc, err = scenario.Load(filepath.Join("..", path))
		}
		if err != nil {
			f.Fatal(err)
		}
		bases = append(bases, shrink(sc, 5*time.Second))
	}
	for i, b := range bases { // a base that does not validate would make the fuzzer skip all it derives
		c, err := copyScenario(b)
		if err == nil {
			err = c.Validate()
		}
		if err != nil {
			f.Fatalf("base %d (%s) is not a valid scenario: %v", i, b.Name, err)
		}
	}
	for i := range bases {
		f.Add([]byte{byte(i)})                              // the base as it is
		f.Add([]byte{byte(i), 15, 3, 1, 200, 16, 1, 7, 14}) // with an arm and a fault more
	}
	for _, in := range actionSeeds {
		f.Add(in)
	}
	for _, in := range clientSeeds {
		f.Add(in)
	}
	for _, in := range loadSeeds { // Northstar, shrunk, with load-dependent behaviour
		f.Add(append([]byte{3, 23}, in...))
	}
	for _, in := range breakerSeeds { // the minimal scenario and Northstar, with a breaker
		f.Add(append([]byte{0}, in...))
		f.Add(append([]byte{3}, in...))
	}
	for _, in := range cellSeeds {
		f.Add(in)
	}
	for _, in := range jobSeeds { // with an acquire timeout and a retry job
		f.Add(append([]byte{0, 26}, in...))
		f.Add(append([]byte{3, 26}, in...))
	}
	f.Add([]byte{0, 5, 1, 20, 60, 10, 2, 6, 0, 1, 1, 0, 12, 0, 0, 10, 0, 1, 4, 1, 1})
	f.Add([]byte{0, 4, 2, 3, 8, 10, 6, 0, 0, 3, 9, 0, 2, 100, 14, 1, 40, 20, 16, 0, 5, 1})
	f.Fuzz(func(t *testing.T, in []byte) {
		z := &fuzzBytes{b: in}
		base := bases[z.intn(len(bases))]
		sc, err := copyScenario(base)
		if err != nil {
			t.Fatal(err)
		}
		for range 24 {
			if len(z.b) == 0 {
				break
			}
			mutate(sc, z)
		}
		if err := sc.Validate(); err != nil {
			t.Skip(err)
		}
		checkReplay(t, sc, uint64(z.intn(256)))
	})
}

// checkReplay is FuzzReplay's check of one scenario.
func checkReplay(t *testing.T, sc *scenario.Scenario, seed uint64) {
	est, err := Estimate(sc)
	if err != nil {
		t.Fatalf("estimate: %v", err)
	}
	if est.EventsMax > 20*fuzzMaxEvents {
		t.Skipf("estimated up to %d events an arm, far above the budget", est.EventsMax)
	}
	replay := func() ([]byte, map[string]uint64) {
		events := map[string]uint64{}
		done := make(chan struct{}, 1)
		done <- struct{}{}
		pk, err := Run(context.Background(), sc, Options{Seed: seed, MaxEvents: fuzzMaxEvents, ArmDone: func(arm string, n uint64) {
			<-done
			events[arm] = n
			done <- struct{}{}
		}})
		if errors.Is(err, ErrMaxEvents) {
			if est.EventsMax < fuzzMaxEvents {
				t.Fatalf("%v, although the estimate bounds an arm's events by %d", err, est.EventsMax)
			}
			t.Skip(err)
		}
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		for _, a := range pk.Arms {
			for _, inv := range a.Invariants {
				if !inv.Pass {
					t.Errorf("%s: invariant %s failed: %s", a.Name, inv.Name, inv.Message)
				}
			}
			checkAlerts(t, sc, a)
			if tot := a.Totals; tot.Offered > est.Requests || tot.Attempts > est.Attempts || int64(events[a.Name]) > est.EventsMax {
				t.Errorf("%s: offered %d, attempts %d, events %d; above the estimate's %d, %d, %d", a.Name, tot.Offered, tot.Attempts, events[a.Name], est.Requests, est.Attempts, est.EventsMax)
			}
		}
		b, err := json.Marshal(pk)
		if err != nil {
			t.Fatal(err)
		}
		return b, events
	}
	first, ev1 := replay()
	second, ev2 := replay()
	if !bytes.Equal(first, second) || fmt.Sprint(ev1) != fmt.Sprint(ev2) {
		t.Fatalf("two replays with seed %d differ (events %v and %v)", seed, ev1, ev2)
	}
	if t.Failed() {
		b, _ := json.Marshal(sc)
		t.Logf("scenario: %s", b)
	}
}

// checkAlerts checks an arm's alerts against its events: one per rule evaluated on the
// arm, in order, its fires (one "fired" event each) the first and the flaps, and a last
// clear inside the run at or after the first fire exactly when the rule was not firing at
// the end; a rule for other arms has no events in this one.
func checkAlerts(t *testing.T, sc *scenario.Scenario, a packet.Arm) {
	t.Helper()
	var rules []scenario.Alert
	for _, r := range sc.Alerts {
		if len(r.Arms) == 0 || slices.Contains(r.Arms, a.Name) {
			rules = append(rules, r)
			continue
		}
		for _, e := range a.Events {
			if e.Kind == "alert" && (strings.HasPrefix(e.Text, r.Name+" fired: ") || e.Text == r.Name+" resolved") {
				t.Errorf("%s: event %q of rule %q, which is for %v", a.Name, e.Text, r.Name, r.Arms)
			}
		}
	}
	if len(a.Alerts) != len(rules) {
		t.Errorf("%s: %d alerts for %d rules", a.Name, len(a.Alerts), len(rules))
		return
	}
	for i, al := range a.Alerts {
		if al.Name != rules[i].Name {
			t.Errorf("%s: alert %d is %q, rule %q", a.Name, i, al.Name, rules[i].Name)
		}
		var fires, clears int
		var first, last time.Duration
		for _, e := range a.Events {
			switch {
			case e.Kind != "alert":
			case strings.HasPrefix(e.Text, al.Name+" fired: "):
				if fires == 0 {
					first = e.T
				}
				fires++
			case e.Text == al.Name+" resolved":
				clears++
				last = e.T
			}
		}
		switch {
		case fires == 0:
			if al.FirstFired != nil || al.Flaps != 0 || al.Cleared != nil || clears != 0 {
				t.Errorf("%s %s: %+v with no fire and %d clears", a.Name, al.Name, al, clears)
			}
		case al.FirstFired == nil || packet.Seconds(*al.FirstFired) != packet.Seconds(first) || al.Flaps != fires-1:
			t.Errorf("%s %s: %+v; the events fire %d times, first at %v", a.Name, al.Name, al, fires, first)
		case clears != fires && clears != fires-1:
			t.Errorf("%s %s: %d fires and %d clears", a.Name, al.Name, fires, clears)
		case (clears == fires) != (al.Cleared != nil):
			t.Errorf("%s %s: cleared %v after %d fires and %d clears", a.Name, al.Name, al.Cleared, fires, clears)
		case al.Cleared != nil && (packet.Seconds(*al.Cleared) != packet.Seconds(last) || *al.Cleared < *al.FirstFired || *al.Cleared > a.Duration):
			t.Errorf("%s %s: cleared %v, the last clear event at %v", a.Name, al.Name, *al.Cleared, last)
		}
	}
}

// TestMaxEvents: a run stopped by Options.MaxEvents returns ErrMaxEvents, and a budget it
// stays under changes nothing in its packet.
func TestMaxEvents(t *testing.T) {
	sc := decode(t, small)
	_, err := Run(context.Background(), sc, Options{Seed: 1, MaxEvents: 5000})
	if !errors.Is(err, ErrMaxEvents) {
		t.Fatalf("run with 5,000 events: %v, want ErrMaxEvents", err)
	}
	want := packetJSON(t, sc, 1)
	pk, err := Run(context.Background(), sc, Options{Seed: 1, MaxEvents: 10_000_000})
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(pk)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("a run under its event budget gave another packet than one without a budget")
	}
}

// fuzzBytes hands out the fuzzer's bytes as choices; once they run out, every choice is 0.
type fuzzBytes struct{ b []byte }

func (z *fuzzBytes) byte() byte {
	if len(z.b) == 0 {
		return 0
	}
	c := z.b[0]
	z.b = z.b[1:]
	return c
}

// intn is a choice in [0, n), n at most 65536.
func (z *fuzzBytes) intn(n int) int {
	if n <= 1 {
		return 0
	}
	v := int(z.byte())
	if n > 256 {
		v = v<<8 | int(z.byte())
	}
	return v % n
}

func (z *fuzzBytes) bool() bool { return z.byte()&1 == 1 }

// between is a choice in [lo, hi].
func (z *fuzzBytes) between(lo, hi int) int { return lo + z.intn(hi-lo+1) }

// dur is a duration in [lo, hi] in steps of (hi-lo)/255.
func (z *fuzzBytes) dur(lo, hi time.Duration) scenario.Duration {
	return scenario.Duration(lo + (hi-lo)*time.Duration(z.byte())/255)
}

// minimalScenario is one class of one work stage through one entry to one service, under
// one arm with no controls.
func minimalScenario() *scenario.Scenario {
	return &scenario.Scenario{
		Name:  "fuzz",
		Clock: scenario.Clock{Duration: scenario.Duration(10 * time.Second), Tick: scenario.Duration(time.Second)},
		Load:  scenario.Traffic{Schedule: []scenario.RateStep{{Rate: 100}}},
		Classes: []scenario.Class{{Name: "c0", Share: 1, Deadline: scenario.Duration(500 * time.Millisecond),
			Stages: []scenario.Stage{{Name: "w", Work: scenario.Dist{Mean: scenario.Duration(5 * time.Millisecond)}}}}},
		Topology: scenario.Topology{
			Entries:  []scenario.Entry{{Name: "e0", Target: "s0", Timeout: scenario.Duration(300 * time.Millisecond)}},
			Services: []scenario.Service{{Name: "s0", Instances: 2, Workers: 2, Queue: scenario.Queue{Capacity: 20}}},
		},
		Arms: []scenario.Arm{{Name: "a0"}},
	}
}

// copyScenario copies sc deeply, through JSON.
func copyScenario(sc *scenario.Scenario) (*scenario.Scenario, error) {
	b, err := json.Marshal(sc)
	if err != nil {
		return nil, err
	}
	var out scenario.Scenario
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// shrink cuts sc to a fuzzer's size: its clock to d with every time on it scaled alike
// (rate steps, faults, health checks, cold starts, objective windows), its rates to at
// most 150/s, and its fleet, pools and caches to a few of each.
func shrink(sc *scenario.Scenario, d time.Duration) *scenario.Scenario {
	k := float64(d) / float64(sc.Clock.Duration)
	scale := func(x scenario.Duration) scenario.Duration { return scenario.Duration(float64(x) * k) }
	sc.Clock.Duration = scenario.Duration(d)
	sc.Clock.Drain = scale(sc.Clock.Drain)
	peak := 0.0
	for _, st := range sc.Load.Schedule {
		peak = max(peak, float64(st.Rate))
	}
	for i := range sc.Load.Schedule {
		st := &sc.Load.Schedule[i]
		st.At = scale(st.At)
		if peak > 150 {
			st.Rate = scenario.Rate(float64(st.Rate) * 150 / peak)
		}
	}
	sc.Load.Keys.Count = min(sc.Load.Keys.Count, 1000)
	for i := range sc.Topology.Services {
		s := &sc.Topology.Services[i]
		s.Instances, s.Workers = min(s.Instances, 3), min(s.Workers, 8)
		if s.Queue.Capacity > 0 {
			s.Queue.Capacity = min(s.Queue.Capacity, 50)
		}
		s.Cold.Startup, s.Cold.For = scale(s.Cold.Startup), scale(s.Cold.For)
		if h := &s.Health; h.Interval > 0 {
			h.Interval = max(scale(h.Interval), scenario.Duration(100*time.Millisecond))
			h.Timeout = min(h.Timeout, h.Interval)
			h.Restart = scale(h.Restart)
			h.Backoff.Initial, h.Backoff.Max, h.Backoff.Reset = scale(h.Backoff.Initial), scale(h.Backoff.Max), scale(h.Backoff.Reset)
		}
	}
	for i := range sc.Topology.Dependencies {
		dp := &sc.Topology.Dependencies[i]
		if dp.Pool.PerInstance > 0 {
			dp.Pool.PerInstance = min(dp.Pool.PerInstance, 4)
		}
		if dp.Concurrency > 0 {
			dp.Concurrency = min(dp.Concurrency, 16)
		}
	}
	for i := range sc.Topology.Caches {
		sc.Topology.Caches[i].Entries = min(sc.Topology.Caches[i].Entries, 100)
	}
	for i := range sc.Faults {
		f := &sc.Faults[i]
		f.At, f.For = scale(f.At), scale(f.For)
		if f.Scale != nil {
			f.Scale.Add = min(f.Scale.Add, 3)
		}
	}
	for i := range sc.Objectives {
		o := &sc.Objectives[i]
		o.After = scale(o.After)
		if o.Window != nil {
			o.Window.From, o.Window.To = scale(o.Window.From), scale(o.Window.To)
		}
	}
	for i := range sc.Notes {
		sc.Notes[i].At = scale(sc.Notes[i].At)
	}
	for i := range sc.Alerts {
		al := &sc.Alerts[i]
		al.For, al.ClearFor = scale(al.For), scale(al.ClearFor)
		if al.Window.Std() > d {
			al.Window = 0
		}
	}
	return sc
}

// mutate makes one change to sc, chosen by z.
func mutate(sc *scenario.Scenario, z *fuzzBytes) {
	t := &sc.Topology
	pick := func(n int) int { return z.intn(max(n, 1)) }
	ms := time.Millisecond
	switch z.intn(29) { // 28: the default case
	case 0: // a rate
		sc.Load.Schedule[pick(len(sc.Load.Schedule))].Rate = scenario.Rate(z.between(0, 300))
	case 1: // a rate step
		at := z.dur(0, sc.Clock.Duration.Std())
		sc.Load.Schedule = append(sc.Load.Schedule, scenario.RateStep{At: at, Rate: scenario.Rate(z.between(1, 300))})
		slices.SortStableFunc(sc.Load.Schedule, func(a, b scenario.RateStep) int { return int(a.At - b.At) })
	case 2: // the clock
		sc.Clock.Duration = z.dur(2*time.Second, 20*time.Second)
		sc.Clock.Tick = scenario.Duration([]time.Duration{100 * ms, 250 * ms, 500 * ms, time.Second}[z.intn(4)])
		if z.bool() {
			sc.Clock.Drain = z.dur(0, 5*time.Second)
		}
	case 3: // arrivals and keys
		sc.Load.Arrivals = []string{"", scenario.ArrivalsPoisson, scenario.ArrivalsUniform}[z.intn(3)]
		sc.Load.Keys = scenario.Keys{Count: z.between(0, 2000), Zipf: []float64{0, 1.1, 1.5, 2}[z.intn(4)]}
	case 4: // a service
		t.Services = append(t.Services, scenario.Service{
			Name: fmt.Sprintf("s%d", len(t.Services)), Instances: z.between(1, 4), Workers: z.between(1, 8),
			Queue: scenario.Queue{Capacity: z.between(0, 50)}, Router: []string{"", scenario.RouterRoundRobin, scenario.RouterRandom, scenario.RouterLeastLoaded}[z.intn(4)],
		})
		if len(t.Entries) > 0 {
			t.Entries[pick(len(t.Entries))].Target = t.Services[len(t.Services)-1].Name
		}
	case 5: // a dependency
		p50 := z.dur(ms, 50*ms)
		t.Dependencies = append(t.Dependencies, scenario.Dependency{
			Name:        fmt.Sprintf("d%d", len(t.Dependencies)),
			ServiceTime: scenario.Quantiles{P50: p50, P99: p50 * scenario.Duration(z.between(1, 10))},
			ErrorRate:   scenario.Fraction(float64(z.intn(4)) / 10),
			Concurrency: z.between(0, 8), Pool: scenario.Pool{PerInstance: z.between(0, 8)},
			Timeout: z.dur(0, 300*ms), Retries: retries(z), Keyed: z.bool(),
		})
	case 6: // a stage
		c := &sc.Classes[pick(len(sc.Classes))]
		st := scenario.Stage{Name: fmt.Sprintf("st%d", len(c.Stages)), Optional: z.bool()}
		if len(t.Dependencies) > 0 && z.bool() {
			st.Dependency = t.Dependencies[pick(len(t.Dependencies))].Name
			if !st.Optional && z.intn(3) == 0 {
				st.Mutation = []string{scenario.MutationPaymentAuthorization, scenario.MutationOrderCommit}[z.intn(2)]
			}
		} else {
			switch z.intn(3) {
			case 0:
				st.Work.Constant = z.dur(ms/10, 20*ms)
			case 1:
				st.Work.Mean = z.dur(ms/10, 20*ms)
			default:
				st.Work.P50 = z.dur(ms/10, 10*ms)
				st.Work.P99 = st.Work.P50 * scenario.Duration(z.between(1, 8))
			}
		}
		if st.Optional && z.bool() {
			st.Fallback = scenario.FallbackConservative
		}
		c.Stages = append(c.Stages, st)
	case 7: // a class
		sc.Classes = append(sc.Classes, scenario.Class{
			Name: fmt.Sprintf("c%d", len(sc.Classes)), Deadline: z.dur(50*ms, 2*time.Second),
			Admission:  []string{"", scenario.AdmissionContinuation, scenario.AdmissionLookup, scenario.AdmissionStandard, scenario.AdmissionSheddable}[z.intn(5)],
			Idempotent: z.bool(),
			Stages:     []scenario.Stage{{Name: "w", Work: scenario.Dist{Mean: z.dur(ms/10, 10*ms)}}},
		})
		shareEvenly(sc)
	case 8: // an entry
		t.Entries = append(t.Entries, scenario.Entry{Name: fmt.Sprintf("e%d", len(t.Entries)), Target: t.Services[pick(len(t.Services))].Name, Timeout: z.dur(0, 500*ms), Retries: retries(z)})
		sc.Classes[pick(len(sc.Classes))].Entry = t.Entries[len(t.Entries)-1].Name
	case 9: // an entry's timeout and retries, a class's deadline
		e := &t.Entries[pick(len(t.Entries))]
		e.Timeout, e.Retries = z.dur(0, 500*ms), retries(z)
		sc.Classes[pick(len(sc.Classes))].Deadline = z.dur(20*ms, 2*time.Second)
	case 10: // a health check
		s := &t.Services[pick(len(t.Services))]
		iv := z.dur(100*ms, 2*time.Second)
		s.Health = scenario.Health{Interval: iv, Timeout: iv * scenario.Duration(z.between(1, 10)) / 10, Failures: z.between(0, 3),
			Action: []string{scenario.HealthRemove, scenario.HealthRestart}[z.intn(2)]}
		if s.Health.Action == scenario.HealthRemove {
			s.Health.Successes = z.between(0, 2)
		} else {
			s.Health.Restart = z.dur(0, 3*time.Second)
			if z.bool() {
				s.Health.Backoff = scenario.Backoff{Initial: z.dur(100*ms, time.Second)}
				if z.bool() {
					s.Health.Backoff = backoff(z, s.Health.Backoff.Initial)
				}
			}
		}
	case 11: // cold instances
		s := &t.Services[pick(len(t.Services))]
		s.Cold = scenario.Cold{Startup: z.dur(0, 5*time.Second), RateFactor: scenario.Factor(float64(z.between(1, 10)) / 10), For: z.dur(0, 5*time.Second)}
	case 12: // a cache in front of a dependency stage
		c := &sc.Classes[pick(len(sc.Classes))]
		var calls []int // the stages a cache can serve: calls without a mutation
		for i, st := range c.Stages {
			if st.Dependency != "" && st.Mutation == "" {
				calls = append(calls, i)
			}
		}
		if len(calls) == 0 {
			return
		}
		st := &c.Stages[calls[pick(len(calls))]]
		target := t.Entries[0].Target
		if c.Entry != "" {
			for _, e := range t.Entries {
				if e.Name == c.Entry {
					target = e.Target
				}
			}
		}
		name := fmt.Sprintf("k%d", len(t.Caches))
		t.Caches = append(t.Caches, scenario.Cache{Name: name, Service: target, Entries: z.between(1, 200), EntrySize: scenario.Size(z.between(1, 64) << 10)})
		st.Cache = name
	case 13: // a memory limit, for a service with a cache
		if len(t.Caches) == 0 {
			return
		}
		held := t.Caches[pick(len(t.Caches))].Service
		i := slices.IndexFunc(t.Services, func(s scenario.Service) bool { return s.Name == held })
		if i < 0 {
			return
		}
		s := &t.Services[i]
		s.Memory = scenario.Memory{Limit: scenario.Size(z.between(1, 64) << 20), PerAttempt: scenario.Size(z.between(0, 4096) << 10)}
	case 14: // a fault
		f := scenario.Fault{At: z.dur(0, sc.Clock.Duration.Std()), For: z.dur(0, sc.Clock.Duration.Std())}
		switch z.intn(5) {
		case 0, 1:
			if len(t.Dependencies) == 0 {
				return
			}
			f.Dependency = t.Dependencies[pick(len(t.Dependencies))].Name
			if z.bool() {
				p50 := z.dur(ms, 100*ms)
				f.ServiceTime = &scenario.Quantiles{P50: p50, P99: p50 * scenario.Duration(z.between(1, 20))}
			} else {
				e := scenario.Fraction(float64(z.intn(11)) / 10)
				f.ErrorRate = &e
			}
		case 2:
			f.Service, f.WorkFactor = t.Services[pick(len(t.Services))].Name, scenario.Factor(float64(z.between(1, 40))/10)
		case 3:
			f.Shift = &scenario.Shift{Rate: scenario.Factor(1 + float64(z.between(1, 10))/10)}
		default:
			f.For = 0
			f.Scale = &scenario.Scale{Service: t.Services[pick(len(t.Services))].Name, Add: z.between(1, 3)}
		}
		sc.Faults = append(sc.Faults, f)
	case 15: // an arm
		sc.Arms = append(sc.Arms, scenario.Arm{Name: fmt.Sprintf("a%d", len(sc.Arms)), Policy: policy(sc, z)})
	case 16: // an arm's policy
		sc.Arms[pick(len(sc.Arms))].Policy = policy(sc, z)
	case 17: // a dependency's settings
		if len(t.Dependencies) == 0 {
			return
		}
		dp := &t.Dependencies[pick(len(t.Dependencies))]
		dp.Timeout, dp.Retries = z.dur(0, 300*ms), retries(z)
		dp.Pool.PerInstance, dp.Concurrency = z.between(0, 8), z.between(0, 8)
	case 18: // a stage or a fault less
		if z.bool() && len(sc.Faults) > 0 {
			i := pick(len(sc.Faults))
			sc.Faults = slices.Delete(sc.Faults, i, i+1)
		} else if c := &sc.Classes[pick(len(sc.Classes))]; len(c.Stages) > 1 {
			i := pick(len(c.Stages))
			c.Stages = slices.Delete(c.Stages, i, i+1)
		}
	case 20: // an action
		addAction(sc, z)
	case 21: // a ramp, a burst, a class's own schedule or closed-loop users
		addClients(sc, z)
	case 22: // a crash or stall fault, or an autoscaler
		instanceMutation(sc, z)
	case 23: // load-dependent behaviour, a hanging dependency or a ceiling
		addLoadBehaviour(sc, z)
	case 25: // a circuit breaker in an arm's policy
		addBreaker(sc, z)
	case 24: // cells, failover, a shared dependency and a router's panic mode
		addCells(sc, z)
	case 27: // an alert evaluated on one arm only, and a note on the timeline
		a := alert(sc, z)
		a.Arms = []string{sc.Arms[z.intn(len(sc.Arms))].Name}
		sc.Alerts = append(sc.Alerts, a)
		sc.Notes = append(sc.Notes, scenario.Note{At: z.dur(0, sc.Clock.Duration.Std()-1), Text: fmt.Sprintf("note %d", len(sc.Notes))})
	case 26: // a pool's acquire timeout and a retry job (job.go, pool.go)
		addPoolAcquireAndJob(sc, z)
	default: // an objective and an alert
		ms100 := scenario.Bound{Value: float64(z.between(1, 1000)), Unit: scenario.UnitDuration}
		ms100.Value *= float64(ms)
		metric := []string{scenario.MetricLatencyP99, scenario.MetricQueueAgeMax, scenario.MetricTimeToNormal}[z.intn(3)]
		sc.Objectives = append(sc.Objectives, scenario.Objective{Name: fmt.Sprintf("o%d", len(sc.Objectives)), Metric: metric, Max: &ms100})
		sc.Alerts = append(sc.Alerts, scenario.Alert{Name: fmt.Sprintf("al%d", len(sc.Alerts)), Metric: "queue_age", Above: &ms100, For: z.dur(0, 2*time.Second)})
		if z.bool() {
			sc.Alerts = append(sc.Alerts, alert(sc, z))
		}
	}
}

// addBreaker gives an arm a circuit breaker for a dependency (one that a stage calls, made
// when there is none), with its fields drawn or left zero for the library's defaults.
func addBreaker(sc *scenario.Scenario, z *fuzzBytes) {
	t := &sc.Topology
	ms := time.Millisecond
	if len(t.Dependencies) == 0 {
		p50 := z.dur(ms, 20*ms)
		t.Dependencies = append(t.Dependencies, scenario.Dependency{Name: "d0",
			ServiceTime: scenario.Quantiles{P50: p50, P99: 4 * p50},
			ErrorRate:   scenario.Fraction(float64(z.intn(6)) / 10), Timeout: z.dur(0, 200*ms)})
		c := &sc.Classes[z.intn(len(sc.Classes))]
		c.Stages = append(c.Stages, scenario.Stage{Name: fmt.Sprintf("st%d", len(c.Stages)), Dependency: "d0"})
	}
	arm := &sc.Arms[z.intn(len(sc.Arms))]
	b := scenario.BreakerPolicy{Dependency: t.Dependencies[z.intn(len(t.Dependencies))].Name}
	if slices.ContainsFunc(arm.Policy.Breakers, func(x scenario.BreakerPolicy) bool { return x.Dependency == b.Dependency }) {
		return
	}
	if z.bool() {
		th := scenario.Fraction(float64(z.between(1, 10)) / 10)
		b.Threshold = &th
	}
	if z.bool() {
		b.Window = z.dur(100*ms, 5*time.Second)
		b.Buckets = z.between(0, 20)
	}
	b.MinVolume = z.between(0, 30)
	if z.bool() {
		b.OpenFor = z.dur(10*ms, 2*time.Second)
		if z.bool() {
			b.MaxOpenFor = b.OpenFor * scenario.Duration(z.between(1, 8))
		}
	}
	b.Probes = z.between(0, 4)
	arm.Policy.Breakers = append(arm.Policy.Breakers, b)
	// Sometimes the arm derives its call timeouts with no ceiling or a short one, whose
	// timeouts the breaker counts (ceiling.go).
	switch z.intn(4) {
	case 2:
		arm.Policy.DependencyTimeout, arm.Policy.Deadline.Ceiling = scenario.TimeoutDerived, scenario.CeilingNone
	case 3:
		arm.Policy.DependencyTimeout, arm.Policy.Deadline.Ceiling = scenario.TimeoutDerived, scenario.Ceiling(z.dur(10*ms, 300*ms))
	}
}

// instanceMutation adds a crash or a stall of some of a service's instances, or gives a
// service an autoscaler rule (with a control plane that fails or slows, sometimes).
func instanceMutation(sc *scenario.Scenario, z *fuzzBytes) {
	t := &sc.Topology
	s := &t.Services[z.intn(len(t.Services))]
	pickOf := func() *scenario.InstanceFault {
		if z.bool() {
			return &scenario.InstanceFault{Count: z.between(1, 4)}
		}
		return &scenario.InstanceFault{Share: scenario.Fraction(float64(z.between(1, 10)) / 10)}
	}
	switch z.intn(3) {
	case 0:
		sc.Faults = append(sc.Faults, scenario.Fault{At: z.dur(0, sc.Clock.Duration.Std()), For: z.dur(0, sc.Clock.Duration.Std()), Service: s.Name, Crash: pickOf()})
	case 1:
		sc.Faults = append(sc.Faults, scenario.Fault{At: z.dur(0, sc.Clock.Duration.Std()), For: z.dur(0, sc.Clock.Duration.Std()), Service: s.Name, Stall: pickOf()})
	default:
		tick := cmp.Or(sc.Clock.Tick.Std(), time.Second)
		as := &scenario.Autoscale{
			Metric:   []string{scenario.AutoscaleUtilisation, scenario.AutoscaleCPU}[z.intn(2)],
			Target:   scenario.Fraction(float64(z.between(1, 10)) / 10),
			Window:   scenario.Duration(tick * time.Duration(z.between(1, 4))),
			StepUp:   z.between(1, 4),
			StepDown: z.between(0, 3),
			Max:      s.Instances + z.between(0, 6),
			Cooldown: z.dur(0, 3*time.Second),
			Delays:   scenario.AutoscaleDelays{Scheduled: z.dur(0, 2*time.Second), ProcessReady: z.dur(0, 2*time.Second)},
		}
		if z.bool() {
			as.Min = z.between(1, s.Instances)
		}
		if z.bool() {
			as.ControlPlane = scenario.ControlPlane{QueueAgeAbove: z.dur(time.Millisecond, 500*time.Millisecond)}
			if z.bool() {
				as.ControlPlane.Fails = true
			} else {
				as.ControlPlane.SlowBy = z.dur(time.Millisecond, 5*time.Second)
			}
		}
		s.Autoscale = as
	}
}

// addLoadBehaviour gives a service or a dependency a load factor, garbage collection, a
// hang rate (or a fault of one) or a ceiling that rejects.
func addLoadBehaviour(sc *scenario.Scenario, z *fuzzBytes) {
	t := &sc.Topology
	pick := func(n int) int { return z.intn(max(n, 1)) }
	factor := func(capacity bool) *scenario.LoadFactor {
		f := &scenario.LoadFactor{Of: scenario.LoadOfConcurrency, A: float64(z.between(0, 20)) / 10}
		if capacity && z.bool() {
			f.Of = scenario.LoadOfUtilisation
		}
		switch z.intn(3) {
		case 0:
			f.Form = scenario.LoadLinear
		case 1:
			f.Form, f.K = scenario.LoadPolynomial, float64(z.between(1, 30))/10
		default:
			f.Form, f.B = scenario.LoadExponential, float64(z.between(1, 20))/10
		}
		return f
	}
	s := &t.Services[pick(len(t.Services))]
	switch z.intn(5) {
	case 0:
		s.LoadFactor = &scenario.LoadFactors{ServiceTime: factor(true)}
	case 1:
		s.Memory.Limit = cmp.Or(s.Memory.Limit, scenario.Size(z.between(1, 64)<<20))
		s.Memory.PerAttempt = cmp.Or(s.Memory.PerAttempt, scenario.Size(z.between(1, 4096)<<10))
		s.Memory.GC = scenario.GC{Overhead: scenario.Fraction(float64(z.between(1, 99)) / 100), Exponent: float64(z.between(0, 40)) / 10}
	default:
		if len(t.Dependencies) == 0 {
			return
		}
		d := &t.Dependencies[pick(len(t.Dependencies))]
		switch z.intn(4) {
		case 0:
			d.LoadFactor = &scenario.LoadFactors{ServiceTime: factor(d.Concurrency > 0)}
			if z.bool() {
				d.LoadFactor.ErrorRate = factor(d.Concurrency > 0)
			}
		case 1:
			d.HangRate = scenario.Fraction(float64(z.between(0, 10)) / 10)
		case 2:
			h := scenario.Fraction(float64(z.between(0, 10)) / 10)
			sc.Faults = append(sc.Faults, scenario.Fault{At: z.dur(0, sc.Clock.Duration.Std()), For: z.dur(0, sc.Clock.Duration.Std()), Dependency: d.Name, HangRate: &h})
		default:
			d.Concurrency = max(d.Concurrency, z.between(1, 8))
			d.Beyond = []string{scenario.BeyondWait, scenario.BeyondReject}[z.intn(2)]
		}
	}
}

// alert is a random alert rule of any metric and form, fitted to sc's clock and topology
// as they are (a later mutation may make it invalid).
func alert(sc *scenario.Scenario, z *fuzzBytes) scenario.Alert {
	t := &sc.Topology
	tick := cmp.Or(sc.Clock.Tick.Std(), time.Second)
	ticks := max(1, int(sc.Clock.Duration.Std()/tick)) // the most a window or n_of_m spans
	a := scenario.Alert{Name: fmt.Sprintf("al%d", len(sc.Alerts)), Window: scenario.Duration(tick * time.Duration(min(z.between(0, 4), ticks)))}
	pct := scenario.Bound{Value: float64(z.between(0, 100)) / 100, Unit: scenario.UnitPercent}
	switch z.intn(5) {
	case 0:
		a.Metric = []string{scenario.AlertTimeoutRate, scenario.AlertGoodputFraction, scenario.AlertSuccessRate}[z.intn(3)]
	case 1:
		a.Metric = []string{scenario.AlertLatencyP50, scenario.AlertLatencyP99, scenario.AlertLatencyP999}[z.intn(3)]
		pct = scenario.Bound{Value: float64(time.Duration(z.between(1, 500)) * time.Millisecond), Unit: scenario.UnitDuration}
	case 2:
		a.Metric = scenario.AlertAmplification
		pct = scenario.Bound{Value: 1 + float64(z.intn(10))/10, Unit: scenario.UnitNumber}
	default:
		a.Metric = scenario.AlertUtilisation
		r := scenario.Resource{Of: scenario.ResourceAdmission}
		switch z.intn(3) {
		case 0:
			if len(t.Dependencies) > 0 {
				d := t.Dependencies[z.intn(len(t.Dependencies))]
				switch {
				case d.Pool.PerInstance > 0 && (d.Concurrency == 0 || z.bool()):
					r.Dependency, r.Of = d.Name, scenario.ResourcePool
				case d.Concurrency > 0:
					r.Dependency, r.Of = d.Name, scenario.ResourceConcurrency
				}
			}
		case 1:
			r.Service, r.Of = t.Services[z.intn(len(t.Services))].Name, scenario.ResourceWorkers
		}
		a.Resource = &r
	}
	if z.bool() {
		a.Above = &pct
	} else {
		a.Below = &pct
	}
	switch z.intn(3) {
	case 0:
		a.For = z.dur(0, 2*time.Second)
	case 1:
		n := min(z.between(1, 4), ticks)
		a.NOfM = &scenario.NOfM{N: n, M: min(n+z.intn(4), ticks)}
	}
	if z.bool() {
		a.ClearFor = z.dur(0, 2*time.Second)
	}
	return a
}

// actionSeeds are fuzz inputs whose mutations add an action (an entry's timeout for every
// arm; a scale-in for one arm) or an arm's set (a rate limit), on the minimal scenario.
var actionSeeds = [][]byte{
	{0, 20, 0, 100, 1, 128, 0},
	{0, 20, 2, 0, 1, 200, 1},
	{0, 20, 1, 50, 0},
}

// TestFuzzAddsActions: the action seeds add what they say, and the result replays.
func TestFuzzAddsActions(t *testing.T) {
	for i, in := range actionSeeds {
		sc := minimalScenario()
		z := &fuzzBytes{b: in[1:]}
		for len(z.b) > 0 {
			mutate(sc, z)
		}
		if len(sc.Actions)+len(sc.Arms[0].Set) != 1 {
			t.Errorf("seed %d adds %d actions and %d sets; want one of either", i, len(sc.Actions), len(sc.Arms[0].Set))
			continue
		}
		if err := sc.Validate(); err != nil {
			t.Errorf("seed %d: %v", i, err)
			continue
		}
		checkReplay(t, sc, 1)
	}
}

// addAction adds an action at an instant of the run, for every arm or one, that changes
// one input an action may change, within what the estimate's bounds allow (no more
// retries, instances or offered load than before).
func addAction(sc *scenario.Scenario, z *fuzzBytes) {
	t := &sc.Topology
	pick := func(n int) int { return z.intn(max(n, 1)) }
	ms := time.Millisecond
	set := scenario.Sets{}
	e := t.Entries[pick(len(t.Entries))]
	s := t.Services[pick(len(t.Services))]
	switch z.intn(7) {
	case 0:
		set["topology.entries."+e.Name+".timeout"] = z.dur(0, 500*ms).String()
	case 1:
		set["topology.entries."+e.Name+".rate_limit"] = fmt.Sprintf("%d/s", z.between(0, 200))
	case 2:
		set["topology.services."+s.Name+".instances"] = int64(z.between(1, s.Instances))
	case 3:
		set["topology.services."+s.Name+".workers"] = int64(z.between(1, 8))
	default:
		if len(t.Dependencies) == 0 {
			return
		}
		d := t.Dependencies[pick(len(t.Dependencies))]
		p := "topology.dependencies." + d.Name + "."
		switch z.intn(4) {
		case 0:
			set[p+"timeout"] = z.dur(0, 300*ms).String()
		case 1:
			set[p+"pool.per_instance"], set[p+"concurrency"] = int64(z.between(0, 8)), int64(z.between(0, 8))
		case 2:
			p50 := z.dur(ms, 50*ms)
			set[p+"service_time"] = map[string]any{"p50": p50.String(), "p99": (p50 * scenario.Duration(z.between(1, 20))).String()}
			set[p+"error_rate"] = fmt.Sprintf("%d%%", z.between(0, 100))
		default: // a stage switched to another dependency that retries no more
			c := sc.Classes[pick(len(sc.Classes))]
			st := c.Stages[pick(len(c.Stages))]
			if st.Dependency == "" || st.Cache != "" || st.Mutation != "" {
				return
			}
			cur := slices.IndexFunc(t.Dependencies, func(x scenario.Dependency) bool { return x.Name == st.Dependency })
			for _, o := range t.Dependencies {
				if o.Name != st.Dependency && o.Retries.Max <= t.Dependencies[cur].Retries.Max {
					set["classes."+c.Name+".stages."+st.Name+".dependency"] = o.Name
					break
				}
			}
		}
	}
	if len(set) == 0 {
		return
	}
	if z.intn(4) == 0 { // an arm's set instead, from the start
		a := &sc.Arms[pick(len(sc.Arms))]
		if a.Set == nil {
			a.Set = scenario.Sets{}
		}
		for k, v := range set {
			a.Set[k] = v
		}
		return
	}
	act := scenario.Action{At: z.dur(0, sc.Clock.Duration.Std()-ms), Set: set, Note: "fuzz"}
	if z.bool() {
		act.Arms = []string{sc.Arms[pick(len(sc.Arms))].Name}
	}
	sc.Actions = append(sc.Actions, act)
}

// retries is a random retry policy: its backoff none, constant, or (a third of the time)
// exponential with a cap and a jitter.
func retries(z *fuzzBytes) scenario.Retries {
	r := scenario.Retries{Max: z.between(0, 2)}
	if b := z.dur(0, 20*time.Millisecond); b > 0 {
		r.Backoff = scenario.Backoff{Initial: b, Multiplier: 1}
		if z.intn(3) == 0 {
			r.Backoff = backoff(z, b)
		}
	}
	for _, on := range []string{scenario.RetryOnTimeout, scenario.RetryOnError, scenario.RetryOnOverload} {
		if z.intn(3) == 0 {
			r.On = append(r.On, on)
		}
	}
	return r
}

// backoff is a random exponential backoff from initial: a multiplier from 1 to 3, a cap
// of up to eight times initial (or none) and any jitter.
func backoff(z *fuzzBytes, initial scenario.Duration) scenario.Backoff {
	return scenario.Backoff{
		Initial:    initial,
		Multiplier: float64(z.between(2, 6)) / 2,
		Max:        initial * scenario.Duration(z.intn(9)),
		Jitter:     []string{"", scenario.JitterNone, scenario.JitterFull, scenario.JitterEqual}[z.intn(4)],
	}
}

// policy is a random policy for sc.
func policy(sc *scenario.Scenario, z *fuzzBytes) scenario.Policy {
	ms := time.Millisecond
	var p scenario.Policy
	p.Deadline = scenario.DeadlinePolicy{Propagate: z.bool(), Cancel: z.bool(), Reserve: z.dur(0, 50*ms)}
	p.Identity = z.bool()
	if z.bool() {
		p.Retries = scenario.RetryPolicy{Mode: scenario.RetryModeBudget, Budget: &scenario.BudgetPolicy{Ratio: scenario.Fraction(float64(z.between(0, 20)) / 100), MinPerSecond: scenario.Rate(z.between(0, 5))}}
	}
	if z.bool() {
		p.DependencyTimeout = scenario.TimeoutDerived
	}
	if z.bool() {
		p.Queue = scenario.QueuePolicy{Kind: scenario.QueueAge, MaxAge: z.dur(0, 500*ms)}
		if z.bool() {
			p.Queue.Target, p.Queue.AdaptiveLIFO = z.dur(ms, 20*ms), z.bool()
		}
	}
	if z.bool() {
		p.Admission = &scenario.AdmissionPolicy{Adaptive: z.bool(), Reserve: scenario.Reserve{Continuation: scenario.Fraction(float64(z.intn(3)) / 10)}}
	}
	if z.bool() {
		p.Shed = &scenario.ShedPolicy{}
	}
	if z.bool() && len(sc.Topology.Dependencies) > 0 {
		p.LoadState = &scenario.LoadStatePolicy{Preset: scenario.LoadStateNorthstar}
	}
	if z.bool() {
		p.Readiness = scenario.ReadyWarm
	}
	return p
}

// shareEvenly gives the classes that draw from load.schedule (those without a schedule of
// their own) equal shares.
func shareEvenly(sc *scenario.Scenario) {
	n := 0
	for _, c := range sc.Classes {
		if len(c.Schedule) == 0 {
			n++
		}
	}
	for i := range sc.Classes {
		if len(sc.Classes[i].Schedule) == 0 {
			sc.Classes[i].Share = scenario.Fraction(1 / float64(n))
		}
	}
}

// addClients adds one of the client-population mechanisms: a ramp on a rate step of
// load.schedule, a burst, a class's own schedule (with a ramp or a burst), or a
// population of closed-loop users.
func addClients(sc *scenario.Scenario, z *fuzzBytes) {
	ms := time.Millisecond
	end := sc.Clock.Duration.Std()
	burst := func() scenario.RateStep {
		at := z.dur(0, end-ms)
		st := scenario.RateStep{At: at, Burst: z.between(1, 200)}
		if z.bool() {
			st.Within = z.dur(0, end-at.Std())
		}
		return st
	}
	sortSteps := func(steps []scenario.RateStep) {
		slices.SortStableFunc(steps, func(a, b scenario.RateStep) int { return int(a.At - b.At) })
	}
	switch z.intn(4) {
	case 0: // a ramp
		if len(sc.Load.Schedule) == 0 {
			return
		}
		st := &sc.Load.Schedule[z.intn(len(sc.Load.Schedule))]
		if !st.IsBurst() {
			r := scenario.Rate(z.between(0, 300))
			st.RampTo = &r
		}
	case 1: // a burst
		if len(sc.Load.Schedule) == 0 {
			return
		}
		sc.Load.Schedule = append(sc.Load.Schedule, burst())
		sortSteps(sc.Load.Schedule)
	case 2: // a class's own schedule
		c := &sc.Classes[z.intn(len(sc.Classes))]
		if len(c.Schedule) > 0 {
			return
		}
		others := 0
		for _, o := range sc.Classes {
			if len(o.Schedule) == 0 {
				others++
			}
		}
		if others < 2 && len(sc.Load.Schedule) > 0 {
			return // load.schedule needs a class to draw from it
		}
		c.Schedule = []scenario.RateStep{{Rate: scenario.Rate(z.between(1, 150))}}
		if z.bool() {
			r := scenario.Rate(z.between(0, 150))
			c.Schedule[0].RampTo = &r
		}
		if z.bool() {
			c.Schedule = append(c.Schedule, burst())
			sortSteps(c.Schedule)
		}
		c.Share = 0
		shareEvenly(sc)
	default: // closed-loop users
		u := scenario.Users{
			Name:  fmt.Sprintf("u%d", len(sc.Load.Users)),
			Count: z.between(1, 20),
			Class: sc.Classes[z.intn(len(sc.Classes))].Name,
			Think: scenario.Dist{Mean: z.dur(10*ms, time.Second)},
		}
		if z.bool() {
			u.AbandonAfter = z.dur(0, time.Second)
		}
		sc.Load.Users = append(sc.Load.Users, u)
	}
}

// clientSeeds each add one client mechanism to the minimal scenario (after its first byte,
// the base): a ramp, a burst, a class's own schedule (after a class more), and users.
var clientSeeds = [][]byte{
	{0, 21, 0, 150},
	{0, 21, 1, 128, 100, 1, 128},
	{0, 7, 100, 0, 0, 100, 21, 2, 1, 50, 1, 80, 1, 128, 30, 0},
	{0, 21, 3, 9, 100, 1, 100},
}

// TestFuzzAddsClients: the client seeds add what they say, and the result replays within
// its estimate.
func TestFuzzAddsClients(t *testing.T) {
	added := []func(*scenario.Scenario) bool{
		func(sc *scenario.Scenario) bool { return sc.Load.Schedule[0].RampTo != nil },
		func(sc *scenario.Scenario) bool {
			return slices.ContainsFunc(sc.Load.Schedule, scenario.RateStep.IsBurst)
		},
		func(sc *scenario.Scenario) bool { return len(sc.Classes) == 2 && len(sc.Classes[1].Schedule) == 2 },
		func(sc *scenario.Scenario) bool { return len(sc.Load.Users) == 1 && sc.Load.Users[0].AbandonAfter > 0 },
	}
	for i, in := range clientSeeds {
		sc := minimalScenario()
		z := &fuzzBytes{b: in[1:]}
		for len(z.b) > 0 {
			mutate(sc, z)
		}
		if !added[i](sc) {
			t.Errorf("seed %d does not add its mechanism", i)
			continue
		}
		if err := sc.Validate(); err != nil {
			t.Errorf("seed %d: %v", i, err)
			continue
		}
		checkReplay(t, sc, 1)
	}
}

// addPoolAcquireAndJob gives a dependency a bounded pool with an acquire timeout, and the
// scenario a retry job of a class at an instant of the run, in every arm or the first.
func addPoolAcquireAndJob(sc *scenario.Scenario, z *fuzzBytes) {
	if deps := sc.Topology.Dependencies; len(deps) > 0 {
		d := &deps[z.intn(len(deps))]
		if d.Pool.PerInstance == 0 {
			d.Pool.PerInstance = z.between(1, 8)
		}
		d.Pool.AcquireTimeout = scenario.Duration(z.dur(time.Millisecond, 200*time.Millisecond))
	}
	end := sc.Clock.Duration.Std()
	j := scenario.Job{
		Name:  fmt.Sprintf("job%d", len(sc.Jobs)),
		Kind:  scenario.JobRetryFailed,
		Class: sc.Classes[z.intn(len(sc.Classes))].Name,
		At:    scenario.Duration(z.dur(0, end-time.Millisecond)),
		Rate:  scenario.Rate(z.between(1, 500)),
	}
	if z.bool() && len(sc.Arms) > 1 {
		j.Arms = []string{sc.Arms[0].Name}
	}
	sc.Jobs = append(sc.Jobs, j)
}
