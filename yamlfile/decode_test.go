package yamlfile

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// testDoc exercises the decoder on every kind of Go value.
type testDoc struct {
	Name    string            `yaml:"name"`
	Seed    int64             `yaml:"seed"`
	Count   uint8             `yaml:"count"`
	Ratio   float64           `yaml:"ratio"`
	On      bool              `yaml:"on"`
	Clock   testClock         `yaml:"clock"`
	Classes []testClass       `yaml:"classes"`
	Labels  map[string]string `yaml:"labels"`
	Span    span              `yaml:"span"`
	Level   *level            `yaml:"level"`
	Extra   any               `yaml:"extra"`
	Wait    time.Duration     `yaml:"wait"`
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
	Start time.Time     `yaml:"start"`
	Tick  time.Duration `yaml:"tick,required"`
}

type testClass struct {
	Name  string  `yaml:"name"`
	Share float64 `yaml:"share"`
}

// level decodes from text: low or high.
type level int

func (l *level) UnmarshalText(b []byte) error {
	switch string(b) {
	case "low":
		*l = 1
	case "high":
		*l = 2
	default:
		return fmt.Errorf("level %q is unknown; expected low or high", b)
	}
	return nil
}

// span decodes from text ("3-5") or a mapping ({from: 3, to: 5}), and checks itself.
type span struct {
	From int `yaml:"from"`
	To   int `yaml:"to"`
}

func (s *span) UnmarshalText(b []byte) error {
	from, to, ok := strings.Cut(string(b), "-")
	f, err1 := strconv.Atoi(from)
	t, err2 := strconv.Atoi(to)
	if !ok || err1 != nil || err2 != nil {
		return fmt.Errorf("span %q is not FROM-TO; expected e.g. 3-5", b)
	}
	if t < f {
		return fmt.Errorf("span %q ends before it starts; expected FROM <= TO", b)
	}
	*s = span{f, t}
	return nil
}

func (s *span) CheckYAML() error {
	var errs Errors
	if s.To < s.From {
		errs.Addf("$.to", "to %d is below from %d; expected to >= from", s.To, s.From)
	}
	return errs.Err()
}

