package model

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/control/readiness"
)

// scaled is two instances of one worker each (100ms attempts: 20/s of capacity) under
// 50/s until 20s and 2/s after, with an autoscaler holding utilisation at 50%.
const scaled = `
name: scaled
clock: {duration: 60s, tick: 1s}
load:
  arrivals: uniform
  schedule: [{at: 0s, rate: 50/s}, {at: 20s, rate: 2/s}]
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
      instances: 2
      workers: 1
      queue: {capacity: 4}
      router: round_robin
      autoscale:
        metric: utilisation
        target: 50%
        window: 2s
        step_up: 2
        step_down: 1
        min: 2
        max: 6
        cooldown: 3s
        delays: {scheduled: 1500ms, process_ready: 2s}
CONTROL
arms:
  - name: only
`

// counted returns the instances the autoscaler counts (not draining or retired) and those
// of them in readiness stage st or beyond.
func counted(a *arm, st readiness.Stage) (n, atLeast int) {
	for ii := range a.insts {
		in := &a.insts[ii]
		if in.retired || in.draining {
			continue
		}
		n++
		if s := in.ready.Stage(); s >= st {
			atLeast++
		}
	}
	return n, atLeast
}

// TestAutoscaleUpAndDown follows the rule at fixed instants: the first decision when the
// window is full (2s: +2, the step), its instances scheduled at 3.5s and process-ready at
// 5.5s; none at 5s (the cooldown has passed, but the new instances are not route-ready and
// the count already covers what the ready ones need); +2 at 6s, capped at max 6; after the
// load drops at 20s, one fewer at a time (the step), every cooldown (21s, 24s, 27s, 30s),
// down to min 2, and a retired instance's slot reused by nothing more.
func TestAutoscaleUpAndDown(t *testing.T) {
	_, a := firstArm(t, decode(t, strings.Replace(scaled, "CONTROL", "", 1)))
	a.begin()
	for _, c := range []struct {
		at       time.Duration
		st       readiness.Stage
		n, stage int
	}{
		{1500 * time.Millisecond, readiness.Requested, 2, 2},
		{2500 * time.Millisecond, readiness.Scheduled, 4, 2},
		{3600 * time.Millisecond, readiness.Scheduled, 4, 4},
		{3600 * time.Millisecond, readiness.ProcessReady, 4, 2},
		{5600 * time.Millisecond, readiness.ProcessReady, 4, 4},
		{6500 * time.Millisecond, readiness.Requested, 6, 6},
		{19500 * time.Millisecond, readiness.RouteReady, 6, 6},
		{20500 * time.Millisecond, readiness.RouteReady, 6, 6},
		{21500 * time.Millisecond, readiness.RouteReady, 5, 5},
		{23500 * time.Millisecond, readiness.RouteReady, 5, 5},
		{24500 * time.Millisecond, readiness.RouteReady, 4, 4},
		{30500 * time.Millisecond, readiness.RouteReady, 2, 2},
		{40 * time.Second, readiness.RouteReady, 2, 2},
		{59 * time.Second, readiness.RouteReady, 2, 2},
	} {
		a.s.Run(c.at)
		if n, st := counted(a, c.st); n != c.n || st != c.stage {
			t.Errorf("at %v: %d instances, %d at %v or beyond; want %d and %d", c.at, n, st, c.st, c.n, c.stage)
		}
	}
	if len(a.insts) != 6 {
		t.Errorf("%d instance slots, want 6 (a scale-up reuses a retired slot)", len(a.insts))
	}
}

// TestAutoscaleControlPlane fails or slows the first scale-up: the queues are older than
// 100ms when it is made at 2s. A failed one adds nothing and waits the cooldown (the next
// at 5s); a slowed one is scheduled 10s late.
func TestAutoscaleControlPlane(t *testing.T) {
	for _, c := range []struct {
		name    string
		control string
		at      time.Duration
		n, sch  int // counted, scheduled or beyond
	}{
		{"answers", "", 4 * time.Second, 4, 4},
		{"fails", "        control_plane: {queue_age_above: 100ms, fails: true}", 4 * time.Second, 2, 2},
		{"fails then retries", "        control_plane: {queue_age_above: 100ms, fails: true}", 5500 * time.Millisecond, 2, 2},
		{"slowed", "        control_plane: {queue_age_above: 100ms, slow_by: 10s}", 4 * time.Second, 4, 2},
		{"slowed scheduled", "        control_plane: {queue_age_above: 100ms, slow_by: 10s}", 13600 * time.Millisecond, 4, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, a := firstArm(t, decode(t, strings.Replace(scaled, "CONTROL", c.control, 1)))
			a.begin()
			a.s.Run(c.at)
			if n, st := counted(a, readiness.Scheduled); n != c.n || st != c.sch {
				t.Errorf("at %v: %d instances, %d scheduled; want %d and %d", c.at, n, st, c.n, c.sch)
			}
		})
	}
}

// TestAutoscaleEvents checks the rule's records in the packet and that a replay is
// deterministic.
func TestAutoscaleEvents(t *testing.T) {
	sc := decode(t, strings.Replace(scaled, "CONTROL", "        control_plane: {queue_age_above: 100ms, fails: true}", 1))
	one, err := Run(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, e := range one.Arms[0].Events {
		if e.Kind == "autoscale" {
			texts = append(texts, fmt.Sprint(e.T)+" "+e.Text)
		}
	}
	if len(texts) == 0 || !strings.Contains(texts[0], "request failed (+2") || !strings.Contains(texts[0], "control plane overloaded") {
		t.Fatalf("autoscale events %q; want the first a failed request of +2", texts)
	}
	two, err := Run(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(one.Arms[0].Series, two.Arms[0].Series) || !reflect.DeepEqual(one.Arms[0].Events, two.Arms[0].Events) {
		t.Error("two replays differ")
	}
	t.Logf("%s", strings.Join(texts, "\n"))
}

// TestAutoscaleCPU sets the two metrics apart: attempts of 20ms of work and an 80ms
// dependency call keep every worker busy (utilisation 100%: +2 at 2s) but running stage
// work only a fifth of the time (cpu about 20%, under the 50% target: no scale-up).
func TestAutoscaleCPU(t *testing.T) {
	src := strings.NewReplacer(
		"      - {name: w, work: 100ms}", "      - {name: w, work: 20ms}\n      - {name: d, dependency: db}",
		"CONTROL", "  dependencies:\n    - {name: db, service_time: {p50: 80ms, p99: 82ms}}",
	).Replace(scaled)
	for _, c := range []struct {
		metric string
		n      int
	}{{"utilisation", 4}, {"cpu", 2}} {
		t.Run(c.metric, func(t *testing.T) {
			_, a := firstArm(t, decode(t, strings.Replace(src, "metric: utilisation", "metric: "+c.metric, 1)))
			a.begin()
			a.s.Run(4 * time.Second)
			if n, _ := counted(a, readiness.Requested); n != c.n {
				t.Errorf("metric %s at 4s: %d instances, want %d", c.metric, n, c.n)
			}
		})
	}
}
