package model

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
)

func decode(t testing.TB, src string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Decode("test.scenario.yaml", []byte(src))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return sc
}

// fates runs sc and checks that every offered logical request of every arm was rejected
// or reached exactly one terminal state, and that the packet's populations agree.
func fates(t *testing.T, sc *scenario.Scenario, seed uint64) *packet.Packet {
	t.Helper()
	seen := map[string]map[int64]int{}
	var mu sync.Mutex // the hooks are called from every arm's goroutine
	mark := func(arm string, id int64) {
		mu.Lock()
		defer mu.Unlock()
		m := seen[arm]
		if m == nil {
			m = map[int64]int{}
			seen[arm] = m
		}
		m[id]++
	}
	h := &hooks{
		rejected: func(arm string, id int64) { mark(arm, id) },
		terminal: func(arm string, id int64, _ packet.Outcome) { mark(arm, id) },
	}
	pk, err := run(context.Background(), sc, Options{Seed: seed}, h)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	for _, a := range pk.Arms {
		tot := a.Totals
		if tot.Offered != tot.Admitted+tot.Rejected {
			t.Errorf("%s: offered %d != admitted %d + rejected %d", a.Name, tot.Offered, tot.Admitted, tot.Rejected)
		}
		if sum := tot.Goodput + tot.Late + tot.Expired + tot.Failed + tot.Ambiguous; sum != tot.Admitted {
			t.Errorf("%s: admitted %d != terminal states %d (%+v)", a.Name, tot.Admitted, sum, tot)
		}
		if tot.Unfinished != 0 {
			t.Errorf("%s: %d unfinished", a.Name, tot.Unfinished)
		}
		m := seen[a.Name]
		if int64(len(m)) != tot.Offered {
			t.Errorf("%s: %d distinct requests reached a fate, offered %d", a.Name, len(m), tot.Offered)
		}
		for id := range tot.Offered {
			if n := m[id]; n != 1 {
				t.Errorf("%s: request %d reached %d fates, want exactly 1", a.Name, id, n)
				break
			}
		}
		for _, inv := range a.Invariants {
			if !inv.Pass {
				t.Errorf("%s: invariant %s failed: %s", a.Name, inv.Name, inv.Message)
			}
		}
		// An arm with a retry budget deposits each admitted request once and takes a
		// token for every retry it makes (a token taken may go unused, when the request
		// ends during the backoff); an arm without one reports none.
		if rb, budgeted := a.Retry.Budget, sc.Arms[armIndex(sc, a.Name)].Policy.Retries.Mode == scenario.RetryModeBudget; budgeted != (rb != nil) {
			t.Errorf("%s: budget counts %v for an arm with a budget: %v", a.Name, rb, budgeted)
		} else if rb != nil && (rb.Deposits != tot.Admitted || rb.TokensUsed < a.Retry.Retries) {
			t.Errorf("%s: budget deposits %d (admitted %d), tokens used %d (retries %d)", a.Name, rb.Deposits, tot.Admitted, rb.TokensUsed, a.Retry.Retries)
		}
	}
	if len(pk.Arms) > 1 {
		for _, a := range pk.Arms[1:] {
			if a.Totals.Offered != pk.Arms[0].Totals.Offered {
				t.Errorf("offered differs between arms: %s %d, %s %d", pk.Arms[0].Name, pk.Arms[0].Totals.Offered, a.Name, a.Totals.Offered)
			}
		}
	}
	return pk
}

