package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/breaker"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/controlhttp"
	"github.com/goodput-lab/goodput/control/controlprom"
	"github.com/goodput-lab/goodput/control/deadline"
	"github.com/goodput-lab/goodput/control/identity"
	"github.com/goodput-lab/goodput/scenario"
)

// Reasons the service writes in controlhttp.ReasonHeader on a failure of its own.
const (
	ReasonDatabase   = "database"   // the order could not be committed or read
	ReasonDependency = "dependency" // the risk check or the payment failed
	ReasonAbandoned  = "abandoned"  // the caller left or its deadline passed before the commit returned
)

// maxBody is the longest request body the service reads.
const maxBody = 64 << 10

// commitTimeout bounds a commit that nothing else bounds (the baseline's, which outlives
// its caller), so a database that stops answering cannot hold a handler for ever.
const commitTimeout = 30 * time.Second

// Service is the reference checkout: an [http.Handler] serving the routes of [Route] and
// GET /metrics. Build it with [New]; call Close when done.
type Service struct {
	cfg     Config
	store   *Store
	mux     *http.ServeMux
	risk    *client
	payment *client
	base    *http.Transport

	// ErrorLog, when set before serving, is called with a database error that follows a
	// success (the first of each run of failures), so a database that stops is reported
	// once, not once per request.
	ErrorLog func(error)
	failing  atomic.Bool

	committed *prometheus.CounterVec
	refused   *prometheus.CounterVec
	dbErrors  *prometheus.CounterVec
	calls     *prometheus.CounterVec
}

