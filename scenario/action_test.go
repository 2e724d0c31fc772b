package scenario

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// actionBase is a valid scenario with an arm set and actions; each case of
// TestActionErrors replaces one line of it.
const actionBase = `name: actions
clock: {duration: 1m}
load: {schedule: [{at: 0s, rate: 100/s}]}
classes:
  - name: buy
    share: 100%
    deadline: 1s
    stages:
      - {name: charge, dependency: pay}
topology:
  entries:
    - {name: web, target: shop, timeout: 500ms}
  services:
    - {name: shop, instances: 2, workers: 4}
  dependencies:
    - {name: pay, service_time: {p50: 10ms, p99: 40ms}, pool: {per_instance: 4}, timeout: 2s}
    - {name: pay2, service_time: {p50: 10ms, p99: 40ms}}
arms:
  - {name: as-happened, policy: {}}
  - name: fix
    policy: {retries: {mode: budget, budget: {ratio: 5%}}}
    set:
      topology.dependencies.pay.timeout: 300ms
      topology.entries.web.retries: {max: 1, on: [timeout]}
actions:
  - at: 20s
    arms: [as-happened]
    set:
      topology.dependencies.pay.timeout: 30s
    note: release raises the timeout
  - {at: 30s, set: {topology.services.shop.instances: 6, topology.entries.web.rate_limit: 50/s}}
  - {at: 40s, arms: [fix], set: {arms.fix.policy.retries.budget.ratio: 10%}}
  - {at: 10s, set: {classes.buy.stages.charge.dependency: pay2}}
`

func TestActionsDecode(t *testing.T) {
	sc, err := Decode("a.scenario.yaml", []byte(actionBase))
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Actions) != 4 || sc.Actions[0].Note != "release raises the timeout" || sc.Actions[0].At.Std() != 20*time.Second {
		t.Fatalf("actions %+v", sc.Actions)
	}
	if got := sc.Arms[1].Set.Strings(); !slices.Equal(got, []string{"topology.dependencies.pay.timeout=300ms", "topology.entries.web.retries={max: 1, on: [timeout]}"}) {
		t.Errorf("fix's sets %q", got)
	}
	in, err := sc.Inputs("fix")
	if err != nil {
		t.Fatal(err)
	}
	if d := in.Scenario.Topology.Dependencies[0]; d.Timeout.Std() != 300*time.Millisecond {
		t.Errorf("fix's pay timeout %v", d.Timeout)
	}
	if in.Scenario.Actions != nil || in.Scenario.Arms[1].Set != nil {
		t.Error("an arm's scenario still carries actions or sets")
	}
	// fix gets the actions at 10s, 30s and 40s, in time order, each on top of the last.
	var ats []time.Duration
	for _, a := range in.Actions {
		ats = append(ats, a.At.Std())
	}
	if !slices.Equal(ats, []time.Duration{10 * time.Second, 30 * time.Second, 40 * time.Second}) {
		t.Fatalf("fix's actions at %v", ats)
	}
	last := in.Actions[2].Scenario
	if last.Classes[0].Stages[0].Dependency != "pay2" || last.Topology.Services[0].Instances != 6 ||
		float64(*last.Topology.Entries[0].RateLimit) != 50 || float64(last.Arms[1].Policy.Retries.Budget.Ratio) != 0.1 ||
		last.Topology.Dependencies[0].Timeout.Std() != 300*time.Millisecond {
		t.Errorf("fix's scenario after its last action: %+v", last.Topology)
	}
	if in.Actions[0].Scenario.Topology.Services[0].Instances != 2 {
		t.Error("an action's change appears before its instant")
	}
	asIs, err := sc.Inputs("as-happened")
	if err != nil {
		t.Fatal(err)
	}
	if asIs.Scenario != sc || asIs.Set != nil {
		t.Error("an arm without sets does not replay the file's scenario")
	}
	if d := asIs.Actions[1].Scenario.Topology.Dependencies[0]; len(asIs.Actions) != 3 || d.Timeout.Std() != 30*time.Second {
		t.Errorf("as-happened's actions %d, pay timeout after 20s %v", len(asIs.Actions), d.Timeout)
	}
	// With (--set) keeps the actions and sets, as written.
	again, err := sc.With()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, sc) {
		t.Error("the scenario changed on its way through With")
	}
}

