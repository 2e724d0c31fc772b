package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzSeeds are malformed and unusual inputs for FuzzDecode, beside the
// scenario files in testdata and examples.
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
	"name: x\r\nclock: {duration: 1m}\r\n",
	"\ufeffname: x\n",
	"name: \x00\n",
	"name: \xff\xfe\n",
	"clock:\n\tduration: 1m\n",
	"clock:\n  duration: 1m\n tick: 1s\n",
	"name: a\nname: b\n",
	"name: [unterminated\n",
	"name: 'unterminated\n",
	"name: \"bad \\q escape\"\n",
	"colour: blue\n",
	"clock: {tik: 1s, duration: 40}\n",
	"clock: {duration: 1mss}\n",
	"clock: {duration: 99999999999999999999h}\n",
	"clock: {start: 2026-02-30T00:00:00Z}\n",
	"seed: 99999999999999999999999999\n",
	"seed: -1\n",
	"seed: 1e400\n",
	"seed: .nan\n",
	"seed: 0x7fffffffffffffff\n",
	"trials: 1e18\n",
	"load: {schedule: [{at: 0s, rate: 1e308M/ns}]}\n",
	"load: {schedule: [{at: -1s, rate: -1/s}]}\n",
	"classes: [{share: 1e-400%}]\n",
	"classes: [{share: 100.000000000000001%}]\n",
	"classes: [{stages: [{work: {p50: 1ns, p99: 9999999h}}]}]\n",
	"a: &a [1]\nb: *a\n",
	"name: *undefined\n",
	"x: &x {<<: *x}\n",
	"clock: &c {duration: 1m}\nload: {<<: *c}\n",
	"clock: {<<: [*nope]}\n",
	"name: !!binary aGVsbG8=\n",
	"name: !custom x\n",
	"%YAML 1.2\n---\nname: x\n",
	"%TAG ! tag:example.com,2000:\n---\nname: !foo x\n",
	"? complex\n: key\n",
	"? [a, b]\n: c\n",
	"{a: 1}: b\n",
	"name: |\n  multi\n  line\n",
	"name: >-\n  folded\n",
	strings.Repeat("[", 200) + strings.Repeat("]", 200),
	strings.Repeat("{a: ", 100) + "1" + strings.Repeat("}", 100),
	strings.Repeat("- ", 200) + "x\n",
	"classes:\n" + strings.Repeat("  - name: c\n    share: 1%\n", 100),
	"l0: &l0 [x, x]\nl1: &l1 [*l0, *l0]\nl2: &l2 [*l1, *l1]\nl3: &l3 [*l2, *l2]\nname: *l3\n",
	"arms: [{name: a, policy: {retries: {mode: budget, budget: {ratio: 200%}}}}]\n",
	"objectives: [{name: o, metric: latency_p99, max: 1800}]\n",
	"objectives: [{name: o, metric: latency_p99, max: {ms: 1}}]\n",
	"faults: [{at: 0s, shift: {rate: -5%}}]\n",
	"topology: {services: [{name: s, instances: 1e6, workers: 1.5}]}\n",
	"topology: {services: [{name: s, memory: {limit: 1.5 GiB, per_attempt: 0.3B}}]}\n",
	"topology: {services: [{name: s, memory: {limit: 9223372036854775807B, per_attempt: 8388608TiB}}]}\n",
	"topology: {caches: [{name: c, service: s, entries: 1e9, entry_size: -1KiB}, {name: c, entries: 0, entry_size: [1]}]}\n",
	"classes: [{stages: [{name: s, work: 1ms, cache: c, mutation: order_commit}]}]\n",
	"topology: {services: [{name: s, health: {interval: -1ns, timeout: 2562047h, failures: -9223372036854775808, successes: 1e3, action: [remove]}}]}\n",
	"topology: {services: [{name: s, health: {}}, {name: t, health: ~}, {name: u, health: {interval: 0s, restart: 1ns, colour: x}}]}\n",
}

func addSeeds(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	var files []string
	for _, dir := range []string{"testdata/valid", "testdata/invalid"} {
		m, _ := filepath.Glob(filepath.Join(dir, "*.scenario.yaml"))
		files = append(files, m...)
	}
	_ = filepath.WalkDir("../examples", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".scenario.yaml") {
			files = append(files, path)
		}
		return nil
	})
	for _, f2 := range files {
		if b, err := os.ReadFile(f2); err == nil {
			f.Add(b)
		}
	}
}

