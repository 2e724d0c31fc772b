package scenario

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/control/budget"
)

// TestBackoffForms decodes a retry's backoff in both forms: a duration is a constant delay
// (0s none), a mapping an exponential one with its defaults (multiplier 2, no cap, no
// jitter); and each form encodes to JSON and back, through --set too, to what it was.
func TestBackoffForms(t *testing.T) {
	const old = "retries: {max: 1, on: [timeout]}"
	for _, tc := range []struct {
		name, backoff string
		want          Backoff
		exp           budget.Exponential
		text          string
	}{
		{"none", "0s", Backoff{}, budget.Exponential{Multiplier: 2}, "0s"},
		{"constant", "100ms", Backoff{Initial: Duration(100 * time.Millisecond), Multiplier: 1}, budget.Exponential{Base: 100 * time.Millisecond, Multiplier: 1}, "100ms"},
		{"exponential by default", "{initial: 100ms}", Backoff{Initial: Duration(100 * time.Millisecond)}, budget.Exponential{Base: 100 * time.Millisecond, Multiplier: 2}, "{initial: 100ms}"},
		{"every field of a retry's", "{initial: 100ms, multiplier: 3, max: 2s, jitter: full}",
			Backoff{Initial: Duration(100 * time.Millisecond), Multiplier: 3, Max: Duration(2 * time.Second), Jitter: JitterFull},
			budget.Exponential{Base: 100 * time.Millisecond, Multiplier: 3, Max: 2 * time.Second, Jitter: budget.FullJitter},
			"{initial: 100ms, multiplier: 3, max: 2s, jitter: full}"},
		{"equal jitter", "{initial: 1s, jitter: equal}", Backoff{Initial: Duration(time.Second), Jitter: JitterEqual}, budget.Exponential{Base: time.Second, Multiplier: 2, Jitter: budget.EqualJitter}, "{initial: 1s, jitter: equal}"},
		{"a mapping with multiplier 1 is constant", "{initial: 100ms, multiplier: 1}", Backoff{Initial: Duration(100 * time.Millisecond), Multiplier: 1}, budget.Exponential{Base: 100 * time.Millisecond, Multiplier: 1}, "100ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(validBase, old, "retries: {max: 1, on: [timeout], backoff: "+tc.backoff+"}", 1)
			s, err := Decode("case.yaml", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			got := s.Topology.Entries[0].Retries.Backoff
			if got != tc.want {
				t.Fatalf("decoded %+v, want %+v", got, tc.want)
			}
			if e := got.Exponential(); e != tc.exp {
				t.Errorf("Exponential() = %+v, want %+v", e, tc.exp)
			}
			if s := got.String(); s != tc.text {
				t.Errorf("String() = %q, want %q", s, tc.text)
			}
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			var back Backoff
			if err := json.Unmarshal(b, &back); err != nil || back != got {
				t.Errorf("JSON %s decodes to %+v (%v), want %+v", b, back, err, got)
			}
			// Through an override: the scenario is encoded as JSON and decoded as YAML.
			w, err := s.With(Override{Path: "topology.entries.web.retries.max", Value: "2"})
			if err != nil {
				t.Fatal(err)
			}
			if b := w.Topology.Entries[0].Retries.Backoff; b != got {
				t.Errorf("after --set: %+v, want %+v", b, got)
			}
		})
	}
	// A restart's backoff written as a duration is a constant delay too.
	src := strings.Replace(validBase, "memory: {limit: 64MiB, per_attempt: 1MiB}}", "memory: {limit: 64MiB, per_attempt: 1MiB}, health: {interval: 10s, timeout: 1s, action: restart, backoff: 30s}}", 1)
	s, err := Decode("case.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Topology.Services[0].Health.Backoff, (Backoff{Initial: Duration(30 * time.Second), Multiplier: 1}); got != want {
		t.Errorf("health backoff %+v, want %+v", got, want)
	}
}

