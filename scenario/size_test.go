package scenario

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  string // exact message; "" for success
	}{
		{"16KiB", 16 << 10, ""},
		{"2MiB", 2 << 20, ""},
		{"2GiB", 2 << 30, ""},
		{"1.5GiB", 3 << 29, ""},
		{"3TiB", 3 << 40, ""},
		{"512B", 512, ""},
		{"0B", 0, ""},
		{"0.5KiB", 512, ""},
		{".5KiB", 512, ""},
		{"5.KiB", 5 << 10, ""},
		{"16kB", 16000, ""},
		{"16KB", 16000, ""},
		{"2.5MB", 2_500_000, ""},
		{"1GB", 1e9, ""},
		{"1.000000000001TB", 1e12 + 1, ""},
		{"0.0009765625KiB", 1, ""},
		{"007MiB", 7 << 20, ""},
		{"1.50000000000000000000000000000000000000000000000GiB", 3 << 29, ""},
		{" 16KiB ", 16 << 10, ""},
		{"+16KiB", 16 << 10, ""},
		{"9223372036854775807B", math.MaxInt64, ""},
		{"8388607.9999999999990905052982270717620849609375TiB", math.MaxInt64, ""},
		{"512", 0, `"512" has no unit; expected a size with a unit, e.g. 16KiB or 2GiB`},
		{"0", 0, `"0" has no unit; expected a size with a unit, e.g. 16KiB or 2GiB`},
		{"1.5", 0, `"1.5" has no unit; expected a size with a unit, e.g. 16KiB or 2GiB`},
		{"1e3", 0, `"1e3" has no unit; expected a size with a unit, e.g. 16KiB or 2GiB`},
		{"", 0, `empty size; expected a size with a unit, e.g. 16KiB or 2GiB`},
		{"  ", 0, `empty size; expected a size with a unit, e.g. 16KiB or 2GiB`},
		{"-1KiB", 0, `size "-1KiB" is negative; expected zero or more, e.g. 16KiB`},
		{"16 KiB", 0, `invalid size "16 KiB"; expected the number and its unit without a space, e.g. 16KiB`},
		{"16kib", 0, `unknown unit "kib" in size "16kib"; expected KiB (units are case-sensitive), e.g. 16KiB`},
		{"2gb", 0, `unknown unit "gb" in size "2gb"; expected GB (units are case-sensitive), e.g. 2GB`},
		{"2Ki", 0, `unknown unit "Ki" in size "2Ki"; expected B, KiB, MiB, GiB or TiB (powers of 1024) or kB, MB, GB or TB (powers of 1000), e.g. 16KiB`},
		{"1EiB", 0, `unknown unit "EiB" in size "1EiB"; expected B, KiB, MiB, GiB or TiB (powers of 1024) or kB, MB, GB or TB (powers of 1000), e.g. 16KiB`},
		{"KiB", 0, `invalid size "KiB"; expected a number with a unit, e.g. 16KiB, 1.5GiB or 512B`},
		{"1.2.3KiB", 0, `invalid size "1.2.3KiB"; expected a number with a unit, e.g. 16KiB, 1.5GiB or 512B`},
		{"1e3KiB", 0, `invalid size "1e3KiB"; expected a number with a unit, e.g. 16KiB, 1.5GiB or 512B`},
		{"1_000KiB", 0, `invalid size "1_000KiB"; expected a number with a unit, e.g. 16KiB, 1.5GiB or 512B`},
		{"16KiB/s", 0, `invalid size "16KiB/s"; expected a number with a unit, e.g. 16KiB, 1.5GiB or 512B`},
		{"--1KiB", 0, `invalid size "--1KiB"; expected a number with a unit, e.g. 16KiB, 1.5GiB or 512B`},
		{"inf", 0, `invalid size "inf"; expected a number with a unit, e.g. 16KiB, 1.5GiB or 512B`},
		{"0.3B", 0, `size "0.3B" is 0.3 bytes, not a whole number; expected a whole number of bytes, e.g. 0B or 1B`},
		{"1.3KiB", 0, `size "1.3KiB" is 1331.2 bytes, not a whole number; expected a whole number of bytes, e.g. 1331B or 1332B`},
		{"0." + strings.Repeat("0", 40) + "1TiB", 0, `size "0.00000000000000000000000000000000000000001TiB" is not a whole number of bytes; expected a whole number of bytes, e.g. 1.5KiB (1536B)`},
		{"9223372036854775808B", 0, `size "9223372036854775808B" is out of range; expected less than 8388608TiB (2^63 bytes)`},
		{"8388608TiB", 0, `size "8388608TiB" is out of range; expected less than 8388608TiB (2^63 bytes)`},
		{"99999999999999999999B", 0, `size "99999999999999999999B" is out of range; expected less than 8388608TiB (2^63 bytes)`},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("ParseSize(%q) error = %v; want %s", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got.Bytes() != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tt.in, got.Bytes(), err, tt.want)
		}
	}
}

