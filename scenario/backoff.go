package scenario

import (
	"github.com/goodput-lab/goodput/internal/numfmt"

	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/goodput-lab/goodput/control/budget"
)

// Jitter modes of a [Backoff]: how the delays of callers that failed together are spread.
const (
	JitterNone  = "none"  // the delay itself (the default)
	JitterFull  = "full"  // a uniform draw from zero to the delay
	JitterEqual = "equal" // half the delay, plus a uniform draw from zero to the other half
)

// Backoff is the delay before a retry (Retries.Backoff) or a restart (Health.Backoff),
// written as a duration or as a mapping. A duration is a constant delay: backoff: 100ms
// waits 100ms before every retry. A mapping is exponential, e.g. backoff: {initial: 100ms,
// multiplier: 2, max: 2s, jitter: full}: Initial before the first, each delay after it
// Multiplier times the one before, capped at Max, and spread by Jitter as AWS's
// "Exponential Backoff and Jitter" defines it (none: the delay itself; full: a uniform draw
// below it; equal: half of it plus a uniform draw below the other half). A jitter's draws
// come from the run's seeded streams, keyed by the logical request and its attempt (by the
// instance and its life for a restart), so every arm draws the same for the same retry.
type Backoff struct {
	// Initial is the delay before the first retry or restart, e.g. 100ms.
	Initial Duration `yaml:"initial" json:"initial"`
	// Multiplier is what each delay is multiplied by for the next one, from 1 (a constant
	// delay) to 10. Zero means 2: the delay doubles.
	Multiplier float64 `yaml:"multiplier,omitempty" json:"multiplier,omitempty,omitzero"`
	// Max caps the delay. Zero means no cap for a retry's backoff, and 5m for a
	// restart's.
	Max Duration `yaml:"max,omitempty" json:"max,omitempty,omitzero"`
	// Jitter spreads the delays: none (the default), full or equal.
	Jitter string `yaml:"jitter,omitempty" json:"jitter,omitempty,omitzero"`
	// Reset is how long a process must run without a restart for the delay to start again
	// from Initial (a restart's backoff only; a retry's starts again with each request).
	// Zero means 10m.
	Reset Duration `yaml:"reset,omitempty" json:"reset,omitempty,omitzero"`
}

// constant reports whether b is written as a duration: a constant delay (or none).
func (b Backoff) constant() bool {
	return b == Backoff{} || b == Backoff{Initial: b.Initial, Multiplier: 1}
}

// Exponential returns the delays of b as package budget computes them: the delay after
// attempt n (from 1) is Exponential().Wait(n, u) for a uniform draw u. Its Max is b's, so
// zero is no cap: a restart's default cap is for its caller to apply.
func (b Backoff) Exponential() budget.Exponential {
	e := budget.Exponential{Base: b.Initial.Std(), Multiplier: b.Multiplier, Max: b.Max.Std()}
	if e.Multiplier == 0 {
		e.Multiplier = 2
	}
	switch b.Jitter {
	case JitterFull:
		e.Jitter = budget.FullJitter
	case JitterEqual:
		e.Jitter = budget.EqualJitter
	}
	return e
}

