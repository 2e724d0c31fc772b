package deadline

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// t0 is the fixed instant the tests run at.
var t0 = time.Date(2026, 3, 14, 14, 12, 0, 0, time.UTC)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func TestRemaining(t *testing.T) {
	for _, tc := range []struct {
		deadline, now time.Time
		want          time.Duration
	}{
		{t0.Add(ms(1800)), t0, ms(1800)},
		{t0.Add(ms(1800)), t0.Add(ms(1500)), ms(300)},
		{t0.Add(ms(1800)), t0.Add(ms(1800)), 0},
		{t0.Add(ms(1800)), t0.Add(ms(2000)), -ms(200)},
	} {
		if got := Remaining(tc.deadline, tc.now); got != tc.want {
			t.Errorf("Remaining(%v, %v) = %v, want %v", tc.deadline, tc.now, got, tc.want)
		}
	}
	if got := Remaining(time.Time{}, t0); got >= 0 {
		t.Errorf("Remaining(zero, t0) = %v, want negative", got)
	}
}

func TestCallTimeout(t *testing.T) {
	d := t0.Add(ms(1800)) // the Northstar checkout deadline, from arrival at t0
	for _, tc := range []struct {
		name             string
		now              time.Time
		reserve, ceiling time.Duration
		want             time.Duration
		err              error
	}{
		{"fresh request, capped", t0, ms(50), ms(350), ms(350), nil},
		{"fresh request, no cap", t0, ms(50), 0, ms(1750), nil},
		{"negative ceiling is no cap", t0, ms(50), -1, ms(1750), nil},
		{"late in the deadline: less than the cap", t0.Add(ms(1500)), ms(50), ms(350), ms(250), nil},
		{"remainder equals reserve", t0.Add(ms(1750)), ms(50), ms(350), 0, ErrInsufficient},
		{"remainder below reserve", t0.Add(ms(1790)), ms(50), ms(350), 0, ErrInsufficient},
		{"one nanosecond left, no reserve", d.Add(-1), 0, 0, 1, nil},
		{"negative reserve counts as zero", t0.Add(ms(1700)), -ms(50), 0, ms(100), nil},
		{"exactly at the deadline", d, 0, 0, 0, ErrExpired},
		{"past the deadline", d.Add(ms(1)), ms(50), ms(350), 0, ErrExpired},
	} {
		got, err := CallTimeout(d, tc.now, tc.reserve, tc.ceiling)
		if got != tc.want || err != tc.err {
			t.Errorf("%s: CallTimeout(now=+%v, reserve=%v, ceiling=%v) = %v, %v; want %v, %v",
				tc.name, tc.now.Sub(t0), tc.reserve, tc.ceiling, got, err, tc.want, tc.err)
		}
	}
	if _, err := CallTimeout(time.Time{}, t0, 0, 0); err != ErrExpired {
		t.Errorf("CallTimeout(zero deadline) error = %v, want ErrExpired", err)
	}
}

