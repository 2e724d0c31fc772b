// Package numfmt formats numbers for people to read, the one way the replay report, the
// postmortem pages and the scenario's messages write them: with thousands separators
// ([Int], [Fixed], [Short], [Percent]) for tables and prose, or plain ([Plain]) where a
// number is quoted back in an error message or a schema.
package numfmt

import (
	"math"
	"strconv"
	"strings"
)

// Int formats n with thousands separators: 21600000 → "21,600,000".
func Int(n int64) string {
	s := strconv.FormatInt(n, 10)
	if s, ok := strings.CutPrefix(s, "-"); ok {
		return "-" + group(s)
	}
	return group(s)
}

// Fixed formats x with dec decimals and thousands separators: 9000.04, 1 → "9,000.0". A
// value that rounds to zero has no minus sign; NaN and infinities are "–".
func Fixed(x float64, dec int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "–"
	}
	s := strconv.FormatFloat(x, 'f', dec, 64)
	if s == "-0" || strings.HasPrefix(s, "-0.") && strings.Trim(s[3:], "0") == "" {
		s = s[1:]
	}
	return grouped(s)
}

// Short formats x with thousands separators, at most four decimals and no trailing zeros:
// 41900 → "41,900", 14054.4 → "14,054.4", 0.6 → "0.6". Pass finite numbers.
func Short(x float64) string {
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if _, frac, _ := strings.Cut(s, "."); len(frac) > 4 {
		return Short(math.Round(x*1e4) / 1e4)
	}
	return grouped(s)
}

// Percent formats a percentage (94 for 94%) as [Short] does, in whole percent from 10%
// up ("94%") and to one decimal below ("0.6%").
func Percent(p float64) string {
	if math.Abs(p) >= 10 {
		return Short(math.Round(p)) + "%"
	}
	return Short(math.Round(p*10)/10) + "%"
}

// Plain formats v without separators: at most 12 significant digits and no exponent for
// everyday magnitudes (9000, 0.5, 1.15, and 0.95 for a sum of 0.8 and 0.15).
func Plain(v float64) string {
	s := strconv.FormatFloat(v, 'g', 12, 64)
	if !strings.ContainsAny(s, "eE") {
		return s
	}
	if a := math.Abs(v); a >= 1e-6 && a < 1e21 {
		return strings.TrimRight(strings.TrimRight(strconv.FormatFloat(v, 'f', 12, 64), "0"), ".")
	}
	return s
}

// PlainPercent formats a ratio as a percentage as [Plain] does: 0.28 as "28%".
func PlainPercent(v float64) string { return Plain(v*100) + "%" }

// grouped puts thousands separators into the integer part of a decimal number s (an
// optional minus sign, digits, an optional fraction).
func grouped(s string) string {
	sign := ""
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		sign, s = "-", rest
	}
	intPart, frac, hasFrac := strings.Cut(s, ".")
	if hasFrac {
		return sign + group(intPart) + "." + frac
	}
	return sign + group(intPart)
}

// group puts thousands separators into a string of digits.
func group(digits string) string {
	if len(digits) <= 3 {
		return digits
	}
	var b strings.Builder
	head := len(digits) % 3
	if head > 0 {
		b.WriteString(digits[:head])
	}
	for i := head; i < len(digits); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(digits[i : i+3])
	}
	return b.String()
}
