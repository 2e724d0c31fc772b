package model

import (
	"strings"
	"testing"
	"time"
)

// storm is one instance holding 200 attempts of ten seconds' work (one running, the rest
// queued), which the tests kill at once: every attempt fails with an error at the same
// instant, and the entry retries each after its backoff (BACKOFF).
const storm = `
name: storm
clock: {duration: 60s, tick: 1s}
load:
  schedule: [{at: 0s, rate: 0/s}, {at: 50s, rate: 1/s}] # none before 50s: the tests send by hand
classes:
  - {name: c, share: 100%, deadline: 60s, stages: [{name: w, work: 10s}]}
topology:
  entries:
    - {name: edge, target: app, timeout: 30s, retries: {max: 1, on: [error], backoff: BACKOFF}}
  services:
    - name: app
      instances: 1
      workers: 1
      queue: {capacity: 1000}
      health: {interval: 1h, timeout: 1s, failures: 1, action: restart, restart: 1ms}
arms:
  - name: only
    policy: POLICY
`

// stormPeak kills the storm's instance at time zero with 200 attempts on it and returns the
// retries sent in each 50ms over the next 1.5s.
func stormPeak(t *testing.T, backoff, policy string) (peak int, buckets []int) {
	t.Helper()
	src := strings.Replace(strings.Replace(storm, "BACKOFF", backoff, 1), "POLICY", policy, 1)
	_, a := firstArm(t, decode(t, src))
	for range 200 {
		a.arrival()
	}
	a.kill(ref(0, a.insts[0].life))
	sent := a.tk.attempts
	for k := 1; k <= 30; k++ {
		a.s.Run(time.Duration(k) * 50 * time.Millisecond)
		n := a.tk.attempts - sent
		sent = a.tk.attempts
		buckets = append(buckets, n)
		peak = max(peak, n)
	}
	if total := a.tk.attempts - 200; total != 200 {
		t.Fatalf("backoff %s: %d retries, want one for each of the 200 attempts killed", backoff, total)
	}
	return peak, buckets
}

