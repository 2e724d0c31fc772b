package model

import (
	"time"

	"github.com/goodput-lab/goodput/control/budget"
)

// Retries. A layer whose attempt (an entry) or call (a service) failed decides whether to
// try again in two parts. retryRule.decide is a pure function of the layer's retry plan,
// the arm's policy and what the layer knows (the failure, the retries it has made, the
// time left, what the try is expected to take): it returns a verdict and changes nothing.
// The arm applies the verdict (arm.retry): it asks the budget for a token when the verdict
// says so, records a refusal as suppressed, and the layer schedules the retry after the
// verdict's backoff.

// retryRule is one layer's retry decision: its retry plan under an arm's policy.
type retryRule struct {
	plan   *retryPlan
	policy retryPolicy
}

// retryPolicy is what of an arm's policy retries are decided by.
type retryPolicy struct {
	propagate    bool          // deadlines are propagated: a retry must fit in the time left
	budgeted     bool          // a retry budget makes the checks and takes a token
	deduplicated bool          // the dependencies deduplicate repeats by logical identity
	reserve      time.Duration // the time kept back of what is left before the deadline
}

// retryAsk is what a layer knows when it decides whether to retry.
type retryAsk struct {
	cause      cause         // how the attempt or call failed
	retries    int           // retries the layer has made of it so far
	left       time.Duration // the time before the request's deadline (negative once past)
	takes      time.Duration // what the try is expected to take (tryTakes, depRT.p50)
	idempotent bool          // the request's class is idempotent
	u          float64       // the backoff's jitter draw (a jittered plan's only; see arm.jitter)
}

// retryReason is why a verdict is what it is.
type retryReason uint8

const (
	retryAllowed  retryReason = iota // retry (with a token, if the verdict asks for one)
	retryLimit                       // the layer has made its most retries: give up
	retryNotOn                       // the layer does not retry this failure: give up
	retryDeadline                    // the time left cannot cover the retry: give up, suppressed by the deadline
)

// retryVerdict is a retry decision.
type retryVerdict struct {
	retry   bool // try again after backoff (if token, only if the budget allows ask)
	reason  retryReason
	backoff time.Duration
	token   bool         // the retry needs a budget's token: Budget.Allow(ask) decides
	ask     budget.Retry // what the budget is asked, when token
}

// decide returns the verdict on retrying after q. A layer retries at most plan.max times,
// and only the failures its plan lists. The backoff is the plan's wait after the attempt
// that failed (the retries made, plus one), spread by the draw q.u. The retry must then
// have at least its backoff, the policy's reserve and what its try is expected to take
// left before the deadline, and never less than a nanosecond for the try: a try with
// nothing but the reserve left would be given no time at all (its calls' timeouts are the
// time left less the reserve). Under a budget that comparison is the budget's
// ([budget.Retry.Expected]), which also classifies the failure and the operation and takes
// a token, so the verdict only asks.
func (r retryRule) decide(q retryAsk) retryVerdict {
	if q.retries >= r.plan.max {
		return retryVerdict{reason: retryLimit}
	}
	if !r.plan.on(q.cause) {
		return retryVerdict{reason: retryNotOn}
	}
	backoff := r.plan.backoff.Wait(q.retries+1, q.u)
	left := budget.NoDeadline
	if r.policy.propagate {
		left = q.left
	}
	expected := backoff + r.policy.reserve + max(q.takes, time.Nanosecond)
	if r.policy.budgeted {
		return retryVerdict{retry: true, backoff: backoff, token: true, ask: budget.Retry{
			Failure:      failureOf(q.cause),
			Idempotent:   q.idempotent,
			Deduplicated: r.policy.deduplicated,
			Remaining:    left,
			Expected:     expected,
		}}
	}
	if r.policy.propagate && left < expected {
		return retryVerdict{reason: retryDeadline}
	}
	return retryVerdict{retry: true, backoff: backoff}
}

// failureOf is the budget's classification of a failure.
func failureOf(c cause) budget.Failure {
	switch c {
	case causeTimeout:
		return budget.Timeout
	case causeError:
		return budget.Transient
	case causeOverload:
		return budget.Overload
	case causeExpired:
		return budget.Canceled
	}
	return budget.Unclassified
}

// retryRule is the retry decision of a layer with plan rp under the arm's policy.
func (a *arm) retryRule(rp *retryPlan) retryRule {
	return retryRule{plan: rp, policy: retryPolicy{
		propagate:    a.pol.propagate,
		budgeted:     a.pol.budget != nil,
		deduplicated: a.pol.identity,
		reserve:      a.pol.reserve,
	}}
}

// retry decides by rule r whether to retry after q and applies the verdict: the budget's
// token is taken, a refusal is recorded as suppressed. It returns the backoff before the
// retry and whether there is one.
func (a *arm) retry(r retryRule, q retryAsk) (time.Duration, bool) {
	v := r.decide(q)
	if v.token {
		if d := a.pol.budget.Allow(a.wall(), v.ask); !d.Allowed {
			a.rec.Suppressed(a.now(), d.Reason.String())
			return 0, false
		}
	}
	if !v.retry {
		if v.reason == retryDeadline {
			a.rec.Suppressed(a.now(), budget.ReasonDeadline.String())
		}
		return 0, false
	}
	return v.backoff, true
}

// jitter is the draw that spreads the backoff of a retry under plan rp, for the failed
// attempt att (its stage and try, for a call) of request lg: the same in every arm for
// the same request and attempt. A plan without jitter needs none (0).
func (a *arm) jitter(rp *retryPlan, lg *logical, att, stage, try int32) float64 {
	if !rp.jittered {
		return 0
	}
	return a.draw(rp.jitterPurp, lg.id, att, stage, try)
}

// tryTakes is what an entry's new attempt of class cp is expected to take: the median
// service times of the dependencies its required stages call, one after another (optional
// stages may be shed, and work and queueing vary with the load).
func (a *arm) tryTakes(cp *classPlan) time.Duration {
	var d time.Duration
	for i := range cp.stages {
		if st := &cp.stages[i]; !st.optional && st.dep >= 0 {
			d += a.deps[st.dep].p50
		}
	}
	return d
}
