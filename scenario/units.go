package scenario

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/invopop/jsonschema"

	"github.com/goodput-lab/goodput/internal/floatdur"
	"github.com/goodput-lab/goodput/internal/lognormal"
	"github.com/goodput-lab/goodput/internal/numfmt"
)

// The value types below are how a scenario writes quantities with units. Each one
// decodes from a YAML scalar through UnmarshalText (so the strict decoder in this
// package, goccy/go-yaml and encoding/json all accept the same spelling), encodes
// back to the same spelling with MarshalText/MarshalJSON, and describes its spelling
// to the JSON Schema generator with a JSONSchema method. Every parse error says what
// is wrong and what is expected; the decoder adds file:line:col.

// Duration is a span of time written with a unit: 350ms, 1.8s, 40m, 1h30m.
// The units are those of [time.ParseDuration] (ns, us, µs, ms, s, m, h). A bare
// number, even 0, is an error: write 0s. Negative durations decode; whether one is
// meaningful is for Validate to say. The zero value is 0s.
type Duration time.Duration

// Std returns d as a [time.Duration].
func (d Duration) Std() time.Duration { return time.Duration(d) }

// String formats d like [time.Duration.String] without trailing zero units:
// 40m rather than 40m0s, 1h30m rather than 1h30m0s.
func (d Duration) String() string {
	s := time.Duration(d).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// ParseDuration parses a duration written with a unit, such as 350ms or 1h30m.
func ParseDuration(s string) (Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("empty duration; expected a duration with a unit, e.g. 350ms")
	}
	if isBareNumber(s) {
		return 0, fmt.Errorf("%q has no unit; durations need a unit, e.g. 350ms, 1.8s or 40m", s)
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		if u, ok := unknownDurationUnit(err); ok && u != "" && strings.TrimSpace(u) == u {
			return 0, fmt.Errorf("unknown unit %q in duration %q; expected ns, us, ms, s, m or h, e.g. 350ms", u, s)
		}
		if strings.Contains(err.Error(), "invalid duration") && strings.IndexFunc(s, isDigit) >= 0 && !strings.ContainsAny(s, " \t") && durationShape(s) {
			return 0, fmt.Errorf("duration %q is out of range; expected at most 2562047h", s)
		}
		return 0, fmt.Errorf("invalid duration %q; expected a number with a unit, e.g. 350ms, 1.8s or 1h30m", s)
	}
	return Duration(d), nil
}

// unknownDurationUnit extracts the unit from time.ParseDuration's "unknown unit" error.
func unknownDurationUnit(err error) (string, bool) {
	const prefix = `time: unknown unit "`
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) {
		return "", false
	}
	rest := msg[len(prefix):]
	end := strings.Index(rest, `" in duration`)
	if end < 0 {
		return "", false
	}
	u, err := strconv.Unquote(`"` + rest[:end] + `"`)
	if err != nil {
		return rest[:end], true
	}
	return u, true
}

// durationShape reports whether s is made only of the characters a duration uses,
// so that time.ParseDuration's "invalid duration" on it means overflow.
func durationShape(s string) bool {
	for _, r := range strings.TrimLeft(s, "+-") {
		if !isDigit(r) && r != '.' && !strings.ContainsRune("nsuµmh", r) {
			return false
		}
	}
	return true
}

func isDigit(r rune) bool { return '0' <= r && r <= '9' }

// isBareNumber reports whether s is a number without a unit (1, -2, 3.5, 1e3, .5).
func isBareNumber(s string) bool {
	_, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	return err == nil || errors.Is(err, strconv.ErrRange)
}

// UnmarshalText implements [encoding.TextUnmarshaler] with [ParseDuration].
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := ParseDuration(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// MarshalText implements [encoding.TextMarshaler]; the text parses back to d.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// MarshalJSON encodes d as a JSON string such as "350ms".
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON decodes a JSON string such as "350ms".
func (d *Duration) UnmarshalJSON(b []byte) error {
	return unmarshalJSONText(b, d, "a duration string such as \"350ms\"")
}

// durationPattern matches what ParseDuration accepts (a sign, then number-unit pairs).
const durationPattern = `^[-+]?(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$`

// JSONSchema describes the spelling of a Duration.
func (Duration) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type:        "string",
		Pattern:     durationPattern,
		Description: "A duration with a unit (ns, us, ms, s, m, h), e.g. 350ms, 1.8s, 40m, 1h30m. A bare number is an error.",
		Examples:    []any{"350ms", "1.8s", "40m", "1h30m"},
	}
}