// TestBackoffJitterSpreadsAStorm: 200 attempts fail together when their instance is killed.
// Without jitter their retries come back together, a second later, whether the backoff is
// constant or exponential (the exponent lengthens later waits; it does not spread the
// first); full jitter spreads them over the second, equal jitter over its second half. The
// draws are keyed by the request and its attempt, so an arm with another policy spreads
// them exactly alike.
func TestBackoffJitterSpreadsAStorm(t *testing.T) {
	for _, tt := range []struct {
		backoff    string
		lo, hi     int // the peak's bounds: 50ms of the second is 10 of 200 spread evenly
		firstAfter int // no retry in the buckets before this one
	}{
		{"1s", 200, 200, 19},
		{"{initial: 1s}", 200, 200, 19},
		{"{initial: 1s, multiplier: 1, jitter: full}", 11, 30, 0},
		{"{initial: 1s, multiplier: 2, max: 1s, jitter: full}", 11, 30, 0},
		{"{initial: 1s, jitter: equal}", 21, 45, 10},
	} {
		t.Run(tt.backoff, func(t *testing.T) {
			peak, buckets := stormPeak(t, tt.backoff, "{}")
			t.Logf("peak %d; retries by 50ms: %v", peak, buckets)
			if peak < tt.lo || peak > tt.hi {
				t.Errorf("peak %d retries in 50ms, want %d to %d; by 50ms: %v", peak, tt.lo, tt.hi, buckets)
			}
			for k := range tt.firstAfter {
				if buckets[k] != 0 {
					t.Errorf("%d retries in the %dth 50ms, before the backoff allows any: %v", buckets[k], k+1, buckets)
				}
			}
			if _, other := stormPeak(t, tt.backoff, "{identity: true}"); !equalInts(other, buckets) {
				t.Errorf("another arm's policy moves the retries:\n%v\n%v", buckets, other)
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// failing is one request against a dependency that always fails at once (1ms), retried on
// errors at the entry (ENTRY) or by the service (DEP).
const failing = `
name: failing
clock: {duration: 120s, tick: 1s}
load:
  schedule: [{at: 0s, rate: 0/s}, {at: 110s, rate: 1/s}] # none before 110s: the tests send by hand
classes:
  - {name: c, share: 100%, deadline: 100s, stages: [{name: pay, dependency: bank}]}
topology:
  entries:
    - {name: edge, target: app, timeout: 50s, retries: ENTRY}
  services:
    - {name: app, instances: 1, workers: 1}
  dependencies:
    - {name: bank, service_time: {p50: 1ms, p99: 1ms}, error_rate: 100%, retries: DEP}
arms:
  - name: only
    policy: {}
`

// TestBackoffExponentLengthensTheWaits sends one request whose every try fails and checks
// when its caller gives up: after four tries of 1ms and the three backoffs between them,
// at the entry or at the service. A constant backoff waits 1s each time; an exponential
// one 1s, then twice or three times the wait before, up to its cap; a jittered one draws
// each wait, in [0, ceiling) for full jitter and [ceiling/2, ceiling) for equal.
func TestBackoffExponentLengthensTheWaits(t *testing.T) {
	const ms, s = time.Millisecond, time.Second
	for _, layer := range []string{"entry", "dependency"} {
		for _, tt := range []struct {
			backoff string
			lo, hi  time.Duration // the waits together
		}{
			{"1s", 3 * s, 3 * s},
			{"{initial: 1s}", 7 * s, 7 * s},
			{"{initial: 1s, max: 2s}", 5 * s, 5 * s},
			{"{initial: 1s, multiplier: 3}", 13 * s, 13 * s},
			{"{initial: 1s, multiplier: 1.5}", 4750 * ms, 4750 * ms},
			{"{initial: 1s, jitter: full}", 1, 7*s - 3},
			{"{initial: 1s, jitter: equal}", 3500 * ms, 7*s - 3},
		} {
			t.Run(layer+"/"+tt.backoff, func(t *testing.T) {
				retries := "{max: 3, on: [error], backoff: " + tt.backoff + "}"
				entry, dep := retries, "{max: 0}"
				if layer == "dependency" {
					entry, dep = "{max: 0}", retries
				}
				src := strings.Replace(strings.Replace(failing, "ENTRY", entry, 1), "DEP", dep, 1)
				_, a := firstArm(t, decode(t, src))
				a.arrival()
				a.s.Run(100 * s)
				tries := 4 * a.deps[0].ln.Sample(0.5) // 1ms as the model computes it (a nanosecond less)
				lg := a.sl.lg(0)
				if lg.state != lgFreed || lg.cause != causeError {
					t.Fatalf("the request is in state %d with cause %d; want given up on an error", lg.state, lg.cause)
				}
				if waits := lg.giveUpAt - tries; waits < tt.lo || waits > tt.hi {
					t.Errorf("the caller gave up at %v: waits of %v, want %v to %v", lg.giveUpAt, waits, tt.lo, tt.hi)
				}
			})
		}
	}
}

// TestRestartJitter kills an instance whose restarts back off 10s with full or equal jitter
// and checks that it is back after the drawn wait plus the 1s restart: the wait drawn by
// the instance and its life, within the jitter's range, and not the ceiling itself.
func TestRestartJitter(t *testing.T) {
	for _, tt := range []struct {
		jitter string
		lo, hi time.Duration
	}{
		{"full", 0, 10*time.Second - 1},
		{"equal", 5 * time.Second, 10*time.Second - 1},
	} {
		t.Run(tt.jitter, func(t *testing.T) {
			src := strings.Replace(killable, "POLICY", "{}", 1)
			src = strings.Replace(src, "restart: 1s}", "restart: 1s, backoff: {initial: 10s, jitter: "+tt.jitter+"}}", 1)
			_, a := firstArm(t, decode(t, src))
			in := &a.insts[0]
			hp := a.p.services[0].health
			if !hp.jittered {
				t.Fatal("the restart backoff is not jittered")
			}
			a.kill(ref(0, in.life))
			wait := hp.backoff.Jitter.Spread(10*time.Second, a.draw(hp.jitterPurp, 0, int32(in.life), 0, 0))
			if wait < tt.lo || wait > tt.hi {
				t.Fatalf("drawn wait %v, want %v to %v", wait, tt.lo, tt.hi)
			}
			a.s.Run(wait + time.Second - 1)
			if in.up {
				t.Fatalf("up before the drawn %v and the restart", wait)
			}
			a.s.Run(wait + time.Second)
			if !in.up {
				t.Fatalf("not up at the drawn %v and the restart", wait)
			}
		})
	}
}
