package controlhttp

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/loadstate"
	"github.com/goodput-lab/goodput/control/shed"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestMetricsGolden drives a server and a client through a fixed sequence of
// decisions and compares what a registry gathers from the Metrics, in the
// text exposition format, with testdata/metrics.golden.
// Run with -update to rewrite it after an intended change.
func TestMetricsGolden(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var m Metrics
		ls, err := loadstate.New(testLoadState(), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := testShedPlan().Compile()
		if err != nil {
			t.Fatal(err)
		}
		recs, _ := tbl.Feature("recommendations")
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

		golden(t, "metrics.golden", exposition(t, gather(t, &m)))
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

// gather registers m on a new pedantic registry, which checks that every
// collected metric was described and is consistent, and gathers it.
func gather(t *testing.T, m *Metrics) []*dto.MetricFamily {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(m); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	return mfs
}

// exposition renders mfs in the Prometheus text format.
func exposition(t *testing.T, mfs []*dto.MetricFamily) string {
	t.Helper()
	var b strings.Builder
	enc := expfmt.NewEncoder(&b, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// value returns the value of the sample of family name whose labels are
// labels (name, value pairs), and whether there is one.
func value(mfs []*dto.MetricFamily, name string, labels ...string) (float64, bool) {
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	metrics:
		for _, mt := range mf.GetMetric() {
			if len(mt.GetLabel())*2 != len(labels) {
				continue
			}
			for i, l := range mt.GetLabel() {
				if l.GetName() != labels[2*i] || l.GetValue() != labels[2*i+1] {
					continue metrics
				}
			}
			switch {
			case mt.GetCounter() != nil:
				return mt.GetCounter().GetValue(), true
			case mt.GetGauge() != nil:
				return mt.GetGauge().GetValue(), true
			}
		}
	}
	return 0, false
}

// TestMetricsLint runs promlint, which checks the names, units, suffixes and
// help texts against the Prometheus conventions, over every family a
// Metrics with a shed plan and a load state collects.
func TestMetricsLint(t *testing.T) {
	var m Metrics
	tbl, err := testShedPlan().Compile()
	if err != nil {
		t.Fatal(err)
	}
	Handler(http.NotFoundHandler(), ServerConfig{Shed: tbl, Metrics: &m})
	m.setLoadState(loadstate.Protected, 3)
	mfs := gather(t, &m)
	if len(mfs) != 9 {
		t.Errorf("gathered %d families, want 9", len(mfs))
	}
	problems, err := promlint.NewWithMetricFamilies(mfs).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
	for _, mf := range mfs {
		if mf.GetHelp() == "" {
			t.Errorf("%s has no help", mf.GetName())
		}
	}
}

// TestMetricsLoadState checks the load-state gauge: absent until a state is
// read, then 1 for the state in force and 0 for the other three, with the
// generation beside it.
func TestMetricsLoadState(t *testing.T) {
	var m Metrics
	mfs := gather(t, &m)
	for _, name := range []string{"goodput_load_state", "goodput_policy_generation"} {
		for _, mf := range mfs {
			if mf.GetName() == name {
				t.Errorf("%s collected before a load state was read", name)
			}
		}
	}
	states := []loadstate.State{loadstate.Normal, loadstate.Pressured, loadstate.Protected, loadstate.Recovering}
	for i, cur := range append(states, loadstate.Normal) {
		gen := uint64(10 + i)
		m.setLoadState(cur, gen)
		mfs := gather(t, &m)
		for _, s := range states {
			want := 0.0
			if s == cur {
				want = 1
			}
			if v, ok := value(mfs, "goodput_load_state", "state", s.String()); !ok || v != want {
				t.Errorf("in %v: goodput_load_state{state=%q} = %v (present %v), want %v", cur, s, v, ok, want)
			}
		}
		if v, ok := value(mfs, "goodput_policy_generation"); !ok || v != float64(gen) {
			t.Errorf("in %v: goodput_policy_generation = %v (present %v), want %d", cur, v, ok, gen)
		}
	}
}

// TestMetricsFeatureName checks that a feature name the text format must
// escape survives the exposition: encoded, then parsed back.
func TestMetricsFeatureName(t *testing.T) {
	const odd = "odd \"name\"\nwith \\ and é"
	var m Metrics
	tbl, err := shed.Plan{States: map[loadstate.State][]shed.Optional{
		loadstate.Protected: {{Name: odd, Fallback: "none"}},
	}}.Compile()
	if err != nil {
		t.Fatal(err)
	}
	Handler(http.NotFoundHandler(), ServerConfig{Shed: tbl, Metrics: &m})
	m.shedCounters(tbl)[0].add(true)
	text := exposition(t, gather(t, &m))
	if want := `goodput_shed_decisions_total{decision="shed",feature="odd \"name\"\nwith \\ and é"} 1`; !strings.Contains(text, want+"\n") {
		t.Errorf("exposition lacks %s:\n%s", want, text)
	}
	dec := expfmt.NewDecoder(strings.NewReader(text), expfmt.NewFormat(expfmt.TypeTextPlain))
	var parsed []*dto.MetricFamily
	for {
		mf := new(dto.MetricFamily)
		if err := dec.Decode(mf); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, mf)
	}
	if v, ok := value(parsed, "goodput_shed_decisions_total", "decision", "shed", "feature", odd); !ok || v != 1 {
		t.Errorf("parsed back: shed %v (present %v), want 1", v, ok)
	}
	if v, ok := value(parsed, "goodput_shed_decisions_total", "decision", "kept", "feature", odd); !ok || v != 0 {
		t.Errorf("parsed back: kept %v (present %v), want 0", v, ok)
	}
}

// TestMetricsHandler serves a registry holding a Metrics with promhttp, as
// the package documentation shows.
func TestMetricsHandler(t *testing.T) {
	var m Metrics
	m.setLoadState(loadstate.Recovering, 7)
	m.countAdmission(admission.Lookup, serverReasonMalformedIdentity)
	reg := prometheus.NewRegistry()
	reg.MustRegister(&m)
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d", rec.Code)
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("content type %q", ct)
	}
	body := rec.Body.String()
	for _, want := range []string{
		"# HELP goodput_load_state ",
		"# TYPE goodput_load_state gauge\n",
		`goodput_load_state{state="Recovering"} 1` + "\n",
		`goodput_load_state{state="Normal"} 0` + "\n",
		"goodput_policy_generation 7\n",
		"# TYPE goodput_server_decisions_total counter\n",
		`goodput_server_decisions_total{class="lookup",reason="malformed-identity"} 1` + "\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("exposition lacks %q:\n%s", want, body)
		}
	}
	if err := reg.Register(&m); err == nil {
		t.Error("registering the same Metrics twice succeeded")
	}
}

