//go:build unix

package lab

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/control/deadline"
	"github.com/goodput-lab/goodput/live/loadgen"
)

// partRun is a part run by runPart on goroutines of the test: its stdin, its stdout's
// messages and its end.
type partRun struct {
	addr  string
	stdin *io.PipeWriter
	msgs  chan partMsg
	done  chan error
}

func startPartRun(t *testing.T, spec partSpec) *partRun {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &partRun{addr: "http://" + ln.Addr().String(), stdin: inW, msgs: make(chan partMsg, 16), done: make(chan error, 1)}
	go func() {
		err := runPart(context.Background(), spec, ln, inR, outW)
		outW.Close()
		inR.Close()
		p.done <- err
	}()
	go func() {
		defer close(p.msgs)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m partMsg
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("the part wrote %q: %v", sc.Text(), err)
				continue
			}
			p.msgs <- m
		}
	}()
	return p
}

func (p *partRun) next(t *testing.T) partMsg {
	t.Helper()
	m, ok := <-p.msgs
	if !ok {
		t.Fatalf("the part ended: %v", <-p.done)
	}
	return m
}

// TestProxyPartDeadlines runs a proxy part and checks that it stamps each call with its
// caller's deadline from the load plan, as the generator sends it: t0 plus the planned
// request's deadline, by the order's identity (prefix-ID); a call of another order, or of
// an ID past the plan, keeps its own. At the end it reports the proxy's counters.
func TestProxyPartDeadlines(t *testing.T) {
	sc := loadLoop(t)
	var mu sync.Mutex
	got := map[string]string{}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var call struct {
			Order string `json:"order"`
		}
		_ = json.NewDecoder(r.Body).Decode(&call)
		mu.Lock()
		got[call.Order] = r.Header.Get(deadline.Header)
		mu.Unlock()
	}))
	defer up.Close()
	p := startPartRun(t, partSpec{Kind: partProxy, Scenario: loopScenario, Name: sc.Name, Seed: 11,
		Dependency: "payment", Upstream: up.URL, Identity: "lab"})
	if m := p.next(t); !m.Ready {
		t.Fatalf("first message %+v; expected ready", m)
	}
	t0 := time.Date(2026, 3, 10, 14, 0, 0, 123456789, time.UTC)
	fmt.Fprintf(p.stdin, `{"t0":%q}`+"\n", t0.Format(time.RFC3339Nano))
	if m := p.next(t); !m.Started {
		t.Fatalf("message %+v after t0; expected started", m)
	}

	plan, err := loadgen.ScenarioPlan(sc, 11)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for i := 0; i < 50; i++ {
		r, ok := plan.Next()
		if !ok {
			t.Fatal("the plan ended early")
		}
		if i%7 == 0 {
			want[fmt.Sprint("lab-", r.ID)] = deadline.FormatDeadline(t0.Add(r.Deadline))
		}
	}
	own := deadline.FormatDeadline(t0.Add(time.Hour))
	want["other-3"] = own
	want["lab-99999999"] = own
	want["lab-x"] = own
	for order := range want {
		req, _ := http.NewRequest("POST", p.addr+"/authorise", strings.NewReader(`{"order":"`+order+`"}`))
		req.Header.Set(deadline.Header, own)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	p.stdin.Close()
	end := p.next(t)
	if err := <-p.done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for order, w := range want {
		if got[order] != w {
			t.Errorf("order %s: %s %q at the stub, want %q", order, deadline.Header, got[order], w)
		}
	}
	if !end.Done || end.Proxy == nil || end.Proxy.Requests != uint64(len(want)) {
		t.Errorf("last message %+v; expected done with %d requests", end, len(want))
	}
}

// TestPartBadInput gives a part what it must refuse with a clear error.
func TestPartBadInput(t *testing.T) {
	sc := loadLoop(t)
	if err := RunPart(context.Background(), nil, strings.NewReader(""), io.Discard); err == nil || !strings.Contains(err.Error(), "expected one argument") {
		t.Errorf("no spec: %v", err)
	}
	if err := RunPart(context.Background(), []string{"{"}, strings.NewReader(""), io.Discard); err == nil || !strings.Contains(err.Error(), "the spec") {
		t.Errorf("bad JSON: %v", err)
	}
	for _, tc := range []struct {
		name  string
		spec  partSpec
		stdin string
		want  string
	}{
		{"unknown kind", partSpec{Kind: "nope", Scenario: loopScenario, Name: sc.Name}, "", `kind "nope"`},
		{"another scenario", partSpec{Kind: partStub, Stub: "risk", Scenario: loopScenario, Name: "other"}, "", `expected "other"`},
		{"no scenario", partSpec{Kind: partStub, Scenario: "testdata/none.yaml"}, "", "none.yaml"},
		{"proxy without identity", partSpec{Kind: partProxy, Scenario: loopScenario, Name: sc.Name, Dependency: "payment", Upstream: "http://127.0.0.1:1"}, "", "identity prefix"},
		{"bad start line", partSpec{Kind: partStub, Stub: "risk", Scenario: loopScenario, Name: sc.Name}, "go\n", `expected {"t0": INSTANT}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			err = runPart(context.Background(), tc.spec, ln, strings.NewReader(tc.stdin), &out)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v; expected one containing %q", err, tc.want)
			}
			if !strings.Contains(out.String(), `"error"`) {
				t.Errorf("stdout %q; expected the error as a message for the parent", out.String())
			}
		})
	}
}

// TestStartChildErrors starts parts that exit, or never serve, before they are ready: each
// is a clear error naming the part, and the one that hung is killed.
func TestStartChildErrors(t *testing.T) {
	if !canRunParts {
		t.Skip("parts run on unix")
	}
	dir := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	defer func(d time.Duration) { startTimeout = d }(startTimeout)
	startTimeout = 300 * time.Millisecond
	pid := 0 // the hung part's, killed with its process group
	for _, tc := range []struct {
		name, exe, want string
	}{
		{"exits", script("exits", "echo no such scenario >&2; exit 1"), "the stub of risk (pid "},
		{"hangs", script("hangs", "exec sleep 60"), "did not serve within 300ms"},
		{"not there", filepath.Join(dir, "none"), "the stub of risk: starting"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			c, err := startChild(context.Background(), tc.exe, "the stub of risk", partSpec{Kind: partStub}, ln)
			if err == nil {
				c.kill()
				t.Fatal("started; expected an error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v; expected one containing %q", err, tc.want)
			}
			if m := regexp.MustCompile(`pid (\d+)`).FindStringSubmatch(err.Error()); tc.name == "hangs" && m != nil {
				pid, _ = strconv.Atoi(m[1])
			}
			if tc.name == "exits" && !strings.Contains(err.Error(), "no such scenario") {
				t.Errorf("err %v; expected the part's own words", err)
			}
		})
	}
	if pid == 0 {
		t.Fatal("no pid of the hung part in its error")
	}
	if syscall.Kill(pid, 0) == nil {
		t.Errorf("the hung part (pid %d) is still there", pid)
		syscall.Kill(pid, syscall.SIGKILL)
	}
}
