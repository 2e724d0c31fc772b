package faultproxy

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/goodput-lab/goodput/scenario"
)

// What the proxy does with a call beyond the concurrency ceiling ([Fault.Beyond]).
const (
	BeyondWait   = "wait"   // queue, first in first out, until a slot frees or the caller gives up
	BeyondReject = "reject" // answer RejectStatus at once
)

// Default statuses and body of the answers the proxy makes up.
const (
	DefaultErrorStatus  = http.StatusServiceUnavailable
	DefaultRejectStatus = http.StatusServiceUnavailable
	DefaultErrorBody    = "faultproxy: injected error\n"
)

// FaultHeader names, on an answer the proxy made up instead of forwarding, what made it:
// "error" (the error rate) or "concurrency" (rejected over the ceiling).
const FaultHeader = "Goodput-Fault"

// DelayHeader carries, on every answer to a call that got added service time, how much
// (a Go duration, e.g. 23.5ms): what the dependency was made to spend on the call.
const DelayHeader = "Goodput-Fault-Delay"

// Fault is what the proxy does to a call now. The zero Fault forwards every call at once.
// Its JSON form is the control API's (PUT /_goodput/fault), spelled as the scenario file
// spells the same things: {"service_time": {"p50": "20ms", "p99": "100ms"}, "error_rate":
// "40%", "concurrency": 20, "beyond": "reject"}.
type Fault struct {
	// ServiceTime is added to every call before it is forwarded: a log-normal by its
	// median and p99, as the scenario's dependency service_time. Zero adds none.
	ServiceTime scenario.Quantiles `json:"service_time,omitzero"`
	// ErrorRate is the share of calls answered with ErrorStatus and ErrorBody, after
	// their added service time, instead of being forwarded.
	ErrorRate scenario.Fraction `json:"error_rate,omitzero"`
	// ErrorStatus is the status of an injected error; zero means DefaultErrorStatus.
	ErrorStatus int `json:"error_status,omitzero"`
	// ErrorBody is the body of an injected error; empty means DefaultErrorBody.
	ErrorBody string `json:"error_body,omitzero"`
	// Concurrency is the most calls in service at once (from the end of their wait for a
	// slot to their answer, hung calls included). Zero means no ceiling.
	Concurrency int `json:"concurrency,omitzero"`
	// Beyond is what a call over the ceiling gets: BeyondWait (the default, as the
	// replay model's dependency queue) or BeyondReject.
	Beyond string `json:"beyond,omitzero"`
	// RejectStatus is the status of a rejection over the ceiling; zero means
	// DefaultRejectStatus.
	RejectStatus int `json:"reject_status,omitzero"`
	// HangRate is the share of calls that are never answered: they hold their slot
	// until the caller gives up (its context ends).
	HangRate scenario.Fraction `json:"hang_rate,omitzero"`
}

// Validate reports whether f can be applied: a service time with 0 < p50 <= p99 (or none),
// rates from 0 to 1, statuses from 100 to 599 (or zero for the default), a ceiling of zero
// or more and a known Beyond.
func (f Fault) Validate() error {
	var errs []error
	switch q := f.ServiceTime; {
	case q.IsZero():
	case q.P50 <= 0:
		errs = append(errs, fmt.Errorf("service_time p50 %v: expected a positive median, e.g. 20ms", q.P50))
	case q.P99 < q.P50:
		errs = append(errs, fmt.Errorf("service_time p99 %v is below p50 %v: expected p99 >= p50", q.P99, q.P50))
	}
	for _, r := range []struct {
		name string
		v    scenario.Fraction
	}{{"error_rate", f.ErrorRate}, {"hang_rate", f.HangRate}} {
		if !(r.v >= 0 && r.v <= 1) {
			errs = append(errs, fmt.Errorf("%s %v: expected a share from 0 to 1 (or 0%% to 100%%)", r.name, float64(r.v)))
		}
	}
	for _, s := range []struct {
		name string
		v    int
	}{{"error_status", f.ErrorStatus}, {"reject_status", f.RejectStatus}} {
		if s.v != 0 && (s.v < 100 || s.v > 599) {
			errs = append(errs, fmt.Errorf("%s %d: expected an HTTP status from 100 to 599 (or 0 for 503)", s.name, s.v))
		}
	}
	if f.Concurrency < 0 {
		errs = append(errs, fmt.Errorf("concurrency %d: expected 0 (no ceiling) or more", f.Concurrency))
	}
	switch f.Beyond {
	case "", BeyondWait, BeyondReject:
	default:
		errs = append(errs, fmt.Errorf("beyond %q: expected %q or %q", f.Beyond, BeyondWait, BeyondReject))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("faultproxy: fault: %w", err)
	}
	return nil
}

