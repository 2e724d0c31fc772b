package levers

import (
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/loadstate"
	"github.com/goodput-lab/goodput/control/shed"
)

var t0 = time.Date(2025, 3, 11, 14, 0, 0, 0, time.UTC)

func table(t *testing.T) shed.Table {
	t.Helper()
	recs := shed.Optional{Name: "recommendations", Fallback: "none"}
	tbl, err := shed.Plan{States: map[loadstate.State][]shed.Optional{
		loadstate.Pressured:  {{Name: "analytics", Fallback: "deferred"}},
		loadstate.Protected:  {{Name: "analytics", Fallback: "deferred"}, recs},
		loadstate.Recovering: {{Name: "analytics", Fallback: "deferred"}, recs},
	}}.Compile()
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func TestOf(t *testing.T) {
	tbl := table(t)
	tests := []struct {
		name string
		snap loadstate.Snapshot
		tbl  shed.Table
		want Levers
	}{
		{"zero", loadstate.Snapshot{}, tbl, Levers{}},
		{"protected", loadstate.Snapshot{State: loadstate.Protected, Generation: 3, Policy: loadstate.Policy{
			RetryRatio: 0.02, AdmissionScale: 0.5, Shed: loadstate.Protected, FreezeFailover: true, Prewarm: true, StopBackground: true,
		}}, tbl, Levers{State: loadstate.Protected, Generation: 3, RetryRatio: 0.02, AdmissionScale: 0.5, Shed: tbl.Set(loadstate.Protected),
			FreezeFailover: true, Prewarm: true, StopBackground: true}},
		{"borrowed shed set", loadstate.Snapshot{State: loadstate.Pressured, Generation: 2, Policy: loadstate.Policy{AdmissionScale: 1, Shed: loadstate.Protected}},
			tbl, Levers{State: loadstate.Pressured, Generation: 2, AdmissionScale: 1, Shed: tbl.Set(loadstate.Protected)}},
		{"ramp stage", loadstate.Snapshot{State: loadstate.Recovering, Generation: 5, Stage: 2, Policy: loadstate.Policy{AdmissionScale: 0.75, Shed: loadstate.Recovering}},
			tbl, Levers{State: loadstate.Recovering, Generation: 5, Stage: 2, AdmissionScale: 0.75, Shed: tbl.Set(loadstate.Recovering)}},
		{"zero table sheds nothing", loadstate.Snapshot{State: loadstate.Protected, Generation: 3, Policy: loadstate.Policy{Shed: loadstate.Protected}},
			shed.Table{}, Levers{State: loadstate.Protected, Generation: 3}},
	}
	for _, tt := range tests {
		if got := Of(tt.snap, tt.tbl); got != tt.want {
			t.Errorf("%s: Of = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// TestApplier: the first Sync applies generation 1 (Normal's policy, not the
// controls' own configuration), later Syncs apply each new generation once —
// a transition or an Override made between Syncs — and Levers reads what was
// applied last.
func TestApplier(t *testing.T) {
	m, err := loadstate.New(loadstate.Config{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	adm, err := admission.New(admission.Config{Max: 100})
	if err != nil {
		t.Fatal(err)
	}
	bud, err := budget.New(budget.Config{Ratio: 0.5, TTL: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	tbl := table(t)
	a := &Applier{Machine: m, Shed: tbl, Controls: Controls{Admission: adm, Budget: bud}}
	if got := a.Levers(); got != (Levers{}) {
		t.Errorf("Levers before Sync = %+v, want the zero Levers", got)
	}
	def := loadstate.DefaultPolicies()
	check := func(when string, applied, wantApplied bool, gen uint64, p loadstate.Policy) {
		t.Helper()
		l := a.Levers()
		if applied != wantApplied || l.Generation != gen || l.RetryRatio != p.RetryRatio || l.AdmissionScale != p.AdmissionScale ||
			l.Shed != tbl.Set(p.Shed) || l.FreezeFailover != p.FreezeFailover {
			t.Errorf("%s: applied %v levers %+v; want applied %v, generation %d, policy %+v", when, applied, l, wantApplied, gen, p)
		}
		if bud.Ratio() != p.RetryRatio || adm.Stats().Scale != p.AdmissionScale {
			t.Errorf("%s: budget ratio %v, admission scale %v; want %v, %v", when, bud.Ratio(), adm.Stats().Scale, p.RetryRatio, p.AdmissionScale)
		}
	}
	_, applied, err := a.Sync(t0)
	if err != nil {
		t.Fatal(err)
	}
	check("first sync", applied, true, 1, def.Normal)
	_, applied, _ = a.Sync(t0.Add(time.Second))
	check("same generation", applied, false, 1, def.Normal)
	m.Override(t0.Add(2*time.Second), loadstate.Protected, "test")
	check("override, before the sync", false, false, 1, def.Normal)
	_, applied, _ = a.Sync(t0.Add(3 * time.Second))
	check("override, synced", applied, true, 2, def.Protected)
	m.Override(t0.Add(4*time.Second), loadstate.Recovering, "test")
	m.Override(t0.Add(5*time.Second), loadstate.Normal, "test")
	_, applied, _ = a.Sync(t0.Add(6 * time.Second))
	check("two overrides, one sync", applied, true, 4, def.Normal)
}

// TestApplierConcurrent reads Levers while Sync applies new generations (run
// with -race).
func TestApplierConcurrent(t *testing.T) {
	m, _ := loadstate.New(loadstate.Config{}, t0)
	a := &Applier{Machine: m, Shed: table(t)}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 200 {
			if l := a.Levers(); l.Generation > 201 {
				t.Errorf("generation %d, want at most 201", l.Generation)
			}
		}
	}()
	for i := range 200 {
		now := t0.Add(time.Duration(i) * time.Second)
		m.Override(now, loadstate.State(i%4), "flip")
		if _, _, err := a.Sync(now); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	if got := a.Levers().Generation; got != 201 {
		t.Errorf("generation %d, want 201", got)
	}
}

func TestApplyErrors(t *testing.T) {
	if _, _, err := (&Applier{}).Sync(t0); err == nil || !strings.Contains(err.Error(), "Machine is nil") {
		t.Errorf("Sync without a machine: %v", err)
	}
	bud, _ := budget.New(budget.Config{Ratio: 0.1})
	err := Levers{Generation: 7, RetryRatio: math.NaN()}.Apply(t0, Controls{Budget: bud})
	if err == nil || !strings.Contains(err.Error(), "generation 7") {
		t.Errorf("Apply with a NaN ratio: %v", err)
	}
	if err := (Levers{AdmissionScale: 1}).Apply(t0, Controls{}); err != nil {
		t.Errorf("Apply to no controls: %v", err)
	}
}
