package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/control/controlhttp"
	"github.com/goodput-lab/goodput/control/identity"
	"github.com/goodput-lab/goodput/scenario"
)

const checkoutScenario = "testdata/checkout.scenario.yaml"

// wait bounds every wait of these tests: a test that waits longer has failed.
const wait = 20 * time.Second

// lab is one arm of the service in process: a stub dependency (or a test's own risk
// handler), the service on loopback, and its store.
type lab struct {
	cfg    Config
	stub   *Stub
	store  *Store
	svc    *Service
	srv    *httptest.Server
	client *http.Client
}

type labOptions struct {
	arm     string
	dsn     string       // default: a SQLite file in t.TempDir
	risk    http.Handler // default: the stub
	payment http.Handler // default: the stub
	edit    func(*Config)
}

func newLab(t *testing.T, o labOptions) *lab {
	t.Helper()
	sc, err := scenario.Load(checkoutScenario)
	if err != nil {
		t.Fatal(err)
	}
	l := &lab{client: &http.Client{Timeout: wait}}
	l.stub, _ = NewStub(KindAll, 0)
	stubSrv := httptest.NewServer(l.stub)
	t.Cleanup(stubSrv.Close)
	riskURL := stubSrv.URL
	if o.risk != nil {
		r := httptest.NewServer(o.risk)
		t.Cleanup(r.Close)
		riskURL = r.URL
	}
	paymentURL := stubSrv.URL
	if o.payment != nil {
		p := httptest.NewServer(o.payment)
		t.Cleanup(p.Close)
		paymentURL = p.URL
	}
	l.cfg, err = FromScenario(sc, o.arm, map[string]string{"payment-risk": riskURL, "payment": paymentURL})
	if err != nil {
		t.Fatal(err)
	}
	if o.edit != nil {
		o.edit(&l.cfg)
	}
	if o.dsn == "" {
		o.dsn = filepath.Join(t.TempDir(), "orders.db")
	}
	if l.store, err = Open(context.Background(), o.dsn); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.store.Close() })
	if l.svc, err = New(l.cfg, l.store); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.svc.Close)
	l.srv = httptest.NewServer(l.svc)
	t.Cleanup(l.srv.Close)
	t.Cleanup(l.client.CloseIdleConnections)
	return l
}

// do sends one request with the identity key (none if empty) and returns the status, the
// reason header and the body.
func (l *lab) do(t *testing.T, method, path, key, body string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(method, l.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		identity.Inject(req.Header, identity.First(identity.Key(key)))
	}
	resp, err := l.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get(controlhttp.ReasonHeader), string(b)
}

func TestRouteOf(t *testing.T) {
	for _, tc := range []struct {
		method, path string
		want         Route
		ok           bool
	}{
		{"POST", "/checkout", NewCheckout, true},
		{"POST", "/checkout?x=1", NewCheckout, true},
		{"POST", "/checkout/pay", Continuation, true},
		{"POST", "/checkout/o-1/pay", Continuation, true},
		{"GET", "/orders/o-1", Lookup, true},
		{"GET", "/checkout", 0, false},
		{"POST", "/orders/o-1", 0, false},
		{"GET", "/orders/", 0, false},
		{"POST", "/checkout//pay", 0, false},
		{"GET", "/", 0, false},
	} {
		got, ok := RouteOf(tc.method, tc.path)
		if got != tc.want || ok != tc.ok {
			t.Errorf("RouteOf(%s %s) = %v, %v; want %v, %v", tc.method, tc.path, got, ok, tc.want, tc.ok)
		}
	}
}

