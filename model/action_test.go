package model

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/packet"
)

// withArms is the small scenario with its arms (and anything after them) replaced by tail.
func withArms(tail string) string {
	return small[:strings.Index(small, "arms:")] + tail
}

// twoBaselines are two arms with the baseline policy: as-happened and control.
const twoBaselines = `arms:
  - {name: as-happened, policy: {}}
  - {name: control, policy: {}}
`

func armNamed(t *testing.T, pk *packet.Packet, name string) *packet.Arm {
	t.Helper()
	for i := range pk.Arms {
		if pk.Arms[i].Name == name {
			return &pk.Arms[i]
		}
	}
	t.Fatalf("no arm %s", name)
	return nil
}

// counters are a row's populations, without its gauges (sampled at the tick's end, after
// an action at that instant).
func counters(r packet.Row) packet.Row {
	return packet.Row{T: r.T, Offered: r.Offered, Admitted: r.Admitted, Rejected: r.Rejected,
		Attempts: r.Attempts, Retries: r.Retries, Suppressed: r.Suppressed, Goodput: r.Goodput,
		Late: r.Late, Expired: r.Expired, Failed: r.Failed, Ambiguous: r.Ambiguous, Orphans: r.Orphans,
		LayerAttempts: r.LayerAttempts, LatencyP50: r.LatencyP50, LatencyP99: r.LatencyP99}
}

// sameUntil reports the first tick before until at which the two arms' series differ, or
// -1; and whether they differ at all from until on.
func sameUntil(a, b *packet.Arm, until time.Duration) (firstDiff int, laterDiffer bool) {
	firstDiff = -1
	for i := range min(len(a.Series), len(b.Series)) {
		ra, rb := counters(a.Series[i]), counters(b.Series[i])
		same := reflect.DeepEqual(ra, rb)
		if ra.T < until {
			if !same && firstDiff < 0 {
				firstDiff = i
			}
		} else if !same {
			laterDiffer = true
		}
	}
	return firstDiff, laterDiffer
}

// An action that raises the pay dependency's timeout at 7s (its fault makes it slow from
// 5s to 13s) leaves the arm's outcomes as the control arm's before 7s and changes them
// after: fewer call timeouts, so fewer failed buys and retries.
func TestActionRaisesTimeout(t *testing.T) {
	for _, tt := range []struct {
		name   string
		action string
		differ bool
	}{
		{"with the action", "actions:\n  - {at: 7s, arms: [as-happened], set: {topology.dependencies.pay.timeout: 1s}, note: release raises the timeout}\n", true},
		{"without it", "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pk := fates(t, decode(t, withArms(twoBaselines+tt.action)), 3)
			a, c := armNamed(t, pk, "as-happened"), armNamed(t, pk, "control")
			if a.Totals.Offered != c.Totals.Offered {
				t.Errorf("offered %d and %d: the arms must be offered the same load", a.Totals.Offered, c.Totals.Offered)
			}
			first, later := sameUntil(a, c, 7*time.Second)
			if first >= 0 {
				t.Errorf("the arms differ at tick %d, before the action", first)
			}
			if later != tt.differ {
				t.Errorf("the arms differ after 7s: %v, want %v", later, tt.differ)
			}
			if !tt.differ {
				return
			}
			if a.Totals.Failed >= c.Totals.Failed {
				t.Errorf("failed %d with the longer timeout, %d without; want fewer", a.Totals.Failed, c.Totals.Failed)
			}
			ev := slices.IndexFunc(a.Events, func(e packet.Event) bool { return e.Kind == "action" })
			if ev < 0 {
				t.Fatal("no action event")
			}
			if e := a.Events[ev]; e.T != 7*time.Second || e.Text != "release raises the timeout: set topology.dependencies.pay.timeout=1s" {
				t.Errorf("action event %+v", e)
			}
			if slices.ContainsFunc(c.Events, func(e packet.Event) bool { return e.Kind == "action" }) {
				t.Error("the control arm records an action that does not apply to it")
			}
		})
	}
}