// New builds the service of cfg over store. Under cfg.Controls the routes are behind
// controlhttp.Handler (deadline, identity, admission by route) and the dependencies are
// called through controlhttp.NewTransport (a shared retry budget when the arm has one,
// a breaker per dependency), as the README's "Controls in a Go service" wires them.
func New(cfg Config, store *Store) (*Service, error) {
	if store == nil {
		return nil, errors.New("demo: New: no store")
	}
	s := &Service{cfg: cfg, store: store, mux: http.NewServeMux()}
	s.base = http.DefaultTransport.(*http.Transport).Clone()
	s.base.MaxIdleConnsPerHost = 256

	reg := prometheus.NewRegistry()
	metrics := new(controlhttp.Metrics)
	reg.MustRegister(controlprom.NewCollector(metrics))
	s.committed = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "goodput_demo_orders_committed_total", Help: "Orders committed to the database, by class."}, []string{"class"})
	s.refused = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "goodput_demo_duplicate_refusals_total", Help: "Commits the database refused as duplicates of an order, by class."}, []string{"class"})
	s.dbErrors = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "goodput_demo_db_errors_total", Help: "Requests failed by a database error, by route."}, []string{"route"})
	s.calls = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "goodput_demo_dependency_calls_total", Help: "Calls to the dependencies (every attempt the service itself makes), by outcome."}, []string{"dependency", "outcome"})
	reg.MustRegister(s.committed, s.refused, s.dbErrors, s.calls)
	for r := range numRoutes {
		s.dbErrors.WithLabelValues(r.String())
		if r != Lookup {
			s.committed.WithLabelValues(r.String())
			s.refused.WithLabelValues(r.String())
		}
	}

	pol := cfg.Policy
	var retries *budget.Budget
	var adm *admission.Controller
	if cfg.Controls {
		if b := pol.Retries.Budget; pol.Retries.Mode == scenario.RetryModeBudget && b != nil {
			var err error
			if retries, err = budget.New(budget.Config{Ratio: float64(b.Ratio), MinPerSecond: b.MinPerSecond.PerSecond(), TTL: b.TTL.Std()}); err != nil {
				return nil, fmt.Errorf("demo: arm %s: retry budget: %w", cfg.Arm, err)
			}
		}
		if a := pol.Admission; a != nil {
			var err error
			if adm, err = admission.New(admissionConfig(a, cfg.AdmissionMax)); err != nil {
				return nil, fmt.Errorf("demo: arm %s: admission: %w", cfg.Arm, err)
			}
		}
	}
	for i, d := range []Dependency{cfg.Risk, cfg.Payment} {
		c := &client{dep: d, s: s, http: &http.Client{Transport: s.base}}
		if cfg.Controls {
			// One breaker per dependency: AI-2 of the case study's payment-provider postmortem,
			// open at 25% errors over 30 s; the rest are breaker's defaults.
			br, err := breaker.New(breaker.Config{Window: 30 * time.Second, Threshold: 0.25})
			if err != nil {
				return nil, fmt.Errorf("demo: breaker: %w", err)
			}
			cc := controlhttp.ClientConfig{
				Budget:   retries,
				Breaker:  br,
				Reserve:  pol.Deadline.Reserve.Std(), // kept back to answer the caller after the call
				Expected: d.Expected,                 // an attempt's p90: no retry without room for it
				Seed:     cfg.Seed + uint64(i),
				Metrics:  metrics,
			}
			cc.Dependency = d.Name // labels its metrics and its spans
			if cfg.Observer != nil {
				cc.Observer = cfg.Observer
			}
			if pol.DependencyTimeout != scenario.TimeoutDerived {
				cc.Ceiling = d.Timeout // the fixed timeout stays a cap
			} else if cc.Ceiling = pol.Deadline.Ceiling.Cap(); cc.Ceiling == 0 {
				cc.Ceiling = controlhttp.NoCeiling // ceiling: none, as the model replays it
			}
			c.http = &http.Client{Transport: controlhttp.NewTransport(s.base, cc)}
			c.controlled = true
		}
		if i == 0 {
			s.risk = c
		} else {
			s.payment = c
		}
		s.calls.WithLabelValues(d.Name, "ok")
	}

	classify := func(r *http.Request) admission.Class {
		route, _ := RouteOf(r.Method, r.URL.Path)
		return [numRoutes]admission.Class{admission.Standard, admission.Continuation, admission.Lookup}[route]
	}
	expected := [numRoutes]time.Duration{cfg.Expected, cfg.Payment.Median, 0}
	for _, rt := range []struct {
		pattern string
		route   Route
		h       http.HandlerFunc
	}{
		{"POST /checkout", NewCheckout, s.checkout},
		{"POST /checkout/pay", Continuation, s.pay},
		{"POST /checkout/{id}/pay", Continuation, s.pay},
		{"GET /orders/{id}", Lookup, s.lookup},
	} {
		var h http.Handler = rt.h
		if cfg.Controls {
			sc := controlhttp.ServerConfig{
				Deadline:  deadline.Config{SkewMargin: 20 * time.Millisecond, Default: cfg.Deadline[rt.route]},
				Admission: adm,
				Classify:  classify,
				Expected:  expected[rt.route],
				Metrics:   metrics,
			}
			if cfg.Observer != nil {
				sc.Observer = cfg.Observer
			}
			if err := sc.Validate(); err != nil {
				return nil, fmt.Errorf("demo: arm %s: %w", cfg.Arm, err)
			}
			h = controlhttp.Handler(h, sc)
		}
		s.mux.Handle(rt.pattern, h)
	}
	s.mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return s, nil
}

// admissionConfig is the arm's admission as the replay builds it (model's newPolicy): a
// limit bound of max, pinned unless adaptive, with the declared reservations.
func admissionConfig(a *scenario.AdmissionPolicy, limit int) admission.Config {
	if limit <= 0 {
		limit = 200
	}
	limit = min(limit, admission.MaxLimit)
	cfg := admission.Config{Max: limit, Initial: limit, Target: a.Target.Std()}
	if !a.Adaptive {
		cfg.Min = limit
	}
	if cont, look := float64(a.Reserve.Continuation), float64(a.Reserve.Lookup); cont > 0 || look > 0 {
		cfg.Share = [admission.NumClasses]float64{1, 1 - cont, 1 - cont - look, (1 - cont - look) / 2}
	}
	return cfg
}

