package controlhttp

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/breaker"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/loadstate"
	"github.com/goodput-lab/goodput/control/shed"
)

// Metrics counts every decision of the middleware, the [Transport] and the
// [Stepper] that are given it, and reads the levels of the controls they
// use. It links no metrics library: read it with [Metrics.Visit], or
// register it on a Prometheus registry with package controlprom
// (controlprom.NewCollector(metrics)). Its families ([Families]) are:
//
//	goodput_server_decisions_total{class,reason}          admitted, or refused and why
//	goodput_server_outcomes_total{class,outcome}          goodput, late, failed, client_error, hijacked, refused
//	goodput_shed_decisions_total{feature,decision}        shed or kept, per [Shed] call
//	goodput_admission_limit                               the admission limit in force
//	goodput_admission_in_flight                           requests admitted and not yet done
//	goodput_client_attempts_total{dependency,attempt}     first or retry
//	goodput_client_retry_decisions_total{dependency,reason} allowed, or suppressed and why
//	goodput_client_refusals_total{dependency,reason}      calls not made: breaker or deadline
//	goodput_breaker_state{dependency,state}               1 for the breaker's state, 0 for the others
//	goodput_retry_budget_available                        retries the budget's window still allows
//	goodput_load_state{state}                             1 for the state in force, 0 for the others
//	goodput_policy_generation                             the generation in force
//	goodput_load_state_transitions_total{to}              transitions seen by a Stepper
//
// Label names and values are snake_case (a reason header's "class-closed"
// is the label value "class_closed"); shed feature names are written as
// the plan spells them.
//
// The gauges read the controls the Metrics is given, at each Visit:
// [Handler] gives it [ServerConfig.Admission], [NewTransport] gives it
// [ClientConfig.Budget] and [ClientConfig.Breaker] (under
// [ClientConfig.Dependency]), and a [Stepper] the load state. The
// admission and budget gauges sum over the distinct controllers and budgets
// given (usually one of each); each gauge appears once its control has been
// given. Name each Transport's dependency: its counters and breaker state
// are labelled with it, so "breaker open" says which breaker.
//
// Every counter label combination that can occur is visited from the
// start, at zero, so rates work from the first scrape; a dependency appears
// once a Transport for it is built, a shed feature once a [Handler] with
// its plan is.
//
// The zero Metrics is ready to use; share one between the middleware and
// the transports of a process. Counting is an atomic add and does not
// allocate (dependencies and shed features are resolved once, when the
// Transport or Handler is built); only Visit builds values. A Metrics is
// safe for concurrent use and must not be copied after first use.
type Metrics struct {
	decisions   [admission.NumClasses][numServerReasons]atomic.Uint64
	outcomes    [admission.NumClasses][numOutcomes]atomic.Uint64
	transitions [numLoadStates]atomic.Uint64
	hasState    atomic.Bool
	state       atomic.Uint32
	generation  atomic.Uint64

	mu         sync.Mutex
	shed       map[string]*shedCounter
	deps       map[string]*clientCounters
	admissions []*admission.Controller
	budgets    []*budget.Budget
}

// Kind is the kind of a metric family.
type Kind uint8

const (
	// Counter is a count that only grows.
	Counter Kind = iota
	// Gauge is a level that goes up and down.
	Gauge
)

// Family describes one metric family a [Metrics] reports.
type Family struct {
	Name   string   // e.g. "goodput_server_decisions_total"
	Help   string   // one sentence
	Kind   Kind     // Counter or Gauge
	Labels []string // label names, in the order of [Sample.Labels]
}

// Sample is one value of a family, as [Metrics.Visit] reports it.
type Sample struct {
	// Family is the index of the sample's family in [Families].
	Family int
	// Labels are the label values, in the order of the family's Labels.
	Labels []string
	// Value is the count or the level.
	Value float64
}

// Family indices, in the order of families.
const (
	famServerDecisions = iota
	famServerOutcomes
	famShedDecisions
	famAdmissionLimit
	famAdmissionInFlight
	famClientAttempts
	famClientRetryDecisions
	famClientRefusals
	famBreakerState
	famBudgetAvailable
	famLoadState
	famPolicyGeneration
	famTransitions
	numFamilies
)