func TestActionErrors(t *testing.T) {
	for _, tt := range []struct {
		name, from, to, want string
	}{
		{"at outside the run", "  - at: 20s\n", "  - at: 1m\n",
			"a.scenario.yaml:26:9: actions[0].at: action at 1m is at or after the end of the run (1m)"},
		{"unknown arm", "    arms: [as-happened]\n", "    arms: [as-hapened]\n",
			`a.scenario.yaml:27:12: actions[0].arms[0]: arm "as-hapened" is not declared; expected one of "as-happened", "fix"`},
		{"a path that cannot change", "      topology.dependencies.pay.timeout: 30s\n", "      topology.dependencies.pay.keyed: true\n",
			"a.scenario.yaml:29:40: actions[0].set['topology.dependencies.pay.keyed']: an action cannot change topology.dependencies.pay.keyed during the run; expected one of topology.entries.*.timeout"},
		{"offered load", "      topology.dependencies.pay.timeout: 30s\n", "      load.schedule.0.rate: 200/s\n",
			"a.scenario.yaml:29:29: actions[0].set['load.schedule.0.rate']: an action cannot change load.schedule.0.rate during the run"},
		{"a bad value", "      topology.dependencies.pay.timeout: 30s\n", "      topology.dependencies.pay.timeout: 30\n",
			`a.scenario.yaml:29:42: actions[0].set['topology.dependencies.pay.timeout']: in arm "as-happened": set topology.dependencies.pay.timeout=30: topology.dependencies[0].timeout: "30" has no unit`},
		{"no such element", "      topology.dependencies.pay.timeout: 30s\n", "      topology.dependencies.pya.timeout: 30s\n",
			`a.scenario.yaml:29:42: actions[0].set['topology.dependencies.pya.timeout']: in arm "as-happened": set topology.dependencies.pya.timeout=30s: topology.dependencies has no element named "pya" (its elements are pay, pay2)`},
		{"an invalid result", "{topology.services.shop.instances: 6,", "{topology.services.shop.instances: 0,",
			`a.scenario.yaml:31:55: actions[1].set['topology.services.shop.instances']: in arm "as-happened": set topology.services.shop.instances=0: topology.services[0].instances: instances is 0; expected at least 1`},
		{"another arm's policy", "{at: 40s, arms: [fix], set: {arms.fix.", "{at: 40s, arms: [as-happened], set: {arms.fix.",
			`a.scenario.yaml:32:80: actions[2].set['arms.fix.policy.retries.budget.ratio']: the action sets arm "fix"'s policy, but applies to "as-happened" only`},
		{"nothing set", "    set:\n      topology.dependencies.pay.timeout: 30s\n", "    set: {}\n",
			"a.scenario.yaml:28:5: actions[0].set: the action sets nothing"},
		{"an arm setting the load", "      topology.dependencies.pay.timeout: 300ms\n", "      load.schedule.0.rate: 200/s\n",
			`a.scenario.yaml:23:29: arms[1].set['load.schedule.0.rate']: arm "fix" may not set load.schedule.0.rate: every arm replays the same offered load and draws (common random numbers)`},
		{"an arm setting a share", "      topology.dependencies.pay.timeout: 300ms\n", "      classes.buy.share: 50%\n",
			`a.scenario.yaml:23:26: arms[1].set['classes.buy.share']: arm "fix" may not set classes.buy.share`},
		{"an arm setting the arms", "      topology.dependencies.pay.timeout: 300ms\n", "      arms.fix.policy.identity: true\n",
			`arms[1].set['arms.fix.policy.identity']: arm "fix" may not set arms.fix.policy.identity: an arm's sets change the scenario, not the arms`},
		{"an arm's bad set", "      topology.dependencies.pay.timeout: 300ms\n", "      topology.dependencies.pay.timeout: -1s\n",
			`a.scenario.yaml:23:42: arms[1].set['topology.dependencies.pay.timeout']: set topology.dependencies.pay.timeout=-1s: topology.dependencies[0].timeout: timeout is -1s; expected zero (none) or more`},
		{"paths inside one another", "      topology.entries.web.retries: {max: 1, on: [timeout]}\n", "      topology.entries.web.retries: {max: 1, on: [timeout]}\n      topology.entries.web.retries.max: 2\n",
			`arms[1].set['topology.entries.web.retries.max']: path topology.entries.web.retries.max lies inside topology.entries.web.retries, set too`},
		{"a shift fault in an arm", "      topology.dependencies.pay.timeout: 300ms\n", "      faults: [{at: 1s, shift: {rate: 200%}}]\n",
			`a.scenario.yaml:23:7: arms[1].set.faults: arm "fix" changes a traffic shift, and every arm is offered the same load`},
		{"a negative rate limit", "{at: 30s, set: {topology.services.shop.instances: 6, topology.entries.web.rate_limit: 50/s}}", "{at: 30s, set: {topology.services.shop.instances: 6, topology.entries.web.rate_limit: -5/s}}",
			`actions[1].set['topology.entries.web.rate_limit']: in arm "as-happened": set topology.entries.web.rate_limit=-5/s: topology.entries[0].rate_limit: rate "-5/s" is negative`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(actionBase, tt.from) {
				t.Fatalf("the base has no %q", tt.from)
			}
			src := strings.Replace(actionBase, tt.from, tt.to, 1)
			_, err := Decode("a.scenario.yaml", []byte(src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error:\n%v\nwant one containing\n%s", err, tt.want)
			}
		})
	}
}

