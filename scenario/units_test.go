package scenario

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/goodput-lab/goodput/internal/floatdur"
	"github.com/goodput-lab/goodput/internal/lognormal"
)

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  string // exact message; "" for success
	}{
		{"350ms", 350 * time.Millisecond, ""},
		{"1.8s", 1800 * time.Millisecond, ""},
		{"40m", 40 * time.Minute, ""},
		{"1h30m", 90 * time.Minute, ""},
		{"0s", 0, ""},
		{" 5us ", 5 * time.Microsecond, ""},
		{"-2s", -2 * time.Second, ""}, // decodes; Validate judges it
		{"350", 0, `"350" has no unit; durations need a unit, e.g. 350ms, 1.8s or 40m`},
		{"0", 0, `"0" has no unit; durations need a unit, e.g. 350ms, 1.8s or 40m`},
		{"1.5", 0, `"1.5" has no unit; durations need a unit, e.g. 350ms, 1.8s or 40m`},
		{"350mss", 0, `unknown unit "mss" in duration "350mss"; expected ns, us, ms, s, m or h, e.g. 350ms`},
		{"3 days", 0, `invalid duration "3 days"; expected a number with a unit, e.g. 350ms, 1.8s or 1h30m`},
		{"ms", 0, `invalid duration "ms"; expected a number with a unit, e.g. 350ms, 1.8s or 1h30m`},
		{"", 0, `empty duration; expected a duration with a unit, e.g. 350ms`},
		{"9999999999h", 0, `duration "9999999999h" is out of range; expected at most 2562047h`},
		{"1d", 0, `unknown unit "d" in duration "1d"; expected ns, us, ms, s, m or h, e.g. 350ms`},
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("ParseDuration(%q) error = %v; want %s", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got.Std() != tt.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestDurationString(t *testing.T) {
	for d, want := range map[time.Duration]string{
		40 * time.Minute:        "40m",
		90 * time.Minute:        "1h30m",
		2 * time.Hour:           "2h",
		350 * time.Millisecond:  "350ms",
		1800 * time.Millisecond: "1.8s",
		0:                       "0s",
		61 * time.Second:        "1m1s",
	} {
		if got := Duration(d).String(); got != want {
			t.Errorf("Duration(%v).String() = %q; want %q", time.Duration(d), got, want)
		}
	}
}

func TestParseRate(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		err  string
	}{
		{"9000/s", 9000, ""},
		{"420/s", 420, ""},
		{"540000/min", 9000, ""},
		{"9k/s", 9000, ""},
		{"1.5k/s", 1500, ""},
		{"2M/h", 2e6 / 3600, ""},
		{"2.5/ms", 2500, ""},
		{"0/s", 0, ""},
		{"9_000/s", 9000, ""},
		{" 7800 / s ", 7800, ""},
		{"9000", 0, `"9000" has no unit; rates need a time unit, e.g. 9000/s or 9000/min`},
		{"9000/d", 0, `unknown unit "/d" in rate "9000/d"; expected /s, /min, /h or /ms, e.g. 9000/s`},
		{"-5/s", 0, `rate "-5/s" is negative; expected a count of zero or more, e.g. 9000/s`},
		{"fast/s", 0, `invalid count "fast" in rate "fast/s"; expected a number such as 9000 or 9k, then a time unit, e.g. 9000/s`},
		{"0x10/s", 0, `invalid count "0x10" in rate "0x10/s"; expected a number such as 9000 or 9k, then a time unit, e.g. 9000/s`},
		{"inf/s", 0, `invalid count "inf" in rate "inf/s"; expected a number such as 9000 or 9k, then a time unit, e.g. 9000/s`},
		{"lots", 0, `invalid rate "lots"; expected a count per time unit, e.g. 9000/s, 540000/min or 9k/s`},
		{"", 0, `empty rate; expected a count per time unit, e.g. 9000/s`},
		{"1e308M/ns", 0, `rate "1e308M/ns" is out of range; expected a finite rate`},
	}
	for _, tt := range tests {
		got, err := ParseRate(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("ParseRate(%q) error = %v; want %s", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || math.Abs(got.PerSecond()-tt.want) > 1e-9*tt.want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v/s", tt.in, got, err, tt.want)
		}
	}
	if got := Rate(9000).In(2 * time.Minute); got != 1_080_000 {
		t.Errorf("Rate(9000).In(2m) = %v; want 1080000", got)
	}
}

func TestParseFraction(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		err  string
	}{
		{"28%", 0.28, ""},
		{"0.28", 0.28, ""},
		{"100%", 1, ""},
		{"1", 1, ""},
		{"0", 0, ""},
		{"0%", 0, ""},
		{"2.5%", 0.025, ""},
		{"120%", 0, "120% is more than 100%; expected a fraction from 0% to 100%"},
		{"1.2", 0, "1.2 is more than 1; expected a fraction from 0 to 1 (or a percentage such as 28%)"},
		{"-5%", 0, "-5% is negative; expected a fraction of zero or more, e.g. 28% or 0.28"},
		{"half", 0, `invalid fraction "half"; expected e.g. 28% or 0.28`},
		{"", 0, `empty fraction; expected e.g. 28% or 0.28`},
		{"%", 0, `invalid fraction "%"; expected e.g. 28% or 0.28`},
		{"nan%", 0, `invalid fraction "nan%"; expected e.g. 28% or 0.28`},
	}
	for _, tt := range tests {
		got, err := ParseFraction(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("ParseFraction(%q) error = %v; want %s", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || float64(got) != tt.want {
			t.Errorf("ParseFraction(%q) = %v, %v; want %v", tt.in, float64(got), err, tt.want)
		}
	}
}

func TestParseFactor(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		err  string
	}{
		{"115%", 1.15, ""},
		{"1.15", 1.15, ""},
		{"1.15x", 1.15, ""},
		{"0.43", 0.43, ""},
		{"300%", 3, ""},
		{"2×", 2, ""},
		{"-1", 0, "-1 is negative; expected a factor of zero or more, e.g. 115%, 1.15 or 1.15x"},
		{"115%x", 0, `invalid factor "115%x"; expected e.g. 115%, 1.15 or 1.15x`},
		{"twice", 0, `invalid factor "twice"; expected e.g. 115%, 1.15 or 1.15x`},
	}
	for _, tt := range tests {
		got, err := ParseFactor(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("ParseFactor(%q) error = %v; want %s", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || float64(got) != tt.want {
			t.Errorf("ParseFactor(%q) = %v, %v; want %v", tt.in, float64(got), err, tt.want)
		}
	}
}

func TestParseInstant(t *testing.T) {
	got, err := ParseInstant("2026-03-10T14:00:00Z")
	if err != nil || !got.Time().Equal(time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC)) {
		t.Fatalf("ParseInstant = %v, %v", got, err)
	}
	got, err = ParseInstant("2026-03-10T15:00:00.5+01:00")
	if err != nil || !got.Time().Equal(time.Date(2026, 3, 10, 14, 0, 0, 5e8, time.UTC)) {
		t.Fatalf("ParseInstant with offset = %v, %v", got, err)
	}
	for _, bad := range []string{"2026-03-10 14:00", "2026-03-10", "14:00", "yesterday", "2026-13-10T14:00:00Z"} {
		_, err := ParseInstant(bad)
		want := `"` + bad + `" is not an RFC 3339 time; expected e.g. 2026-03-10T14:00:00Z (date, T, time, then Z or an offset such as +01:00)`
		if err == nil || err.Error() != want {
			t.Errorf("ParseInstant(%q) error = %v; want %s", bad, err, want)
		}
	}
}

// TestTextRoundTrip checks that every value type's text parses back to the
// same value, over random values.
func TestTextRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		d := Duration(r.Int64N(int64(1000*time.Hour)) - int64(time.Hour))
		var d2 Duration
		if b, _ := d.MarshalText(); d2.UnmarshalText(b) != nil || d2 != d {
			t.Fatalf("Duration %d → %q → %d", int64(d), b, int64(d2))
		}
		rt := Rate(r.Float64() * math.Pow(10, float64(r.IntN(12)-3)))
		var rt2 Rate
		if b, _ := rt.MarshalText(); rt2.UnmarshalText(b) != nil || rt2 != rt {
			t.Fatalf("Rate %v → %q → %v", float64(rt), b, float64(rt2))
		}
		f := Fraction(r.Float64())
		if r.IntN(4) == 0 {
			f = Fraction(float64(r.IntN(101)) / 100)
		}
		var f2 Fraction
		if b, _ := f.MarshalText(); f2.UnmarshalText(b) != nil || f2 != f {
			t.Fatalf("Fraction %v → %q → %v", float64(f), b, float64(f2))
		}
		x := Factor(r.Float64() * 5)
		var x2 Factor
		if b, _ := x.MarshalText(); x2.UnmarshalText(b) != nil || x2 != x {
			t.Fatalf("Factor %v → %q → %v", float64(x), b, float64(x2))
		}
		in := Instant(time.Unix(r.Int64N(4e9), r.Int64N(1e9)).UTC())
		var in2 Instant
		if b, _ := in.MarshalText(); in2.UnmarshalText(b) != nil || !in2.Time().Equal(in.Time()) {
			t.Fatalf("Instant %v → %q → %v", in, b, in2)
		}
	}
	// Everyday values keep their everyday spelling.
	for v, want := range map[any]string{
		Fraction(0.28): "28%", Fraction(0.85): "85%", Factor(1.15): "115%", Factor(0.43): "43%",
		Rate(9000): "9000/s", Rate(2.5): "2.5/s", Duration(1800 * time.Millisecond): "1.8s",
	} {
		b, _ := v.(interface{ MarshalText() ([]byte, error) }).MarshalText()
		if string(b) != want {
			t.Errorf("%T(%v) marshals to %q; want %q", v, v, b, want)
		}
	}
}

func TestJSON(t *testing.T) {
	type doc struct {
		D  Duration `json:"d"`
		R  Rate     `json:"r"`
		F  Fraction `json:"f"`
		X  Factor   `json:"x"`
		I  Instant  `json:"i"`
		W  Dist     `json:"w"`
		W2 Dist     `json:"w2"`
	}
	in := doc{
		D: Duration(350 * time.Millisecond), R: 9000, F: 0.28, X: 1.15,
		I: Instant(time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC)),
		W: Dist{Constant: Duration(4 * time.Millisecond)}, W2: Dist{P50: Duration(38 * time.Millisecond), P99: Duration(95 * time.Millisecond)},
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"d":"350ms","r":"9000/s","f":"28%","x":"115%","i":"2026-03-10T14:00:00Z","w":{"constant":"4ms"},"w2":{"p50":"38ms","p99":"95ms"}}`
	if string(b) != want {
		t.Fatalf("json.Marshal = %s\nwant %s", b, want)
	}
	var out doc
	if err := json.Unmarshal(b, &out); err != nil || out != in {
		t.Fatalf("json.Unmarshal = %+v, %v; want %+v", out, err, in)
	}
	if err := json.Unmarshal([]byte(`{"f":0.5,"x":2,"w":"4ms"}`), &out); err != nil || out.F != 0.5 || out.X != 2 || out.W.Constant != Duration(4*time.Millisecond) {
		t.Fatalf("json.Unmarshal numbers = %+v, %v", out, err)
	}
	for _, bad := range []string{`{"d":350}`, `{"r":"9000"}`, `{"f":1.5}`, `{"w":{"bogus":"1s"}}`} {
		if err := json.Unmarshal([]byte(bad), &out); err == nil {
			t.Errorf("json.Unmarshal(%s) succeeded; want an error", bad)
		}
	}
}

// TestGoccyCompatible checks that the value types also decode with
// goccy/go-yaml's own decoder, through UnmarshalText.
func TestGoccyCompatible(t *testing.T) {
	var v struct {
		D Duration `yaml:"d"`
		R Rate     `yaml:"r"`
		F Fraction `yaml:"f"`
		X Factor   `yaml:"x"`
		I Instant  `yaml:"i"`
	}
	src := "d: 350ms\nr: 9k/s\nf: 28%\nx: 0.43\ni: 2026-03-10T14:00:00Z\n"
	if err := yaml.Unmarshal([]byte(src), &v); err != nil {
		t.Fatal(err)
	}
	if v.D.Std() != 350*time.Millisecond || v.R != 9000 || v.F != 0.28 || v.X != 0.43 || v.I.Time().Hour() != 14 {
		t.Fatalf("goccy decoded %+v", v)
	}
	if err := yaml.Unmarshal([]byte("d: 350\n"), &v); err == nil || !strings.Contains(err.Error(), "durations need a unit") {
		t.Fatalf("goccy decoding a bare number: %v", err)
	}
}

func TestQuantiles(t *testing.T) {
	q := Quantiles{P50: Duration(38 * time.Millisecond), P99: Duration(95 * time.Millisecond)}
	if err := q.Validate(); err != nil {
		t.Fatal(err)
	}
	near := func(got, want time.Duration) bool { return math.Abs(float64(got-want)) <= 1e-6*float64(want)+1 }
	if got := q.Quantile(0.5); !near(got, 38*time.Millisecond) {
		t.Errorf("Quantile(0.5) = %v; want 38ms", got)
	}
	if got := q.Quantile(0.99); !near(got, 95*time.Millisecond) {
		t.Errorf("Quantile(0.99) = %v; want 95ms", got)
	}
	// The mean of a log-normal is exp(μ+σ²/2); check it against the average of
	// a fine grid of quantiles.
	var sum float64
	const n = 200000
	for i := range n {
		sum += float64(q.Quantile((float64(i) + 0.5) / n))
	}
	if got, want := time.Duration(sum/n), q.Mean(); math.Abs(float64(got-want)) > 0.002*float64(want) {
		t.Errorf("mean of quantiles %v; Mean() %v", got, want)
	}
	// Quantile is monotone and finite at the extremes.
	prev := time.Duration(0)
	for _, p := range []float64{-1, 0, 1e-300, 0.1, 0.5, 0.9, 0.999999, 1, 2, math.NaN()} {
		got := q.Quantile(p)
		if got <= 0 || (!math.IsNaN(p) && got < prev) {
			t.Errorf("Quantile(%v) = %v after %v", p, got, prev)
		}
		if !math.IsNaN(p) {
			prev = got
		}
	}
	for _, tt := range []struct {
		q    Quantiles
		want string
	}{
		{Quantiles{P50: 0, P99: Duration(time.Second)}, "p50: p50 is 0s; expected a positive median, e.g. 38ms"},
		{Quantiles{P50: Duration(time.Second), P99: Duration(time.Millisecond)}, "p99: p99 1ms is below p50 1s; expected p99 >= p50"},
	} {
		if err := tt.q.Validate(); err == nil || err.Error() != tt.want {
			t.Errorf("Validate(%+v) = %v; want %s", tt.q, err, tt.want)
		}
	}
	if c := (Quantiles{P50: Duration(time.Second), P99: Duration(time.Second)}); c.Quantile(0.01) != time.Second || c.Mean() != time.Second {
		t.Errorf("p50 == p99 is not a constant: %v %v", c.Quantile(0.01), c.Mean())
	}
}

// A scenario's Quantiles draw by the replay's log-normal (internal/lognormal), rounded to
// the nearest nanosecond, at every u and for narrow, wide and constant shapes.
func TestQuantilesAreTheReplays(t *testing.T) {
	for _, c := range [][2]time.Duration{
		{20 * time.Millisecond, 100 * time.Millisecond},
		{240 * time.Millisecond, 4800 * time.Millisecond},
		{2 * time.Millisecond, 2 * time.Millisecond},
	} {
		q := Quantiles{P50: Duration(c[0]), P99: Duration(c[1])}
		d := lognormal.New(c[0], c[1])
		for i := 1; i < 1000; i++ {
			u := float64(i) / 1000
			if got, want := q.Quantile(u), floatdur.Round(d.QuantileNS(u)); got != want {
				t.Errorf("%v/%v: Quantile(%v) = %v; the replay's %v", c[0], c[1], u, got, want)
			}
		}
		if got, want := q.Mean(), d.Mean(); got-want > 1 || want-got > 1 {
			t.Errorf("%v/%v: Mean() = %v; the replay's %v", c[0], c[1], got, want)
		}
	}
}

func TestDist(t *testing.T) {
	ms := func(n float64) Duration { return Duration(n * float64(time.Millisecond)) }
	exp := Dist{Mean: ms(5)}
	if exp.Kind() != DistExponential {
		t.Fatalf("Kind = %v", exp.Kind())
	}
	if got, want := exp.Quantile(0.5), time.Duration(math.Round(5e6*math.Ln2)); got != want {
		t.Errorf("exponential median = %v; want %v", got, want)
	}
	if got := (Dist{Constant: ms(4)}).Quantile(0.99); got != 4*time.Millisecond {
		t.Errorf("constant quantile = %v", got)
	}
	if got := (Dist{P50: ms(38), P99: ms(95)}).Quantile(0.99); math.Abs(float64(got-95*time.Millisecond)) > 100 {
		t.Errorf("log-normal p99 = %v", got)
	}
	if got := (Dist{}).Quantile(0.5); got != 0 {
		t.Errorf("unset Dist quantile = %v", got)
	}
	for _, tt := range []struct {
		d    Dist
		want string
	}{
		{Dist{}, "no distribution set; expected one of {constant: 4ms}, {mean: 5ms} or {p50: 38ms, p99: 95ms}"},
		{Dist{P50: ms(1), Mean: ms(2)}, "sets p50/p99 and mean; expected exactly one of {constant}, {mean} or {p50, p99}"},
		{Dist{P50: ms(1)}, "a log-normal needs both p50 and p99; expected e.g. {p50: 38ms, p99: 95ms}"},
		{Dist{P50: ms(2), P99: ms(1)}, "p99: p99 1ms is below p50 2ms; expected p99 >= p50"},
		{Dist{Mean: ms(-1)}, "mean: mean is -1ms; expected a positive duration"},
	} {
		if err := tt.d.Validate(); err == nil || err.Error() != tt.want {
			t.Errorf("Validate(%+v) = %v; want %s", tt.d, err, tt.want)
		}
	}
	if k := (Dist{P50: ms(1), Constant: ms(1)}).Kind(); k != DistNone {
		t.Errorf("mixed Dist Kind = %v; want none", k)
	}
	if m := (Dist{P50: ms(38), P99: ms(95)}).MeanDuration(); m <= 38*time.Millisecond || m >= 95*time.Millisecond {
		t.Errorf("log-normal mean = %v", m)
	}
}