var families = [numFamilies]Family{
	famServerDecisions: {"goodput_server_decisions_total",
		"Requests admitted or refused by the controlhttp middleware, by admission class and reason.",
		Counter, []string{"class", "reason"}},
	famServerOutcomes: {"goodput_server_outcomes_total",
		"Admitted requests by admission class and outcome: goodput is a success before the deadline, late a success after it, refused an answer written by controlhttp.Refuse.",
		Counter, []string{"class", "outcome"}},
	famShedDecisions: {"goodput_shed_decisions_total",
		"Optional-feature lookups by feature and decision.",
		Counter, []string{"feature", "decision"}},
	famAdmissionLimit: {"goodput_admission_limit",
		"Concurrency limit in force in the admission controllers the middleware uses.",
		Gauge, nil},
	famAdmissionInFlight: {"goodput_admission_in_flight",
		"Requests admitted by the middleware's admission controllers and not yet done.",
		Gauge, nil},
	famClientAttempts: {"goodput_client_attempts_total",
		"Calls made by controlhttp transports, by dependency: first attempts and retries.",
		Counter, []string{"dependency", "attempt"}},
	famClientRetryDecisions: {"goodput_client_retry_decisions_total",
		"Retry decisions after a failed attempt, by dependency: allowed, or suppressed and why.",
		Counter, []string{"dependency", "reason"}},
	famClientRefusals: {"goodput_client_refusals_total",
		"Calls a transport did not make, by dependency: the breaker refused or too little deadline was left.",
		Counter, []string{"dependency", "reason"}},
	famBreakerState: {"goodput_breaker_state",
		"State of each dependency's breaker: 1 for the current state (closed, open or half_open), 0 for the others.",
		Gauge, []string{"dependency", "state"}},
	famBudgetAvailable: {"goodput_retry_budget_available",
		"Retries the retry budgets' windows still allow.",
		Gauge, nil},
	famLoadState: {"goodput_load_state",
		"Load state in force: 1 for the current state (normal, pressured, protected or recovering), 0 for the others.",
		Gauge, []string{"state"}},
	famPolicyGeneration: {"goodput_policy_generation",
		"Policy generation in force.",
		Gauge, nil},
	famTransitions: {"goodput_load_state_transitions_total",
		"Load-state transitions, ramp steps and overrides seen by a Stepper, by the state entered.",
		Counter, []string{"to"}},
}

// Families returns the metric families a [Metrics] reports; a [Sample]'s
// Family indexes this slice. The result is a fresh copy on each call.
func Families() []Family {
	out := make([]Family, numFamilies)
	for i, f := range families {
		f.Labels = slices.Clone(f.Labels)
		out[i] = f
	}
	return out
}

