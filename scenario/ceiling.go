package scenario

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/invopop/jsonschema"

	"github.com/goodput-lab/goodput/control/deadline"
)

// Ceiling caps the timeout of a call derived from the remaining deadline, as
// control/controlhttp's client caps it (ClientConfig.Ceiling): written as a duration
// (2s), or none for no cap. The zero value is unset, which means the library's default,
// [deadline.DefaultCeiling] (30 s); so does 0s, as in the client. A negative duration is
// an error.
type Ceiling time.Duration

// CeilingNone is the Ceiling written none: derived timeouts are not capped.
const CeilingNone Ceiling = -1

// ceilingNoneText is how CeilingNone is written.
const ceilingNoneText = "none"

// Cap returns the cap c puts on a derived call timeout, as [deadline.CallTimeout] takes
// it: the default for an unset Ceiling, 0 (no cap) for none.
func (c Ceiling) Cap() time.Duration {
	switch {
	case c == 0:
		return deadline.DefaultCeiling
	case c < 0:
		return 0
	}
	return time.Duration(c)
}

// String formats c as it is written: none, or a duration.
func (c Ceiling) String() string {
	if c == CeilingNone {
		return ceilingNoneText
	}
	return Duration(c).String()
}

// ParseCeiling parses a ceiling: none, or a duration of zero or more with a unit.
func ParseCeiling(s string) (Ceiling, error) {
	s = strings.TrimSpace(s)
	if s == ceilingNoneText {
		return CeilingNone, nil
	}
	d, err := ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%w, or none for no ceiling", err)
	}
	if d < 0 {
		return 0, fmt.Errorf("ceiling %s is negative; expected a duration of zero (the default, 30s) or more, or none", d)
	}
	return Ceiling(d), nil
}

// UnmarshalText implements [encoding.TextUnmarshaler] with [ParseCeiling].
func (c *Ceiling) UnmarshalText(b []byte) error {
	v, err := ParseCeiling(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// MarshalText implements [encoding.TextMarshaler]; the text parses back to c.
func (c Ceiling) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// MarshalJSON encodes c as a JSON string such as "2s" or "none".
func (c Ceiling) MarshalJSON() ([]byte, error) { return json.Marshal(c.String()) }

// UnmarshalJSON decodes a JSON string such as "2s" or "none".
func (c *Ceiling) UnmarshalJSON(b []byte) error {
	return unmarshalJSONText(b, c, "a duration string such as \"2s\", or \"none\"")
}

// ceilingPattern matches what ParseCeiling accepts: none, or an unsigned duration.
const ceilingPattern = `^(none|\+?(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`

// JSONSchema describes the spelling of a Ceiling.
func (Ceiling) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type:        "string",
		Pattern:     ceilingPattern,
		Description: "A cap on derived call timeouts: a duration with a unit, e.g. 2s (0s or unset: the library's default, 30s), or none for no cap.",
		Examples:    []any{"2s", "30s", "none"},
	}
}
