package scenario

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/goodput-lab/goodput/yamlfile"
)

func loadSchema(t *testing.T) map[string]any {
	t.Helper()
	b, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	return s
}

func TestSchemaDeterministic(t *testing.T) {
	a, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		b, _ := Schema()
		if !bytes.Equal(a, b) {
			t.Fatal("Schema() differs between calls")
		}
	}
	if !bytes.HasPrefix(a, []byte("{\n  \"")) {
		t.Errorf("schema is not indented: %.40q", a)
	}
}

// TestSchemaMatchesDecoder checks that the schema and the decoder accept the
// same keys: the top level and every object in $defs that is a struct.
func TestSchemaMatchesDecoder(t *testing.T) {
	s := loadSchema(t)
	if s["additionalProperties"] != false {
		t.Error("top level allows unknown keys")
	}
	if got, want := propertyNames(s), keysOf(reflect.TypeFor[Scenario]()); !slices.Equal(got, want) {
		t.Errorf("top-level properties %v; decoder keys %v", got, want)
	}
	for _, key := range []string{"name", "clock", "load", "classes", "topology", "faults", "arms", "objectives", "alerts", "seed"} {
		if !slices.Contains(propertyNames(s), key) {
			t.Errorf("top-level key %q missing from the schema", key)
		}
	}
	defs := s["$defs"].(map[string]any)
	types := map[string]reflect.Type{}
	collectStructs(reflect.TypeFor[Scenario](), types)
	checked := 0
	for name, def := range defs {
		typ, ok := types[name]
		d := def.(map[string]any)
		if !ok || d["type"] != "object" {
			continue
		}
		checked++
		if got, want := propertyNames(d), keysOf(typ); !slices.Equal(got, want) {
			t.Errorf("$defs.%s properties %v; decoder keys %v", name, got, want)
		}
		if d["additionalProperties"] != false {
			t.Errorf("$defs.%s allows unknown keys", name)
		}
	}
	if checked < 10 {
		t.Errorf("checked only %d struct definitions", checked)
	}
}

