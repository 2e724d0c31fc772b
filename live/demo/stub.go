package demo

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/goodput-lab/goodput/control/identity"
)

// Kinds of [Stub].
const (
	KindRisk    = "risk"    // POST /score
	KindPayment = "payment" // POST /authorise, POST /capture
	KindAll     = "all"     // both
)

// DefaultMaxKeys is how many identities a [Stub] remembers per route by default.
const DefaultMaxKeys = 1 << 22

// Stub is a stub dependency: it answers at once (service time and faults are the fault
// proxy's) and records each authorisation and capture by the order it is for (the body's
// {"order": …}) and the operation (the path). It is idempotent as a payment provider is: a
// call whose Idempotency-Key it has seen on that path is answered again, not authorised
// again (a replay); a second authorisation of one order under another key, or none, is a
// duplicate. GET /_stub/stats answers [StubStats] as JSON. Build it with [NewStub].
type Stub struct {
	kind    string
	maxKeys int

	mu         sync.Mutex
	stats      StubStats
	auth, capt route
}

// route is what a [Stub] remembers of one operation: the orders done and the keys seen
// (each with its order).
type route struct {
	orders map[string]struct{}
	keys   map[string]string
}

// StubStats is what a [Stub] has answered.
type StubStats struct {
	// Kind is the stub's kind: risk, payment or all.
	Kind string `json:"kind"`
	// Calls is every call answered, stats excepted; Refused those answered 4xx.
	Calls   int64 `json:"calls"`
	Refused int64 `json:"refused"`
	// Scores is the risk checks answered.
	Scores int64 `json:"scores"`
	// Authorisations is the payment authorisations made, replays excepted;
	// AuthorisedOrders the distinct orders among them; DuplicateAuthorisations those of
	// an order authorised before (a payment authorised twice, whatever key each carried).
	// AuthorisationReplays is the calls that carried the Idempotency-Key of an earlier
	// authorisation: answered again, not authorised again, and no duplicate.
	Authorisations          int64 `json:"authorisations"`
	AuthorisedOrders        int64 `json:"authorised_orders"`
	DuplicateAuthorisations int64 `json:"duplicate_authorisations"`
	AuthorisationReplays    int64 `json:"authorisation_replays"`
	// Captures, CapturedOrders, DuplicateCaptures and CaptureReplays are the same for
	// payment captures.
	Captures          int64 `json:"captures"`
	CapturedOrders    int64 `json:"captured_orders"`
	DuplicateCaptures int64 `json:"duplicate_captures"`
	CaptureReplays    int64 `json:"capture_replays"`
	// Untracked is the orders and keys not remembered because the stub already held its
	// most on that path; a duplicate or replay of them is counted as a new call.
	Untracked int64 `json:"untracked"`
}

// NewStub returns a stub of kind (risk, payment or all) that remembers at most maxKeys
// orders and maxKeys keys per operation; maxKeys 0 means [DefaultMaxKeys].
func NewStub(kind string, maxKeys int) (*Stub, error) {
	switch kind {
	case KindRisk, KindPayment, KindAll:
	default:
		return nil, fmt.Errorf("demo: stub kind %q; expected %s, %s or %s", kind, KindRisk, KindPayment, KindAll)
	}
	if maxKeys < 0 {
		return nil, fmt.Errorf("demo: stub: %d keys; expected 0 (default %d) or more", maxKeys, DefaultMaxKeys)
	}
	if maxKeys == 0 {
		maxKeys = DefaultMaxKeys
	}
	return &Stub{kind: kind, maxKeys: maxKeys, stats: StubStats{Kind: kind},
		auth: route{map[string]struct{}{}, map[string]string{}},
		capt: route{map[string]struct{}{}, map[string]string{}}}, nil
}

// Stats returns the counts so far.
func (s *Stub) Stats() StubStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// ServeHTTP answers POST /score (risk), POST /authorise and POST /capture (payment) and
// GET /_stub/stats.
func (s *Stub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/_stub/stats" && r.Method == "GET" {
		writeJSON(w, http.StatusOK, s.Stats())
		return
	}
	route := r.Method + " " + r.URL.Path
	risk, payment := s.kind != KindPayment, s.kind != KindRisk
	switch {
	case route == "POST /score" && risk, (route == "POST /authorise" || route == "POST /capture") && payment:
	default:
		s.refuse(w, http.StatusNotFound, fmt.Sprintf("a %s stub serves no %s", s.kind, route))
		return
	}
	var p payload
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil || len(data) > maxBody {
		s.refuse(w, http.StatusBadRequest, fmt.Sprintf("body unreadable or over %d bytes", maxBody))
		return
	}
	if len(data) > 0 {
		if err := json.Unmarshal(data, &p); err != nil {
			s.refuse(w, http.StatusBadRequest, fmt.Sprintf(`body: %v; expected JSON {"order": "…", "amount": cents}`, err))
			return
		}
	}
	id, ok, err := identity.Extract(r.Header)
	if err != nil {
		s.refuse(w, http.StatusBadRequest, err.Error())
		return
	}
	var key string
	if ok {
		key = string(id.Key)
	}
	if p.Order == "" && r.URL.Path != "/score" {
		s.refuse(w, http.StatusBadRequest, `no order: expected a body {"order": "…"}`)
		return
	}

	s.mu.Lock()
	var replay bool
	switch r.URL.Path {
	case "/score":
		s.stats.Scores++
	case "/authorise":
		replay, err = s.record(&s.auth, p.Order, key, &s.stats.Authorisations, &s.stats.AuthorisedOrders, &s.stats.DuplicateAuthorisations, &s.stats.AuthorisationReplays)
	case "/capture":
		replay, err = s.record(&s.capt, p.Order, key, &s.stats.Captures, &s.stats.CapturedOrders, &s.stats.DuplicateCaptures, &s.stats.CaptureReplays)
	}
	if err != nil {
		s.mu.Unlock()
		s.refuse(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	s.stats.Calls++
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"order": p.Order, "result": "ok", "replay": replay})
}

// record counts a call for order with Idempotency-Key key ("" for none) on rt: a replay of
// a key seen before, else a new operation on a new order or a duplicate one. A key seen
// before for another order is an error. s.mu is held.
func (s *Stub) record(rt *route, order, key string, done, orders, dups, replays *int64) (replay bool, err error) {
	if key != "" {
		if o, ok := rt.keys[key]; ok {
			if o != order {
				return false, fmt.Errorf("Idempotency-Key %q was used for order %q, not %q", key, o, order)
			}
			*replays++
			return true, nil
		}
		if len(rt.keys) < s.maxKeys {
			rt.keys[key] = order
		} else {
			s.stats.Untracked++
		}
	}
	*done++
	if _, ok := rt.orders[order]; ok {
		*dups++
		return false, nil
	}
	if len(rt.orders) >= s.maxKeys {
		s.stats.Untracked++
		return false, nil
	}
	rt.orders[order] = struct{}{}
	*orders++
	return false, nil
}

func (s *Stub) refuse(w http.ResponseWriter, status int, msg string) {
	s.mu.Lock()
	s.stats.Calls++
	s.stats.Refused++
	s.mu.Unlock()
	fail(w, status, "stub", msg)
}