func TestFormatTimeout(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "0n"},
		{0, "0n"},
		{1, "1n"},
		{ms(350), "350m"},
		{2 * time.Second, "2S"},
		{90 * time.Second, "90S"},
		{2 * time.Hour, "2H"},
		{1500 * time.Microsecond, "1500u"},
		{99_999_999, "99999999n"},
		{100_000_001, "100000u"},                    // 100.000001 ms: not exact in 8 digits of n; rounded down to u
		{time.Second + 1, "1000000u"},               // rounded down
		{maxDuration, "2562047H"},                   // rounded down
		{100_000_000 * time.Millisecond, "100000S"}, // exact in S, not in m (9 digits)
	} {
		if got := FormatTimeout(tc.d); got != tc.want {
			t.Errorf("FormatTimeout(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestParseTimeout(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		err  string // substring of the error; "" means no error
	}{
		{"350m", ms(350), ""},
		{"0n", 0, ""},
		{"1H", time.Hour, ""},
		{"2M", 2 * time.Minute, ""},
		{"30S", 30 * time.Second, ""},
		{"12u", 12 * time.Microsecond, ""},
		{"00000001n", 1, ""},
		{" 5S\t", 5 * time.Second, ""},
		{"99999999H", maxDuration, ""}, // saturates
		{"", 0, `deadline: Goodput-Timeout "": empty; want 1 to 8 digits and a unit H M S m u n, such as 350m`},
		{"12x", 0, `deadline: Goodput-Timeout "12x": unit must be one of H M S m u n`},
		{"12", 0, `deadline: Goodput-Timeout "12": missing unit; want one of H M S m u n after the digits`},
		{"m", 0, `deadline: Goodput-Timeout "m": missing value; want 1 to 8 digits before the unit`},
		{"123456789n", 0, `deadline: Goodput-Timeout "123456789n": value has more than 8 digits`},
		{"-5S", 0, `deadline: Goodput-Timeout "-5S": value must be ASCII digits 0-9`},
		{"1.5S", 0, "value must be ASCII digits"},
		{"5 S", 0, "value must be ASCII digits"},
		{"5s", 0, "unit must be one of"},
	} {
		got, err := ParseTimeout(tc.in)
		if tc.err == "" {
			if err != nil || got != tc.want {
				t.Errorf("ParseTimeout(%q) = %v, %v; want %v, nil", tc.in, got, err, tc.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("ParseTimeout(%q) error = %v; want one containing %q", tc.in, err, tc.err)
		}
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseTimeout(%q) error %v does not match ErrMalformed", tc.in, err)
		}
	}
}

func TestParseDeadline(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Time
		err  string
	}{
		{"2026-03-14T14:12:01.8Z", t0.Add(ms(1800)), ""},
		{"2026-03-14T14:12:01.800000000Z", t0.Add(ms(1800)), ""},
		{"2026-03-14T14:12:00Z", t0, ""},
		{"2026-03-14T15:12:00+01:00", t0, ""},
		{" 2026-03-14T14:12:00.000000001Z ", t0.Add(1), ""},
		{"", time.Time{}, `deadline: Goodput-Deadline "": want an RFC 3339 time such as 2026-03-14T14:12:01.8Z`},
		{"1800m", time.Time{}, "want an RFC 3339 time"},
		{"2026-13-14T14:12:00Z", time.Time{}, "month out of range"},
		{"2026-03-14 14:12:00Z", time.Time{}, "want an RFC 3339 time"},
		{"Sat, 14 Mar 2026 14:12:00 GMT", time.Time{}, "want an RFC 3339 time"},
	} {
		got, err := ParseDeadline(tc.in)
		if tc.err == "" {
			if err != nil || !got.Equal(tc.want) || got.Location() != time.UTC {
				t.Errorf("ParseDeadline(%q) = %v, %v; want %v UTC, nil", tc.in, got, err, tc.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseDeadline(%q) error = %v; want ErrMalformed containing %q", tc.in, err, tc.err)
		}
	}
	if got := FormatDeadline(t0.Add(ms(1800)).In(time.FixedZone("CET", 3600))); got != "2026-03-14T14:12:01.8Z" {
		t.Errorf("FormatDeadline = %q, want UTC 2026-03-14T14:12:01.8Z", got)
	}
}

func TestHeaderErrorTruncates(t *testing.T) {
	_, err := ParseTimeout(strings.Repeat("9", 500) + "m")
	if err == nil || len(err.Error()) > 200 {
		t.Fatalf("error for a 501-byte value = %q; want a short message", err)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		cfg Config
		err string
	}{
		{Config{}, ""},
		{Config{SkewMargin: ms(20), Default: 2 * time.Second, Max: 30 * time.Second}, ""},
		{Config{Default: 2 * time.Second}, ""},
		{Config{SkewMargin: -1}, "deadline: SkewMargin -1ns is negative; want 0 or more"},
		{Config{Default: Off, Max: Off}, ""},
		{Config{Default: 2 * time.Minute, Max: Off}, ""},
		{Config{Default: -time.Second}, "deadline: Default -1s is negative; want 0 (DefaultTimeout), Off or more"},
		{Config{Max: -time.Second}, "deadline: Max -1s is negative; want 0 (DefaultMax), Off or more"},
		{Config{Default: 5 * time.Second, Max: 2 * time.Second}, "deadline: Default 5s exceeds Max 2s"},
		{Config{Default: 2 * time.Minute}, "deadline: Default 2m0s exceeds Max 1m0s (DefaultMax, as Max is zero)"},
	} {
		err := tc.cfg.Validate()
		if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%+v.Validate() = %v; want %q", tc.cfg, err, tc.err)
		}
	}
}

func header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

func TestExtract(t *testing.T) {
	cfg := Config{SkewMargin: ms(20), Default: 2 * time.Second, Max: 30 * time.Second}
	for _, tc := range []struct {
		name string
		h    http.Header
		cfg  Config
		want time.Time // zero with ok false
		ok   bool
		err  string
	}{
		{"absolute, skew subtracted", header(Header, "2026-03-14T14:12:01.8Z"), cfg, t0.Add(ms(1780)), true, ""},
		{"absolute preferred over relative", header(Header, "2026-03-14T14:12:01.8Z", TimeoutHeader, "5S"), cfg, t0.Add(ms(1780)), true, ""},
		{"relative fallback, no skew", header(TimeoutHeader, "350m"), cfg, t0.Add(ms(350)), true, ""},
		{"no header: Default", header(), cfg, t0.Add(2 * time.Second), true, ""},
		{"no header, Default Off: none", header(), AsSent, time.Time{}, false, ""},
		{"Max clamps absolute", header(Header, "2026-03-14T15:12:00Z"), cfg, t0.Add(30 * time.Second), true, ""},
		{"Max clamps relative", header(TimeoutHeader, "1H"), cfg, t0.Add(30 * time.Second), true, ""},
		{"past deadline still returned", header(Header, "2026-03-14T14:11:59Z"), cfg, t0.Add(-ms(1020)), true, ""},
		{"zero Config trusts clock", header(Header, "2026-03-14T14:12:01.8Z"), Config{}, t0.Add(ms(1800)), true, ""},
		{"map literal, canonical name", http.Header{"Goodput-Timeout": {"1S"}}, Config{}, t0.Add(time.Second), true, ""},
		{"malformed absolute is an error, no fallback", header(Header, "soon", TimeoutHeader, "1S"), cfg, time.Time{}, false,
			`deadline: Goodput-Deadline "soon": want an RFC 3339 time`},
		{"malformed relative", header(TimeoutHeader, "12x"), cfg, time.Time{}, false,
			`deadline: Goodput-Timeout "12x": unit must be one of H M S m u n`},
		{"repeated absolute", header(Header, "2026-03-14T14:12:01Z", Header, "2026-03-14T14:12:02Z"), cfg, time.Time{}, false,
			`deadline: Goodput-Deadline "2026-03-14T14:12:01Z, 2026-03-14T14:12:02Z": repeated; want exactly one value`},
		{"repeated relative", header(TimeoutHeader, "1S", TimeoutHeader, "2S"), cfg, time.Time{}, false, "repeated"},
	} {
		got, ok, err := Extract(tc.h, t0, tc.cfg)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrMalformed) || ok {
				t.Errorf("%s: Extract = %v, %v, %v; want ErrMalformed containing %q", tc.name, got, ok, err, tc.err)
			}
			continue
		}
		if err != nil || ok != tc.ok || !got.Equal(tc.want) {
			t.Errorf("%s: Extract = %v, %v, %v; want %v, %v, nil", tc.name, got, ok, err, tc.want, tc.ok)
		}
	}
}

