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
	case "invalid":
		errs.Addf("$.name", "name is invalid; expected anything else")
	case "needtick":
		if d.Clock.Tick == 0 {
			errs.Addf("$.clock.tick", "tick is missing; expected a period, e.g. 1s")
		}
	case "joined":
		return errors.Join(FieldError{Path: "$.seed", Msg: "seed is odd; expected an even seed"}, errors.New("something without a path"))
	case "nested":
		errs.Merge("$.service", Quantiles{P50: 2, P99: 1}.Validate())
	}
	for i, c := range d.Classes {
		if c.Share > 0.9 {
			errs.Addf(fmt.Sprintf("$.classes[%d].share", i), "share %s is too big; expected at most 90%%", c.Share)
		}
	}
	if d.Labels["a.b"] == "bad" {
		errs.Addf("$.labels['a.b']", "label is bad; expected good")
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

func TestUnmarshalAliasesAndMerge(t *testing.T) {
	src := `clock: &clk
  duration: 40m
  tick: 1s
classes:
  - &cls {name: a, share: 50%, rate: 1/s}
  - <<: *cls
    name: b
  - <<: [{name: c, rate: 2/s}, *cls]
labels: {}
`
	d, err := decodeTest(src + "extra: *clk\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []testClass{{Name: "a", Share: 0.5, Rate: 1}, {Name: "b", Share: 0.5, Rate: 1}, {Name: "c", Share: 0.5, Rate: 2}}
	if !reflect.DeepEqual(d.Classes, want) {
		t.Errorf("classes = %+v; want %+v", d.Classes, want)
	}
	if d.Clock.Tick != Duration(time.Second) {
		t.Errorf("clock = %+v", d.Clock)
	}
	if ex, ok := d.Extra.(map[string]any); !ok || ex["duration"] != "40m" {
		t.Errorf("extra = %#v", d.Extra)
	}
}

// TestUnmarshalErrors pins the exact error text, positions included.
func TestUnmarshalErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"empty", "", "t.yaml:1:1: empty document; expected a mapping with name, seed, count, ratio, on, clock, …"},
		{"comment only", "# nothing\n", "t.yaml:1:1: empty document; expected a mapping with name, seed, count, ratio, on, clock, …"},
		{"not a mapping", "- a\n- b\n", "t.yaml:1:1: got a list; expected a mapping with name, seed, count, ratio, on, clock, …"},
		{"scalar document", "hello\n", `t.yaml:1:1: got the text "hello"; expected a mapping with name, seed, count, ratio, on, clock, …`},
		{"two documents", "name: a\n---\nname: b\n", "t.yaml:3:1: a second YAML document; expected one document per file"},
		{"directive, then two documents", "%YAML 1.2\n---\nname: a\n---\nseed: 1\n", "t.yaml:5:1: a second YAML document; expected one document per file"},
		{"byte-order mark", "\ufeffname: [a]\n", "t.yaml:1:7: name: got a list; expected text"},
		{"unknown key, suggestion", "clock:\n  tik: 1s\n", `t.yaml:2:3: clock: unknown key "tik"; did you mean "tick"?`},
		{"unknown key, list", "clock:\n  speed: 1s\n", `t.yaml:2:3: clock: unknown key "speed"; expected one of start, duration, tick`},
		{"unknown top-level key", "name: a\nfoo: 1\n", `t.yaml:2:1: unknown key "foo"; expected one of name, seed, count, ratio, on, clock, classes, labels, work, service, extra, raw, when, pair, plain, inlined`},
		{"skipped field is unknown", "Skip: x\n", `t.yaml:1:1: unknown key "Skip"; did you mean "skip"?`[:0] + `t.yaml:1:1: unknown key "Skip"; expected one of name, seed, count, ratio, on, clock, classes, labels, work, service, extra, raw, when, pair, plain, inlined`},
		{"duplicate key", "name: a\nseed: 1\nname: b\n", `t.yaml:3:1: duplicate key "name" (first at line 1, column 1); expected each key once per mapping`},
		{"tab", "clock:\n\tduration: 1s\n", "t.yaml:2:1: a tab character; YAML is indented with spaces, expected spaces"},
		{"duration without unit", "clock:\n  duration: 40\n", `t.yaml:2:13: clock.duration: "40" has no unit; durations need a unit, e.g. 350ms, 1.8s or 40m`},
		{"duration unit typo", "clock: {tick: 1sec}\n", `t.yaml:1:15: clock.tick: unknown unit "sec" in duration "1sec"; expected ns, us, ms, s, m or h, e.g. 350ms`},
		{"rate without unit", "classes:\n  - name: a\n    rate: 9000\n", `t.yaml:3:11: classes[0].rate: "9000" has no unit; rates need a time unit, e.g. 9000/s or 9000/min`},
		{"fraction above 1", "classes:\n- {share: 120%}\n", "t.yaml:2:11: classes[0].share: 120% is more than 100%; expected a fraction from 0% to 100%"},
		{"instant", "clock: {start: 2026-03-10}\n", `t.yaml:1:16: clock.start: "2026-03-10" is not an RFC 3339 time; expected e.g. 2026-03-10T14:00:00Z (date, T, time, then Z or an offset such as +01:00)`},
		{"raw duration", "raw: 5\n", `t.yaml:1:6: raw: "5" has no unit; durations need a unit, e.g. 350ms, 1.8s or 40m`},
		{"int from text", "seed: abc\n", `t.yaml:1:7: seed: got the text "abc"; expected a whole number`},
		{"int from quoted number", "seed: \"12\"\n", `t.yaml:1:7: seed: got the text "12"; expected a whole number`},
		{"int from fraction", "seed: 1.5\n", "t.yaml:1:7: seed: got the number 1.5; expected a whole number"},
		{"int overflow", "seed: 99999999999999999999\n", "t.yaml:1:7: seed: 99999999999999999999 is out of range; expected a whole number between -9223372036854775808 and 9223372036854775807"},
		{"uint8 overflow", "count: 256\n", "t.yaml:1:8: count: 256 is out of range; expected a whole number of zero or more up to 255"},
		{"uint negative", "count: -1\n", "t.yaml:1:8: count: -1 is negative; expected a whole number of zero or more"},
		{"float infinity", "ratio: .inf\n", "t.yaml:1:8: ratio: got the number .inf; expected a number"},
		{"bool from yes", "on: yes\n", `t.yaml:1:5: on: got the text "yes"; expected true or false`},
		{"null scalar", "seed:\nname: a\n", "t.yaml:1:6: seed: missing value; expected a whole number"},
		{"list for text", "name: [a]\n", "t.yaml:1:7: name: got a list; expected text"},
		{"mapping for list", "classes: {name: a}\n", "t.yaml:1:10: classes: got a mapping; expected a list"},
		{"text for mapping", "clock: soon\n", `t.yaml:1:8: clock: got the text "soon"; expected a mapping with start, duration, tick`},
		{"mapping for duration", "clock: {tick: {s: 1}}\n", "t.yaml:1:15: clock.tick: got a mapping; expected a duration such as 350ms"},
		{"array length", "pair: [1]\n", "t.yaml:1:7: pair: got a list of 1; expected a list of 2"},
		{"dist mixes forms", "work: {p50: 1ms, p99: 2ms, mean: 3ms}\n", "t.yaml:1:1: work: sets p50/p99 and mean; expected exactly one of {constant}, {mean} or {p50, p99}"},
		{"dist empty", "work: {}\n", "t.yaml:1:1: work: no distribution set; expected one of {constant: 4ms}, {mean: 5ms} or {p50: 38ms, p99: 95ms}"},
		{"dist unknown key", "work: {p90: 1ms}\n", `t.yaml:1:8: work: unknown key "p90"; did you mean "p50"?`},
		{"dist half log-normal", "work:\n  p50: 1ms\n", "t.yaml:1:1: work: a log-normal needs both p50 and p99; expected e.g. {p50: 38ms, p99: 95ms}"},
		{"quantiles inverted", "service: {p50: 9ms, p99: 2ms}\n", "t.yaml:1:26: service.p99: p99 2ms is below p50 9ms; expected p99 >= p50"},
		{"quantiles missing p99", "service:\n  p50: 9ms\n", "t.yaml:1:1: service.p99: p99 is missing; expected both p50 and p99, e.g. {p50: 38ms, p99: 95ms}"},
		{"unknown alias", "name: *nope\n", "t.yaml:1:7: alias *nope refers to no anchor; expected &nope defined earlier in the file"},
		{"alias before anchor", "name: *a\nplain: &a x\n", "t.yaml:1:7: alias *a refers to no anchor; expected &a defined earlier in the file"},
		{"bad merge", "clock:\n  <<: [1]\n", "t.yaml:2:7: clock: merge key << needs a mapping or a list of mappings, got the number 1; expected e.g. <<: *base"},
		{"custom tag", "name: !secret x\n", "t.yaml:1:7: name: unsupported tag !secret; expected no tag (or a core tag such as !!str)"},
		{"complex key", "? [a]\n: 1\n", "t.yaml:2:1: invalid YAML: found an invalid key for this map; expected well-formed YAML"},
		{"syntax", "name: [a\n", "t.yaml:1:7: invalid YAML: sequence end token ']' not found; expected well-formed YAML"},
		{"unterminated quote", "name: 'x\n", "t.yaml:1:7: invalid YAML: could not find end character of single-quoted text; expected well-formed YAML"},
		{"several problems, sorted", "seed: x\nclock:\n  tick: 1\n  tik: 1s\nname: [a]\n", strings.Join([]string{
			`t.yaml:1:7: seed: got the text "x"; expected a whole number`,
			`t.yaml:3:9: clock.tick: "1" has no unit; durations need a unit, e.g. 350ms, 1.8s or 40m`,
			`t.yaml:4:3: clock: unknown key "tik"; did you mean "tick"?`,
			`t.yaml:5:7: name: got a list; expected text`,
		}, "\n")},
		// Validate's FieldErrors, placed by path.
		{"validate scalar", "name: invalid\n", "t.yaml:1:7: name: name is invalid; expected anything else"},
		{"validate list element", "classes:\n  - name: a\n    share: 10%\n  - name: b\n    share: 95%\n", "t.yaml:5:12: classes[1].share: share 95% is too big; expected at most 90%"},
		{"validate missing key", "name: needtick\nclock:\n  duration: 1m\n", "t.yaml:2:1: clock.tick: tick is missing; expected a period, e.g. 1s"},
		{"validate missing parent", "name: needtick\n", "t.yaml:1:1: clock.tick: tick is missing; expected a period, e.g. 1s"},
		{"validate quoted key", "labels:\n  a.b: bad\n", "t.yaml:2:8: labels['a.b']: label is bad; expected good"},
		{"validate joined", "name: joined\nseed: 3\n", "t.yaml:1:1: something without a path\nt.yaml:2:7: seed: seed is odd; expected an even seed"},
		{"validate merged", "name: nested\nservice: {p50: 1s, p99: 1s}\n", "t.yaml:2:25: service.p99: p99 1ns is below p50 2ns; expected p99 >= p50"},
		{"validate through alias", "classes:\n  - &c {name: a, share: 95%}\n  - *c\n", "t.yaml:2:25: classes[0].share: share 95% is too big; expected at most 90%\nt.yaml:2:25: classes[1].share: share 95% is too big; expected at most 90%"},
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

func TestUnmarshalNeedsPointer(t *testing.T) {
	var d testDoc
	if err := Unmarshal("t.yaml", []byte("name: x\n"), d); err == nil {
		t.Error("Unmarshal into a non-pointer succeeded")
	}
	if err := Unmarshal("t.yaml", []byte("name: x\n"), (*testDoc)(nil)); err == nil {
		t.Error("Unmarshal into a nil pointer succeeded")
	}
}

// TestErrorColumnsCountCharacters checks that columns count characters, not
// bytes, after multi-byte text.
func TestErrorColumnsCountCharacters(t *testing.T) {
	_, err := decodeTest("labels: {é: x}\nclock: {tick: 1, duration: 1s}\nname: \"héllo\" \nseed: x\n")
	want := "t.yaml:2:15: clock.tick: \"1\" has no unit; durations need a unit, e.g. 350ms, 1.8s or 40m\nt.yaml:4:7: seed: got the text \"x\"; expected a whole number"
	if err == nil || err.Error() != want {
		t.Errorf("got\n%v\nwant\n%s", err, want)
	}
	_, err = decodeTest("labels: {é: x, ü: 1}\nplain: ñ\nseed: ñ\n")
	if want := `t.yaml:3:7: seed: got the text "ñ"; expected a whole number`; err == nil || err.Error() != want {
		t.Errorf("got %v; want %s", err, want)
	}
	_, err = decodeTest("name: é\nclock: {é: 1s}\n")
	if want := `t.yaml:2:9: clock: unknown key "é"; expected one of start, duration, tick`; err == nil || err.Error() != want {
		t.Errorf("got %v; want %s", err, want)
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

func TestUnmarshalDocumentMarkers(t *testing.T) {
	for _, src := range []string{"%YAML 1.2\n---\nname: x\n", "---\nname: x\n...\n", "\ufeffname: x\n", "name: x\r\n"} {
		d, err := decodeTest(src)
		if err != nil || d.Name != "x" {
			t.Errorf("%q: %+v, %v", src, d, err)
		}
	}
}

func TestUnmarshalResets(t *testing.T) {
	var d testDoc
	if err := Unmarshal("t.yaml", []byte("name: a\nwork: 4ms\nlabels: {x: y}\n"), &d); err != nil {
		t.Fatal(err)
	}
	if err := Unmarshal("t.yaml", []byte("work: {mean: 5ms}\n"), &d); err != nil {
		t.Fatal(err)
	}
	if d.Name != "" || d.Labels != nil || d.Work != (Dist{Mean: Duration(5 * time.Millisecond)}) {
		t.Errorf("second Unmarshal kept parts of the first: %+v", d)
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
