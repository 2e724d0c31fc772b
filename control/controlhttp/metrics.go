package controlhttp

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"goodput/control/admission"
	"goodput/control/budget"
	"goodput/control/loadstate"
	"goodput/control/shed"
)

// Metrics counts every decision of the middleware, the [Transport] and the
// [Stepper] that are given it, and serves the counts in the Prometheus text
// exposition format (version 0.0.4), so a Prometheus server can scrape it
// directly:
//
//	goodput_server_decisions_total{class,reason}      admitted, or refused and why
//	goodput_server_outcomes_total{class,outcome}      goodput, late, failed, client-error, hijacked
//	goodput_shed_decisions_total{feature,decision}    shed or kept, per [Shed] call
//	goodput_client_attempts_total{attempt}            first or retry
//	goodput_client_retry_decisions_total{reason}      allowed, or suppressed and why
//	goodput_client_refusals_total{reason}             calls not made: breaker or deadline
//	goodput_load_state                                0 Normal, 1 Pressured, 2 Protected, 3 Recovering
//	goodput_policy_generation                         the generation in force
//	goodput_load_state_transitions_total{to}          transitions seen by a Stepper
//
// Every label combination that can occur is written from the start, at zero,
// so rates work from the first scrape. The gauges appear once a load state
// has been read.
//
// The zero Metrics is ready to use; share one between the middleware and
// the transports of a process. Counting does not allocate (shed features are
// resolved once, when [Handler] is built). A Metrics is safe for concurrent
// use and must not be copied after first use.
type Metrics struct {
	decisions   [admission.NumClasses][numServerReasons]atomic.Uint64
	outcomes    [admission.NumClasses][numOutcomes]atomic.Uint64
	attempts    [2]atomic.Uint64
	retries     [numRetryReasons]atomic.Uint64
	refusals    [numRefusals]atomic.Uint64
	transitions [4]atomic.Uint64
	hasState    atomic.Bool
	state       atomic.Uint32
	generation  atomic.Uint64

	mu   sync.Mutex
	shed map[string]*shedCounter
}

// Server decision reasons: the admission reasons, then the middleware's own.
const (
	serverReasonAdmitted          = int(admission.ReasonAdmitted)
	serverReasonExpired           = admission.NumReasons + iota - 1
	serverReasonMalformedDeadline // malformed-deadline
	serverReasonMalformedIdentity // malformed-identity
	numServerReasons
)

func serverReasonName(i int) string {
	switch i {
	case serverReasonExpired:
		return reasonExpired
	case serverReasonMalformedDeadline:
		return reasonMalformedDeadline
	case serverReasonMalformedIdentity:
		return reasonMalformedIdentity
	}
	return admission.Reason(i).String()
}

// Outcomes of admitted requests.
const (
	outcomeGoodput     = iota // a success before the deadline
	outcomeLate               // a success after the deadline
	outcomeFailed             // 5xx, or the handler panicked
	outcomeClientError        // 4xx
	outcomeHijacked           // the connection was taken over
	numOutcomes
)

var outcomeNames = [numOutcomes]string{"goodput", "late", "failed", "client-error", "hijacked"}

func outcomeOf(status int, completed, late bool) int {
	switch {
	case !completed || status >= 500:
		return outcomeFailed
	case status == 0:
		return outcomeHijacked
	case status >= 400:
		return outcomeClientError
	case late:
		return outcomeLate
	}
	return outcomeGoodput
}

// Client retry decisions: the budget's reasons, then the transport's own.
const (
	retryMaxAttempts = int(budget.NumReasons) + iota
	retryBodyNotReplayable
	retryBreakerOpen
	numRetryReasons
)

var retryExtraNames = [...]string{"max-attempts", "body-not-replayable", "breaker-open"}

func retryReasonName(i int) string {
	if i < int(budget.NumReasons) {
		return budget.Reason(i).String()
	}
	return retryExtraNames[i-int(budget.NumReasons)]
}

// Client refusals: calls the transport did not make.
const (
	refusalBreakerOpen = iota
	refusalBreakerProbeLimit
	refusalDeadlineExpired
	refusalDeadlineInsufficient
	numRefusals
)

var refusalNames = [numRefusals]string{"breaker-open", "breaker-probe-limit", "deadline-expired", "deadline-insufficient"}

type shedCounter struct{ shed, kept atomic.Uint64 }

func (c *shedCounter) add(shedNow bool) {
	if shedNow {
		c.shed.Add(1)
	} else {
		c.kept.Add(1)
	}
}

// shedCounters returns the counters of tbl's features, indexed by
// shed.Feature, creating them on first sight of a name.
func (m *Metrics) shedCounters(tbl shed.Table) []*shedCounter {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.shed == nil {
		m.shed = make(map[string]*shedCounter)
	}
	out := make([]*shedCounter, tbl.Len())
	for i := range out {
		o, _ := tbl.Optional(shed.Feature(i))
		c := m.shed[o.Name]
		if c == nil {
			c = new(shedCounter)
			m.shed[o.Name] = c
		}
		out[i] = c
	}
	return out
}

