package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/control/identity"
	"github.com/goodput-lab/goodput/live/demo"
)

var checkoutScenario = filepath.Join("..", "..", "live", "demo", "testdata", "checkout.scenario.yaml")

// startDemo runs run(ctx, args…) in the background until it listens and returns its
// address and a function that stops it and returns its error, stdout and stderr.
func startDemo(t *testing.T, run func(context.Context, []string, io.Writer, io.Writer, func(string)) error, args ...string) (string, func() (error, string, string)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	addr := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- run(ctx, args, &stdout, &stderr, func(a string) { addr <- a }) }()
	var a string
	select {
	case a = <-addr:
	case err := <-done:
		cancel()
		t.Fatalf("ended before listening: %v\n%s", err, stderr.String())
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("not listening within 10s")
	}
	stopped := false
	stop := func() (error, string, string) {
		stopped = true
		cancel()
		select {
		case err := <-done:
			return err, stdout.String(), stderr.String()
		case <-time.After(10 * time.Second):
			t.Fatal("did not stop within 10s of its context's end")
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

// The stub dependency and the service, both in process: a checkout committed, a
// duplicate refused, and on stop the audit of the database and the stub's counts.
func TestDemoCommand(t *testing.T) {
	dep, stopDep := startDemo(t, demoDependency, "--kind", "all")
	db := filepath.Join(t.TempDir(), "orders.db")
	addr, stop := startDemo(t, demoService, checkoutScenario, "--policy", "protected",
		"--dep", "payment-risk="+dep, "--dep", "payment="+dep, "--db", db)
	client := &http.Client{Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()

	for _, want := range []int{201, 200} {
		req, _ := http.NewRequest("POST", addr+"/checkout", strings.NewReader(`{"amount":100}`))
		identity.Inject(req.Header, identity.First("cmd-1"))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("checkout: %d; want %d", resp.StatusCode, want)
		}
	}
	resp, err := client.Get(addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(metrics), `goodput_demo_duplicate_refusals_total{class="new_checkout"} 1`) {
		t.Errorf("/metrics lacks the refusal:\n%s", metrics)
	}

	err, stdout, stderr := stop()
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, stderr)
	}
	wantBanner := "goodput demo: listening on " + addr + ", arm protected (the controls), risk " + dep + ", payment " + dep + ", orders in " + db + "\n"
	if stderr != wantBanner {
		t.Errorf("stderr %q; want %q", stderr, wantBanner)
	}
	var a demo.Audit
	if err := json.Unmarshal([]byte(stdout), &a); err != nil || a != (demo.Audit{Orders: 1, Identities: 1, Refused: 1, RefusedIdentities: 1}) {
		t.Errorf("stdout %q (%v); want the audit of one order and one refusal", stdout, err)
	}

	err, stdout, stderr = stopDep()
	var st demo.StubStats
	if err != nil || json.Unmarshal([]byte(stdout), &st) != nil || st.Authorisations != 1 || st.AuthorisationReplays != 1 || st.DuplicateAuthorisations != 0 || st.Scores != 2 {
		t.Errorf("dependency: %v, stdout %q, stderr %q", err, stdout, stderr)
	}
	if !strings.HasPrefix(stderr, "goodput demo dependency: listening on "+dep+", kind all\n") {
		t.Errorf("dependency stderr %q", stderr)
	}
}

// With --otel stdout the service writes its spans as JSON lines on stderr, after the
// banner, and flushes them on stop: a served checkout and its dependency attempts.
func TestDemoCommandOtelStdout(t *testing.T) {
	dep, _ := startDemo(t, demoDependency, "--kind", "all")
	addr, stop := startDemo(t, demoService, checkoutScenario, "--policy", "protected",
		"--dep", "payment-risk="+dep, "--dep", "payment="+dep, "--db", filepath.Join(t.TempDir(), "orders.db"), "--otel", "stdout")
	client := &http.Client{Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	req, _ := http.NewRequest("POST", addr+"/checkout", strings.NewReader(`{"amount":100}`))
	identity.Inject(req.Header, identity.First("otel-1"))
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Errorf("checkout: %d; want 201", resp.StatusCode)
	}

	err, _, stderr := stop()
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, stderr)
	}
	banner, spans, _ := strings.Cut(stderr, "\n")
	if !strings.HasPrefix(banner, "goodput demo: listening on "+addr) {
		t.Errorf("stderr begins %q; want the banner", banner)
	}
	type span struct {
		Name       string
		Attributes []struct {
			Key   string
			Value struct{ Value any }
		}
	}
	got := map[string]map[string]any{} // by span name and dependency: attributes
	for line := range strings.Lines(spans) {
		var s span
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("stderr line %q is not a span: %v", line, err)
		}
		attrs := map[string]any{}
		for _, kv := range s.Attributes {
			attrs[kv.Key] = kv.Value.Value
		}
		name := s.Name
		if d, ok := attrs["goodput.dependency"].(string); ok {
			name += " " + d
		}
		got[name] = attrs
	}
	for name, want := range map[string]map[string]any{
		"goodput.serve": {"goodput.identity": "otel-1", "goodput.admission.class": "standard", "goodput.result": "goodput"},
		// Each call carries its own key, derived from the order's and the operation.
		"goodput.attempt payment":      {"goodput.identity": "otel-1:POST/authorise", "goodput.result": "success"},
		"goodput.attempt payment-risk": {"goodput.identity": "otel-1:POST/score", "goodput.result": "success"},
	} {
		for k, v := range want {
			if got[name][k] != v {
				t.Errorf("span %s: %s = %v; want %v (spans %v)", name, k, got[name][k], v, got)
			}
		}
	}
}

