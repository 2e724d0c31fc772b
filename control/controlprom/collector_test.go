package controlprom_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/breaker"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/controlhttp"
	"github.com/goodput-lab/goodput/control/controlprom"
	"github.com/goodput-lab/goodput/control/loadstate"
	"github.com/goodput-lab/goodput/control/shed"
)

// watched returns a Metrics given an admission controller, a budget, a
// breaker under "payments" and a shed plan of the one feature named feature.
func watched(t *testing.T, feature string) *controlhttp.Metrics {
	t.Helper()
	m := new(controlhttp.Metrics)
	adm, err := admission.New(admission.Config{Max: 4})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := shed.Plan{States: map[loadstate.State][]shed.Optional{
		loadstate.Protected: {{Name: feature, Fallback: "none"}},
	}}.Compile()
	if err != nil {
		t.Fatal(err)
	}
	retries, err := budget.New(budget.Finagle())
	if err != nil {
		t.Fatal(err)
	}
	br, err := breaker.New(breaker.Config{})
	if err != nil {
		t.Fatal(err)
	}
	controlhttp.Handler(http.NotFoundHandler(), controlhttp.ServerConfig{Admission: adm, Shed: tbl, Metrics: m})
	controlhttp.NewTransport(nil, controlhttp.ClientConfig{Budget: retries, Breaker: br, Dependency: "payments", Metrics: m})
	return m
}

// gather registers c on a new pedantic registry, which checks that every
// collected metric was described and is consistent, and gathers it.
func gather(t *testing.T, c prometheus.Collector) []*dto.MetricFamily {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(c); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	return mfs
}

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

// TestCollectorLint gathers every family through a pedantic registry and
// runs promlint over them: names, units, suffixes and help texts follow
// the Prometheus conventions, and the kinds are controlhttp's.
func TestCollectorLint(t *testing.T) {
	m := watched(t, "recommendations")
	// The load-state families appear once a state has been read; a Stepper
	// or a Handler with a LoadState reads one.
	p := loadstate.Policy{AdmissionScale: 1}
	ls, err := loadstate.New(loadstate.Config{Policies: loadstate.Policies{Normal: p, Pressured: p, Protected: p, Recovering: p}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	h := controlhttp.Handler(http.NotFoundHandler(), controlhttp.ServerConfig{LoadState: ls, Metrics: m})
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))

	mfs := gather(t, controlprom.NewCollector(m))
	fams := controlhttp.Families()
	if len(mfs) != len(fams) {
		t.Errorf("gathered %d families, want %d", len(mfs), len(fams))
	}
	kinds := map[string]controlhttp.Kind{}
	for _, f := range fams {
		kinds[f.Name] = f.Kind
	}
	for _, mf := range mfs {
		want := dto.MetricType_COUNTER
		if kinds[mf.GetName()] == controlhttp.Gauge {
			want = dto.MetricType_GAUGE
		}
		if mf.GetType() != want {
			t.Errorf("%s is a %v, want %v", mf.GetName(), mf.GetType(), want)
		}
	}
	problems, err := promlint.NewWithMetricFamilies(mfs).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
}

// TestCollectorFeatureName checks that a feature name the text format must
// escape survives the exposition: encoded, then parsed back.
func TestCollectorFeatureName(t *testing.T) {
	const odd = "odd \"name\"\nwith \\ and é"
	text := exposition(t, gather(t, controlprom.NewCollector(watched(t, odd))))
	if want := `goodput_shed_decisions_total{decision="kept",feature="odd \"name\"\nwith \\ and é"} 0`; !strings.Contains(text, want+"\n") {
		t.Errorf("exposition lacks %s:\n%s", want, text)
	}
	dec := expfmt.NewDecoder(strings.NewReader(text), expfmt.NewFormat(expfmt.TypeTextPlain))
	n := 0
	for {
		mf := new(dto.MetricFamily)
		if err := dec.Decode(mf); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n == 0 {
		t.Error("parsed back no family")
	}
}

// TestCollectorInvalidLabel checks that a feature name that is not UTF-8
// makes the scrape report an error instead of panicking.
func TestCollectorInvalidLabel(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(controlprom.NewCollector(watched(t, "bad\xff")))
	if _, err := reg.Gather(); err == nil {
		t.Error("gathering a non-UTF-8 label value succeeded")
	}
}

// TestCollectorNil checks a Collector over a nil Metrics collects nothing.
func TestCollectorNil(t *testing.T) {
	if mfs := gather(t, controlprom.NewCollector(nil)); len(mfs) != 0 {
		t.Errorf("a nil Metrics collected %d families", len(mfs))
	}
}

// A Metrics shared by the middleware and a dependency's Transport,
// registered on a registry of the program's own through a Collector and
// scraped with promhttp.
func ExampleNewCollector() {
	metrics := new(controlhttp.Metrics)
	adm, _ := admission.New(admission.Config{Max: 10})
	checkout := controlhttp.Handler(http.NotFoundHandler(), controlhttp.ServerConfig{Admission: adm, Metrics: metrics})
	checkout.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/checkout", nil))
	bad := httptest.NewRequest("GET", "/checkout", nil)
	bad.Header.Set("Goodput-Timeout", "soon")
	checkout.ServeHTTP(httptest.NewRecorder(), bad)

	reg := prometheus.NewRegistry()
	reg.MustRegister(controlprom.NewCollector(metrics))
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))

	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for line := range strings.Lines(rec.Body.String()) {
		if strings.HasPrefix(line, "goodput_") && !strings.HasSuffix(line, " 0\n") {
			fmt.Print(line)
		}
	}
	// Output:
	// goodput_admission_limit 10
	// goodput_server_decisions_total{class="standard",reason="admitted"} 1
	// goodput_server_decisions_total{class="standard",reason="malformed_deadline"} 1
	// goodput_server_outcomes_total{class="standard",outcome="client_error"} 1
}
