package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/control/identity"
	"github.com/goodput-lab/goodput/live/faultproxy"
	"github.com/goodput-lab/goodput/scenario"
)

var riskScenario = filepath.Join("..", "..", "live", "faultproxy", "testdata", "risk.scenario.yaml")

// startProxy runs 'goodput proxy args… --upstream URL' in the background and returns its
// address and a function that stops it and returns its error, stdout and stderr.
func startProxy(t *testing.T, upstream string, args ...string) (string, func() (error, string, string)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr bytes.Buffer
	addr := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- proxy(ctx, append(args, "--upstream", upstream), &stdout, &stderr, func(a string) { addr <- a })
	}()
	var a string
	select {
	case a = <-addr:
	case err := <-done:
		cancel()
		t.Fatalf("proxy ended before listening: %v\n%s", err, stderr.String())
	case <-time.After(5 * time.Second):
		cancel()
		t.Fatal("proxy not listening within 5s")
	}
	stopped := false
	stop := func() (error, string, string) {
		stopped = true
		cancel()
		select {
		case err := <-done:
			return err, stdout.String(), stderr.String()
		case <-time.After(5 * time.Second):
			t.Fatal("proxy did not stop within 5s of its context's end")
			return nil, "", ""
		}
	}
	t.Cleanup(func() {
		if !stopped {
			stop()
		}
	})
	return a, stop
}

func TestProxyCommand(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer up.Close()
	addr, stop := startProxy(t, up.URL, riskScenario, "--dependency", "payment-risk", "--seed", "11",
		"--latency", "1ms", "--error-rate", "0%", "--concurrency", "5", "--beyond", "reject")
	client := &http.Client{}
	defer client.CloseIdleConnections()

	req, _ := http.NewRequest("GET", addr+"/score", nil)
	identity.Inject(req.Header, identity.First("o-1"))
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "ok" || resp.Header.Get(faultproxy.DelayHeader) != "1ms" {
		t.Errorf("call: %d %q %s=%q", resp.StatusCode, body, faultproxy.DelayHeader, resp.Header.Get(faultproxy.DelayHeader))
	}

	resp, err = client.Get(addr + "/_goodput/fault")
	if err != nil {
		t.Fatal(err)
	}
	var st faultproxy.FaultState
	err = json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	// The flags replace the base's service time, error rate and ceiling; the scenario's
	// windows are still ahead (the first is at 1m).
	want := faultproxy.Fault{ServiceTime: st.Fault.ServiceTime, Concurrency: 5, Beyond: faultproxy.BeyondReject}
	if err != nil || st.Source != "schedule" || st.Fault != want || st.Fault.ServiceTime.P50.Std() != time.Millisecond {
		t.Errorf("fault: %+v (%v); want %v", st, err, want)
	}

	err, stdout, stderr := stop()
	if err != nil {
		t.Fatalf("proxy: %v\n%s", err, stderr)
	}
	for _, want := range []string{"goodput proxy: listening on " + addr + ", forwarding to " + up.URL + " with payment-risk of " + riskScenario + ", seed 11\n",
		"goodput proxy: fault now: service_time p50=1ms,p99=1ms concurrency 5 (reject)\n"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	var stats faultproxy.Stats
	if err := json.Unmarshal([]byte(stdout), &stats); err != nil || stats.Requests != 1 || stats.Forwarded != 1 {
		t.Errorf("stdout: %q (%v); want the counters of one forwarded call", stdout, err)
	}
}

// Without a scenario the flags are the whole fault, and --start puts the run's time 0 in
// the past.
func TestProxyCommandFlagsOnly(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { t.Error("forwarded") }))
	defer up.Close()
	start := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	addr, stop := startProxy(t, up.URL, "--error-rate", "100%", "--error-status", "500", "--error-body", "down", "--start", start)
	resp, err := http.Get(addr + "/x")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 500 || string(body) != "down" {
		t.Errorf("call: %d %q", resp.StatusCode, body)
	}
	resp, err = http.Get(addr + "/_goodput/fault")
	if err != nil {
		t.Fatal(err)
	}
	var st faultproxy.FaultState
	json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if st.Elapsed.Std() < time.Hour {
		t.Errorf("elapsed %v; want an hour or more after --start %s", st.Elapsed, start)
	}
	if err, _, stderr := stop(); err != nil || !strings.Contains(stderr, "with the fault flags, seed 0") {
		t.Errorf("%v\n%s", err, stderr)
	}
}