// ServeHTTP serves the routes and /metrics.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Close closes the idle connections to the dependencies. It does not close the store.
func (s *Service) Close() { s.base.CloseIdleConnections() }

// work is the context the service's own work runs under: the request's, which ends when
// the caller leaves or its deadline passes, under an arm that cancels; otherwise one that
// never ends, so the work goes on after the caller has left (the baseline's orphans).
func (s *Service) work(r *http.Request) context.Context {
	if s.cfg.Controls && s.cfg.Policy.Deadline.Cancel {
		return r.Context()
	}
	return context.WithoutCancel(r.Context())
}

// request is what the service reads from a request.
type request struct {
	ID     string `json:"id"`
	Amount int64  `json:"amount"`
}

// answer is the JSON body of an order's answer.
type answer struct {
	Order
	// Duplicate says the commit was refused as a duplicate and this is the order
	// committed before.
	Duplicate bool `json:"duplicate,omitempty"`
}

// read reads r's JSON body and its identity: the first of key (a path's id), the
// Idempotency-Key header and the body's id. It answers the request itself and returns
// false when they are unusable.
func (s *Service) read(w http.ResponseWriter, r *http.Request, key string) (request, identity.Request, bool) {
	var body request
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	switch {
	case err != nil:
		fail(w, http.StatusBadRequest, "body", fmt.Sprintf("reading the body: %v", err))
		return body, identity.Request{}, false
	case len(data) > maxBody:
		fail(w, http.StatusRequestEntityTooLarge, "body", fmt.Sprintf("body is longer than %d bytes", maxBody))
		return body, identity.Request{}, false
	}
	if len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, &body); err != nil {
			fail(w, http.StatusBadRequest, "body", fmt.Sprintf(`body: %v; expected JSON {"id": "…", "amount": cents}`, err))
			return body, identity.Request{}, false
		}
	}
	if body.Amount < 0 {
		fail(w, http.StatusBadRequest, "body", fmt.Sprintf("amount %d is negative; expected cents, 0 or more", body.Amount))
		return body, identity.Request{}, false
	}
	id, ok, err := identity.Extract(r.Header)
	if err != nil {
		fail(w, http.StatusBadRequest, "malformed-identity", err.Error())
		return body, identity.Request{}, false
	}
	for _, k := range []string{key, body.ID} {
		if ok || k == "" {
			continue
		}
		id, ok = identity.First(identity.Key(k)), true
		if err := id.Key.Validate(); err != nil {
			fail(w, http.StatusBadRequest, "malformed-identity", err.Error())
			return body, identity.Request{}, false
		}
	}
	if key != "" && ok && string(id.Key) != key {
		id.Key = identity.Key(key) // the path names the order; the header's attempt stays
		if err := id.Key.Validate(); err != nil {
			fail(w, http.StatusBadRequest, "malformed-identity", err.Error())
			return body, identity.Request{}, false
		}
	}
	if !ok {
		fail(w, http.StatusBadRequest, "malformed-identity", `no identity: expected an Idempotency-Key header or a body {"id": "…"}`)
		return body, identity.Request{}, false
	}
	return body, id, true
}

// checkout serves a new checkout: the risk check, the payment authorisation, the commit.
func (s *Service) checkout(w http.ResponseWriter, r *http.Request) {
	body, id, ok := s.read(w, r, "")
	if !ok {
		return
	}
	ctx := s.work(r)
	controlhttp.Started(ctx)
	call := payload{Order: string(id.Key), Amount: body.Amount}
	if err := s.risk.post(ctx, "/score", call, id); err != nil {
		failDependency(w, err)
		return
	}
	if err := s.payment.post(ctx, "/authorise", call, id); err != nil {
		failDependency(w, err)
		return
	}
	s.commit(w, ctx, NewCheckout, Order{Identity: string(id.Key), Class: NewCheckout.String(), Amount: body.Amount, Status: "authorised", Attempt: id.Attempt})
}

