package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/report"
	"github.com/goodput-lab/goodput/scenario"
)

func TestParseReplayFlags(t *testing.T) {
	tests := []struct {
		args []string
		want replayFlags
		err  string
	}{
		{args: []string{"a.yaml"}, want: replayFlags{file: "a.yaml"}},
		{args: []string{"--seed", "7", "a.yaml"}, want: replayFlags{file: "a.yaml", seed: 7, seedSet: true}},
		{args: []string{"a.yaml", "--seed=0", "--out", "dir", "--json"}, want: replayFlags{file: "a.yaml", seedSet: true, out: "dir", json: true}},
		{args: []string{"-quiet", "a.yaml", "-out", "d"}, want: replayFlags{file: "a.yaml", out: "d", quiet: true}},
		{args: nil, err: "replay needs a scenario file"},
		{args: []string{"a.yaml", "b.yaml"}, err: "replay takes one scenario file, got 2: a.yaml b.yaml"},
		{args: []string{"a.yaml", "--bogus"}, err: "flag provided but not defined: -bogus"},
		{args: []string{"--seed", "x", "a.yaml"}, err: `invalid value "x" for flag -seed`},
	}
	for _, tt := range tests {
		var stderr bytes.Buffer
		got, err := parseReplayFlags(tt.args, &stderr)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, errUsage) {
				t.Errorf("%q: error %v, want a usage error containing %q", tt.args, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(replayFlags{})); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.args, diff)
		}
	}
}

func TestReplayHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := replay(context.Background(), []string{"-h"}, &stdout, &stderr, fakeEnv(t, nil)); err != nil {
		t.Fatalf("-h: %v", err)
	}
	if !strings.Contains(stderr.String(), "usage: goodput replay FILE.scenario.yaml") || stdout.Len() != 0 {
		t.Errorf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
}

// fakePacket is what the fake model returns: a small recording whose figures depend on the
// seed, so the tests can see which seed was used.
func fakePacket(sc *scenario.Scenario, seed uint64) *packet.Packet {
	p := &packet.Packet{Scenario: sc.Name, Seed: seed}
	for _, name := range []string{"baseline", "protected"} {
		r := packet.NewRecorder(packet.Config{Arm: name, Duration: 2 * time.Second, Tick: time.Second})
		for i := range 10 + int(seed) {
			at := time.Duration(i) * 100 * time.Millisecond
			r.Offered(at, "checkout")
			r.Admitted(at, "checkout")
			r.Attempt(at, "edge")
			r.Terminal(at+50*time.Millisecond, "checkout", packet.Goodput, 50*time.Millisecond)
		}
		r.Annotate(time.Second, "fault", "slowdown")
		p.Arms = append(p.Arms, r.Finish(nil))
	}
	return p
}

// fakeEnv loads a scenario named "fake" with seed 5 from any path and runs the fake model,
// recording the seed it was given; mutate, if not nil, changes the packet.
func fakeEnv(t *testing.T, mutate func(*packet.Packet)) replayEnv {
	return replayEnv{
		load: func(path string) (*scenario.Scenario, error) {
			if path == "missing.yaml" {
				return nil, errors.New("scenario: open missing.yaml: no such file or directory")
			}
			return &scenario.Scenario{Name: "fake", Seed: 5}, nil
		},
		run: func(ctx context.Context, sc *scenario.Scenario, seed uint64, progress func(done, total time.Duration)) (*packet.Packet, error) {
			if progress != nil {
				t.Error("a progress function was passed although stderr is not a terminal")
			}
			p := fakePacket(sc, seed)
			if mutate != nil {
				mutate(p)
			}
			return p, nil
		},
	}
}

func TestReplayTable(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := replay(context.Background(), []string{"x.scenario.yaml"}, &stdout, &stderr, fakeEnv(t, nil)); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := report.Table(&want, fakePacket(&scenario.Scenario{Name: "fake"}, 5)); err != nil {
		t.Fatal(err)
	}
	if stdout.String() != want.String() {
		t.Errorf("stdout is not the table of the scenario's seed 5:\n%s", stdout.String())
	}
	if !strings.HasPrefix(stdout.String(), "goodput replay: fake   seed 5") {
		t.Errorf("header does not carry the seed: %q", strings.SplitN(stdout.String(), "\n", 2)[0])
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr: %q", stderr.String())
	}
}

