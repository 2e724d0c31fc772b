package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/report"
	"github.com/goodput-lab/goodput/scenario"
)

// realEnv is the production environment minus the progress bar.
var realEnv = replayEnv{load: scenario.Load, run: runModel}

const smallScenario = "testdata/small.scenario.yaml"

// TestReplayEndToEnd runs a small scenario through the model: the table prints, the packet
// directory is written, every invariant holds, and the arms saw the same offered load.
func TestReplayEndToEnd(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := replay(context.Background(), []string{smallScenario, "--out", dir}, &stdout, &stderr, realEnv); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "goodput replay: small   seed 3") {
		t.Errorf("table header: %q", strings.SplitN(stdout.String(), "\n", 2)[0])
	}
	b, err := os.ReadFile(filepath.Join(dir, packet.JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var p packet.Packet
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	if p.Scenario != "small" || p.Seed != 3 || len(p.Arms) != 2 {
		t.Fatalf("packet: scenario %q seed %d, %d arms", p.Scenario, p.Seed, len(p.Arms))
	}
	for _, a := range p.Arms {
		if a.Totals.Offered == 0 {
			t.Errorf("%s: nothing offered", a.Name)
		}
		for _, inv := range a.Invariants {
			if !inv.Pass {
				t.Errorf("%s: invariant %s: %s", a.Name, inv.Name, inv.Message)
			}
		}
	}
	if p.Arms[0].Totals.Offered != p.Arms[1].Totals.Offered {
		t.Errorf("offered differs between arms: %d and %d", p.Arms[0].Totals.Offered, p.Arms[1].Totals.Offered)
	}
	series, err := os.ReadFile(filepath.Join(dir, packet.SeriesFile))
	if err != nil {
		t.Fatal(err)
	}
	if rows := strings.Count(string(series), "\n"); rows < 1+2*60 {
		t.Errorf("series.csv has %d lines, want a header and at least 60 ticks for each of 2 arms", rows)
	}
	page, err := os.ReadFile(filepath.Join(dir, report.HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<h1>small</h1>", `id="chart-goodput"`, `id="chart-queue-age"`} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("%s lacks %s", report.HTMLFile, want)
		}
	}
	if !strings.Contains(stderr.String(), "wrote packet.json") {
		t.Errorf("stderr: %q", stderr.String())
	}
}

// TestReplayExample replays the first 80 seconds of the single-server example (its slowdown
// starts at 1m; the whole five minutes take too long under -race): both arms see the same
// offered load and every invariant holds.
func TestReplayExample(t *testing.T) {
	path := filepath.Join("..", "..", "examples", "single-server", "single-server.scenario.yaml")
	if _, err := os.Stat(path); err != nil {
		t.Skip(err)
	}
	env := realEnv
	env.load = func(path string) (*scenario.Scenario, error) {
		sc, err := scenario.Load(path)
		if err == nil {
			sc = sc.Truncate(80 * time.Second)
		}
		return sc, err
	}
	var stdout, stderr bytes.Buffer
	if err := replay(context.Background(), []string{"--json", path}, &stdout, &stderr, env); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var p packet.Packet
	if err := json.Unmarshal(stdout.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Arms) < 2 {
		t.Fatalf("%d arms", len(p.Arms))
	}
	for _, a := range p.Arms {
		if a.Totals.Offered != p.Arms[0].Totals.Offered {
			t.Errorf("%s offered %d, %s offered %d", a.Name, a.Totals.Offered, p.Arms[0].Name, p.Arms[0].Totals.Offered)
		}
		for _, inv := range a.Invariants {
			if !inv.Pass {
				t.Errorf("%s: invariant %s: %s", a.Name, inv.Name, inv.Message)
			}
		}
	}
}

// TestReplayDeterministic checks that one seed gives byte-identical packets and another
// seed a different one.
func TestReplayDeterministic(t *testing.T) {
	out := func(seed string) []byte {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if err := replay(context.Background(), []string{smallScenario, "--json", "--seed", seed}, &stdout, &stderr, realEnv); err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		if stderr.Len() != 0 {
			t.Errorf("--json wrote to stderr: %q", stderr.String())
		}
		return stdout.Bytes()
	}
	a, b, c := out("11"), out("11"), out("12")
	if !bytes.Equal(a, b) {
		t.Error("two runs with seed 11 gave different packet.json")
	}
	if bytes.Equal(a, c) {
		t.Error("seeds 11 and 12 gave identical packet.json")
	}
	if !json.Valid(a) {
		t.Error("--json output is not JSON")
	}
}