// With --otel otlp the spans go over OTLP/HTTP to $OTEL_EXPORTER_OTLP_ENDPOINT, flushed on stop.
func TestDemoCommandOtelOTLP(t *testing.T) {
	var mu sync.Mutex
	var posts []string
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		posts = append(posts, fmt.Sprintf("%s %s %s %t", r.Method, r.URL.Path, r.Header.Get("Content-Type"), len(b) > 0))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)

	dep, _ := startDemo(t, demoDependency, "--kind", "all")
	addr, stop := startDemo(t, demoService, checkoutScenario, "--policy", "protected",
		"--dep", "payment-risk="+dep, "--dep", "payment="+dep, "--db", filepath.Join(t.TempDir(), "orders.db"), "--otel", "otlp")
	client := &http.Client{Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	resp, err := client.Get(addr + "/orders/none")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err, _, stderr := stop(); err != nil || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("demo: %v; stderr %q, want only the banner", err, stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(posts) != 1 || posts[0] != "POST /v1/traces application/x-protobuf true" {
		t.Errorf("collector received %q; want one POST of spans to /v1/traces", posts)
	}
}

func TestDemoCommandErrors(t *testing.T) {
	dir := t.TempDir()
	dep := "payment-risk=http://127.0.0.1:1"
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no file", []string{"demo"}, 2, "demo takes one scenario file, got 0"},
		{"two arms", []string{"demo", checkoutScenario}, 2, "has 2 arms (baseline, protected); name one with --policy"},
		{"no arm", []string{"demo", checkoutScenario, "--policy", "canary"}, 2, `no arm "canary"; expected one of baseline, protected`},
		{"missing dep", []string{"demo", checkoutScenario, "--policy", "baseline", "--dep", dep}, 2, "no URL for dependency payment; expected --dep payment=URL"},
		{"bad dep", []string{"demo", checkoutScenario, "--dep", "payment"}, 2, `"payment": expected NAME=URL`},
		{"bad otel", []string{"demo", checkoutScenario, "--otel", "jaeger"}, 2, `"jaeger": expected stdout or otlp`},
		{"dep twice", []string{"demo", checkoutScenario, "--dep", dep, "--dep", dep}, 2, "given twice"},
		{"no scenario", []string{"demo", filepath.Join(dir, "none.scenario.yaml"), "--policy", "baseline"}, 1, "none.scenario.yaml"},
		{"bad db", []string{"demo", checkoutScenario, "--policy", "baseline", "--dep", dep, "--dep", "payment=http://127.0.0.1:2",
			"--db", filepath.Join(dir, "missing", "orders.db")}, 1, "creating the tables"},
		{"bad listen", []string{"demo", checkoutScenario, "--policy", "baseline", "--dep", dep, "--dep", "payment=http://127.0.0.1:2",
			"--db", filepath.Join(dir, "orders.db"), "--listen", "256.0.0.1:0"}, 1, "listen"},
		{"bad kind", []string{"demo", "dependency", "--kind", "fraud"}, 2, `stub kind "fraud"; expected risk, payment or all`},
		{"dependency args", []string{"demo", "dependency", "extra"}, 2, "takes no arguments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(tc.args, &stdout, &stderr)
			if code := exitCode(err); code != tc.code || err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("exit %d, %v; want %d and %q", code, err, tc.code, tc.want)
			}
		})
	}
}
