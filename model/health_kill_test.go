package model

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"
)

// killable is one instance with one worker whose attempts take 10 s of work: the first
// attempt runs, the next ones wait in the queue. Its probes are an hour apart (the first at
// about 37 minutes), so none runs in these tests: they kill the process by hand.
const killable = `
name: killable
clock: {duration: 60s, tick: 1s}
load:
  schedule: [{at: 0s, rate: 0/s}, {at: 50s, rate: 1/s}] # none before 50s: the tests send by hand
classes:
  - name: c
    share: 100%
    deadline: 60s
    stages:
      - {name: w, work: 10s}
topology:
  entries:
    - {name: edge, target: app, timeout: 30s, retries: {max: 0}}
  services:
    - name: app
      instances: 1
      workers: 1
      queue: {capacity: 100}
      health: {interval: 1h, timeout: 1s, failures: 1, action: restart, restart: 1s}
arms:
  - name: only
    policy: POLICY
`

// killWith builds the killable arm with policy, sends three requests at time zero (one
// runs, two queue), lets wait pass, and returns the arm.
func killWith(t *testing.T, policy string, wait time.Duration) *arm {
	t.Helper()
	_, a := firstArm(t, decode(t, strings.Replace(killable, "POLICY", policy, 1)))
	for range 3 {
		a.arrival()
	}
	in := &a.insts[0]
	if in.busy != 1 || in.queued != 2 {
		t.Fatalf("setup: busy %d queued %d, want 1 and 2", in.busy, in.queued)
	}
	a.s.Run(wait)
	if in.busy != 1 || in.queued != 2 {
		t.Fatalf("after %v: busy %d queued %d, want 1 and 2", wait, in.busy, in.queued)
	}
	return a
}

// causes returns the cause each of the first n requests gave up with.
func causes(a *arm, n int) []cause {
	var out []cause
	for i := int32(0); i < int32(n); i++ {
		out = append(out, a.sl.lg(i).cause)
	}
	return out
}

// TestKillFailsQueuedWithAnError: a kill fails what the process holds, queued or in
// service, with an error (a reset connection), whatever the queue's policy would have
// dropped first: with an age-bounded queue, attempts older than max_age fail as errors
// too, not as overload (which the entry's retry and a retry budget treat differently).
func TestKillFailsQueuedWithAnError(t *testing.T) {
	for _, tt := range []struct {
		name, policy string
	}{
		{"fifo", "{}"},
		{"age", "{queue: {kind: age, max_age: 50ms}}"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := killWith(t, tt.policy, 200*time.Millisecond)
			a.kill(ref(0, a.insts[0].life))
			got := causes(a, 3)
			for i, c := range got {
				if c != causeError {
					t.Errorf("request %d gave up with cause %d, want causeError (%d): killed with its process; all: %v", i, c, causeError, got)
				}
			}
		})
	}
}

// TestKillCountsOnlyLiveAttempts: AttemptsKilled is "the attempts it held then, which
// failed with it". A queued attempt already cancelled by its caller (cancellation policy)
// does not fail with the process: kill discards it, as pump would (a completed
// cancellation), and does not count it.
func TestKillCountsOnlyLiveAttempts(t *testing.T) {
	a := killWith(t, "{deadline: {cancel: true}}", 10*time.Millisecond)
	// The caller of the last request gives up on its queued attempt: cancelled in place.
	lg := a.sl.lg(2)
	ai := lg.cur
	lg.cur = -1
	a.cancelAttempt(ai)
	if at := a.sl.att(ai); !at.cancelled {
		t.Fatal("setup: the attempt is not cancelled")
	}
	a.kill(ref(0, a.insts[0].life))
	if pk := a.rec.Finish(a.p.objectives); pk.Layers[1].Name != "app" || pk.Layers[1].CancelsCompleted != 1 {
		t.Errorf("layers %+v: want app's one cancellation completed (the cancelled attempt discarded)", pk.Layers)
	}
	if h := a.hs.health[0].Stats(); h.AttemptsKilled != 2 {
		t.Errorf("AttemptsKilled = %d, want 2: one attempt ran, one waited, and the third was already cancelled", h.AttemptsKilled)
	}
}

