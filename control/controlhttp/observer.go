package controlhttp

import (
	"context"
	"net/http"
	"time"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/breaker"
	"github.com/goodput-lab/goodput/control/identity"
	"github.com/goodput-lab/goodput/control/loadstate"
	"github.com/goodput-lab/goodput/control/shed"
)

// ServerObserver is told of every request a [Handler] receives, for traces
// or logs; set it in [ServerConfig.Observer]. Package controlotel
// implements it with OpenTelemetry. Its methods are called on the request's
// goroutine and must be safe for concurrent use.
type ServerObserver interface {
	// Begin is called when the request arrives, before any decision. The
	// context it returns (e.g. carrying a span) is the one the request is
	// served with, so a [Transport] call made for it sees it; return
	// r.Context() to keep the request's own.
	Begin(r *http.Request) context.Context
	// Served is called once the request has been answered, refused or
	// served, with the context Begin returned.
	Served(ctx context.Context, s Served)
}

// ClientObserver is told of every attempt a [Transport] makes or declines
// to make; set it in [ClientConfig.Observer]. Attempted is called on the
// caller's goroutine, after the attempt and the retry decision that follows
// it, and must be safe for concurrent use.
type ClientObserver interface {
	Attempted(ctx context.Context, a Attempt)
}

// Result values of [Served]: the terminal result of a request. Served
// requests end as in [Metrics]' outcomes.
const (
	ResultGoodput     = "goodput"      // a success before the deadline
	ResultLate        = "late"         // a success after the deadline
	ResultFailed      = "failed"       // 5xx, or the handler panicked
	ResultClientError = "client-error" // 4xx
	ResultHijacked    = "hijacked"     // the connection was taken over
	ResultExpired     = "expired"      // refused: the deadline had passed on arrival
	ResultRejected    = "rejected"     // refused by admission or for a malformed header
	ResultRefused     = "refused"      // admitted, then answered by [Refuse]
)

// Served is what a [Handler] decided for one request and how it ended.
type Served struct {
	// Arrived and Answered are the wall-clock instants of arrival and of
	// the end of the handler (or of the refusal).
	Arrived, Answered time.Time
	// Class is the request's admission class.
	Class admission.Class
	// Deadline is the request's absolute deadline; zero when it has none
	// or its header was malformed.
	Deadline time.Time
	// Identity is the logical identity and attempt the request carried; its
	// Key is empty when it carried none.
	Identity identity.Request
	// State and Generation are the load state and policy generation the
	// request was decided under.
	State      loadstate.State
	Generation uint64
	// Admitted is false for a request the middleware refused; Reason then
	// names why, as in [ReasonHeader]. For an admitted request answered by
	// [Refuse], Reason is the reason Refuse wrote.
	Admitted bool
	Reason   string
	// Status is the HTTP status of the answer; 0 when the handler wrote
	// none (it panicked or hijacked the connection).
	Status int
	// Result is the terminal result, one of the Result constants.
	Result string
	// Shed is the set of optional features shed for the request, Asked the
	// features its handler asked about with [Shed]; Features names them
	// ([shed.Table.Names]).
	Shed, Asked shed.Set
	Features    shed.Table
}

// Attempt is one attempt of a call by a [Transport].
type Attempt struct {
	// Dependency is [ClientConfig.Dependency].
	Dependency string
	// Start and End are the wall-clock instants the attempt began and its
	// answer's headers (or its error) came back.
	Start, End time.Time
	// N is the attempt's number within the call, from 1; Identity is the
	// logical identity and attempt sent, with an empty Key when the call
	// carries none.
	N        int
	Identity identity.Request
	// Timeout is the call's timeout; zero when it has none.
	Timeout time.Duration
	// Made is false for an attempt that was not made; Refused then says
	// why: "breaker-open", "breaker-probe-limit", "deadline-expired",
	// "deadline-insufficient", or "body" when the body could not be
	// replayed.
	Made    bool
	Refused string
	// Status is the answer's HTTP status, 0 on a transport error; Err is
	// the attempt's error.
	Status int
	Err    error
	// Failed tells whether the attempt counts as failed (see [Transport]).
	Failed bool
	// Retry is the decision after a failed attempt: "granted", or
	// "suppressed:" and the reason (a [budget.Reason] or "max-attempts",
	// "body-not-replayable", "breaker-open"); "suppressed:no-budget"
	// without a budget. Empty when no retry was considered.
	Retry string
	// Breaker is the state of the dependency's breaker after the attempt;
	// [breaker.Closed] without a breaker.
	Breaker breaker.State
}

// retryGranted is the Retry of an attempt whose retry the budget allowed.
const retryGranted = "granted"

// retryDecision names retry reason i for [Attempt.Retry].
func retryDecision(i int) string {
	if i == 0 {
		return retryGranted
	}
	return "suppressed:" + retryReasonName(i)
}
