package scenario

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/invopop/jsonschema"
)

// Size is an amount of memory in bytes, written with a unit: 16KiB, 2MiB, 1.5GiB, 512B.
// The units are B, KiB, MiB, GiB and TiB (powers of 1024) and kB (or KB), MB, GB and TB
// (powers of 1000). The number may have a fraction as long as the size is a whole number
// of bytes (1.5KiB is 1536B; 0.3KiB is an error). A bare number, even 0, is an error:
// write 0B. A negative size is an error. The zero value is 0B.
type Size int64

// Bytes returns s as a number of bytes.
func (s Size) Bytes() int64 { return int64(s) }

// sizeUnit is one unit a Size may be written in.
type sizeUnit struct {
	name  string
	bytes uint64
}

// sizeUnits are the units ParseSize accepts.
var sizeUnits = []sizeUnit{
	{"B", 1},
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"kB", 1e3}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
}

// sizeSpellings are the units String tries, by family in order of preference when two
// spellings are as short: binary, then decimal, then bytes.
var sizeSpellings = [][]sizeUnit{
	{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}},
	{{"kB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}},
	{{"B", 1}},
}

const sizeUnitList = "B, KiB, MiB, GiB or TiB (powers of 1024) or kB, MB, GB or TB (powers of 1000)"

// String formats s in its shortest exact spelling: 2GiB, 16KiB, 1.5GiB (not 1536MiB),
// 1kB, 1536B (not 1.5KiB), 1000000000001B. Of two spellings as short, a binary unit
// wins over a decimal one and a decimal one over bytes (312.5MiB, not 327680kB; 1.5kB,
// not 1500B), and within a family the larger unit wins unless its number is below 1
// (1.25GiB, not 1280MiB; 512KiB, not 0.5MiB).
func (s Size) String() string {
	sign, n := "", uint64(s)
	if s < 0 {
		sign, n = "-", uint64(-s) // also right for math.MinInt64
	}
	if n == 0 {
		return "0B"
	}
	best := ""
	for _, family := range sizeSpellings {
		bestInFamily := ""
		for _, u := range family {
			t := exactQuotient(n, u.bytes) + u.name
			if bestInFamily == "" || len(t) < len(bestInFamily) || len(t) == len(bestInFamily) && !strings.HasPrefix(t, "0.") {
				bestInFamily = t
			}
		}
		if best == "" || len(bestInFamily) < len(best) {
			best = bestInFamily
		}
	}
	return sign + best
}

// exactQuotient writes n/d in decimal, exactly; d is a product of 2s and 5s (a size
// unit), so the digits end.
func exactQuotient(n, d uint64) string {
	q, r := n/d, n%d
	var b strings.Builder
	fmt.Fprint(&b, q)
	if r != 0 {
		b.WriteByte('.')
		for r != 0 { // r < d <= 1e12, so r*10 fits
			r *= 10
			b.WriteByte(byte('0' + r/d))
			r %= d
		}
	}
	return b.String()
}

// ParseSize parses a size written with a unit, such as 16KiB, 2MiB or 1.5GiB.
func ParseSize(s string) (Size, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("empty size; expected a size with a unit, e.g. 16KiB or 2GiB")
	}
	if isBareNumber(s) && strings.IndexFunc(s, isDigit) >= 0 {
		return 0, fmt.Errorf("%q has no unit; expected a size with a unit, e.g. 16KiB or 2GiB", s)
	}
	t := s
	neg := false
	switch {
	case strings.HasPrefix(t, "-"):
		neg, t = true, t[1:]
	case strings.HasPrefix(t, "+"):
		t = t[1:]
	}
	end := strings.IndexFunc(t, func(r rune) bool { return !isDigit(r) && r != '.' })
	if end < 0 {
		end = len(t)
	}
	num, unit := t[:end], t[end:]
	whole, frac, _ := strings.Cut(num, ".")
	if whole == "" && frac == "" || strings.Contains(frac, ".") {
		return 0, fmt.Errorf("invalid size %q; expected a number with a unit, e.g. 16KiB, 1.5GiB or 512B", s)
	}
	if u := strings.TrimLeft(unit, " \t"); u != unit && isLetters(u) {
		return 0, fmt.Errorf("invalid size %q; expected the number and its unit without a space, e.g. 16KiB", s)
	}
	if !isLetters(unit) {
		return 0, fmt.Errorf("invalid size %q; expected a number with a unit, e.g. 16KiB, 1.5GiB or 512B", s)
	}
	mult := uint64(0)
	for _, u := range sizeUnits {
		if u.name == unit {
			mult = u.bytes
		}
	}
	if mult == 0 {
		for _, u := range sizeUnits {
			if strings.EqualFold(u.name, unit) {
				return 0, fmt.Errorf("unknown unit %q in size %q; expected %s (units are case-sensitive), e.g. %s", unit, s, u.name, num+u.name)
			}
		}
		return 0, fmt.Errorf("unknown unit %q in size %q; expected %s, e.g. 16KiB", unit, s, sizeUnitList)
	}
	if neg {
		return 0, fmt.Errorf("size %q is negative; expected zero or more, e.g. 16KiB", s)
	}
	// Leading zeros of the whole part and trailing zeros of the fraction change nothing;
	// beyond them, more than 19 digits of whole part overflow and more than 40 digits of
	// fraction cannot make whole bytes with units of at most 2^40 or 10^12, so the
	// arithmetic below works on short numbers.
	whole = strings.TrimLeft(whole, "0")
	frac = strings.TrimRight(frac, "0")
	if len(whole) > 19 {
		return 0, fmt.Errorf("size %q is out of range; expected less than 8388608TiB (2^63 bytes)", s)
	}
	if len(frac) > 40 {
		return 0, fmt.Errorf("size %q is not a whole number of bytes; expected a whole number of bytes, e.g. 1.5KiB (1536B)", s)
	}
	n, _ := new(big.Int).SetString("0"+whole+frac, 10)
	n.Mul(n, new(big.Int).SetUint64(mult))
	v := new(big.Rat).SetFrac(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(frac))), nil))
	if v.Cmp(new(big.Rat).SetInt64(math.MaxInt64)) > 0 {
		return 0, fmt.Errorf("size %q is out of range; expected less than 8388608TiB (2^63 bytes)", s)
	}
	if !v.IsInt() {
		floor := Size(new(big.Int).Quo(v.Num(), v.Denom()).Int64())
		return 0, fmt.Errorf("size %q is %s bytes, not a whole number; expected a whole number of bytes, e.g. %s or %s", s, exactRat(v), floor, floor+1)
	}
	return Size(v.Num().Int64()), nil
}

