package scenario

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestLoadFactorAt checks the multiplier forms at fixed loads.
func TestLoadFactorAt(t *testing.T) {
	for _, tc := range []struct {
		f    LoadFactor
		x    float64
		want float64
	}{
		{LoadFactor{Form: LoadLinear, A: 0.5}, 0, 1},
		{LoadFactor{Form: LoadLinear, A: 0.5}, 4, 3},
		{LoadFactor{Form: LoadLinear, A: 0}, 100, 1},
		{LoadFactor{Form: LoadPolynomial, A: 4, K: 3}, 0.5, 1.5},
		{LoadFactor{Form: LoadPolynomial, A: 4, K: 3}, 1, 5},
		{LoadFactor{Form: LoadPolynomial, A: 1, K: 0.5}, 9, 4},
		{LoadFactor{Form: LoadExponential, A: 1, B: math.Ln2}, 3, 8}, // e^(b·x) itself
		{LoadFactor{Form: LoadExponential, A: 0.5, B: math.Ln2}, 2, 2.5},
		{LoadFactor{Form: LoadExponential, A: 1, B: 1}, 0, 1},
		{LoadFactor{Form: LoadLinear, A: 1}, 1e9, MaxLoadFactor},            // capped
		{LoadFactor{Form: LoadExponential, A: 1, B: 1}, 1e6, MaxLoadFactor}, // capped, not +Inf
		{LoadFactor{Form: "unknown", A: 1}, 10, 1},
	} {
		if got := tc.f.At(tc.x); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%+v at %v: %v, want %v", tc.f, tc.x, got, tc.want)
		}
	}
}

// TestValidateLoad breaks the load-dependent fields of a small scenario one at a time
// and checks the error's path, position and message.
func TestValidateLoad(t *testing.T) {
	const base = `
name: load
clock: {duration: 1m}
load:
  schedule: [{at: 0s, rate: 100/s}]
classes:
  - name: buy
    share: 100%
    deadline: 1s
    stages:
      - {name: prepare, work: 2ms}
      - {name: charge, dependency: pay}
topology:
  entries:
    - {name: web, target: shop, timeout: 300ms}
  services:
    - name: shop
      instances: 2
      workers: 4
      memory: {limit: 64MiB, per_attempt: 1MiB, gc: {overhead: 50%, exponent: 2}}
      load_factor: {service_time: {of: utilisation, form: polynomial, a: 2, k: 2}}
  dependencies:
    - name: pay
      service_time: {p50: 10ms, p99: 40ms}
      concurrency: 8
      beyond: reject
      hang_rate: 1%
      timeout: 100ms
      load_factor:
        service_time: {of: concurrency, form: linear, a: 0.1}
        error_rate: {of: utilisation, form: exponential, a: 1, b: 2}
faults:
  - {at: 10s, for: 10s, dependency: pay, hang_rate: 30%}
arms:
  - {name: baseline, policy: {}}
`
	if _, err := Decode("load.yaml", []byte(base)); err != nil {
		t.Fatalf("base rejected:\n%v", err)
	}
	for _, tc := range []struct {
		name, old, new, path, msg string
	}{
		{"unknown of", "of: concurrency", "of: requests", "$.topology.dependencies[0].load_factor.service_time.of", `unknown load "requests"`},
		{"no of", "{of: concurrency, form: linear", "{form: linear", "$.topology.dependencies[0].load_factor.service_time.of", "of is empty"},
		{"unknown form", "form: linear", "form: cubic", "$.topology.dependencies[0].load_factor.service_time.form", `unknown form "cubic"`},
		{"negative a", "a: 0.1", "a: -1", "$.topology.dependencies[0].load_factor.service_time.a", "zero or more"},
		{"no exponent", "form: polynomial, a: 2, k: 2", "form: polynomial, a: 2", "$.topology.services[0].load_factor.service_time.k", "exponent above 0"},
		{"k on linear", "form: linear, a: 0.1", "form: linear, a: 0.1, k: 2", "$.topology.dependencies[0].load_factor.service_time.k", "only a polynomial"},
		{"no rate", "a: 1, b: 2", "a: 1", "$.topology.dependencies[0].load_factor.error_rate.b", "rate above 0"},
		{"utilisation without a ceiling", "      concurrency: 8\n      beyond: reject\n", "", "$.topology.dependencies[0].load_factor.error_rate.of", "utilisation needs a capacity"},
		{"service error rate", "{service_time: {of: utilisation, form: polynomial, a: 2, k: 2}}", "{error_rate: {of: concurrency, form: linear, a: 1}}", "$.topology.services[0].load_factor.error_rate", "a service has no error rate"},
		{"reject without a ceiling", "      concurrency: 8\n", "", "$.topology.dependencies[0].beyond", "needs a ceiling"},
		{"unknown beyond", "beyond: reject", "beyond: drop", "$.topology.dependencies[0].beyond", `unknown beyond "drop"`},
		{"hang rate", "hang_rate: 1%", "hang_rate: 101%", "", "more than 100%"},
		{"gc overhead", "overhead: 50%", "overhead: 100%", "$.topology.services[0].memory.gc.overhead", "at most 99%"},
		{"gc exponent", "exponent: 2", "exponent: 11", "$.topology.services[0].memory.gc.exponent", "at most 10"},
		{"gc without a heap", "limit: 64MiB, per_attempt: 1MiB, gc", "limit: 64MiB, gc", "$.topology.services[0].memory.gc", "gc needs a heap"},
		{"fault hang rate only", "dependency: pay, hang_rate: 30%", "dependency: pay", "$.faults[0]", "service_time, error_rate or hang_rate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(base, tc.old, tc.new, 1)
			if src == base {
				t.Fatalf("%q not found", tc.old)
			}
			_, err := Decode("case.yaml", []byte(src))
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("Decode() = %v; want an ErrorList", err)
			}
			for _, e := range list {
				if (e.Path == tc.path || tc.path == "") && strings.Contains(e.Msg, tc.msg) {
					if e.Line == 0 {
						t.Errorf("%s has no position: %v", tc.path, e)
					}
					return
				}
			}
			t.Errorf("no error at %s containing %q; got:\n%v", tc.path, tc.msg, err)
		})
	}
}