func TestFromScenario(t *testing.T) {
	sc, err := scenario.Load(checkoutScenario)
	if err != nil {
		t.Fatal(err)
	}
	deps := map[string]string{"payment-risk": "http://127.0.0.1:1", "payment": "http://127.0.0.1:2/"}
	base, err := FromScenario(sc, "baseline", deps)
	if err != nil {
		t.Fatal(err)
	}
	if base.Controls || base.Risk.Name != "payment-risk" || base.Risk.Timeout != 350*time.Millisecond || base.Risk.Retries.Max != 1 ||
		base.Payment.URL != "http://127.0.0.1:2" || base.Deadline != [numRoutes]time.Duration{1800 * time.Millisecond, 1500 * time.Millisecond, time.Second} ||
		base.AdmissionMax != 64 || base.Expected != 58*time.Millisecond {
		t.Errorf("baseline: %+v", base)
	}
	prot, err := FromScenario(sc, "protected", deps)
	if err != nil || !prot.Controls || !prot.Policy.Deadline.Cancel {
		t.Errorf("protected: %+v, %v", prot, err)
	}

	for _, tc := range []struct {
		name, arm string
		deps      map[string]string
		edit      func(*scenario.Scenario)
		want      string
	}{
		{"no arm", "canary", deps, nil, `no arm "canary"; expected one of baseline, protected`},
		{"no url", "baseline", map[string]string{"payment": "http://x"}, nil, "no URL for dependency payment-risk; expected --dep payment-risk=URL"},
		{"bad url", "baseline", map[string]string{"payment-risk": "localhost:80", "payment": "http://x"}, nil, `URL "localhost:80": expected http://host:port`},
		{"no payment", "baseline", deps, func(sc *scenario.Scenario) { sc.Classes[0].Stages[1].Mutation = "" }, "has no payment: expected a class with a stage"},
		{"no risk", "baseline", deps, func(sc *scenario.Scenario) { sc.Classes[0].Stages[0].Optional = true }, "class new_checkout has no risk check"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, _ := scenario.Load(checkoutScenario)
			if tc.edit != nil {
				tc.edit(sc)
			}
			_, err := FromScenario(sc, tc.arm, tc.deps)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v; want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestRoutes(t *testing.T) {
	for _, arm := range []string{"baseline", "protected"} {
		t.Run(arm, func(t *testing.T) {
			l := newLab(t, labOptions{arm: arm})
			for _, tc := range []struct {
				method, path, key, body string
				status                  int
				reason, in              string
			}{
				{"POST", "/checkout", "c-1", `{"amount":1250}`, 201, "", `"order_id":"` + OrderID("c-1") + `","class":"new_checkout","amount":1250,"status":"authorised","attempt":1`},
				{"POST", "/checkout", "c-1", `{"amount":1250}`, 200, "", `"duplicate":true`},
				{"POST", "/checkout", "", `{"id":"c-2"}`, 201, "", `"identity":"c-2"`},
				{"POST", "/checkout", "", `{}`, 400, "malformed-identity", "no identity"},
				{"POST", "/checkout", "c-3", `{"amount":`, 400, "body", "expected JSON"},
				{"POST", "/checkout", "c-3", `{"amount":-1}`, 400, "body", "negative"},
				{"POST", "/checkout/p-1/pay", "k-9", ``, 201, "", `"identity":"p-1","order_id":"` + OrderID("p-1") + `","class":"payment_continuation","amount":0,"status":"paid"`},
				{"POST", "/checkout/pay", "", `{"id":"p-2"}`, 201, "", `"identity":"p-2"`},
				{"POST", "/checkout/pay", "p-3", ``, 201, "", `"identity":"p-3"`},
				{"POST", "/checkout/c-1/pay", "", ``, 200, "", `"status":"authorised"`},
				{"GET", "/orders/c-1", "", "", 200, "", `"identity":"c-1"`},
				{"GET", "/orders/nope", "", "", 404, "not-found", `no order "nope"`},
				{"GET", "/checkout", "", "", 405, "", ""},
			} {
				status, reason, body := l.do(t, tc.method, tc.path, tc.key, tc.body)
				if status != tc.status || reason != tc.reason || !strings.Contains(body, tc.in) {
					t.Errorf("%s %s %s %s: %d %q %q; want %d %q containing %q", tc.method, tc.path, tc.key, tc.body, status, reason, body, tc.status, tc.reason, tc.in)
				}
			}
			a, err := l.store.Audit(context.Background())
			if err != nil || a != (Audit{Orders: 5, Identities: 5, Refused: 2, RefusedIdentities: 1}) {
				t.Errorf("audit: %+v, %v", a, err)
			}
			// c-1's second checkout authorises its order again: under the protected arm
			// with c-1's key, a replay at the stub; the baseline sends no key, a duplicate.
			st := l.stub.Stats()
			auths, dups, replays := int64(2), int64(0), int64(1)
			if arm == "baseline" {
				auths, dups, replays = 3, 1, 0
			}
			if st.Authorisations != auths || st.DuplicateAuthorisations != dups || st.AuthorisationReplays != replays || st.Scores != 3 || st.Captures != 4 || st.DuplicateCaptures != 0 {
				t.Errorf("stub: %+v; want %d authorisations, %d duplicate, %d replayed", st, auths, dups, replays)
			}

			_, _, metrics := l.do(t, "GET", "/metrics", "", "")
			for _, want := range []string{
				`goodput_demo_orders_committed_total{class="new_checkout"} 2`,
				`goodput_demo_orders_committed_total{class="payment_continuation"} 3`,
				`goodput_demo_duplicate_refusals_total{class="new_checkout"} 1`,
				`goodput_demo_duplicate_refusals_total{class="payment_continuation"} 1`,
				`goodput_demo_db_errors_total{route="new_checkout"} 0`,
				`goodput_demo_dependency_calls_total{dependency="payment",outcome="ok"} 7`,
				`goodput_server_decisions_total{class="standard",reason="admitted"} `,
			} {
				if !strings.Contains(metrics, want) {
					t.Errorf("/metrics lacks %q", want)
				}
			}
			admitted := `goodput_server_decisions_total{class="continuation",reason="admitted"} 4`
			if strings.Contains(metrics, admitted) != (arm == "protected") {
				t.Errorf("/metrics has %q: %v; want it only under the controls", admitted, !(arm == "protected"))
			}
		})
	}
}

// Commits of one identity at once: one row, the others refused by the database and
// counted by a query; the stub authorises the order once and replays the others.
func TestConcurrentDuplicates(t *testing.T) {
	testConcurrentDuplicates(t, "")
}

func testConcurrentDuplicates(t *testing.T, dsn string) {
	l := newLab(t, labOptions{arm: "protected", dsn: dsn})
	const n = 16
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { statuses[i], _, _ = l.do(t, "POST", "/checkout", "same", `{"amount":5}`) })
	}
	wg.Wait()
	created := 0
	for _, s := range statuses {
		switch s {
		case 201:
			created++
		case 200:
		default:
			t.Errorf("status %d; want 201 or 200", s)
		}
	}
	a, err := l.store.Audit(context.Background())
	if created != 1 || err != nil || a != (Audit{Orders: 1, Identities: 1, Refused: n - 1, RefusedIdentities: 1}) {
		t.Errorf("created %d, audit %+v, %v; want 1 created, 1 order, %d refused", created, a, err, n-1)
	}
	var rows int
	if err := l.store.DB().QueryRow(`SELECT COUNT(*) FROM refusals WHERE identity = 'same'`).Scan(&rows); err != nil || rows != n-1 {
		t.Errorf("refusals: %d, %v", rows, err)
	}
	// One key: one authorisation, the others replays of it, none a duplicate.
	if st := l.stub.Stats(); st.Authorisations != 1 || st.AuthorisationReplays != n-1 || st.DuplicateAuthorisations != 0 || st.AuthorisedOrders != 1 {
		t.Errorf("stub: %+v; want 1 authorisation, %d replays", st, n-1)
	}
}

// The baseline's work goes on after its caller has left: the risk call completes, the
// payment is authorised and the order committed. The protected arm cancels the risk call
// and so authorises and commits nothing.
func TestCallerLeaves(t *testing.T) {
	for _, tc := range []struct {
		arm      string
		finishes bool
	}{{"baseline", true}, {"protected", false}} {
		t.Run(tc.arm, func(t *testing.T) {
			arrived := make(chan struct{}, 4)
			release := make(chan struct{})
			gone := make(chan struct{}, 4)
			var answered atomic.Int32
			risk := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				arrived <- struct{}{}
				select {
				case <-release:
					answered.Add(1)
					io.WriteString(w, `{"score":0}`)
				case <-r.Context().Done():
					gone <- struct{}{}
				}
			})
			l := newLab(t, labOptions{arm: tc.arm, risk: risk, edit: func(c *Config) { c.Risk.Timeout = 0 }})
			defer close(release)

			ctx, cancel := context.WithCancel(context.Background())
			req, _ := http.NewRequestWithContext(ctx, "POST", l.srv.URL+"/checkout", strings.NewReader(`{"amount":1}`))
			identity.Inject(req.Header, identity.First("left"))
			done := make(chan error, 1)
			go func() {
				resp, err := l.client.Do(req)
				if err == nil {
					resp.Body.Close()
				}
				done <- err
			}()
			select {
			case <-arrived:
			case <-time.After(wait):
				t.Fatal("the risk call did not arrive")
			}
			cancel()
			if err := <-done; err == nil {
				t.Fatal("the cancelled request was answered")
			}
			if tc.finishes {
				release <- struct{}{}
			} else {
				select {
				case <-gone:
				case <-time.After(wait):
					t.Fatal("the protected arm did not cancel the risk call")
				}
			}
			l.srv.Close() // waits for the handler
			_, committed, err := l.store.Order(context.Background(), "left")
			st := l.stub.Stats()
			if err != nil || committed != tc.finishes || (st.Authorisations == 1) != tc.finishes || (answered.Load() == 1) != tc.finishes {
				t.Errorf("committed %v (%v), authorisations %d, risk answered %d; want the work finished: %v",
					committed, err, st.Authorisations, answered.Load(), tc.finishes)
			}
		})
	}
}

