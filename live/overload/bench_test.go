package overload_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/failsafe-go/failsafe-go/adaptivelimiter"
	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	"github.com/failsafe-go/failsafe-go/failsafehttp"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	"github.com/failsafe-go/failsafe-go/timeout"

	"github.com/goodput-lab/goodput/live/overload"
)

// failsafeCheckout is the checkout with failsafe-go v0.9.8's policies, as its docs wire
// them (failsafe-go.dev: "HTTP Support", "Adaptive Limiter", "Circuit Breaker", "Retry"):
//
//   - the server behind failsafehttp.NewHandler with an adaptive limiter, configured as
//     the adaptive limiter page's basic usage (limits 1..100 from 20, a 1–30 s recent
//     window of at least 50 samples, a baseline window of 10, queueing 2×–3× the limit);
//   - the client through failsafehttp.NewRoundTripper with, outermost first,
//     failsafehttp.NewRetryPolicyBuilder (retries 5xx, 429 and transport errors, 2 retries
//     by default, delays by Retry-After), a time-based circuit breaker on the same failures
//     that delays by Retry-After (failsafehttp.DelayFunc), and a per-attempt timeout.
//
// The docs give no numbers for a 1.8 s or 600 ms caller, so the backoff is goodput's
// default (25 ms doubling to 1 s), the per-attempt timeout naive's 350 ms, and the breaker
// opens at 50% failures of at least 20 calls in 10 s, half-opens after 5 s and closes
// after 5 successes (its default delay, a minute, would keep the dependency idle past the
// end of every case). failsafe-go does not read or send the caller's deadline; the call is
// made with the request's context, so it stops when the caller leaves.
func failsafeCheckout(dependency string, base http.RoundTripper) (http.Handler, error) {
	failure := func(resp *http.Response, err error) bool {
		return err != nil || resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
	}
	retryPolicy := failsafehttp.NewRetryPolicyBuilder().
		WithBackoff(25*time.Millisecond, time.Second).
		Build()
	circuitBreaker := circuitbreaker.NewBuilder[*http.Response]().
		HandleIf(failure).
		WithFailureRateThreshold(0.5, 20, 10*time.Second).
		WithDelay(5 * time.Second).
		WithDelayFunc(failsafehttp.DelayFunc).
		WithSuccessThreshold(5).
		Build()
	attemptTimeout := timeout.New[*http.Response](350 * time.Millisecond)
	client := &http.Client{Transport: failsafehttp.NewRoundTripper(base, retryPolicy, circuitBreaker, attemptTimeout)}

	checkout := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := http.NewRequestWithContext(r.Context(), http.MethodPost, dependency+"/score", nil)
		resp, err := client.Do(req)
		var exceeded retrypolicy.ExceededError
		switch {
		case errors.Is(err, circuitbreaker.ErrOpen):
			overload.Refuse(w, http.StatusServiceUnavailable, "breaker-open")
		case errors.As(err, &exceeded):
			overload.Refuse(w, http.StatusBadGateway, "retries-exceeded")
		default:
			overload.Answer(w, resp, err)
		}
	})
	limiter := adaptivelimiter.NewBuilder[*http.Response]().
		WithLimits(1, 100, 20).
		WithRecentWindow(time.Second, 30*time.Second, 50).
		WithBaselineWindow(10).
		WithQueueing(2, 3).
		Build()
	return failsafehttp.NewHandler(checkout, limiter), nil
}

var variants = []struct {
	name string
	v    overload.Variant
}{
	{"naive", overload.Naive},
	{"goodput", overload.Goodput},
	{"failsafe", failsafeCheckout},
}

// BenchmarkOverload runs every case against every variant, once each with -benchtime 1x:
//
//	go test -run '^$' -bench Overload -benchtime 1x ./live/overload/
func BenchmarkOverload(b *testing.B) {
	if testing.Short() {
		b.Skip("the live overload benchmark runs for minutes")
	}
	for _, c := range overload.Cases() {
		b.Run(c.Name, func(b *testing.B) {
			for _, v := range variants {
				b.Run(v.name, func(b *testing.B) {
					var res *overload.Result
					for b.Loop() {
						ctx, cancel := context.WithTimeout(b.Context(), c.Duration()+c.Deadline+30*time.Second)
						var err error
						res, err = overload.Run(ctx, c, v.v, 1)
						cancel()
						if err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(res.Goodput, "goodput/s")
					b.ReportMetric(res.Recovery.Seconds(), "recovery-s")
					b.ReportMetric(res.Attempts, "attempts/req")
					b.Log(summary(res))
					if os.Getenv("OVERLOAD_BUCKETS") != "" {
						b.Logf("%+v", res.Buckets)
					}
				})
			}
		})
	}
}

// summary is one run's details for the log: the healthy goodput, whether recovery was
// capped, the final refusals and failures the caller saw, and the proxy's counters.
func summary(res *overload.Result) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "healthy %.0f/s, recovery capped %v, skew %v, generator lateness p99 %v; ",
		res.Healthy, res.Capped, res.Skew.Round(time.Microsecond), res.Load.Lateness.P99.Round(time.Microsecond))
	t := res.Load.Total
	fmt.Fprintf(&sb, "offered %d goodput %d late %d rejected %d failed %d unsent %d;", t.Offered, t.Goodput, t.Late, t.Rejected, t.Failed, t.Unsent)
	for _, r := range t.Rejections {
		fmt.Fprintf(&sb, " %d×%d %s,", r.Count, r.Status, r.Reason)
	}
	for _, f := range t.Failures {
		fmt.Fprintf(&sb, " %d×%s,", f.Count, f.Cause)
	}
	p := res.Proxy
	fmt.Fprintf(&sb, " proxy: calls %d started %d after-deadline %d after-cancel %d errors %d cancelled %d",
		p.Requests, p.WorkStarted, p.StartedAfterDeadline, p.StartedAfterCancel, p.Errors, p.Cancelled)
	return sb.String()
}
