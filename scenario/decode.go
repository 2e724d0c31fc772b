package scenario

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/invopop/jsonschema"

	"github.com/goodput-lab/goodput/yamlfile"
)

// The errors of decoding and validation are those of package yamlfile, which
// does the strict decoding:
//   - FieldError is a problem with the value at a YAML path ("$.classes[1].share").
//     Validate methods in this package (and the Scenario's Validate) return
//     FieldErrors, usually gathered in an Errors, so that [Decode] can report
//     each one at the file:line:col where the offending value is written.
//   - Errors is a list of FieldErrors, built with Addf and Merge.
//   - Error is one problem in a file, at a position; ErrorList is every
//     problem in a file, what [Decode], [Load] and [Unmarshal] return.
type (
	FieldError = yamlfile.FieldError
	Errors     = yamlfile.Errors
	Error      = yamlfile.Error
	ErrorList  = yamlfile.ErrorList
)

// Load reads the scenario file at path and decodes it with [Decode].
func Load(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return Decode(path, data)
}

// Decode decodes a scenario from data, strictly, then validates it. filename
// is only used in error messages.
//
// Unknown keys, duplicate keys, values of the wrong type, quantities without
// units, an empty file and YAML syntax errors are errors; so is anything the
// Scenario's Validate method reports. The error is an [ErrorList] with one
// problem per line, each "file:line:col: path: what is wrong; what is
// expected". Decoding reports every problem it finds (up to 50); Validate runs
// only when decoding found none.
func Decode(filename string, data []byte) (*Scenario, error) {
	s := new(Scenario)
	if _, err := decoder("scenario").Decode(filename, data, s); err != nil {
		return nil, err
	}
	return s, nil
}

// Unmarshal decodes one YAML document into v, a non-nil pointer, with the
// rules of [Decode]: strict keys, unit-bearing value types, errors as an
// [ErrorList] with positions. It first sets *v to its zero value, so that
// nothing of an earlier value survives. If v has a method Validate() error, Unmarshal
// calls it after a clean decode and places the [FieldError]s it returns.
//
// Fields are matched by their yaml tag (`yaml:"name"`; `yaml:"-"` skips a
// field; `yaml:",inline"` or an untagged embedded struct merges its fields).
// A type decodes from a scalar through [encoding.TextUnmarshaler]; a struct
// type with a CheckYAML() error method ([yamlfile.Checker]) is checked after
// it is decoded from a mapping. A time.Duration is written as a [Duration]
// and a time.Time as an [Instant].
func Unmarshal(filename string, data []byte, v any) error {
	_, err := decoder("document").Decode(filename, data, v)
	return err
}

// decoder is the strict decoder with this package's spelling of time.
func decoder(what string) yamlfile.Decoder {
	return yamlfile.Decoder{Document: what, Scalar: decodeTime, Expect: expectType}
}

var (
	durationType = reflect.TypeFor[time.Duration]()
	timeType     = reflect.TypeFor[time.Time]()
)

// decodeTime decodes a time.Duration as a [Duration] (a unit is required) and
// a time.Time as an [Instant], so that the standard types read as these do.
func decodeTime(s yamlfile.Scalar) (any, error) {
	switch s.Type {
	case durationType:
		d, err := ParseDuration(s.Text)
		return time.Duration(d), err
	case timeType:
		i, err := ParseInstant(s.Text)
		return time.Time(i), err
	}
	return nil, nil
}

// expectType describes, for "expected …" in messages, what this package's
// value types are written as; "" leaves a type to yamlfile.
func expectType(t reflect.Type) string {
	switch t {
	case reflect.TypeFor[Duration]():
		return "a duration such as 350ms"
	case reflect.TypeFor[Rate]():
		return "a rate such as 9000/s"
	case reflect.TypeFor[Fraction]():
		return "a fraction such as 28% or 0.28"
	case reflect.TypeFor[Factor]():
		return "a factor such as 115% or 1.15"
	case reflect.TypeFor[Instant]():
		return "an RFC 3339 time such as 2026-03-10T14:00:00Z"
	case reflect.TypeFor[Size]():
		return "a size such as 16KiB"
	case reflect.TypeFor[Dist]():
		return "a duration (4ms) or a distribution ({p50: 38ms, p99: 95ms}, {mean: 5ms} or {constant: 4ms})"
	case reflect.TypeFor[Quantiles]():
		return "quantiles such as {p50: 38ms, p99: 95ms}"
	}
	// A type decoded from text: let its schema description say what text.
	pt := reflect.PointerTo(t)
	if pt.Implements(reflect.TypeFor[interface{ UnmarshalText([]byte) error }]()) && !pt.Implements(reflect.TypeFor[yamlfile.Checker]()) {
		if s, ok := reflect.Zero(t).Interface().(interface{ JSONSchema() *jsonschema.Schema }); ok {
			return firstSentence(s.JSONSchema().Description)
		}
	}
	return ""
}

// firstSentence returns a description's first sentence, lower-cased and
// without its full stop: "A rate, e.g. 9/s. More." → "a rate, e.g. 9/s".
func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	for from := 0; ; {
		i := strings.Index(s[from:], ". ")
		if i < 0 {
			break
		}
		i += from
		if !strings.HasSuffix(s[:i], "e.g") && !strings.HasSuffix(s[:i], "i.e") {
			s = s[:i]
			break
		}
		from = i + 2
	}
	s = strings.TrimSuffix(s, ".")
	if s == "" {
		return ""
	}
	return strings.ToLower(s[:1]) + s[1:]
}
