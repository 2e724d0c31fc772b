package main

import (
	"fmt"
	"strings"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/report"
)

// alertDiff is one alert rule of an arm in A and B: when it first fired in each, in
// seconds from the start (nil when it never fired, or the packet has no such rule), and
// the change when it fired in both. A rule that fired in one packet and not the other is
// the comparison's headline; an alert's time has no better direction, so --fail-above
// does not gate on it.
type alertDiff struct {
	Name string `json:"name"`
	// InA and InB say whether each packet's arm has the rule.
	InA bool     `json:"in_a"`
	InB bool     `json:"in_b"`
	A   *float64 `json:"a_first_fired"`
	B   *float64 `json:"b_first_fired"`
	// Change is B − A, in seconds, when the rule fired in both.
	Change *float64 `json:"change"`
	// FiredIn is "both", "a", "b" or "neither".
	FiredIn string `json:"fired_in"`
}

// compareAlerts pairs the alert rules of x (A's arm) and y (B's) by name, A's order first
// and B's others after.
func compareAlerts(x, y *packet.Arm) []alertDiff {
	var out []alertDiff
	index := map[string]int{}
	first := func(a packet.Alert) *float64 {
		if a.FirstFired == nil {
			return nil
		}
		s := packet.Seconds(*a.FirstFired)
		return &s
	}
	for _, a := range x.Alerts {
		if _, ok := index[a.Name]; ok {
			continue // a name twice: the first is the rule
		}
		index[a.Name] = len(out)
		out = append(out, alertDiff{Name: a.Name, InA: true, A: first(a)})
	}
	for _, b := range y.Alerts {
		i, ok := index[b.Name]
		if !ok {
			i = len(out)
			index[b.Name] = i
			out = append(out, alertDiff{Name: b.Name})
		} else if out[i].InB {
			continue
		}
		out[i].InB, out[i].B = true, first(b)
	}
	for i := range out {
		d := &out[i]
		switch {
		case d.A != nil && d.B != nil:
			c := *d.B - *d.A
			d.Change, d.FiredIn = &c, "both"
		case d.A != nil:
			d.FiredIn = "a"
		case d.B != nil:
			d.FiredIn = "b"
		default:
			d.FiredIn = "neither"
		}
	}
	return out
}

// alertSeconds writes a time from the start to the millisecond, trailing zeros dropped.
func alertSeconds(v float64, signed bool) string {
	s := report.Float(v, 3)
	if strings.Contains(s, ".") {
		s = strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
	}
	switch {
	case !signed || s == "0" || s == "-0":
		return strings.TrimPrefix(s, "-")
	case strings.HasPrefix(s, "-"):
		return "−" + s[1:]
	}
	return "+" + s
}

// cells are the alert's row under an arm: label, A, B, the change, no percentage (a time
// from the start has none that means anything), and which packet alone it fired in.
func (d alertDiff) cells() []string {
	val := func(in bool, v *float64) string {
		switch {
		case !in:
			return "–"
		case v == nil:
			return "never"
		}
		return alertSeconds(*v, false)
	}
	row := []string{"  " + d.Name, val(d.InA, d.A), val(d.InB, d.B), "", "", ""}
	if d.Change != nil {
		row[3] = alertSeconds(*d.Change, true)
	}
	switch d.FiredIn {
	case "a":
		row[5] = "A only"
	case "b":
		row[5] = "B only"
	}
	return row
}

// headline is the line naming a rule of arm that fired in one packet only, or "".
func (d alertDiff) headline(arm string) string {
	switch d.FiredIn {
	case "a":
		return fmt.Sprintf("%s: %s fired in A at %s s, never in B", arm, d.Name, alertSeconds(*d.A, false))
	case "b":
		return fmt.Sprintf("%s: %s fired in B at %s s, never in A", arm, d.Name, alertSeconds(*d.B, false))
	}
	return ""
}

// sectionDiffAlerts heads an arm's alert rows.
const sectionDiffAlerts = "Alerts, first fired (seconds from the start)"

// alertHeadlines lists the rules that fired in one packet only, arm by arm.
func (d *packetDiff) alertHeadlines() []string {
	var out []string
	for _, a := range d.Arms {
		for _, al := range a.Alerts {
			if h := al.headline(a.Name); h != "" {
				out = append(out, h)
			}
		}
	}
	return out
}
