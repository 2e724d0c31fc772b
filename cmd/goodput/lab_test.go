package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

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

// goodputCommand is the test binary run as goodput with args, bounded by ctx.
func goodputCommand(t *testing.T, ctx context.Context, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// partPIDs are the pids goodput lab's log names for its parts, as it starts them.
var partPIDs = regexp.MustCompile(`pid (\d+)`)

// labPIDs reads goodput lab's stderr r line by line into log until it has named the parts
// of arms arms and, with load, the last of them has started its load; it returns their
// pids.
func labPIDs(t *testing.T, r io.Reader, log *strings.Builder, arms int, load bool) []int {
	t.Helper()
	var pids []int
	sc := bufio.NewScanner(r)
	for seen := 0; sc.Scan(); {
		line := sc.Text()
		fmt.Fprintln(log, line)
		switch {
		case strings.Contains(line, "parts in processes of their own"):
			seen++
			for _, m := range partPIDs.FindAllStringSubmatch(line, -1) {
				pid, _ := strconv.Atoi(m[1])
				pids = append(pids, pid)
			}
			if seen == arms && !load {
				return pids
			}
		case seen == arms && strings.Contains(line, "the load runs from t0"):
			return pids
		}
	}
	return pids
}

// alive reports whether pid is a process that has not exited (a zombie has).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !errors.Is(err, os.ErrNotExist) && runtime.GOOS != "linux"
	}
	// pid (comm) STATE …: the state follows the last ')'.
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// TestLabParts runs goodput lab on 4 s of load per arm with its parts in processes of
// their own: the packet has the CPU of the proxies and stubs and of the service, apart
// from the generator's, and no part is running after it.
func TestLabParts(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 8 s of live load")
	}
	if runtime.GOOS != "linux" {
		t.Skip("finds the parts by pid in /proc")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out := filepath.Join(t.TempDir(), "packet")
	cmd := goodputCommand(t, ctx, "lab", partsScenario, "--out", out)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	pids := labPIDs(t, stderr, &log, 2, false)
	rest, _ := io.ReadAll(stderr)
	log.Write(rest)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("goodput lab: %v\n%s", err, log.String())
	}
	if len(pids) != 2*5 {
		t.Errorf("pids %v; expected 5 parts per arm (2 stubs, 2 proxies, the service) for 2 arms:\n%s", pids, log.String())
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("part pid %d is still running after goodput lab", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	p, err := packet.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Arms) != 2 {
		t.Fatalf("%d arms; expected baseline and protected", len(p.Arms))
	}
	for _, a := range p.Arms {
		if a.Live == nil {
			t.Fatalf("arm %s has no live figures", a.Name)
		}
		o := a.Live.Overhead
		if o.GeneratorCPU <= 0 || o.ProxyCPU <= 0 || o.ServiceCPU <= 0 || o.ProxyCPUPerRequest <= 0 || o.ServiceCPUPerRequest <= 0 {
			t.Errorf("arm %s: overhead %+v; expected the generator's, the proxies' and the service's CPU, each above 0", a.Name, o)
		}
		if a.Totals.Goodput == 0 {
			t.Errorf("arm %s: no goodput; expected the parts to serve", a.Name)
		}
	}
}

// TestLabPartsInterrupted interrupts goodput lab once the first arm's load runs against
// its parts: it stops, writes nothing, and leaves none of its parts running.
func TestLabPartsInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("starts goodput lab's parts")
	}
	if runtime.GOOS != "linux" {
		t.Skip("finds the parts by pid in /proc")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out := filepath.Join(t.TempDir(), "packet")
	cmd := goodputCommand(t, ctx, "lab", partsScenario, "--out", out)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	pids := labPIDs(t, stderr, &log, 1, true)
	if len(pids) != 5 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("pids %v; expected the 5 parts of the first arm:\n%s", pids, log.String())
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(stderr)
	log.Write(rest)
	err = cmd.Wait()
	if err == nil || !strings.Contains(log.String(), "interrupted") {
		t.Errorf("goodput lab after an interrupt: %v; expected an interrupted run:\n%s", err, log.String())
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("part pid %d is still running after goodput lab was interrupted", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the packet directory exists after an interrupted run: %v", err)
	}
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