// Rate is a number of events per second, written with a time unit: 9000/s,
// 420/s, 540000/min, 2.5/ms, 36000/h. The count may carry a k (thousand) or M
// (million) suffix: 9k/s. A bare number is an error, and so is a negative rate.
// The zero value is 0/s.
type Rate float64

// PerSecond returns r as events per second.
func (r Rate) PerSecond() float64 { return float64(r) }

// In returns the expected number of events in d at rate r.
func (r Rate) In(d time.Duration) float64 { return float64(r) * d.Seconds() }

// String formats r as events per second for reading, e.g. 9000/s; see
// MarshalText for the exact spelling.
func (r Rate) String() string { return numfmt.Plain(float64(r)) + "/s" }

// rateUnits maps a rate's time unit to its length in seconds.
var rateUnits = map[string]float64{
	"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3,
	"s": 1, "sec": 1, "min": 60, "m": 60, "h": 3600, "hour": 3600,
}

// ParseRate parses a rate written with a time unit, such as 9000/s or 9k/s.
func ParseRate(s string) (Rate, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("empty rate; expected a count per time unit, e.g. 9000/s")
	}
	num, unit, ok := strings.Cut(s, "/")
	if !ok {
		if isBareNumber(s) {
			return 0, fmt.Errorf("%q has no unit; rates need a time unit, e.g. %s/s or %s/min", s, s, s)
		}
		return 0, fmt.Errorf("invalid rate %q; expected a count per time unit, e.g. 9000/s, 540000/min or 9k/s", s)
	}
	per, ok := rateUnits[strings.TrimSpace(unit)]
	if !ok {
		return 0, fmt.Errorf("unknown unit %q in rate %q; expected /s, /min, /h or /ms, e.g. 9000/s", "/"+unit, s)
	}
	num = strings.TrimSpace(num)
	mult := 1.0
	switch {
	case strings.HasSuffix(num, "k"), strings.HasSuffix(num, "K"):
		mult, num = 1e3, num[:len(num)-1]
	case strings.HasSuffix(num, "M"):
		mult, num = 1e6, num[:len(num)-1]
	}
	v, err := parseDecimal(num)
	if err != nil {
		return 0, fmt.Errorf("invalid count %q in rate %q; expected a number such as 9000 or 9k, then a time unit, e.g. 9000/s", num, s)
	}
	if v < 0 {
		return 0, fmt.Errorf("rate %q is negative; expected a count of zero or more, e.g. 9000/s", s)
	}
	v = v * mult / per
	if math.IsInf(v, 0) {
		return 0, fmt.Errorf("rate %q is out of range; expected a finite rate", s)
	}
	return Rate(v), nil
}

// parseDecimal parses a finite decimal number; underscores may group digits.
func parseDecimal(s string) (float64, error) {
	if s == "" || strings.ContainsAny(s, "xXpPoObB") || strings.Contains(strings.ToLower(s), "inf") || strings.Contains(strings.ToLower(s), "nan") {
		return 0, errors.New("not a decimal number")
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, errors.New("not a finite decimal number")
	}
	return v, nil
}

// UnmarshalText implements [encoding.TextUnmarshaler] with [ParseRate].
func (r *Rate) UnmarshalText(b []byte) error {
	v, err := ParseRate(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// MarshalText implements [encoding.TextMarshaler]; the text parses back to r exactly.
func (r Rate) MarshalText() ([]byte, error) { return []byte(exactNumber(float64(r)) + "/s"), nil }

// MarshalJSON encodes r as a JSON string such as "9000/s".
func (r Rate) MarshalJSON() ([]byte, error) { return json.Marshal(exactNumber(float64(r)) + "/s") }

// UnmarshalJSON decodes a JSON string such as "9000/s".
func (r *Rate) UnmarshalJSON(b []byte) error {
	return unmarshalJSONText(b, r, "a rate string such as \"9000/s\"")
}

// percentPattern is a percentage: a plain unsigned decimal, then %.
const percentPattern = `([0-9]+(\.[0-9]*)?|\.[0-9]+)\s*%`

// numberPattern is an unsigned decimal number with optional _ digit grouping.
const numberPattern = `([0-9][0-9_]*(\.[0-9_]*)?|\.[0-9][0-9_]*)([eE][-+]?[0-9]+)?`

// JSONSchema describes the spelling of a Rate.
func (Rate) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type:        "string",
		Pattern:     `^\s*\+?` + numberPattern + `[kKM]?\s*/\s*(ns|us|µs|μs|ms|s|sec|min|m|h|hour)\s*$`,
		Description: "Events per time unit, e.g. 9000/s, 540000/min or 9k/s (k = thousand, M = million). A bare number is an error.",
		Examples:    []any{"9000/s", "420/s", "540000/min", "9k/s"},
	}
}

