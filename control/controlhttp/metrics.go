package controlhttp

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/loadstate"
	"github.com/goodput-lab/goodput/control/shed"
)

// Metrics counts every decision of the middleware, the [Transport] and the
// [Stepper] that are given it. It is a [prometheus.Collector]: register it on
// a registry of your own and serve that registry, for example with
// promhttp.HandlerFor:
//
//	reg := prometheus.NewRegistry()
//	reg.MustRegister(metrics)
//	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
//
// It registers nothing on the global registry. Its metrics are:
//
//	goodput_server_decisions_total{class,reason}      admitted, or refused and why
//	goodput_server_outcomes_total{class,outcome}      goodput, late, failed, client-error, hijacked
//	goodput_shed_decisions_total{feature,decision}    shed or kept, per [Shed] call
//	goodput_client_attempts_total{attempt}            first or retry
//	goodput_client_retry_decisions_total{reason}      allowed, or suppressed and why
//	goodput_client_refusals_total{reason}             calls not made: breaker or deadline
//	goodput_load_state{state}                         1 for the state in force, 0 for the others
//	goodput_policy_generation                         the generation in force
//	goodput_load_state_transitions_total{to}          transitions seen by a Stepper
//
// Every label combination that can occur is collected from the start, at
// zero, so rates work from the first scrape; a shed feature appears once a
// [Handler] with its plan is built. The two gauges appear once a load state
// has been read. To add labels such as the service name, register through
// prometheus.WrapRegistererWith.
//
// The zero Metrics is ready to use; share one between the middleware and
// the transports of a process. Counting is an atomic add and does not
// allocate (shed features are resolved once, when [Handler] is built); only
// a scrape builds metrics. A Metrics is safe for concurrent use and must not
// be copied after first use.
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

var (
	descServerDecisions = prometheus.NewDesc("goodput_server_decisions_total",
		"Requests admitted or refused by the controlhttp middleware, by admission class and reason.",
		[]string{"class", "reason"}, nil)
	descServerOutcomes = prometheus.NewDesc("goodput_server_outcomes_total",
		"Admitted requests by admission class and outcome: goodput is a success before the deadline, late a success after it.",
		[]string{"class", "outcome"}, nil)
	descShedDecisions = prometheus.NewDesc("goodput_shed_decisions_total",
		"Optional-feature lookups by feature and decision.",
		[]string{"feature", "decision"}, nil)
	descClientAttempts = prometheus.NewDesc("goodput_client_attempts_total",
		"Calls made by controlhttp transports: first attempts and retries.",
		[]string{"attempt"}, nil)
	descClientRetryDecisions = prometheus.NewDesc("goodput_client_retry_decisions_total",
		"Retry decisions after a failed attempt: allowed, or suppressed and why.",
		[]string{"reason"}, nil)
	descClientRefusals = prometheus.NewDesc("goodput_client_refusals_total",
		"Calls a transport did not make: the breaker refused or too little deadline was left.",
		[]string{"reason"}, nil)
	descLoadState = prometheus.NewDesc("goodput_load_state",
		"Load state in force: 1 for the current state (Normal, Pressured, Protected or Recovering), 0 for the others.",
		[]string{"state"}, nil)
	descPolicyGeneration = prometheus.NewDesc("goodput_policy_generation",
		"Policy generation in force.",
		nil, nil)
	descTransitions = prometheus.NewDesc("goodput_load_state_transitions_total",
		"Load-state transitions, ramp steps and overrides seen by a Stepper, by the state entered.",
		[]string{"to"}, nil)
)

var _ prometheus.Collector = (*Metrics)(nil)

// Describe sends the descriptors of every metric m can collect. It
// implements [prometheus.Collector].
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{
		descServerDecisions, descServerOutcomes, descShedDecisions,
		descClientAttempts, descClientRetryDecisions, descClientRefusals,
		descLoadState, descPolicyGeneration, descTransitions,
	} {
		ch <- d
	}
}

// Collect sends the current value of every counter and gauge. It implements
// [prometheus.Collector]; a registry calls it on each scrape. A nil m
// collects nothing.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	if m == nil {
		return
	}
	counter := func(d *prometheus.Desc, v *atomic.Uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v.Load()), labels...)
	}
	for c := range admission.NumClasses {
		class := admission.Class(c).String()
		for r := range numServerReasons {
			counter(descServerDecisions, &m.decisions[c][r], class, serverReasonName(r))
		}
		for o := range numOutcomes {
			counter(descServerOutcomes, &m.outcomes[c][o], class, outcomeNames[o])
		}
	}

	m.mu.Lock()
	names := make([]string, 0, len(m.shed))
	for n := range m.shed {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		c := m.shed[n]
		counter(descShedDecisions, &c.shed, n, "shed")
		counter(descShedDecisions, &c.kept, n, "kept")
	}
	m.mu.Unlock()

	counter(descClientAttempts, &m.attempts[0], "first")
	counter(descClientAttempts, &m.attempts[1], "retry")
	for r := range numRetryReasons {
		counter(descClientRetryDecisions, &m.retries[r], retryReasonName(r))
	}
	for r := range numRefusals {
		counter(descClientRefusals, &m.refusals[r], refusalNames[r])
	}

	if m.hasState.Load() {
		cur := loadstate.State(m.state.Load())
		for s := range len(m.transitions) {
			v := 0.0
			if loadstate.State(s) == cur {
				v = 1
			}
			ch <- prometheus.MustNewConstMetric(descLoadState, prometheus.GaugeValue, v, loadstate.State(s).String())
		}
		ch <- prometheus.MustNewConstMetric(descPolicyGeneration, prometheus.GaugeValue, float64(m.generation.Load()))
	}
	for s := range len(m.transitions) {
		counter(descTransitions, &m.transitions[s], loadstate.State(s).String())
	}
}