func TestWindowNotes(t *testing.T) {
	sc, err := scenario.Load(riskScenario)
	if err != nil {
		t.Fatal(err)
	}
	s, err := faultproxy.FromScenario(sc, "payment-risk")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		at   time.Duration
		want string
	}{
		{2 * time.Minute, " (begins: compaction; begins: failover of the primary)"},
		{3 * time.Minute, " (ends: compaction)"},
		{4 * time.Minute, ""},
	} {
		if got := windowNotes(s, tc.at); got != tc.want {
			t.Errorf("windowNotes(%v) = %q; want %q", tc.at, got, tc.want)
		}
	}
}

func TestProxyCommandErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.scenario.yaml")
	if err := os.WriteFile(bad, []byte("name: bad\nclock: {duration: 1m}\nload: {schedule: [{at: 0s, rate: 10}]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args  []string
		usage bool
		want  string
	}{
		{[]string{}, true, "needs --upstream URL"},
		{[]string{"--upstream", "localhost:8081"}, true, "expected an http:// or https:// URL"},
		{[]string{"--upstream", "http://127.0.0.1:1", "--latency", "p50=20ms"}, true, "p99 is missing"},
		{[]string{"--upstream", "http://127.0.0.1:1", "--error-rate", "140%"}, true, "more than 100%"},
		{[]string{"--upstream", "http://127.0.0.1:1", "--beyond", "drop"}, true, `beyond "drop"`},
		{[]string{"--upstream", "http://127.0.0.1:1", "--error-status", "42"}, true, "error_status 42"},
		{[]string{"--upstream", "http://127.0.0.1:1", "--dependency", "x"}, true, "give the scenario file"},
		{[]string{"--upstream", "http://127.0.0.1:1", riskScenario}, true, "has 2 dependencies (payment-risk, order-store); name one with --dependency"},
		{[]string{"--upstream", "http://127.0.0.1:1", riskScenario, "--dependency", "payment"}, true, `no dependency "payment"; expected one of payment-risk, order-store`},
		{[]string{"--upstream", "http://127.0.0.1:1", riskScenario, riskScenario}, true, "one scenario file"},
		{[]string{"--upstream", "http://127.0.0.1:1", "--start", "yesterday"}, true, "yesterday"},
		{[]string{"--upstream", "http://127.0.0.1:1", bad}, false, bad + ":3:"},
		{[]string{"--upstream", "http://127.0.0.1:1", filepath.Join(dir, "missing.yaml")}, false, "no such file"},
		{[]string{"--upstream", "http://127.0.0.1:1", "--listen", "127.0.0.1:99999"}, false, "invalid port"},
	} {
		var stdout, stderr bytes.Buffer
		err := proxy(context.Background(), tc.args, &stdout, &stderr, func(string) { t.Errorf("%v: listening", tc.args) })
		if err == nil || !strings.Contains(err.Error(), tc.want) || errors.Is(err, errUsage) != tc.usage {
			t.Errorf("%v: %v; want an error containing %q (usage %v)", tc.args, err, tc.want, tc.usage)
		}
	}
	var stdout, stderr bytes.Buffer
	if err := proxy(context.Background(), []string{"-h"}, &stdout, &stderr, nil); err != nil || !strings.Contains(stderr.String(), "usage: goodput proxy") {
		t.Errorf("-h: %v\n%s", err, stderr.String())
	}
}