// Fraction is a share between 0 and 1 inclusive, written as a percentage (28%)
// or a decimal (0.28); both decode to 0.28. Values above 100% or below 0 are
// errors: use [Factor] for multipliers. The zero value is 0%.
type Fraction float64

// String formats f as a percentage for reading, e.g. 28%; see MarshalText
// for the exact spelling.
func (f Fraction) String() string { return numfmt.PlainPercent(float64(f)) }

// ParseFraction parses a share such as 28% or 0.28.
func ParseFraction(s string) (Fraction, error) {
	v, pct, err := parseRatio(s, "a fraction", "28% or 0.28")
	if err != nil {
		return 0, err
	}
	if v > 1 {
		if pct {
			return 0, fmt.Errorf("%s is more than 100%%; expected a fraction from 0%% to 100%%", strings.TrimSpace(s))
		}
		return 0, fmt.Errorf("%s is more than 1; expected a fraction from 0 to 1 (or a percentage such as 28%%)", strings.TrimSpace(s))
	}
	return Fraction(v), nil
}

// parseRatio parses "28%" or "0.28" into 0.28; it rejects negative values.
func parseRatio(s, what, example string) (v float64, pct bool, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false, fmt.Errorf("empty %s; expected e.g. %s", strings.TrimPrefix(strings.TrimPrefix(what, "a "), "an "), example)
	}
	num := s
	if strings.HasSuffix(s, "%") {
		pct = true
		num = strings.TrimSpace(strings.TrimSuffix(s, "%"))
	}
	neg := strings.HasPrefix(num, "-")
	unsigned := strings.TrimPrefix(strings.TrimPrefix(num, "+"), "-")
	if unsigned != "" && strings.ContainsAny(unsigned[:1], "+-") || len(unsigned) == len(num)-2 {
		err = errors.New("two signs")
	} else if v, err = parseDecimal(unsigned); neg {
		v = -v
	}
	if err != nil || pct && !isPlainDecimal(unsigned) {
		return 0, false, fmt.Errorf("invalid %s %q; expected e.g. %s", strings.TrimPrefix(strings.TrimPrefix(what, "a "), "an "), s, example)
	}
	if v < 0 {
		return 0, false, fmt.Errorf("%s is negative; expected %s of zero or more, e.g. %s", s, what, example)
	}
	if pct {
		v /= 100
	}
	return v, pct, nil
}

// isPlainDecimal reports whether s is digits with at most one decimal point
// (how a percentage is written: no exponent, no digit grouping).
func isPlainDecimal(s string) bool {
	digits := strings.Count(s, "0") + strings.Count(s, "1") + strings.Count(s, "2") + strings.Count(s, "3") +
		strings.Count(s, "4") + strings.Count(s, "5") + strings.Count(s, "6") + strings.Count(s, "7") +
		strings.Count(s, "8") + strings.Count(s, "9")
	dots := strings.Count(s, ".")
	return digits > 0 && dots <= 1 && digits+dots == len(s)
}

// UnmarshalText implements [encoding.TextUnmarshaler] with [ParseFraction].
func (f *Fraction) UnmarshalText(b []byte) error {
	v, err := ParseFraction(string(b))
	if err != nil {
		return err
	}
	*f = v
	return nil
}

// MarshalText implements [encoding.TextMarshaler]; the text parses back to f exactly.
func (f Fraction) MarshalText() ([]byte, error) { return []byte(exactPercent(float64(f))), nil }

// MarshalJSON encodes f as a JSON string such as "28%".
func (f Fraction) MarshalJSON() ([]byte, error) { return json.Marshal(exactPercent(float64(f))) }

// UnmarshalJSON decodes a JSON string such as "28%" or a number such as 0.28.
func (f *Fraction) UnmarshalJSON(b []byte) error {
	return unmarshalJSONText(b, f, "a percentage string such as \"28%\" or a number such as 0.28")
}