func TestSizeString(t *testing.T) {
	for s, want := range map[Size]string{
		0:                  "0B",
		1:                  "1B",
		512:                "512B",
		1000:               "1kB",
		1024:               "1KiB",
		1536:               "1536B", // as short as 1.5KiB, and without a fraction
		1500:               "1.5kB", // as short as 1500B: a unit wins
		16 << 10:           "16KiB",
		512 << 10:          "512KiB", // not 0.5MiB
		2 << 20:            "2MiB",
		1536 << 20:         "1.5GiB",
		2 << 30:            "2GiB",
		20000 * 16 << 10:   "312.5MiB", // as short as 327680kB: binary wins
		1e9:                "1GB",
		1e12 + 1:           "1000000000001B",
		3 << 40:            "3TiB",
		1 << 50:            "1024TiB",
		math.MaxInt64:      "9223372036854775807B",
		-(16 << 10):        "-16KiB",
		math.MinInt64:      "-8388608TiB",
		2147483649:         "2147483649B",
		5 * (1 << 30) / 4:  "1.25GiB",
		3 * (1 << 20) / 16: "192KiB",
	} {
		if got := s.String(); got != want {
			t.Errorf("Size(%d).String() = %q; want %q", int64(s), got, want)
		}
	}
}

// TestSizeRoundTrip checks that a size's text parses back to the same size, over random
// sizes of every magnitude and round multiples of every unit.
func TestSizeRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	check := func(s Size) {
		t.Helper()
		var s2 Size
		if b, _ := s.MarshalText(); s2.UnmarshalText(b) != nil || s2 != s {
			t.Fatalf("Size %d → %q → %d", int64(s), b, int64(s2))
		}
		b, _ := json.Marshal(s)
		if err := json.Unmarshal(b, &s2); err != nil || s2 != s {
			t.Fatalf("Size %d → JSON %s → %d, %v", int64(s), b, int64(s2), err)
		}
	}
	for range 5000 {
		check(Size(r.Int64N(math.MaxInt64) >> r.IntN(63)))
		u := sizeUnits[r.IntN(len(sizeUnits))].bytes
		check(Size(r.Int64N(1<<20)) * Size(u) / Size(1<<r.IntN(11)))
	}
	check(math.MaxInt64)
}

func TestSizeJSON(t *testing.T) {
	var v struct {
		S Size `json:"s"`
	}
	if err := json.Unmarshal([]byte(`{"s":"16KiB"}`), &v); err != nil || v.S != 16<<10 {
		t.Fatalf("json.Unmarshal = %v, %v", v.S, err)
	}
	if b, err := json.Marshal(v); err != nil || string(b) != `{"s":"16KiB"}` {
		t.Fatalf("json.Marshal = %s, %v", b, err)
	}
	for _, bad := range []string{`{"s":16384}`, `{"s":"16384"}`, `{"s":"-1KiB"}`} {
		if err := json.Unmarshal([]byte(bad), &v); err == nil {
			t.Errorf("json.Unmarshal(%s) succeeded; want an error", bad)
		}
	}
}

// TestSizeGoccy checks that a Size also decodes with goccy/go-yaml's own decoder.
func TestSizeGoccy(t *testing.T) {
	var v struct {
		S Size `yaml:"s"`
	}
	if err := yaml.Unmarshal([]byte("s: 1.5GiB\n"), &v); err != nil || v.S != 3<<29 {
		t.Fatalf("goccy decoded %v, %v", v.S, err)
	}
	if err := yaml.Unmarshal([]byte("s: 512\n"), &v); err == nil || !strings.Contains(err.Error(), "has no unit") {
		t.Fatalf("goccy decoding a bare number: %v", err)
	}
}

// FuzzParseSize checks that ParseSize never panics, that what it accepts is a size of
// zero or more, and that its text parses back to the same size.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{
		"16KiB", "2MiB", "1.5GiB", "512B", "0B", "16kB", "16KB", "2.5MB", "1TB", ".5KiB", "5.KiB",
		"+1B", "-1B", "-0B", "512", "", " ", "KiB", "1.2.3KiB", "16 KiB", "16kib", "1e3KiB", "0.3B",
		"9223372036854775807B", "9223372036854775808B", "8388608TiB", "8388607.9999999999990905052982270717620849609375TiB",
		"0.0000000000000000000000000000000000000001TiB", "00000000000000000000000000001B", "1." + strings.Repeat("0", 60) + "KiB",
		"∞B", "١٢B", "1\u00a0KiB",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseSize(s)
		if err != nil {
			if msg := err.Error(); !strings.Contains(msg, "; ") || !containsAny(msg, "expected", "e.g.") {
				t.Fatalf("ParseSize(%q) error does not say what is expected: %q", s, msg)
			}
			return
		}
		if v < 0 {
			t.Fatalf("ParseSize(%q) = %d", s, int64(v))
		}
		b, _ := v.MarshalText()
		if v2, err := ParseSize(string(b)); err != nil || v2 != v {
			t.Fatalf("Size %q → %d → %q → %d, %v", s, int64(v), b, int64(v2), err)
		}
		if string(b) != v.String() {
			t.Fatalf("MarshalText %q differs from String %q", b, v.String())
		}
	})
}
