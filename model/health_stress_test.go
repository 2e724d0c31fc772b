package model

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
)

// instanceInvariants checks, after an event, what checkInstances does not: the router's
// list against the instances' flags, a process that is down holding nothing, every
// request's live count against the attempts and calls of it in the slabs, the arm's
// in-flight count, and every pool's waiting count.
func instanceInvariants(a *arm) error {
	// The least-loaded router's list: the routable instances, each once.
	for s := range a.svcs {
		rt := &a.svcs[s]
		seen := map[int32]bool{}
		for _, ii := range rt.routable {
			if seen[ii] {
				return fmt.Errorf("service %d: instance %d twice in the routable list %v", s, ii, rt.routable)
			}
			seen[ii] = true
			if !a.insts[ii].routable {
				return fmt.Errorf("service %d: instance %d in the routable list but not routable", s, ii)
			}
		}
		for _, ii := range rt.insts {
			in := &a.insts[ii]
			if in.routable && !seen[ii] {
				return fmt.Errorf("service %d: instance %d routable but not in the list %v", s, ii, rt.routable)
			}
			want := in.up && (in.warm || !a.pol.readyWarm) && !in.removed
			if in.routable != want {
				return fmt.Errorf("instance %d: routable %v, its state says %v (up %v warm %v removed %v)", ii, in.routable, want, in.up, in.warm, in.removed)
			}
		}
	}
	// A process that is down holds nothing.
	for ii := range a.insts {
		in := &a.insts[ii]
		if in.probes < 0 {
			return fmt.Errorf("instance %d: %d probes", ii, in.probes)
		}
		if !in.up && (in.busy != 0 || in.queued != 0 || in.probes != 0 || in.probing || in.q.Len() != 0) {
			return fmt.Errorf("instance %d is down but holds busy %d queued %d probes %d probing %v", ii, in.busy, in.queued, in.probes, in.probing)
		}
		if in.probing && in.probes == 0 {
			return fmt.Errorf("instance %d waits for probe %d, but no probe is queued", ii, in.probeN)
		}
		for d := range in.pools {
			// A killed process's orphans keep their places in its pool until they end
			// (checkInstances counts them); nothing waits there.
			if !in.up && in.pools[d].waiting != 0 {
				return fmt.Errorf("instance %d is down but pool %d has %d waiting", ii, d, in.pools[d].waiting)
			}
			if in.pools[d].inUse < 0 || in.pools[d].waiting < 0 {
				return fmt.Errorf("instance %d pool %d: %d in use, %d waiting", ii, d, in.pools[d].inUse, in.pools[d].waiting)
			}
		}
	}
	// A killed process's calls are its orphans in service, and nothing else.
	var orphanErr error
	a.sl.eachLive(nil, nil, func(ci int32, c *call) {
		if c.state != callDone && c.inst >= 0 && !a.insts[c.inst].up && (c.state != callServing || !c.callerGone) && orphanErr == nil {
			orphanErr = fmt.Errorf("call %d of instance %d, which is down, in state %d (caller gone %v)", ci, c.inst, c.state, c.callerGone)
		}
	})
	if orphanErr != nil {
		return orphanErr
	}
	// Live counts.
	live := map[int32]int32{}
	waitConn := map[[2]int32]int{}
	att := func(at *attempt) {
		live[at.lg]++
	}
	cl := func(c *call) {
		live[c.lg]++
		if c.state == callWaitConn {
			waitConn[[2]int32{c.inst, c.dep}]++
		}
	}
	active := 0
	a.sl.eachLive(func(_ int32, lg *logical) {
		if lg.state == lgActive {
			active++
		}
	}, func(_ int32, at *attempt) { att(at) }, func(_ int32, c *call) { cl(c) })
	for i := int32(0); i < a.sl.recs.n; i++ {
		r := a.sl.recs.at(i)
		if r.lg.state == lgFreed {
			if live[i] != 0 {
				return fmt.Errorf("freed request %d still has %d attempts and calls", i, live[i])
			}
			continue
		}
		if r.lg.live != live[i] {
			return fmt.Errorf("request %d (id %d, state %d) counts %d live, the slabs hold %d", i, r.lg.id, r.lg.state, r.lg.live, live[i])
		}
	}
	if a.inFlight != active {
		return fmt.Errorf("in flight %d, %d requests active", a.inFlight, active)
	}
	for ii := range a.insts {
		for d := range a.insts[ii].pools {
			if w := a.insts[ii].pools[d].waiting; w != waitConn[[2]int32{int32(ii), int32(d)}] {
				return fmt.Errorf("instance %d pool %d counts %d waiting, the slabs hold %d", ii, d, w, waitConn[[2]int32{int32(ii), int32(d)}])
			}
		}
	}
	return nil
}