// JSONSchema describes the spelling of a Fraction.
func (Fraction) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		OneOf: []*jsonschema.Schema{
			{Type: "string", Pattern: `^\s*\+?0*(100(\.0*)?|[0-9]{1,2}(\.[0-9]*)?|\.[0-9]+)\s*%\s*$`},
			{Type: "number", Minimum: "0", Maximum: "1"},
		},
		Description: "A share from 0 to 1, written as a percentage (28%) or a decimal (0.28).",
		Examples:    []any{"28%", 0.28},
	}
}

// Factor is a non-negative multiplier, written as a percentage (115%), a
// decimal (1.15) or with an x (1.15x); all three decode to 1.15. The zero value
// is 0, which multiplies everything to nothing: a field of this type documents
// what its zero value means.
type Factor float64

// String formats x as a percentage for reading, e.g. 115%; see MarshalText
// for the exact spelling.
func (x Factor) String() string { return numfmt.PlainPercent(float64(x)) }

// ParseFactor parses a multiplier such as 115%, 1.15 or 1.15x.
func ParseFactor(s string) (Factor, error) {
	t := strings.TrimSpace(s)
	if strings.HasSuffix(t, "x") || strings.HasSuffix(t, "×") {
		t = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(t, "x"), "×"))
		if strings.HasSuffix(t, "%") {
			return 0, fmt.Errorf("invalid factor %q; expected e.g. 115%%, 1.15 or 1.15x", strings.TrimSpace(s))
		}
	}
	v, _, err := parseRatio(t, "a factor", "115%, 1.15 or 1.15x")
	if err != nil {
		return 0, err
	}
	return Factor(v), nil
}

// UnmarshalText implements [encoding.TextUnmarshaler] with [ParseFactor].
func (x *Factor) UnmarshalText(b []byte) error {
	v, err := ParseFactor(string(b))
	if err != nil {
		return err
	}
	*x = v
	return nil
}

// MarshalText implements [encoding.TextMarshaler]; the text parses back to x exactly.
func (x Factor) MarshalText() ([]byte, error) { return []byte(exactPercent(float64(x))), nil }

// MarshalJSON encodes x as a JSON string such as "115%".
func (x Factor) MarshalJSON() ([]byte, error) { return json.Marshal(exactPercent(float64(x))) }

// UnmarshalJSON decodes a JSON string such as "115%" or a number such as 1.15.
func (x *Factor) UnmarshalJSON(b []byte) error {
	return unmarshalJSONText(b, x, "a percentage string such as \"115%\" or a number such as 1.15")
}

// JSONSchema describes the spelling of a Factor.
func (Factor) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		OneOf: []*jsonschema.Schema{
			{Type: "string", Pattern: `^\s*\+?(` + numberPattern + `\s*(x|×)?|` + percentPattern + `)\s*$`},
			{Type: "number", Minimum: "0"},
		},
		Description: "A non-negative multiplier, written as a percentage (115%), a decimal (1.15) or with an x (1.15x).",
		Examples:    []any{"115%", 1.15, "0.43x"},
	}
}

// Instant is a wall-clock time written in RFC 3339, e.g. 2026-03-10T14:00:00Z.
// The zero value is the zero [time.Time].
type Instant time.Time

// Time returns i as a [time.Time].
func (i Instant) Time() time.Time { return time.Time(i) }

// IsZero reports whether i is the zero time.
func (i Instant) IsZero() bool { return time.Time(i).IsZero() }

// String formats i in RFC 3339 with as many fractional digits as needed.
func (i Instant) String() string { return time.Time(i).Format(time.RFC3339Nano) }

// ParseInstant parses an RFC 3339 time such as 2026-03-10T14:00:00Z.
func ParseInstant(s string) (Instant, error) {
	s = strings.TrimSpace(s)
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return Instant{}, fmt.Errorf("%q is not an RFC 3339 time; expected e.g. 2026-03-10T14:00:00Z (date, T, time, then Z or an offset such as +01:00)", s)
	}
	return Instant(t), nil
}

// UnmarshalText implements [encoding.TextUnmarshaler] with [ParseInstant].
func (i *Instant) UnmarshalText(b []byte) error {
	v, err := ParseInstant(string(b))
	if err != nil {
		return err
	}
	*i = v
	return nil
}

