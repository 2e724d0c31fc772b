package trials

import (
	"fmt"
	"math"
	"slices"

	"github.com/goodput-lab/goodput/packet"
)

// AlertRun is what one of the scenario's alert rules did on an arm in one trial
// ([packet.Alert]): when it first fired, in seconds from the start (null if it never
// fired: the time to detect), and how often it fired again after clearing.
type AlertRun struct {
	Name       string   `json:"name"`
	FirstFired *float64 `json:"first_fired"`
	Flaps      int      `json:"flaps"`
}

// AlertSpread is one alert rule on one arm across the trials: how many it fired in, of
// how many, and the spread of when it first fired over those it fired in (seconds from
// the start; FirstFired.Missing counts the trials it never fired in).
type AlertSpread struct {
	Name       string `json:"name"`
	Fired      int    `json:"fired"`
	Of         int    `json:"of"`
	FirstFired Stats  `json:"first_fired"`
}

// alertRuns extracts an arm's alerts from its packet, in the scenario's order; nil for a
// scenario without alerts (so that trials.json leaves them out).
func alertRuns(a *packet.Arm) []AlertRun {
	var out []AlertRun
	for _, al := range a.Alerts {
		r := AlertRun{Name: al.Name, Flaps: al.Flaps}
		if al.FirstFired != nil {
			s := packet.Seconds(*al.FirstFired)
			r.FirstFired = &s
		}
		out = append(out, r)
	}
	return out
}

// checkAlerts reports an arm whose alerts or set differ from the first run's same arm
// (one scenario: the same rules evaluated on each arm, which an alert's arms: may limit to
// some of them, and one set per arm), or an alert with a time out of range.
func (s *Summary) checkAlerts(r Trial, j int) error {
	a, first := r.Arms[j], s.Runs[0].Arms[j]
	if !slices.Equal(a.Set, first.Set) {
		return fmt.Errorf("trials: run of seed %d, arm %s: set %q, %q in the run of seed %d", r.Seed, a.Name, a.Set, first.Set, s.Runs[0].Seed)
	}
	if len(a.Alerts) != len(first.Alerts) {
		return fmt.Errorf("trials: run of seed %d, arm %s: %d alerts, %d in the run of seed %d", r.Seed, a.Name, len(a.Alerts), len(first.Alerts), s.Runs[0].Seed)
	}
	for m, al := range a.Alerts {
		if al.Name != first.Alerts[m].Name {
			return fmt.Errorf("trials: run of seed %d, arm %s: alert %d is %q, not %q as in the run of seed %d", r.Seed, a.Name, m+1, al.Name, first.Alerts[m].Name, s.Runs[0].Seed)
		}
		if v := al.FirstFired; v != nil && !(*v >= 0 && *v <= maxValue) || al.Flaps < 0 {
			return fmt.Errorf("trials: run of seed %d, arm %s: alert %q first fired at %v with %d flaps; expected a time of 0 or more and flaps of 0 or more", r.Seed, a.Name, al.Name, ptrValue(v), al.Flaps)
		}
	}
	return nil
}

// ptrValue is *v, or NaN for nil (for a message).
func ptrValue(v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}

// alertSpreads spreads arm j's alerts across the runs.
func (s *Summary) alertSpreads(j int) []AlertSpread {
	var out []AlertSpread
	vals := make([]*float64, len(s.Runs))
	for m, al := range s.Runs[0].Arms[j].Alerts {
		sp := AlertSpread{Name: al.Name, Of: len(s.Runs)}
		for r, run := range s.Runs {
			vals[r] = run.Arms[j].Alerts[m].FirstFired
			if vals[r] != nil {
				sp.Fired++
			}
		}
		sp.FirstFired = stats(al.Name, vals)
		out = append(out, sp)
	}
	return out
}

// HasAlerts reports whether the summary's scenario has alert rules.
func (s *Summary) HasAlerts() bool { return len(s.Spread) > 0 && len(s.Spread[0].Alerts) > 0 }
