package faultproxy

import (
	"encoding/json"
	"strings"
	"testing"
)

// ParseServiceTime never panics, and what it accepts is a valid service time that its
// spelling reads back as.
func FuzzParseServiceTime(f *testing.F) {
	for _, s := range []string{"p50=20ms,p99=100ms", "20ms", "p99=1s,p50=1ms", "p50=,p99=", "=", "p50=1h,p99=2562047h", ","} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseServiceTime(s)
		if err != nil {
			return
		}
		if err := (Fault{ServiceTime: q}).Validate(); err != nil {
			t.Fatalf("%q parsed to an invalid %v: %v", s, q, err)
		}
		if back, err := ParseServiceTime(FormatServiceTime(q)); err != nil || back != q {
			t.Fatalf("%q: %v reads back as %v, %v", s, q, back, err)
		}
	})
}

// The control API's decoder never panics, and a fault it accepts and that validates
// survives a round trip through its JSON form.
func FuzzDecodeFault(f *testing.F) {
	for _, s := range []string{`{}`, `{"error_rate": "40%", "service_time": {"p50": "20ms", "p99": "100ms"}}`,
		`{"error_rate": 0.4, "concurrency": 3, "beyond": "reject", "hang_rate": "1%"}`, `{"error_status": 1e3}`, `[`, `{} {}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fl, err := decodeFault(strings.NewReader(s))
		if err != nil || fl.Validate() != nil {
			return
		}
		b, err := json.Marshal(fl)
		if err != nil {
			t.Fatal(err)
		}
		back, err := decodeFault(strings.NewReader(string(b)))
		if err != nil || back != fl {
			t.Fatalf("%s: %+v reads back from %s as %+v, %v", s, fl, b, back, err)
		}
	})
}
