package model

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/control/readiness"
)

// crashed is four instances of one worker each whose attempts take 100ms: 40/s of
// capacity under 80/s offered, so every worker is busy at every instant. FAULT is replaced
// by a fault line (or nothing).
const crashed = `
name: crashed
clock: {duration: 30s, tick: 1s}
load:
  arrivals: uniform
  schedule: [{at: 0s, rate: 80/s}]
classes:
  - name: c
    share: 100%
    deadline: 2s
    stages:
      - {name: w, work: 100ms}
topology:
  entries:
    - {name: edge, target: app, timeout: 1s, retries: {max: 0}}
  services:
    - name: app
      instances: 4
      workers: 1
      queue: {capacity: 4}
      router: round_robin
      cold: {startup: 0s, rate_factor: 50%, for: 2s}
arms:
  - name: only
faults:
FAULT
`

func crashArm(t *testing.T, fault string) *arm {
	t.Helper()
	src := strings.Replace(crashed, "FAULT", fault, 1)
	if fault == "" {
		src = strings.Replace(src, "faults:\n", "", 1)
	}
	_, a := firstArm(t, decode(t, src))
	a.begin()
	return a
}

// busyUp counts the busy workers and the instances whose process is up.
func busyUp(a *arm) (busy, up int) {
	for ii := range a.insts {
		busy += a.insts[ii].busy
		if a.insts[ii].up {
			up++
		}
	}
	return busy, up
}

// TestCrashHalvesCapacity crashes 2 of 4 saturated instances at 5s for 10s: the busy
// workers halve (the lowest-numbered two are down, their attempts failed) until they
// are process-ready again at 15s, cold (a half-speed worker for 2s), then warm.
func TestCrashHalvesCapacity(t *testing.T) {
	for _, c := range []struct {
		name        string
		fault       string
		at          time.Duration
		busy, up    int
		down0, cold bool
	}{
		{"none", "", 7 * time.Second, 4, 4, false, false},
		{"before", "  - {at: 5s, for: 10s, service: app, crash: {count: 2}}", 4500 * time.Millisecond, 4, 4, false, false},
		{"during", "  - {at: 5s, for: 10s, service: app, crash: {count: 2}}", 7 * time.Second, 2, 2, true, false},
		{"share", "  - {at: 5s, for: 10s, service: app, crash: {share: 50%}}", 14900 * time.Millisecond, 2, 2, true, false},
		{"recovered cold", "  - {at: 5s, for: 10s, service: app, crash: {count: 2}}", 16 * time.Second, 4, 4, false, true},
		{"recovered warm", "  - {at: 5s, for: 10s, service: app, crash: {count: 2}}", 18 * time.Second, 4, 4, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := crashArm(t, c.fault)
			a.s.Run(c.at + time.Millisecond)
			busy, up := busyUp(a)
			if busy != c.busy || up != c.up {
				t.Errorf("at %v: %d busy workers on %d instances up, want %d on %d", c.at, busy, up, c.busy, c.up)
			}
			if got := !a.insts[0].up && !a.insts[1].up; got != c.down0 {
				t.Errorf("at %v: instances 0 and 1 down %v, want %v", c.at, got, c.down0)
			}
			if got := a.insts[0].up && !a.insts[0].warm; got != c.cold {
				t.Errorf("at %v: instance 0 cold %v, want %v", c.at, got, c.cold)
			}
			checkInstances(t, a, c.at)
		})
	}
}

// TestCrashFailsHeldAttempts checks the crash's instant: the crashed instances hold
// nothing, their attempts failed with an error, their readiness starts again from
// scheduled, and the event names them.
func TestCrashFailsHeldAttempts(t *testing.T) {
	a := crashArm(t, "  - {at: 5s, for: 10s, service: app, crash: {count: 2}}")
	a.s.Run(5*time.Second - time.Millisecond)
	if held := a.insts[0].busy + a.insts[0].queued + a.insts[1].busy + a.insts[1].queued; held < 2 {
		t.Fatalf("before the crash instances 0 and 1 hold %d attempts, want at least 2", held)
	}
	a.s.Run(5*time.Second + time.Millisecond)
	for ii := range 2 {
		in := &a.insts[ii]
		if in.busy != 0 || in.queued != 0 || in.routable || in.life != 1 {
			t.Errorf("instance %d after the crash: busy %d queued %d routable %v life %d; want nothing held, out of routing, life 1", ii, in.busy, in.queued, in.routable, in.life)
		}
		if st := in.ready.Stage(); st != readiness.Scheduled {
			t.Errorf("instance %d readiness %v, want Scheduled", ii, st)
		}
	}
	checkInstances(t, a, 5*time.Second)
}

// TestStallAgesQueue stalls instance 0 of two (round robin, under capacity) from 2s for
// 3s: its queue fills and ages while the other's stays young; after the stall it drains.
func TestStallAgesQueue(t *testing.T) {
	src := strings.NewReplacer("instances: 4", "instances: 2", "rate: 80/s", "rate: 10/s", "capacity: 4", "capacity: 100").Replace(crashed)
	for _, c := range []struct {
		name   string
		fault  string
		at     time.Duration
		minAge time.Duration // of instance 0's oldest queued attempt
		maxAge time.Duration
	}{
		{"none", "", 4 * time.Second, 0, 100 * time.Millisecond},
		{"during", "  - {at: 2s, for: 3s, service: app, stall: {count: 1}}", 4 * time.Second, 1700 * time.Millisecond, 2 * time.Second},
		{"after", "  - {at: 2s, for: 3s, service: app, stall: {count: 1}}", 8 * time.Second, 0, 100 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := strings.Replace(src, "FAULT", c.fault, 1)
			if c.fault == "" {
				s = strings.Replace(s, "faults:\n", "", 1)
			}
			_, a := firstArm(t, decode(t, s))
			a.begin()
			a.s.Run(c.at)
			age := time.Duration(0)
			if a.insts[0].queued > 0 {
				age = a.insts[0].q.OldestAge(a.wall())
			}
			if age < c.minAge || age > c.maxAge {
				t.Errorf("at %v: instance 0's oldest queued attempt is %v old (%d queued), want %v to %v", c.at, age, a.insts[0].queued, c.minAge, c.maxAge)
			}
			if a.insts[1].queued > 1 {
				t.Errorf("at %v: instance 1 has %d queued, want at most one", c.at, a.insts[1].queued)
			}
			checkInstances(t, a, c.at)
		})
	}
}

// TestInstanceMutationReplays replays FuzzReplay's instance mutation (a crash, a stall or
// an autoscaler) on the minimal scenario under load, for a spread of inputs, through the
// fuzzer's checks: invariants, determinism and the estimate's bounds.
func TestInstanceMutationReplays(t *testing.T) {
	ran := 0
	for k := range 24 {
		sc := minimalScenario()
		sc.Topology.Services[0].Instances = 3
		z := &fuzzBytes{b: []byte{byte(k * 37), byte(k % 3), byte(k * 11), byte(k * 5), byte(k * 13), byte(k), byte(k * 7), byte(k * 3), byte(k * 17), byte(k * 19), byte(k * 23), byte(k * 29), byte(k), byte(k * 31)}}
		z.b[1] = byte(k % 3) // the kind: crash, stall, autoscale in turn
		instanceMutation(sc, z)
		if err := sc.Validate(); err != nil {
			continue
		}
		ran++
		t.Run(fmt.Sprint(k), func(t *testing.T) { checkReplay(t, sc, uint64(k)) })
	}
	if ran < 12 {
		t.Errorf("only %d of 24 mutations validated", ran)
	}
}
