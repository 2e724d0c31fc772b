package controlhttp

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/breaker"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/loadstate"
	"github.com/goodput-lab/goodput/control/shed"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// metricsMachine is a load-state machine with no gates, moved only by
// Override, for the metrics tests.
func metricsMachine(t *testing.T, now time.Time) *loadstate.Machine {
	t.Helper()
	p := func(s loadstate.State) loadstate.Policy { return loadstate.Policy{AdmissionScale: 1, Shed: s} }
	ls, err := loadstate.New(loadstate.Config{Policies: loadstate.Policies{
		Normal: p(loadstate.Normal), Pressured: p(loadstate.Pressured), Protected: p(loadstate.Protected), Recovering: p(loadstate.Recovering),
	}}, now)
	if err != nil {
		t.Fatal(err)
	}
	return ls
}

// metricsPlan is a shed plan of one feature, shed from Pressured on.
func metricsPlan(t *testing.T) shed.Table {
	t.Helper()
	recs := shed.Optional{Name: "recommendations", Fallback: "none"}
	tbl, err := shed.Plan{States: map[loadstate.State][]shed.Optional{
		loadstate.Pressured: {recs}, loadstate.Protected: {recs}, loadstate.Recovering: {recs},
	}}.Compile()
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// render writes every sample m visits at now, one a line, as
// name{label="value",...} value.
func render(m *Metrics, now time.Time) string {
	fams := Families()
	var b strings.Builder
	m.Visit(now, func(s Sample) {
		f := fams[s.Family]
		b.WriteString(f.Name)
		if len(f.Labels) > 0 {
			b.WriteByte('{')
			for i, l := range f.Labels {
				if i > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, "%s=%q", l, s.Labels[i])
			}
			b.WriteByte('}')
		}
		fmt.Fprintf(&b, " %g\n", s.Value)
	})
	return b.String()
}

// lookup returns the value of the sample of family name with labels (name,
// value pairs in the family's label order), and whether m visits one.
func lookup(m *Metrics, now time.Time, name string, labels ...string) (float64, bool) {
	fams := Families()
	v, found := 0.0, false
	m.Visit(now, func(s Sample) {
		f := fams[s.Family]
		if f.Name != name || len(f.Labels)*2 != len(labels) {
			return
		}
		for i, l := range f.Labels {
			if labels[2*i] != l || labels[2*i+1] != s.Labels[i] {
				return
			}
		}
		v, found = s.Value, true
	})
	return v, found
}

