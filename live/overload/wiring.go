// The goodput variant's checkout: README.md's "Controls in a Go service" wiring, copied
// below this comment as it stands there. TestWiringIsReadme fails when the two differ;
// copy the README's block again after changing it.

package overload

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/breaker"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/controlhttp"
	"github.com/goodput-lab/goodput/control/controlprom"
	"github.com/goodput-lab/goodput/control/deadline"
)

// newCheckout serves POST /checkout, which calls the risk dependency at riskURL through
// pool (the service's connections; nil is http.DefaultTransport, which keeps only two idle
// connections a host), and GET /metrics.
func newCheckout(riskURL string, pool http.RoundTripper) (http.Handler, error) {
	metrics := new(controlhttp.Metrics) // shared by the middleware and every transport

	// Admission adapts by itself (no call needed), deciding four times a second: well
	// inside the callers' deadlines, so it follows a dependency that slows before the
	// first deadlines have passed.
	adm, err := admission.New(admission.Config{Max: 200, Window: 250 * time.Millisecond})
	if err != nil {
		return nil, err
	}
	// One budget for every dependency: at most one retry per request in any second (the
	// three attempts a call may make would allow two), so a failing dependency sees at
	// most twice its load and never a burst of banked retries, while a dependency failing
	// fast and often (40% of calls) still has every failure retried.
	retries, err := budget.New(budget.Config{Ratio: 1, MinPerSecond: 10})
	if err != nil {
		return nil, err
	}
	riskBreaker, err := breaker.New(breaker.Config{}) // one per dependency
	if err != nil {
		return nil, err
	}
	risk := &http.Client{Transport: controlhttp.NewTransport(pool, controlhttp.ClientConfig{
		Dependency: "risk", // labels its metrics, so "breaker open" says which breaker
		Budget:     retries,
		Breaker:    riskBreaker,
		Reserve:    50 * time.Millisecond, // kept back to answer the caller after the call
		Expected:   50 * time.Millisecond, // an attempt's p90: no retry without room for it
		Seed:       1,
		Metrics:    metrics,
	})}

	checkout := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		order, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<10))
		if err != nil {
			http.Error(w, "unreadable order", http.StatusBadRequest)
			return
		}
		// r.Context() ends at the caller's deadline and carries its identity, so the call
		// inherits both and stops when the caller's time is up; a bytes.Reader body can be
		// sent again by a retry.
		req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, riskURL, bytes.NewReader(order))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		resp, err := risk.Do(req)
		if controlhttp.Refuse(w, r, err) { // breaker open, budget or deadline: the middleware's 503
			return
		}
		if err != nil {
			http.Error(w, "risk check failed", http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			http.Error(w, "risk check failed: "+resp.Status, http.StatusBadGateway)
			return
		}
		fmt.Fprintln(w, "order accepted")
	})

	mux := http.NewServeMux()
	mux.Handle("POST /checkout", controlhttp.Handler(checkout, controlhttp.ServerConfig{
		Deadline:  deadline.Config{SkewMargin: 20 * time.Millisecond}, // 30 s without a header, at most 60 s
		Admission: adm,
		Expected:  100 * time.Millisecond, // refuse at once what cannot finish before its deadline
		Metrics:   metrics,
	}))
	reg := prometheus.NewRegistry()
	reg.MustRegister(controlprom.NewCollector(metrics))
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return mux, nil
}
