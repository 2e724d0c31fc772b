package controlhttp

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/goodput-lab/goodput/control/deadline"
)

// TestCancellationPropagates proves that a caller's deadline stops work two
// hops away. A caller with a 1 s deadline calls service A through a
// Transport (reserve 100 ms); A's handler calls service B through another
// (reserve 50 ms); B's handler works in 10 ms steps until its context ends.
// Each server takes 10 ms of skew margin off the absolute deadline it
// receives, and the fake network carries only headers (no context), so B
// can stop only because the deadline travelled: 1 s − 100 − 10 − 50 − 10 =
// 830 ms. Time is synctest's, so the instants are exact.
func TestCancellationPropagates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		server := ServerConfig{Deadline: deadline.Config{SkewMargin: 10 * time.Millisecond}}

		var steps int
		var stoppedAt time.Time
		var stopErr error
		serviceB := Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx := r.Context()
			for {
				select {
				case <-ctx.Done():
					stoppedAt, stopErr = time.Now(), ctx.Err()
					w.WriteHeader(http.StatusGatewayTimeout)
					return
				case <-time.After(10 * time.Millisecond):
					if steps++; steps == 1000 { // 10 s: the deadline never came
						return
					}
				}
			}
		}), server)
		toB := &http.Client{Transport: NewTransport(network{serviceB}, ClientConfig{Reserve: 50 * time.Millisecond})}

		serviceA := Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			req, _ := http.NewRequestWithContext(r.Context(), "GET", "http://b.test/work", nil)
			resp, err := toB.Do(req)
			if err != nil {
				w.WriteHeader(http.StatusBadGateway)
				return
			}
			resp.Body.Close()
			w.WriteHeader(resp.StatusCode)
		}), server)
		toA := &http.Client{Transport: NewTransport(network{serviceA}, ClientConfig{Reserve: 100 * time.Millisecond})}

		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://a.test/checkout", nil)
		resp, err := toA.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		answeredAt := time.Now()

		if want := start.Add(830 * time.Millisecond); !stoppedAt.Equal(want) {
			t.Errorf("B stopped at +%v, want +830ms", stoppedAt.Sub(start))
		}
		if !errors.Is(stopErr, context.DeadlineExceeded) {
			t.Errorf("B's context ended with %v, want context.DeadlineExceeded", stopErr)
		}
		if steps != 82 && steps != 83 {
			t.Errorf("B worked %d steps of 10ms, want 82 or 83 (until 830ms)", steps)
		}
		if resp.StatusCode != http.StatusGatewayTimeout || !answeredAt.Equal(stoppedAt) {
			t.Errorf("caller got %d at +%v, want B's 504 at once", resp.StatusCode, answeredAt.Sub(start))
		}
		before := steps
		time.Sleep(time.Minute)
		if steps != before {
			t.Errorf("B kept working after its deadline: %d more steps", steps-before)
		}
	})
}

// TestCallerStopsWaiting checks that a dependency that ignores its deadline
// does not hold the caller: the call's timeout (the deadline minus the
// reserve) ends the wait, and the failure is a timeout.
func TestCallerStopsWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		slow := Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(5 * time.Second) // ignores r.Context()
		}), ServerConfig{})
		rt := NewTransport(network{slow}, ClientConfig{Reserve: 50 * time.Millisecond})
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		_, err := get(t, ctx, rt)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error %v, want context.DeadlineExceeded", err)
		}
		if d := time.Since(start); d != 450*time.Millisecond {
			t.Errorf("caller waited %v, want 450ms (500ms − 50ms reserve)", d)
		}
		time.Sleep(5 * time.Second) // let the slow handler finish inside the bubble
	})
}