// small is a two-arm scenario on a topology unlike Northstar's: two entries, two
// services, a keyed dependency with a mutation and an unreliable optional one.
const small = `
name: small
clock: {duration: 20s, tick: 500ms}
load:
  schedule: [{at: 0s, rate: 400/s}, {at: 10s, rate: 700/s}]
classes:
  - name: buy
    share: 70%
    deadline: 300ms
    stages:
      - {name: prepare, work: {mean: 2ms}}
      - {name: charge, dependency: pay, mutation: payment_authorization}
      - {name: extras, dependency: flaky, optional: true}
  - name: browse
    share: 30%
    deadline: 200ms
    entry: mobile
    admission: sheddable
    idempotent: true
    stages:
      - {name: render, work: {p50: 3ms, p99: 20ms}}
topology:
  entries:
    - {name: web, target: shop, timeout: 150ms, retries: {max: 2}}
    - {name: mobile, target: catalog, timeout: 100ms, retries: {max: 1, on: [timeout]}}
  services:
    - {name: shop, instances: 2, workers: 4, queue: {capacity: 40}}
    - {name: catalog, instances: 1, workers: 2, router: round_robin}
  dependencies:
    - {name: pay, service_time: {p50: 10ms, p99: 80ms}, pool: {per_instance: 3}, timeout: 60ms, retries: {max: 1, on: [timeout]}, keyed: true}
    - {name: flaky, service_time: {p50: 5ms, p99: 30ms}, error_rate: 20%, concurrency: 4}
faults:
  - {at: 5s, for: 8s, dependency: pay, service_time: {p50: 20ms, p99: 200ms}}
  - {at: 8s, scale: {service: shop, add: 2}}
arms:
  - name: baseline
    policy: {}
  - name: protected
    policy:
      deadline: {propagate: true, cancel: true, reserve: 20ms}
      identity: true
      retries: {mode: budget, budget: {ratio: 10%}}
      dependency_timeout: derived
      queue: {kind: age, max_age: 200ms, target: 5ms, adaptive_lifo: true}
      admission: {adaptive: true, reserve: {continuation: 10%}}
      shed: {plan: default}
      loadstate: {preset: northstar}
      readiness: warm
`

func TestConservation(t *testing.T) {
	pk := fates(t, decode(t, small), 7)
	base, prot := pk.Arms[0], pk.Arms[1]
	if base.Totals.Offered < 9000 {
		t.Fatalf("offered %d, want about 11000", base.Totals.Offered)
	}
	if prot.Duplicates.Total() != 0 {
		t.Errorf("protected arm has %d duplicates; identity should deduplicate", prot.Duplicates.Total())
	}
	if base.Totals.Orphans == 0 {
		t.Errorf("baseline has no orphans although nothing is cancelled")
	}
	if prot.Totals.Orphans != 0 {
		t.Errorf("protected arm has %d orphans although everything is cancelled", prot.Totals.Orphans)
	}
}

