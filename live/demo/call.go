package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"time"

	"github.com/goodput-lab/goodput/control/controlhttp"
	"github.com/goodput-lab/goodput/control/identity"
	"github.com/goodput-lab/goodput/scenario"
)

// payload is the JSON body of a call to a dependency.
type payload struct {
	// Order is the logical identity of the order the call is for.
	Order  string `json:"order"`
	Amount int64  `json:"amount"`
}

// client calls one dependency.
type client struct {
	dep        Dependency
	s          *Service
	http       *http.Client
	controlled bool // http's transport is a controlhttp.Transport
}

// errStatus is a dependency's answer that is not a success.
type errStatus struct {
	dep    string
	status int
	reason string
}

func (e *errStatus) Error() string {
	if e.reason != "" {
		return fmt.Sprintf("%s answered %d (%s)", e.dep, e.status, e.reason)
	}
	return fmt.Sprintf("%s answered %d", e.dep, e.status)
}

// post calls path on the dependency with p as its JSON body. Under the controls it is one
// call through the controlled transport, which derives the timeout, propagates the
// deadline and identity, and retries under the budget. Otherwise it is the baseline's
// call: each attempt with the dependency's fixed timeout, retried as the dependency's
// retries say, with the identity only when the arm sends one.
func (c *client) post(ctx context.Context, path string, p payload, id identity.Request) error {
	body, _ := json.Marshal(p)
	if c.controlled {
		// The identity goes in the context: the transport derives this call's own key
		// from it and the operation (an authorisation and a capture of one order carry
		// different keys), and sends it with each attempt's number.
		err := c.attempt(identity.NewContext(ctx, id), path, body, nil)
		c.count(err)
		return err
	}
	r := c.dep.Retries
	for n := 1; ; n++ {
		actx, cancel := ctx, context.CancelFunc(func() {})
		if c.dep.Timeout > 0 {
			actx, cancel = context.WithTimeout(ctx, c.dep.Timeout)
		}
		var hdr http.Header
		if c.s.cfg.Policy.Identity {
			hdr = http.Header{}
			identity.Inject(hdr, identity.Request{Key: id.Key, Attempt: id.Attempt + n - 1})
		}
		err := c.attempt(actx, path, body, hdr)
		timedOut := errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil
		cancel()
		c.count(err)
		if err == nil || n > r.Max || !retryOn(r, err, timedOut) {
			return err
		}
		if d := r.Backoff.Exponential().Wait(n, rand.Float64()); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				return err
			case <-t.C:
			}
		}
	}
}

// retryOn reports whether the layered retry policy r retries the failed attempt err.
func retryOn(r scenario.Retries, err error, timedOut bool) bool {
	trigger := scenario.RetryOnError
	var es *errStatus
	switch {
	case timedOut:
		trigger = scenario.RetryOnTimeout
	case errors.As(err, &es) && (es.status == http.StatusTooManyRequests || es.status == http.StatusServiceUnavailable):
		trigger = scenario.RetryOnOverload
	case errors.As(err, &es) && es.status < 500:
		return false // the dependency refused the request itself
	}
	return len(r.On) == 0 || slices.Contains(r.On, trigger)
}

// attempt makes one call and reads its answer to the end.
func (c *client) attempt(ctx context.Context, path string, body []byte, hdr http.Header) error {
	req, err := http.NewRequestWithContext(ctx, "POST", c.dep.URL+path, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%s: %w", c.dep.Name, err)
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", c.dep.Name, err)
	}
	_, err = io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &errStatus{dep: c.dep.Name, status: resp.StatusCode, reason: resp.Header.Get(controlhttp.ReasonHeader)}
	}
	if err != nil {
		return fmt.Errorf("%s: reading the answer: %w", c.dep.Name, err)
	}
	return nil
}

// count counts one call's outcome in the service's metrics.
func (c *client) count(err error) {
	outcome := "ok"
	switch {
	case err == nil:
	case errors.Is(err, context.DeadlineExceeded):
		outcome = "timeout"
	case errors.Is(err, context.Canceled):
		outcome = "canceled"
	default:
		outcome = "error"
	}
	c.s.calls.WithLabelValues(c.dep.Name, outcome).Inc()
}