// TestMetricsGolden drives a server and two dependencies' clients through a
// fixed sequence of decisions and compares every sample the Metrics visits
// with testdata/metrics.golden. Run with -update to rewrite it after an
// intended change.
func TestMetricsGolden(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var m Metrics
		ls := metricsMachine(t, time.Now())
		tbl := metricsPlan(t)
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

		retries := mustBudget(t, budget.Finagle())
		payments := NewTransport(network{srv}, ClientConfig{Budget: retries, Breaker: mustBreaker(t, breaker.Config{}), Dependency: "payments", Metrics: &m})
		get(t, context.Background(), payments)
		req, _ := http.NewRequest("GET", "http://svc.test/fail", nil)
		if resp, err := payments.RoundTrip(req); err == nil {
			resp.Body.Close()
		}
		risk := mustBreaker(t, breaker.Config{})
		risk.ForceOpen(time.Now())
		rt := NewTransport(network{srv}, ClientConfig{Budget: retries, Breaker: risk, Dependency: "risk", Metrics: &m})
		if resp, err := get(t, context.Background(), rt); err == nil {
			resp.Body.Close()
		}

		golden(t, "metrics.golden", render(&m, time.Now()))
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

// TestMetricsNames checks every family's name and label names, and every
// label value a Metrics with every control watched can visit, are
// snake_case; counters end in _total and gauges do not; every family has a
// help text and is visited.
func TestMetricsNames(t *testing.T) {
	snakeCase := regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	var m Metrics
	now := time.Now()
	Handler(http.NotFoundHandler(), ServerConfig{Admission: mustAdmission(t, admission.Config{Max: 4}), Shed: metricsPlan(t), Metrics: &m})
	NewTransport(nil, ClientConfig{Budget: mustBudget(t, budget.Finagle()), Breaker: mustBreaker(t, breaker.Config{}), Dependency: "payments", Metrics: &m})
	m.setLoadState(loadstate.Protected, 3)

	fams := Families()
	if len(fams) != numFamilies {
		t.Fatalf("Families has %d families, want %d", len(fams), numFamilies)
	}
	seen := make([]bool, len(fams))
	m.Visit(now, func(s Sample) {
		f := fams[s.Family]
		seen[s.Family] = true
		if len(s.Labels) != len(f.Labels) {
			t.Errorf("%s: %d label values for %d labels", f.Name, len(s.Labels), len(f.Labels))
			return
		}
		for i, v := range s.Labels {
			if f.Labels[i] == "feature" || f.Labels[i] == "dependency" {
				continue // the service's own names
			}
			if !snakeCase.MatchString(v) {
				t.Errorf("%s: label %s value %q is not snake_case", f.Name, f.Labels[i], v)
			}
		}
	})
	for i, f := range fams {
		if !seen[i] {
			t.Errorf("%s not visited", f.Name)
		}
		if !snakeCase.MatchString(f.Name) {
			t.Errorf("family name %q is not snake_case", f.Name)
		}
		for _, l := range f.Labels {
			if !snakeCase.MatchString(l) {
				t.Errorf("%s: label name %q is not snake_case", f.Name, l)
			}
		}
		if counter := strings.HasSuffix(f.Name, "_total"); counter != (f.Kind == Counter) {
			t.Errorf("%s: kind %v but _total suffix %v", f.Name, f.Kind, counter)
		}
		if f.Help == "" {
			t.Errorf("%s has no help", f.Name)
		}
	}
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{
		"class-closed": "class_closed",
		"HalfOpen":     "half_open",
		"Normal":       "normal",
		"standard":     "standard",
		"max-attempts": "max_attempts",
	} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestMetricsDependency checks that client counters and the breaker state
// are labelled with the transport's dependency, so a breaker refusal names
// its breaker.
func TestMetricsDependency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var m Metrics
		srv := answers(new(seen), nil, 200)
		open := mustBreaker(t, breaker.Config{})
		open.ForceOpen(time.Now())
		payments := NewTransport(network{srv}, ClientConfig{Breaker: open, Dependency: "payments", Metrics: &m})
		risk := NewTransport(network{srv}, ClientConfig{Breaker: mustBreaker(t, breaker.Config{}), Dependency: "risk", Metrics: &m})
		if _, err := get(t, context.Background(), payments); err == nil {
			t.Fatal("a call through an open breaker was made")
		}
		resp, err := get(t, context.Background(), risk)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		now := time.Now()
		for _, c := range []struct {
			name   string
			labels []string
			want   float64
		}{
			{"goodput_client_refusals_total", []string{"dependency", "payments", "reason", "breaker_open"}, 1},
			{"goodput_client_refusals_total", []string{"dependency", "risk", "reason", "breaker_open"}, 0},
			{"goodput_client_attempts_total", []string{"dependency", "payments", "attempt", "first"}, 0},
			{"goodput_client_attempts_total", []string{"dependency", "risk", "attempt", "first"}, 1},
			{"goodput_breaker_state", []string{"dependency", "payments", "state", "open"}, 1},
			{"goodput_breaker_state", []string{"dependency", "payments", "state", "closed"}, 0},
			{"goodput_breaker_state", []string{"dependency", "risk", "state", "closed"}, 1},
			{"goodput_breaker_state", []string{"dependency", "risk", "state", "half_open"}, 0},
		} {
			if v, ok := lookup(&m, now, c.name, c.labels...); !ok || v != c.want {
				t.Errorf("%s%v = %v (present %v), want %v", c.name, c.labels, v, ok, c.want)
			}
		}
	})
}

