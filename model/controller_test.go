package model

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/control/loadstate"
	"github.com/goodput-lab/goodput/packet"
)

// tight is a checkout with a 300 ms deadline whose dependency slows for ten seconds: the
// queue fills, the slack at a worker's start falls to nothing, then the backlog drains.
// Both arms run only a load-state machine: derived declares nothing, so its slack gate is
// cut from the 300 ms deadline (200/100/233 ms); fixed is the deprecated Northstar preset,
// whose slack gates are cut from Northstar's 1.8 s (1.2 s/600 ms/1.4 s).
const tight = `
name: tight
clock: {duration: 60s, tick: 500ms}
load:
  schedule: [{at: 0s, rate: 300/s}]
classes:
  - name: buy
    share: 100%
    deadline: 300ms
    stages:
      - {name: prepare, work: {mean: 2ms}}
      - {name: charge, dependency: pay}
topology:
  entries:
    - {name: web, target: shop, timeout: 250ms}
  services:
    - {name: shop, instances: 2, workers: 8, queue: {capacity: 200}}
  dependencies:
    - {name: pay, service_time: {p50: 10ms, p99: 40ms}, pool: {per_instance: 4}, timeout: 200ms}
faults:
  - {at: 10s, for: 10s, dependency: pay, service_time: {p50: 60ms, p99: 200ms}}
arms:
  - name: derived
    policy: {loadstate: {}}
  - name: fixed
    policy: {loadstate: {preset: northstar}}
`

// With slack gates derived from its own 300 ms deadline, the machine goes to Protected in
// the slowdown and returns to Normal once the backlog drains; with the fixed gates of a
// 1.8 s deadline it goes to Protected at the first tick and never leaves, since a 300 ms
// deadline can never leave 1.4 s of slack.
func TestSlackGatesFromTheDeadline(t *testing.T) {
	pk := fates(t, decode(t, tight), 1)
	last := func(a *packet.Arm) string {
		if len(a.Transitions) == 0 {
			return loadstate.Normal.String()
		}
		return a.Transitions[len(a.Transitions)-1].To
	}
	visited := func(a *packet.Arm, s loadstate.State) bool {
		return slices.ContainsFunc(a.Transitions, func(tr packet.Transition) bool { return tr.To == s.String() })
	}
	derived, fixed := &pk.Arms[0], &pk.Arms[1]
	if !visited(derived, loadstate.Protected) {
		t.Errorf("derived: never Protected in the slowdown; transitions %+v", derived.Transitions)
	}
	for _, tr := range derived.Transitions {
		if tr.To == loadstate.Protected.String() && (tr.T < 10*time.Second || tr.T > 20*time.Second) {
			t.Errorf("derived: Protected at %v, outside the slowdown (10s–20s)", tr.T)
		}
	}
	if got := last(derived); got != loadstate.Normal.String() {
		t.Errorf("derived: ends %s, want Normal once the backlog drained; transitions %+v", got, derived.Transitions)
	}
	if len(fixed.Transitions) == 0 || fixed.Transitions[0].To != loadstate.Protected.String() || fixed.Transitions[0].T > time.Second {
		t.Fatalf("fixed: transitions %+v, want Protected at the first tick", fixed.Transitions)
	}
	if got := last(fixed); got != loadstate.Protected.String() {
		t.Errorf("fixed: ends %s; the 1.4 s exit of the fixed gates is out of a 300 ms deadline's reach, want Protected", got)
	}
}

// shedding is declared per stage: shed_from alone decides which states shed an optional
// stage, whatever its name (a stage named analytics is not shed from Pressured unless it
// says so, one named risk-check is shed like any other), and required stages never are.
func TestShedFromDeclaredPerStage(t *testing.T) {
	sc := decode(t, strings.Replace(small, "      - {name: extras, dependency: flaky, optional: true}\n", `      - {name: extras, dependency: flaky, optional: true}
      - {name: analytics, work: 1ms, optional: true, shed_from: protected}
      - {name: zeta, work: 1ms, optional: true, shed_from: pressured, fallback_text: later}
      - {name: risk-check, work: 1ms, optional: true}
      - {name: keep, work: 1ms, optional: true, shed_from: never}
      - {name: background, work: 1ms}
`, 1))
	p, err := compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := newPolicy(p, sc, sc.Arms[1].Policy, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		state loadstate.State
		want  string
	}{
		{loadstate.Normal, ""},
		{loadstate.Pressured, "zeta"},
		{loadstate.Protected, "zeta,extras,analytics,risk-check"},
		{loadstate.Recovering, "zeta,extras,analytics,risk-check"},
	} {
		tbl := rt.shedTable
		if got := strings.Join(tbl.Names(tbl.Set(tt.state)), ","); got != tt.want {
			t.Errorf("%v sheds %q, want %q", tt.state, got, tt.want)
		}
	}
	if f, ok := rt.shedTable.Feature("zeta"); !ok {
		t.Error("zeta is not in the plan")
	} else if o, _ := rt.shedTable.Optional(f); o.Fallback != "later" {
		t.Errorf("zeta falls back to %q, want its fallback_text", o.Fallback)
	}
	for si, st := range p.classes[0].stages {
		if shedable := rt.shedable[0][si]; shedable != (st.optional && st.name != "keep") {
			t.Errorf("stage %s: shedable %v", st.name, shedable)
		}
	}
}