// TestBackoffErrors checks that a bad backoff is reported at its file:line:col with what
// is expected.
func TestBackoffErrors(t *testing.T) {
	const entry = "retries: {max: 1, on: [timeout]}"
	const dep = "pool: {per_instance: 2}, timeout: 100ms}"
	const svc = "memory: {limit: 64MiB, per_attempt: 1MiB}}"
	health := func(b string) string {
		return "memory: {limit: 64MiB, per_attempt: 1MiB}, health: {interval: 10s, timeout: 1s, action: restart, backoff: " + b + "}}"
	}
	for _, tc := range []struct{ name, old, new, path, msg string }{
		{"negative duration", entry, "retries: {max: 1, backoff: -1s}", "$.topology.entries[0].retries.backoff", "backoff is -1s; expected zero or more"},
		{"not a duration", entry, "retries: {max: 1, backoff: fast}", "$.topology.entries[0].retries.backoff", `invalid duration "fast"`},
		{"unknown key", entry, "retries: {max: 1, backoff: {initial: 1s, cap: 2s}}", "$.topology.entries[0].retries.backoff", `unknown key "cap"`},
		{"no initial", entry, "retries: {max: 1, backoff: {max: 2s}}", "$.topology.entries[0].retries.backoff.initial", "initial is 0s; expected a positive delay before the first retry, e.g. 100ms"},
		{"negative initial", entry, "retries: {max: 1, backoff: {initial: -1s}}", "$.topology.entries[0].retries.backoff.initial", "initial is -1s; expected a positive delay"},
		{"multiplier below 1", entry, "retries: {max: 1, backoff: {initial: 1s, multiplier: 0.5}}", "$.topology.entries[0].retries.backoff.multiplier", "multiplier is 0.5; expected 1 (a constant delay) to 10"},
		{"multiplier above 10", dep, "pool: {per_instance: 2}, timeout: 100ms, retries: {max: 1, backoff: {initial: 1ms, multiplier: 11}}}", "$.topology.dependencies[0].retries.backoff.multiplier", "multiplier is 11; expected 1 (a constant delay) to 10"},
		{"unknown jitter", entry, "retries: {max: 1, backoff: {initial: 1s, jitter: half}}", "$.topology.entries[0].retries.backoff.jitter", `unknown jitter "half"; expected none, full or equal`},
		{"max under initial", entry, "retries: {max: 1, backoff: {initial: 1s, max: 500ms}}", "$.topology.entries[0].retries.backoff.max", "max is 500ms; expected zero (no cap) or a delay of at least initial (1s)"},
		{"negative max", entry, "retries: {max: 1, backoff: {initial: 1s, max: -1s}}", "$.topology.entries[0].retries.backoff.max", "max is -1s; expected zero"},
		{"reset on a retry", entry, "retries: {max: 1, backoff: {initial: 1s, reset: 1m}}", "$.topology.entries[0].retries.backoff.reset", "expected reset only in a health check's backoff"},
		{"growth beyond the clock", entry, "retries: {max: 10, backoff: {initial: 1h, multiplier: 10}}", "$.topology.entries[0].timeout", "11 attempts of timeout 300ms and backoff {initial: 1h, multiplier: 10} last beyond the clock's range"},
		{"restart jitter", svc, health("{initial: 10s, jitter: most}"), "$.topology.services[0].health.backoff.jitter", `unknown jitter "most"`},
		{"restart multiplier", svc, health("{initial: 10s, multiplier: 0}"), "", ""}, // 0 is the default: valid
		{"restart negative", svc, health("-10s"), "$.topology.services[0].health.backoff", "backoff is -10s; expected zero or more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(validBase, tc.old, tc.new, 1)
			if src == validBase {
				t.Fatalf("case does not change the scenario: %q not found", tc.old)
			}
			_, err := Decode("case.yaml", []byte(src))
			if tc.path == "" {
				if err != nil {
					t.Errorf("rejected:\n%v", err)
				}
				return
			}
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("Decode() = %v; want an ErrorList", err)
			}
			for _, e := range list {
				if e.Path == tc.path && strings.Contains(e.Msg, tc.msg) {
					if e.Line == 0 {
						t.Errorf("%s has no position: %v", tc.path, e)
					}
					return
				}
			}
			t.Errorf("no error at %s containing %q; got:\n%v", tc.path, tc.msg, err)
		})
	}
}

// TestBackoffValidateInGo checks that a scenario built in Go, not decoded, is checked as a
// file is: Validate reports a bad backoff at its path.
func TestBackoffValidateInGo(t *testing.T) {
	s, err := Decode("base.yaml", []byte(validBase))
	if err != nil {
		t.Fatal(err)
	}
	s.Topology.Dependencies[0].Retries = Retries{Max: 1, Backoff: Backoff{Initial: Duration(time.Millisecond), Multiplier: 20, Jitter: "some"}}
	err = s.Validate()
	for _, want := range []string{"topology.dependencies[0].retries.backoff.multiplier: multiplier is 20", "topology.dependencies[0].retries.backoff.jitter: unknown jitter"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v; want an error at %s", err, want)
		}
	}
}

// TestBackoffSchema checks that the schema documents both forms of a backoff, with the
// fields' doc comments.
func TestBackoffSchema(t *testing.T) {
	s := loadSchema(t)
	def, ok := s["$defs"].(map[string]any)["Backoff"].(map[string]any)
	if !ok {
		t.Fatal("no $defs.Backoff")
	}
	forms, _ := def["oneOf"].([]any)
	if len(forms) != 2 {
		t.Fatalf("Backoff has %d forms, want a duration and a mapping", len(forms))
	}
	obj := forms[1].(map[string]any)
	props := obj["properties"].(map[string]any)
	for _, key := range []string{"initial", "multiplier", "max", "jitter", "reset"} {
		p, ok := props[key].(map[string]any)
		if d, _ := p["description"].(string); !ok || d == "" {
			t.Errorf("backoff.%s undocumented: %v", key, props[key])
		}
	}
	if d, _ := def["description"].(string); !strings.Contains(d, "duration or as a mapping") {
		t.Errorf("Backoff's description %q", d)
	}
}