// MarshalText implements [encoding.TextMarshaler]; the text parses back to i.
func (i Instant) MarshalText() ([]byte, error) { return []byte(i.String()), nil }

// MarshalJSON encodes i as a JSON string in RFC 3339.
func (i Instant) MarshalJSON() ([]byte, error) { return json.Marshal(i.String()) }

// UnmarshalJSON decodes a JSON string in RFC 3339.
func (i *Instant) UnmarshalJSON(b []byte) error {
	return unmarshalJSONText(b, i, "an RFC 3339 time string such as \"2026-03-10T14:00:00Z\"")
}

// JSONSchema describes the spelling of an Instant.
func (Instant) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type:        "string",
		Format:      "date-time",
		Pattern:     `^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[-+][0-9]{2}:[0-9]{2})$`,
		Description: "A wall-clock time in RFC 3339, e.g. 2026-03-10T14:00:00Z.",
		Examples:    []any{"2026-03-10T14:00:00Z"},
	}
}

// Quantiles fixes a log-normal distribution of positive durations by its median
// (P50) and 99th percentile (P99), which is how service times are usually
// observed and reported: {p50: 38ms, p99: 95ms}. P99 == P50 is a constant.
// The zero value (both zero) is "not set"; a set value needs 0 < P50 <= P99,
// which the decoder checks when it decodes one and [Quantiles.Validate] checks
// on demand.
type Quantiles struct {
	// P50 is the median.
	P50 Duration `yaml:"p50" json:"p50"`
	// P99 is the 99th percentile; at least P50.
	P99 Duration `yaml:"p99" json:"p99"`
}

// IsZero reports whether q is unset.
func (q Quantiles) IsZero() bool { return q.P50 == 0 && q.P99 == 0 }

// Validate reports whether q describes a distribution: 0 < P50 <= P99. Its
// errors are [FieldError]s relative to q (paths "$.p50" and "$.p99").
func (q Quantiles) Validate() error {
	var errs Errors
	switch {
	case q.P50 <= 0:
		errs.Addf("$.p50", "p50 is %s; expected a positive median, e.g. 38ms", q.P50)
	case q.P99 < q.P50:
		errs.Addf("$.p99", "p99 %s is below p50 %s; expected p99 >= p50", q.P99, q.P50)
	}
	return errs.Err()
}

// Quantile returns the duration below which a fraction p of draws fall, for p
// in (0, 1): the inverse of the distribution function. Pass a uniform draw to
// sample the distribution. It returns 0 for an unset q. The arithmetic is the
// replay's ([lognormal.QuantileNS]), rounded to the nearest nanosecond; p is
// kept inside (0, 1).
func (q Quantiles) Quantile(p float64) time.Duration {
	return clampDuration(lognormal.QuantileNS(q.P50.Std(), q.P99.Std(), clampProb(p)))
}

// Mean returns the distribution's mean, exp(μ + σ²/2), by the replay's
// arithmetic ([lognormal.MeanNS]) rounded to the nearest nanosecond; 0 for an
// unset q.
func (q Quantiles) Mean() time.Duration {
	return clampDuration(lognormal.MeanNS(q.P50.Std(), q.P99.Std()))
}

// clampProb keeps p inside (0, 1) so that inverse distribution functions stay finite.
func clampProb(p float64) float64 {
	const eps = 1e-12
	switch {
	case !(p > eps): // also NaN
		return eps
	case p > 1-eps:
		return 1 - eps
	}
	return p
}

// clampDuration rounds nanoseconds to a Duration of zero or more, saturating instead of
// overflowing (NaN is 0).
func clampDuration(ns float64) time.Duration { return max(0, floatdur.Round(ns)) }

// CheckYAML checks a Quantiles the decoder has just read from a mapping
// (see [yamlfile.Checker]): both p50 and p99 must be written.
func (q *Quantiles) CheckYAML() error {
	var errs Errors
	switch {
	case q.P50 == 0 && q.P99 == 0:
		errs.Addf("$", "empty quantiles; expected {p50: …, p99: …}, e.g. {p50: 38ms, p99: 95ms}")
		return errs.Err()
	case q.P50 == 0:
		errs.Addf("$.p50", "p50 is missing; expected both p50 and p99, e.g. {p50: 38ms, p99: 95ms}")
		return errs.Err()
	case q.P99 == 0:
		errs.Addf("$.p99", "p99 is missing; expected both p50 and p99, e.g. {p50: 38ms, p99: 95ms}")
		return errs.Err()
	}
	return q.Validate()
}

