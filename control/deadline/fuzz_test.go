package deadline

import (
	"errors"
	"net/http"
	"testing"
	"time"
)

func FuzzParseTimeout(f *testing.F) {
	for _, s := range []string{"350m", "0n", "1H", "99999999H", "00000001n", "12x", "", "m", "123456789n", " 5S ", "-1S", "1.5S"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseTimeout(s)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("ParseTimeout(%q) error %v is not ErrMalformed", s, err)
			}
			return
		}
		if d < 0 {
			t.Fatalf("ParseTimeout(%q) = %v, negative", s, d)
		}
		if d == maxDuration {
			return // saturated: the value was too large to round-trip
		}
		// Every parsed value is a count of at most 8 digits of some unit, so
		// it formats exactly and parses back to itself.
		back, err := ParseTimeout(FormatTimeout(d))
		if err != nil || back != d {
			t.Fatalf("ParseTimeout(FormatTimeout(%v)) = %v, %v; want %v (from %q)", d, back, err, d, s)
		}
	})
}

func FuzzFormatTimeout(f *testing.F) {
	for _, d := range []int64{0, 1, 350e6, 1e8 + 1, 1<<63 - 1, -5, 100_000_000_999_999} {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, n int64) {
		d := time.Duration(n)
		s := FormatTimeout(d)
		back, err := ParseTimeout(s)
		if err != nil {
			t.Fatalf("FormatTimeout(%v) = %q, which does not parse: %v", d, s, err)
		}
		if d <= 0 {
			if back != 0 {
				t.Fatalf("FormatTimeout(%v) = %q, want 0", d, s)
			}
			return
		}
		// Rounded down, never up, and by less than one part in 100,000.
		if back > d || d-back > d/100_000 {
			t.Fatalf("FormatTimeout(%v) = %q = %v; want at most %v and within 1e-5", d, s, back, d)
		}
		if d < 100_000_000 && back != d {
			t.Fatalf("FormatTimeout(%v) = %q = %v; want exact below 100ms", d, s, back)
		}
	})
}

func FuzzParseDeadline(f *testing.F) {
	for _, s := range []string{"2026-03-14T14:12:01.8Z", "2026-03-14T15:12:00+01:00", "0000-01-01T00:00:00Z",
		"9999-12-31T23:59:59-23:59", "2026-13-14T14:12:00Z", "", "soon", " 2026-03-14T14:12:00.000000001Z "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDeadline(s)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("ParseDeadline(%q) error %v is not ErrMalformed", s, err)
			}
			return
		}
		back, err := ParseDeadline(FormatDeadline(d))
		if err != nil || !back.Equal(d) {
			t.Fatalf("ParseDeadline(FormatDeadline(%v)) = %v, %v; want %v (from %q)", d, back, err, d, s)
		}
	})
}

func FuzzExtract(f *testing.F) {
	f.Add("2026-03-14T14:12:01.8Z", "", int64(20e6), int64(2e9), int64(30e9))
	f.Add("", "350m", int64(0), int64(0), int64(0))
	f.Add("", "", int64(0), int64(2e9), int64(0))
	f.Add("soon", "1S", int64(0), int64(0), int64(0))
	f.Add("2999-01-01T00:00:00Z", "99999999H", int64(1), int64(1), int64(1))
	f.Add("", "99999999H", int64(0), int64(-1), int64(-1))
	f.Add("", "", int64(0), int64(-1), int64(0))
	f.Fuzz(func(t *testing.T, abs, rel string, skew, def, max int64) {
		cfg := Config{SkewMargin: time.Duration(skew), Default: time.Duration(def), Max: time.Duration(max)}
		if cfg.Validate() != nil {
			return
		}
		h := http.Header{}
		if abs != "" {
			h[Header] = []string{abs}
		}
		if rel != "" {
			h[TimeoutHeader] = []string{rel}
		}
		d, ok, err := Extract(h, t0, cfg)
		if err != nil {
			if ok || !errors.Is(err, ErrMalformed) {
				t.Fatalf("Extract(%q, %q) = %v, %v; want ok false and ErrMalformed", abs, rel, ok, err)
			}
			return
		}
		limit := cfg.Max
		switch {
		case limit == 0:
			limit = DefaultMax
		case limit < 0:
			limit = maxDuration
		}
		if !ok {
			if abs != "" || rel != "" || cfg.Default != Off {
				t.Fatalf("Extract(%q, %q, %+v) reported no deadline", abs, rel, cfg)
			}
			return
		}
		if d.Sub(t0) > limit {
			t.Fatalf("Extract(%q, %q, %+v) = %v, beyond Max", abs, rel, cfg, d)
		}
		if abs != "" {
			want, _ := ParseDeadline(abs)
			want = want.Add(-cfg.SkewMargin)
			if want.Sub(t0) > limit {
				want = t0.Add(limit)
			}
			if !d.Equal(want) {
				t.Fatalf("Extract(%q, %+v) = %v; want %v", abs, cfg, d, want)
			}
		}
	})
}
