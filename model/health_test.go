package model

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/packet"
)

// probed is a small service whose dependency slows from 5s to 15s: its four instances
// queue more than a probe's timeout of work, and their health checks act.
const probed = `
name: probed
clock: {duration: 30s, tick: 100ms}
load:
  schedule: [{at: 0s, rate: 600/s}]
classes:
  - name: c
    share: 100%
    deadline: 500ms
    stages:
      - {name: w, work: {mean: 5ms}}
      - {name: d, dependency: db}
topology:
  entries:
    - {name: edge, target: app, timeout: 300ms, retries: {max: 1}}
  services:
    - name: app
      instances: 4
      workers: 4
      queue: {capacity: 200}
      cold: {rate_factor: 50%, for: 2s}
      health: {interval: 1s, timeout: 200ms, failures: 2, action: remove}
  dependencies:
    - {name: db, service_time: {p50: 10ms, p99: 40ms}, concurrency: 8, pool: {per_instance: 4}, timeout: 100ms}
faults:
  - {at: 5s, for: 10s, dependency: db, service_time: {p50: 40ms, p99: 300ms}}
arms:
  - name: baseline
  - name: protected
    policy:
      deadline: {propagate: true, cancel: true, reserve: 20ms}
      dependency_timeout: derived
      queue: {kind: age, max_age: 300ms, target: 5ms, adaptive_lifo: true}
      readiness: warm
`

const restarted = "health: {interval: 1s, timeout: 200ms, failures: 2, action: restart, restart: 3s}"

func TestProbeItem(t *testing.T) {
	for _, c := range []struct {
		ii int32
		n  uint32
	}{{0, 0}, {0, 1}, {7, 12345}, {1<<31 - 1, 1<<31 - 1}} {
		id := probeItem(c.ii, c.n)
		if id >= 0 {
			t.Errorf("probeItem(%d, %d) = %d, want a negative item (attempts' refs are not)", c.ii, c.n, id)
		}
		if ii, n := probeOf(id); ii != c.ii || n != c.n {
			t.Errorf("probeOf(probeItem(%d, %d)) = %d, %d", c.ii, c.n, ii, n)
		}
	}
}

// TestProbesAtFixedInstants drives one instance's probes by hand at time zero: a probe to
// an idle instance passes at once; one that must wait fails at its timeout, and a stale one
// leaves the queue without a verdict; the second failure in a row removes the instance from
// routing, and one pass returns it.
func TestProbesAtFixedInstants(t *testing.T) {
	_, a := firstArm(t, decode(t, probed))
	in := &a.insts[0]
	life := ref(0, in.life)
	pk := func() packet.HealthStats { return a.hs.health[0].Stats() }
	routed := func() bool { return slices.Contains(a.svcs[0].routable, 0) }

	a.probeFire(life)
	if h := pk(); h.Probes != 1 || h.ProbesFailed != 0 || in.probing || in.probes != 0 {
		t.Fatalf("a probe of an idle instance: %+v, probing %v, %d in the queue; want one passed at once", h, in.probing, in.probes)
	}

	in.busy = in.workers // every worker busy: the next probes wait in the queue
	for k := 1; k <= 2; k++ {
		a.probeFire(life)
		if !in.probing || in.probes != k {
			t.Fatalf("probe %d: probing %v with %d probe items queued, want it waiting behind %d", k, in.probing, in.probes, k-1)
		}
		a.probeTimeout(ref(0, in.probeN))
		a.probeTimeout(ref(0, in.probeN)) // a second timeout of the same probe does nothing
		if h := pk(); h.ProbesFailed != int64(k) || in.fails != k {
			t.Fatalf("probe %d timed out: %+v, %d in a row, want %d failed", k, h, in.fails, k)
		}
	}
	if h := pk(); h.Removals != 1 || in.routable || routed() {
		t.Fatalf("after two failures in a row: %+v, routable %v, in the router's list %v; want removed", h, in.routable, routed())
	}

	in.busy = 0
	a.pump(0) // the workers take the two stale probes: no verdict
	if h := pk(); in.probes != 0 || h.Probes != 3 {
		t.Fatalf("stale probes served: %d left in the queue, %+v; want none left and no new verdict", in.probes, h)
	}
	a.probeFire(life)
	if h := pk(); h.Returns != 1 || !in.routable || !routed() || in.fails != 0 {
		t.Fatalf("a pass after removal: %+v, routable %v; want returned to routing", h, in.routable)
	}

	a.probeFire(ref(0, in.life+1)) // a probe of another life of the instance is ignored
	if h := pk(); h.Probes != 4 {
		t.Fatalf("a probe event of another life was sent: %+v", h)
	}
}

