package report

import (
	"bytes"
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/trials"
)

// alertedArms are the synthetic comparison's arms with two alert rules and a set on the
// protected arm: "queue age" fires in the baseline at 3 s plus the seed's share of a
// second and in the protected arm only on odd seeds; "pool exhausted" never fires.
// shift moves every instant by that many seconds (another value of a grid).
func alertedArms(seed uint64, shift int) []packet.Arm {
	at := func(s float64) *time.Duration { d := time.Duration(s * float64(time.Second)); return &d }
	b, p := seededArm("baseline", false, seed), seededArm("protected", true, seed)
	b.Alerts = []packet.Alert{{Name: "queue age", FirstFired: at(3 + float64(seed%4)/4 + float64(shift))}, {Name: "pool exhausted"}}
	p.Alerts = []packet.Alert{{Name: "queue age"}, {Name: "pool exhausted"}}
	if seed%2 == 1 {
		p.Alerts[0].FirstFired = at(5 + float64(shift))
	}
	p.Set = []string{"topology.services.checkout.instances=40"}
	return []packet.Arm{b, p}
}

func alertSweep(t *testing.T, cfg trials.Config, shift int) *trials.Summary {
	t.Helper()
	run := func(_ context.Context, seed uint64, _ func(done, total time.Duration)) (*packet.Packet, error) {
		return &packet.Packet{Scenario: "synthetic", Seed: seed, Arms: alertedArms(seed, shift)}, nil
	}
	s, err := trials.Run(context.Background(), cfg, run, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The trials table shows each alert's first firing per arm (the trials it fired in, the
// median and range) and the arms' sets; without alerts or sets, neither (trials.txt).
func TestTrialsAlertsGolden(t *testing.T) {
	s := alertSweep(t, trials.Config{Scenario: "synthetic", FirstSeed: 1, Trials: 5}, 0)
	var b bytes.Buffer
	if err := Trials(&b, s); err != nil {
		t.Fatal(err)
	}
	golden(t, "trials-alerts.txt", b.Bytes())
	out := b.String()
	for _, want := range []string{
		"arm protected sets: topology.services.checkout.instances=40\n",
		sectionSweepAlerts,
		"  queue age ", "5/5: 3.25", "[3 – 3.75]", "3/5: 5",
		"  pool exhausted ", "0/5",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	var page bytes.Buffer
	if err := TrialsHTML(&page, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "arm protected sets: topology.services.checkout.instances=40") {
		t.Error("the sweep's page does not list the arm's set")
	}
	b.Reset()
	if err := Trials(&b, sweep(t, trials.Config{Scenario: "synthetic", FirstSeed: 1, Trials: 5})); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "Alerts") || strings.Contains(b.String(), " sets: ") {
		t.Errorf("a sweep without alerts or sets shows them:\n%s", b.String())
	}
}

// The grid's table shows each alert's first firing per value and the arms' sets, once
// when every value has the same.
func TestVaryAlertsGolden(t *testing.T) {
	g := VaryGrid{Paths: []string{"x.y"}, Values: [][]string{{"1", "2"}}}
	for i := range 2 {
		g.Sums = append(g.Sums, alertSweep(t, trials.Config{Scenario: "synthetic", Set: []string{"x.y=" + g.Values[0][i]}, FirstSeed: 1, Trials: 3}, 10*i))
	}
	var b bytes.Buffer
	if err := Vary(&b, g); err != nil {
		t.Fatal(err)
	}
	golden(t, "vary-alerts.txt", b.Bytes())
	out := b.String()
	for _, want := range []string{"arm protected sets: topology.services.checkout.instances=40\n", sectionSweepAlerts, "  queue age\n", "3/3: 13.5", "2/3: 15"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	var page bytes.Buffer
	if err := VaryHTML(&page, g); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "arm protected sets: topology.services.checkout.instances=40") {
		t.Error("the grid's page does not list the arm's set")
	}
	// Sets that differ by value are left to each value's summary.
	g.Sums[1].Spread[1].Set = []string{"topology.services.checkout.instances=20"}
	b.Reset()
	if err := Vary(&b, g); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); strings.Contains(out, " sets: ") || !strings.Contains(out, "the arms' sets differ by value") {
		t.Errorf("sets that differ by value:\n%s", out)
	}
}

func TestAlertSpreadCell(t *testing.T) {
	for _, tc := range []struct {
		a    trials.AlertSpread
		want string
	}{
		{trials.AlertSpread{Fired: 0, Of: 4, FirstFired: trials.Stats{Missing: 4}}, "0/4"},
		{trials.AlertSpread{Fired: 1, Of: 4, FirstFired: trials.Stats{N: 1, Missing: 3, Min: 2.5, Median: 2.5, Max: 2.5}}, "1/4: 2.5"},
		{trials.AlertSpread{Fired: 4, Of: 4, FirstFired: trials.Stats{N: 4, Min: 60, Median: 61.25, Max: 90.001}}, "4/4: 61.25\n[60 – 90.001]"},
	} {
		if got := alertSpreadCell(tc.a); got != tc.want {
			t.Errorf("alertSpreadCell(%+v) = %q, want %q", tc.a, got, tc.want)
		}
	}
}

// The grid's table marks a figure identical in every trial at a value "inputs", as the
// trials table does, and says what that means; a figure the seeds move keeps its count.
func TestVarySetByInputs(t *testing.T) {
	g := varyGrid(t, []string{"x.y"}, [][]string{{"1", "2"}})
	var b bytes.Buffer
	if err := (Terminal{Width: 250}).Vary(&b, g); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !matches(`\n  offered\n    1 .* 0 +inputs\n    2 .* 0 +inputs\n`, out) {
		t.Errorf("offered (10,000 in every trial) is not marked set by the inputs:\n%s", out)
	}
	if !matches(`\n  goodput\n    1 .* 3/3\n`, out) {
		t.Errorf("goodput (moved by the seeds) lost its paired count:\n%s", out)
	}
	if !strings.Contains(out, `better in "inputs": identical in every trial`) {
		t.Errorf("no note on what inputs means:\n%s", out)
	}
	var page bytes.Buffer
	if err := VaryHTML(&page, g); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "set by the inputs: identical in every trial") {
		t.Error("the grid's page does not mark a figure set by the inputs")
	}
}

// matches reports whether the regular expression re matches s.
func matches(re, s string) bool { return regexp.MustCompile(re).MatchString(s) }

// A rule scoped to some arms (arms:) has a row of its own, with "–" for the arms it is
// not evaluated on, wherever it stands in an arm's list.
func TestAlertCellsScoped(t *testing.T) {
	s := &trials.Summary{Spread: []trials.ArmSpread{
		{Arm: "as_happened", Alerts: []trials.AlertSpread{{Name: "page", Fired: 1, Of: 1}}},
		{Arm: "candidate", Alerts: []trials.AlertSpread{{Name: "headroom", Of: 1}, {Name: "page", Of: 1}}},
	}}
	if got := alertNames(s); !slices.Equal(got, []string{"page", "headroom"}) {
		t.Fatalf("alertNames = %q", got)
	}
	if got := alertCells(s, "headroom"); !slices.Equal(got, []string{"–", "0/1"}) {
		t.Errorf("headroom cells %q", got)
	}
	if got := alertCells(s, "page"); !slices.Equal(got, []string{"1/1", "0/1"}) {
		t.Errorf("page cells %q", got)
	}
}
