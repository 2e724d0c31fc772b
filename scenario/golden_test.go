package scenario

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden error files in testdata/invalid")

// scenarioFiles lists the valid test scenarios and every example scenario in
// the repository (../examples/**/*.scenario.yaml).
func scenarioFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/valid/*.scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_ = filepath.WalkDir("../examples", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".scenario.yaml") {
			files = append(files, path)
		}
		return nil
	})
	return files
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestValidScenarios decodes the valid test scenarios and the examples.
func TestValidScenarios(t *testing.T) {
	for _, f := range scenarioFiles(t) {
		if _, err := Load(f); err != nil {
			t.Errorf("Load(%s):\n%v", f, err)
		}
	}
}

// TestNorthstarSketch spot-checks values decoded from the format contract's sketch.
func TestNorthstarSketch(t *testing.T) {
	s, err := Load("testdata/valid/northstar-sketch.scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"start", s.Clock.Start.Time(), time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC)},
		{"duration", s.Clock.Duration.Std(), 40 * time.Minute},
		{"rate", s.Load.Schedule[0].Rate.PerSecond(), 9000.0},
		{"share", float64(s.Classes[0].Share), 0.85},
		{"deadline", s.Classes[0].Deadline.Std(), 1800 * time.Millisecond},
		{"work", s.Classes[0].Stages[0].Work.Quantile(0.5), 4 * time.Millisecond},
		{"exponential work", s.Classes[0].Stages[5].Work.Kind(), DistExponential},
		{"service time", s.Topology.Dependencies[0].ServiceTime, Quantiles{P50: Duration(38 * time.Millisecond), P99: Duration(95 * time.Millisecond)}},
		{"fault service time", s.Faults[0].ServiceTime.P99.Std(), 410 * time.Millisecond},
		{"shift", float64(s.Faults[1].Shift.Rate), 1.15},
		{"cold", float64(s.Topology.Services[0].Cold.RateFactor), 0.43},
		{"budget", float64(s.Arms[1].Policy.Retries.Budget.Ratio), 0.02},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v; want %v", c.name, c.got, c.want)
		}
	}
}

// TestCacheScenario spot-checks the memory and cache values of the cache example.
func TestCacheScenario(t *testing.T) {
	s, err := Load("testdata/valid/cache.scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"limit", s.Topology.Services[0].Memory.Limit, Size(512 << 20)},
		{"per attempt", s.Topology.Services[0].Memory.PerAttempt, Size(1 << 20)},
		{"cache", s.Topology.Caches[0], Cache{Name: "item-cache", Service: "server", Entries: 20000, EntrySize: 16 << 10}},
		{"stage cache", s.Classes[0].Stages[0].Cache, "item-cache"},
		{"keys", s.Load.Keys, Keys{Count: 100000, Zipf: 1.2}},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v; want %v", c.name, c.got, c.want)
		}
	}
}

// TestHealthScenario spot-checks the health checks of the health example.
func TestHealthScenario(t *testing.T) {
	s, err := Load("testdata/valid/health.scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"remove", s.Topology.Services[0].Health, Health{Interval: Duration(10 * time.Second), Timeout: Duration(time.Second), Failures: 3, Successes: 2, Action: HealthRemove}},
		{"restart", s.Topology.Services[1].Health, Health{Interval: Duration(5 * time.Second), Timeout: Duration(2 * time.Second), Action: HealthRestart, Restart: Duration(15 * time.Second)}},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %+v; want %+v", c.name, c.got, c.want)
		}
	}
}

// TestInvalidScenarios compares the errors of each file in testdata/invalid
// with its golden .err file; run with -update to rewrite them.
func TestInvalidScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/invalid/*.scenario.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no invalid scenarios: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			s, err := Load(f)
			if err == nil {
				t.Fatalf("decoded %+v; want an error", s)
			}
			got := err.Error() + "\n"
			golden := strings.TrimSuffix(f, ".scenario.yaml") + ".err"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want := string(mustRead(t, golden)); got != want {
				t.Errorf("errors of %s:\n%s\nwant (%s):\n%s", f, got, golden, want)
			}
			for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
				if !strings.HasPrefix(line, f+":") {
					t.Errorf("line does not start with the file name: %s", line)
				}
			}
		})
	}
}
