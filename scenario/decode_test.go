package scenario

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// testDoc exercises the decoder on every kind of Go value, independently of
// the Scenario types.
type testDoc struct {
	Name    string            `yaml:"name"`
	Seed    int64             `yaml:"seed"`
	Count   uint8             `yaml:"count"`
	Ratio   float64           `yaml:"ratio"`
	On      bool              `yaml:"on"`
	Clock   testClock         `yaml:"clock"`
	Classes []testClass       `yaml:"classes"`
	Labels  map[string]string `yaml:"labels"`
	Work    Dist              `yaml:"work"`
	Service *Quantiles        `yaml:"service"`
	Extra   any               `yaml:"extra"`
	Raw     time.Duration     `yaml:"raw"`
	When    time.Time         `yaml:"when"`
	Pair    [2]int            `yaml:"pair"`
	Skip    string            `yaml:"-"`
	Plain   string
	testEmbedded
}

type testEmbedded struct {
	Inlined string `yaml:"inlined"`
}

type testClock struct {
	Start    Instant  `yaml:"start"`
	Duration Duration `yaml:"duration"`
	Tick     Duration `yaml:"tick"`
}

type testClass struct {
	Name  string   `yaml:"name"`
	Share Fraction `yaml:"share"`
	Rate  Rate     `yaml:"rate"`
	Boost Factor   `yaml:"boost"`
}

// Validate reports semantic problems by YAML path, as Scenario.Validate does.
func (d *testDoc) Validate() error {
	var errs Errors
	switch d.Name {
	case "needtick":
		if d.Clock.Tick == 0 {
			errs.Addf("$.clock.tick", "tick is missing; expected a period, e.g. 1s")
		}
	case "nested":
		errs.Merge("$.service", Quantiles{P50: 2, P99: 1}.Validate())
	}
	for i, c := range d.Classes {
		if c.Share > 0.9 {
			errs.Addf(fmt.Sprintf("$.classes[%d].share", i), "share %s is too big; expected at most 90%%", c.Share)
		}
	}
	return errs.Err()
}

func decodeTest(src string) (*testDoc, error) {
	var d testDoc
	err := Unmarshal("t.yaml", []byte(src), &d)
	return &d, err
}

func TestUnmarshalValues(t *testing.T) {
	src := `name: x
seed: -3
count: 255
ratio: 1e3
on: true
clock:
  start: 2026-03-10T14:00:00Z
  duration: 40m
  tick: 1s
classes:
  - {name: a, share: 85%, rate: 9000/s, boost: 115%}
  - name: b
    share: 0.15
labels: {x: "1", "a.b": two}
work: 4ms
service: {p50: 38ms, p99: 95ms}
extra: {k: [1, 2.5, true, text, null]}
raw: 2s
when: 2026-03-10T14:00:00+01:00
pair: [1, 2]
plain: p
inlined: i
`
	d, err := decodeTest(src)
	if err != nil {
		t.Fatal(err)
	}
	ms := func(n int) Duration { return Duration(time.Duration(n) * time.Millisecond) }
	want := testDoc{
		Name: "x", Seed: -3, Count: 255, Ratio: 1000, On: true,
		Clock: testClock{
			Start:    Instant(time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC)),
			Duration: Duration(40 * time.Minute), Tick: Duration(time.Second),
		},
		Classes: []testClass{{"a", 0.85, 9000, 1.15}, {Name: "b", Share: 0.15}},
		Labels:  map[string]string{"x": "1", "a.b": "two"},
		Work:    Dist{Constant: ms(4)},
		Service: &Quantiles{P50: ms(38), P99: ms(95)},
		Extra:   map[string]any{"k": []any{int64(1), 2.5, true, "text", nil}},
		Raw:     2 * time.Second,
		When:    time.Date(2026, 3, 10, 13, 0, 0, 0, time.UTC),
		Pair:    [2]int{1, 2},
		Plain:   "p",
	}
	want.Inlined = "i"
	if !d.When.Equal(want.When) {
		t.Errorf("When = %v; want %v", d.When, want.When)
	}
	d.When = want.When
	if !reflect.DeepEqual(*d, want) {
		t.Errorf("decoded\n%#v\nwant\n%#v", *d, want)
	}
}

