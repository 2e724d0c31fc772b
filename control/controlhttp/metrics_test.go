package controlhttp

import (
	"context"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"goodput/control/admission"
	"goodput/control/budget"
	"goodput/control/loadstate"
	"goodput/control/shed"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestMetricsGolden drives a server and a client through a fixed sequence of
// decisions and compares the exposition with testdata/metrics.golden.
// Run with -update to rewrite it after an intended change.
func TestMetricsGolden(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var m Metrics
		ls, err := loadstate.New(loadstate.Northstar(), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := shed.Default().Compile()
		if err != nil {
			t.Fatal(err)
		}
		recs, _ := tbl.Feature(shed.Recommendations)
		adm := mustAdmission(t, admission.Config{Max: 10})
		srv := Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			Shed(r.Context(), recs)
			if r.URL.Path == "/fail" {
				w.WriteHeader(http.StatusServiceUnavailable)
			}
		}), ServerConfig{Admission: adm, Classify: classFromHeader, LoadState: ls, Shed: tbl, Metrics: &m})
		serve := func(path, class string, hdr ...string) {
			req := httptest.NewRequest("GET", path, nil)
			req.Header.Set("X-Class", class)
			for i := 0; i+1 < len(hdr); i += 2 {
				req.Header.Set(hdr[i], hdr[i+1])
			}
			srv.ServeHTTP(httptest.NewRecorder(), req)
		}
		serve("/", "standard")
		serve("/", "continuation")
		serve("/", "lookup", "Goodput-Timeout", "garbage")
		serve("/", "standard", "Goodput-Timeout", "0n")
		ls.Override(time.Now(), loadstate.Protected, "test")
		serve("/", "sheddable")
		adm.SetClassOpen(admission.Sheddable, false)
		serve("/", "sheddable")

		rt := NewTransport(network{srv}, ClientConfig{Budget: mustBudget(t, budget.Finagle()), Metrics: &m})
		get(t, context.Background(), rt)
		req, _ := http.NewRequest("GET", "http://svc.test/fail", nil)
		if resp, err := rt.RoundTrip(req); err == nil {
			resp.Body.Close()
		}

		var b strings.Builder
		if _, err := m.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		golden(t, "metrics.golden", b.String())
	})
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the output (run with -update after an intended change):\n%s", path, got)
	}
}

// sampleLine is a sample of the text exposition format, with only the label
// values this package writes.
var sampleLine = regexp.MustCompile(`^[a-z_]+(\{([a-z]+="[^"\\]*",)*[a-z]+="[^"\\]*"\})? [0-9]+$`)

// TestMetricsFormat checks every line is a HELP or TYPE comment or a sample,
// that feature names are escaped, and ServeHTTP's content type.
func TestMetricsFormat(t *testing.T) {
	var m Metrics
	tbl, err := shed.Plan{States: map[loadstate.State][]shed.Optional{
		loadstate.Protected: {{Name: `odd "name"`, Fallback: "none"}},
	}}.Compile()
	if err != nil {
		t.Fatal(err)
	}
	Handler(http.NotFoundHandler(), ServerConfig{Shed: tbl, Metrics: &m})
	m.setLoadState(loadstate.Recovering, 7)
	rec := httptest.NewRecorder()
	m.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if ct := rec.Header().Get("Content-Type"); ct != "text/plain; version=0.0.4; charset=utf-8" {
		t.Errorf("content type %q", ct)
	}
	body := rec.Body.String()
	for _, line := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
		if strings.HasPrefix(line, "# HELP ") || strings.HasPrefix(line, "# TYPE ") || sampleLine.MatchString(line) {
			continue
		}
		if line != `goodput_shed_decisions_total{feature="odd \"name\"",decision="shed"} 0` &&
			line != `goodput_shed_decisions_total{feature="odd \"name\"",decision="kept"} 0` {
			t.Errorf("not a line of the text format: %q", line)
		}
	}
	for _, want := range []string{"goodput_load_state 3\n", "goodput_policy_generation 7\n", `feature="odd \"name\"",decision="shed"`} {
		if !strings.Contains(body, want) {
			t.Errorf("exposition lacks %q", want)
		}
	}
}

// TestMetricsNil checks a nil *Metrics counts nothing and does not panic.
func TestMetricsNil(t *testing.T) {
	var m *Metrics
	m.countAdmission(admission.Standard, 0)
	m.countOutcome(admission.Standard, 0)
	m.countAttempt(true)
	m.countRetry(0)
	m.countRefusal(0)
	m.countTransition(loadstate.Protected)
	m.setLoadState(loadstate.Protected, 1)
}
