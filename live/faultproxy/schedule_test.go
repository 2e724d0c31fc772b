package faultproxy

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goodput-lab/goodput/scenario"
)

func loadRisk(t *testing.T) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Load("testdata/risk.scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func q(p50, p99 time.Duration) scenario.Quantiles {
	return scenario.Quantiles{P50: scenario.Duration(p50), P99: scenario.Duration(p99)}
}

const ms = time.Millisecond

// The schedule at fixed instants: the base, inside one window, where windows overlap (the
// one that started last wins each field it sets; of two that start together, the one
// listed later), at the exclusive end of a window, and after a permanent one.
func TestFromScenarioAt(t *testing.T) {
	s, err := FromScenario(loadRisk(t), "payment-risk")
	if err != nil {
		t.Fatal(err)
	}
	base := Fault{ServiceTime: q(38*ms, 95*ms), ErrorRate: 0.01, Concurrency: 40}
	with := func(st scenario.Quantiles, er scenario.Fraction) Fault {
		f := base
		if !st.IsZero() {
			f.ServiceTime = st
		}
		if er >= 0 {
			f.ErrorRate = er
		}
		return f
	}
	maintenance, compaction := q(40*ms, 410*ms), q(60*ms, 900*ms)
	for _, tc := range []struct {
		at   time.Duration
		want Fault
	}{
		{0, base},
		{time.Minute - 1, base},
		{time.Minute, with(maintenance, -1)},                                // maintenance begins
		{2 * time.Minute, with(compaction, 0.50)},                           // compaction and failover begin; failover is listed later
		{2*time.Minute + 29*time.Second, with(compaction, 0.50)},            // both still in force
		{2*time.Minute + 30*time.Second, with(compaction, 0.20)},            // failover ends: compaction's error rate
		{3*time.Minute - 1, with(compaction, 0.20)},                         // compaction's last instant
		{3 * time.Minute, with(maintenance, -1)},                            // compaction ends: maintenance again
		{5*time.Minute - 1, with(maintenance, -1)},                          // maintenance's last instant
		{5 * time.Minute, base},                                             // order-store's fault is not this dependency's
		{6 * time.Minute, with(scenario.Quantiles{}, 0.05)},                 // permanent from 6m
		{10*time.Minute + 30*time.Second, with(scenario.Quantiles{}, 0.05)}, // the permanent fault holds past the clock
	} {
		if got := s.At(tc.at); got != tc.want {
			t.Errorf("At(%v) = %v; want %v", tc.at, got, tc.want)
		}
	}
	wantChanges := []time.Duration{time.Minute, 2 * time.Minute, 2*time.Minute + 30*time.Second, 3 * time.Minute, 5 * time.Minute, 6 * time.Minute}
	if diff := cmp.Diff(wantChanges, s.Changes()); diff != "" {
		t.Errorf("Changes() (-want +got):\n%s", diff)
	}
}

// A later window that starts later wins over an earlier one that is still in force,
// whatever the order the file lists them in.
func TestScheduleLaterStartWins(t *testing.T) {
	a, b := scenario.Fraction(0.3), scenario.Fraction(0.6)
	s := Schedule{Windows: []Window{
		{At: 20 * time.Second, For: 10 * time.Second, ErrorRate: &b},
		{At: 10 * time.Second, For: 30 * time.Second, ErrorRate: &a},
	}}
	for _, tc := range []struct {
		at   time.Duration
		want scenario.Fraction
	}{{5 * time.Second, 0}, {10 * time.Second, a}, {20 * time.Second, b}, {30 * time.Second, a}, {40 * time.Second, 0}} {
		if got := s.At(tc.at).ErrorRate; got != tc.want {
			t.Errorf("At(%v).ErrorRate = %v; want %v", tc.at, got, tc.want)
		}
	}
}

func TestFromScenarioOtherDependency(t *testing.T) {
	s, err := FromScenario(loadRisk(t), "order-store")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.At(0), (Fault{ServiceTime: q(5*ms, 20*ms)}); got != want {
		t.Errorf("At(0) = %v; want %v", got, want)
	}
	if got, want := s.At(3*time.Minute), (Fault{ServiceTime: q(50*ms, 200*ms)}); got != want {
		t.Errorf("At(3m) = %v; want %v", got, want)
	}
}

func TestFromScenarioErrors(t *testing.T) {
	sc := loadRisk(t)
	_, err := FromScenario(sc, "payment")
	if err == nil || !strings.Contains(err.Error(), `no dependency "payment"; expected one of payment-risk, order-store`) {
		t.Errorf("unknown dependency: %v", err)
	}
	sc.Topology.Dependencies = nil
	if _, err := FromScenario(sc, "payment-risk"); err == nil || !strings.Contains(err.Error(), "no dependencies") {
		t.Errorf("no dependencies: %v", err)
	}
}