// TestProbeTimeoutIsTheInterval drives the path where a probe's timeout equals the
// interval: the next probe, due at the same instant as the timeout and handled first, fails
// the one still waiting. Here the queue has room for one item, so the next probe is
// refused (its place is held by the stale one) and the one after passes at once: three
// probes, two failures, and no probe left waiting for a verdict.
func TestProbeTimeoutIsTheInterval(t *testing.T) {
	src := strings.Replace(killable, "POLICY", "{}", 1)
	src = strings.Replace(src, "queue: {capacity: 100}", "queue: {capacity: 1}", 1)
	src = strings.Replace(src, "health: {interval: 1h, timeout: 1s, failures: 1, action: restart, restart: 1s}", "health: {interval: 1s, timeout: 1s, failures: 5, action: remove}", 1)
	_, a := firstArm(t, decode(t, src))
	in := &a.insts[0]
	life := ref(0, in.life)
	in.busy = in.workers
	a.probeFire(life) // waits in the queue
	if !in.probing || in.probes != 1 {
		t.Fatalf("probe 1: probing %v, %d queued", in.probing, in.probes)
	}
	a.probeFire(life) // fails probe 1; probe 2 is refused: the queue is full
	if in.probing {
		t.Fatalf("probe 2 was refused, yet a probe still waits for its verdict")
	}
	in.busy = 0
	a.pump(0)         // the stale probe 1 leaves the queue without a verdict
	a.probeFire(life) // passes at once
	h := a.hs.health[0].Stats()
	if h.Probes != 3 || h.ProbesFailed != 2 || in.probing || in.fails != 0 {
		t.Errorf("%+v, probing %v, %d failures in a row; want 3 probes, 2 failed, none waiting", h, in.probing, in.fails)
	}
}

// TestHealthDeterminism: two replays of the slowdown with each health action give
// the same packet.
func TestHealthDeterminism(t *testing.T) {
	for _, change := range []string{"", restarted} {
		src := probed
		if change != "" {
			src = strings.Replace(src, "health: {interval: 1s, timeout: 200ms, failures: 2, action: remove}", change, 1)
		}
		sc := decode(t, src)
		if !bytes.Equal(packetJSON(t, sc, 5), packetJSON(t, sc, 5)) {
			t.Errorf("%q: two runs with seed 5 gave different packets", change)
		}
	}
}

// TestProbeFailsAtItsTimeout: a probe stuck behind a busy worker fails when its
// timeout passes, not at the next interval.
func TestProbeFailsAtItsTimeout(t *testing.T) {
	src := strings.Replace(killable, "POLICY", "{}", 1)
	src = strings.Replace(src, "health: {interval: 1h, timeout: 1s, failures: 1, action: restart, restart: 1s}", "health: {interval: 1s, timeout: 100ms, failures: 5, action: remove}", 1)
	_, a := firstArm(t, decode(t, src))
	a.arrival() // holds the only worker for 10 s
	// The first probe is sent at 618 ms (the instance's phase) and waits.
	a.s.Run(700 * time.Millisecond)
	if h := a.hs.health[0].Stats(); h.ProbesFailed != 0 || !a.insts[0].probing {
		t.Fatalf("at 700ms: %+v, probing %v; want the first probe waiting", h, a.insts[0].probing)
	}
	a.s.Run(800 * time.Millisecond)
	if h := a.hs.health[0].Stats(); h.Probes != 1 || h.ProbesFailed != 1 {
		t.Fatalf("at 800ms: %+v; want the first probe failed at its 100ms timeout", h)
	}
}

// TestRestartBackoff checks the delay before each restart at fixed instants: 10 s, doubling
// with every restart up to the 1-minute cap, and 10 s again once a process has run for the
// reset period; and that a kill brings the process back after the delay plus the restart.
func TestRestartBackoff(t *testing.T) {
	src := strings.Replace(killable, "POLICY", "{}", 1)
	src = strings.Replace(src, "restart: 1s}", "restart: 1s, backoff: {initial: 10s, max: 1m, reset: 5m}}", 1)
	_, a := firstArm(t, decode(t, src))
	in := &a.insts[0]
	hp := a.p.services[0].health
	var got []time.Duration
	for range 5 {
		got = append(got, a.restartDelay(in, hp)) // each process ran for no time at all
	}
	in.upAt = -5 * time.Minute // this one ran for the reset period
	got = append(got, a.restartDelay(in, hp))
	in.upAt = 0 // and the next for no time
	got = append(got, a.restartDelay(in, hp))
	want := []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, time.Minute, time.Minute, 10 * time.Second, 20 * time.Second}
	if !slices.Equal(got, want) {
		t.Errorf("delays %v, want %v", got, want)
	}

	_, a = firstArm(t, decode(t, src))
	in = &a.insts[0]
	a.kill(ref(0, in.life))
	a.s.Run(10*time.Second + time.Second - 1)
	if in.up {
		t.Fatal("the process is up before the 10 s back-off and the 1 s restart have passed")
	}
	a.s.Run(11 * time.Second)
	if !in.up {
		t.Fatal("the process is not up 11 s after the kill")
	}
}