// A scale action brings the service to the instances it sets: up (new instances start
// cold and are requested at once) and down (the newest leave, finishing what they hold).
func TestActionScales(t *testing.T) {
	src := withArms(twoBaselines + `actions:
  - {at: 3s, arms: [as-happened], set: {topology.services.shop.instances: 6}, note: scale 2 → 6}
  - {at: 15s, arms: [as-happened], set: {topology.services.shop.instances: 1}, note: scale in to 1}
`)
	pk := fates(t, decode(t, src), 5)
	a, c := armNamed(t, pk, "as-happened"), armNamed(t, pk, "control")
	requested := func(arm *packet.Arm, at time.Duration) int {
		for _, r := range arm.Series {
			if r.T == at {
				return r.Instances.Requested
			}
		}
		t.Fatalf("no row at %v", at)
		return 0
	}
	// shop 2 and catalog 1 at the start; the scale fault adds 2 shop instances at 8s.
	for _, tt := range []struct {
		at        time.Duration
		arm, ctrl int
	}{
		{2 * time.Second, 3, 3},
		{4 * time.Second, 7, 3},
		{10 * time.Second, 9, 5},
		{16 * time.Second, 2, 5},
	} {
		if got, want := requested(a, tt.at), tt.arm; got != want {
			t.Errorf("as-happened at %v: %d instances requested, want %d", tt.at, got, want)
		}
		if got, want := requested(c, tt.at), tt.ctrl; got != want {
			t.Errorf("control at %v: %d instances requested, want %d", tt.at, got, want)
		}
	}
}

// An arm's set changes its topology from the start, and the packet says so; the other arm
// and the offered load are untouched.
func TestArmSet(t *testing.T) {
	src := withArms(`arms:
  - {name: as-happened, policy: {}}
  - name: fix
    policy: {}
    set: {topology.dependencies.pay.timeout: 1s, topology.entries.web.retries.max: 0}
`)
	pk := fates(t, decode(t, src), 3)
	a, f := armNamed(t, pk, "as-happened"), armNamed(t, pk, "fix")
	if want := []string{"topology.dependencies.pay.timeout=1s", "topology.entries.web.retries.max=0"}; !slices.Equal(f.Set, want) {
		t.Errorf("fix's set %q, want %q", f.Set, want)
	}
	if a.Set != nil {
		t.Errorf("as-happened's set %q, want none", a.Set)
	}
	if a.Totals.Offered != f.Totals.Offered {
		t.Errorf("offered %d and %d", a.Totals.Offered, f.Totals.Offered)
	}
	web := func(arm *packet.Arm) int64 {
		for _, l := range arm.Layers {
			if l.Name == "web" {
				return l.Retries
			}
		}
		return -1
	}
	if web(f) != 0 || web(a) == 0 {
		t.Errorf("web retries: fix %d (want 0), as-happened %d (want some)", web(f), web(a))
	}
}

// On an arm with a load-state machine an action is a new policy generation in the same
// state, manual, with the action as its reason.
func TestActionPolicyGeneration(t *testing.T) {
	src := small + `actions:
  - {at: 2s, set: {topology.dependencies.pay.pool.per_instance: 8}, note: on-call raises the pool}
`
	pk := fates(t, decode(t, src), 7)
	prot := armNamed(t, pk, "protected")
	i := slices.IndexFunc(prot.Transitions, func(tr packet.Transition) bool { return tr.Manual })
	if i < 0 {
		t.Fatalf("no manual transition in %+v", prot.Transitions)
	}
	tr := prot.Transitions[i]
	prev := uint64(1)
	if i > 0 {
		prev = prot.Transitions[i-1].Generation
	}
	if tr.From != tr.To || tr.Generation != prev+1 || tr.Reason != "action: on-call raises the pool: set topology.dependencies.pay.pool.per_instance=8" {
		t.Errorf("the action's transition %+v (previous generation %d)", tr, prev)
	}
	if base := armNamed(t, pk, "baseline"); len(base.Transitions) != 0 {
		t.Errorf("baseline, without a load state, has transitions %+v", base.Transitions)
	}
}

