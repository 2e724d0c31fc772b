package numfmt

import (
	"math"
	"testing"
)

func TestFormats(t *testing.T) {
	for _, tc := range []struct {
		name, got, want string
	}{
		{"Int", Int(21600000), "21,600,000"},
		{"Int small", Int(999), "999"},
		{"Int negative", Int(-1234567), "-1,234,567"},
		{"Int min", Int(math.MinInt64), "-9,223,372,036,854,775,808"},
		{"Fixed", Fixed(9000.04, 1), "9,000.0"},
		{"Fixed whole", Fixed(1234567.891, 0), "1,234,568"},
		{"Fixed negative", Fixed(-12345.678, 2), "-12,345.68"},
		{"Fixed negative zero", Fixed(-0.04, 1), "0.0"},
		{"Fixed minus zero", Fixed(math.Copysign(0, -1), 0), "0"},
		{"Fixed NaN", Fixed(math.NaN(), 1), "–"},
		{"Fixed Inf", Fixed(math.Inf(-1), 1), "–"},
		{"Short", Short(41900), "41,900"},
		{"Short fraction", Short(14054.4), "14,054.4"},
		{"Short float noise", Short(9000 * 1.28 * 1.22), "14,054.4"},
		{"Short small", Short(0.6), "0.6"},
		{"Short four decimals", Short(1.23456789), "1.2346"},
		{"Short negative", Short(-1234.5), "-1,234.5"},
		{"Short large", Short(1e21), "1,000,000,000,000,000,000,000"},
		{"Percent whole", Percent(94.4), "94%"},
		{"Percent decimal", Percent(0.64), "0.6%"},
		{"Percent large", Percent(12345), "12,345%"},
		{"Plain", Plain(9000), "9000"},
		{"Plain sum", Plain(0.8 + 0.15), "0.95"},
		{"Plain small", Plain(0.00001), "0.00001"},
		{"Plain tiny", Plain(1e-9), "1e-09"},
		{"Plain large", Plain(1e15), "1000000000000000"},
		{"PlainPercent", PlainPercent(0.28), "28%"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}
