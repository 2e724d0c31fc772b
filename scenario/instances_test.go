package scenario

import (
	"errors"
	"strings"
	"testing"
)

// instancesBase adds a crash, a stall and an autoscaler to validBase.
var instancesBase = strings.NewReplacer(
	"memory: {limit: 64MiB, per_attempt: 1MiB}}",
	"memory: {limit: 64MiB, per_attempt: 1MiB}, autoscale: {metric: utilisation, target: 70%, window: 5s, step_up: 2, step_down: 1, max: 6, cooldown: 10s, delays: {scheduled: 2s, process_ready: 3s}, control_plane: {queue_age_above: 200ms, fails: true}}}",
	"  - {at: 20s, shift: {rate: 115%}}\n",
	"  - {at: 20s, shift: {rate: 115%}}\n  - {at: 25s, for: 5s, service: shop, crash: {count: 1}}\n  - {at: 26s, for: 2s, service: shop, stall: {share: 50%}}\n",
).Replace(validBase)

func TestInstancesBaseValid(t *testing.T) {
	if instancesBase == validBase {
		t.Fatal("the replacements did not apply")
	}
	sc, err := Decode("base.yaml", []byte(instancesBase))
	if err != nil {
		t.Fatalf("rejected:\n%v", err)
	}
	if as := sc.Topology.Services[0].Autoscale; as == nil || as.Max != 6 || !as.ControlPlane.Fails {
		t.Errorf("autoscale decoded as %+v", as)
	}
	if f := sc.Faults[2]; f.Crash == nil || f.Crash.Count != 1 || f.Service != "shop" {
		t.Errorf("crash decoded as %+v", f)
	}
}

// TestValidateInstances breaks the crash, the stall or the autoscaler in one place per
// case and checks the error's path, position and message.
func TestValidateInstances(t *testing.T) {
	for _, tc := range []struct {
		name, old, new, path, msg string
	}{
		{"crash service", "service: shop, crash", "service: store, crash", "$.faults[2].service", `"store" is not declared`},
		{"crash both", "crash: {count: 1}", "crash: {count: 1, share: 10%}", "$.faults[2].crash", "both set"},
		{"crash none", "crash: {count: 1}", "crash: {}", "$.faults[2].crash", "count"},
		{"crash count", "crash: {count: 1}", "crash: {count: -1}", "$.faults[2].crash.count", "1 to 100000"},
		{"stall share", "stall: {share: 50%}", "stall: {share: 150%}", "$.faults[3].stall.share", "more than 100%"},
		{"stall and work", "stall: {share: 50%}", "stall: {share: 50%}, work_factor: 200%", "$.faults[3]", "mixes 2 kinds"},
		{"metric", "metric: utilisation", "metric: memory", "$.topology.services[0].autoscale.metric", "utilisation or cpu"},
		{"target", "target: 70%", "target: 0%", "$.topology.services[0].autoscale.target", "above 0"},
		{"window", "window: 5s", "window: 100ms", "$.topology.services[0].autoscale.window", "one tick"},
		{"step_up", "step_up: 2", "step_up: 0", "$.topology.services[0].autoscale.step_up", "1 to 100000"},
		{"step_down", "step_down: 1", "step_down: -1", "$.topology.services[0].autoscale.step_down", "never scale down"},
		{"max", "max: 6", "max: 1", "$.topology.services[0].autoscale.max", "at least min"},
		{"min", "max: 6", "max: 6, min: 3", "$.topology.services[0].autoscale.min", "at most 2"},
		{"cooldown", "cooldown: 10s", "cooldown: -1s", "$.topology.services[0].autoscale.cooldown", "zero (none)"},
		{"delay", "scheduled: 2s", "scheduled: -2s", "$.topology.services[0].autoscale.delays.scheduled", "zero or more"},
		{"control plane age", "queue_age_above: 200ms", "queue_age_above: 0s", "$.topology.services[0].autoscale.control_plane.queue_age_above", "positive"},
		{"control plane both", "fails: true", "fails: true, slow_by: 1s", "$.topology.services[0].autoscale.control_plane", "both set"},
		{"control plane neither", "fails: true", "fails: false", "$.topology.services[0].autoscale.control_plane", "neither fails nor slows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(instancesBase, tc.old, tc.new, 1)
			if src == instancesBase {
				t.Fatalf("case does not change the scenario: %q not found", tc.old)
			}
			_, err := Decode("case.yaml", []byte(src))
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("Decode() = %v; want an ErrorList", err)
			}
			for _, e := range list {
				if e.Path == tc.path && strings.Contains(e.Msg, tc.msg) {
					if e.Line == 0 {
						t.Errorf("%s has no position: %v", tc.path, e)
					}
					return
				}
			}
			t.Errorf("no error at %s containing %q; got:\n%v", tc.path, tc.msg, err)
		})
	}
}
