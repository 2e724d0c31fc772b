//go:build unix

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

	"github.com/goodput-lab/goodput/packet"
)

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
