package controlhttp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/deadline"
	"github.com/goodput-lab/goodput/control/identity"
	"github.com/goodput-lab/goodput/control/loadstate"
	"github.com/goodput-lab/goodput/control/shed"
)

// recorder is an Observer that keeps what it is told.
type recorder struct {
	mu       sync.Mutex
	begun    int
	served   []Served
	attempts []Attempt
}

type recorderKey struct{}

func (o *recorder) Begin(r *http.Request) context.Context {
	o.mu.Lock()
	o.begun++
	o.mu.Unlock()
	return context.WithValue(r.Context(), recorderKey{}, "begun")
}

func (o *recorder) Served(ctx context.Context, s Served) {
	if ctx.Value(recorderKey{}) != "begun" {
		panic("Served without Begin's context")
	}
	o.mu.Lock()
	o.served = append(o.served, s)
	o.mu.Unlock()
}

func (o *recorder) Attempted(ctx context.Context, a Attempt) {
	o.mu.Lock()
	o.attempts = append(o.attempts, a)
	o.mu.Unlock()
}

func TestObserverServed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := time.Now()
		states, err := loadstate.New(testLoadState(), now)
		if err != nil {
			t.Fatal(err)
		}
		states.Override(now, loadstate.Protected, "test")
		tbl, err := testShedPlan().Compile()
		if err != nil {
			t.Fatal(err)
		}
		recs, _ := tbl.Feature("recommendations")
		adm, err := admission.New(admission.Config{Max: 10})
		if err != nil {
			t.Fatal(err)
		}
		adm.SetClassOpen(admission.Sheddable, false)
		obs := new(recorder)
		h := Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Context().Value(recorderKey{}) != "begun" {
				t.Error("the handler's context is not Begin's")
			}
			Shed(r.Context(), recs)
			time.Sleep(2 * time.Second) // past the deadline
			w.WriteHeader(http.StatusAccepted)
		}), ServerConfig{Admission: adm, LoadState: states, Shed: tbl, Observer: obs,
			Classify: func(r *http.Request) admission.Class {
				c, _ := admission.ParseClass(r.URL.Query().Get("class"))
				return c
			}})

		for _, class := range []string{"standard", "sheddable"} {
			req := httptest.NewRequest("GET", "/?class="+class, nil)
			deadline.Inject(req.Header, time.Now().Add(time.Second), time.Now())
			identity.Inject(req.Header, identity.Request{Key: "k-1", Attempt: 2})
			h.ServeHTTP(httptest.NewRecorder(), req)
		}
		req := httptest.NewRequest("GET", "/?class=standard", nil)
		req.Header.Set(deadline.Header, "soon")
		h.ServeHTTP(httptest.NewRecorder(), req)

		base := Served{Arrived: now, Class: admission.Standard, Deadline: now.Add(time.Second), Identity: identity.Request{Key: "k-1", Attempt: 2},
			State: loadstate.Protected, Generation: 2}
		late, refused := base, base
		late.Answered, late.Admitted, late.Status, late.Result = now.Add(2*time.Second), true, http.StatusAccepted, ResultLate
		late.Shed, late.Asked = tbl.Set(loadstate.Protected), shed.Set(1)<<recs
		refused.Arrived, refused.Answered, refused.Deadline = now.Add(2*time.Second), now.Add(2*time.Second), now.Add(3*time.Second)
		refused.Class, refused.Status, refused.Reason, refused.Result = admission.Sheddable, http.StatusTooManyRequests, "class-closed", ResultRejected
		malformed := Served{Arrived: now.Add(2 * time.Second), Answered: now.Add(2 * time.Second), Class: admission.Standard, State: loadstate.Protected, Generation: 2,
			Status: http.StatusBadRequest, Reason: "malformed-deadline", Result: ResultRejected}
		if obs.begun != 3 {
			t.Errorf("Begin called %d times, want 3", obs.begun)
		}
		opts := cmpopts.IgnoreFields(Served{}, "Features")
		if len(obs.served) != 3 {
			t.Fatalf("%d Served, want 3", len(obs.served))
		}
		if diff := cmp.Diff(late, obs.served[0], opts); diff != "" {
			t.Errorf("served late (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(refused, obs.served[1], opts); diff != "" {
			t.Errorf("served refused (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(malformed, obs.served[2], opts); diff != "" {
			t.Errorf("served malformed (-want +got):\n%s", diff)
		}
		if got := obs.served[0].Features.Names(obs.served[0].Asked); !cmp.Equal(got, []string{"recommendations"}) {
			t.Errorf("asked %v", got)
		}
	})
}

