package incident

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func loadIncident(t testing.TB, name string) *Document {
	t.Helper()
	doc, err := Load(filepath.Join(exampleDir, name+".incident.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestDerivedPaymentTimeout checks the values seed 000's page shows, computed from the
// example's milestones, figures and series.
func TestDerivedPaymentTimeout(t *testing.T) {
	doc := loadIncident(t, "payment-timeout")
	d := doc.Derived()
	for _, tc := range []struct {
		name string
		span *Span
		want string
	}{
		{"duration", d.Duration, "3h 47m"},
		{"ttd", d.TTD, "33 min"},
		{"ttm", d.TTM, "3h 14m"},
		{"tail", d.Tail, "40 min"},
	} {
		if tc.span == nil || tc.span.String() != tc.want {
			t.Errorf("%s = %v, want %s", tc.name, tc.span, tc.want)
		}
	}
	if d.TTD.Duration()+d.TTM.Duration() != d.Duration.Duration() {
		t.Errorf("ttd + ttm != duration")
	}
	if d.TTR != nil || d.TTA != nil {
		t.Errorf("ttr/tta without resolved/acknowledged milestones: %v %v", d.TTR, d.TTA)
	}
	var gaps []string
	for _, g := range d.Gaps {
		gaps = append(gaps, g.From+"→"+g.To+" "+g.String())
	}
	want := "release→timeline[1] 12 min|timeline[1]→timeline[2] 33 min|timeline[2]→scale_up 39 min|scale_up→timeline[4] 2h 35m"
	if got := strings.Join(gaps, "|"); got != want {
		t.Errorf("gaps\n got %s\nwant %s", got, want)
	}
	if d.Peak == nil || d.Peak.Value != 52 || d.Peak.At.Format("15:04") != "11:36" {
		t.Errorf("peak = %+v", d.Peak)
	}
	if len(d.Markers) != 2 || d.Markers[0].Value != 6 || !d.Markers[0].OK || d.Markers[1].Milestone != "mitigated" {
		t.Errorf("markers = %+v", d.Markers)
	}
	for name, text := range map[string]string{
		"duration":                       "3h 47m",
		"ttd":                            "33 min",
		"at:detected":                    "09:47",
		"date:detected":                  "12 September 2026",
		"peak":                           "52%",
		"peak_at":                        "11:36",
		"series@detected":                "6%",
		"failed_checkouts":               "41,900",
		"pct:recovered:failed_checkouts": "95%",
		"impact_duration":                "3h 47m",
		"data_loss":                      "None",
		"zone":                           "UTC",
	} {
		if v, ok := d.Values[name]; !ok || v.Text != text {
			t.Errorf("Values[%q] = %q (present %v), want %q", name, v.Text, ok, text)
		}
	}
}

func TestEval(t *testing.T) {
	doc := loadIncident(t, "payment-timeout")
	for _, tc := range []struct {
		ref, want, err string
	}{
		{ref: "gap:detected:mitigated", want: "3h 14m"},
		{ref: "gap:scale_up:identified", want: "1h 12m"},
		{ref: "gap:mitigated:tail_end", want: "40 min"},
		{ref: "gap:2026-09-12T09:00:00Z:detected", want: "47 min"},
		{ref: "ratio:peak:series@detected", want: "8.7×"},
		{ref: "ratio:timeout_after:timeout_before", want: "15×"},
		{ref: "pct:recovered:failed_checkouts", want: "95%"},
		{ref: "series@2026-09-12T10:41:00Z", want: "41%"},
		{ref: "series@2026-09-12T10:41:30Z", want: "41.25%"}, // between 41 and 41.5
		{ref: "fig:pool_size", want: "200"},
		{ref: "timeout_after", want: "30 s"},
		{ref: "gap:mitigated:detected", err: "gap:mitigated:detected is negative: mitigated (13:01) is after detected (09:47)"},
		{ref: "gap:detected", err: "expected gap:FROM:TO"},
		{ref: "gap:detected:nowhere", err: `unknown instant "nowhere"`},
		{ref: "ttr", err: "ttr (impact_start → resolved) needs the milestones"},
		{ref: "nothing", err: `unknown name "nothing"`},
		{ref: "pct:recovered", err: "missing the second quantity"},
		{ref: "series@2026-09-12T20:00:00Z", err: "is outside the series (09:00 – 13:30)"},
	} {
		v, err := doc.Eval(tc.ref)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Eval(%q) error = %v, want %q", tc.ref, err, tc.err)
			}
			continue
		}
		if err != nil || v.Text != tc.want {
			t.Errorf("Eval(%q) = %q, %v; want %q", tc.ref, v.Text, err, tc.want)
		}
	}
}

func TestEvalFormula(t *testing.T) {
	doc := loadIncident(t, "northstar")
	for _, tc := range []struct {
		formula, unit, want string
	}{
		{"logical_rate * (1 + edge_retry/100) * (1 + service_retry/100)", "", "14,054.4"},
		{"attempt_amplification", "", "1.5616"},
		{"recovery_queue / (recovery_capacity - admitted_rate * (1 + retry_budget/100))", "s", "1 min"},
		{"(baseline_recovery - protected_recovery) / baseline_recovery * 100", "%", "69%"},
	} {
		v, err := doc.EvalFormula(tc.formula, tc.unit)
		if err != nil || v.Text != tc.want {
			t.Errorf("EvalFormula(%q) = %q, %v; want %q", tc.formula, v.Text, err, tc.want)
		}
	}
	if _, err := doc.EvalFormula("no_such_figure * 2", ""); err == nil {
		t.Error("a formula over an unknown name evaluated")
	}
	if _, err := doc.EvalFormula("logical_rate / 0", ""); err == nil {
		t.Error("a division by zero evaluated")
	}
	// Formulas are evidence packets' arithmetic (internal/formula), not all of expr.
	if _, err := doc.EvalFormula("logical_rate > 2 ? 1 : 0", ""); err == nil || !strings.Contains(err.Error(), "is not arithmetic") {
		t.Errorf("a conditional: %v; want it rejected as not arithmetic", err)
	}
}

func TestExpand(t *testing.T) {
	doc := loadIncident(t, "payment-timeout")
	got, err := doc.Expand("Detected after {{ttd}}, at {{ at:detected }}; {{gap:detected:mitigated}} to mitigate.")
	if err != nil || got != "Detected after 33 min, at 09:47; 3h 14m to mitigate." {
		t.Errorf("Expand = %q, %v", got, err)
	}
	got, err = doc.Expand("{{ttd}} and {{nope}} and {{gap:a:b}}")
	if err == nil || !strings.Contains(err.Error(), `{{nope}}: unknown name "nope"`) || !strings.Contains(err.Error(), "{{gap:a:b}}") {
		t.Errorf("Expand error = %v", err)
	}
	if got != "33 min and {{nope}} and {{gap:a:b}}" {
		t.Errorf("Expand = %q", got)
	}
}

// TestDisplayZone checks that times display in the document's zone while durations are
// computed on UTC instants, across midnight and a daylight-saving change.
func TestDisplayZone(t *testing.T) {
	doc := decodeString(t, `id: x
time_zone: Europe/Dublin
milestones:
  - {name: impact_start, at: 2026-10-24T23:30:00Z}
  - {name: detected, at: 2026-10-25T00:20:00Z}
  - {name: mitigated, at: 2026-10-25T01:30:00Z}
`)
	for ref, want := range map[string]string{
		"at:impact_start":   "00:30", // IST, UTC+1
		"at:mitigated":      "01:30", // GMT after the change at 01:00 UTC
		"duration":          "2h",
		"ttd":               "50 min",
		"date:impact_start": "25 October 2026",
	} {
		v, err := doc.Eval(ref)
		if err != nil || v.Text != want {
			t.Errorf("Eval(%q) = %q, %v; want %q", ref, v.Text, err, want)
		}
	}
	if doc.Location().String() != "Europe/Dublin" {
		t.Errorf("Location = %v", doc.Location())
	}
}

func TestValueAt(t *testing.T) {
	t0 := time.Date(2026, 9, 12, 9, 0, 0, 0, time.UTC)
	s := &Series{Points: []Point{{t0, 0}, {t0.Add(time.Minute), 10}, {t0.Add(3 * time.Minute), 30}}}
	for _, tc := range []struct {
		at   time.Duration
		want float64
		ok   bool
	}{
		{0, 0, true}, {30 * time.Second, 5, true}, {time.Minute, 10, true}, {2 * time.Minute, 20, true},
		{3 * time.Minute, 30, true}, {-time.Second, 0, false}, {4 * time.Minute, 0, false},
	} {
		v, ok := s.ValueAt(t0.Add(tc.at))
		if v != tc.want || ok != tc.ok {
			t.Errorf("ValueAt(+%v) = %v, %v; want %v, %v", tc.at, v, ok, tc.want, tc.ok)
		}
	}
}