// JSONSchemaExtend documents Quantiles in the schema.
func (Quantiles) JSONSchemaExtend(s *jsonschema.Schema) {
	s.Description = "A log-normal distribution fixed by its median and 99th percentile, e.g. {p50: 38ms, p99: 95ms}."
	s.Required = []string{"p50", "p99"}
}

// DistKind names the family of a [Dist].
type DistKind int

// The distribution families.
const (
	DistNone        DistKind = iota // unset
	DistConstant                    // always Constant
	DistExponential                 // exponential with mean Mean
	DistLogNormal                   // log-normal fixed by P50 and P99
)

// String returns the family's name.
func (k DistKind) String() string {
	switch k {
	case DistConstant:
		return "constant"
	case DistExponential:
		return "exponential"
	case DistLogNormal:
		return "lognormal"
	}
	return "none"
}

// Dist is a distribution of durations, written in one of four forms:
//
//	work: 4ms                          # a constant (shorthand)
//	work: {constant: 4ms}              # a constant
//	work: {mean: 5ms}                  # exponential with that mean (memoryless, as in M/M/c)
//	work: {p50: 38ms, p99: 95ms}       # log-normal fixed by median and 99th percentile
//
// Exactly one form may be set; the decoder reports a mapping that sets none or
// mixes them. The zero value is unset ([DistNone]); [Dist.Quantile] of an unset
// Dist is 0.
type Dist struct {
	// P50 is the median of a log-normal distribution; set with P99.
	P50 Duration `yaml:"p50,omitempty" json:"p50,omitempty"`
	// P99 is the 99th percentile of a log-normal distribution; set with P50.
	P99 Duration `yaml:"p99,omitempty" json:"p99,omitempty"`
	// Mean is the mean of an exponential distribution.
	Mean Duration `yaml:"mean,omitempty" json:"mean,omitempty"`
	// Constant is a fixed duration.
	Constant Duration `yaml:"constant,omitempty" json:"constant,omitempty"`
}

// Kind returns the distribution's family, or DistNone if d is unset or mixes forms.
func (d Dist) Kind() DistKind {
	k, _ := d.kind()
	return k
}

// kind returns the family and the names of the forms that are set.
func (d Dist) kind() (DistKind, []string) {
	var set []string
	k := DistNone
	if d.P50 != 0 || d.P99 != 0 {
		set, k = append(set, "p50/p99"), DistLogNormal
	}
	if d.Mean != 0 {
		set, k = append(set, "mean"), DistExponential
	}
	if d.Constant != 0 {
		set, k = append(set, "constant"), DistConstant
	}
	if len(set) != 1 {
		return DistNone, set
	}
	return k, set
}

// Quantiles returns d's log-normal form, and whether d is log-normal.
func (d Dist) Quantiles() (Quantiles, bool) {
	return Quantiles{P50: d.P50, P99: d.P99}, d.Kind() == DistLogNormal
}

// Quantile returns the duration below which a fraction p of draws fall, for p
// in (0, 1). Pass a uniform draw to sample the distribution.
func (d Dist) Quantile(p float64) time.Duration {
	switch d.Kind() {
	case DistConstant:
		return time.Duration(d.Constant)
	case DistExponential:
		return clampDuration(-float64(d.Mean) * math.Log1p(-clampProb(p)))
	case DistLogNormal:
		return Quantiles{P50: d.P50, P99: d.P99}.Quantile(p)
	}
	return 0
}

// MeanDuration returns the distribution's mean (0 if unset).
func (d Dist) MeanDuration() time.Duration {
	switch d.Kind() {
	case DistConstant:
		return time.Duration(d.Constant)
	case DistExponential:
		return time.Duration(d.Mean)
	case DistLogNormal:
		return Quantiles{P50: d.P50, P99: d.P99}.Mean()
	}
	return 0
}

