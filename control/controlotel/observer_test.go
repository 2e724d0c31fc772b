package controlotel_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/controlhttp"
	"github.com/goodput-lab/goodput/control/controlotel"
	"github.com/goodput-lab/goodput/control/deadline"
	"github.com/goodput-lab/goodput/control/identity"
	"github.com/goodput-lab/goodput/control/loadstate"
	"github.com/goodput-lab/goodput/scenario"
)

// attrs returns a span's attributes as strings by key.
func attrs(s sdktrace.ReadOnlySpan) map[string]string {
	m := make(map[string]string)
	for _, kv := range s.Attributes() {
		m[string(kv.Key)] = kv.Value.Emit()
	}
	return m
}

func recorder() (*tracetest.SpanRecorder, *controlotel.Observer) {
	sr := tracetest.NewSpanRecorder()
	return sr, controlotel.New(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr)))
}

// serve sends req through h and returns the answer's status.
func serve(h http.Handler, req *http.Request) int {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w.Code
}

func TestServed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := time.Now() // 2000-01-01T00:00:00Z in the bubble
		states, err := loadstate.New(scenario.NorthstarLoadState(), now)
		if err != nil {
			t.Fatal(err)
		}
		states.Override(now, loadstate.Pressured, "test")
		tbl, err := scenario.NorthstarShedPlan().Compile()
		if err != nil {
			t.Fatal(err)
		}
		recs, _ := tbl.Feature(scenario.FeatureRecommendations)
		sr, obs := recorder()
		h := controlhttp.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			controlhttp.Shed(r.Context(), recs)
			io.WriteString(w, "ok")
		}), controlhttp.ServerConfig{LoadState: states, Shed: tbl, Observer: obs})

		req := httptest.NewRequest("POST", "/checkout", nil)
		deadline.Inject(req.Header, now.Add(1500*time.Millisecond), now)
		identity.Inject(req.Header, identity.Request{Key: "pay-42", Attempt: 2})
		if got := serve(h, req); got != 200 {
			t.Fatalf("status %d, want 200", got)
		}
		spans := sr.Ended()
		if len(spans) != 1 {
			t.Fatalf("%d spans, want 1", len(spans))
		}
		s := spans[0]
		if s.Name() != controlotel.ServeSpan || s.SpanKind() != trace.SpanKindServer || s.Status().Code != codes.Unset {
			t.Errorf("span %q kind %v status %v", s.Name(), s.SpanKind(), s.Status())
		}
		want := map[string]string{
			"goodput.identity":          "pay-42",
			"goodput.attempt":           "2",
			"goodput.deadline":          "2000-01-01T00:00:01.500Z",
			"goodput.admission.class":   "standard",
			"goodput.admission.result":  "admitted",
			"goodput.load.state":        "Pressured",
			"goodput.policy.generation": "2",
			"goodput.shed.features":     `["analytics","background"]`,
			"goodput.shed.asked":        `["recommendations"]`,
			"goodput.result":            "goodput",
			"http.response.status_code": "200",
			"http.request.method":       "POST",
			"url.path":                  "/checkout",
		}
		if diff := cmp.Diff(want, attrs(s)); diff != "" {
			t.Errorf("attributes (-want +got):\n%s", diff)
		}
	})
}

func TestRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header func(h http.Header, now time.Time)
		status int
		want   map[string]string
	}{
		{
			name:   "class closed",
			header: func(h http.Header, now time.Time) { h.Set("X-Class", "sheddable") },
			status: 429,
			want: map[string]string{"goodput.admission.class": "sheddable", "goodput.admission.result": "refused",
				"goodput.refusal.reason": "class-closed", "goodput.result": "rejected", "http.response.status_code": "429",
				"goodput.deadline": "2000-01-01T00:00:30.000Z"}, // deadline.DefaultTimeout, as it carries none
		},
		{
			name: "expired",
			header: func(h http.Header, now time.Time) {
				h.Set(deadline.Header, now.Add(-time.Second).Format(time.RFC3339Nano))
			},
			status: 503,
			want: map[string]string{"goodput.admission.class": "standard", "goodput.admission.result": "refused",
				"goodput.refusal.reason": "expired", "goodput.result": "expired", "http.response.status_code": "503",
				"goodput.deadline": "1999-12-31T23:59:59.000Z"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				now := time.Now()
				adm, err := admission.New(admission.Config{Max: 10})
				if err != nil {
					t.Fatal(err)
				}
				adm.SetClassOpen(admission.Sheddable, false)
				sr, obs := recorder()
				h := controlhttp.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					t.Error("a refused request was served")
				}), controlhttp.ServerConfig{
					Admission: adm, Observer: obs,
					Classify: func(r *http.Request) admission.Class {
						c, _ := admission.ParseClass(r.Header.Get("X-Class"))
						return c
					},
				})
				req := httptest.NewRequest("GET", "/", nil)
				req.Header.Set("X-Class", "standard")
				tc.header(req.Header, now)
				if got := serve(h, req); got != tc.status {
					t.Fatalf("status %d, want %d", got, tc.status)
				}
				spans := sr.Ended()
				if len(spans) != 1 {
					t.Fatalf("%d spans, want 1", len(spans))
				}
				got := attrs(spans[0])
				want := map[string]string{"goodput.load.state": "Normal", "goodput.policy.generation": "0",
					"http.request.method": "GET", "url.path": "/"}
				for k, v := range tc.want {
					want[k] = v
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("attributes (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// roundTripper answers the calls in turn with the statuses.
type roundTripper struct{ statuses []int }

func (rt *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	code := rt.statuses[0]
	rt.statuses = rt.statuses[1:]
	return &http.Response{StatusCode: code, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("")), Request: req}, nil
}

func TestRetriedCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := time.Now()
		retries, err := budget.New(budget.Finagle())
		if err != nil {
			t.Fatal(err)
		}
		sr, obs := recorder()
		client := &http.Client{Transport: controlhttp.NewTransport(&roundTripper{statuses: []int{503, 200}}, controlhttp.ClientConfig{
			Budget: retries, Reserve: 100 * time.Millisecond, Seed: 1, Observer: obs, Dependency: "payments",
		})}
		h := controlhttp.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			out, _ := http.NewRequestWithContext(r.Context(), "GET", "http://payments.internal/authorise", nil)
			resp, err := client.Do(out)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
		}), controlhttp.ServerConfig{Observer: obs})
		req := httptest.NewRequest("GET", "/checkout", nil)
		deadline.Inject(req.Header, now.Add(time.Second), now)
		identity.Inject(req.Header, identity.First("order-7"))
		if got := serve(h, req); got != 200 {
			t.Fatalf("status %d, want 200", got)
		}
		spans := sr.Ended()
		if len(spans) != 3 {
			t.Fatalf("%d spans, want 3", len(spans))
		}
		server := spans[2]
		if server.Name() != controlotel.ServeSpan {
			t.Fatalf("last span %q, want %q", server.Name(), controlotel.ServeSpan)
		}
		for i, want := range []map[string]string{
			{"goodput.attempt": "1", "goodput.call.attempt": "1", "goodput.result": "failed", "goodput.retry.token": "granted", "http.response.status_code": "503"},
			{"goodput.attempt": "2", "goodput.call.attempt": "2", "goodput.result": "success", "http.response.status_code": "200"},
		} {
			s := spans[i]
			if s.Name() != controlotel.AttemptSpan || s.SpanKind() != trace.SpanKindClient {
				t.Errorf("span %d: %q kind %v", i, s.Name(), s.SpanKind())
			}
			if s.Parent().SpanID() != server.SpanContext().SpanID() || s.SpanContext().TraceID() != server.SpanContext().TraceID() {
				t.Errorf("span %d is not a child of the served request's span", i)
			}
			if wantErr := want["goodput.result"] == "failed"; (s.Status().Code == codes.Error) != wantErr {
				t.Errorf("span %d: status %v", i, s.Status())
			}
			got := attrs(s)
			if !strings.HasPrefix(got["goodput.deadline"], "2000-01-01T00:00:00.") {
				t.Errorf("span %d: goodput.deadline %q, want the call's deadline", i, got["goodput.deadline"])
			}
			delete(got, "goodput.deadline")
			delete(got, "goodput.call.timeout_ms")
			want["goodput.identity"], want["goodput.dependency"], want["goodput.breaker.state"] = "order-7:GET/authorise", "payments", "Closed"
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("span %d attributes (-want +got):\n%s", i, diff)
			}
		}
	})
}

func TestExistingSpan(t *testing.T) {
	sr, obs := recorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	h := controlhttp.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), controlhttp.ServerConfig{Observer: obs})
	ctx, outer := tp.Tracer("test").Start(context.Background(), "outer")
	req := httptest.NewRequest("GET", "/", nil).WithContext(ctx)
	serve(h, req)
	if n := len(sr.Ended()); n != 0 {
		t.Fatalf("%d spans ended before the outer span, want 0", n)
	}
	outer.End()
	spans := sr.Ended()
	if len(spans) != 1 || spans[0].Name() != "outer" {
		t.Fatalf("spans %v, want only the outer one", spans)
	}
	if got := attrs(spans[0])["goodput.result"]; got != "goodput" {
		t.Errorf("goodput.result %q on the outer span, want goodput", got)
	}
}
