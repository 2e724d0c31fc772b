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
// proxy's) and records each authorisation and capture by the call's identity: its
// Idempotency-Key, else the body's {"order": …}. GET /_stub/stats answers [StubStats] as
// JSON. Build it with [NewStub].
type Stub struct {
	kind    string
	maxKeys int

	mu    sync.Mutex
	stats StubStats
	auth  map[string]struct{}
	capt  map[string]struct{}
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
	// Authorisations is the payment authorisations made; AuthorisedKeys the distinct
	// identities among them; DuplicateAuthorisations those of an identity authorised
	// before (a payment authorised twice).
	Authorisations          int64 `json:"authorisations"`
	AuthorisedKeys          int64 `json:"authorised_keys"`
	DuplicateAuthorisations int64 `json:"duplicate_authorisations"`
	// Captures, CapturedKeys and DuplicateCaptures are the same for payment captures.
	Captures          int64 `json:"captures"`
	CapturedKeys      int64 `json:"captured_keys"`
	DuplicateCaptures int64 `json:"duplicate_captures"`
	// Untracked is the authorisations and captures whose identity was not remembered
	// because the stub already held its most identities; they are in the totals only.
	Untracked int64 `json:"untracked"`
}

// NewStub returns a stub of kind (risk, payment or all) that remembers at most maxKeys
// identities per route; maxKeys 0 means [DefaultMaxKeys].
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
		auth: map[string]struct{}{}, capt: map[string]struct{}{}}, nil
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
	key := p.Order
	id, ok, err := identity.Extract(r.Header)
	if err != nil {
		s.refuse(w, http.StatusBadRequest, err.Error())
		return
	}
	if ok {
		key = string(id.Key)
	}
	if key == "" && r.URL.Path != "/score" {
		s.refuse(w, http.StatusBadRequest, `no identity: expected an Idempotency-Key header or a body {"order": "…"}`)
		return
	}

	s.mu.Lock()
	s.stats.Calls++
	switch r.URL.Path {
	case "/score":
		s.stats.Scores++
	case "/authorise":
		s.stats.Authorisations++
		s.record(s.auth, key, &s.stats.AuthorisedKeys, &s.stats.DuplicateAuthorisations)
	case "/capture":
		s.stats.Captures++
		s.record(s.capt, key, &s.stats.CapturedKeys, &s.stats.DuplicateCaptures)
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]string{"order": key, "result": "ok"})
}

// record counts key in seen: a new identity or a duplicate. s.mu is held.
func (s *Stub) record(seen map[string]struct{}, key string, keys, dups *int64) {
	if _, ok := seen[key]; ok {
		*dups++
		return
	}
	if len(seen) >= s.maxKeys {
		s.stats.Untracked++
		return
	}
	seen[key] = struct{}{}
	*keys++
}

func (s *Stub) refuse(w http.ResponseWriter, status int, msg string) {
	s.mu.Lock()
	s.stats.Calls++
	s.stats.Refused++
	s.mu.Unlock()
	fail(w, status, "stub", msg)
}
