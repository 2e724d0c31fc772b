package controlhttp_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/breaker"
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

// A checkout handler behind the middleware calls its payments dependency
// through a Transport with a breaker, for a client whose own Transport
// propagates the caller's deadline and logical identity. When the breaker
// is open the handler answers with Refuse, and when the service is full the
// middleware refuses by itself: the caller sees the same kind of answer,
// an explicit overload its Transport does not retry.
func Example() {
	payments := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "authorised") })
	paymentsBreaker, _ := breaker.New(breaker.Config{})
	paymentsClient := &http.Client{Transport: controlhttp.NewTransport(inProcess{payments}, controlhttp.ClientConfig{
		Dependency: "payments",
		Breaker:    paymentsBreaker,
		Reserve:    50 * time.Millisecond,
	})}

	adm, _ := admission.New(admission.Config{Max: 4})
	checkout := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, _ := controlhttp.FromContext(r.Context())
		_, hasDeadline := r.Context().Deadline()
		req, _ := http.NewRequestWithContext(r.Context(), "POST", "http://payments.test/authorise", nil)
		resp, err := paymentsClient.Do(req)
		if controlhttp.Refuse(w, r, err) {
			return
		}
		if err != nil {
			http.Error(w, "payment failed", http.StatusBadGateway)
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Fprintf(w, "%s served as %s, deadline in context: %v, payment %s", info.Identity, info.Class, hasDeadline, body)
	})
	server := controlhttp.Handler(checkout, controlhttp.ServerConfig{
		Deadline:  deadline.Config{SkewMargin: 20 * time.Millisecond},
		Admission: adm,
		Expected:  100 * time.Millisecond,
	})

	retries, _ := budget.New(budget.Config{Ratio: 0.2, MinPerSecond: 10})
	client := &http.Client{Transport: controlhttp.NewTransport(inProcess{server}, controlhttp.ClientConfig{
		Dependency: "checkout",
		Budget:     retries,
		Reserve:    50 * time.Millisecond,
		Seed:       1,
	})}

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	ctx = identity.NewContext(ctx, identity.First("cart-1"))
	call := func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", "http://checkout.test/checkout", nil)
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

	call()
	paymentsBreaker.ForceOpen(time.Now())
	call()
	paymentsBreaker.ForceClosed(time.Now())
	for range 4 { // four requests in flight fill the limit
		adm.Admit(time.Now(), admission.Request{Class: admission.Continuation, Slack: admission.NoDeadline})
	}
	call()
	fmt.Println("budget:", retries.Stats().Retries, "retries,", retries.Stats().Suppressed[budget.ReasonOverload], "suppressed as overload")
	// Output:
	// 200 cart-1:POST/checkout#1 served as standard, deadline in context: true, payment authorised
	// 503 breaker-open: breaker: open (class standard, generation 0)
	//   Goodput-Reject-Reason: breaker-open, Goodput-Overload: no-retry, Retry-After: 1
	// 503 limit: admission: limit reached (class standard, generation 0)
	//   Goodput-Reject-Reason: limit, Goodput-Overload: no-retry, Retry-After: 1
	// budget: 0 retries, 2 suppressed as overload
}

// Refuse answers the errors of calls the controls declined to make as the
// middleware answers its own refusals, and leaves other errors to the
// handler.
func ExampleRefuse() {
	for _, err := range []error{
		fmt.Errorf("controlhttp: call not made: %w", breaker.ErrOpen),
		fmt.Errorf("controlhttp: retry not made: %w", budget.ErrExhausted),
		fmt.Errorf("controlhttp: call not made: %w", deadline.ErrInsufficient),
		errors.New("connection reset by peer"),
	} {
		rec := httptest.NewRecorder()
		if !controlhttp.Refuse(rec, httptest.NewRequest("GET", "/checkout", nil), err) {
			fmt.Printf("not refused: %v\n", err)
			continue
		}
		fmt.Printf("%d %-21s %s Retry-After=%q\n", rec.Code, rec.Header().Get(controlhttp.ReasonHeader),
			rec.Header().Get(controlhttp.OverloadHeader), rec.Header().Get("Retry-After"))
	}
	// Output:
	// 503 breaker-open          no-retry Retry-After="1"
	// 503 budget-exhausted      no-retry Retry-After="1"
	// 503 deadline-insufficient no-retry Retry-After=""
	// not refused: connection reset by peer
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