// TestMetricsGauges checks the admission limit and in-flight gauges, read
// from the Handler's controller, and the budget balance, read from the
// Transport's budget; a controller or budget given twice counts once.
func TestMetricsGauges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var m Metrics
		now := time.Now()
		for _, name := range []string{"goodput_admission_limit", "goodput_admission_in_flight", "goodput_retry_budget_available"} {
			if _, ok := lookup(&m, now, name); ok {
				t.Errorf("%s visited before its control was given", name)
			}
		}
		adm := mustAdmission(t, admission.Config{Max: 8})
		inside := make(chan float64, 1)
		h := Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			v, _ := lookup(&m, time.Now(), "goodput_admission_in_flight")
			inside <- v
		}), ServerConfig{Admission: adm, Metrics: &m})
		Handler(http.NotFoundHandler(), ServerConfig{Admission: adm, Metrics: &m}) // the same controller again
		occupy(t, adm, now, 2)
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
		if v := <-inside; v != 3 {
			t.Errorf("in flight while serving = %v, want 3", v)
		}
		if v, _ := lookup(&m, now, "goodput_admission_in_flight"); v != 2 {
			t.Errorf("in flight after = %v, want 2", v)
		}
		if v, _ := lookup(&m, now, "goodput_admission_limit"); v != float64(adm.Limit()) || v != 8 {
			t.Errorf("limit = %v, want %d", v, adm.Limit())
		}

		b := mustBudget(t, budget.Config{Ratio: 0.5, MinPerSecond: 2, TTL: 10 * time.Second})
		for range 10 {
			b.Request(now, "")
		}
		NewTransport(nil, ClientConfig{Budget: b, Dependency: "a", Metrics: &m})
		NewTransport(nil, ClientConfig{Budget: b, Dependency: "b", Metrics: &m})
		want := b.Window(now).Available()
		if v, ok := lookup(&m, now, "goodput_retry_budget_available"); !ok || v != want || want <= 0 {
			t.Errorf("budget available = %v (present %v), want %v > 0", v, ok, want)
		}
	})
}

// TestMetricsLoadState checks the load-state gauge: absent until a state is
// read, then 1 for the state in force and 0 for the other three, with the
// generation beside it.
func TestMetricsLoadState(t *testing.T) {
	var m Metrics
	now := time.Now()
	for _, name := range []string{"goodput_load_state", "goodput_policy_generation"} {
		if _, ok := lookup(&m, now, name, "state", "normal"); ok {
			t.Errorf("%s visited before a load state was read", name)
		}
		if _, ok := lookup(&m, now, name); ok {
			t.Errorf("%s visited before a load state was read", name)
		}
	}
	states := []loadstate.State{loadstate.Normal, loadstate.Pressured, loadstate.Protected, loadstate.Recovering}
	for i, cur := range append(states, loadstate.Normal) {
		gen := uint64(10 + i)
		m.setLoadState(cur, gen)
		for _, s := range states {
			want := 0.0
			if s == cur {
				want = 1
			}
			if v, ok := lookup(&m, now, "goodput_load_state", "state", strings.ToLower(s.String())); !ok || v != want {
				t.Errorf("in %v: goodput_load_state{state=%q} = %v (present %v), want %v", cur, s, v, ok, want)
			}
		}
		if v, ok := lookup(&m, now, "goodput_policy_generation"); !ok || v != float64(gen) {
			t.Errorf("in %v: goodput_policy_generation = %v (present %v), want %d", cur, v, ok, gen)
		}
	}
}