// FuzzDecode checks that every input gets either a scenario or an ErrorList
// of one-line, positioned errors, and never a panic; and the same for the
// decoder's generic paths (maps, arrays, untyped values) through testDoc and any.
func FuzzDecode(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Decode("fuzz.yaml", data)
		if (s == nil) == (err == nil) {
			t.Fatalf("Decode returned scenario %v and error %v", s != nil, err)
		}
		checkErrors(t, data, err)

		var d testDoc
		checkErrors(t, data, Unmarshal("fuzz.yaml", data, &d))
		var g any
		checkErrors(t, data, Unmarshal("fuzz.yaml", data, &g))
	})
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
	// YAML breaks lines at \n, \r\n and a lone \r.
	lines := strings.Count(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") + strings.Count(strings.ReplaceAll(string(data), "\r\n", "\n"), "\r") + 1
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

// FuzzUnits checks that the unit parsers never panic and that what they
// accept marshals to text that parses back to the same value.
func FuzzUnits(f *testing.F) {
	for _, s := range []string{"350ms", "1h30m", "9000/s", "9k/s", "540000/min", "28%", "0.28", "115%", "1.15x",
		"2026-03-10T14:00:00Z", "", "-", "%", "/s", "1e308M/ns", "0.000000001%", "1_0/s", "+-1", "∞"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d, err := ParseDuration(s); err == nil {
			b, _ := d.MarshalText()
			if d2, err := ParseDuration(string(b)); err != nil || d2 != d {
				t.Fatalf("Duration %q → %d → %q → %d, %v", s, d, b, d2, err)
			}
		}
		if r, err := ParseRate(s); err == nil {
			if r < 0 || r != r {
				t.Fatalf("Rate %q → %v", s, float64(r))
			}
			b, _ := r.MarshalText()
			if r2, err := ParseRate(string(b)); err != nil || r2 != r {
				t.Fatalf("Rate %q → %v → %q → %v, %v", s, float64(r), b, float64(r2), err)
			}
		}
		if x, err := ParseFraction(s); err == nil {
			if !(x >= 0 && x <= 1) {
				t.Fatalf("Fraction %q → %v", s, float64(x))
			}
			b, _ := x.MarshalText()
			if x2, err := ParseFraction(string(b)); err != nil || x2 != x {
				t.Fatalf("Fraction %q → %v → %q → %v, %v", s, float64(x), b, float64(x2), err)
			}
		}
		if x, err := ParseFactor(s); err == nil {
			if !(x >= 0) {
				t.Fatalf("Factor %q → %v", s, float64(x))
			}
			b, _ := x.MarshalText()
			if x2, err := ParseFactor(string(b)); err != nil || x2 != x {
				t.Fatalf("Factor %q → %v → %q → %v, %v", s, float64(x), b, float64(x2), err)
			}
		}
		if i, err := ParseInstant(s); err == nil {
			b, _ := i.MarshalText()
			if i2, err := ParseInstant(string(b)); err != nil || !i2.Time().Equal(i.Time()) {
				t.Fatalf("Instant %q → %v → %q → %v, %v", s, i, b, i2, err)
			}
		}
		var d Dist
		if err := d.UnmarshalText([]byte(s)); err == nil {
			if d.Kind() != DistConstant && d.Constant != 0 {
				t.Fatalf("Dist %q → %+v", s, d)
			}
		}
	})
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// FuzzWith applies one override to the single-server example: it never panics, an error
// names the override, and a success changes the scenario at the override's path and
// nowhere else (a value's text cannot reach past its own place, say by closing its flow
// and opening another key), and reads back the same when re-encoded.
func FuzzWith(f *testing.F) {
	base, err := Load(filepath.Join("..", "examples", "single-server", "single-server.scenario.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range [][2]string{
		{"load.schedule.0.rate", "700/s"},
		{"faults.0.work_factor", "140%"},
		{"topology.services.server.workers", "2"},
		{"arms.fifo.name", "plain"},
		{"arms.1.policy.queue", "{kind: age, max_age: 100ms}"},
		{"name", `"x", "description": "y"`},
		{"name", `x", "description": "y`},
		{"description", `{a: 1}, "seed": 5`},
		{"load.schedule", "[{at: 0s, rate: 1/s}]"},
		{"seed", "0x10"},
		{"name", "&a x"},
		{"name", "*a"},
		{"name", "!!binary aGk="},
		{"clock.tick", "1s # a comment"},
		{"", "1"},
		{"a..b", "1"},
		{"topology.services.nope.workers", "1"},
		{"name.x", "1"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, path, value string) {
		o := Override{Path: path, Value: value}
		got, err := base.With(o)
		if err != nil {
			if !strings.Contains(err.Error(), "--set ") {
				t.Fatalf("error does not name the override: %v", err)
			}
			return
		}
		before, after := jsonTree(t, base), jsonTree(t, got)
		idx, ok := resolve(before, strings.Split(path, "."))
		if !ok {
			return // the override made a key the scenario did not have: nothing to compare around
		}
		const blank = "\x00blank"
		b, err1 := set(before, idx, blank, "")
		a, err2 := set(after, idx, blank, "")
		if err1 != nil || err2 != nil {
			t.Fatalf("blanking %v: %v, %v", idx, err1, err2)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s changed the scenario beyond %s", o, path)
		}
		// set blanked the trees in place: compare fresh ones.
		if back, err := got.With(); err != nil || !reflect.DeepEqual(jsonTree(t, back), jsonTree(t, got)) {
			t.Fatalf("the result does not read back the same: %v", err)
		}
	})
}

// jsonTree is the scenario's JSON as a generic tree.
func jsonTree(t *testing.T, s *Scenario) any {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var tree any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&tree); err != nil {
		t.Fatal(err)
	}
	return tree
}

// resolve turns a path's list steps by name into indices, walking tree, and reports
// whether the whole path exists in it.
func resolve(tree any, path []string) ([]string, bool) {
	out := slices.Clone(path)
	n := tree
	for i, key := range path {
		switch m := n.(type) {
		case map[string]any:
			c, ok := m[key]
			if !ok {
				return nil, false
			}
			n = c
		case []any:
			j := slices.IndexFunc(m, func(e any) bool {
				em, ok := e.(map[string]any)
				return ok && em["name"] == key
			})
			if j < 0 {
				k, err := strconv.Atoi(key)
				if err != nil || k < 0 || k >= len(m) {
					return nil, false
				}
				j = k
			}
			out[i] = strconv.Itoa(j)
			n = m[j]
		default:
			return nil, false
		}
	}
	return out, true
}