// TestSchemaDescriptions checks that doc comments reach the schema.
func TestSchemaDescriptions(t *testing.T) {
	s := loadSchema(t)
	if d, _ := s["description"].(string); !strings.HasPrefix(d, "Scenario is") {
		t.Errorf("top-level description %q; want the Scenario doc comment", d)
	}
	props := s["properties"].(map[string]any)
	if d, _ := props["seed"].(map[string]any)["description"].(string); !strings.Contains(d, "seed") {
		t.Errorf("seed description %q; want its field comment", d)
	}
	defs := s["$defs"].(map[string]any)
	for _, name := range []string{"Duration", "Rate", "Fraction", "Factor", "Instant", "Size", "Dist", "Quantiles"} {
		def, ok := defs[name].(map[string]any)
		if !ok {
			continue // not used by the Scenario types (yet)
		}
		if d, _ := def["description"].(string); d == "" {
			t.Errorf("$defs.%s has no description", name)
		}
	}
	// Report, without failing, fields the model has not documented.
	var missing []string
	for name, def := range defs {
		d := def.(map[string]any)
		if d["type"] != "object" || d["properties"] == nil { // nil: a mapping of any keys (Sets)
			continue
		}
		for key, p := range d["properties"].(map[string]any) {
			if desc, _ := p.(map[string]any)["description"].(string); desc == "" {
				missing = append(missing, name+"."+key)
			}
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Logf("fields without a description: %s", strings.Join(missing, ", "))
	}
}

// TestSchemaPatternsAgreeWithParsers checks that each unit type's pattern
// accepts exactly what its parser accepts, over spellings good and bad.
func TestSchemaPatternsAgreeWithParsers(t *testing.T) {
	inputs := []string{
		"350ms", "1.8s", "40m", "1h30m", "0s", "-2s", "+3s", ".5s", "5.s", "1µs", "2us", "3ns",
		"350", "0", "1.5", "ms", "1d", "1 s", "", " ", "1h 30m", "--1s", "1e3s",
		"9000/s", "420/s", "540000/min", "9k/s", "1.5K/s", "2M/h", "2.5/ms", "9_000/s", " 1 / s ",
		"9000", "9000/d", "-5/s", "fast/s", "0x10/s", "inf/s", "1e3/s", "/s", "k/s", "9m/s",
		"28%", "0.28", "100%", "120%", "-5%", "2.5%", "%", "1_0%", "1e2%", "100.0%", "100.5%", "0100%", ".5%", "5.%", "99.99%", " 7 % ",
		"115%", "1.15", "1.15x", "2×", "115%x", "x", "1.15 x", "1e3x", "-1x", "1_000%", "++1",
		"2026-03-10T14:00:00Z", "2026-03-10T15:00:00.5+01:00", "2026-03-10", "2026-03-10 14:00:00Z",
		"16KiB", "2MiB", "1.5GiB", "512B", "0B", "16kB", "16KB", "2.5MB", "1TB", "3TiB", ".5KiB", "5.KiB", " 2GiB ",
		"+1B", "-1B", "512", "16 KiB", "16kib", "1e3KiB", "KiB", "1EiB", "16Ki", "1.2.3MiB",
	}
	check := func(name string, parse func(string) error, pattern string) {
		re, err := regexp.Compile(pattern)
		if err != nil {
			t.Fatalf("%s pattern %q: %v", name, pattern, err)
		}
		for _, in := range inputs {
			parsed := parse(in) == nil
			if matched := re.MatchString(in); parsed != matched {
				t.Errorf("%s %q: parser accepts %v, pattern accepts %v", name, in, parsed, matched)
			}
		}
	}
	check("Duration", func(s string) error { _, err := ParseDuration(s); return err }, Duration(0).JSONSchema().Pattern)
	check("Rate", func(s string) error { _, err := ParseRate(s); return err }, Rate(0).JSONSchema().Pattern)
	// Fractions and factors written as text (a percentage, or a factor with x);
	// bare numbers are YAML numbers, checked by the schema's number branch.
	check("Fraction", func(s string) error {
		if !strings.HasSuffix(strings.TrimSpace(s), "%") {
			return fmt.Errorf("not a percentage")
		}
		_, err := ParseFraction(s)
		if err == nil {
			if v, _ := ParseFraction(s); v > 1 {
				return fmt.Errorf("over 100%%")
			}
		}
		return err
	}, Fraction(0).JSONSchema().OneOf[0].Pattern)
	check("Factor", func(s string) error { _, err := ParseFactor(s); return err }, Factor(0).JSONSchema().OneOf[0].Pattern)
	check("Instant", func(s string) error { _, err := ParseInstant(s); return err }, Instant{}.JSONSchema().Pattern)
	check("Size", func(s string) error { _, err := ParseSize(s); return err }, Size(0).JSONSchema().Pattern)
}

// TestExamplesMatchSchema validates the example and test scenarios against
// the schema, and decodes them.
func TestExamplesMatchSchema(t *testing.T) {
	s := loadSchema(t)
	files := scenarioFiles(t)
	if len(files) < 3 {
		t.Fatalf("found only %d scenario files", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if _, err := Load(f); err != nil {
				t.Fatalf("Load: %v", err)
			}
			var doc any
			if err := Unmarshal(f, mustRead(t, f), &doc); err != nil {
				t.Fatal(err)
			}
			v := schemaValidator{defs: s["$defs"].(map[string]any)}
			v.validate(s, doc, "$")
			for _, e := range v.errs {
				t.Error(e)
			}
		})
	}
}

// TestSchemaRejects checks that the validator (and so the schema) is not
// vacuous: documents with unknown keys or bad units fail it.
func TestSchemaRejects(t *testing.T) {
	s := loadSchema(t)
	base := string(mustRead(t, "testdata/valid/single-server.scenario.yaml"))
	for _, tt := range []struct{ from, to string }{
		{"seed: 7", "seed: 7\ncolour: blue"},
		{"rate: 80/s", "rate: 80"},
		{"deadline: 500ms", "deadline: 500"},
		{"share: 1", "share: 2"},
		{"instances: 1", "instances: one"},
		{"work: {mean: 10ms}", "work: {mean: 10ms, p50: 1ms}"},
		{"name: request", "name: request\n    colour: blue"},
	} {
		src := strings.Replace(base, tt.from, tt.to, 1)
		if src == base {
			t.Fatalf("%q not found", tt.from)
		}
		var doc any
		if err := Unmarshal("t.yaml", []byte(src), &doc); err != nil {
			t.Fatal(err)
		}
		v := schemaValidator{defs: s["$defs"].(map[string]any)}
		v.validate(s, doc, "$")
		if len(v.errs) == 0 {
			t.Errorf("schema accepts %q", tt.to)
		}
	}
}

