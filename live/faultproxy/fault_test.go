package faultproxy

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/scenario"
)

func TestFaultValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    Fault
		want string // "" for valid
	}{
		{"zero", Fault{}, ""},
		{"everything", Fault{ServiceTime: q(20*ms, 100*ms), ErrorRate: 0.4, ErrorStatus: 500, ErrorBody: "x", Concurrency: 3, Beyond: BeyondReject, RejectStatus: 429, HangRate: 0.1}, ""},
		{"constant service time", Fault{ServiceTime: q(20*ms, 20*ms)}, ""},
		{"p99 below p50", Fault{ServiceTime: q(20*ms, 10*ms)}, "service_time p99 10ms is below p50 20ms"},
		{"no median", Fault{ServiceTime: q(0, 10*ms)}, "service_time p50 0s: expected a positive median"},
		{"error rate over 1", Fault{ErrorRate: 1.5}, "error_rate 1.5: expected a share from 0 to 1"},
		{"negative hang rate", Fault{HangRate: -0.1}, "hang_rate -0.1: expected a share from 0 to 1"},
		{"status", Fault{ErrorStatus: 99}, "error_status 99: expected an HTTP status from 100 to 599"},
		{"reject status", Fault{RejectStatus: 600}, "reject_status 600"},
		{"negative ceiling", Fault{Concurrency: -1}, "concurrency -1: expected 0 (no ceiling) or more"},
		{"beyond", Fault{Beyond: "drop"}, `beyond "drop": expected "wait" or "reject"`},
	} {
		err := tc.f.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v; want one containing %q", tc.name, err, tc.want)
		}
	}
}

// The JSON form is the control API's, spelled as the scenario spells the same values.
func TestFaultJSON(t *testing.T) {
	f := Fault{ServiceTime: q(20*ms, 100*ms), ErrorRate: 0.4, Concurrency: 20, Beyond: BeyondReject, HangRate: 0.05}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"service_time":{"p50":"20ms","p99":"100ms"},"error_rate":"40%","concurrency":20,"beyond":"reject","hang_rate":"5%"}`
	if string(b) != want {
		t.Errorf("Marshal = %s; want %s", b, want)
	}
	var back Fault
	if err := json.Unmarshal(b, &back); err != nil || back != f {
		t.Errorf("Unmarshal(%s) = %v, %v; want %v", b, back, err, f)
	}
	if err := json.Unmarshal([]byte(`{"error_rate": 0.25}`), &back); err != nil || back.ErrorRate != 0.25 {
		t.Errorf("a bare number as a rate: %v, %v", back, err)
	}
	if b, _ := json.Marshal(Fault{}); string(b) != "{}" {
		t.Errorf("zero Fault = %s; want {}", b)
	}
}

func TestParseServiceTime(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want scenario.Quantiles
		err  string
	}{
		{in: "p50=20ms,p99=100ms", want: q(20*ms, 100*ms)},
		{in: " p99=1s , p50=200ms ", want: q(200*ms, time.Second)},
		{in: "20ms", want: q(20*ms, 20*ms)},
		{in: "p50=20ms", err: "p99 is missing"},
		{in: "p99=20ms", err: "p50 is missing"},
		{in: "p50=20ms,p99=10ms", err: "p99 10ms is below p50 20ms"},
		{in: "p50=20ms,p90=30ms", err: `unknown quantile "p90"`},
		{in: "p50=20ms,p50=30ms", err: "p50 given twice"},
		{in: "p50=20,p99=30ms", err: "has no unit"},
		{in: "p50=0s,p99=30ms", err: "expected a positive duration"},
		{in: "0s", err: "expected a positive duration"},
		{in: "", err: "empty duration"},
	} {
		got, err := ParseServiceTime(tc.in)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("ParseServiceTime(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseServiceTime(%q) error %v; want one containing %q", tc.in, err, tc.err)
		}
		if err == nil {
			if back, err := ParseServiceTime(FormatServiceTime(got)); err != nil || back != got {
				t.Errorf("round trip of %q: %v, %v", tc.in, back, err)
			}
		}
	}
}

func TestFaultString(t *testing.T) {
	for _, tc := range []struct {
		f    Fault
		want string
	}{
		{Fault{}, "none"},
		{Fault{ServiceTime: q(20*ms, 100*ms), ErrorRate: 0.4, Concurrency: 20, HangRate: 0.01},
			"service_time p50=20ms,p99=100ms error_rate 40% (503) concurrency 20 (wait) hang_rate 1%"},
		{Fault{ErrorRate: 1, ErrorStatus: 500, Concurrency: 2, Beyond: BeyondReject}, "error_rate 100% (500) concurrency 2 (reject)"},
	} {
		if got := tc.f.String(); got != tc.want {
			t.Errorf("String() = %q; want %q", got, tc.want)
		}
	}
}
