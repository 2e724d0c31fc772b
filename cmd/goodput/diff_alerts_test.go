package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/packet"
)

// goodput diff shows each arm's alert rules, first fired in A and B with the change, and
// heads the table with the rules that fired in one packet only.
func TestDiffAlerts(t *testing.T) {
	dir, _ := replaySmall(t)
	at := func(s float64) *time.Duration { d := time.Duration(s * float64(time.Second)); return &d }
	withAlerts := func(base, prot []packet.Alert) func(p *packet.Packet) {
		return func(p *packet.Packet) { p.Arms[0].Alerts, p.Arms[1].Alerts = base, prot }
	}
	a := modified(t, dir, withAlerts(
		[]packet.Alert{{Name: "p99 latency", FirstFired: at(21)}, {Name: "success rate", FirstFired: at(24.5), Flaps: 1, Cleared: at(45)}, {Name: "pool"}},
		[]packet.Alert{{Name: "p99 latency", FirstFired: at(22)}, {Name: "success rate"}, {Name: "pool"}},
	))
	b := modified(t, dir, withAlerts(
		[]packet.Alert{{Name: "p99 latency", FirstFired: at(20)}, {Name: "success rate", FirstFired: at(30)}, {Name: "pool"}, {Name: "headroom", FirstFired: at(12)}},
		[]packet.Alert{{Name: "p99 latency"}, {Name: "success rate", FirstFired: at(40.25)}, {Name: "pool"}, {Name: "headroom"}},
	))
	pa, err := packet.ReadJSON(filepath.Join(a, packet.JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	pb, err := packet.ReadJSON(filepath.Join(b, packet.JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	d := comparePackets(pa, pb, "a", "b")
	var out bytes.Buffer
	if err := d.writeTable(&out); err != nil {
		t.Fatal(err)
	}
	golden(t, "diff-alerts.golden", out.Bytes())
	text := out.String()
	for _, want := range []string{
		"alerts that fired in one packet only\n" +
			"  baseline: headroom fired in B at 12 s, never in A\n" +
			"  protected: p99 latency fired in A at 22 s, never in B\n" +
			"  protected: success rate fired in B at 40.25 s, never in A\n",
		sectionDiffAlerts,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("table lacks %q:\n%s", want, text)
		}
	}
	for _, re := range []string{
		`\n  p99 latency +21 +20 +−1\n`,
		`\n  success rate +24\.5 +30 +\+5\.5\n`,
		`\n  pool +never +never\n`,
		`\n  headroom +– +12 +B only\n`,
		`\n  p99 latency +22 +never +A only\n`,
	} {
		if !matches(re, text) {
			t.Errorf("table lacks a line matching %q:\n%s", re, text)
		}
	}
	// The JSON form carries the same, per arm.
	var stdout, stderr bytes.Buffer
	if err := run([]string{"diff", "--json", a, b}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	var j struct {
		Arms []struct {
			Name   string
			Alerts []alertDiff
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &j); err != nil {
		t.Fatal(err)
	}
	got := j.Arms[0].Alerts
	if len(got) != 4 || got[1].Name != "success rate" || got[1].Change == nil || *got[1].Change != 5.5 || got[1].FiredIn != "both" ||
		got[3].InA || !got[3].InB || got[3].FiredIn != "b" || got[2].FiredIn != "neither" {
		t.Errorf("baseline alerts %+v", got)
	}
	// Packets without alerts show none, and a packet compared with itself heads nothing.
	stdout.Reset()
	if err := run([]string{"diff", dir, dir}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stdout.String(), sectionDiffAlerts) || strings.Contains(stdout.String(), "one packet only") {
		t.Errorf("packets without alerts show alerts:\n%s", stdout.String())
	}
	stdout.Reset()
	if err := run([]string{"diff", a, a, "--fail-above", "0"}, &stdout, &stderr); err != nil || strings.Contains(stdout.String(), "one packet only") {
		t.Errorf("a packet with itself: %v\n%s", err, stdout.String())
	}
}

// matches reports whether the regular expression re matches s.
func matches(re, s string) bool { return regexp.MustCompile(re).MatchString(s) }
