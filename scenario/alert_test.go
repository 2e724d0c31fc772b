package scenario

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// baseAlert is the alert line of validBase, which each case of TestValidateAlerts
// replaces.
const baseAlert = "  - {name: timeouts, metric: timeout_rate, above: 2%, for: 10s}\n"

func withAlerts(t *testing.T, alerts string) string {
	t.Helper()
	if !strings.Contains(validBase, baseAlert) {
		t.Fatal("validBase has no alert line to replace")
	}
	return strings.Replace(validBase, baseAlert, alerts, 1)
}

// TestValidateAcceptsAlerts decodes one rule of every metric and form.
func TestValidateAcceptsAlerts(t *testing.T) {
	s, err := Decode("alerts.yaml", []byte(withAlerts(t, `
  - {name: timeouts, metric: timeout_rate, above: 2%, for: 10s}
  - {name: slow, metric: latency_p99, above: 800ms, window: 5s, n_of_m: {n: 3, m: 5}}
  - {name: median, metric: latency_p50, above: 200ms, window: 1m}
  - {name: tail, metric: latency_p999, above: 1s}
  - {name: failing, metric: success_rate, below: 95%, window: 10s, for: 5s, clear_for: 20s}
  - {name: pool, metric: utilisation, resource: {dependency: pay, of: pool}, above: 90%, window: 3s}
  - {name: workers, metric: utilisation, resource: {service: shop, of: workers}, above: 0.95}
  - {name: admission, metric: utilisation, resource: {of: admission}, above: 90%}
  - {name: queue, metric: queue_age, above: 300ms, window: 2s}
  - {name: storm, metric: amplification, above: 1.5, n_of_m: {n: 1, m: 60}}
  - {name: headroom, metric: utilisation, resource: {service: shop, of: workers}, above: 80%, for: 5s, arms: [protected]}
`)))
	if err != nil {
		t.Fatalf("rejected:\n%v", err)
	}
	a := s.Alerts[1]
	if a.NOfM == nil || a.NOfM.N != 3 || a.NOfM.M != 5 || a.Window != Duration(5*time.Second) || a.WindowTicks(time.Second) != 5 {
		t.Errorf("decoded %+v", a)
	}
	if r := s.Alerts[5].Resource; r == nil || r.Dependency != "pay" || r.Of != ResourcePool {
		t.Errorf("resource %+v", r)
	}
	if s.Alerts[4].ClearFor != Duration(20*time.Second) {
		t.Errorf("clear_for %v", s.Alerts[4].ClearFor)
	}
	if got := s.Alerts[10].Arms; len(got) != 1 || got[0] != "protected" {
		t.Errorf("arms %v, want [protected]", got)
	}
	if s.Alerts[9].Arms != nil {
		t.Errorf("a rule without arms decoded arms %v", s.Alerts[9].Arms)
	}
	if s.Alerts[0].WindowTicks(time.Second) != 1 {
		t.Errorf("no window spans %d ticks, want 1", s.Alerts[0].WindowTicks(time.Second))
	}
}