// TestUnmarshalErrors pins the exact error text, positions included, of what
// this package adds to yamlfile's strict decoding (which yamlfile's tests
// cover): the spelling of its value types and of the standard time types,
// Dist and Quantiles checking themselves, and Validate's FieldErrors.
func TestUnmarshalErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"two documents", "name: a\n---\nname: b\n", "t.yaml:3:1: a second YAML document; expected one document per file"},
		{"unknown key, suggestion", "clock:\n  tik: 1s\n", `t.yaml:2:3: clock: unknown key "tik"; did you mean "tick"?`},
		{"duration without unit", "clock:\n  duration: 40\n", `t.yaml:2:13: clock.duration: "40" has no unit; durations need a unit, e.g. 350ms, 1.8s or 40m`},
		{"duration unit typo", "clock: {tick: 1sec}\n", `t.yaml:1:15: clock.tick: unknown unit "sec" in duration "1sec"; expected ns, us, ms, s, m or h, e.g. 350ms`},
		{"rate without unit", "classes:\n  - name: a\n    rate: 9000\n", `t.yaml:3:11: classes[0].rate: "9000" has no unit; rates need a time unit, e.g. 9000/s or 9000/min`},
		{"fraction above 1", "classes:\n- {share: 120%}\n", "t.yaml:2:11: classes[0].share: 120% is more than 100%; expected a fraction from 0% to 100%"},
		{"instant", "clock: {start: 2026-03-10}\n", `t.yaml:1:16: clock.start: "2026-03-10" is not an RFC 3339 time; expected e.g. 2026-03-10T14:00:00Z (date, T, time, then Z or an offset such as +01:00)`},
		{"time.Time as an Instant", "when: 2026-03-10\n", `t.yaml:1:7: when: "2026-03-10" is not an RFC 3339 time; expected e.g. 2026-03-10T14:00:00Z (date, T, time, then Z or an offset such as +01:00)`},
		{"raw duration", "raw: 5\n", `t.yaml:1:6: raw: "5" has no unit; durations need a unit, e.g. 350ms, 1.8s or 40m`},
		{"text for mapping", "clock: soon\n", `t.yaml:1:8: clock: got the text "soon"; expected a mapping with start, duration, tick`},
		{"mapping for duration", "clock: {tick: {s: 1}}\n", "t.yaml:1:15: clock.tick: got a mapping; expected a duration such as 350ms"},
		{"dist mixes forms", "work: {p50: 1ms, p99: 2ms, mean: 3ms}\n", "t.yaml:1:1: work: sets p50/p99 and mean; expected exactly one of {constant}, {mean} or {p50, p99}"},
		{"dist empty", "work: {}\n", "t.yaml:1:1: work: no distribution set; expected one of {constant: 4ms}, {mean: 5ms} or {p50: 38ms, p99: 95ms}"},
		{"dist unknown key", "work: {p90: 1ms}\n", `t.yaml:1:8: work: unknown key "p90"; did you mean "p50"?`},
		{"dist half log-normal", "work:\n  p50: 1ms\n", "t.yaml:1:1: work: a log-normal needs both p50 and p99; expected e.g. {p50: 38ms, p99: 95ms}"},
		{"quantiles inverted", "service: {p50: 9ms, p99: 2ms}\n", "t.yaml:1:26: service.p99: p99 2ms is below p50 9ms; expected p99 >= p50"},
		{"quantiles missing p99", "service:\n  p50: 9ms\n", "t.yaml:1:1: service.p99: p99 is missing; expected both p50 and p99, e.g. {p50: 38ms, p99: 95ms}"},
		{"several problems, sorted", "seed: x\nclock:\n  tick: 1\n  tik: 1s\nname: [a]\n", strings.Join([]string{
			`t.yaml:1:7: seed: got the text "x"; expected a whole number`,
			`t.yaml:3:9: clock.tick: "1" has no unit; durations need a unit, e.g. 350ms, 1.8s or 40m`,
			`t.yaml:4:3: clock: unknown key "tik"; did you mean "tick"?`,
			`t.yaml:5:7: name: got a list; expected text`,
		}, "\n")},
		// Validate's FieldErrors, placed by path.
		{"validate list element", "classes:\n  - name: a\n    share: 10%\n  - name: b\n    share: 95%\n", "t.yaml:5:12: classes[1].share: share 95% is too big; expected at most 90%"},
		{"validate missing key", "name: needtick\nclock:\n  duration: 1m\n", "t.yaml:2:1: clock.tick: tick is missing; expected a period, e.g. 1s"},
		{"validate merged", "name: nested\nservice: {p50: 1s, p99: 1s}\n", "t.yaml:2:25: service.p99: p99 1ns is below p50 2ns; expected p99 >= p50"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeTest(tt.src)
			if err == nil {
				t.Fatalf("no error; want\n%s", tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Errorf("error is %T, not an ErrorList", err)
			}
		})
	}
}

func TestFirstSentence(t *testing.T) {
	for in, want := range map[string]string{
		"A rate, e.g. 9/s. More.":  "a rate, e.g. 9/s",
		"A number (i.e. a float).": "a number (i.e. a float)",
		"Text":                     "text",
		"":                         "",
	} {
		if got := firstSentence(in); got != want {
			t.Errorf("firstSentence(%q) = %q; want %q", in, got, want)
		}
	}
}

func TestLoad(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "missing.scenario.yaml"))
	if err == nil || !errors.Is(err, os.ErrNotExist) || !strings.HasPrefix(err.Error(), "scenario: ") {
		t.Errorf("Load(missing) = %v", err)
	}
}

func BenchmarkDecode(b *testing.B) {
	data, err := os.ReadFile("testdata/valid/northstar-sketch.scenario.yaml")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Decode("northstar-sketch.scenario.yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSchema(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Schema(); err != nil {
			b.Fatal(err)
		}
	}
}
