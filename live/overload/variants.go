package overload

import (
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/breaker"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/controlhttp"
	"github.com/goodput-lab/goodput/control/deadline"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Reasons a checkout writes in [controlhttp.ReasonHeader] when its call failed.
const (
	ReasonDependency = "dependency"         // the dependency answered a status other than 2xx
	ReasonTimeout    = "dependency-timeout" // the call timed out or its caller left
)

// Answer writes the checkout's answer for its one dependency call: 200 when the call
// answered 2xx, else 502 (a status) or 504 (a timeout or a transport error) with a reason.
// It reads and closes resp's body.
func Answer(w http.ResponseWriter, resp *http.Response, err error) {
	if err == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			Refuse(w, http.StatusBadGateway, ReasonDependency)
			return
		}
	}
	if err != nil {
		Refuse(w, http.StatusGatewayTimeout, ReasonTimeout)
		return
	}
	w.Write([]byte("ok\n"))
}

// Refuse answers status with reason in [controlhttp.ReasonHeader] and as the body.
func Refuse(w http.ResponseWriter, status int, reason string) {
	w.Header().Set(controlhttp.ReasonHeader, reason)
	http.Error(w, reason, status)
}

// Naive is the checkout without controls: each call with a fixed 350 ms timeout, one
// immediate retry after any failure, no deadline or identity sent on, and the call
// independent of the caller (it goes on after the caller has left).
func Naive(dependency string, base http.RoundTripper) (http.Handler, error) {
	client := &http.Client{Transport: base, Timeout: 350 * time.Millisecond}
	call := func() (*http.Response, error) {
		req, err := http.NewRequest(http.MethodPost, dependency+"/score", nil)
		if err != nil {
			return nil, err
		}
		return client.Do(req)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resp, err := call()
		if err != nil || resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			resp, err = call()
		}
		Answer(w, resp, err)
	}), nil
}

// Goodput is the checkout with goodput's controls.
//
// RESYNC: this function's body is README.md's "Controls in a Go service" snippet, line for
// line, with three changes: the client's transport is base (not nil, so that every variant
// has the same connection pool), the call goes to the dependency's /score, and the
// handler's "// ..." is an answer through [Answer] and [GoodputRefusal]. Update it when the
// snippet changes.
func Goodput(dependency string, base http.RoundTripper) (http.Handler, error) {
	adm, _ := admission.New(admission.Config{Max: 200})
	retries, _ := budget.New(budget.Finagle()) // one retry budget for every dependency
	payments, _ := breaker.New(breaker.AI2())  // one breaker per dependency
	metrics := new(controlhttp.Metrics)

	paymentClient := &http.Client{Transport: controlhttp.NewTransport(base, controlhttp.ClientConfig{
		Budget:   retries,
		Breaker:  payments,
		Reserve:  100 * time.Millisecond, // kept back to answer the caller after the call
		Expected: 120 * time.Millisecond, // an attempt's p90: no retry without room for it
		Seed:     1,
		Metrics:  metrics,
	})}

	checkout := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// r.Context() ends at the caller's deadline and carries its identity, so the
		// payment call inherits both, and stops when the caller's time is up.
		req, _ := http.NewRequestWithContext(r.Context(), "POST", dependency+"/score", nil)
		resp, err := paymentClient.Do(req)
		if reason := GoodputRefusal(err); reason != "" {
			Refuse(w, http.StatusServiceUnavailable, reason)
			return
		}
		Answer(w, resp, err)
	})

	mux := http.NewServeMux()
	mux.Handle("/checkout", controlhttp.Handler(checkout, controlhttp.ServerConfig{
		Deadline:  deadline.Config{SkewMargin: 20 * time.Millisecond, Default: 1800 * time.Millisecond},
		Admission: adm,
		Classify:  func(r *http.Request) admission.Class { return admission.Standard },
		Expected:  300 * time.Millisecond,
		Metrics:   metrics,
	}))
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics) // a prometheus.Collector over cheap atomic counters
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return mux, nil
}

// GoodputRefusal names the call goodput's transport declined to make, as its
// [controlhttp.Attempt] Refused does ("breaker-open", "deadline-insufficient", …), or ""
// when err is not such a refusal.
func GoodputRefusal(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, breaker.ErrOpen):
		return "breaker-open"
	case errors.Is(err, breaker.ErrProbeLimit):
		return "breaker-probe-limit"
	case errors.Is(err, deadline.ErrExpired):
		return "deadline-expired"
	case errors.Is(err, deadline.ErrInsufficient):
		return "deadline-insufficient"
	}
	return ""
}
