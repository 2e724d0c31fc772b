package model

import (
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/control/readiness"
	"github.com/goodput-lab/goodput/packet"
)

// killableWith is the killable scenario (health_kill_test.go) with its health block and
// arm policy replaced.
func killableWith(t *testing.T, health, policy string) *arm {
	t.Helper()
	src := strings.Replace(killable, "POLICY", policy, 1)
	src = strings.Replace(src, "health: {interval: 1h, timeout: 1s, failures: 1, action: restart, restart: 1s}", health, 1)
	_, a := firstArm(t, decode(t, src))
	return a
}

// TestStaleProbeServedIsNoVerdict: a worker that takes a stale probe (one that
// already failed) says nothing of the probe waiting behind it. The queue holds the stale
// probe 1, an attempt and probe 2; one worker frees and takes probe 1 and the attempt;
// probe 2 still waits.
func TestStaleProbeServedIsNoVerdict(t *testing.T) {
	a := killableWith(t, "health: {interval: 1h, timeout: 1s, failures: 5, action: remove}", "{}")
	in := &a.insts[0]
	life := ref(0, in.life)
	a.arrival() // runs: the only worker is busy
	a.probeFire(life)
	a.probeTimeout(ref(0, in.probeN)) // probe 1 fails; its item stays
	a.arrival()                       // an attempt queues behind it
	a.probeFire(life)                 // probe 2 queues behind the attempt
	if in.probes != 2 || in.queued != 1 || !in.probing {
		t.Fatalf("setup: %d probes, %d queued, probing %v", in.probes, in.queued, in.probing)
	}
	in.busy-- // the worker frees (the running attempt's count, by hand)
	a.pump(0)
	h := a.hs.health[0].Stats()
	if !in.probing || in.probes != 1 || h.Probes != 1 || h.ProbesFailed != 1 {
		t.Errorf("after the stale probe and the attempt were taken: %+v, probing %v, %d probes queued; want probe 2 still waiting and only probe 1's verdict", h, in.probing, in.probes)
	}
}

// TestDroppedProbeFails: an age-bounded queue drops a probe that waited longer than
// max_age when a worker comes for it: the probe fails then, before its own timeout. A
// stale probe dropped in front of a live one is no verdict on it.
func TestDroppedProbeFails(t *testing.T) {
	t.Run("live", func(t *testing.T) {
		a := killableWith(t, "health: {interval: 1h, timeout: 1s, failures: 5, action: remove}", "{queue: {kind: age, max_age: 50ms}}")
		in := &a.insts[0]
		a.arrival()
		a.probeFire(ref(0, in.life))
		a.s.Run(100 * time.Millisecond)
		in.busy--
		a.pump(0) // drops the probe: it is 100ms old
		if h := a.hs.health[0].Stats(); h.Probes != 1 || h.ProbesFailed != 1 || in.probing || in.probes != 0 {
			t.Errorf("%+v, probing %v, %d probes queued; want the dropped probe failed", h, in.probing, in.probes)
		}
	})
	t.Run("stale", func(t *testing.T) {
		a := killableWith(t, "health: {interval: 1h, timeout: 1s, failures: 5, action: remove}", "{queue: {kind: age, max_age: 50ms}}")
		in := &a.insts[0]
		life := ref(0, in.life)
		a.arrival()
		a.probeFire(life)
		a.probeTimeout(ref(0, in.probeN)) // probe 1 fails; its item stays
		a.s.Run(100 * time.Millisecond)
		a.probeFire(life) // probe 2, young
		in.busy--
		a.pump(0) // drops probe 1 (100ms old), serves probe 2
		if h := a.hs.health[0].Stats(); h.Probes != 2 || h.ProbesFailed != 1 || in.probing || in.probes != 0 {
			t.Errorf("%+v, probing %v, %d probes queued; want probe 1 failed (timeout) and probe 2 passed", h, in.probing, in.probes)
		}
	})
}

// TestRemovedOnce: failures go on while an instance is out of routing; it is one
// removal, and one return.
func TestRemovedOnce(t *testing.T) {
	a := killableWith(t, "health: {interval: 1h, timeout: 1s, failures: 2, successes: 2, action: remove}", "{}")
	in := &a.insts[0]
	for range 5 {
		a.probeResult(0, false)
	}
	if h := a.hs.health[0].Stats(); h.Removals != 1 || in.routable {
		t.Fatalf("five failures in a row: %+v, routable %v; want one removal", h, in.routable)
	}
	// successes 2: a pass, a failure, a pass is not two in a row.
	a.probeResult(0, true)
	a.probeResult(0, false)
	a.probeResult(0, true)
	if h := a.hs.health[0].Stats(); h.Returns != 0 || in.routable {
		t.Fatalf("pass, fail, pass: %+v, routable %v; want still out (successes: 2)", h, in.routable)
	}
	a.probeResult(0, true)
	if h := a.hs.health[0].Stats(); h.Returns != 1 || !in.routable || h.Removals != 1 {
		t.Fatalf("two passes in a row: %+v, routable %v; want returned", h, in.routable)
	}
}