func TestActionPathAllowed(t *testing.T) {
	for _, tt := range []struct {
		path string
		ok   bool
	}{
		{"topology.entries.web.timeout", true},
		{"topology.entries.0.retries", true},
		{"topology.entries.web.retries.on", true},
		{"topology.entries.web.target", false},
		{"topology.dependencies.pay.service_time.p99", true},
		{"topology.dependencies.pay.pool", true},
		{"topology.dependencies.pay", false},
		{"topology.services.shop.health.backoff.initial", true},
		{"topology.services.shop.health.interval", false},
		{"classes.buy.stages.charge.dependency", true},
		{"classes.buy.share", false},
		{"arms.protected.policy.retries.budget.ratio", true},
		{"arms.protected.policy.retries.mode", false},
		{"arms.protected.policy.admission", true},
		{"arms.protected.policy.admission.target", true},
		{"arms.protected.policy.queue.kind", false},
		{"load.schedule", false},
	} {
		if got := actionPathAllowed(tt.path); got != tt.ok {
			t.Errorf("actionPathAllowed(%s) = %v, want %v", tt.path, got, tt.ok)
		}
	}
}

func TestSetText(t *testing.T) {
	for _, tt := range []struct {
		v    any
		want string
	}{
		{"30s", "30s"},
		{"5%", "5%"},
		{"100/s", "100/s"},
		{"32", `"32"`},
		{"true", `"true"`},
		{"a, b", `"a, b"`},
		{"-1s", "-1s"},
		{"-", `"-"`},
		{int64(32), "32"},
		{0.5, "0.5"},
		{true, "true"},
		{nil, "null"},
		{map[string]any{"p99": "300ms", "p50": "40ms"}, "{p50: 40ms, p99: 300ms}"},
		{map[string]any{"a b": []any{"x,y", int64(1)}}, `{"a b": ["x,y", 1]}`},
	} {
		if got := setText(tt.v); got != tt.want {
			t.Errorf("setText(%#v) = %s, want %s", tt.v, got, tt.want)
		}
	}
}

// Truncate drops the actions at or after the new end.
func TestTruncateActions(t *testing.T) {
	sc, err := Decode("a.scenario.yaml", []byte(actionBase))
	if err != nil {
		t.Fatal(err)
	}
	short := sc.Truncate(25 * time.Second)
	var ats []time.Duration
	for _, a := range short.Actions {
		ats = append(ats, a.At.Std())
	}
	if !slices.Equal(ats, []time.Duration{20 * time.Second, 10 * time.Second}) {
		t.Errorf("actions kept at %v", ats)
	}
	if err := short.Validate(); err != nil {
		t.Error(err)
	}
}
