package controlhttp_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/controlhttp"
	"github.com/goodput-lab/goodput/control/identity"
)

// payments is a payment provider served in process: it prints the key and
// attempt of each call and fails the first authorisation with a 503.
type payments struct{ failed bool }

func (p *payments) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	if strings.HasSuffix(r.URL.Path, "/authorise") && !p.failed {
		p.failed = true
		rec.WriteHeader(http.StatusServiceUnavailable)
	}
	fmt.Printf("%s %s  %s: %s  %s: %s  → %d\n", r.Method, r.URL.Path, identity.Header, r.Header.Get(identity.Header),
		identity.AttemptHeader, r.Header.Get(identity.AttemptHeader), rec.Code)
	return rec.Result(), nil
}

// A checkout makes two calls on behalf of one logical request, whose
// identity the middleware put in its context: each call carries its own key,
// derived from the request's and the call's operation (the method and path
// unless ClientConfig.Operation names it), so the provider does not answer
// the capture with the authorisation; the retry of the authorisation keeps
// its key with the next attempt number. When the budget refuses a retry, the
// error says so.
func ExampleClientConfig_operation() {
	retries, _ := budget.New(budget.Finagle())
	client := &http.Client{Transport: controlhttp.NewTransport(&payments{}, controlhttp.ClientConfig{
		Budget: retries, BackoffBase: time.Nanosecond, Seed: 1,
	})}

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	ctx = identity.NewContext(ctx, identity.First("order-7")) // as controlhttp.Handler does
	for _, op := range []string{"authorise", "capture"} {
		req, _ := http.NewRequestWithContext(ctx, "POST", "http://payments.internal/payments/"+op, strings.NewReader("amount=12"))
		resp, err := client.Do(req)
		if err != nil {
			fmt.Println(err)
			continue
		}
		resp.Body.Close()
	}

	empty, _ := budget.New(budget.Config{}) // no retries at all
	client.Transport = controlhttp.NewTransport(&payments{}, controlhttp.ClientConfig{Budget: empty})
	req, _ := http.NewRequestWithContext(ctx, "POST", "http://payments.internal/payments/authorise", strings.NewReader("amount=12"))
	_, err := client.Do(req)
	fmt.Println("budget exhausted:", errors.Is(err, budget.ErrExhausted))
	// Output:
	// POST /payments/authorise  Idempotency-Key: "order-7:POST/payments/authorise"  Goodput-Attempt: 1  → 503
	// POST /payments/authorise  Idempotency-Key: "order-7:POST/payments/authorise"  Goodput-Attempt: 2  → 200
	// POST /payments/capture  Idempotency-Key: "order-7:POST/payments/capture"  Goodput-Attempt: 1  → 200
	// POST /payments/authorise  Idempotency-Key: "order-7:POST/payments/authorise"  Goodput-Attempt: 1  → 503
	// budget exhausted: true
}