// TestValidateAlerts breaks one alert rule per case and checks the error's path and text.
func TestValidateAlerts(t *testing.T) {
	for _, tc := range []struct {
		name, alert string
		path, msg   string
	}{
		{"unknown metric", "{name: x, metric: p99, above: 1s}", "$.alerts[0].metric", `unknown alert metric "p99"`},
		{"duplicate name", "{name: x, metric: queue_age, above: 1s}\n  - {name: x, metric: queue_age, above: 2s}", "$.alerts[1].name", "appears twice"},
		{"latency unit", "{name: x, metric: latency_p99, above: 5%}", "$.alerts[0].above", "a duration for queue_age and the latencies"},
		{"success unit", "{name: x, metric: success_rate, below: 500ms}", "$.alerts[0].below", "a percentage for"},
		{"no resource", "{name: x, metric: utilisation, above: 90%}", "$.alerts[0]", "utilisation needs a resource"},
		{"resource elsewhere", "{name: x, metric: queue_age, above: 1s, resource: {of: admission}}", "$.alerts[0].resource", "only read by metric utilisation"},
		{"unknown resource", "{name: x, metric: utilisation, above: 90%, resource: {dependency: pay, of: threads}}", "$.alerts[0].resource.of", `unknown resource "threads"`},
		{"missing dependency", "{name: x, metric: utilisation, above: 90%, resource: {of: pool}}", "$.alerts[0].resource.dependency", "of: pool needs a dependency"},
		{"unknown dependency", "{name: x, metric: utilisation, above: 90%, resource: {dependency: bank, of: pool}}", "$.alerts[0].resource.dependency", `"bank" is not declared`},
		{"no pool", "{name: x, metric: utilisation, above: 90%, resource: {dependency: catalog, of: pool}}", "$.alerts[0].resource.dependency", "has no connection pool"},
		{"no concurrency", "{name: x, metric: utilisation, above: 90%, resource: {dependency: pay, of: concurrency}}", "$.alerts[0].resource.dependency", "has no concurrency limit"},
		{"unknown service", "{name: x, metric: utilisation, above: 90%, resource: {service: store, of: workers}}", "$.alerts[0].resource.service", `"store" is not declared`},
		{"service for a pool", "{name: x, metric: utilisation, above: 90%, resource: {service: shop, dependency: pay, of: pool}}", "$.alerts[0].resource.service", "expected dependency, not service"},
		{"admission of a service", "{name: x, metric: utilisation, above: 90%, resource: {service: shop, of: admission}}", "$.alerts[0].resource", "neither dependency nor service"},
		{"negative window", "{name: x, metric: queue_age, above: 1s, window: -1s}", "$.alerts[0].window", "expected a positive span"},
		{"window longer than the run", "{name: x, metric: success_rate, below: 90%, window: 2m}", "$.alerts[0].window", "longer than the run"},
		{"window between ticks", "{name: x, metric: success_rate, below: 90%, window: 1500ms}", "$.alerts[0].window", "not a whole number of ticks"},
		{"for and n_of_m", "{name: x, metric: queue_age, above: 1s, for: 5s, n_of_m: {n: 1, m: 2}}", "$.alerts[0].n_of_m", "both for and n_of_m"},
		{"n zero", "{name: x, metric: queue_age, above: 1s, n_of_m: {n: 0, m: 2}}", "$.alerts[0].n_of_m.n", "at least 1"},
		{"n above m", "{name: x, metric: queue_age, above: 1s, n_of_m: {n: 3, m: 2}}", "$.alerts[0].n_of_m.m", "fewer than n"},
		{"m longer than the run", "{name: x, metric: queue_age, above: 1s, n_of_m: {n: 3, m: 61}}", "$.alerts[0].n_of_m.m", "longer than the run"},
		{"negative clear_for", "{name: x, metric: queue_age, above: 1s, clear_for: -1s}", "$.alerts[0].clear_for", "zero or more"},
		{"clear_for the run", "{name: x, metric: queue_age, above: 1s, clear_for: 1m}", "$.alerts[0].clear_for", "could never clear"},
		{"for the run", "{name: x, metric: queue_age, above: 1s, for: 1m}", "$.alerts[0].for", "can never fire"},
		{"unknown arm", "{name: x, metric: queue_age, above: 1s, arms: [candidate]}", "$.alerts[0].arms[0]", `arm "candidate" is not declared; expected one of "baseline", "protected"`},
		{"arm twice", "{name: x, metric: queue_age, above: 1s, arms: [protected, protected]}", "$.alerts[0].arms[1]", `arm "protected" is named twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode("alerts.yaml", []byte(withAlerts(t, "  - "+tc.alert+"\n")))
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("Decode = %v; want an ErrorList", err)
			}
			for _, e := range list {
				if e.Path == tc.path && strings.Contains(e.Msg, tc.msg) {
					if e.Line == 0 {
						t.Errorf("%s has no position: %v", tc.path, e)
					}
					return
				}
			}
			t.Errorf("no error at %s containing %q in:\n%v", tc.path, tc.msg, err)
		})
	}
}

// TestValidateAlertWindowTicks: a window may span at most MaxAlertTicks ticks.
func TestValidateAlertWindowTicks(t *testing.T) {
	src := strings.Replace(withAlerts(t, "  - {name: x, metric: success_rate, below: 90%, window: 20s}\n"), "tick: 1s", "tick: 1ms", 1)
	_, err := Decode("alerts.yaml", []byte(src))
	if err == nil || !strings.Contains(err.Error(), "spans 20000 ticks of 1ms; expected at most 10000") {
		t.Errorf("Decode = %v; want the window refused for its ticks", err)
	}
}

// TestTruncateAlerts: a shorter run keeps the rules that fit in it.
func TestTruncateAlerts(t *testing.T) {
	s, err := Decode("alerts.yaml", []byte(withAlerts(t, `
  - {name: fits, metric: queue_age, above: 1s, for: 5s, window: 10s}
  - {name: for, metric: queue_age, above: 1s, for: 30s}
  - {name: window, metric: queue_age, above: 1s, window: 40s}
  - {name: clear, metric: queue_age, above: 1s, clear_for: 30s}
  - {name: n of m, metric: queue_age, above: 1s, n_of_m: {n: 1, m: 40}}
`)))
	if err != nil {
		t.Fatal(err)
	}
	out := s.Truncate(30 * time.Second)
	if len(out.Alerts) != 1 || out.Alerts[0].Name != "fits" {
		t.Errorf("kept %+v, want only fits", out.Alerts)
	}
	if err := out.Validate(); err != nil {
		t.Errorf("the truncated scenario is invalid: %v", err)
	}
}