// Validate reports semantic problems by YAML path.
func (d *testDoc) Validate() error {
	var errs Errors
	switch d.Name {
	case "invalid":
		errs.Addf("$.name", "name is invalid; expected anything else")
	case "needstart":
		if d.Clock.Start.IsZero() {
			errs.Addf("$.clock.start", "start is missing; expected a time")
		}
	case "joined":
		return errors.Join(FieldError{Path: "$.seed", Msg: "seed is odd; expected an even seed"}, errors.New("something without a path"))
	case "nested":
		errs.Merge("$.span", (&span{From: 2, To: 1}).CheckYAML())
	}
	for i, c := range d.Classes {
		if c.Share > 0.9 {
			errs.Addf(fmt.Sprintf("$.classes[%d].share", i), "share %v is too big; expected at most 0.9", c.Share)
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
  tick: 1s
classes:
  - {name: a, share: 0.85}
  - name: b
    share: 0.000_5
labels: {x: "1", "a.b": two, 3: three}
span: 3-5
level: high
extra: {k: [1, 2.5, true, text, null, 0x10]}
wait: 1h30m
when: 2026-03-10T14:00:00+01:00
pair: [1, 2]
plain: p
inlined: i
`
	d, err := decodeTest(src)
	if err != nil {
		t.Fatal(err)
	}
	high := level(2)
	want := testDoc{
		Name: "x", Seed: -3, Count: 255, Ratio: 1000, On: true,
		Clock:   testClock{Start: time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC), Tick: time.Second},
		Classes: []testClass{{"a", 0.85}, {"b", 0.0005}},
		Labels:  map[string]string{"x": "1", "a.b": "two", "3": "three"},
		Span:    span{3, 5},
		Level:   &high,
		Extra:   map[string]any{"k": []any{int64(1), 2.5, true, "text", nil, int64(16)}},
		Wait:    90 * time.Minute,
		When:    time.Date(2026, 3, 10, 13, 0, 0, 0, time.UTC),
		Pair:    [2]int{1, 2},
		Plain:   "p",
	}
	want.Inlined = "i"
	if !d.When.Equal(want.When) || !d.Clock.Start.Equal(want.Clock.Start) {
		t.Errorf("times = %v, %v; want %v, %v", d.When, d.Clock.Start, want.When, want.Clock.Start)
	}
	d.When, d.Clock.Start = want.When, want.Clock.Start
	if !reflect.DeepEqual(*d, want) {
		t.Errorf("decoded\n%#v\nwant\n%#v", *d, want)
	}
}

func TestUnmarshalAliasesAndMerge(t *testing.T) {
	src := `clock: &clk
  tick: 1s
classes:
  - &cls {name: a, share: 0.5}
  - <<: *cls
    name: b
  - <<: [{name: c, share: 0.25}, *cls]
extra: *clk
span: {<<: {from: 1}, to: 2}
`
	d, err := decodeTest(src)
	if err != nil {
		t.Fatal(err)
	}
	want := []testClass{{Name: "a", Share: 0.5}, {Name: "b", Share: 0.5}, {Name: "c", Share: 0.25}}
	if !reflect.DeepEqual(d.Classes, want) {
		t.Errorf("classes = %+v; want %+v", d.Classes, want)
	}
	if d.Clock.Tick != time.Second || d.Span != (span{1, 2}) {
		t.Errorf("clock = %+v, span = %+v", d.Clock, d.Span)
	}
	if ex, ok := d.Extra.(map[string]any); !ok || ex["tick"] != "1s" {
		t.Errorf("extra = %#v", d.Extra)
	}
}

// TestUnmarshalErrors pins the exact error text, positions included.
func TestUnmarshalErrors(t *testing.T) {
	const fields = "name, seed, count, ratio, on, clock, …"
	tests := []struct {
		name, src, want string
	}{
		{"empty", "", "t.yaml:1:1: empty document; expected a mapping with " + fields},
		{"comment only", "# nothing\n", "t.yaml:1:1: empty document; expected a mapping with " + fields},
		{"not a mapping", "- a\n- b\n", "t.yaml:1:1: got a list; expected a mapping with " + fields},
		{"scalar document", "hello\n", `t.yaml:1:1: got the text "hello"; expected a mapping with ` + fields},
		{"two documents", "name: a\n---\nname: b\n", "t.yaml:3:1: a second YAML document; expected one document per file"},
		{"directive, then two documents", "%YAML 1.2\n---\nname: a\n---\nseed: 1\n", "t.yaml:5:1: a second YAML document; expected one document per file"},
		{"byte-order mark", "\ufeffname: [a]\n", "t.yaml:1:7: name: got a list; expected text"},
		{"unknown key, suggestion", "clock:\n  tik: 1s\n", "t.yaml:1:1: clock.tick: missing; expected a duration such as 350ms\n" + `t.yaml:2:3: clock: unknown key "tik"; did you mean "tick"?`},
		{"unknown key, list", "clock:\n  speed: 1s\n  tick: 1s\n", `t.yaml:2:3: clock: unknown key "speed"; expected one of start, tick`},
		{"unknown top-level key", "name: a\nfoo: 1\n", `t.yaml:2:1: unknown key "foo"; expected one of name, seed, count, ratio, on, clock, classes, labels, span, level, extra, wait, when, pair, plain, inlined`},
		{"skipped field is unknown", "Skip: x\n", `t.yaml:1:1: unknown key "Skip"; expected one of name, seed, count, ratio, on, clock, classes, labels, span, level, extra, wait, when, pair, plain, inlined`},
		{"one key known", "span: {from: 1, too: 2}\n", `t.yaml:1:17: span: unknown key "too"; did you mean "to"?`},
		{"duplicate key", "name: a\nseed: 1\nname: b\n", `t.yaml:3:1: duplicate key "name" (first at line 1, column 1); expected each key once per mapping`},
		{"tab", "clock:\n\ttick: 1s\n", "t.yaml:2:1: a tab character; YAML is indented with spaces, expected spaces"},
		{"missing required key", "clock:\n  start: 2026-03-10T14:00:00Z\n", "t.yaml:1:1: clock.tick: missing; expected a duration such as 350ms"},
		{"missing required key in a flow mapping", "name: a\nclock: {}\n", "t.yaml:2:1: clock.tick: missing; expected a duration such as 350ms"},
		{"duration", "wait: 5\n", `t.yaml:1:7: wait: "5" is not a duration; expected a duration such as 350ms`},
		{"duration from a list", "wait: [5s]\n", "t.yaml:1:7: wait: got a list; expected a duration such as 350ms"},
		{"time", "when: 2026-03-10\n", `t.yaml:1:7: when: "2026-03-10" is not an RFC 3339 time; expected an RFC 3339 time such as 2026-03-10T14:00:00Z`},
		{"text unmarshaler", "level: medium\n", `t.yaml:1:8: level: level "medium" is unknown; expected low or high`},
		{"text unmarshaler from a mapping", "level: {x: 1}\n", "t.yaml:1:8: level: got a mapping; expected text"},
		{"int from text", "seed: abc\n", `t.yaml:1:7: seed: got the text "abc"; expected a whole number`},
		{"int from quoted number", "seed: \"12\"\n", `t.yaml:1:7: seed: got the text "12"; expected a whole number`},
		{"int from fraction", "seed: 1.5\n", "t.yaml:1:7: seed: got the number 1.5; expected a whole number"},
		{"int overflow", "seed: 99999999999999999999\n", "t.yaml:1:7: seed: 99999999999999999999 is out of range; expected a whole number between -9223372036854775808 and 9223372036854775807"},
		{"uint8 overflow", "count: 256\n", "t.yaml:1:8: count: 256 is out of range; expected a whole number of zero or more up to 255"},
		{"uint negative", "count: -1\n", "t.yaml:1:8: count: -1 is negative; expected a whole number of zero or more"},
		{"float infinity", "ratio: .inf\n", "t.yaml:1:8: ratio: got the number .inf; expected a number"},
		{"float with separators", "ratio: 12,400\n", `t.yaml:1:8: ratio: got the text "12,400"; expected a number (write numbers without separators or units, e.g. 12400)`},
		{"int with a unit", "seed: 5%\n", `t.yaml:1:7: seed: got the text "5%"; expected a whole number (write numbers without separators or units, e.g. 12400)`},
		{"bool from yes", "on: yes\n", `t.yaml:1:5: on: got the text "yes"; expected true or false`},
		{"null scalar", "seed:\nname: a\n", "t.yaml:1:6: seed: missing value; expected a whole number"},
		{"list for text", "name: [a]\n", "t.yaml:1:7: name: got a list; expected text"},
		{"mapping for list", "classes: {name: a}\n", "t.yaml:1:10: classes: got a mapping; expected a list"},
		{"text for mapping", "clock: soon\n", `t.yaml:1:8: clock: got the text "soon"; expected a mapping with start, tick`},
		{"array length", "pair: [1]\n", "t.yaml:1:7: pair: got a list of 1; expected a list of 2"},
		{"checker from text", "span: 5-3\n", `t.yaml:1:7: span: span "5-3" ends before it starts; expected FROM <= TO`},
		{"checker from a mapping", "span: {from: 5, to: 3}\n", "t.yaml:1:21: span.to: to 3 is below from 5; expected to >= from"},
		{"checker unknown key", "span: {form: 1}\n", `t.yaml:1:8: span: unknown key "form"; expected one of from, to`},
		{"unknown alias", "name: *nope\n", "t.yaml:1:7: alias *nope refers to no anchor; expected &nope defined earlier in the file"},
		{"alias name over lines", "* 0\n\n00", `t.yaml:1:1: alias *"0\n00" refers to no anchor; expected &"0\n00" defined earlier in the file`},
		{"alias before anchor", "name: *a\nplain: &a x\n", "t.yaml:1:7: alias *a refers to no anchor; expected &a defined earlier in the file"},
		{"bad merge", "clock:\n  <<: [1]\n  tick: 1s\n", "t.yaml:2:7: clock: merge key << needs a mapping or a list of mappings, got the number 1; expected e.g. <<: *base"},
		{"custom tag", "name: !secret x\n", "t.yaml:1:7: name: unsupported tag !secret; expected no tag (or a core tag such as !!str)"},
		{"key that is null", "labels: {~: b}\n", "t.yaml:1:10: labels: a key that is nothing (null); expected a plain text key"},
		{"key that is a list", "labels: {[a]: b}\n", "t.yaml:1:13: invalid YAML: found an invalid key for this map; expected well-formed YAML"},
		{"complex key", "? [a]\n: 1\n", "t.yaml:2:1: invalid YAML: found an invalid key for this map; expected well-formed YAML"},
		{"syntax", "name: [a\n", "t.yaml:1:7: invalid YAML: sequence end token ']' not found; expected well-formed YAML"},
		{"unterminated quote", "name: 'x\n", "t.yaml:1:7: invalid YAML: could not find end character of single-quoted text; expected well-formed YAML"},
		{"several problems, sorted", "seed: x\nclock:\n  tick: 1\n  tik: 1s\nname: [a]\n", strings.Join([]string{
			`t.yaml:1:7: seed: got the text "x"; expected a whole number`,
			`t.yaml:3:9: clock.tick: "1" is not a duration; expected a duration such as 350ms`,
			`t.yaml:4:3: clock: unknown key "tik"; did you mean "tick"?`,
			`t.yaml:5:7: name: got a list; expected text`,
		}, "\n")},
		// Validate's FieldErrors, placed by path.
		{"validate scalar", "name: invalid\n", "t.yaml:1:7: name: name is invalid; expected anything else"},
		{"validate list element", "classes:\n  - name: a\n    share: 0.1\n  - name: b\n    share: 0.95\n", "t.yaml:5:12: classes[1].share: share 0.95 is too big; expected at most 0.9"},
		{"validate missing key", "name: needstart\nclock:\n  tick: 1m\n", "t.yaml:2:1: clock.start: start is missing; expected a time"},
		{"validate missing parent", "name: needstart\n", "t.yaml:1:1: clock.start: start is missing; expected a time"},
		{"validate quoted key", "labels:\n  a.b: bad\n", "t.yaml:2:8: labels['a.b']: label is bad; expected good"},
		{"validate joined", "name: joined\nseed: 3\n", "t.yaml:1:1: something without a path\nt.yaml:2:7: seed: seed is odd; expected an even seed"},
		{"validate merged", "name: nested\nspan: {from: 1, to: 1}\n", "t.yaml:2:21: span.to: to 1 is below from 2; expected to >= from"},
		{"validate through alias", "classes:\n  - &c {name: a, share: 0.95}\n  - *c\n", "t.yaml:2:25: classes[0].share: share 0.95 is too big; expected at most 0.9\nt.yaml:2:25: classes[1].share: share 0.95 is too big; expected at most 0.9"},
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

func TestUnmarshalLimits(t *testing.T) {
	t.Run("size", func(t *testing.T) {
		big := "name: " + strings.Repeat("x", maxFileSize) + "\n"
		_, err := decodeTest(big)
		want := fmt.Sprintf("t.yaml: file is %d bytes; expected a document of at most %d bytes", len(big), maxFileSize)
		if err == nil || err.Error() != want {
			t.Errorf("got %v; want %s", err, want)
		}
	})
	t.Run("flow nesting", func(t *testing.T) {
		_, err := decodeTest("extra: " + strings.Repeat("[", 10000) + strings.Repeat("]", 10000))
		want := fmt.Sprintf("t.yaml:1:%d: collections nested more than 64 deep; expected a shallower document", 8+64)
		if err == nil || err.Error() != want {
			t.Errorf("got %v; want %s", err, want)
		}
	})
	t.Run("compact nesting", func(t *testing.T) {
		_, err := decodeTest("extra:\n  " + strings.Repeat("- ", 10000) + "1\n")
		want := fmt.Sprintf("t.yaml:2:%d: more than 64 nested indicators on one line; expected a shallower document", 3+2*64)
		if err == nil || err.Error() != want {
			t.Errorf("got %v; want %s", err, want)
		}
	})
	t.Run("keys in one mapping", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("labels:\n")
		for i := range 300 {
			fmt.Fprintf(&b, "  k%d: v\n", i)
		}
		_, err := decodeTest(b.String())
		want := "t.yaml:258:3: a mapping with more than 256 keys; expected a smaller mapping"
		if err == nil || err.Error() != want {
			t.Errorf("got %v; want %s", err, want)
		}
	})
	t.Run("keys in many mappings", func(t *testing.T) {
		// 2000 list items of 2 keys each, two layouts, and 200 labels: all fine.
		var b strings.Builder
		b.WriteString("classes:\n")
		for i := range 1000 {
			fmt.Fprintf(&b, "  - name: c%d\n    share: 0\n", i)
		}
		b.WriteString("labels:\n")
		for i := range 200 {
			fmt.Fprintf(&b, "  k%d: v\n", i)
		}
		b.WriteString("extra:\n")
		for i := range 1000 {
			fmt.Fprintf(&b, "- a: %d\n  b:\n  - c: 1\n    d: 2\n", i)
		}
		d, err := decodeTest(b.String())
		if err != nil || len(d.Classes) != 1000 || len(d.Labels) != 200 {
			t.Errorf("got %d classes, %d labels, %v", len(d.Classes), len(d.Labels), err)
		}
	})
	t.Run("alias expansion", func(t *testing.T) {
		// Each level doubles the values: 2^30 without a limit.
		var b strings.Builder
		b.WriteString("a0: &a0 [1, 1]\n")
		for i := 1; i <= 30; i++ {
			fmt.Fprintf(&b, "a%d: &a%d [*a%d, *a%d]\n", i, i, i-1, i-1)
		}
		_, err := decodeTest("extra:\n" + indent(b.String()) + "name: x\n")
		if err == nil || !strings.Contains(err.Error(), "the document expands to more than 100000 values (through aliases?); expected a smaller document") {
			t.Errorf("got %v; want an expansion error", err)
		}
	})
	t.Run("many errors", func(t *testing.T) {
		var b strings.Builder
		for i := range 200 {
			fmt.Fprintf(&b, "k%d: 1\n", i)
		}
		_, err := decodeTest(b.String())
		var list ErrorList
		if !errors.As(err, &list) || len(list) != maxErrors+1 || !strings.HasSuffix(err.Error(), "t.yaml:51:1: more than 50 problems; stopping here") {
			t.Errorf("got %d errors, ending %q", len(list), list[len(list)-1])
		}
	})
}

func indent(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	return strings.Join(lines, "")
}

// TestErrorColumnsCountCharacters checks that columns count characters, not
// bytes, after multi-byte text.
func TestErrorColumnsCountCharacters(t *testing.T) {
	_, err := decodeTest("labels: {é: x}\nclock: {wait: 1, tick: 1s}\nname: \"héllo\" \nseed: x\n")
	want := "t.yaml:2:9: clock: unknown key \"wait\"; expected one of start, tick\nt.yaml:4:7: seed: got the text \"x\"; expected a whole number"
	if err == nil || err.Error() != want {
		t.Errorf("got\n%v\nwant\n%s", err, want)
	}
	_, err = decodeTest("name: é\nclock: {é: 1s, tick: 1s}\n")
	if want := `t.yaml:2:9: clock: unknown key "é"; expected one of start, tick`; err == nil || err.Error() != want {
		t.Errorf("got %v; want %s", err, want)
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

func TestUnmarshalDocumentMarkers(t *testing.T) {
	for _, src := range []string{"%YAML 1.2\n---\nname: x\n", "---\nname: x\n...\n", "\ufeffname: x\n", "name: x\r\n", "name: x\r"} {
		d, err := decodeTest(src)
		if err != nil || d.Name != "x" {
			t.Errorf("%q: %+v, %v", src, d, err)
		}
	}
}

func TestUnmarshalResets(t *testing.T) {
	var d testDoc
	if err := Unmarshal("t.yaml", []byte("name: a\nspan: 1-2\nlabels: {x: y}\n"), &d); err != nil {
		t.Fatal(err)
	}
	if err := Unmarshal("t.yaml", []byte("span: {to: 5}\n"), &d); err != nil {
		t.Fatal(err)
	}
	if d.Name != "" || d.Labels != nil || d.Span != (span{To: 5}) {
		t.Errorf("second Unmarshal kept parts of the first: %+v", d)
	}
}

// TestNulls checks the three rules for null values.
func TestNulls(t *testing.T) {
	const src = "name:\nseed: ~\nclasses:\nclock: {tick: 1s, start: null}\nlevel:\n"
	tests := []struct {
		nulls Nulls
		want  string
	}{
		{NullsEmptyCollections, "t.yaml:1:6: name: missing value; expected text\n" +
			"t.yaml:2:7: seed: missing value; expected a whole number"},
		{NullsZero, ""},
		{NullsRefused, "t.yaml:1:6: name: missing value; expected text\n" +
			"t.yaml:2:7: seed: missing value; expected a whole number\n" +
			"t.yaml:3:9: classes: missing value; expected a list\n" +
			"t.yaml:4:26: clock.start: missing value; expected an RFC 3339 time such as 2026-03-10T14:00:00Z\n" +
			"t.yaml:5:8: level: missing value; expected text"},
	}
	for _, tt := range tests {
		var d testDoc
		_, err := Decoder{Nulls: tt.nulls}.Decode("t.yaml", []byte(src), &d)
		if got := fmt.Sprint(err); tt.want != "" && got != tt.want || tt.want == "" && err != nil {
			t.Errorf("Nulls %d: got\n%v\nwant\n%s", tt.nulls, err, tt.want)
		}
		if err == nil && (d.Name != "" || d.Classes != nil || d.Level != nil || !d.Clock.Start.IsZero()) {
			t.Errorf("Nulls %d: decoded %+v", tt.nulls, d)
		}
	}
}

// TestNoAliases checks that a format can refuse anchors, aliases, merge keys and tags.
func TestNoAliases(t *testing.T) {
	tests := []struct {
		dec       Decoder
		src, want string
	}{
		{Decoder{NoAliases: true}, "name: &a x\nplain: *a\n",
			"t.yaml:1:7: name: anchors (&a) are not supported here; expected the value written out\n" +
				"t.yaml:2:8: plain: aliases (*a) are not supported here; expected the value written out"},
		{Decoder{NoAliases: true}, "name: !!str x\n", "t.yaml:1:7: name: tags (!!str) are not supported here; expected the value without a tag"},
		{Decoder{NoAliases: true}, "labels: {&k a: b}\n", "t.yaml:1:10: labels: anchors (&k) are not supported here; expected the value written out"},
		{Decoder{NoAliases: true}, "span: {<<: {from: 1}, to: 2}\n", "t.yaml:1:8: span: merge keys (<<) are not supported here; expected the keys written out"},
		{Decoder{NoMergeKeys: true}, "classes:\n  - &c {name: a}\n  - <<: *c\n    share: 1\n", "t.yaml:3:5: classes[1]: merge keys (<<) are not supported here; expected the keys written out"},
	}
	for _, tt := range tests {
		var d testDoc
		_, err := tt.dec.Decode("t.yaml", []byte(tt.src), &d)
		if fmt.Sprint(err) != tt.want {
			t.Errorf("%q: got\n%v\nwant\n%s", tt.src, err, tt.want)
		}
	}
	var d testDoc
	if _, err := (Decoder{NoMergeKeys: true}).Decode("t.yaml", []byte("name: &a x\nplain: *a\n"), &d); err != nil || d.Plain != "x" {
		t.Errorf("NoMergeKeys refused an alias: %v", err)
	}
}

// TestScalarHook checks a format's own spelling of scalars: times in UTC
// only, text checked against the values its tag allows, and the Expect hook.
func TestScalarHook(t *testing.T) {
	type doc struct {
		At     time.Time     `yaml:"at"`
		Status string        `yaml:"status" allowed:"open,closed"`
		Notes  []string      `yaml:"notes" allowed:"never checked"`
		Wait   time.Duration `yaml:"wait"`
		Bad    int           `yaml:"bad"`
	}
	var seen []string
	dec := Decoder{
		Document: "record",
		Scalar: func(s Scalar) (any, error) {
			seen = append(seen, fmt.Sprintf("%s %q %d %s", s.Path, s.Text, s.Style, s.Type))
			switch {
			case s.Type == timeType:
				tm, err := time.Parse(time.RFC3339, s.Text)
				if err != nil || !strings.HasSuffix(s.Text, "Z") {
					return nil, fmt.Errorf("%q is not in UTC; expected e.g. 2026-09-12T09:14:00Z", s.Text)
				}
				return tm, nil
			case s.Tag.Get("allowed") != "":
				if !strings.Contains(","+s.Tag.Get("allowed")+",", ","+s.Text+",") {
					return nil, fmt.Errorf("%q is not allowed; expected one of %s", s.Text, s.Tag.Get("allowed"))
				}
			case s.Path == "$.bad":
				return "a string for an int", nil
			}
			return nil, nil
		},
		Expect: func(t reflect.Type) string {
			if t == timeType {
				return "an RFC 3339 time in UTC"
			}
			return ""
		},
	}
	var d doc
	_, err := dec.Decode("t.yaml", []byte("at: 2026-09-12T11:14:00+02:00\nstatus: done\nnotes: ['x']\nwait: 2s\nbad: 1\n"), &d)
	want := `t.yaml:1:5: at: "2026-09-12T11:14:00+02:00" is not in UTC; expected e.g. 2026-09-12T09:14:00Z
t.yaml:2:9: status: "done" is not allowed; expected one of open,closed
t.yaml:5:6: bad: cannot store a string in a int; expected the Scalar hook to return the type it is given (a bug in the Go code)`
	if fmt.Sprint(err) != want {
		t.Errorf("got\n%v\nwant\n%s", err, want)
	}
	wantSeen := []string{
		`$.at "2026-09-12T11:14:00+02:00" 0 time.Time`,
		`$.status "done" 0 string`,
		`$.notes[0] "x" 1 string`,
		`$.wait "2s" 0 time.Duration`,
		`$.bad "1" 0 int`,
	}
	if !reflect.DeepEqual(seen, wantSeen) {
		t.Errorf("the hook saw\n%s\nwant\n%s", strings.Join(seen, "\n"), strings.Join(wantSeen, "\n"))
	}
	_, err = dec.Decode("t.yaml", []byte("at: [1]\n"), &d)
	if want := "t.yaml:1:5: at: got a list; expected an RFC 3339 time in UTC"; fmt.Sprint(err) != want {
		t.Errorf("got %v; want %s", err, want)
	}
	_, err = dec.Decode("t.yaml", nil, &d)
	if want := "t.yaml:1:1: empty record; expected a mapping with at, status, notes, wait, bad"; fmt.Sprint(err) != want {
		t.Errorf("got %v; want %s", err, want)
	}
	if _, err := dec.Decode("t.yaml", []byte("at: 2026-09-12T09:14:00Z\nstatus: open\n"), &d); err != nil || d.Status != "open" || d.At.Hour() != 9 {
		t.Errorf("got %+v, %v", d, err)
	}
}

func TestPositions(t *testing.T) {
	src := `name: &n x
classes:
  - name: a
    share: 0.5
  - {name: b, share: 'x'}
labels:
  'a.b': |
    text
  c: >
    folded
  d: "quoted"
clock:
span: &s {from: 1, to: 2}
extra: *s
`
	var d struct {
		Name    string            `yaml:"name"`
		Classes []map[string]any  `yaml:"classes"`
		Labels  map[string]string `yaml:"labels"`
		Clock   *testClock        `yaml:"clock"`
		Span    span              `yaml:"span"`
		Extra   any               `yaml:"extra"`
	}
	pos, err := Decoder{}.Decode("t.yaml", []byte(src), &d)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path           string
		value, key, at [2]int
		style          Style
	}{
		{"$", [2]int{1, 1}, [2]int{}, [2]int{1, 1}, Plain},
		{"$.name", [2]int{1, 10}, [2]int{1, 1}, [2]int{1, 7}, Plain},
		{"$.classes", [2]int{3, 3}, [2]int{2, 1}, [2]int{2, 1}, Plain},
		{"$.classes[0]", [2]int{3, 5}, [2]int{}, [2]int{3, 5}, Plain},
		{"$.classes[0].share", [2]int{4, 12}, [2]int{4, 5}, [2]int{4, 12}, Plain},
		{"$.classes[1]", [2]int{5, 5}, [2]int{}, [2]int{5, 5}, Plain},
		{"$.classes[1].share", [2]int{5, 22}, [2]int{5, 15}, [2]int{5, 22}, SingleQuoted},
		{"$.classes[1].nope", [2]int{}, [2]int{}, [2]int{5, 5}, Plain},
		{"$.labels['a.b']", [2]int{7, 10}, [2]int{7, 3}, [2]int{7, 10}, Literal},
		{"$.labels.c", [2]int{9, 6}, [2]int{9, 3}, [2]int{9, 6}, Folded},
		{"$.labels.d", [2]int{11, 6}, [2]int{11, 3}, [2]int{11, 6}, DoubleQuoted},
		{"$.clock", [2]int{12, 7}, [2]int{12, 1}, [2]int{12, 7}, Plain},
		{"$.clock.tick", [2]int{}, [2]int{}, [2]int{12, 7}, Plain},
		{"$.span", [2]int{13, 10}, [2]int{13, 1}, [2]int{13, 1}, Plain},
		{"$.extra", [2]int{14, 8}, [2]int{14, 1}, [2]int{14, 1}, Plain},
		{"$.extra.to", [2]int{13, 24}, [2]int{13, 20}, [2]int{13, 24}, Plain},
		{"nothing", [2]int{}, [2]int{}, [2]int{1, 1}, Plain},
	} {
		var got [3][2]int
		got[0][0], got[0][1] = pos.Value(tt.path)
		got[1][0], got[1][1] = pos.Key(tt.path)
		got[2][0], got[2][1] = pos.At(tt.path)
		if want := [3][2]int{tt.value, tt.key, tt.at}; got != want || pos.Style(tt.path) != tt.style {
			t.Errorf("%s: value, key, at = %v, style %d; want %v, style %d", tt.path, got, pos.Style(tt.path), want, tt.style)
		}
	}
	var none *Positions
	if l, c := none.At("$.name"); l != 0 || c != 0 || none.Style("$") != Plain {
		t.Errorf("nil Positions: %d:%d", l, c)
	}
}

func TestPaths(t *testing.T) {
	for _, tt := range []struct{ path, parent string }{
		{"$.a.b", "$.a"},
		{"$.a[3]", "$.a"},
		{"$.a['x.y']", "$.a"},
		{"$.a['x[1]']", "$.a"},
		{"$.a", "$"},
		{"$", "$"},
	} {
		if got := parentPath(tt.path); got != tt.parent {
			t.Errorf("parentPath(%q) = %q; want %q", tt.path, got, tt.parent)
		}
	}
	if got := KeyPath("$.a", "x.y"); got != "$.a['x.y']" {
		t.Errorf("KeyPath = %q", got)
	}
	if got := KeyPath("$.a", "it's"); got != "$.a['it''s']" {
		t.Errorf("KeyPath = %q", got)
	}
	if got := IndexPath(KeyPath("$", "a-b_1"), 2); got != "$.a-b_1[2]" {
		t.Errorf("IndexPath = %q", got)
	}
	var errs Errors
	errs.Merge("$.x[2]", Errors{{Path: "$", Msg: "a"}, {Path: "$.p", Msg: "b"}})
	errs.Merge("$.y", errors.New("c"))
	errs.Merge("$.z", nil)
	errs.Merge("", &FieldError{Path: "q", Msg: "d"})
	want := Errors{{"$.x[2]", "a"}, {"$.x[2].p", "b"}, {"$.y", "c"}, {"$.q", "d"}}
	if !reflect.DeepEqual(errs, want) {
		t.Errorf("Merge = %+v; want %+v", errs, want)
	}
	if got := errs.Error(); got != "x[2]: a\nx[2].p: b\ny: c\nq: d" {
		t.Errorf("Errors.Error() = %q", got)
	}
	if (Errors{}).Err() != nil {
		t.Error("empty Errors.Err() is not nil")
	}
	if got := (&Error{Msg: "m"}).Error(); got != "<input>: m" {
		t.Errorf("Error without a file = %q", got)
	}
}

func TestSuggest(t *testing.T) {
	known := []string{"start", "duration", "tick", "service_time", "rate"}
	for key, want := range map[string]string{
		"tik":                    "tick",
		"Tick":                   "tick",
		"durration":              "duration",
		"durtion":                "duration",
		"rte":                    "rate",
		"dur":                    "",
		"servicetime":            "service_time",
		"service_tim":            "service_time",
		"servce_tme":             "service_time",
		"colour":                 "",
		"x":                      "",
		"serv":                   "",
		"service_ti":             "service_time",
		"stat":                   "start",
		"tickle":                 "tick",
		"time":                   "", // two edits in a short word: too far
		strings.Repeat("a", 100): "",
	} {
		if got := Suggest(key, known); got != want {
			t.Errorf("Suggest(%q) = %q; want %q", key, got, want)
		}
	}
	if got := Suggest("a", nil); got != "" {
		t.Errorf("Suggest with nothing known = %q", got)
	}
}

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"tick", "tik", 1}, {"kitten", "sitting", 3}, {"abc", "", 3}, {"é", "e", 1}} {
		if got := editDistance(tt.a, tt.b); got != tt.d {
			t.Errorf("editDistance(%q, %q) = %d; want %d", tt.a, tt.b, got, tt.d)
		}
	}
	if editDistance(strings.Repeat("a", 100), "a") != math.MaxInt {
		t.Error("long keys are compared")
	}
}

func TestFields(t *testing.T) {
	var names []string
	for _, f := range Fields(reflect.TypeFor[testDoc]()) {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, " "); got != "name seed count ratio on clock classes labels span level extra wait when pair plain inlined" {
		t.Errorf("Fields = %s", got)
	}
	f := Fields(reflect.TypeFor[testDoc]())
	if ft := reflect.TypeFor[testDoc]().FieldByIndex(f[len(f)-1].Index); ft.Name != "Inlined" {
		t.Errorf("last field is %s", ft.Name)
	}
}

func BenchmarkUnmarshal(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("name: bench\nclock: {start: 2026-03-10T14:00:00Z, tick: 1s}\nclasses:\n")
	for i := range 200 {
		fmt.Fprintf(&sb, "  - name: c%d\n    share: 0.%d\n", i, i%10)
	}
	data := []byte(sb.String())
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var d testDoc
		if err := Unmarshal("bench.yaml", data, &d); err != nil {
			b.Fatal(err)
		}
	}
}
