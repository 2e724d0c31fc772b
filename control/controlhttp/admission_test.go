package controlhttp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/deadline"
	"github.com/goodput-lab/goodput/control/internal/clocktest"
)

// TestAdmissionAdaptsWithoutStarted is issue 24's first admission finding,
// through the middleware as the README wires it (no call to Started): 200
// requests a second with a 600 ms deadline for 10 s, to a handler whose
// dependency times out, so that it answers 503 after 300 ms — before the
// caller's deadline, so nothing is dropped — to 9 requests in 10. The limit
// must fall. With 40 % of the answers failing fast (a dependency refusing at
// once) it must not: refusing more work does not make the dependency
// succeed.
func TestAdmissionAdaptsWithoutStarted(t *testing.T) {
	for _, tc := range []struct {
		name  string
		serve func(i int, w http.ResponseWriter)
		fall  bool
	}{
		{"slow 503s", func(i int, w http.ResponseWriter) {
			if i%10 == 0 {
				time.Sleep(20 * time.Millisecond)
				return
			}
			time.Sleep(300 * time.Millisecond) // the dependency call timed out
			http.Error(w, "risk: timeout", http.StatusServiceUnavailable)
		}, true},
		{"fast 503s", func(i int, w http.ResponseWriter) {
			if i%5 < 2 {
				time.Sleep(time.Millisecond)
				http.Error(w, "risk: 503", http.StatusServiceUnavailable)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctl := mustAdmission(t, admission.Config{Max: 200})
				var mu sync.Mutex
				n := 0
				h := Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					mu.Lock()
					i := n
					n++
					mu.Unlock()
					tc.serve(i, w)
				}), ServerConfig{Admission: ctl})
				var wg sync.WaitGroup
				for range 2000 { // 10 s at 200/s
					wg.Go(func() {
						req := httptest.NewRequest("POST", "/checkout", nil)
						req.Header.Set(deadline.TimeoutHeader, "600m")
						h.ServeHTTP(httptest.NewRecorder(), req)
					})
					time.Sleep(5 * time.Millisecond)
				}
				wg.Wait()
				st := ctl.Stats()
				t.Logf("limit %d after %d windows, %d decreases", st.Limit, st.Windows, st.Decreases)
				if fell := st.Limit < 200 && st.Decreases > 0; fell != tc.fall {
					t.Errorf("limit %d after %d windows (%d decreases); want it to fall: %v", st.Limit, st.Windows, st.Decreases, tc.fall)
				}
				if tc.fall && st.Limit > 171 { // 200 × 0.95³
					t.Errorf("limit %d after 10 s of slow failures; want at least three 5%% steps down", st.Limit)
				}
			})
		})
	}
}

// TestSingleClassReachesMax: a service that classifies nothing (all
// Standard) is never answered 429 "reserved" below the limit; the 15 %
// reserved for continuations and lookups is lent while they have no demand.
func TestSingleClassReachesMax(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctl := mustAdmission(t, admission.Config{Max: 10})
		release := make(chan struct{})
		h := Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }), ServerConfig{Admission: ctl})
		var wg sync.WaitGroup
		for range 10 {
			wg.Go(func() { h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil)) })
		}
		synctest.Wait()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
		if got := ctl.InFlight(); got != 10 {
			t.Errorf("%d in flight, want all 10 of Max", got)
		}
		if rec.Code != http.StatusServiceUnavailable || rec.Header().Get(ReasonHeader) != "limit" {
			t.Errorf("the 11th request: %d %q, want 503 for the limit", rec.Code, rec.Header().Get(ReasonHeader))
		}
		close(release)
		wg.Wait()
	})
}

// TestStartedIsMonotonic: the queueing delay Started measures is a
// monotonic difference from the admission instant, so a wall clock stepped
// an hour either way between admission and Started changes nothing (it used
// to store UnixNano and report an hour, or nothing).
func TestStartedIsMonotonic(t *testing.T) {
	for _, step := range []time.Duration{-time.Hour, time.Hour, 0} {
		admitted, ok := clocktest.WallStep(time.Now(), step)
		if !ok {
			t.Skip("time.Time layout not recognised")
		}
		st := &requestState{info: Info{Admitted: admitted}}
		ctx := context.WithValue(context.Background(), ctxKey{}, st)
		Started(ctx)
		Started(ctx) // only the first counts
		if q := st.queued(); q < 0 || q > time.Minute {
			t.Errorf("wall clock stepped %v: queueing delay %v, want the few nanoseconds between admission and Started", step, q)
		}
	}
	if q := (&requestState{}).queued(); q != 0 {
		t.Errorf("without Started: %v, want 0", q)
	}
}
