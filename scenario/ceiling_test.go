package scenario

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/control/deadline"
)

// ceilingBase is a valid scenario whose arm derives its call timeouts with a ceiling; each
// case of TestCeilingDecode replaces its deadline policy's line.
const ceilingBase = `name: ceiling
clock: {duration: 1m}
load: {schedule: [{at: 0s, rate: 10/s}]}
classes:
  - name: buy
    share: 100%
    deadline: 1m
    stages:
      - {name: charge, dependency: pay}
topology:
  entries:
    - {name: web, target: shop}
  services:
    - {name: shop, instances: 1, workers: 4}
  dependencies:
    - {name: pay, service_time: {p50: 10ms, p99: 40ms}, timeout: 2s}
arms:
  - name: protected
    policy:
      dependency_timeout: derived
      deadline: {propagate: true, cancel: true, reserve: 150ms, ceiling: 2s}
`

const ceilingLine = "      deadline: {propagate: true, cancel: true, reserve: 150ms, ceiling: 2s}\n"

// TestCeilingDecode is the table of what a deadline policy's ceiling decodes to, the cap
// the model applies for it, and the errors, at their file:line:col.
func TestCeilingDecode(t *testing.T) {
	for _, tt := range []struct {
		name, line string
		want       Ceiling
		cap        time.Duration
		err        string
	}{
		{"a duration", ceilingLine, Ceiling(2 * time.Second), 2 * time.Second, ""},
		{"unset: the library's default", "      deadline: {reserve: 150ms}\n", 0, deadline.DefaultCeiling, ""},
		{"0s: the default, as in the client", "      deadline: {ceiling: 0s}\n", 0, 30 * time.Second, ""},
		{"none", "      deadline: {ceiling: none}\n", CeilingNone, 0, ""},
		{"negative", "      deadline: {ceiling: -2s}\n", 0, 0,
			"a.scenario.yaml:21:27: arms[0].policy.deadline.ceiling: ceiling -2s is negative; expected a duration of zero (the default, 30s) or more, or none"},
		{"no unit", "      deadline: {ceiling: 2}\n", 0, 0,
			`a.scenario.yaml:21:27: arms[0].policy.deadline.ceiling: "2" has no unit; durations need a unit, e.g. 350ms, 1.8s or 40m, or none for no ceiling`},
		{"a fixed timeout", "      deadline: {ceiling: 2s}\n      dependency_timeout: fixed\n", 0, 0,
			"a.scenario.yaml:20:27: arms[0].policy.deadline.ceiling: a ceiling caps derived timeouts only; expected dependency_timeout: derived, or no ceiling"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(ceilingBase, ceilingLine, tt.line, 1)
			if tt.name == "a fixed timeout" {
				src = strings.Replace(src, "      dependency_timeout: derived\n", "", 1)
			}
			sc, err := Decode("a.scenario.yaml", []byte(src))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error:\n%v\nwant one containing\n%s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c := sc.Arms[0].Policy.Deadline.Ceiling
			if c != tt.want || c.Cap() != tt.cap {
				t.Errorf("ceiling %v (cap %v); want %v (cap %v)", c, c.Cap(), tt.want, tt.cap)
			}
		})
	}
}

// TestCeilingSet: --set and an arm's set: reach the ceiling by its path, none included, and
// the scenario's encoding round-trips it.
func TestCeilingSet(t *testing.T) {
	sc, err := Decode("a.scenario.yaml", []byte(ceilingBase))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		value string
		want  Ceiling
	}{
		{"none", CeilingNone},
		{"500ms", Ceiling(500 * time.Millisecond)},
		{"0s", 0},
	} {
		got, err := sc.With(Override{Path: "arms.protected.policy.deadline.ceiling", Value: tt.value})
		if err != nil {
			t.Fatalf("%s: %v", tt.value, err)
		}
		if c := got.Arms[0].Policy.Deadline.Ceiling; c != tt.want {
			t.Errorf("set %s: ceiling %v; want %v", tt.value, c, tt.want)
		}
	}
	_, err = sc.With(Override{Path: "arms.protected.policy.deadline.ceiling", Value: "-1s"})
	if err == nil || !strings.Contains(err.Error(), "ceiling -1s is negative") {
		t.Errorf("set -1s: %v; want the negative ceiling refused", err)
	}
}

// TestCeilingText: Ceiling's text round-trips, and its schema pattern accepts what its
// parser does.
func TestCeilingText(t *testing.T) {
	for _, c := range []Ceiling{0, CeilingNone, Ceiling(2 * time.Second), Ceiling(1500 * time.Millisecond)} {
		b, err := c.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseCeiling(string(b))
		if err != nil || back != c {
			t.Errorf("%v: %q parses back to %v, %v", time.Duration(c), b, time.Duration(back), err)
		}
	}
	re := regexp.MustCompile(Ceiling(0).JSONSchema().Pattern)
	for _, in := range []string{"none", "2s", "+2s", "0s", "1h30m", ".5s", "-2s", "2", "None", "none ", "nonce", "", "2 s"} {
		_, err := ParseCeiling(in)
		ok := err == nil && strings.TrimSpace(in) == in
		if matched := re.MatchString(in); ok != matched {
			t.Errorf("%q: parser accepts %v, pattern %v", in, ok, matched)
		}
	}
}