func TestReplayJSONAndOut(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "packet")
	var stdout, stderr bytes.Buffer
	args := []string{"x.scenario.yaml", "--json", "--seed", "0", "--out", dir}
	if err := replay(context.Background(), args, &stdout, &stderr, fakeEnv(t, nil)); err != nil {
		t.Fatal(err)
	}
	p := fakePacket(&scenario.Scenario{Name: "fake"}, 0) // --seed 0 overrides the scenario's 5
	var want bytes.Buffer
	if err := p.WriteJSON(&want); err != nil {
		t.Fatal(err)
	}
	if stdout.String() != want.String() {
		t.Errorf("stdout is not exactly packet.json:\n%s", stdout.String())
	}
	got, err := os.ReadFile(filepath.Join(dir, packet.JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Error("packet.json in --out differs from stdout")
	}
	for _, name := range []string{packet.SeriesFile, packet.EventsFile} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || len(b) == 0 {
			t.Errorf("%s: %v (%d bytes)", name, err, len(b))
		}
	}
	page, err := os.ReadFile(filepath.Join(dir, report.HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	var wantPage bytes.Buffer
	if err := report.HTML(&wantPage, p); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(page, wantPage.Bytes()) {
		t.Errorf("%s in --out is not the packet's report page", report.HTMLFile)
	}
	if !strings.Contains(stderr.String(), "wrote packet.json, series.csv, events.jsonl and report.html to "+dir) {
		t.Errorf("stderr: %q", stderr.String())
	}
}

func TestReplayQuiet(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := replay(context.Background(), []string{"--quiet", "x.yaml", "--out", dir}, &stdout, &stderr, fakeEnv(t, nil)); err != nil {
		t.Fatal(err)
	}
	if stdout.Len() != 0 || stderr.Len() != 0 {
		t.Errorf("--quiet printed stdout %q stderr %q", stdout.String(), stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, packet.SeriesFile)); err != nil {
		t.Error(err)
	}
}

func TestReplayErrors(t *testing.T) {
	ctx := context.Background()
	var stdout, stderr bytes.Buffer

	err := replay(ctx, []string{"missing.yaml"}, &stdout, &stderr, fakeEnv(t, nil))
	if err == nil || !strings.Contains(err.Error(), "missing.yaml: no such file") {
		t.Errorf("missing file: %v", err)
	}

	env := fakeEnv(t, nil)
	env.run = func(context.Context, *scenario.Scenario, uint64, func(done, total time.Duration)) (*packet.Packet, error) {
		return nil, errors.New("model: stage risk has no dependency")
	}
	err = replay(ctx, []string{"x.yaml"}, &stdout, &stderr, env)
	if err == nil || err.Error() != "replay x.yaml: model: stage risk has no dependency" {
		t.Errorf("run error: %v", err)
	}

	// A broken invariant is reported after the outputs are written.
	stdout.Reset()
	env = fakeEnv(t, func(p *packet.Packet) {
		p.Arms[1].Invariants[0].Pass = false
		p.Arms[1].Invariants[0].Message = "10 ≠ 9 + 0"
	})
	err = replay(ctx, []string{"x.yaml"}, &stdout, &stderr, env)
	if err == nil || !strings.Contains(err.Error(), "invariant failed: protected: offered = admitted + rejected (10 ≠ 9 + 0)") {
		t.Errorf("invariant: %v", err)
	}
	if !strings.Contains(stdout.String(), "Failed invariants") {
		t.Error("the table was not printed before the invariant error")
	}

	// An --out path that cannot be a directory.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := replay(ctx, []string{"x.yaml", "--out", file}, &stdout, &stderr, fakeEnv(t, nil)); err == nil {
		t.Error("--out onto a regular file succeeded")
	}
}