func TestObserverAttempts(t *testing.T) {
	for _, tc := range []struct {
		name   string
		budget bool
		codes  []int
		wait   time.Duration // deadline of the request
		want   []Attempt     // N, Made, Refused, Status, Failed, Retry, Identity
	}{
		{name: "success", budget: true, codes: []int{200}, wait: time.Second,
			want: []Attempt{{N: 1, Made: true, Status: 200}}},
		{name: "no budget", codes: []int{503}, wait: time.Second,
			want: []Attempt{{N: 1, Made: true, Status: 503, Failed: true, Retry: "suppressed:no-budget"}}},
		{name: "retried", budget: true, codes: []int{503, 502, 200}, wait: time.Second,
			want: []Attempt{
				{N: 1, Made: true, Status: 503, Failed: true, Retry: "granted"},
				{N: 2, Made: true, Status: 502, Failed: true, Retry: "granted"},
				{N: 3, Made: true, Status: 200},
			}},
		{name: "max attempts", budget: true, codes: []int{503}, wait: time.Second,
			want: []Attempt{
				{N: 1, Made: true, Status: 503, Failed: true, Retry: "granted"},
				{N: 2, Made: true, Status: 503, Failed: true, Retry: "granted"},
				{N: 3, Made: true, Status: 503, Failed: true, Retry: "suppressed:max-attempts"},
			}},
		{name: "overload", budget: true, codes: []int{429}, wait: time.Second,
			want: []Attempt{{N: 1, Made: true, Status: 429, Failed: true, Retry: "suppressed:overload"}}},
		{name: "deadline insufficient", budget: true, codes: []int{200}, wait: 50 * time.Millisecond,
			want: []Attempt{{N: 1, Refused: "deadline-insufficient"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				obs := new(recorder)
				cfg := ClientConfig{Reserve: 100 * time.Millisecond, Seed: 1, Observer: obs, Dependency: "stock"}
				if tc.budget {
					cfg.Budget = mustBudget(t, budget.Finagle())
				}
				var s seen
				rt := NewTransport(network{answers(&s, nil, tc.codes...)}, cfg)
				ctx, cancel := deadline.NewContext(context.Background(), time.Now().Add(tc.wait))
				defer cancel()
				ctx = identity.NewContext(ctx, identity.First("k-9"))
				get(t, ctx, rt)
				if len(obs.attempts) != len(tc.want) {
					t.Fatalf("%d attempts observed, want %d: %+v", len(obs.attempts), len(tc.want), obs.attempts)
				}
				for i, a := range obs.attempts {
					w := tc.want[i]
					w.Dependency, w.Identity = "stock", identity.Request{Key: "k-9:GET/stock", Attempt: w.N}
					if a.Made && (a.Timeout <= 0 || a.Timeout > tc.wait-cfg.Reserve || a.End.Before(a.Start)) {
						t.Errorf("attempt %d: timeout %v, start %v, end %v", i+1, a.Timeout, a.Start, a.End)
					}
					if (a.Err != nil) != (!w.Made) {
						t.Errorf("attempt %d: error %v", i+1, a.Err)
					}
					if diff := cmp.Diff(w, a, cmpopts.IgnoreFields(Attempt{}, "Start", "End", "Timeout", "Err")); diff != "" {
						t.Errorf("attempt %d (-want +got):\n%s", i+1, diff)
					}
				}
			})
		})
	}
}