// TestMetricsCountingAllocs pins counting at zero allocations.
func TestMetricsCountingAllocs(t *testing.T) {
	var m Metrics
	sc := m.shedCounters(metricsPlan(t))
	dep := m.client("payments", nil, nil)
	allocs := testing.AllocsPerRun(1000, func() {
		m.countAdmission(admission.Standard, serverReasonAdmitted)
		m.countOutcome(admission.Standard, outcomeGoodput)
		sc[0].add(true)
		dep.countAttempt(true)
		dep.countRetry(retryMaxAttempts)
		dep.countRefusal(refusalBreakerOpen)
		m.countTransition(loadstate.Protected)
		m.setLoadState(loadstate.Protected, 2)
	})
	if allocs != 0 {
		t.Errorf("counting allocates %v times, want 0", allocs)
	}
}

// TestMetricsNil checks a nil *Metrics counts nothing, does not panic, and
// visits nothing.
func TestMetricsNil(t *testing.T) {
	var m *Metrics
	m.countAdmission(admission.Standard, 0)
	m.countOutcome(admission.Standard, 0)
	dep := m.client("payments", nil, nil)
	dep.countAttempt(true)
	dep.countRetry(0)
	dep.countRefusal(0)
	m.countTransition(loadstate.Protected)
	m.setLoadState(loadstate.Protected, 1)
	m.watchAdmission(mustAdmission(t, admission.Config{Max: 1}))
	m.Visit(time.Now(), func(Sample) { t.Error("a nil Metrics visited a sample") })
}

// A Metrics shared by the middleware and a dependency's Transport, read
// with Visit: the client counters and the breaker state say which
// dependency, and the admission gauges read the Handler's controller.
// Package controlprom serves the same samples to Prometheus.
func ExampleMetrics_Visit() {
	metrics := new(Metrics)
	adm, _ := admission.New(admission.Config{Max: 10})
	payments, _ := breaker.New(breaker.Config{})
	payments.ForceOpen(time.Now())
	client := &http.Client{Transport: NewTransport(nil, ClientConfig{Breaker: payments, Dependency: "payments", Metrics: metrics})}

	checkout := Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := http.NewRequestWithContext(r.Context(), "POST", "http://payments.invalid/authorise", nil)
		resp, err := client.Do(req)
		if Refuse(w, r, err) {
			return
		}
		if err == nil {
			resp.Body.Close()
		}
	}), ServerConfig{Admission: adm, Metrics: metrics})
	checkout.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/checkout", nil))

	fams := Families()
	metrics.Visit(time.Now(), func(s Sample) {
		f := fams[s.Family]
		if s.Value != 0 && f.Name != "goodput_server_decisions_total" {
			fmt.Println(f.Name, s.Labels, s.Value)
		}
	})
	// Output:
	// goodput_server_outcomes_total [standard refused] 1
	// goodput_admission_limit [] 10
	// goodput_client_refusals_total [payments breaker_open] 1
	// goodput_breaker_state [payments open] 1
}

// TestMetricsConcurrentBuild visits a Metrics while transports and
// handlers are built for it and count, for the race detector.
func TestMetricsConcurrentBuild(t *testing.T) {
	var m Metrics
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 50 {
			rt := NewTransport(nil, ClientConfig{Breaker: mustBreaker(t, breaker.Config{}), Dependency: fmt.Sprint("dep", i%5), Metrics: &m})
			rt.metrics.countAttempt(false)
			Handler(http.NotFoundHandler(), ServerConfig{Admission: mustAdmission(t, admission.Config{Max: 2}), Shed: metricsPlan(t), Metrics: &m})
		}
	}()
	for range 50 {
		m.Visit(time.Now(), func(Sample) {})
	}
	<-done
	if v, ok := lookup(&m, time.Now(), "goodput_client_attempts_total", "dependency", "dep0", "attempt", "first"); !ok || v != 10 {
		t.Errorf("dep0 first attempts %v (present %v), want 10", v, ok)
	}
}
