package controlhttp_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/controlhttp"
	"github.com/goodput-lab/goodput/control/deadline"
	"github.com/goodput-lab/goodput/control/identity"
)

// inProcess is an http.RoundTripper that serves each call with a handler in
// the same process, so the example needs no network.
type inProcess struct{ h http.Handler }

func (p inProcess) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	p.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}

// A checkout handler behind the middleware, called by a client whose
// Transport propagates the caller's deadline and logical identity. Sheddable
// prefetches are refused first when the service fills up, with an explicit
// overload answer that the Transport does not retry.
func Example() {
	adm, _ := admission.New(admission.Config{Max: 4})
	checkout := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, _ := controlhttp.FromContext(r.Context())
		_, hasDeadline := r.Context().Deadline()
		fmt.Fprintf(w, "%s served as %s, deadline in context: %v", info.Identity, info.Class, hasDeadline)
	})
	server := controlhttp.Handler(checkout, controlhttp.ServerConfig{
		Deadline:  deadline.Config{SkewMargin: 20 * time.Millisecond, Default: 2 * time.Second},
		Admission: adm,
		Classify: func(r *http.Request) admission.Class {
			if r.URL.Path == "/prefetch" {
				return admission.Sheddable
			}
			return admission.Standard
		},
		Expected: 100 * time.Millisecond,
	})

	retries, _ := budget.New(budget.Finagle())
	client := &http.Client{Transport: controlhttp.NewTransport(inProcess{server}, controlhttp.ClientConfig{
		Budget:  retries,
		Reserve: 50 * time.Millisecond,
		Seed:    1,
	})}

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	ctx = identity.NewContext(ctx, identity.First("cart-1"))
	call := func(path string) {
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://checkout.test"+path, nil)
		resp, err := client.Do(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Printf("%d %s\n", resp.StatusCode, strings.TrimSpace(string(body)))
		if reason := resp.Header.Get(controlhttp.ReasonHeader); reason != "" {
			fmt.Printf("  %s: %s, %s: %s, Retry-After: %s\n", controlhttp.ReasonHeader, reason,
				controlhttp.OverloadHeader, resp.Header.Get(controlhttp.OverloadHeader), resp.Header.Get("Retry-After"))
		}
	}

	call("/checkout")
	// Two requests in flight fill sheddable work's 60% share of the limit.
	for range 2 {
		adm.Admit(time.Now(), admission.Request{Class: admission.Standard, Slack: admission.NoDeadline})
	}
	call("/prefetch")
	fmt.Println("budget:", retries.Stats().Retries, "retries,", retries.Stats().Suppressed[budget.ReasonOverload], "suppressed as overload")
	// Output:
	// 200 cart-1:GET/checkout#1 served as standard, deadline in context: true
	// 429 reserved: admission: capacity reserved for higher classes (class sheddable, generation 0)
	//   Goodput-Reject-Reason: reserved, Goodput-Overload: no-retry, Retry-After: 1
	// budget: 0 retries, 1 suppressed as overload
}

// The middleware answers expired and malformed requests itself, before
// admission, with a reason a caller can act on.
func ExampleHandler() {
	h := controlhttp.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "served")
	}), controlhttp.ServerConfig{})

	for _, hdr := range [][2]string{
		{deadline.TimeoutHeader, "500m"},
		{deadline.TimeoutHeader, "0n"},
		{deadline.Header, "tomorrow"},
		{identity.AttemptHeader, "2"},
	} {
		req := httptest.NewRequest("GET", "/", nil)
		req.Header.Set(hdr[0], hdr[1])
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		line := fmt.Sprintf("%s: %-8s → %d %-18s %s", hdr[0], hdr[1], rec.Code,
			rec.Header().Get(controlhttp.ReasonHeader), rec.Header().Get(controlhttp.OverloadHeader))
		fmt.Println(strings.TrimRight(line, " "))
	}
	// Output:
	// Goodput-Timeout: 500m     → 200
	// Goodput-Timeout: 0n       → 503 expired            no-retry
	// Goodput-Deadline: tomorrow → 400 malformed-deadline
	// Goodput-Attempt: 2        → 400 malformed-identity
}
