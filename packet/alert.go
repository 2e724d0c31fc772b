package packet

import "time"

// Alert is what one of the scenario's alert rules did on an arm, in the order of
// [Config.Alerts]: when it first fired (the time to detect), how often it fired again
// after clearing, and when it last cleared. Times are from the start of the run, at the
// tick boundary that evaluated the rule (the last tick's is the end of the run).
type Alert struct {
	// Name is the rule's name.
	Name string `json:"name"`
	// FirstFired is when the rule first fired; nil if it never fired.
	FirstFired *time.Duration `json:"first_fired"`
	// Flaps counts the fires after a clear (every fire but the first).
	Flaps int `json:"flaps"`
	// Cleared is when the rule last cleared; nil if it never cleared or was still firing
	// at the end of the run (FirstFired tells the two apart).
	Cleared *time.Duration `json:"cleared"`
}

// alertAcc is what a Recorder has seen of one alert rule.
type alertAcc struct {
	fires          int
	first, cleared time.Duration
	firing         bool
}

// AlertFired records that alert rule i (an index into [Config.Alerts]) fired at at, and
// annotates the timeline with text (an "alert" event). An index outside the list is only
// annotated.
func (r *Recorder) AlertFired(at time.Duration, i int, text string) {
	r.Annotate(at, "alert", text)
	if i < 0 || i >= len(r.alerts) {
		return
	}
	acc := &r.alerts[i]
	if acc.fires == 0 {
		acc.first = at
	}
	acc.fires++
	acc.firing = true
}

// AlertCleared records that alert rule i, firing, cleared at at, and annotates the timeline
// with text. An index outside the list, or a rule not firing, is only annotated.
func (r *Recorder) AlertCleared(at time.Duration, i int, text string) {
	r.Annotate(at, "alert", text)
	if i < 0 || i >= len(r.alerts) || !r.alerts[i].firing {
		return
	}
	r.alerts[i].firing = false
	r.alerts[i].cleared = at
}

// alertResults are the arm's alerts for [Recorder.Finish]: nil without rules.
func (r *Recorder) alertResults() []Alert {
	if len(r.alerts) == 0 {
		return nil
	}
	out := make([]Alert, len(r.alerts))
	for i, acc := range r.alerts {
		out[i] = Alert{Name: r.cfg.Alerts[i]}
		if acc.fires == 0 {
			continue
		}
		first := roundS(acc.first)
		out[i].FirstFired = &first
		out[i].Flaps = acc.fires - 1
		if !acc.firing { // it fired, so it cleared
			cleared := roundS(acc.cleared)
			out[i].Cleared = &cleared
		}
	}
	return out
}

type alertJSON struct {
	Name       string   `json:"name"`
	FirstFired *float64 `json:"first_fired"`
	Flaps      int      `json:"flaps"`
	Cleared    *float64 `json:"cleared"`
}

func (a Alert) wire() alertJSON {
	return alertJSON{Name: a.Name, FirstFired: secondsPtr(a.FirstFired), Flaps: a.Flaps, Cleared: secondsPtr(a.Cleared)}
}

func (w alertJSON) alert(c *durations) Alert {
	return Alert{Name: w.Name, FirstFired: c.sp("alerts.first_fired", w.FirstFired), Flaps: w.Flaps,
		Cleared: c.sp("alerts.cleared", w.Cleared)}
}

// MarshalJSON writes the alert with its times in seconds.
func (a Alert) MarshalJSON() ([]byte, error) { return marshal(a.wire()) }

// UnmarshalJSON reads an alert of packet.json.
func (a *Alert) UnmarshalJSON(b []byte) error {
	return unmarshal(b, func(w *alertJSON, c *durations) { *a = w.alert(c) })
}
