package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-lab/goodput/control/controlhttp"
)

// attackServer answers /busy with 429 "limit" and anything else with 200.
func attackServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/busy" {
			w.Header().Set(controlhttp.ReasonHeader, "limit")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		fmt.Fprint(w, "ok")
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestAttackScenario(t *testing.T) {
	srv := attackServer(t)
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if err := run([]string{"attack", "testdata/attack.scenario.yaml", "--target", srv.URL, "--out", dir}, &out, &errb); err != nil {
		t.Fatalf("attack: %v\n%s", err, errb.String())
	}
	for _, s := range []string{"buy", "look", "total", "rejected 429 limit"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, out.String())
		}
	}
	var res struct {
		Classes []struct {
			Name                                 string
			Offered, Goodput, Rejected, Attempts int64
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "attack.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	// Uniform 100/s for 500ms: 49 requests, split between the classes by the seed's draws.
	if len(res.Classes) != 2 || res.Classes[0].Offered+res.Classes[1].Offered != 49 {
		t.Fatalf("classes %+v; want buy and look, 49 offered in all", res.Classes)
	}
	buy, look := res.Classes[0], res.Classes[1]
	if buy.Goodput != buy.Offered || buy.Attempts != buy.Offered {
		t.Errorf("buy %+v; want every request goodput at the first attempt", buy)
	}
	if look.Rejected != look.Offered || look.Attempts != 2*look.Offered {
		t.Errorf("look %+v; want every request rejected after its entry's one retry", look)
	}
	series, err := os.ReadFile(filepath.Join(dir, "attack-series.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(series), "t_s,offered,sent,unsent,goodput,late,rejected,failed,attempts,latency_p50_ms,latency_p99_ms\n0,") {
		t.Errorf("attack-series.csv starts %q", series[:min(len(series), 120)])
	}
}

func TestAttackRate(t *testing.T) {
	srv := attackServer(t)
	var out, errb bytes.Buffer
	if err := run([]string{"attack", srv.URL + "/ok", "--rate", "200/s", "--for", "250ms", "--deadline", "10s", "--json"}, &out, &errb); err != nil {
		t.Fatalf("attack: %v\n%s", err, errb.String())
	}
	var res struct {
		Total struct{ Offered, Sent, Goodput int64 }
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	if res.Total.Offered != 49 || res.Total.Goodput != 49 {
		t.Errorf("total %+v; want 49 offered (200/s for 250ms, uniform), all goodput", res.Total)
	}
}

func TestAttackCurve(t *testing.T) {
	srv := attackServer(t)
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if err := run([]string{"attack", srv.URL, "--rates", "100/s,200/s", "--for", "200ms", "--out", dir}, &out, &errb); err != nil {
		t.Fatalf("attack: %v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "goodput/s") || strings.Count(errb.String(), "step ") != 2 {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	}
	f, err := os.Open(filepath.Join(dir, "curve.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[1][0] != "100" || rows[2][0] != "200" {
		t.Errorf("curve.csv rows %v; want a header and rows at 100 and 200", rows)
	}
	page, err := os.ReadFile(filepath.Join(dir, "curve.html"))
	if err != nil || !bytes.Contains(page, []byte("<svg")) {
		t.Errorf("curve.html: %v, %d bytes", err, len(page))
	}
}

func TestAttackUsage(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"http://127.0.0.1:1/"},
		{"http://127.0.0.1:1/", "--rate", "10/s"},
		{"http://127.0.0.1:1/", "--for", "1s"},
		{"http://127.0.0.1:1/", "--rate", "10/s", "--rates", "1/s,2/s", "--for", "1s"},
		{"http://127.0.0.1:1/", "--rate", "10", "--for", "1s"},
		{"http://127.0.0.1:1/", "--rate", "0/s", "--for", "1s"},
		{"http://127.0.0.1:1/", "--rate", "1M/s", "--for", "1h"},
		{"http://127.0.0.1:1/", "--rate", "10/s", "--for", "1s", "--max-in-flight", "0"},
		{"http://127.0.0.1:1/", "--rate", "10/s", "--for", "1s", "--arrivals", "bursty"},
		{"http://127.0.0.1:1/", "--rate", "10/s", "--for", "1s", "--target", "http://x/"},
		{"testdata/attack.scenario.yaml"},
		{"testdata/attack.scenario.yaml", "--target", "http://127.0.0.1:1/", "--rate", "10/s"},
	} {
		var out, errb bytes.Buffer
		err := run(append([]string{"attack"}, args...), &out, &errb)
		if !errors.Is(err, errUsage) || exitCode(err) != 2 {
			t.Errorf("attack %q: %v; want a usage error (exit 2)", args, err)
		}
	}
}

func TestAttackBadScenario(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.scenario.yaml")
	src, err := os.ReadFile("testdata/attack.scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, bytes.Replace(src, []byte("method: POST"), []byte("method: post"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	err = run([]string{"attack", path, "--target", "http://127.0.0.1:1/"}, &out, &errb)
	if err == nil || exitCode(err) != 1 || !strings.Contains(err.Error(), "bad.scenario.yaml:14:20:") || !strings.Contains(err.Error(), `unknown method "post"`) {
		t.Errorf("attack with method: post: %v; want file:line:col and the message", err)
	}
}