// pay serves a payment continuation: the payment capture, then the order's commit.
func (s *Service) pay(w http.ResponseWriter, r *http.Request) {
	body, id, ok := s.read(w, r, r.PathValue("id"))
	if !ok {
		return
	}
	ctx := s.work(r)
	controlhttp.Started(ctx)
	if err := s.payment.post(ctx, "/capture", payload{Order: string(id.Key), Amount: body.Amount}, id); err != nil {
		failDependency(w, err)
		return
	}
	s.commit(w, ctx, Continuation, Order{Identity: string(id.Key), Class: Continuation.String(), Amount: body.Amount, Status: "paid", Attempt: id.Attempt})
}

// commit commits o and answers: 201 with the new order, 200 with the existing one when
// the database refused a duplicate, 503 when the commit failed. It answers only after the
// commit has returned, so no order is acknowledged that the database does not hold.
func (s *Service) commit(w http.ResponseWriter, work context.Context, route Route, o Order) {
	ctx, cancel := context.WithTimeout(work, commitTimeout)
	defer cancel()
	got, created, err := s.store.Commit(ctx, o)
	if err != nil && work.Err() != nil {
		// The caller left or its deadline passed, under an arm that cancels: the commit
		// was abandoned, not refused by the database.
		fail(w, http.StatusGatewayTimeout, ReasonAbandoned, fmt.Sprintf("order not committed: %v", work.Err()))
		return
	}
	s.databaseError(route, err)
	if err != nil {
		fail(w, http.StatusServiceUnavailable, ReasonDatabase, fmt.Sprintf("order not committed: database %s: %v", s.store.Where, err))
		return
	}
	status := http.StatusCreated
	if created {
		s.committed.WithLabelValues(o.Class).Inc()
	} else {
		s.refused.WithLabelValues(o.Class).Inc()
		status = http.StatusOK
	}
	writeJSON(w, status, answer{Order: got, Duplicate: !created})
}

// lookup serves a status lookup: the order from the database, 404 when there is none.
func (s *Service) lookup(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("id")
	work := s.work(r)
	controlhttp.Started(work)
	ctx, cancel := context.WithTimeout(work, commitTimeout)
	defer cancel()
	o, ok, err := s.store.Order(ctx, key)
	if err != nil && work.Err() != nil {
		fail(w, http.StatusGatewayTimeout, ReasonAbandoned, fmt.Sprintf("order not read: %v", work.Err()))
		return
	}
	s.databaseError(Lookup, err)
	switch {
	case err != nil:
		fail(w, http.StatusServiceUnavailable, ReasonDatabase, fmt.Sprintf("order not read: database %s: %v", s.store.Where, err))
	case !ok:
		fail(w, http.StatusNotFound, "not-found", fmt.Sprintf("no order %q", key))
	default:
		writeJSON(w, http.StatusOK, answer{Order: o})
	}
}

// databaseError counts a database error of route and reports the first of a run of them;
// a nil err ends the run.
func (s *Service) databaseError(route Route, err error) {
	if err == nil {
		s.failing.Store(false)
		return
	}
	s.dbErrors.WithLabelValues(route.String()).Inc()
	if !s.failing.Swap(true) && s.ErrorLog != nil {
		s.ErrorLog(fmt.Errorf("database %s: %w", s.store.Where, err))
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v) // an answer is plain data
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// fail answers status with the reason in controlhttp.ReasonHeader and a one-line body.
func fail(w http.ResponseWriter, status int, reason, msg string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set(controlhttp.ReasonHeader, reason)
	w.WriteHeader(status)
	fmt.Fprintf(w, "%s: %s\n", reason, msg)
}

// failDependency answers a failed dependency call: 504 when it timed out or the deadline
// left no room for it, 502 otherwise.
func failDependency(w http.ResponseWriter, err error) {
	status := http.StatusBadGateway
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, deadline.ErrExpired) || errors.Is(err, deadline.ErrInsufficient) {
		status = http.StatusGatewayTimeout
	}
	fail(w, status, ReasonDependency, err.Error())
}
