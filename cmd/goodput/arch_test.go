package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
)

// TestReplayIsTheSameOnArm64 builds the command for arm64 and runs it under qemu-aarch64 on
// the single-server example, on the first two minutes of Northstar and on a heavy tail
// (testdata/heavy-tail.scenario.yaml, whose draws overflow a time.Duration): its
// packet.json, series.csv and events.jsonl must be byte-identical to this build's. Identity
// across architectures is checked rather than assumed, because the compiler fuses
// multiply-adds on arm64, math.Exp has different assembly there, and the two convert an
// out-of-range float to an integer differently. It needs qemu-aarch64 (.ci/run installs
// Debian's qemu-user) and an amd64 host, and skips otherwise and with -short.
func TestReplayIsTheSameOnArm64(t *testing.T) {
	if testing.Short() {
		t.Skip("builds for arm64 and emulates it")
	}
	if runtime.GOARCH != "amd64" {
		t.Skipf("compares arm64 with amd64; this host is %s", runtime.GOARCH)
	}
	qemu, err := exec.LookPath("qemu-aarch64")
	if err != nil {
		t.Skip("qemu-aarch64 is not installed (Debian: apt-get install qemu-user)")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the arm64 binary with")
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "goodput-arm64")
	build := exec.Command(gobin, "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "GOARCH=arm64", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build for arm64: %v\n%s", err, out)
	}

	// The first two minutes of Northstar, without what begins later (which a 2m clock
	// refuses), written as JSON, which the scenario decoder reads as YAML.
	northstar, err := scenario.Load(filepath.Join("..", "..", "examples", "northstar", "northstar.scenario.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text, err := json.Marshal(northstar.Truncate(2 * time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(tmp, "northstar-2m.scenario.yaml")
	if err := os.WriteFile(short, text, 0o644); err != nil {
		t.Fatal(err)
	}

	for _, sc := range []string{
		filepath.Join("..", "..", "examples", "single-server", "single-server.scenario.yaml"),
		short,
		filepath.Join("testdata", "heavy-tail.scenario.yaml"),
	} {
		name := strings.TrimSuffix(filepath.Base(sc), ".scenario.yaml")
		t.Run(name, func(t *testing.T) {
			native, emulated := filepath.Join(tmp, name+"-amd64"), filepath.Join(tmp, name+"-arm64")
			var stderr bytes.Buffer
			if err := replay(context.Background(), []string{sc, "--out", native, "--quiet"}, &bytes.Buffer{}, &stderr, realEnv); err != nil {
				t.Fatalf("amd64 replay: %v\n%s", err, stderr.String())
			}
			if out, err := exec.Command(qemu, bin, "replay", sc, "--out", emulated, "--quiet").CombinedOutput(); err != nil {
				t.Fatalf("arm64 replay under qemu: %v\n%s", err, out)
			}
			for _, f := range []string{packet.JSONFile, packet.SeriesFile, packet.EventsFile} {
				a, errA := os.ReadFile(filepath.Join(native, f))
				b, errB := os.ReadFile(filepath.Join(emulated, f))
				if errA != nil || errB != nil {
					t.Fatalf("%s: %v, %v", f, errA, errB)
				}
				if !bytes.Equal(a, b) {
					t.Errorf("%s differs between amd64 and arm64 (%d and %d bytes; first difference at byte %d)", f, len(a), len(b), firstDiff(a, b))
				}
			}
		})
	}
}

// firstDiff is the index of the first byte where a and b differ.
func firstDiff(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