// TestExtractDefaults pins the zero Config's generic defaults: a request
// without a deadline header gets DefaultTimeout, and a received deadline is
// cut to DefaultMax however far away it is (the 8-digit grpc-timeout
// maximum, 99999999H, included); Off opts out of either.
func TestExtractDefaults(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    http.Header
		cfg  Config
		want time.Time // zero with ok false
		ok   bool
	}{
		{"no header: DefaultTimeout", header(), Config{}, t0.Add(DefaultTimeout), true},
		{"largest relative cut to DefaultMax", header(TimeoutHeader, "99999999H"), Config{}, t0.Add(DefaultMax), true},
		{"far absolute cut to DefaultMax", header(Header, "9999-12-31T23:59:59Z"), Config{}, t0.Add(DefaultMax), true},
		{"within DefaultMax kept", header(TimeoutHeader, "59S"), Config{}, t0.Add(59 * time.Second), true},
		{"Default given, Max default", header(TimeoutHeader, "2M"), Config{Default: 2 * time.Second}, t0.Add(DefaultMax), true},
		{"Default Off: none", header(), Config{Default: Off}, time.Time{}, false},
		{"Max Off: not cut", header(TimeoutHeader, "1H"), Config{Max: Off}, t0.Add(time.Hour), true},
		{"AsSent: none", header(), AsSent, time.Time{}, false},
		{"AsSent: not cut", header(TimeoutHeader, "99999999H"), AsSent, t0.Add(maxDuration), true},
	} {
		got, ok, err := Extract(tc.h, t0, tc.cfg)
		if err != nil || ok != tc.ok || !got.Equal(tc.want) {
			t.Errorf("%s: Extract = %v, %v, %v; want %v, %v, nil", tc.name, got, ok, err, tc.want, tc.ok)
		}
	}
}