// TestKillReadiness: a kill gives the instance a new readiness tracker in the fleet:
// still one instance requested, none process-ready until the restart is done.
func TestKillReadiness(t *testing.T) {
	a := killableWith(t, "health: {interval: 1h, timeout: 1s, failures: 1, action: restart, restart: 1s}", "{}")
	fleet := a.svcs[0].fleet
	a.kill(ref(0, a.insts[0].life))
	s := fleet.Summary()
	if s.AtLeast(readiness.Requested) != 1 || s.AtLeast(readiness.ProcessReady) != 0 || s.Count[readiness.Scheduled] != 1 {
		t.Fatalf("after the kill: %+v; want one instance, scheduled, not process-ready", s.Count)
	}
	a.s.Run(1500 * time.Millisecond)
	if s := fleet.Summary(); s.AtLeast(readiness.Requested) != 1 || s.AtLeast(readiness.ProcessReady) != 1 || !a.insts[0].up {
		t.Fatalf("after the restart: %+v, up %v; want the one instance process-ready", s.Count, a.insts[0].up)
	}
}

// TestRestartsRepeatedly: an instance whose probes keep failing is restarted again
// and again (each restart's probes start afresh).
func TestRestartsRepeatedly(t *testing.T) {
	a := killableWith(t, "health: {interval: 100ms, timeout: 50ms, failures: 1, action: restart, restart: 100ms}", "{}")
	a.s.Run(2 * time.Second)
	// Every new life gets arrivals now and then at most; make the worker busy at each
	// restart so that the probes fail.
	for k := 0; k < 5; k++ {
		a.arrival()
		a.s.Run(a.now() + 500*time.Millisecond)
	}
	if h := a.hs.health[0].Stats(); h.Restarts < 2 {
		t.Errorf("%+v: want the one instance restarted more than once", h)
	}
}

// orphaned: one instance whose dependency serves one call at a time (10 s each) or has one
// connection: the second request's call waits for the server (or the connection), times
// out and is left as an orphan; the request gives up and waits for its orphan to end.
const orphaned = `
name: orphaned
clock: {duration: 60s, tick: 1s}
load:
  schedule: [{at: 0s, rate: 0/s}, {at: 50s, rate: 1/s}] # none before 50s: the tests send by hand
classes:
  - name: c
    share: 100%
    deadline: 60s
    stages:
      - {name: d, dependency: db}
topology:
  entries:
    - {name: edge, target: app, timeout: 30s, retries: {max: 0}}
  services:
    - name: app
      instances: 1
      workers: 2
      queue: {capacity: 100}
      health: {interval: 1h, timeout: 1s, failures: 1, action: restart, restart: 1s}
  dependencies:
    - {name: db, service_time: {p50: 10s, p99: 11s}, LIMIT, timeout: 100ms}
arms:
  - name: only
    policy: {loadstate: {preset: northstar}}
`

// TestKillSettlesOrphans: a kill frees the calls of the process that wait for a
// server or a connection. A request whose caller has given up and whose last work was
// such a call (an orphan waiting for the server) reaches its terminal state then. The pool
// of the dead process holds only its orphan in service, which gives its place back when it
// ends, as do the trigger dependency's connections in use (the load state's saturation).
func TestKillSettlesOrphans(t *testing.T) {
	for _, tt := range []struct {
		name, limit string
		orphan      bool // request 2's call waits for the server as an orphan (else for a connection, live)
	}{
		{"server", "concurrency: 1, pool: {per_instance: 4}, timeout: 100ms", true},
		{"connection", "pool: {per_instance: 1}, timeout: 20s", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, a := firstArm(t, decode(t, strings.Replace(orphaned, "LIMIT, timeout: 100ms", tt.limit, 1)))
			fate := map[int64]packet.Outcome{}
			a.hooks = &hooks{terminal: func(_ string, id int64, out packet.Outcome) { fate[id] = out }}
			a.arrival()
			a.arrival()
			a.s.Run(500 * time.Millisecond)
			lg := a.sl.lg(1)
			in := &a.insts[0]
			if tt.orphan && (lg.state != lgClientDone || lg.live != 1) {
				t.Fatalf("setup: request 2 in state %d with %d live; want given up, its orphan call live", lg.state, lg.live)
			}
			if !tt.orphan && in.pools[0].waiting != 1 {
				t.Fatalf("setup: pool %+v; want one call waiting for the connection", in.pools[0])
			}
			a.kill(ref(0, in.life))
			if _, ok := fate[1]; !ok {
				t.Errorf("request 2's last work was freed with the process, but its terminal state is not recorded (state %d, live %d)", lg.state, lg.live)
			}
			if pl := in.pools[0]; pl.inUse != 1 || pl.waiting != 0 {
				t.Errorf("the dead process's pool: inUse %d waiting %d; want only the orphan in service", pl.inUse, pl.waiting)
			}
			if a.trigInUse != 1 {
				t.Errorf("trigger connections in use %d after the kill; want the orphan's 1", a.trigInUse)
			}
			a.s.Run(15 * time.Second) // the orphan in service ends
			if pl := in.pools[0]; pl.inUse != 0 || pl.waiting != 0 || a.trigInUse != 0 {
				t.Errorf("after the orphan ended: pool inUse %d waiting %d, trigger in use %d; want empty", pl.inUse, pl.waiting, a.trigInUse)
			}
		})
	}
}