// exactRat writes a rational with a finite decimal expansion in full.
func exactRat(v *big.Rat) string {
	s := v.FloatString(40)
	return strings.TrimRight(strings.TrimRight(s, "0"), ".")
}

// isLetters reports whether s is a non-empty run of ASCII letters (a unit's name).
func isLetters(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			return false
		}
	}
	return true
}

// UnmarshalText implements [encoding.TextUnmarshaler] with [ParseSize].
func (s *Size) UnmarshalText(b []byte) error {
	v, err := ParseSize(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// MarshalText implements [encoding.TextMarshaler]; the text parses back to s exactly
// (for s >= 0; ParseSize refuses negative sizes).
func (s Size) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// MarshalJSON encodes s as a JSON string such as "16KiB".
func (s Size) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// UnmarshalJSON decodes a JSON string such as "16KiB".
func (s *Size) UnmarshalJSON(b []byte) error {
	return unmarshalJSONText(b, s, "a size string such as \"16KiB\"")
}

// sizePattern matches the spelling ParseSize accepts; whether the number makes whole
// bytes below 2^63 is for the parser to say.
const sizePattern = `^\s*\+?([0-9]+(\.[0-9]*)?|\.[0-9]+)(B|KiB|MiB|GiB|TiB|kB|KB|MB|GB|TB)\s*$`

// JSONSchema describes the spelling of a Size.
func (Size) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type:        "string",
		Pattern:     sizePattern,
		Description: "A size in bytes with a unit (B, KiB, MiB, GiB, TiB in powers of 1024; kB, MB, GB, TB in powers of 1000), e.g. 16KiB, 2MiB, 1.5GiB. A bare number is an error, and so is a size that is not a whole number of bytes.",
		Examples:    []any{"16KiB", "2MiB", "1.5GiB", "512B"},
	}
}