// Validate reports whether d is set in exactly one form with positive
// durations (and p50 <= p99). Its errors are [FieldError]s relative to d.
func (d Dist) Validate() error {
	var errs Errors
	k, set := d.kind()
	switch {
	case len(set) == 0:
		errs.Addf("$", "no distribution set; expected one of {constant: 4ms}, {mean: 5ms} or {p50: 38ms, p99: 95ms}")
	case len(set) > 1:
		errs.Addf("$", "sets %s; expected exactly one of {constant}, {mean} or {p50, p99}", strings.Join(set, " and "))
	case k == DistLogNormal:
		if d.P50 == 0 || d.P99 == 0 {
			errs.Addf("$", "a log-normal needs both p50 and p99; expected e.g. {p50: 38ms, p99: 95ms}")
			break
		}
		return Quantiles{P50: d.P50, P99: d.P99}.Validate()
	case k == DistExponential && d.Mean < 0:
		errs.Addf("$.mean", "mean is %s; expected a positive duration", d.Mean)
	case k == DistConstant && d.Constant < 0:
		errs.Addf("$.constant", "constant is %s; expected zero or more", d.Constant)
	}
	return errs.Err()
}

// CheckYAML checks a Dist the decoder has just read from a mapping (see
// [yamlfile.Checker]): exactly one form must be set.
func (d *Dist) CheckYAML() error { return d.Validate() }

// UnmarshalText decodes the scalar shorthand: a duration is a constant.
func (d *Dist) UnmarshalText(b []byte) error {
	v, err := ParseDuration(string(b))
	if err != nil {
		return err
	}
	if v < 0 {
		return fmt.Errorf("%s is negative; expected a duration of zero or more", v)
	}
	*d = Dist{Constant: v}
	return nil
}

// UnmarshalJSON decodes either form: a duration string or an object.
func (d *Dist) UnmarshalJSON(b []byte) error {
	if t := strings.TrimSpace(string(b)); strings.HasPrefix(t, `"`) {
		return unmarshalJSONText(b, d, "a duration string or an object")
	}
	type plain Dist
	var p plain
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return err
	}
	*d = Dist(p)
	return nil
}

// JSONSchema describes the four spellings of a Dist.
func (Dist) JSONSchema() *jsonschema.Schema {
	obj := func(desc string, keys ...string) *jsonschema.Schema {
		s := &jsonschema.Schema{
			Type:                 "object",
			Description:          desc,
			Properties:           jsonschema.NewProperties(),
			AdditionalProperties: jsonschema.FalseSchema,
			Required:             keys,
		}
		for _, k := range keys {
			s.Properties.Set(k, Duration(0).JSONSchema())
		}
		return s
	}
	return &jsonschema.Schema{
		Description: "A distribution of durations: a constant (4ms or {constant: 4ms}), an exponential ({mean: 5ms}) or a log-normal ({p50: 38ms, p99: 95ms}).",
		OneOf: []*jsonschema.Schema{
			Duration(0).JSONSchema(),
			obj("A constant duration.", "constant"),
			obj("An exponential distribution with this mean.", "mean"),
			obj("A log-normal distribution fixed by its median and 99th percentile.", "p50", "p99"),
		},
	}
}

// unmarshalJSONText decodes a JSON string (or, for numeric types, a bare JSON
// number) through v's UnmarshalText.
func unmarshalJSONText(b []byte, v interface{ UnmarshalText([]byte) error }, want string) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		switch v.(type) {
		case *Fraction, *Factor:
			var f float64
			if json.Unmarshal(b, &f) == nil {
				return v.UnmarshalText([]byte(strconv.FormatFloat(f, 'g', -1, 64)))
			}
		}
		return fmt.Errorf("got %s; expected %s", b, want)
	}
	return v.UnmarshalText([]byte(s))
}

// exactNumber formats v so that it parses back to v, without an exponent for
// everyday magnitudes.
func exactNumber(v float64) string {
	if s := strconv.FormatFloat(v, 'f', -1, 64); len(s) <= 21 {
		return s
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// exactPercent formats a ratio as the shortest percentage that parses back to
// v exactly (28% for 0.28); if no percentage does, it falls back to the exact
// decimal, which parses back too.
func exactPercent(v float64) string {
	for _, prec := range []int{12, 15, 16, 17} {
		s := strconv.FormatFloat(v*100, 'g', prec, 64)
		if strings.ContainsAny(s, "eE") {
			s = strconv.FormatFloat(v*100, 'f', -1, 64)
		}
		if p, err := strconv.ParseFloat(s, 64); err == nil && p/100 == v && isPlainDecimal(strings.TrimPrefix(s, "-")) {
			return s + "%"
		}
	}
	return exactNumber(v)
}