// checkInstances recounts from the slabs what each instance holds and compares it with the
// instance's own counters: attempts in service, queued, and connections in use by pool; and
// the calls each dependency serves and queues.
func checkInstances(t *testing.T, a *arm, at time.Duration) {
	t.Helper()
	busy := make([]int, len(a.insts))
	queued := make([]int, len(a.insts))
	conns := make([][]int, len(a.insts))
	for ii := range conns {
		conns[ii] = make([]int, len(a.p.deps))
	}
	atts := func(at *attempt) {
		switch at.state {
		case attRunning:
			busy[at.inst]++
		case attQueued:
			queued[at.inst]++
		}
	}
	serving := make([]int, len(a.deps))
	waiting := make([]int, len(a.deps))
	calls := func(c *call) {
		if c.inst >= 0 && (c.state == callWaitServer || c.state == callServing) {
			conns[c.inst][c.dep]++
		}
		switch c.state {
		case callServing:
			serving[c.dep]++
		case callWaitServer:
			waiting[c.dep]++
		}
	}
	a.sl.eachLive(nil, func(_ int32, at *attempt) { atts(at) }, func(_ int32, c *call) { calls(c) })
	for d := range a.deps {
		if dr := &a.deps[d]; dr.busy != serving[d] || dr.waiting != waiting[d] {
			t.Fatalf("%v: dependency %d counts %d calls in service and %d waiting, the slabs hold %d and %d", at, d, dr.busy, dr.waiting, serving[d], waiting[d])
		}
	}
	for ii := range a.insts {
		in := &a.insts[ii]
		if in.busy != busy[ii] {
			t.Fatalf("%v: instance %d counts %d attempts in service, the slabs hold %d", at, ii, in.busy, busy[ii])
		}
		if in.queued != queued[ii] || in.probes < 0 || in.q.Len() != in.queued+in.probes {
			t.Fatalf("%v: instance %d counts %d queued (the slabs hold %d) and %d probes, its queue holds %d", at, ii, in.queued, queued[ii], in.probes, in.q.Len())
		}
		for d := range in.pools {
			if in.pools[d].inUse != conns[ii][d] {
				t.Fatalf("%v: instance %d pool %d has %d connections in use, its calls hold %d", at, ii, d, in.pools[d].inUse, conns[ii][d])
			}
		}
	}
}

// TestHealthActions replays the slowdown with each action and checks what the health
// checks did, that every request still reaches one fate, and that the instances' counters
// agree with the work they hold at every progress report.
func TestHealthActions(t *testing.T) {
	for _, tt := range []struct {
		name, change string
		restart      bool
	}{
		{"remove", "", false},
		{"restart", restarted, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := probed
			if tt.change != "" {
				src = strings.Replace(src, "health: {interval: 1s, timeout: 200ms, failures: 2, action: remove}", tt.change, 1)
			}
			sc := decode(t, src)
			pk := fates(t, sc, 1)
			for _, arm := range pk.Arms {
				if len(arm.Health) != 1 {
					t.Fatalf("%s: health %+v, want the one service's", arm.Name, arm.Health)
				}
				h := arm.Health[0]
				t.Logf("%s: %+v; route-ready %d–%d", arm.Name, h, arm.Capacity.RouteReadyMin, arm.Capacity.RouteReadyMax)
				// 4 instances probed every second for 30 s, less the time restarted ones
				// are down.
				if h.Probes < 60 || h.Probes > 4*31 {
					t.Errorf("%s: %d probes, want 60–124", arm.Name, h.Probes)
				}
				if arm.Name != "baseline" {
					continue
				}
				if h.ProbesFailed == 0 {
					t.Errorf("%s: no probe failed in the slowdown", arm.Name)
				}
				if tt.restart {
					if h.Restarts == 0 || h.AttemptsKilled == 0 || h.Removals != 0 {
						t.Errorf("%s: %+v, want restarts that killed attempts and no removals", arm.Name, h)
					}
				} else if h.Removals == 0 || h.Returns == 0 || h.Restarts != 0 {
					t.Errorf("%s: %+v, want removals and returns and no restarts", arm.Name, h)
				}
				if arm.Capacity.RouteReadyMin >= 4 {
					t.Errorf("%s: route-ready never fell below 4", arm.Name)
				}
			}

			// The same replay arm by arm, checking the instances as it goes.
			p, err := compile(sc)
			if err != nil {
				t.Fatal(err)
			}
			for _, ad := range sc.Arms {
				a, err := newArm(p, sc, ad, 1)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := a.run(context.Background(), func(at time.Duration) { checkInstances(t, a, at) }); err != nil {
					t.Fatal(err)
				}
				checkInstances(t, a, -1)
			}
		})
	}
}
