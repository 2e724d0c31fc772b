package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/goodput-lab/goodput/packet"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, rewriting it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what was written (go test -update rewrites it); got:\n%s", path, got)
	}
}

// readJUnit parses a JUnit file back.
func readJUnit(t *testing.T, path string) junitSuites {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s does not parse: %v", path, err)
	}
	return doc
}

// TestJUnit writes the JUnit report of a replay and of a sweep of the fake model, compares
// each with its golden file, parses it back and checks its counts and failures.
func TestJUnit(t *testing.T) {
	tests := []struct {
		golden string
		args   []string
		// failures by suite and test case
		failures map[string]map[string]string
	}{
		{
			golden: "junit-replay.golden", args: nil,
			failures: map[string]map[string]string{"baseline": {
				"goodput": "value 0.341, target ≥ 0.9",
				"p99":     "value 600.1 ms, target ≤ 500 ms",
				"normal":  "value at least 900 s, target ≤ 600 s",
			}},
		},
		{
			golden: "junit-sweep.golden", args: []string{"--trials", "3"},
			failures: map[string]map[string]string{
				"baseline": {
					"goodput": "failed in 3 of 3 trials (seed 5 value 0.341, seed 6 value 0.341, seed 7 value 0.341), target ≥ 0.9",
					"p99":     "failed in 3 of 3 trials (seed 5 value 600.1 ms, seed 6 value 600.1 ms, seed 7 value 600.1 ms), target ≤ 500 ms",
					"normal":  "failed in 3 of 3 trials (seed 5 value at least 900 s, seed 6 value at least 900 s, seed 7 value at least 900 s), target ≤ 600 s",
				},
				"protected": {"p99": "failed in 1 of 3 trials (seed 6 value 612.3 ms), target ≤ 500 ms"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "junit.xml")
			env, _ := gateEnv(t, nil)
			var stdout, stderr bytes.Buffer
			if err := replay(context.Background(), append([]string{"x.yaml", "--quiet", "--junit", path}, tt.args...), &stdout, &stderr, env); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tt.golden, got)

			doc := readJUnit(t, path)
			if len(doc.Suites) != 2 || doc.Suites[0].Name != "baseline" || doc.Suites[1].Name != "protected" {
				t.Fatalf("suites: %+v", doc.Suites)
			}
			tests, failures := 0, 0
			for _, s := range doc.Suites {
				if s.Tests != len(s.Cases) || s.Tests != 3+4 { // three objectives, four invariants
					t.Errorf("%s: tests=%d with %d cases", s.Name, s.Tests, len(s.Cases))
				}
				n := 0
				for _, c := range s.Cases {
					if c.ClassName != s.Name || c.Time != "0" {
						t.Errorf("%s: case %q: classname %q, time %q", s.Name, c.Name, c.ClassName, c.Time)
					}
					want, fails := tt.failures[s.Name][c.Name]
					switch {
					case fails && (c.Failure == nil || c.Failure.Message != want || c.Failure.Type != "objective"):
						t.Errorf("%s: %s: failure %+v, want message %q", s.Name, c.Name, c.Failure, want)
					case !fails && c.Failure != nil:
						t.Errorf("%s: %s: unexpected failure %+v", s.Name, c.Name, c.Failure)
					}
					if c.Failure != nil {
						n++
					}
				}
				if s.Failures != n || n != len(tt.failures[s.Name]) {
					t.Errorf("%s: failures=%d, %d failed cases, want %d", s.Name, s.Failures, n, len(tt.failures[s.Name]))
				}
				tests += s.Tests
				failures += s.Failures
			}
			if doc.Tests != tests || doc.Failures != failures || doc.Name != "goodput replay fake" {
				t.Errorf("testsuites: name %q, tests=%d failures=%d; want tests=%d failures=%d", doc.Name, doc.Tests, doc.Failures, tests, failures)
			}
		})
	}
}

// TestJUnitInvariant checks that a failed invariant is a failed test case.
func TestJUnitInvariant(t *testing.T) {
	path := filepath.Join(t.TempDir(), "junit.xml")
	env, _ := gateEnv(t, func(p *packet.Packet) {
		p.Arms[1].Invariants[0].Pass = false
		p.Arms[1].Invariants[0].Message = "10 ≠ 9 + 0"
	})
	var stdout, stderr bytes.Buffer
	if err := replay(context.Background(), []string{"x.yaml", "--quiet", "--junit", path}, &stdout, &stderr, env); exitCode(err) != 1 {
		t.Fatalf("exit %d: %v", exitCode(err), err)
	}
	c := readJUnit(t, path).Suites[1].Cases[3]
	if c.Name != "invariant: offered = admitted + rejected" || c.Failure == nil || c.Failure.Message != "10 ≠ 9 + 0" || c.Failure.Type != "invariant" {
		t.Errorf("case %+v, failure %+v", c, c.Failure)
	}
}
