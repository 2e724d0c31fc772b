package controlhttp

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/goodput-lab/goodput/control/deadline"
	"github.com/goodput-lab/goodput/control/identity"
)

// FuzzHandlerHeaders feeds arbitrary deadline, timeout, key and attempt
// header values to the middleware. It must never panic, and must answer
// consistently: 400 exactly when a header is malformed, 503 "expired" with
// the no-retry marker exactly when the deadline has passed, otherwise 200
// with the deadline and identity the parsers read in the handler's context.
// An empty value leaves the header out.
func FuzzHandlerHeaders(f *testing.F) {
	f.Add("", "", "", "")
	f.Add("2000-01-01T00:00:01Z", "", "k1", "1")
	f.Add("", "350m", `"8e03978e40d543e8bc936894a57f9324"`, "2")
	f.Add("1999-12-31T23:59:59Z", "", "", "")
	f.Add("", "0n", "", "")
	f.Add("yesterday", "", "", "")
	f.Add("", "99999999H", "", "")
	f.Add("", "1.5S", "", "")
	f.Add("2000-01-01T00:00:00.000000001+01:00", "1S", "key with space", "")
	f.Add("", "", "k", "101")
	f.Add("", "", "", "1")
	f.Add(" 2000-01-01T00:00:05Z\t", " 5S ", `"k"`, "+1")
	f.Fuzz(func(t *testing.T, dl, timeout, key, attempt string) {
		synctest.Test(t, func(t *testing.T) {
			cfg := ServerConfig{Deadline: deadline.Config{SkewMargin: 20 * time.Millisecond, Max: 30 * time.Second}}
			var served bool
			var ctxDL time.Time
			var hasCtxDL bool
			var ctxID identity.Request
			h := Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				served = true
				ctxDL, hasCtxDL = r.Context().Deadline()
				ctxID, _ = identity.FromContext(r.Context())
			}), cfg)
			req := httptest.NewRequest("GET", "/", nil)
			for name, v := range map[string]string{deadline.Header: dl, deadline.TimeoutHeader: timeout, identity.Header: key, identity.AttemptHeader: attempt} {
				if v != "" {
					req.Header[name] = []string{v}
				}
			}
			now := time.Now()
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)

			wantDL, hasDL, derr := deadline.Extract(req.Header, now, cfg.Deadline)
			wantID, _, ierr := identity.Extract(req.Header)
			reason := rec.Header().Get(ReasonHeader)
			noRetry := rec.Header().Get(OverloadHeader) == NoRetry
			switch {
			case derr != nil || ierr != nil:
				if rec.Code != 400 || served || noRetry || (reason != "malformed-deadline" && reason != "malformed-identity") {
					t.Fatalf("malformed headers (%v, %v) answered %d %q served=%v no-retry=%v", derr, ierr, rec.Code, reason, served, noRetry)
				}
			case hasDL && !wantDL.After(now):
				if rec.Code != 503 || served || !noRetry || reason != "expired" {
					t.Fatalf("expired deadline %v answered %d %q served=%v no-retry=%v", wantDL, rec.Code, reason, served, noRetry)
				}
			default:
				if rec.Code != 200 || !served || reason != "" || noRetry {
					t.Fatalf("valid headers answered %d %q served=%v no-retry=%v: %s", rec.Code, reason, served, noRetry, rec.Body)
				}
				if hasCtxDL != hasDL || (hasDL && !ctxDL.Equal(wantDL)) {
					t.Fatalf("context deadline %v %v, want %v %v", ctxDL, hasCtxDL, wantDL, hasDL)
				}
				if hasDL && wantDL.Sub(now) > cfg.Deadline.Max {
					t.Fatalf("deadline %v beyond the %v cap", wantDL.Sub(now), cfg.Deadline.Max)
				}
				if ctxID != wantID {
					t.Fatalf("context identity %v, want %v", ctxID, wantID)
				}
			}
		})
	})
}