// TestWarmGateAfterRestart: with the readiness gate (protected arm of the probed
// scenario), a restarted instance takes no traffic while cold; a kill during the cold
// period leaves the earlier life's warm-up event without effect.
func TestWarmGateAfterRestart(t *testing.T) {
	src := strings.Replace(probed, "health: {interval: 1s, timeout: 200ms, failures: 2, action: remove}", "health: {interval: 1s, timeout: 200ms, failures: 1000, action: restart, restart: 3s}", 1)
	sc := decode(t, src)
	p, err := compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	a, err := newArm(p, sc, sc.Arms[1], 1) // protected: readiness warm
	if err != nil {
		t.Fatal(err)
	}
	in := &a.insts[0]
	a.kill(ref(0, in.life)) // up again at 3s, cold until 5s
	a.s.Run(3200 * time.Millisecond)
	if !in.up || in.warm || in.routable {
		t.Fatalf("3.2s: up %v warm %v routable %v; want up, cold and out of routing", in.up, in.warm, in.routable)
	}
	a.s.Run(3500 * time.Millisecond)
	a.kill(ref(0, in.life)) // cold: up again at 6.5s, cold until 8.5s; the 5s warm-up is stale
	a.s.Run(7 * time.Second)
	if !in.up || in.warm || in.routable || in.factor == 1 {
		t.Fatalf("7s: up %v warm %v routable %v factor %v; want up, cold (factor 0.5) and out of routing", in.up, in.warm, in.routable, in.factor)
	}
	a.s.Run(8600 * time.Millisecond)
	if !in.warm || !in.routable {
		t.Fatalf("8.6s: warm %v routable %v; want warm and routable", in.warm, in.routable)
	}
}

// TestProbeTimeoutEqualsIntervalRunning: with the timeout equal to the interval, a
// probe's timeout falls at the instant of the next probe, which is handled first and fails
// it; the timeout, handled next, must not fail the new probe. A probe every 100 ms (the
// first at 61.8 ms) behind a worker busy for 10 s: by 1 s, nine probes have failed, one at
// each later probe, and the tenth waits.
func TestProbeTimeoutEqualsIntervalRunning(t *testing.T) {
	a := killableWith(t, "health: {interval: 100ms, timeout: 100ms, failures: 1000, action: remove}", "{}")
	a.arrival()
	a.s.Run(time.Second)
	if h := a.hs.health[0].Stats(); h.Probes != 9 || h.ProbesFailed != 9 || !a.insts[0].probing {
		t.Errorf("%+v, probing %v; want 9 probes failed and the 10th waiting", h, a.insts[0].probing)
	}
}

// TestKillEmptiesCaches: a restart loses the process's caches.
func TestKillEmptiesCaches(t *testing.T) {
	src := strings.Replace(cached, "      memory: {limit: 64MiB, per_attempt: 256KiB}\n", "      memory: {limit: 64MiB, per_attempt: 256KiB}\n      health: {interval: 1s, timeout: 1s, action: restart, restart: 1s}\n", 1)
	_, a := firstArm(t, decode(t, src))
	in := &a.insts[0]
	if in.caches[0].held == 0 {
		t.Fatal("setup: the cache starts empty")
	}
	a.kill(ref(0, in.life))
	if c := in.caches[0]; c.held != 0 || c.hit != 0 {
		t.Errorf("after the kill the cache holds %d entries (hit ratio %v); want none", c.held, c.hit)
	}
}

// TestHealthDefaults: failures 3, successes 1 and the service's cold startup as the
// restart time when the scenario leaves them zero.
func TestHealthDefaults(t *testing.T) {
	src := strings.Replace(probed, "health: {interval: 1s, timeout: 200ms, failures: 2, action: remove}", "health: {interval: 1s, timeout: 200ms, action: restart}", 1)
	src = strings.Replace(src, "cold: {rate_factor: 50%, for: 2s}", "cold: {startup: 7s, rate_factor: 50%, for: 2s}", 1)
	p, _ := firstArm(t, decode(t, src))
	hp := p.services[0].health
	if hp == nil || hp.failures != 3 || hp.successes != 1 || hp.restartAfter != 7*time.Second || hp.timeout != 200*time.Millisecond || hp.every != time.Second || !hp.restart {
		t.Errorf("compiled health %+v; want failures 3, successes 1, restart after 7s (the cold startup)", hp)
	}
}