// The counting methods accept a nil *Metrics and then count nothing.

func (m *Metrics) countAdmission(c admission.Class, reason int) {
	if m != nil {
		m.decisions[c][reason].Add(1)
	}
}

func (m *Metrics) countOutcome(c admission.Class, outcome int) {
	if m != nil {
		m.outcomes[c][outcome].Add(1)
	}
}

func (m *Metrics) countAttempt(retry bool) {
	if m != nil {
		i := 0
		if retry {
			i = 1
		}
		m.attempts[i].Add(1)
	}
}

func (m *Metrics) countRetry(reason int) {
	if m != nil {
		m.retries[reason].Add(1)
	}
}

func (m *Metrics) countRefusal(reason int) {
	if m != nil {
		m.refusals[reason].Add(1)
	}
}

func (m *Metrics) countTransition(to loadstate.State) {
	if m != nil && int(to) < len(m.transitions) {
		m.transitions[to].Add(1)
	}
}

func (m *Metrics) setLoadState(s loadstate.State, gen uint64) {
	if m != nil {
		m.state.Store(uint32(s))
		m.generation.Store(gen)
		m.hasState.Store(true)
	}
}

// ServeHTTP serves the metrics in the Prometheus text exposition format.
func (m *Metrics) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	m.WriteTo(w) //nolint:errcheck // the client went away; nothing to do
}

// WriteTo writes the metrics to w in the Prometheus text exposition format,
// in a fixed order.
func (m *Metrics) WriteTo(w io.Writer) (int64, error) {
	var b bytes.Buffer
	family := func(name, typ, help string) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
	}

	family("goodput_server_decisions_total", "counter", "Requests admitted or refused by the controlhttp middleware, by admission class and reason.")
	for c := range admission.NumClasses {
		for r := range numServerReasons {
			fmt.Fprintf(&b, "goodput_server_decisions_total{class=%q,reason=%q} %d\n",
				admission.Class(c).String(), serverReasonName(r), m.decisions[c][r].Load())
		}
	}
	family("goodput_server_outcomes_total", "counter", "Admitted requests by admission class and outcome: goodput is a success before the deadline, late a success after it.")
	for c := range admission.NumClasses {
		for o := range numOutcomes {
			fmt.Fprintf(&b, "goodput_server_outcomes_total{class=%q,outcome=%q} %d\n",
				admission.Class(c).String(), outcomeNames[o], m.outcomes[c][o].Load())
		}
	}
	family("goodput_shed_decisions_total", "counter", "Optional-feature lookups by feature and decision.")
	m.mu.Lock()
	names := make([]string, 0, len(m.shed))
	for n := range m.shed {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		c := m.shed[n]
		fmt.Fprintf(&b, "goodput_shed_decisions_total{feature=\"%s\",decision=\"shed\"} %d\n", escapeLabel(n), c.shed.Load())
		fmt.Fprintf(&b, "goodput_shed_decisions_total{feature=\"%s\",decision=\"kept\"} %d\n", escapeLabel(n), c.kept.Load())
	}
	m.mu.Unlock()
	family("goodput_client_attempts_total", "counter", "Calls made by controlhttp transports: first attempts and retries.")
	fmt.Fprintf(&b, "goodput_client_attempts_total{attempt=\"first\"} %d\n", m.attempts[0].Load())
	fmt.Fprintf(&b, "goodput_client_attempts_total{attempt=\"retry\"} %d\n", m.attempts[1].Load())
	family("goodput_client_retry_decisions_total", "counter", "Retry decisions after a failed attempt: allowed, or suppressed and why.")
	for r := range numRetryReasons {
		fmt.Fprintf(&b, "goodput_client_retry_decisions_total{reason=%q} %d\n", retryReasonName(r), m.retries[r].Load())
	}
	family("goodput_client_refusals_total", "counter", "Calls a transport did not make: the breaker refused or too little deadline was left.")
	for r := range numRefusals {
		fmt.Fprintf(&b, "goodput_client_refusals_total{reason=%q} %d\n", refusalNames[r], m.refusals[r].Load())
	}
	if m.hasState.Load() {
		family("goodput_load_state", "gauge", "Load state in force: 0 Normal, 1 Pressured, 2 Protected, 3 Recovering.")
		fmt.Fprintf(&b, "goodput_load_state %d\n", m.state.Load())
		family("goodput_policy_generation", "gauge", "Policy generation in force.")
		fmt.Fprintf(&b, "goodput_policy_generation %d\n", m.generation.Load())
	}
	family("goodput_load_state_transitions_total", "counter", "Load-state transitions, ramp steps and overrides seen by a Stepper, by the state entered.")
	for s := range len(m.transitions) {
		fmt.Fprintf(&b, "goodput_load_state_transitions_total{to=%q} %d\n", loadstate.State(s).String(), m.transitions[s].Load())
	}
	return b.WriteTo(w)
}

// escapeLabel escapes a label value as the text format requires.
func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}