// packetJSON replays sc with seed and returns its packet as JSON.
func packetJSON(t *testing.T, sc *scenario.Scenario, seed uint64) []byte {
	t.Helper()
	pk, err := Run(context.Background(), sc, Options{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(pk)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDeterminism(t *testing.T) {
	sc := decode(t, small)
	encode := func(seed uint64) []byte { return packetJSON(t, sc, seed) }
	a, b := encode(3), encode(3)
	if !bytes.Equal(a, b) {
		t.Fatal("two runs with seed 3 gave different packets")
	}
	if c := encode(4); bytes.Equal(a, c) {
		t.Fatal("seeds 3 and 4 gave the same packet")
	}
}

// TestArmDone: Options.ArmDone hears from every arm once, with the events its engine
// delivered — at least one arrival and one completion per admitted request, and the same
// count on a second run.
func TestArmDone(t *testing.T) {
	sc := decode(t, small)
	count := func() map[string]uint64 {
		var mu sync.Mutex
		got := map[string]uint64{}
		calls := 0
		pk, err := Run(context.Background(), sc, Options{Seed: 3, ArmDone: func(arm string, events uint64) {
			mu.Lock()
			defer mu.Unlock()
			got[arm] += events
			calls++
		}})
		if err != nil {
			t.Fatal(err)
		}
		if calls != len(pk.Arms) {
			t.Fatalf("ArmDone called %d times for %d arms", calls, len(pk.Arms))
		}
		for _, a := range pk.Arms {
			if least := uint64(a.Totals.Offered + a.Totals.Admitted); got[a.Name] < least {
				t.Errorf("%s: %d events for %d offered and %d admitted requests", a.Name, got[a.Name], a.Totals.Offered, a.Totals.Admitted)
			}
		}
		return got
	}
	if a, b := count(), count(); !maps.Equal(a, b) {
		t.Errorf("event counts differ between two runs: %v and %v", a, b)
	}
}

// TestCommonRandomNumbers: an arm whose policy is the baseline's, under another name,
// draws exactly the same numbers, so the two arms' packets agree in every population.
func TestCommonRandomNumbers(t *testing.T) {
	sc := decode(t, small)
	sc.Arms = []scenario.Arm{{Name: "a"}, sc.Arms[1], {Name: "b"}}
	pk, err := Run(context.Background(), sc, Options{Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	if pk.Arms[0].Totals != pk.Arms[2].Totals {
		t.Fatalf("identical policies differ:\n%+v\n%+v", pk.Arms[0].Totals, pk.Arms[2].Totals)
	}
}

// randomScenario builds a small scenario on a random topology with random policies.
func randomScenario(r *rand.Rand, i int) *scenario.Scenario {
	ms := func(lo, hi int) scenario.Duration {
		return scenario.Duration(time.Duration(lo+r.IntN(hi-lo+1)) * time.Millisecond)
	}
	retries := func() scenario.Retries {
		rt := scenario.Retries{Max: r.IntN(3)}
		for _, on := range []string{"timeout", "error", "overload"} {
			if r.IntN(2) == 0 {
				rt.On = append(rt.On, on)
			}
		}
		if r.IntN(2) == 0 {
			rt.Backoff = scenario.Backoff{Initial: ms(1, 20), Multiplier: 1}
		}
		return rt
	}
	sc := &scenario.Scenario{
		Name:  fmt.Sprintf("random-%d", i),
		Clock: scenario.Clock{Duration: scenario.Duration(time.Duration(3+r.IntN(8)) * time.Second), Tick: ms(100, 1000)},
	}
	if r.IntN(3) == 0 {
		sc.Load.Arrivals = scenario.ArrivalsUniform
	}
	for k, at := 0, 0; k < 1+r.IntN(3); k++ {
		st := scenario.RateStep{At: scenario.Duration(time.Duration(at) * time.Second), Rate: scenario.Rate(20 + r.IntN(400))}
		if st.At < sc.Clock.Duration { // a step after the run, which the model ignored, is invalid
			sc.Load.Schedule = append(sc.Load.Schedule, st)
		}
		at += 1 + r.IntN(3)
	}
	nsvc, ndep := 1+r.IntN(2), r.IntN(4)
	for k := range nsvc {
		sv := scenario.Service{
			Name: fmt.Sprintf("svc%d", k), Instances: 1 + r.IntN(3), Workers: 1 + r.IntN(6),
			Router: []string{"", "round_robin", "random", "least_loaded"}[r.IntN(4)],
		}
		if r.IntN(2) == 0 {
			sv.Queue.Capacity = 1 + r.IntN(30)
		}
		if r.IntN(2) == 0 {
			sv.Cold = scenario.Cold{Startup: ms(0, 2000), RateFactor: scenario.Factor(0.2 + 0.8*r.Float64()), For: ms(0, 3000)}
		}
		sc.Topology.Services = append(sc.Topology.Services, sv)
	}
	for k := range ndep {
		p50 := 1 + r.IntN(15)
		d := scenario.Dependency{
			Name:        fmt.Sprintf("dep%d", k),
			ServiceTime: scenario.Quantiles{P50: ms(p50, p50), P99: ms(p50, p50*8)},
			Retries:     retries(),
			Keyed:       r.IntN(2) == 0,
		}
		if r.IntN(3) == 0 {
			d.ErrorRate = scenario.Fraction(0.3 * r.Float64())
		}
		if r.IntN(2) == 0 {
			d.Concurrency = 1 + r.IntN(10)
		}
		if r.IntN(2) == 0 {
			d.Pool.PerInstance = 1 + r.IntN(5)
		}
		if r.IntN(3) != 0 {
			d.Timeout = ms(5, 150)
		}
		sc.Topology.Dependencies = append(sc.Topology.Dependencies, d)
	}
	for k := range 1 + r.IntN(2) {
		e := scenario.Entry{Name: fmt.Sprintf("entry%d", k), Target: fmt.Sprintf("svc%d", r.IntN(nsvc)), Retries: retries()}
		if r.IntN(4) != 0 {
			e.Timeout = ms(10, 400)
		}
		sc.Topology.Entries = append(sc.Topology.Entries, e)
	}
	ncls := 1 + r.IntN(3)
	left := 1.0
	for k := range ncls {
		share := left
		if k < ncls-1 {
			share = left * (0.2 + 0.6*r.Float64())
		}
		left -= share
		c := scenario.Class{
			Name: fmt.Sprintf("class%d", k), Share: scenario.Fraction(share), Deadline: ms(30, 800),
			Admission:  []string{"", "continuation", "lookup", "standard", "sheddable"}[r.IntN(5)],
			Idempotent: r.IntN(2) == 0,
			Entry:      fmt.Sprintf("entry%d", r.IntN(len(sc.Topology.Entries))),
		}
		for s := range 1 + r.IntN(5) {
			st := scenario.Stage{Name: fmt.Sprintf("s%d", s), Optional: r.IntN(3) == 0}
			if ndep > 0 && r.IntN(2) == 0 {
				st.Dependency = fmt.Sprintf("dep%d", r.IntN(ndep))
				if !st.Optional && r.IntN(3) == 0 {
					st.Mutation = []string{"payment_authorization", "order_commit"}[r.IntN(2)]
				}
			} else {
				switch r.IntN(3) {
				case 0:
					st.Work = scenario.Dist{Constant: ms(1, 10)}
				case 1:
					st.Work = scenario.Dist{Mean: ms(1, 10)}
				default:
					st.Work = scenario.Dist{P50: ms(1, 5), P99: ms(5, 30)}
				}
			}
			c.Stages = append(c.Stages, st)
		}
		sc.Classes = append(sc.Classes, c)
	}
	// Shares must sum to exactly 1 in floating point for the validator's tolerance.
	sum := 0.0
	for _, c := range sc.Classes[:ncls-1] {
		sum += float64(c.Share)
	}
	sc.Classes[ncls-1].Share = scenario.Fraction(1 - sum)

	end := time.Duration(sc.Clock.Duration)
	for range r.IntN(4) {
		f := scenario.Fault{At: scenario.Duration(time.Duration(r.Int64N(int64(end))))}
		switch r.IntN(4) {
		case 0:
			if ndep == 0 {
				continue
			}
			f.Dependency = fmt.Sprintf("dep%d", r.IntN(ndep))
			q := scenario.Quantiles{P50: ms(5, 20), P99: ms(20, 300)}
			f.ServiceTime = &q
			f.For = ms(0, 3000)
		case 1:
			f.Service = fmt.Sprintf("svc%d", r.IntN(nsvc))
			f.WorkFactor = scenario.Factor(0.5 + 3*r.Float64())
			f.For = ms(0, 3000)
		case 2:
			f.Shift = &scenario.Shift{Rate: scenario.Factor(0.5 + r.Float64())}
			f.For = ms(0, 3000)
		default:
			f.Scale = &scenario.Scale{Service: fmt.Sprintf("svc%d", r.IntN(nsvc)), Add: 1 + r.IntN(3)}
		}
		if f.For > scenario.Duration(end)-f.At {
			f.For = scenario.Duration(end) - f.At // to the end of the run, as the model took it
		}
		sc.Faults = append(sc.Faults, f)
	}

	// Caches: some services hold one, some of those in a memory limit the attempts can
	// fill; some dependency stages read through the cache of the service they run on.
	if ndep > 0 && r.IntN(2) == 0 {
		sc.Load.Keys = scenario.Keys{Count: 1 + r.IntN(5000)}
		if r.IntN(2) == 0 {
			sc.Load.Keys.Zipf = 1.01 + 1.5*r.Float64()
		}
		for k := range sc.Topology.Services {
			sv := &sc.Topology.Services[k]
			if r.IntN(3) == 0 {
				continue
			}
			c := scenario.Cache{Name: sv.Name + "-cache", Service: sv.Name, Entries: 1 + r.IntN(3000), EntrySize: scenario.Size(1 << (10 + r.IntN(6)))}
			if r.IntN(2) == 0 {
				full := float64(c.Entries) * float64(c.EntrySize)
				sv.Memory.Limit = scenario.Size(full * (0.2 + 1.3*r.Float64()))
				sv.Memory.PerAttempt = scenario.Size(full / float64(1+r.IntN(50)))
			}
			sc.Topology.Caches = append(sc.Topology.Caches, c)
		}
		behind := map[string]string{} // a cache's dependency: the first stage reading it says
		for k := range sc.Classes {
			cl := &sc.Classes[k]
			target := sc.Topology.Entries[slices.IndexFunc(sc.Topology.Entries, func(e scenario.Entry) bool { return e.Name == cl.Entry })].Target
			if !slices.ContainsFunc(sc.Topology.Caches, func(c scenario.Cache) bool { return c.Service == target }) {
				continue
			}
			for s := range cl.Stages {
				st := &cl.Stages[s]
				name := target + "-cache"
				if st.Dependency == "" || st.Mutation != "" || r.IntN(2) != 0 {
					continue
				}
				if d, ok := behind[name]; ok && d != st.Dependency {
					continue
				}
				behind[name] = st.Dependency
				st.Cache = name
			}
		}
		// A cache no stage reads, and memory beside no cache, would be refused.
		sc.Topology.Caches = slices.DeleteFunc(sc.Topology.Caches, func(c scenario.Cache) bool { return behind[c.Name] == "" })
		if len(sc.Topology.Caches) == 0 {
			sc.Topology.Caches = nil // as decoding leaves it
		}
		for k := range sc.Topology.Services {
			if sv := &sc.Topology.Services[k]; behind[sv.Name+"-cache"] == "" {
				sv.Memory = scenario.Memory{}
			}
		}
	}

	pol := scenario.Policy{
		Deadline: scenario.DeadlinePolicy{Propagate: r.IntN(2) == 0, Cancel: r.IntN(2) == 0, Reserve: ms(0, 20)},
		Identity: r.IntN(2) == 0,
	}
	if r.IntN(2) == 0 {
		pol.Retries = scenario.RetryPolicy{Mode: "budget", Budget: &scenario.BudgetPolicy{Ratio: scenario.Fraction(0.2 * r.Float64()), MinPerSecond: scenario.Rate(r.IntN(5))}}
	}
	if r.IntN(2) == 0 {
		pol.DependencyTimeout = "derived"
	}
	if r.IntN(2) == 0 {
		pol.Queue = scenario.QueuePolicy{Kind: "age", MaxAge: ms(0, 300)}
		if r.IntN(2) == 0 {
			pol.Queue.Target, pol.Queue.Interval, pol.Queue.AdaptiveLIFO = ms(1, 10), ms(0, 100), r.IntN(2) == 0
		}
	}
	if r.IntN(2) == 0 {
		pol.Admission = &scenario.AdmissionPolicy{Adaptive: r.IntN(2) == 0, Target: ms(0, 30), Reserve: scenario.Reserve{Continuation: scenario.Fraction(0.2 * r.Float64())}}
	}
	if r.IntN(2) == 0 {
		pol.Shed = &scenario.ShedPolicy{Plan: "default"}
	}
	if r.IntN(2) == 0 {
		pol.LoadState = &scenario.LoadStatePolicy{Preset: "northstar"}
	}
	if r.IntN(2) == 0 {
		pol.Readiness = "warm"
	}
	sc.Arms = []scenario.Arm{{Name: "baseline"}, {Name: "candidate", Policy: pol}}

	// Health checks: some services remove or restart instances whose probes fail.
	for k := range sc.Topology.Services {
		if r.IntN(2) != 0 {
			continue
		}
		h := scenario.Health{Interval: ms(50, 1000), Failures: r.IntN(4), Action: scenario.HealthRemove}
		h.Timeout = ms(1, int(time.Duration(h.Interval)/time.Millisecond))
		if r.IntN(2) == 0 {
			h.Action = scenario.HealthRestart
			h.Restart = ms(0, 2000)
			if r.IntN(2) == 0 {
				h.Backoff = scenario.Backoff{Initial: ms(1, 500), Reset: ms(0, 3000)}
				h.Backoff.Max = h.Backoff.Initial * scenario.Duration(1+r.IntN(8))
			}
		} else {
			h.Successes = r.IntN(3)
		}
		sc.Topology.Services[k].Health = h
	}
	return sc
}

// TestRandomTopologies is a property test: on many random small scenarios, every offered
// request of every arm is rejected or reaches exactly one terminal state, and the arms
// are offered the same load.
// armIndex returns the index of the arm named name in sc.
func armIndex(sc *scenario.Scenario, name string) int {
	return slices.IndexFunc(sc.Arms, func(a scenario.Arm) bool { return a.Name == name })
}

func TestRandomTopologies(t *testing.T) {
	n := 60
	if testing.Short() {
		n = 15
	}
	r := rand.New(rand.NewPCG(2026, 3))
	for i := range n {
		sc := randomScenario(r, i)
		if err := sc.Validate(); err != nil {
			t.Fatalf("scenario %d is invalid: %v", i, err)
		}
		t.Run(sc.Name, func(t *testing.T) { fates(t, sc, uint64(i)) })
	}
}

// erlangC returns the probability that an arrival waits in an M/M/c queue with offered
// load a = λ/μ (in Erlangs).
func erlangC(c int, a float64) float64 {
	sum, term := 0.0, 1.0
	for k := range c {
		if k > 0 {
			term *= a / float64(k)
		}
		sum += term
	}
	term *= a / float64(c)
	top := term * float64(c) / (float64(c) - a)
	return top / (sum + top)
}

// TestQueueingTheory runs one service with c workers, an unbounded FIFO and exponential
// work through the whole model and compares the mean queueing wait with Erlang C (M/M/1
// when c = 1), and the mean number in the system with Little's law.
func TestQueueingTheory(t *testing.T) {
	for _, tc := range []struct {
		c      int
		lambda float64 // per second
		mean   time.Duration
	}{
		{1, 800, time.Millisecond},                               // M/M/1, ρ = 0.8
		{4, 3400, time.Millisecond},                              // M/M/4, ρ = 0.85
		{16, 1500, 10 * time.Millisecond},                        // M/M/16, ρ ≈ 0.94
		{2, 50, 10 * time.Millisecond},                           // light load
		{8, 700, 10 * time.Millisecond},                          // ρ = 0.875
		{1, 300, time.Duration(2.5 * float64(time.Millisecond))}, // ρ = 0.75
	} {
		t.Run(fmt.Sprintf("M/M/%d λ=%v", tc.c, tc.lambda), func(t *testing.T) {
			dur := "400s"
			if testing.Short() {
				dur = "120s"
			}
			src := fmt.Sprintf(`
name: mmc
clock: {duration: %s, tick: 1s}
load: {schedule: [{at: 0s, rate: %v/s}]}
classes:
  - {name: job, share: 100%%, deadline: 1h, stages: [{name: serve, work: {mean: %v}}]}
topology:
  entries: [{name: source, target: server}]
  services: [{name: server, instances: 1, workers: %d}]
arms: [{name: fifo, policy: {}}]
`, dur, tc.lambda, scenario.Duration(tc.mean), tc.c)
			pk, err := Run(context.Background(), decode(t, src), Options{Seed: 5})
			if err != nil {
				t.Fatal(err)
			}
			arm := pk.Arms[0]
			mu := 1 / tc.mean.Seconds()
			a := tc.lambda / mu
			wq := erlangC(tc.c, a) / (float64(tc.c)*mu - tc.lambda) // seconds
			got := arm.Classes[0].QueueWait.Mean.Seconds()
			rel := 0.08 // 400 s: the statistical error is a few percent at ρ = 0.94
			if testing.Short() {
				rel = 0.15
			}
			tol := rel*wq + 0.02*tc.mean.Seconds()
			if math.Abs(got-wq) > tol {
				t.Errorf("mean wait %.3fms, Erlang C %.3fms (tolerance %.3fms)", got*1000, wq*1000, tol*1000)
			}
			t.Logf("mean wait %.3fms, Erlang C %.3fms", got*1000, wq*1000)
			// Little's law: mean number in the system = λ × mean time in the system.
			var inSys float64
			var n int
			for _, row := range arm.Series {
				if row.Sampled {
					inSys += float64(row.InFlight)
					n++
				}
			}
			inSys /= float64(n)
			little := tc.lambda * arm.Latency.Mean.Seconds()
			if math.Abs(inSys-little) > 0.15*little+0.5 { // per-tick samples: about 3 standard errors
				t.Errorf("mean in system %.2f, λW = %.2f", inSys, little)
			}
			t.Logf("mean in system %.2f, λW = %.2f", inSys, little)
		})
	}
}

// TestSingleServerExample runs examples/single-server: when the server slows, the FIFO
// arm's goodput collapses while the server's throughput stays up; the deadline-bounded
// queue keeps goodput.
func TestSingleServerExample(t *testing.T) {
	sc, err := scenario.Load("../examples/single-server/single-server.scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pk := fates(t, sc, sc.Seed)
	window := func(a packet.Arm) (offered, goodput, served float64) {
		for _, r := range a.Series {
			if r.T >= 90*time.Second && r.T < 180*time.Second {
				offered += float64(r.Offered)
				goodput += float64(r.Goodput)
				served += float64(r.Goodput + r.Late + r.Orphans)
			}
		}
		return offered, goodput, served / 90
	}
	fifo, bounded := pk.Arms[0], pk.Arms[1]
	off, good, thr := window(fifo)
	if good/off > 0.05 {
		t.Errorf("fifo goodput is %.0f%% of offered during the slowdown; want a collapse (< 5%%)", 100*good/off)
	}
	// Capacity during the slowdown is 1000/1.3 ≈ 769/s.
	if thr < 700 {
		t.Errorf("fifo server throughput %.0f/s during the slowdown; want it to stay near capacity (≥ 700/s)", thr)
	}
	off, good, _ = window(bounded)
	if good/off < 0.9 {
		t.Errorf("deadline-bounded queue goodput is %.0f%% of offered during the slowdown; want ≥ 90%%", 100*good/off)
	}
}

// Every random scenario survives scenario.With (the JSON round trip under --set) unchanged,
// so that an override changes what it names and nothing else.
func TestRandomScenariosSurviveWith(t *testing.T) {
	r := rand.New(rand.NewPCG(2026, 3))
	for i := range 200 {
		sc := randomScenario(r, i)
		got, err := sc.With()
		if err != nil {
			t.Fatalf("scenario %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, sc) {
			t.Fatalf("scenario %d changed on its way through With", i)
		}
	}
}