// schemaValidator checks a decoded YAML value against the subset of JSON
// Schema that Schema() emits.
type schemaValidator struct {
	defs map[string]any
	errs []string
}

func (v *schemaValidator) fail(path, format string, args ...any) {
	v.errs = append(v.errs, path+": "+fmt.Sprintf(format, args...))
}

func (v *schemaValidator) validate(s map[string]any, x any, path string) {
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/$defs/")
		def, ok := v.defs[name].(map[string]any)
		if !ok {
			v.fail(path, "unknown $ref %s", ref)
			return
		}
		v.validate(def, x, path)
	}
	if one, ok := s["oneOf"].([]any); ok {
		n := 0
		for _, alt := range one {
			sub := schemaValidator{defs: v.defs}
			sub.validate(alt.(map[string]any), x, path)
			if len(sub.errs) == 0 {
				n++
			}
		}
		if n != 1 {
			v.fail(path, "%v matches %d of oneOf", x, n)
		}
	}
	if typ, ok := s["type"].(string); ok && !hasType(typ, x) {
		v.fail(path, "%v (%T) is not %s", x, x, typ)
		return
	}
	if enum, ok := s["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return fmt.Sprint(e) == fmt.Sprint(x) }) {
		v.fail(path, "%v is not one of %v", x, enum)
	}
	if p, ok := s["pattern"].(string); ok {
		if str, isStr := x.(string); isStr && !regexp.MustCompile(p).MatchString(str) {
			v.fail(path, "%q does not match %s", str, p)
		}
	}
	for kw, cmp := range map[string]func(a, b float64) bool{
		"minimum": func(a, b float64) bool { return a >= b },
		"maximum": func(a, b float64) bool { return a <= b },
	} {
		if lim, ok := s[kw].(json.Number); ok {
			if f, isNum := toFloat(x); isNum {
				if l, _ := lim.Float64(); !cmp(f, l) {
					v.fail(path, "%v violates %s %v", x, kw, l)
				}
			}
		}
	}
	switch x := x.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		for _, key := range sortedKeys(x) {
			p, ok := props[key]
			if !ok {
				if s["additionalProperties"] == false {
					v.fail(path, "unknown key %q", key)
				}
				continue
			}
			v.validate(p.(map[string]any), x[key], path+"."+key)
		}
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				if _, ok := x[r.(string)]; !ok {
					v.fail(path, "missing required %q", r)
				}
			}
		}
	case []any:
		if items, ok := s["items"].(map[string]any); ok {
			for i, e := range x {
				v.validate(items, e, path+"["+strconv.Itoa(i)+"]")
			}
		}
	}
}

func hasType(typ string, x any) bool {
	switch typ {
	case "object":
		_, ok := x.(map[string]any)
		return ok
	case "array":
		_, ok := x.([]any)
		return ok
	case "string":
		_, ok := x.(string)
		return ok
	case "boolean":
		_, ok := x.(bool)
		return ok
	case "number":
		_, ok := toFloat(x)
		return ok
	case "integer":
		f, ok := toFloat(x)
		return ok && f == math.Trunc(f)
	case "null":
		return x == nil
	}
	return false
}

func toFloat(x any) (float64, bool) {
	switch x := x.(type) {
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func propertyNames(s map[string]any) []string {
	props, _ := s["properties"].(map[string]any)
	var names []string
	for k := range props {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

func keysOf(t reflect.Type) []string {
	var names []string
	for _, f := range yamlfile.Fields(t) {
		names = append(names, f.Name)
	}
	slices.Sort(names)
	return names
}

// collectStructs maps the names of the struct types reachable from t (that
// the decoder decodes from mappings) to their types.
func collectStructs(t reflect.Type, out map[string]reflect.Type) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || out[t.Name()] != nil {
		return
	}
	if pt := reflect.PointerTo(t); pt.Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) && !pt.Implements(reflect.TypeFor[yamlfile.Checker]()) {
		return // decoded from text
	}
	out[t.Name()] = t
	for _, f := range yamlfile.Fields(t) {
		collectStructs(t.FieldByIndex(f.Index).Type, out)
	}
}