// snake returns name in snake_case: "class-closed" is "class_closed",
// "HalfOpen" is "half_open".
func snake(name string) string {
	var b strings.Builder
	for i, r := range name {
		switch {
		case r == '-' || r == ' ':
			b.WriteByte('_')
		case unicode.IsUpper(r):
			if i > 0 && name[i-1] != '-' && name[i-1] != '_' {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
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
	outcomeRefused            // answered by Refuse
	numOutcomes
)

var outcomeNames = [numOutcomes]string{"goodput", "late", "failed", "client-error", "hijacked", "refused"}

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

const (
	numLoadStates     = 4 // Normal, Pressured, Protected, Recovering
	numBreakerStates  = 3 // Closed, Open, HalfOpen
	attemptFirstRetry = 2
)

// Label values, in snake_case, computed once.
var (
	classLabels        [admission.NumClasses]string
	serverReasonLabels [numServerReasons]string
	outcomeLabels      [numOutcomes]string
	retryReasonLabels  [numRetryReasons]string
	refusalLabels      [numRefusals]string
	loadStateLabels    [numLoadStates]string
	breakerStateLabels [numBreakerStates]string
	attemptLabels      = [attemptFirstRetry]string{"first", "retry"}
)

func init() {
	for i := range classLabels {
		classLabels[i] = snake(admission.Class(i).String())
	}
	for i := range serverReasonLabels {
		serverReasonLabels[i] = snake(serverReasonName(i))
	}
	for i := range outcomeLabels {
		outcomeLabels[i] = snake(outcomeNames[i])
	}
	for i := range retryReasonLabels {
		retryReasonLabels[i] = snake(retryReasonName(i))
	}
	for i := range refusalLabels {
		refusalLabels[i] = snake(refusalNames[i])
	}
	for i := range loadStateLabels {
		loadStateLabels[i] = snake(loadstate.State(i).String())
	}
	for i := range breakerStateLabels {
		breakerStateLabels[i] = snake(breaker.State(i).String())
	}
}

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

// watchAdmission adds c to the controllers the admission gauges read.
func (m *Metrics) watchAdmission(c *admission.Controller) {
	if m == nil || c == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !slices.Contains(m.admissions, c) {
		m.admissions = append(m.admissions, c)
	}
}

// clientCounters are the counters of one dependency, and its breaker.
type clientCounters struct {
	attempts [attemptFirstRetry]atomic.Uint64
	retries  [numRetryReasons]atomic.Uint64
	refusals [numRefusals]atomic.Uint64
	breaker  *breaker.Breaker // the first one given for the dependency; nil without; under Metrics.mu
}

// client returns the counters of dependency dep, creating them on first
// sight, and watches br (the dependency's breaker) and b (the retry
// budget). It returns nil for a nil m: the counters' methods then count
// nothing.
func (m *Metrics) client(dep string, br *breaker.Breaker, b *budget.Budget) *clientCounters {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.deps == nil {
		m.deps = make(map[string]*clientCounters)
	}
	c := m.deps[dep]
	if c == nil {
		c = new(clientCounters)
		m.deps[dep] = c
	}
	if c.breaker == nil {
		c.breaker = br
	}
	if b != nil && !slices.Contains(m.budgets, b) {
		m.budgets = append(m.budgets, b)
	}
	return c
}

// The counting methods accept a nil receiver and then count nothing.

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

func (c *clientCounters) countAttempt(retry bool) {
	if c != nil {
		i := 0
		if retry {
			i = 1
		}
		c.attempts[i].Add(1)
	}
}

func (c *clientCounters) countRetry(reason int) {
	if c != nil {
		c.retries[reason].Add(1)
	}
}

func (c *clientCounters) countRefusal(reason int) {
	if c != nil {
		c.refusals[reason].Add(1)
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

// Visit calls f with every sample of m, family by family in the order of
// [Families], the counters' label combinations in a fixed order. The gauges
// are read from the controls at now (a breaker whose open period has passed
// at now reads half-open). f must not keep Labels after it returns unless
// it copies them. A nil m visits nothing.
func (m *Metrics) Visit(now time.Time, f func(Sample)) {
	if m == nil {
		return
	}
	emit := func(fam int, v float64, labels ...string) {
		f(Sample{Family: fam, Labels: labels, Value: v})
	}
	count := func(fam int, v *atomic.Uint64, labels ...string) {
		emit(fam, float64(v.Load()), labels...)
	}
	for c := range admission.NumClasses {
		for r := range numServerReasons {
			count(famServerDecisions, &m.decisions[c][r], classLabels[c], serverReasonLabels[r])
		}
	}
	for c := range admission.NumClasses {
		for o := range numOutcomes {
			count(famServerOutcomes, &m.outcomes[c][o], classLabels[c], outcomeLabels[o])
		}
	}

	m.mu.Lock()
	shedNames := sortedKeys(m.shed)
	shedding := make([]*shedCounter, len(shedNames))
	for i, n := range shedNames {
		shedding[i] = m.shed[n]
	}
	depNames := sortedKeys(m.deps)
	deps := make([]*clientCounters, len(depNames))
	breakers := make([]*breaker.Breaker, len(depNames))
	for i, n := range depNames {
		deps[i] = m.deps[n]
		breakers[i] = deps[i].breaker
	}
	admissions := slices.Clone(m.admissions)
	budgets := slices.Clone(m.budgets)
	m.mu.Unlock()

	for i, n := range shedNames {
		count(famShedDecisions, &shedding[i].shed, n, "shed")
		count(famShedDecisions, &shedding[i].kept, n, "kept")
	}
	if len(admissions) > 0 {
		limit, inFlight := 0, 0
		for _, a := range admissions {
			limit += a.Limit()
			inFlight += a.InFlight()
		}
		emit(famAdmissionLimit, float64(limit))
		emit(famAdmissionInFlight, float64(inFlight))
	}
	for i, d := range depNames {
		for a := range attemptFirstRetry {
			count(famClientAttempts, &deps[i].attempts[a], d, attemptLabels[a])
		}
	}
	for i, d := range depNames {
		for r := range numRetryReasons {
			count(famClientRetryDecisions, &deps[i].retries[r], d, retryReasonLabels[r])
		}
	}
	for i, d := range depNames {
		for r := range numRefusals {
			count(famClientRefusals, &deps[i].refusals[r], d, refusalLabels[r])
		}
	}
	for i, d := range depNames {
		br := breakers[i]
		if br == nil {
			continue
		}
		cur := br.State(now)
		for s := range numBreakerStates {
			emit(famBreakerState, indicator(breaker.State(s) == cur), d, breakerStateLabels[s])
		}
	}
	if len(budgets) > 0 {
		avail := 0.0
		for _, b := range budgets {
			avail += b.Window(now).Available()
		}
		emit(famBudgetAvailable, avail)
	}

	if m.hasState.Load() {
		cur := loadstate.State(m.state.Load())
		for s := range numLoadStates {
			emit(famLoadState, indicator(loadstate.State(s) == cur), loadStateLabels[s])
		}
		emit(famPolicyGeneration, float64(m.generation.Load()))
	}
	for s := range numLoadStates {
		count(famTransitions, &m.transitions[s], loadStateLabels[s])
	}
}

func indicator(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