// The database closes while checkouts arrive: the service answers 503 naming the
// database, never panics, and every order it acknowledged is in the database.
func TestDatabaseClosedMidRun(t *testing.T) {
	dsn := filepath.Join(t.TempDir(), "orders.db")
	testDatabaseClosed(t, dsn)
}

func testDatabaseClosed(t *testing.T, dsn string) {
	for _, arm := range []string{"baseline", "protected"} {
		t.Run(arm, func(t *testing.T) {
			if !IsPostgres(dsn) {
				os.Remove(dsn)
			}
			l := newLab(t, labOptions{arm: arm, dsn: dsn})
			const n, workers, closeAfter = 240, 8, 60
			var (
				mu     sync.Mutex
				acked  []string
				counts = map[int]int{}
				seen   atomic.Int32
				once   sync.Once
				wg     sync.WaitGroup
			)
			next := atomic.Int32{}
			for range workers {
				wg.Go(func() {
					for i := next.Add(1); i <= n; i = next.Add(1) {
						key := fmt.Sprintf("%s-%d", arm, i)
						status, reason, body := l.do(t, "POST", "/checkout", key, `{"amount":3}`)
						if seen.Add(1) == closeAfter {
							once.Do(func() { l.store.Close() })
						}
						mu.Lock()
						counts[status]++
						switch status {
						case 201:
							acked = append(acked, key)
						case 503:
							if reason != ReasonDatabase || !strings.Contains(body, "order not committed: database") {
								t.Errorf("503 %q %q; want reason %s and the database's error", reason, body, ReasonDatabase)
							}
						default:
							t.Errorf("%s: %d %q %q; want 201 or 503", key, status, reason, body)
						}
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			if counts[201] < closeAfter-workers || counts[503] == 0 {
				t.Errorf("answers %v; want some 201 before the close and 503 after it", counts)
			}
			_, _, metrics := l.do(t, "GET", "/metrics", "", "")
			if want := fmt.Sprintf(`goodput_demo_db_errors_total{route="new_checkout"} %d`, counts[503]); !strings.Contains(metrics, want) {
				t.Errorf("/metrics lacks %q", want)
			}

			db, err := Open(context.Background(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, key := range acked {
				if _, ok, err := db.Order(context.Background(), key); !ok || err != nil {
					t.Errorf("order %s was acknowledged but is not in the database (%v)", key, err)
				}
			}
			a, err := db.Audit(context.Background())
			if err != nil || a.Orders < int64(len(acked)) || a.Duplicates != 0 {
				t.Errorf("audit %+v, %v; want at least the %d acknowledged orders", a, err, len(acked))
			}
		})
	}
}

// The baseline retries a failed payment call as the dependency's retries say (max 1, on
// timeout and error); the protected arm's transport retries only transient failures
// under its budget.
func TestDependencyRetries(t *testing.T) {
	for _, tc := range []struct {
		arm     string
		failure int // the status of the payment's first answer
		status  int // the checkout's
		calls   int32
	}{
		{"baseline", 500, 201, 2},  // error: retried
		{"baseline", 429, 502, 1},  // overload: not in its triggers
		{"baseline", 400, 502, 1},  // refused: never retried
		{"protected", 503, 201, 2}, // transient: retried under the budget
		{"protected", 500, 502, 1}, // unclassified: not retried
		{"protected", 429, 502, 1}, // overload: never retried
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.arm, tc.failure), func(t *testing.T) {
			var calls atomic.Int32
			var l *lab
			payment := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1) == 1 {
					io.Copy(io.Discard, r.Body)
					w.WriteHeader(tc.failure)
					return
				}
				l.stub.ServeHTTP(w, r)
			})
			l = newLab(t, labOptions{arm: tc.arm, payment: payment})
			status, reason, body := l.do(t, "POST", "/checkout", "r-1", "")
			if status != tc.status || calls.Load() != tc.calls {
				t.Errorf("%d %s %q after %d payment calls; want %d after %d", status, reason, body, calls.Load(), tc.status, tc.calls)
			}
			if status == 502 && (reason != ReasonDependency || !strings.Contains(body, fmt.Sprintf("payment answered %d", tc.failure))) {
				t.Errorf("502 %s %q; want reason %s naming the payment's answer", reason, body, ReasonDependency)
			}
		})
	}
}

// The payment stub counts duplicates by order and operation: a call again with its key is
// a replay, another key (or none) for an authorised order a duplicate.
func TestStub(t *testing.T) {
	if _, err := NewStub("fraud", 0); err == nil || !strings.Contains(err.Error(), "expected risk, payment or all") {
		t.Errorf("NewStub(fraud): %v", err)
	}
	s, _ := NewStub(KindPayment, 2)
	srv := httptest.NewServer(s)
	defer srv.Close()
	c := &http.Client{Timeout: wait}
	defer c.CloseIdleConnections()
	for _, tc := range []struct {
		path, key, body string
		status          int
		in              string
		dups, replays   int64 // DuplicateAuthorisations and AuthorisationReplays after it
	}{
		{"/authorise", "a", `{"order":"x"}`, 200, `"replay":false`, 0, 0},
		{"/authorise", "a", `{"order":"x"}`, 200, `"replay":true`, 0, 1},  // a retry of that call
		{"/authorise", "b", `{"order":"x"}`, 200, `"replay":false`, 1, 1}, // x again, another key
		{"/authorise", "", `{"order":"x"}`, 200, `"replay":false`, 2, 1},  // x again, no key
		{"/authorise", "", `{"order":"y"}`, 200, `"order":"y"`, 2, 1},
		{"/capture", "a", `{"order":"x"}`, 200, `"replay":false`, 2, 1}, // another operation
		{"/authorise", "a", `{"order":"z"}`, 422, `used for order "x"`, 2, 1},
		{"/authorise", "c", ``, 400, "no order", 2, 1},
		{"/score", "a", `{"order":"x"}`, 404, "", 2, 1},
		{"/authorise", "d", `[`, 400, "expected JSON", 2, 1},
		{"/authorise", "e", `{"order":"w"}`, 200, "", 2, 1}, // past maxKeys: key and order untracked
	} {
		req, _ := http.NewRequest("POST", srv.URL+tc.path, strings.NewReader(tc.body))
		if tc.key != "" {
			identity.Inject(req.Header, identity.First(identity.Key(tc.key)))
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		st := s.Stats()
		if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.in) || st.DuplicateAuthorisations != tc.dups || st.AuthorisationReplays != tc.replays {
			t.Errorf("%s %s %q: %d %s, %d duplicates, %d replays; want %d containing %q, %d, %d",
				tc.path, tc.key, tc.body, resp.StatusCode, body, st.DuplicateAuthorisations, st.AuthorisationReplays, tc.status, tc.in, tc.dups, tc.replays)
		}
	}
	resp, err := c.Get(srv.URL + "/_stub/stats")
	if err != nil {
		t.Fatal(err)
	}
	var st StubStats
	err = json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	want := StubStats{Kind: KindPayment, Calls: 11, Refused: 4, Authorisations: 5, AuthorisedOrders: 2, DuplicateAuthorisations: 2,
		AuthorisationReplays: 1, Untracked: 2, Captures: 1, CapturedOrders: 1}
	if err != nil || st != want {
		t.Errorf("stats %+v (%v); want %+v", st, err, want)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ dsn, want string }{
		{"", "no database: expected a SQLite file path or a postgres:// URL"},
		{"orders.db?mode=ro", "expected a path without ? or #"},
		{filepath.Join(t.TempDir(), "missing", "orders.db"), "creating the tables"},
	} {
		if _, err := Open(ctx, tc.dsn); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%q): %v; want %q", tc.dsn, err, tc.want)
		}
	}
}

