package trials

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/packet"
)

// alertRun is fakeRun with two alert rules and a set on the second arm: "slow" fires in
// the baseline at 10 s + the seed's share and in the protected arm only on even seeds;
// "never" never fires.
func alertRun(ctx context.Context, seed uint64, progress func(done, total time.Duration)) (*packet.Packet, error) {
	p, err := fakeRun(ctx, seed, progress)
	if err != nil {
		return nil, err
	}
	at := func(d time.Duration) *time.Duration { return &d }
	p.Arms[0].Alerts = []packet.Alert{{Name: "slow", FirstFired: at(10*time.Second + time.Duration(seed)*time.Second), Flaps: int(seed % 2)}, {Name: "never"}}
	p.Arms[1].Alerts = []packet.Alert{{Name: "slow"}, {Name: "never"}}
	if seed%2 == 0 {
		p.Arms[1].Alerts[0].FirstFired = at(30 * time.Second)
	}
	p.Arms[1].Set = []string{"topology.services.shop.instances=40"}
	return p, nil
}

// A sweep keeps each arm's alerts and set per trial, spreads when each alert first fired
// over the trials it fired in, and reads back and merges what it wrote.
func TestAlertsAndSets(t *testing.T) {
	cfg := Config{Scenario: "fake", Digest: "sha256:x", FirstSeed: 1, Trials: 4}
	s, err := Run(context.Background(), cfg, alertRun, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !s.HasAlerts() {
		t.Fatal("HasAlerts() = false")
	}
	for _, tc := range []struct {
		arm, alert    int
		fired         int
		min, med, max float64
	}{
		{0, 0, 4, 11, 12.5, 14}, // seeds 1–4: 11, 12, 13, 14 s
		{0, 1, 0, 0, 0, 0},
		{1, 0, 2, 30, 30, 30}, // seeds 2 and 4
		{1, 1, 0, 0, 0, 0},
	} {
		a := s.Spread[tc.arm].Alerts[tc.alert]
		if a.Fired != tc.fired || a.Of != 4 || a.FirstFired.N != tc.fired || a.FirstFired.Missing != 4-tc.fired ||
			a.FirstFired.Min != tc.min || a.FirstFired.Median != tc.med || a.FirstFired.Max != tc.max {
			t.Errorf("arm %d alert %d: %+v", tc.arm, tc.alert, a)
		}
	}
	if got := s.Spread[1].Set; len(got) != 1 || got[0] != "topology.services.shop.instances=40" || s.Spread[0].Set != nil {
		t.Errorf("sets %q and %q", s.Spread[0].Set, got)
	}
	if r := s.Runs[0].Arms[0].Alerts[0]; r.FirstFired == nil || *r.FirstFired != 11 || r.Flaps != 1 {
		t.Errorf("seed 1's baseline slow alert %+v", r)
	}
	// Through a file and a merge of shards, the same summary.
	text := encode(t, s)
	for _, want := range []string{`"alerts": [`, `"first_fired": null`, `"set": [`} {
		if !strings.Contains(text, want) {
			t.Errorf("trials.json lacks %s", want)
		}
	}
	var parts []*Summary
	for i := range 2 {
		c := cfg
		c.Shard = Shard{Index: i, Count: 2}
		p, err := Run(context.Background(), c, alertRun, nil)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
	}
	m, err := Merge(parts...)
	if err != nil {
		t.Fatal(err)
	}
	if encode(t, m) != text {
		t.Error("the merged shards differ from the whole sweep")
	}
}

// A run whose alerts or set are not the others' is refused, as one whose objectives are.
func TestAlertsMustAgree(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(p *packet.Packet)
		want string
	}{
		{"an alert fewer", func(p *packet.Packet) { p.Arms[1].Alerts = p.Arms[1].Alerts[:1] }, "arm protected: 1 alerts, 2 in the run of seed 1"},
		{"another name", func(p *packet.Packet) { p.Arms[0].Alerts[1].Name = "other" }, `alert 2 is "other", not "never"`},
		{"another set", func(p *packet.Packet) { p.Arms[1].Set = nil }, "arm protected: set []"},
		{"negative flaps", func(p *packet.Packet) { p.Arms[0].Alerts[0].Flaps = -1 }, "expected a time of 0 or more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(ctx context.Context, seed uint64, progress func(done, total time.Duration)) (*packet.Packet, error) {
				p, err := alertRun(ctx, seed, progress)
				if err == nil && seed == 2 {
					tc.mod(p)
				}
				return p, err
			}
			_, err := Run(context.Background(), Config{Scenario: "fake", Digest: "sha256:x", FirstSeed: 1, Trials: 3}, run, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// Rules scoped to some arms (an alert's arms:) give the arms different alert lists; a
// sweep keeps each arm's own, as long as every run agrees with the first for that arm.
func TestAlertsScopedToArms(t *testing.T) {
	run := func(ctx context.Context, seed uint64, progress func(done, total time.Duration)) (*packet.Packet, error) {
		p, err := alertRun(ctx, seed, progress)
		if err == nil {
			p.Arms[1].Alerts = p.Arms[1].Alerts[:1] // "never" is evaluated on the baseline only
		}
		return p, err
	}
	s, err := Run(context.Background(), Config{Scenario: "fake", Digest: "sha256:x", FirstSeed: 1, Trials: 3}, run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n0, n1 := len(s.Spread[0].Alerts), len(s.Spread[1].Alerts); n0 != 2 || n1 != 1 {
		t.Errorf("spreads of %d and %d alerts, want 2 and 1", n0, n1)
	}
}
