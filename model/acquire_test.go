package model

import (
	"fmt"
	"testing"
	"time"
)

// acquirePool is two instances with 10 connections each to a dependency that hangs a
// third of its calls until the caller's 30 s timeout, offered 100 calls/s: the hung calls
// fill the pools within a second or two. %s is the pool's acquire timeout setting.
const acquirePool = `
name: acquire
clock: {duration: 20s, tick: 1s}
load:
  arrivals: uniform
  schedule: [{at: 0s, rate: 100/s}]
classes:
  - name: checkout
    share: 100%%
    deadline: 60s
    stages:
      - {name: pay, dependency: d}
topology:
  entries:
    - {name: clients, target: api}
  services:
    - {name: api, instances: 2, workers: 400}
  dependencies:
    - name: d
      service_time: {p50: 10ms, p99: 10ms}
      hang_rate: 33%%
      timeout: 30s
      pool: {per_instance: 10%s}
arms:
  - {name: baseline, policy: {}}
`

// TestPoolAcquireTimeout: with hung calls holding every connection, a call without an
// acquire timeout waits for one (the successes are slow: they queue behind the hung ones),
// while with acquire_timeout: 100ms it gives up after 100ms as pool-exhausted, so the
// failures are fast and the calls that do get a connection keep their 10 ms.
func TestPoolAcquireTimeout(t *testing.T) {
	for _, tc := range []struct {
		extra     string
		exhausted bool
		p50Max    time.Duration // the class's median latency, any outcome
	}{
		{"", false, time.Hour},
		{", acquire_timeout: 0s", false, time.Hour},
		{", acquire_timeout: 100ms", true, 150 * time.Millisecond},
	} {
		pk := fates(t, decode(t, fmt.Sprintf(acquirePool, tc.extra)), 1)
		a := pk.Arms[0]
		d := a.Dependencies[0]
		cl := a.Classes[0]
		if tc.exhausted != (d.PoolExhausted > 0) {
			t.Errorf("%q: pool_exhausted %d; want some: %v", tc.extra, d.PoolExhausted, tc.exhausted)
		}
		if !tc.exhausted {
			if cl.Latency.P50 < time.Second {
				t.Errorf("%q: p50 latency %v; want calls waiting seconds for a connection", tc.extra, cl.Latency.P50)
			}
			continue
		}
		if cl.Latency.P50 > tc.p50Max {
			t.Errorf("%q: p50 latency %v; want at most %v (fast failures, fast successes)", tc.extra, cl.Latency.P50, tc.p50Max)
		}
		if w := d.ConnWait.P99; w > 110*time.Millisecond {
			t.Errorf("%q: connection wait p99 %v; want none beyond the 100ms acquire timeout", tc.extra, w)
		}
		if cl.Goodput == 0 || cl.Failed == 0 {
			t.Errorf("%q: goodput %d, failed %d; want both", tc.extra, cl.Goodput, cl.Failed)
		}
	}
}