// A query against a closed store is an error, not a panic.
func TestClosedStore(t *testing.T) {
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "orders.db"))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, _, err := s.Commit(context.Background(), Order{Identity: "x"}); err == nil || !strings.Contains(err.Error(), "database is closed") {
		t.Errorf("Commit on a closed store: %v", err)
	}
	if _, err := s.Audit(context.Background()); err == nil {
		t.Error("Audit on a closed store: no error")
	}
}

// TestCallKeys: under the protected arm each call of a checkout carries a key of its own,
// derived from the order's identity and the call's operation, so a payment API that
// deduplicates by key cannot answer one call with another's result.
func TestCallKeys(t *testing.T) {
	var mu sync.Mutex
	keys := map[string]string{} // path → Idempotency-Key
	stub, _ := NewStub(KindAll, 0)
	record := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		keys[r.URL.Path] = r.Header.Get(identity.Header)
		mu.Unlock()
		stub.ServeHTTP(w, r)
	})
	l := newLab(t, labOptions{arm: "protected", risk: record, payment: record})
	if status, reason, body := l.do(t, "POST", "/checkout", "c-1", `{"amount":1250}`); status != 201 {
		t.Fatalf("checkout: %d %s %s", status, reason, body)
	}
	mu.Lock()
	defer mu.Unlock()
	score, auth := keys["/score"], keys["/authorise"]
	if score == "" || auth == "" || score == auth || strings.Trim(score, `"`) == "c-1" || strings.Trim(auth, `"`) == "c-1" {
		t.Errorf("keys /score %q, /authorise %q; want one of its own for each call, neither the order's c-1", score, auth)
	}
}
