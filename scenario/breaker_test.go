package scenario

import (
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/control/breaker"
)

// breakerBase is a small valid scenario whose protected arm has a breaker; %s replaces
// its breaker list.
const breakerBase = `name: breakers
clock: {duration: 1m, tick: 1s}
load:
  schedule: [{at: 0s, rate: 100/s}]
classes:
  - name: buy
    share: 100%
    deadline: 1s
    stages:
      - {name: charge, dependency: pay}
topology:
  entries:
    - {name: web, target: shop}
  services:
    - {name: shop, instances: 2, workers: 4}
  dependencies:
    - {name: pay, service_time: {p50: 10ms, p99: 40ms}, timeout: 100ms}
    - {name: bank, service_time: {p50: 10ms, p99: 40ms}}
arms:
  - {name: baseline, policy: {}}
  - name: protected
    policy:
      breakers:
        %s
`

// TestBreakerPolicyConfig: the fields map onto control/breaker's Config, zero fields left
// zero for the library's defaults.
func TestBreakerPolicyConfig(t *testing.T) {
	sc, err := Decode("b.yaml", []byte(strings.Replace(breakerBase, "%s",
		"- {dependency: pay, threshold: 25%, window: 30s, buckets: 30, min_volume: 20, open_for: 5s, max_open_for: 30s, probes: 3}\n        - {dependency: bank}", 1)))
	if err != nil {
		t.Fatal(err)
	}
	bs := sc.Arms[1].Policy.Breakers
	want := breaker.Config{Window: 30 * time.Second, Buckets: 30, MinVolume: 20, Threshold: 0.25,
		OpenFor: 5 * time.Second, MaxOpenFor: 30 * time.Second, HalfOpenProbes: 3}
	if got := bs[0].Config(); got.Window != want.Window || got.Buckets != want.Buckets || got.MinVolume != want.MinVolume ||
		got.Threshold != want.Threshold || got.OpenFor != want.OpenFor || got.MaxOpenFor != want.MaxOpenFor || got.HalfOpenProbes != want.HalfOpenProbes {
		t.Errorf("Config() = %+v; want %+v", got, want)
	}
	if got := bs[1].Config(); got.Window != 0 || got.Threshold != 0 || got.OpenFor != 0 || got.Classify != nil {
		t.Errorf("Config() of an empty breaker = %+v; want the zero Config (the library's defaults)", got)
	}
}

// TestBreakerPolicyErrors: each bad breaker is reported at the file:line:col of its value.
func TestBreakerPolicyErrors(t *testing.T) {
	for _, tc := range []struct {
		name, list, want string
	}{
		{"unknown dependency", "- {dependency: provider}", `b.yaml:24:24: arms[1].policy.breakers[0].dependency: dependency "provider" is not a dependency; expected one of "pay", "bank"`},
		{"no dependency", "- {threshold: 25%}", `b.yaml:24:11: arms[1].policy.breakers[0].dependency: dependency is empty`},
		{"twice", "- {dependency: pay}\n        - {dependency: pay}", `b.yaml:25:24: arms[1].policy.breakers[1].dependency: dependency "pay" has a breaker already`},
		{"zero threshold", "- {dependency: pay, threshold: 0%}", `b.yaml:24:40: arms[1].policy.breakers[0].threshold: threshold is 0%; expected a share of failures above 0% and at most 100%`},
		{"threshold above 1", "- {dependency: pay, threshold: 125%}", `b.yaml:24:40: `},
		{"max below open", "- {dependency: pay, open_for: 5s, max_open_for: 2s}", `b.yaml:24:57: arms[1].policy.breakers[0].max_open_for: max_open_for 2s is shorter than open_for 5s`},
		{"max below default open", "- {dependency: pay, max_open_for: 100ms}", `max_open_for 100ms is shorter than open_for 500ms`},
		{"negative window", "- {dependency: pay, window: -1s}", `arms[1].policy.breakers[0].window: window is -1s; expected a positive duration`},
		{"negative open", "- {dependency: pay, open_for: -1s}", `arms[1].policy.breakers[0].open_for: open_for is -1s`},
		{"buckets", "- {dependency: pay, buckets: 100000}", `arms[1].policy.breakers[0].buckets: buckets is 100000; expected 1 to 3600`},
		{"window too short", "- {dependency: pay, window: 5ms, buckets: 10}", `arms[1].policy.breakers[0].window: window 5ms is shorter than 10 buckets of a millisecond`},
		{"min volume", "- {dependency: pay, min_volume: -1}", `arms[1].policy.breakers[0].min_volume: min_volume is -1`},
		{"probes", "- {dependency: pay, probes: -2}", `arms[1].policy.breakers[0].probes: probes is -2`},
		{"unknown field", "- {dependency: pay, treshold: 25%}", `b.yaml:24:29: `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode("b.yaml", []byte(strings.Replace(breakerBase, "%s", tc.list, 1)))
			if err == nil {
				t.Fatalf("accepted; want an error with %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error:\n%v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}
