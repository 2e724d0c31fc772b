package model

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
)

// TestBindingConstraintRule pins the rule at fixed gauges: what saturates, what nests in
// what, the tie-breaks, the refinements and the queue-age override.
func TestBindingConstraintRule(t *testing.T) {
	ms := time.Millisecond
	// A checkout service calling risk (pool 20 per instance, 2 instances) and catalog
	// through a cache; risk's concurrency is 100, catalog's 10.
	base := func() *constraintGauges {
		return &constraintGauges{
			Services: []serviceGauge{{
				Name: "checkout", Requested: 2, RouteReady: 2, Busy: 50, Workers: 192, Queued: 0,
				QueueAge: 0, Deadline: 1800 * ms, Calls: []int{0, 1},
				Pools: []poolGauge{{Dependency: 0, InUse: 10, Capacity: 40}, {Dependency: 1, InUse: 4, Capacity: 32}},
			}},
			Dependencies: []dependencyGauge{{Name: "risk", InService: 10, Concurrency: 100}, {Name: "catalog", InService: 4, Concurrency: 10}},
			Caches:       []cacheGauge{{Name: "catalog-cache", Service: 0, Dependency: 1, Held: 2000, Full: 2000}},
		}
	}
	type change func(g *constraintGauges)
	svc := func(f func(s *serviceGauge)) change { return func(g *constraintGauges) { f(&g.Services[0]) } }
	workersFull := svc(func(s *serviceGauge) { s.Busy, s.Queued, s.QueueAge = 192, 300, 180*ms })
	riskPoolFull := svc(func(s *serviceGauge) { s.Pools[0].InUse, s.Pools[0].Waiting = 40, 150 })
	catalogPoolFull := svc(func(s *serviceGauge) { s.Pools[1].InUse, s.Pools[1].Waiting = 32, 20 })
	riskFull := func(g *constraintGauges) { g.Dependencies[0].InService, g.Dependencies[0].Waiting = 100, 5 }
	catalogFull := func(g *constraintGauges) { g.Dependencies[1].InService, g.Dependencies[1].Waiting = 10, 3 }
	coldCache := func(g *constraintGauges) { g.Caches[0].Held = 1800 }
	scaling := svc(func(s *serviceGauge) { s.Requested = 4 })
	oldQueue := svc(func(s *serviceGauge) { s.Queued, s.QueueAge = 300, 1710*ms })
	admissionFull := func(g *constraintGauges) { g.Admission = &admissionGauge{InFlight: 950, Limit: 1000, Rejected: 40} }

	for _, tc := range []struct {
		name    string
		changes []change
		want    string
	}{
		{"nothing saturated", nil, "none"},
		{"workers at 95% with work queued", []change{svc(func(s *serviceGauge) { s.Busy, s.Queued, s.QueueAge = 183, 1, 180*ms })}, "workers:checkout"},
		{"workers just under 95%", []change{svc(func(s *serviceGauge) { s.Busy, s.Queued, s.QueueAge = 182, 40, 180*ms })}, "none"},
		{"workers full, nothing waiting", []change{svc(func(s *serviceGauge) { s.Busy = 192 })}, "none"},
		{"workers full, the queue younger than a tenth of the deadline", []change{workersFull, svc(func(s *serviceGauge) { s.QueueAge = 179 * ms })}, "none"},
		{"workers full, no deadline: any queued work", []change{workersFull, svc(func(s *serviceGauge) { s.QueueAge, s.Deadline = 0, 0 })}, "workers:checkout"},
		{"workers nest a full pool", []change{workersFull, riskPoolFull}, "pool:checkout->risk"},
		{"a pool nests the dependency", []change{workersFull, riskPoolFull, riskFull}, "dependency:risk:concurrency"},
		{"workers nest a dependency they call without a full pool", []change{workersFull, riskFull}, "dependency:risk:concurrency"},
		{"two pools: the one with more waiting", []change{workersFull, riskPoolFull, catalogPoolFull}, "pool:checkout->risk"},
		{"equal waiting: the first along the path", []change{workersFull, riskPoolFull, catalogPoolFull,
			svc(func(s *serviceGauge) { s.Pools[0].Waiting, s.Pools[1].Waiting = 20, 20 })}, "pool:checkout->risk"},
		{"a dependency against another's pool: the one with more waiting", []change{riskPoolFull, catalogFull}, "pool:checkout->risk"},
		{"scale-out not ready: workers", []change{workersFull, scaling}, "ready-capacity:checkout"},
		{"scale-out not ready: a pool", []change{workersFull, riskPoolFull, scaling}, "ready-capacity:checkout"},
		{"scale-out not ready, but the shared dependency binds", []change{workersFull, riskPoolFull, riskFull, scaling}, "dependency:risk:concurrency"},
		{"no instance takes traffic", []change{svc(func(s *serviceGauge) { s.RouteReady, s.Busy, s.Workers = 0, 0, 0 })}, "ready-capacity:checkout"},
		{"a cold cache behind a full dependency", []change{catalogFull, coldCache}, "cache-misses:catalog-cache"},
		{"a cold cache behind a full pool", []change{catalogPoolFull, coldCache}, "cache-misses:catalog-cache"},
		{"a warm cache behind a full dependency", []change{catalogFull}, "dependency:catalog:concurrency"},
		{"a cold cache, its dependency not saturated", []change{coldCache}, "none"},
		{"a cold cache, another dependency saturated", []change{riskFull, coldCache}, "dependency:risk:concurrency"},
		{"admission at its limit, refusing", []change{admissionFull}, "admission"},
		{"admission at its limit, refusing none", []change{admissionFull, func(g *constraintGauges) { g.Admission.Rejected = 0 }}, "none"},
		{"admission under its limit", []change{admissionFull, func(g *constraintGauges) { g.Admission.InFlight = 900 }}, "none"},
		{"admission nests the workers", []change{admissionFull, workersFull}, "workers:checkout"},
		{"queue age past 95% of the deadline", []change{oldQueue}, "queue:checkout"},
		{"queue age overrides a full pool", []change{workersFull, riskPoolFull, riskFull, oldQueue}, "queue:checkout"},
		{"queue age under 95% of the deadline", []change{oldQueue, svc(func(s *serviceGauge) { s.QueueAge = 1709 * ms })}, "none"},
		{"no deadline, no queue-age constraint", []change{oldQueue, svc(func(s *serviceGauge) { s.Deadline = 0 })}, "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := base()
			for _, c := range tc.changes {
				c(g)
			}
			if got := bindingConstraint(g); got != tc.want {
				t.Errorf("bindingConstraint = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestBindingConstraintTwoServices: the tie-break between services is the most waiting,
// then the first; the queue-age override likewise.
func TestBindingConstraintTwoServices(t *testing.T) {
	g := &constraintGauges{Services: []serviceGauge{
		{Name: "a", Requested: 1, RouteReady: 1, Busy: 4, Workers: 4, Queued: 3, QueueAge: 100 * time.Millisecond, Deadline: time.Second},
		{Name: "b", Requested: 1, RouteReady: 1, Busy: 4, Workers: 4, Queued: 5, QueueAge: 100 * time.Millisecond, Deadline: time.Second},
	}}
	if got := bindingConstraint(g); got != "workers:b" {
		t.Errorf("got %q, want workers:b (more queued)", got)
	}
	g.Services[1].Queued = 3
	if got := bindingConstraint(g); got != "workers:a" {
		t.Errorf("got %q, want workers:a (as many queued, first)", got)
	}
	g.Services[0].QueueAge, g.Services[1].QueueAge = time.Second, time.Second
	g.Services[1].Queued = 4
	if got := bindingConstraint(g); got != "queue:b" {
		t.Errorf("got %q, want queue:b (both old, more queued)", got)
	}
}

// singleServer is examples/single-server made deterministic (evenly spaced arrivals and
// constant work, so that nothing queues before the slowdown), with a queue that keeps its
// work (fifo) and one that drops work older than 200 ms (bounded).
const singleServer = `
name: single-server-constraint
clock: {duration: 3m, tick: 1s}
load:
  arrivals: uniform
  schedule: [{at: 0s, rate: 800/s}]
classes:
  - name: request
    share: 100%
    deadline: 250ms
    stages:
      - {name: serve, work: 1ms}
topology:
  entries:
    - {name: clients, target: server, timeout: 2s}
  services:
    - {name: server, instances: 1, workers: 1, queue: {capacity: 0}}
faults:
  - {at: 1m, for: 1m, service: server, work_factor: 130%}
arms:
  - name: fifo
    policy: {}
  - name: bounded
    policy:
      deadline: {propagate: true, cancel: true, reserve: 5ms}
      queue: {kind: age, max_age: 200ms}
`

// TestConstraintMovesInSingleServer replays the single server: nothing binds before the
// slowdown; in it the worker binds first, and in the FIFO arm the queue once its oldest
// work has waited 95% of the 250 ms deadline, until the backlog has drained after the
// slowdown; the age-bounded queue never gets that old, so its worker binds throughout.
func TestConstraintMovesInSingleServer(t *testing.T) {
	pk := fates(t, decode(t, singleServer), 1)
	at := func(a packet.Arm, s int) string {
		t.Helper()
		r := a.Series[s]
		if !r.Sampled {
			t.Fatalf("%s: tick %d not sampled", a.Name, s)
		}
		return r.Constraint
	}
	fifo, bounded := pk.Arms[0], pk.Arms[1]
	for s := range 60 {
		for _, a := range pk.Arms {
			if c := at(a, s); c != "none" {
				t.Fatalf("%s: constraint %q at %ds, before the slowdown; want none", a.Name, c, s)
			}
		}
	}
	for _, tc := range []struct {
		arm  packet.Arm
		s    int
		want string
	}{
		{fifo, 61, "workers:server"}, // 2 s in: about 80 ms of backlog
		{fifo, 70, "queue:server"},   // 11 s in: about 440 ms
		{fifo, 119, "queue:server"},  // the end of the slowdown
		{fifo, 170, "none"},          // drained
		{bounded, 61, "workers:server"},
		{bounded, 100, "workers:server"},
		{bounded, 119, "workers:server"},
		{bounded, 170, "none"},
	} {
		if got := at(tc.arm, tc.s); got != tc.want {
			t.Errorf("%s at %ds: constraint %q, want %q", tc.arm.Name, tc.s, got, tc.want)
		}
	}
}

// TestConstraintNamesRandomScenarios: on random topologies every sampled tick of every arm
// names a binding constraint, and the name is one of the rule's forms over the topology's
// own names.
func TestConstraintNamesRandomScenarios(t *testing.T) {
	r := rand.New(rand.NewPCG(2026, 11))
	seen := map[string]bool{}
	for i := range 12 {
		sc := randomScenario(r, i)
		names := map[string]bool{"none": true}
		if slices.ContainsFunc(sc.Arms, func(a scenario.Arm) bool { return a.Policy.Admission != nil }) {
			names["admission"] = true
		}
		for _, s := range sc.Topology.Services {
			names["workers:"+s.Name], names["queue:"+s.Name], names["ready-capacity:"+s.Name] = true, true, true
			for _, d := range sc.Topology.Dependencies {
				names["pool:"+s.Name+"->"+d.Name] = true
			}
		}
		for _, d := range sc.Topology.Dependencies {
			names["dependency:"+d.Name+":concurrency"] = true
		}
		for _, c := range sc.Topology.Caches {
			names["cache-misses:"+c.Name] = true
		}
		pk, err := Run(t.Context(), sc, Options{Seed: uint64(i)})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range pk.Arms {
			for _, row := range a.Series {
				if !row.Sampled {
					continue
				}
				if !names[row.Constraint] {
					t.Fatalf("scenario %d arm %s at %v: constraint %q is not a name of its topology", i, a.Name, row.T, row.Constraint)
				}
				kind, _, _ := strings.Cut(row.Constraint, ":")
				seen[kind] = true
			}
		}
	}
	t.Logf("kinds named: %v", seen)
	if !seen["none"] || len(seen) < 3 {
		t.Errorf("the random scenarios name only %v; want none and at least two kinds of resource", seen)
	}
}