// String describes f in one line for logs, e.g. "service_time p50=20ms,p99=100ms
// error_rate 40% concurrency 20 (reject)"; "none" for the zero Fault.
func (f Fault) String() string {
	var parts []string
	if !f.ServiceTime.IsZero() {
		parts = append(parts, "service_time "+FormatServiceTime(f.ServiceTime))
	}
	if f.ErrorRate > 0 {
		parts = append(parts, fmt.Sprintf("error_rate %v (%d)", f.ErrorRate, f.errorStatus()))
	}
	if f.Concurrency > 0 {
		parts = append(parts, fmt.Sprintf("concurrency %d (%s)", f.Concurrency, f.beyond()))
	}
	if f.HangRate > 0 {
		parts = append(parts, fmt.Sprintf("hang_rate %v", f.HangRate))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}

func (f Fault) errorStatus() int  { return cmp.Or(f.ErrorStatus, DefaultErrorStatus) }
func (f Fault) rejectStatus() int { return cmp.Or(f.RejectStatus, DefaultRejectStatus) }
func (f Fault) errorBody() string { return cmp.Or(f.ErrorBody, DefaultErrorBody) }
func (f Fault) beyond() string    { return cmp.Or(f.Beyond, BeyondWait) }

// ParseServiceTime parses the command line's spelling of a service time: "p50=20ms,p99=100ms",
// or one duration ("20ms") for a constant.
func ParseServiceTime(s string) (scenario.Quantiles, error) {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, "=") {
		d, err := scenario.ParseDuration(s)
		if err != nil {
			return scenario.Quantiles{}, fmt.Errorf("service time %q: %v", s, err)
		}
		q := scenario.Quantiles{P50: d, P99: d}
		if err := q.Validate(); err != nil {
			return scenario.Quantiles{}, fmt.Errorf("service time %q: expected a positive duration", s)
		}
		return q, nil
	}
	var q scenario.Quantiles
	for part := range strings.SplitSeq(s, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		var dst *scenario.Duration
		switch strings.TrimSpace(k) {
		case "p50":
			dst = &q.P50
		case "p99":
			dst = &q.P99
		default:
			return scenario.Quantiles{}, fmt.Errorf("service time %q: unknown quantile %q; expected p50=…,p99=…, e.g. p50=20ms,p99=100ms", s, k)
		}
		if *dst != 0 {
			return scenario.Quantiles{}, fmt.Errorf("service time %q: %s given twice", s, k)
		}
		d, err := scenario.ParseDuration(v)
		if err != nil {
			return scenario.Quantiles{}, fmt.Errorf("service time %q: %s: %v", s, k, err)
		}
		if d <= 0 {
			return scenario.Quantiles{}, fmt.Errorf("service time %q: %s is %v; expected a positive duration", s, k, d)
		}
		*dst = d
	}
	switch {
	case q.P50 == 0:
		return scenario.Quantiles{}, fmt.Errorf("service time %q: p50 is missing; expected p50=…,p99=…, e.g. p50=20ms,p99=100ms", s)
	case q.P99 == 0:
		return scenario.Quantiles{}, fmt.Errorf("service time %q: p99 is missing; expected p50=…,p99=…, e.g. p50=20ms,p99=100ms", s)
	case q.P99 < q.P50:
		return scenario.Quantiles{}, fmt.Errorf("service time %q: p99 %v is below p50 %v; expected p99 >= p50", s, q.P99, q.P50)
	}
	return q, nil
}

// FormatServiceTime is the spelling ParseServiceTime reads: "p50=20ms,p99=100ms".
func FormatServiceTime(q scenario.Quantiles) string {
	return "p50=" + q.P50.String() + ",p99=" + q.P99.String()
}
