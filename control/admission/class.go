package admission

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Class is the admission class of a request. Classes are ordered by value:
// a smaller value is more valuable and keeps capacity longer as the limit
// binds, so [Sheddable] work is refused first and [Continuation] work last.
type Class uint8

// The admission classes, from most to least valuable.
const (
	// Continuation is a step of a payment already under way (for example the
	// commit after an authorisation). Refusing it strands correctness-sensitive
	// work, so it may use the whole limit.
	Continuation Class = iota
	// Lookup is a status lookup, such as the one that resolves an ambiguous
	// payment by its original identity. It is cheap and resolves debt.
	Lookup
	// Standard is a new checkout.
	Standard
	// Sheddable is new low-value work: prefetches, background or optional
	// calls. It is refused first.
	Sheddable
)

// NumClasses is the number of admission classes; arrays indexed by [Class]
// have this length.
const NumClasses = 4

var classNames = [NumClasses]string{"continuation", "lookup", "standard", "sheddable"}

// String returns the class's name as used in headers and metrics, for
// example "continuation".
func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "Class(" + strconv.Itoa(int(c)) + ")"
}

// ParseClass returns the class named s, as written by [Class.String].
func ParseClass(s string) (Class, error) {
	for i, name := range classNames {
		if s == name {
			return Class(i), nil
		}
	}
	return 0, fmt.Errorf("admission: unknown class %q (want continuation, lookup, standard or sheddable)", s)
}

// Reason says why a request was admitted or refused.
type Reason uint8

// The reasons of a [Decision].
const (
	// ReasonAdmitted: the request holds an in-flight slot.
	ReasonAdmitted Reason = iota
	// ReasonLimit: every slot of the effective limit is in use.
	ReasonLimit
	// ReasonReserved: slots are free, but they are reserved for more
	// valuable classes.
	ReasonReserved
	// ReasonDeadline: the request's remaining slack is shorter than the time
	// it is expected to need, so admitting it would only produce a late
	// response.
	ReasonDeadline
	// ReasonClassClosed: the request's class has been closed with
	// [Controller.SetClassOpen].
	ReasonClassClosed
)

// NumReasons is the number of reasons; arrays indexed by [Reason] have this
// length.
const NumReasons = 5

var reasonNames = [NumReasons]string{"admitted", "limit", "reserved", "deadline", "class-closed"}

// String returns the reason code, for example "reserved".
func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return "Reason(" + strconv.Itoa(int(r)) + ")"
}

// Sentinel errors returned by [Decision.Err] and [Reason.Err].
var (
	ErrLimit       = errors.New("admission: limit reached")
	ErrReserved    = errors.New("admission: capacity reserved for higher classes")
	ErrDeadline    = errors.New("admission: deadline cannot be met")
	ErrClassClosed = errors.New("admission: class closed")
)

// Err returns the sentinel error of a refusal reason, or nil for
// [ReasonAdmitted].
func (r Reason) Err() error {
	switch r {
	case ReasonAdmitted:
		return nil
	case ReasonLimit:
		return ErrLimit
	case ReasonReserved:
		return ErrReserved
	case ReasonDeadline:
		return ErrDeadline
	case ReasonClassClosed:
		return ErrClassClosed
	}
	return fmt.Errorf("admission: unknown reason %d", uint8(r))
}

// Request describes a request at the admission point.
type Request struct {
	// Class is the request's admission class. Values beyond [Sheddable] are
	// treated as Sheddable.
	Class Class
	// Slack is the time left before the request's absolute deadline at the
	// instant of admission. A request without a deadline carries [NoDeadline].
	Slack time.Duration
	// Expected is the service time the request needs once admitted. The
	// request is refused with [ReasonDeadline] when Slack < Expected; with a
	// zero Expected only a negative Slack is refused.
	Expected time.Duration
}

// NoDeadline is the Slack of a request that has no deadline.
const NoDeadline = time.Duration(1<<63 - 1)

// Decision is the outcome of [Controller.Admit].
type Decision struct {
	// Admitted reports whether the request holds an in-flight slot; if so the
	// caller must call [Controller.Done] exactly once when it finishes.
	Admitted bool
	// Reason is the reason code of the decision.
	Reason Reason
	// RetryAfter is how long a refused caller should wait before trying
	// again; zero when admitted, and zero for [ReasonDeadline], because
	// retrying a request that cannot meet its deadline never helps.
	RetryAfter time.Duration
}

// Err returns nil when the request was admitted, otherwise the sentinel
// error of its reason (for example [ErrLimit]).
func (d Decision) Err() error { return d.Reason.Err() }

// Sample is the measurement of one finished request, given to
// [Controller.Done].
type Sample struct {
	// Class is the class the request was admitted under.
	Class Class
	// QueueDelay is the time the request waited between admission and the
	// start of service.
	QueueDelay time.Duration
	// Latency is the time from admission to completion.
	Latency time.Duration
	// Dropped reports that the request was dropped or timed out rather than
	// served (for example expired in a queue, or answered after its
	// deadline); dropped samples are an overload signal of their own (see
	// [Config.DropRatio]).
	Dropped bool
	// Failed reports that the request was answered with a failure of the
	// service's own (an HTTP 5xx, e.g. because its dependency timed out). A
	// failure slower than the baseline latency plus [Config.Target] (and,
	// with a deadline, than half of [Sample.Slack]) is an overload signal, as
	// a drop is: the request waited for capacity it did not get. A fast failure (a dependency that refuses at once) is not,
	// and no failure counts towards the baseline.
	Failed bool
	// Slack is the time the request had left when it was admitted (its
	// deadline less the admission instant); zero when it had no deadline. A
	// failure with a deadline is an overload signal only once it has also
	// spent half of its slack: a failure well inside its deadline (an error
	// retried and given up on in tens of milliseconds when the caller allows
	// seconds) is the dependency's, not a sign that the service is full.
	Slack time.Duration
}