// TestMetricsCountingAllocs pins counting at zero allocations.
func TestMetricsCountingAllocs(t *testing.T) {
	var m Metrics
	tbl, err := testShedPlan().Compile()
	if err != nil {
		t.Fatal(err)
	}
	sc := m.shedCounters(tbl)
	allocs := testing.AllocsPerRun(1000, func() {
		m.countAdmission(admission.Standard, serverReasonAdmitted)
		m.countOutcome(admission.Standard, outcomeGoodput)
		sc[0].add(true)
		m.countAttempt(true)
		m.countRetry(retryMaxAttempts)
		m.countRefusal(refusalBreakerOpen)
		m.countTransition(loadstate.Protected)
		m.setLoadState(loadstate.Protected, 2)
	})
	if allocs != 0 {
		t.Errorf("counting allocates %v times, want 0", allocs)
	}
}

// TestMetricsNil checks a nil *Metrics counts nothing, does not panic, and
// collects nothing.
func TestMetricsNil(t *testing.T) {
	var m *Metrics
	m.countAdmission(admission.Standard, 0)
	m.countOutcome(admission.Standard, 0)
	m.countAttempt(true)
	m.countRetry(0)
	m.countRefusal(0)
	m.countTransition(loadstate.Protected)
	m.setLoadState(loadstate.Protected, 1)
	if mfs := gather(t, m); len(mfs) != 0 {
		t.Errorf("a nil Metrics collected %d families", len(mfs))
	}
}

// A Metrics shared by the middleware, registered on a registry of the
// program's own and scraped through promhttp.
func ExampleMetrics() {
	metrics := new(Metrics)
	adm, _ := admission.New(admission.Config{Max: 10})
	checkout := Handler(http.NotFoundHandler(), ServerConfig{Admission: adm, Metrics: metrics})
	checkout.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/checkout", nil))
	bad := httptest.NewRequest("GET", "/checkout", nil)
	bad.Header.Set("Goodput-Timeout", "soon")
	checkout.ServeHTTP(httptest.NewRecorder(), bad)

	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics)
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))

	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for line := range strings.Lines(rec.Body.String()) {
		if strings.HasPrefix(line, "goodput_server_") && !strings.HasSuffix(line, " 0\n") {
			fmt.Print(line)
		}
	}
	// Output:
	// goodput_server_decisions_total{class="standard",reason="admitted"} 1
	// goodput_server_decisions_total{class="standard",reason="malformed-deadline"} 1
	// goodput_server_outcomes_total{class="standard",outcome="client-error"} 1
}
