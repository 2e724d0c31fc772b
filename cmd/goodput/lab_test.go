package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-lab/goodput/live/lab"
	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/report"
)

var loopScenario = filepath.Join("..", "..", "live", "lab", "testdata", "loop.scenario.yaml")

// partsScenario is 4 s of load: goodput lab with its parts in processes of their own.
var partsScenario = filepath.Join("testdata", "lab-parts.scenario.yaml")

// mainEnv, set to 1, makes the test binary run main instead of the tests: it is goodput.
const mainEnv = "GOODPUT_TEST_MAIN"

// TestMain runs main when the test binary is re-executed as goodput: by a test (mainEnv) or
// by goodput lab, which starts its parts as `goodput lab part` with lab.PartEnv set.
func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" || os.Getenv(lab.PartEnv) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestLabUsage gives 'goodput lab' command lines it must refuse as usage errors.
func TestLabUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no file", []string{"lab"}, "lab takes one scenario file, got 0"},
		{"two files", []string{"lab", loopScenario, loopScenario}, "lab takes one scenario file, got 2"},
		{"bad flag", []string{"lab", loopScenario, "--nope"}, "flag provided but not defined: -nope"},
		{"malformed database URL", []string{"lab", loopScenario, "--db", "postgres://u@[::1/db"}, "lab: --db: database URL"},
		{"unknown arm", []string{"lab", loopScenario, "--arms", "baseline,nope"}, `has no arm "nope"; expected one of baseline, protected`},
		{"empty arm", []string{"lab", loopScenario, "--arms", "baseline,"}, "expected arm names separated by commas"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(tc.args, &stdout, &stderr)
			if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v (exit %d); expected a usage error containing %q", err, exitCode(err), tc.want)
			}
		})
	}
	var stdout, stderr bytes.Buffer
	if err := run([]string{"lab", "-h"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"usage: goodput lab FILE.scenario.yaml", "-with-replay", "Exit status:"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("lab -h lacks %q:\n%s", want, stderr.String())
		}
	}
}

// TestLabInterrupted runs 'goodput lab' with its context already ended: an error, every
// part stopped and no packet directory.
func TestLabInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(t.TempDir(), "packet")
	var stdout, stderr bytes.Buffer
	err := labCommand(ctx, []string{loopScenario, "--out", out}, &stdout, &stderr, lab.Options{})
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("err %v; expected an interrupted run", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the packet directory exists after an interrupted run: %v", err)
	}
}

// TestLabWithReplay runs one arm of the short scenario live with its replay and reads the
// packet directory back: the live arm and its replay, each with its source, and the page.
func TestLabWithReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 12 s of live load")
	}
	out := filepath.Join(t.TempDir(), "packet")
	var stdout, stderr bytes.Buffer
	if err := run([]string{"lab", loopScenario, "--arms", "protected", "--with-replay", "--out", out}, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	p, err := packet.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range p.Arms {
		got = append(got, a.Name+":"+a.Source)
	}
	if strings.Join(got, " ") != "protected:live protected_replay:replay" {
		t.Errorf("arms %v; expected protected:live protected_replay:replay", got)
	}
	if _, err := os.Stat(filepath.Join(out, report.HTMLFile)); err != nil {
		t.Error(err)
	}
	for _, want := range []string{"protected_replay", "Replay against the live run"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, stdout.String())
		}
	}
}
