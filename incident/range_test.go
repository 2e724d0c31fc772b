package incident

import (
	"strings"
	"testing"
)

// TestDurationOutOfRange checks that a formula, a figure or a reference whose duration lies
// beyond a time.Duration's range (about ±292 years) is an error at its position, not a figure
// rendered from a wrapped or saturated integer ("--9223372036 s").
func TestDurationOutOfRange(t *testing.T) {
	for _, tc := range []struct {
		name, tail string
		want       string
	}{
		{
			name: "formula in hours",
			tail: `summary: The queue drained in 9 hours.
claims:
  - {text: 9 hours, value: "9e12", unit: h}
`,
			want: `test.incident.yaml:7:28: error: claims[0].value: formula "9e12": 9,000,000,000,000 h is out of range; expected a duration within ±292 years (±2562047 h)`,
		},
		{
			name: "negative formula",
			tail: `summary: The queue drained in 9 hours.
claims:
  - {text: 9 hours, value: "-9e12", unit: h}
`,
			want: `test.incident.yaml:7:28: error: claims[0].value: formula "-9e12": -9,000,000,000,000 h is out of range`,
		},
		{
			name: "figure with a duration unit",
			tail: `impact:
  - {id: drain, value: 9e12, unit: h}
summary: The queue drained in 9 hours.
claims:
  - {text: 9 hours, value: drain}
`,
			want: `test.incident.yaml:9:28: error: claims[0].value: figure drain: 9,000,000,000,000 h is out of range`,
		},
		{
			name: "reference given a unit",
			tail: `impact:
  - {id: drain, value: 9e12}
summary: The queue drained in 9 hours.
claims:
  - {text: 9 hours, value: drain, unit: h}
`,
			want: `test.incident.yaml:9:28: error: claims[0].value: drain: 9,000,000,000,000 h is out of range`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := base + "milestones: [{name: impact_start, at: 2026-03-01T10:00:00Z}, {name: mitigated, at: 2026-03-01T11:00:00Z}]\n" + tc.tail
			diags := Check(decodeString(t, src))
			found := false
			for _, d := range diags {
				if s := d.String(); strings.Contains(s, "--") || strings.Contains(s, "9223372036") {
					t.Errorf("a wrapped duration is rendered: %s", s)
				}
				if strings.HasPrefix(d.String(), tc.want) {
					found = true
				}
			}
			if !found {
				t.Errorf("missing diagnostic %q; got:%s", tc.want, dump(diags))
			}
		})
	}
}