func TestInject(t *testing.T) {
	h := http.Header{}
	Inject(h, t0.Add(ms(1800)), t0.Add(ms(1450)))
	if got := h.Get(Header); got != "2026-03-14T14:12:01.8Z" {
		t.Errorf("%s = %q", Header, got)
	}
	if got := h.Get(TimeoutHeader); got != "350m" {
		t.Errorf("%s = %q", TimeoutHeader, got)
	}
	// Injecting again replaces, never appends.
	Inject(h, t0.Add(ms(1800)), t0.Add(ms(1900)))
	if got := h.Values(TimeoutHeader); len(got) != 1 || got[0] != "0n" {
		t.Errorf("after expiry %s = %q, want [0n]", TimeoutHeader, got)
	}
	Inject(h, time.Time{}, t0)
	if len(h) != 0 {
		t.Errorf("Inject(zero deadline) left %v, want no headers", h)
	}
}

// A deadline injected by one hop and extracted by the next, a moment later,
// is the same instant (less the skew margin); the relative header alone loses
// the transit time.
func TestInjectExtractRoundTrip(t *testing.T) {
	d := t0.Add(ms(1800) + 123456789)
	h := http.Header{}
	Inject(h, d, t0)
	later := t0.Add(ms(7)) // transit
	got, ok, err := Extract(h, later, Config{})
	if err != nil || !ok || !got.Equal(d) {
		t.Fatalf("absolute round trip = %v, %v, %v; want %v", got, ok, err, d)
	}
	delete(h, Header)
	got, ok, err = Extract(h, later, Config{})
	// 1.923456789s does not fit 8 digits of n, so it travels as 1923456u:
	// rounded down, never up.
	if want := d.Add(ms(7) - 789); err != nil || !ok || !got.Equal(want) {
		t.Fatalf("relative round trip = %v, %v, %v; want %v", got, ok, err, want)
	}
}

func TestContext(t *testing.T) {
	if _, ok := FromContext(context.Background()); ok {
		t.Fatal("FromContext(Background) reported a deadline")
	}
	// A deadline long past: the context is done at once, no waiting needed.
	past := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	ctx, cancel := NewContext(context.Background(), past)
	defer cancel()
	if d, ok := FromContext(ctx); !ok || !d.Equal(past) {
		t.Errorf("FromContext = %v, %v; want %v, true", d, ok, past)
	}
	if ctx.Err() != context.DeadlineExceeded {
		t.Errorf("ctx.Err() = %v, want DeadlineExceeded", ctx.Err())
	}
	// A child keeps the earlier deadline of its parent.
	far := time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)
	child, cancel2 := NewContext(ctx, far)
	defer cancel2()
	if d, _ := FromContext(child); !d.Equal(past) {
		t.Errorf("child deadline = %v, want the parent's %v", d, past)
	}
	// A zero deadline adds none but is cancellable.
	c3, cancel3 := NewContext(context.Background(), time.Time{})
	if _, ok := FromContext(c3); ok {
		t.Error("NewContext(zero) set a deadline")
	}
	cancel3()
	if c3.Err() != context.Canceled {
		t.Errorf("after cancel Err() = %v, want Canceled", c3.Err())
	}
}

func BenchmarkCallTimeout(b *testing.B) {
	d := t0.Add(ms(1800))
	now := t0.Add(ms(1500))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CallTimeout(d, now, ms(50), ms(350)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExtract(b *testing.B) {
	h := http.Header{}
	Inject(h, t0.Add(ms(1800)), t0)
	cfg := Config{SkewMargin: ms(20), Max: 30 * time.Second}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Extract(h, t0, cfg); err != nil {
			b.Fatal(err)
		}
	}
}