// An entry's rate limit rejects what is above it; 0/s set by an action pauses the entry.
func TestRateLimit(t *testing.T) {
	src := strings.Replace(withArms(twoBaselines+`actions:
  - {at: 10s, arms: [as-happened], set: {topology.entries.mobile.rate_limit: 0/s}, note: pause mobile}
`), "{name: web, target: shop,", "{name: web, target: shop, rate_limit: 100/s,", 1)
	pk := fates(t, decode(t, src), 2)
	a, c := armNamed(t, pk, "as-happened"), armNamed(t, pk, "control")
	for _, arm := range []*packet.Arm{a, c} {
		if limited := arm.RejectedBy["rate-limited"]; limited == 0 {
			t.Errorf("%s: nothing rejected by the rate limit", arm.Name)
		}
	}
	// Mobile (browse, 30%) is paused in as-happened from 10s: its rejections are the
	// control's plus every browse request from then on.
	extra := a.RejectedBy["rate-limited"] - c.RejectedBy["rate-limited"]
	if extra < 1500 {
		t.Errorf("as-happened rejected %d more for the rate limit than control; want the paused browse requests (about 2000)", extra)
	}
	for _, r := range a.Series {
		if r.T >= 10*time.Second && r.T < 20*time.Second && r.Admitted > 100/2+15 {
			t.Errorf("as-happened at %v admitted %d in a tick; want at most web's 100/s", r.T, r.Admitted)
			break
		}
	}
}

// The actions that reconcile run-time state (workers, pools, concurrency, a switch of
// stage, restart settings, the budget's ratio) keep every request's fate single and the
// run deterministic.
func TestActionsConserveAndRepeat(t *testing.T) {
	src := small + `actions:
  - {at: 3s, set: {topology.services.shop.workers: 1, topology.dependencies.flaky.concurrency: 1}}
  - {at: 6s, set: {topology.services.shop.workers: 8, topology.dependencies.flaky.concurrency: 0, topology.dependencies.pay.pool.per_instance: 1}}
  - {at: 9s, set: {topology.dependencies.pay.pool.per_instance: 10, topology.dependencies.flaky.error_rate: 90%}}
  - {at: 11s, set: {classes.buy.stages.extras.dependency: pay, topology.dependencies.pay.service_time: {p50: 2ms, p99: 9ms}}}
  - {at: 12s, arms: [protected], set: {arms.protected.policy.retries.budget.ratio: 50%}}
  - {at: 14s, set: {topology.services.shop.instances: 1, topology.entries.web.timeout: 20ms}}
`
	sc := decode(t, src)
	one := fates(t, sc, 11)
	two, err := Run(context.Background(), sc, Options{Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	j1, _ := json.Marshal(one)
	j2, _ := json.Marshal(two)
	if string(j1) != string(j2) {
		t.Error("two runs of one scenario and seed differ")
	}
	for i := range one.Arms {
		if !reflect.DeepEqual(one.Arms[i].Series, two.Arms[i].Series) || !reflect.DeepEqual(one.Arms[i].Events, two.Arms[i].Events) {
			t.Errorf("%s: the series or events differ between two runs", one.Arms[i].Name)
		}
	}
}

// An action that gives an arm admission control makes it reject from then on, and only
// then; the requests admitted before are done with no controller, those after with the
// new one.
func TestActionAdmission(t *testing.T) {
	src := withArms(twoBaselines + `actions:
  - {at: 6s, arms: [as-happened], set: {arms.as-happened.policy.admission: {adaptive: true, target: 1ms}}}
`)
	pk := fates(t, decode(t, src), 4)
	a, c := armNamed(t, pk, "as-happened"), armNamed(t, pk, "control")
	if first, _ := sameUntil(a, c, 6*time.Second); first >= 0 {
		t.Errorf("the arms differ at tick %d, before the action", first)
	}
	var before, after int64
	for _, r := range a.Series {
		if r.T < 6*time.Second {
			before += r.Rejected
		} else {
			after += r.Rejected
		}
	}
	if before != 0 || after == 0 || c.Totals.Rejected != 0 {
		t.Errorf("rejected %d before the action and %d after (control %d); want 0, some, 0", before, after, c.Totals.Rejected)
	}
}