// stepArm replays arm a as run does, checking after every event (every, if > 1, every
// that many events). fate counts the terminal states and rejections by request.
func stepArm(t *testing.T, a *arm, every int, check func() error) map[int64]int {
	t.Helper()
	fate := map[int64]int{}
	a.hooks = &hooks{
		rejected: func(_ string, id int64) { fate[id]++ },
		terminal: func(_ string, id int64, _ packet.Outcome) { fate[id]++ },
	}
	p := a.p
	a.begin()
	n := 0
	step := func() {
		n++
		if every <= 1 || n%every == 0 {
			if err := check(); err != nil {
				t.Fatalf("after event %d at %v: %v", n, a.now(), err)
			}
		}
	}
	for a.s.Step(p.duration) {
		step()
	}
	a.stopped = true
	limit := p.duration + p.drain
	for a.sl.lgLive > 0 && a.s.Step(limit) {
		step()
	}
	if err := check(); err != nil {
		t.Fatalf("at the end: %v", err)
	}
	if a.sl.lgLive > 0 {
		a.unfinished()
	}
	return fate
}

// TestRandomStepInvariants replays random scenarios (half their services with a
// health check) event by event and checks the instances, the router's list and every
// request's counts after each event, and that every offered request reaches exactly one
// fate.
func TestRandomStepInvariants(t *testing.T) { healthSweep(t, 12, false) }

// TestAggressiveHealthInvariants is the same sweep with every service probed every
// few milliseconds with a tight timeout, acting at the first or second failure, and
// restarted within 50 ms: thousands of kills and removals.
func TestAggressiveHealthInvariants(t *testing.T) { healthSweep(t, 30, true) }

func healthSweep(t *testing.T, n int, aggressive bool) {
	if testing.Short() {
		n /= 4
	}
	r := rand.New(rand.NewPCG(99, 5))
	var restarts, removals int64
	ms := func(lo, hi int) scenario.Duration {
		return scenario.Duration(time.Duration(lo+r.IntN(hi-lo+1)) * time.Millisecond)
	}
	defer func() {
		t.Logf("%d restarts, %d removals", restarts, removals)
		if aggressive && (restarts == 0 || removals == 0) {
			t.Errorf("%d restarts and %d removals over %d scenarios: the sweep does not exercise both actions", restarts, removals, n)
		}
	}()
	for i := range n {
		sc := randomScenario(r, i)
		if aggressive {
			for k := range sc.Topology.Services {
				h := scenario.Health{Interval: ms(5, 100), Failures: 1 + r.IntN(2), Action: scenario.HealthRemove}
				h.Timeout = ms(1, int(time.Duration(h.Interval)/time.Millisecond))
				if r.IntN(2) == 0 {
					h.Action = scenario.HealthRestart
					h.Restart = ms(0, 50)
					if r.IntN(2) == 0 {
						h.Backoff = scenario.Backoff{Initial: ms(1, 50), Max: ms(50, 400), Reset: ms(0, 500)}
					}
				} else {
					h.Successes = r.IntN(3)
				}
				sc.Topology.Services[k].Health = h
			}
		}
		p, err := compile(sc)
		if err != nil {
			t.Fatalf("scenario %d: %v", i, err)
		}
		for _, ad := range sc.Arms {
			a, err := newArm(p, sc, ad, uint64(i))
			if err != nil {
				t.Fatal(err)
			}
			t.Run(fmt.Sprintf("%d/%s", i, ad.Name), func(t *testing.T) {
				fate := stepArm(t, a, 1, func() error {
					checkInstances(t, a, a.now())
					return instanceInvariants(a)
				})
				for id := range a.nextID {
					if fate[id] != 1 {
						t.Fatalf("request %d reached %d fates", id, fate[id])
					}
				}
				for s := range a.hs.health {
					if a.p.services[s].health != nil {
						h := a.hs.health[s].Stats()
						restarts += h.Restarts
						removals += h.Removals
					}
				}
			})
		}
	}
}