// String formats b as it is written: a duration for a constant delay, else a flow mapping
// of the fields that are set.
func (b Backoff) String() string {
	if b.constant() {
		return b.Initial.String()
	}
	parts := []string{"initial: " + b.Initial.String()}
	if b.Multiplier != 0 {
		parts = append(parts, "multiplier: "+numfmt.Plain(b.Multiplier))
	}
	if b.Max != 0 {
		parts = append(parts, "max: "+b.Max.String())
	}
	if b.Jitter != "" {
		parts = append(parts, "jitter: "+b.Jitter)
	}
	if b.Reset != 0 {
		parts = append(parts, "reset: "+b.Reset.String())
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// Validate reports what is wrong with b wherever it is used: a negative delay, a
// multiplier outside [1, 10] or an unknown jitter. (Whether Initial must be set, Max's
// bound and Reset depend on the use; the scenario's Validate checks those.) Its errors are
// [FieldError]s relative to b.
func (b Backoff) Validate() error {
	var errs Errors
	if b.Initial < 0 {
		errs.Addf("$.initial", "initial is %s; expected a positive delay, e.g. 100ms", b.Initial)
	}
	if m := b.Multiplier; m != 0 && !(m >= 1 && m <= 10) {
		errs.Addf("$.multiplier", "multiplier is %s; expected 1 (a constant delay) to 10, or omit it for 2", numfmt.Plain(m))
	}
	if b.Max < 0 {
		errs.Addf("$.max", "max is %s; expected zero or a delay of at least initial", b.Max)
	}
	if !oneOf(b.Jitter, "", JitterNone, JitterFull, JitterEqual) {
		errs.Addf("$.jitter", "unknown jitter %q; expected none, full or equal", b.Jitter)
	}
	if b.Reset < 0 {
		errs.Addf("$.reset", "reset is %s; expected zero (10m) or more, e.g. 10m", b.Reset)
	}
	return errs.Err()
}

// CheckYAML checks a Backoff the decoder has just read from a mapping (see
// [yamlfile.Checker]).
func (b *Backoff) CheckYAML() error { return b.Validate() }

// UnmarshalText decodes the scalar form: a duration is a constant delay (0s: none).
func (b *Backoff) UnmarshalText(text []byte) error {
	d, err := ParseDuration(string(text))
	if err != nil {
		return err
	}
	if d < 0 {
		return fmt.Errorf("backoff is %s; expected zero or more", d)
	}
	*b = Backoff{}
	if d > 0 {
		*b = Backoff{Initial: d, Multiplier: 1}
	}
	return nil
}

// MarshalJSON encodes a constant delay as a duration string ("100ms") and any other
// backoff as an object, so that either decodes back to b.
func (b Backoff) MarshalJSON() ([]byte, error) {
	if b.constant() {
		return json.Marshal(b.Initial)
	}
	type plain Backoff
	return json.Marshal(plain(b))
}

// UnmarshalJSON decodes either form: a duration string or an object.
func (b *Backoff) UnmarshalJSON(data []byte) error {
	if t := strings.TrimSpace(string(data)); strings.HasPrefix(t, `"`) {
		return unmarshalJSONText(data, b, "a duration string or an object")
	}
	type plain Backoff
	var p plain
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return err
	}
	*b = Backoff(p)
	return nil
}

// JSONSchema describes the two spellings of a Backoff, with its fields' doc comments.
func (Backoff) JSONSchema() *jsonschema.Schema {
	t := reflect.TypeFor[Backoff]()
	described := func(s *jsonschema.Schema, field string) *jsonschema.Schema {
		s.Description = lookupComment(t, field)
		return s
	}
	constant := Duration(0).JSONSchema()
	constant.Description = "A constant delay before every retry or restart. " + constant.Description
	obj := &jsonschema.Schema{
		Type:                 "object",
		Description:          "An exponential backoff, e.g. {initial: 100ms, multiplier: 2, max: 2s, jitter: full}.",
		Properties:           jsonschema.NewProperties(),
		AdditionalProperties: jsonschema.FalseSchema,
		Required:             []string{"initial"},
	}
	obj.Properties.Set("initial", described(Duration(0).JSONSchema(), "Initial"))
	obj.Properties.Set("multiplier", described(&jsonschema.Schema{Type: "number", Minimum: json.Number("1"), Maximum: json.Number("10")}, "Multiplier"))
	obj.Properties.Set("max", described(Duration(0).JSONSchema(), "Max"))
	obj.Properties.Set("jitter", described(&jsonschema.Schema{Type: "string", Enum: []any{JitterNone, JitterFull, JitterEqual}}, "Jitter"))
	obj.Properties.Set("reset", described(Duration(0).JSONSchema(), "Reset"))
	return &jsonschema.Schema{
		Description: lookupComment(t, ""),
		OneOf:       []*jsonschema.Schema{constant, obj},
	}
}

// backoff checks backoff b at path p (Retries.Backoff, or Health.Backoff if restart) for
// what its use asks: a delay to grow from, a cap no shorter than it, and a reset only
// for a restart.
func (v *validator) backoff(p string, b Backoff, restart bool) {
	v.errs.Merge(p, b.Validate())
	if b == (Backoff{}) {
		return
	}
	what, example, zeroMax := "retry", "100ms", "no cap"
	if restart {
		what, example, zeroMax = "restart", "10s", "5m"
	}
	if b.Initial == 0 {
		v.addf(p+".initial", "initial is 0s; expected a positive delay before the first %s, e.g. %s", what, example)
	}
	if b.Max > 0 && b.Max < b.Initial {
		v.addf(p+".max", "max is %s; expected zero (%s) or a delay of at least initial (%s)", b.Max, zeroMax, b.Initial)
	}
	if b.Reset != 0 && !restart {
		v.addf(p+".reset", "reset is %s, but a retry's backoff starts again with each request; expected reset only in a health check's backoff", b.Reset)
	}
}

// span is the longest n attempts of timeout and their backoffs can take, in nanoseconds
// (a float, so that a span beyond the clock's range is measured rather than wrapped; the
// backoffs' total saturates at the clock's range).
func (r Retries) span(n int, timeout Duration) float64 {
	return float64(n)*float64(max(timeout, 0)) + float64(r.Backoff.Exponential().Total(n))
}
