package yamlfile

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzSeeds are malformed and unusual inputs for FuzzUnmarshal.
var fuzzSeeds = []string{
	"",
	"\n",
	"---\n",
	"...\n",
	"null\n",
	"~",
	"[]",
	"{}",
	"name: x\n",
	"name: x\r\nclock: {tick: 1s}\r\n",
	"name: x\rseed: 1\r",
	"\ufeffname: x\n",
	"name: \x00\n",
	"name: \xff\xfe\n",
	"clock:\n\ttick: 1s\n",
	"clock:\n  tick: 1m\n start: x\n",
	"name: a\nname: b\n",
	"name: [unterminated\n",
	"name: 'unterminated\n",
	"name: \"bad \\q escape\"\n",
	"colour: blue\n",
	"clock: {tik: 1s}\n",
	"clock: {tick: 99999999999999999999h}\n",
	"clock: {start: 2026-02-30T00:00:00Z, tick: 1s}\n",
	"seed: 99999999999999999999999999\n",
	"seed: 1e400\n",
	"seed: .nan\n",
	"seed: 0x7fffffffffffffff\n",
	"count: -0\n",
	"ratio: 1_000.5\n",
	"ratio: 12,400\n",
	"span: 5-3\n",
	"span: {from: 5, to: 3}\n",
	"level: high\n",
	"a: &a [1]\nb: *a\n",
	"name: *undefined\n",
	"* 0\n\n00",
	"x: &x {<<: *x}\n",
	"clock: &c {tick: 1s}\nspan: {<<: *c}\n",
	"clock: {<<: [*nope]}\n",
	"name: !!binary aGVsbG8=\n",
	"name: !custom x\n",
	"%YAML 1.2\n---\nname: x\n",
	"%TAG ! tag:example.com,2000:\n---\nname: !foo x\n",
	"? complex\n: key\n",
	"? [a, b]\n: c\n",
	"{a: 1}: b\n",
	"labels: {~: x, 1: y}\n",
	"name: |\n  multi\n  line\n",
	"name: >-\n  folded\n",
	strings.Repeat("[", 200) + strings.Repeat("]", 200),
	strings.Repeat("{a: ", 100) + "1" + strings.Repeat("}", 100),
	strings.Repeat("- ", 200) + "x\n",
	"classes:\n" + strings.Repeat("  - name: c\n    share: 1\n", 100),
	"l0: &l0 [x, x]\nl1: &l1 [*l0, *l0]\nl2: &l2 [*l1, *l1]\nl3: &l3 [*l2, *l2]\nextra: *l3\n",
}

// FuzzUnmarshal checks that every input gets either a value or an ErrorList
// of one-line, positioned errors, and never a panic: into a typed document,
// into any, and with a Decoder that refuses nulls and aliases; and that the
// positions of a clean decode lie inside the file.
func FuzzUnmarshal(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var d testDoc
		checkErrors(t, data, Unmarshal("fuzz.yaml", data, &d))
		var g any
		checkErrors(t, data, Unmarshal("fuzz.yaml", data, &g))
		strict := Decoder{Document: "packet", Nulls: NullsRefused, NoAliases: true}
		var s testDoc
		pos, err := strict.Decode("fuzz.yaml", data, &s)
		checkErrors(t, data, err)
		if err == nil {
			lines := lineCount(data)
			for path := range pos.values {
				if l, c := pos.At(path); l < 0 || l > lines || l > 0 && c < 1 {
					t.Fatalf("%s at %d:%d outside a %d-line file", path, l, c, lines)
				}
			}
		}
	})
}

// lineCount counts lines as YAML breaks them: at \n, \r\n and a lone \r.
func lineCount(data []byte) int {
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	return strings.Count(s, "\n") + strings.Count(s, "\r") + 1
}

// checkErrors checks the shape of a decoding error: an ErrorList of errors on
// one line each, inside the file, each saying what is expected.
func checkErrors(t *testing.T, data []byte, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var list ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		t.Fatalf("error %T is not an ErrorList: %v", err, err)
	}
	lines := lineCount(data)
	for _, e := range list {
		msg := e.Error()
		if strings.ContainsAny(msg, "\n\r") {
			t.Fatalf("error spans lines: %q", msg)
		}
		if !strings.HasPrefix(msg, "fuzz.yaml") {
			t.Fatalf("error without the file name: %q", msg)
		}
		if e.Line < 0 || e.Line > lines || e.Line > 0 && e.Column < 1 {
			t.Fatalf("position %d:%d outside a %d-line file: %q", e.Line, e.Column, lines, msg)
		}
		if !strings.Contains(e.Msg, "; ") || !containsAny(e.Msg, "expected", "e.g.", "did you mean", "stopping here") {
			t.Fatalf("error does not say what is expected: %q", msg)
		}
		if !utf8.ValidString(msg) && utf8.Valid(data) {
			t.Fatalf("error is not UTF-8: %q", msg)
		}
	}
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
