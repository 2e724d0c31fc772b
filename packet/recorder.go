package packet

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
	"unsafe"

	"github.com/goodput-lab/goodput/internal/latency"
)

// Outcome is the terminal state of an admitted logical request. A rejected request's
// terminal state is its rejection ([Recorder.Rejected]); it has no Outcome.
type Outcome uint8

// The terminal outcomes of an admitted logical request.
const (
	// Goodput is a correct finish before the absolute deadline.
	Goodput Outcome = iota + 1
	// Late is a correct finish after the deadline: physical throughput, not goodput.
	Late
	// Expired is a request whose deadline passed and whose work was abandoned.
	Expired
	// Failed is a request that ended in an error.
	Failed
	// Ambiguous is a request whose outcome is unknown to the caller (for example, payment
	// authorised but the response lost).
	Ambiguous
)

var outcomeNames = [...]string{"", "goodput", "late", "expired", "failed", "ambiguous"}

// String returns the outcome's lower-case name, as used in packet.json.
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) && o != 0 {
		return outcomeNames[o]
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// Config configures a [Recorder].
type Config struct {
	// Arm is the arm's name.
	Arm string
	// Start is the wall instant of virtual time 0 (for labels: transition and event times).
	Start time.Time
	// Tick is the series period. Zero means one second.
	Tick time.Duration
	// Duration is the scheduled length of the run: rates are per second of Duration and the
	// series has at least Duration/Tick rows. Zero means the run lasts until the last
	// recorded event.
	Duration time.Duration
	// Classes, Layers and Dependencies name the request classes, attempt layers and
	// dependencies in report order. Names first seen in a Recorder call are appended in the
	// order they appear, so the lists may be empty; listing them fixes the order and makes
	// an arm that never sees a name still report it (with zeros).
	Classes      []string
	Layers       []string
	Dependencies []string
	// Caches names the caches, in report order, as Dependencies does the dependencies.
	Caches []string
	// Objectives are objectives the recorder must know while recording: only latency
	// objectives (latency_p50/p99/p999) with a window (From/To) or a State need it, since a
	// histogram cannot be cut by time after the fact. Other specs here are ignored.
	Objectives []ObjectiveSpec
	// StableFraction is the per-tick goodput/offered at or above which a tick counts as
	// stable for [Recovery]. Zero means 0.95.
	StableFraction float64
	// DrainAge is the oldest queue age at or below which a tick counts as drained for
	// [Recovery]. Zero means 250ms.
	DrainAge time.Duration
	// RecoveryAfter is the instant recovery timings are measured from. Zero means the After
	// of the first time_to_normal objective passed to Finish, or 0 if there is none.
	RecoveryAfter time.Duration
	// Alerts names the scenario's alert rules, in order: [Recorder.AlertFired] and
	// [Recorder.AlertCleared] take an index into it, and Finish reports an [Alert] for each.
	Alerts []string
}

// ErrConfig is returned by [Config.Validate] for a configuration that cannot be used.
var ErrConfig = errors.New("packet: invalid config")

// Validate reports a negative Tick, Duration, DrainAge or RecoveryAfter, a StableFraction
// outside [0, 1], or a name listed twice.
func (c Config) Validate() error {
	switch {
	case c.Tick < 0:
		return fmt.Errorf("%w: tick %v is negative", ErrConfig, c.Tick)
	case c.Duration < 0:
		return fmt.Errorf("%w: duration %v is negative", ErrConfig, c.Duration)
	case c.DrainAge < 0:
		return fmt.Errorf("%w: drain age %v is negative", ErrConfig, c.DrainAge)
	case c.RecoveryAfter < 0:
		return fmt.Errorf("%w: recovery after %v is negative", ErrConfig, c.RecoveryAfter)
	case c.StableFraction < 0 || c.StableFraction > 1 || math.IsNaN(c.StableFraction):
		return fmt.Errorf("%w: stable fraction %v is outside [0, 1]", ErrConfig, c.StableFraction)
	}
	for _, l := range []struct {
		what  string
		names []string
	}{{"class", c.Classes}, {"layer", c.Layers}, {"dependency", c.Dependencies}, {"cache", c.Caches}} {
		seen := make(map[string]bool, len(l.names))
		for _, n := range l.names {
			if seen[n] {
				return fmt.Errorf("%w: %s %q listed twice", ErrConfig, l.what, n)
			}
			seen[n] = true
		}
	}
	return nil
}

// Histogram range: values are recorded in microseconds from 0 to one hour; larger values
// are clamped to one hour. Completion latency, which objectives judge, keeps three
// significant digits (0.1%); the diagnostic timings (queue wait, remaining deadline,
// connection wait, service time) keep two (1%), in an eighth of the memory.
const (
	histMax    = time.Hour
	histDigits = 3
	diagDigits = 2
)

// newHist returns a histogram of completion latency; newDiagHist one of a diagnostic timing.
func newHist() latency.Histogram     { return latency.New(histDigits, histMax) }
func newDiagHist() latency.Histogram { return latency.New(diagDigits, histMax) }

// names is an ordered set of names with a fast lookup for the handful of classes and layers
// a scenario has.
type names struct {
	list []string
	idx  map[string]int
	// memo remembers where strings passed to find were found, by their data pointer:
	// callers mostly pass the very strings they registered (a model's plan holds its names),
	// so most lookups are one comparison. The pointer keeps the string's memory alive, so
	// while an entry stands its address holds the same (immutable) string.
	memo [16]memoEntry
}

type memoEntry struct {
	p *byte
	n int
	i int
}

func newNames(list []string) names {
	n := names{idx: make(map[string]int, len(list))}
	for _, s := range list {
		n.add(s)
	}
	return n
}

// add appends s if it is new and returns its index.
func (n *names) add(s string) int {
	if i, ok := n.idx[s]; ok {
		return i
	}
	n.idx[s] = len(n.list)
	n.list = append(n.list, s)
	return len(n.list) - 1
}

// find returns the index of s, adding it if it is new, and whether it was added.
func (n *names) find(s string) (int, bool) {
	p := unsafe.StringData(s)
	m := &n.memo[uintptr(unsafe.Pointer(p))>>3&15]
	if m.p == p && m.n == len(s) && len(s) > 0 {
		return m.i, false
	}
	i, added := n.lookup(s)
	*m = memoEntry{p: p, n: len(s), i: i}
	return i, added
}

func (n *names) lookup(s string) (int, bool) {
	if len(n.list) <= 8 {
		for i, v := range n.list {
			if v == s {
				return i, false
			}
		}
	} else if i, ok := n.idx[s]; ok {
		return i, false
	}
	return n.add(s), true
}

// tally counts by name: cheaper than a map for the handful of reasons and features a run
// has, since most lookups are a short scan.
type tally struct {
	names names
	n     []int64
}

func newTally() tally { return tally{names: newNames(nil)} }

func (t *tally) add(name string) {
	i, added := t.names.find(name)
	if added {
		t.n = append(t.n, 0)
	}
	t.n[i]++
}

// counts returns the tally as a map, for the packet.
func (t *tally) counts() map[string]int64 {
	out := make(map[string]int64, len(t.n))
	for i, k := range t.names.list {
		out[k] = t.n[i]
	}
	return out
}

type classAcc struct {
	offered, admitted, rejected, shed int64
	outcomes                          [len(outcomeNames)]int64
	latency, queueWait, remaining     latency.Histogram
	overdue                           int64
}

func newClassAcc() classAcc {
	return classAcc{latency: newHist(), queueWait: newDiagHist(), remaining: newDiagHist()}
}

type layerAcc struct {
	attempts, retries, orphans, cancels int64
}

func newDepAcc() depAcc {
	return depAcc{connWait: newDiagHist(), service: newDiagHist()}
}

type depAcc struct {
	calls             int64
	poolExhausted     int64
	connWait, service latency.Histogram
}

// winLatency is a latency histogram restricted to a window and/or a load state, for a
// latency objective listed in Config.Objectives.
type winLatency struct {
	spec  ObjectiveSpec
	class int // index of spec.Class once that class is registered, else -1
	h     latency.Histogram
}

// Recorder accumulates one arm's comparison packet while the model runs. Call [NewRecorder],
// then the event methods as things happen, [Recorder.Sample] once per tick, and
// [Recorder.Finish] once at the end. On a hot path, get a handle once per name with
// [Recorder.Class], [Recorder.Layer] or [Recorder.Dependency] and record through it: the
// handle's methods skip the name lookup and have the same effect.
//
// Every method takes the virtual time at as a [time.Duration] since the scenario start (the
// same clock for every arm). Calls may come in any time order; only the per-tick latency
// percentiles of the series leave out a terminal state recorded more than three ticks
// after a later one. Memory is O(ticks + names):
// counters, histograms and one row per tick, never one entry per request. A Recorder is not
// safe for concurrent use: drive it from the arm's goroutine.
type Recorder struct {
	cfg        Config
	tick       time.Duration
	stableFrac float64
	drainAge   time.Duration

	classes, layers, deps names
	cls                   []classAcc
	lay                   []layerAcc
	dep                   []depAcc

	caches names
	cache  []cacheAcc // by cache

	healthNames names
	health      []HealthStats // by service with a health check

	rejectedBy, shedBy, suppressedBy tally
	dup                              Duplicates
	suppressed                       int64
	budget                           *RetryBudget

	rows             []Row
	last             *Row          // the row of the previous call (nil before the first),
	lastFrom, lastTo time.Duration // and its tick
	ticks            [tickRing]tickHist
	state            string // load state of the latest sample

	winLat        []winLatency
	transitions   []Transition
	events        []Event
	alerts        []alertAcc    // by rule of Config.Alerts
	breakers      []*breakerAcc // by dependency guarded, in first-seen order (breaker.go)
	breakerEvents int           // breaker state changes so far (at most MaxBreakerEvents listed)

	// fixed is the arm [Arm.Evaluate] evaluates: its latency percentiles stand in for the
	// histograms (nil for a Recorder that records).
	fixed *Arm
}

// NewRecorder returns a Recorder for one arm. It does not validate cfg (call
// [Config.Validate] for that); zero values take their documented defaults and negative
// durations count as zero.
func NewRecorder(cfg Config) *Recorder {
	r := &Recorder{
		cfg:          cfg,
		tick:         cfg.Tick,
		stableFrac:   cfg.StableFraction,
		drainAge:     cfg.DrainAge,
		classes:      newNames(cfg.Classes),
		layers:       newNames(cfg.Layers),
		deps:         newNames(cfg.Dependencies),
		caches:       newNames(cfg.Caches),
		healthNames:  newNames(nil),
		rejectedBy:   newTally(),
		shedBy:       newTally(),
		suppressedBy: newTally(),
		alerts:       make([]alertAcc, len(cfg.Alerts)),
	}
	for i := range r.ticks {
		r.ticks[i] = tickHist{tick: i, h: newHist()}
	}
	if r.tick <= 0 {
		r.tick = time.Second
	}
	if r.stableFrac <= 0 || r.stableFrac > 1 {
		r.stableFrac = 0.95
	}
	if r.drainAge <= 0 {
		r.drainAge = 250 * time.Millisecond
	}
	for range r.classes.list {
		r.cls = append(r.cls, newClassAcc())
	}
	r.lay = make([]layerAcc, len(r.layers.list))
	r.cache = make([]cacheAcc, len(r.caches.list))
	for range r.deps.list {
		r.dep = append(r.dep, newDepAcc())
	}
	if cfg.Duration > 0 {
		n := int((cfg.Duration + r.tick - 1) / r.tick)
		r.rows = make([]Row, n)
		for i := range r.rows {
			r.rows[i].T = time.Duration(i) * r.tick
		}
	}
	for _, s := range cfg.Objectives {
		if isLatencyMetric(s.Metric) && (s.From != 0 || s.To != 0 || s.State != "") {
			r.winLat = append(r.winLat, winLatency{spec: s, class: -1, h: newHist()})
		}
	}
	for i := range r.classes.list {
		r.resolveWinClass(i)
	}
	return r
}

// row returns the series row of the tick containing at, growing the series as needed.
func (r *Recorder) row(at time.Duration) *Row {
	if at >= r.lastFrom && at < r.lastTo {
		return r.last // most calls fall in the tick of the previous one
	}
	i := r.tickIndex(at)
	for len(r.rows) <= i {
		r.rows = append(r.rows, Row{T: time.Duration(len(r.rows)) * r.tick})
	}
	// The series only grows here, so the pointer stays valid until the next miss.
	r.last, r.lastFrom, r.lastTo = &r.rows[i], r.rows[i].T, r.rows[i].T+r.tick
	return r.last
}

func (r *Recorder) tickIndex(at time.Duration) int {
	if at <= 0 {
		return 0
	}
	return int(at / r.tick)
}

// tickRing is how many ticks of per-tick latency are open at once: a terminal state recorded
// more than tickRing-1 ticks after a later one is left out of the per-tick percentiles (it
// still counts everywhere else).
const tickRing = 4

// tickHist accumulates the latencies of the terminal states of one tick.
type tickHist struct {
	tick int
	h    latency.Histogram
}

// tickLatency records a latency in the per-tick histogram of tick i.
func (r *Recorder) tickLatency(i int, latency time.Duration) {
	t := &r.ticks[i%tickRing]
	if t.tick > i {
		return // too far out of order
	}
	if t.tick < i {
		r.flushTick(t)
		t.tick = i
	}
	t.h.Record(latency)
}

// flushTick stores the latency percentiles of a per-tick histogram in its row and resets it.
func (r *Recorder) flushTick(t *tickHist) {
	if t.h.Count() == 0 {
		return
	}
	if t.tick < len(r.rows) {
		row := &r.rows[t.tick]
		row.LatencyP50 = time.Duration(t.h.ValueAtPercentile(50)) * time.Microsecond
		row.LatencyP99 = time.Duration(t.h.ValueAtPercentile(99)) * time.Microsecond
	}
	t.h.Reset()
}

// classIndex returns the index of the class, registering it if it is new.
func (r *Recorder) classIndex(name string) int {
	i, added := r.classes.find(name)
	if added {
		r.cls = append(r.cls, newClassAcc())
		r.resolveWinClass(i)
	}
	return i
}

// resolveWinClass points the windowed latency objectives of class i's name at index i.
func (r *Recorder) resolveWinClass(i int) {
	for j := range r.winLat {
		if w := &r.winLat[j]; w.spec.Class != "" && w.spec.Class == r.classes.list[i] {
			w.class = i
		}
	}
}

func (r *Recorder) layerIndex(name string) int {
	i, added := r.layers.find(name)
	if added {
		r.lay = append(r.lay, layerAcc{})
	}
	return i
}

func (r *Recorder) dependency(name string) int {
	i, added := r.deps.find(name)
	if added {
		r.dep = append(r.dep, newDepAcc())
	}
	return i
}

// ClassRecorder records the events of one request class without looking its name up: get
// one with [Recorder.Class] and keep it. Its methods are the [Recorder] methods of the same
// names with the class filled in. The zero value is not usable.
type ClassRecorder struct {
	r *Recorder
	i int // index in r.classes and r.cls
}

// LayerRecorder records the events of one attempt layer without looking its name up: get
// one with [Recorder.Layer] and keep it. Its methods are the [Recorder] methods of the same
// names with the layer filled in. The zero value is not usable.
type LayerRecorder struct {
	r *Recorder
	i int // index in r.layers and r.lay
}

// DependencyRecorder records the calls to one dependency without looking its name up: get
// one with [Recorder.Dependency] and keep it. The zero value is not usable.
type DependencyRecorder struct {
	r *Recorder
	i int // index in r.deps and r.dep
}

// Class returns the handle of a request class, for recording its events on a hot path. It
// registers a new name as the string methods do, now rather than at the first event. The
// handle stays valid for the life of the recorder, whatever names are registered later.
func (r *Recorder) Class(name string) ClassRecorder {
	return ClassRecorder{r, r.classIndex(name)}
}

// Layer returns the handle of an attempt layer, for recording its events on a hot path. It
// registers a new name as the string methods do, now rather than at the first event. The
// handle stays valid for the life of the recorder, whatever names are registered later.
func (r *Recorder) Layer(name string) LayerRecorder {
	return LayerRecorder{r, r.layerIndex(name)}
}

// Dependency returns the handle of a dependency, for recording its calls on a hot path. It
// registers a new name as [Recorder.DependencyCall] does, now rather than at the first call.
// The handle stays valid for the life of the recorder, whatever names are registered later.
func (r *Recorder) Dependency(name string) DependencyRecorder {
	return DependencyRecorder{r, r.dependency(name)}
}

// Offered records one logical request presented at its intended send time (open loop).
func (r *Recorder) Offered(at time.Duration, class string) { r.Class(class).Offered(at) }

// Offered is [Recorder.Offered] for the handle's class.
func (c ClassRecorder) Offered(at time.Duration) {
	c.r.cls[c.i].offered++
	c.r.row(at).Offered++
}

// Admitted records that an offered logical request was accepted under the current policy.
// Every admitted request must later reach exactly one [Recorder.Terminal].
func (r *Recorder) Admitted(at time.Duration, class string) { r.Class(class).Admitted(at) }

// Admitted is [Recorder.Admitted] for the handle's class.
func (c ClassRecorder) Admitted(at time.Duration) {
	c.r.cls[c.i].admitted++
	c.r.row(at).Admitted++
}

// Rejected records that an offered logical request was refused at admission: its terminal
// state. The reason ("limit", "deadline", "queue_full", …) is counted.
func (r *Recorder) Rejected(at time.Duration, class, reason string) {
	r.Class(class).Rejected(at, reason)
}

// Rejected is [Recorder.Rejected] for the handle's class.
func (c ClassRecorder) Rejected(at time.Duration, reason string) {
	c.r.cls[c.i].rejected++
	c.r.rejectedBy.add(reason)
	c.r.row(at).Rejected++
}

// Attempt records one physical try at a layer: first tries and retries alike.
func (r *Recorder) Attempt(at time.Duration, layer string) {
	// The layer wrappers build the handle themselves: Layer is just over the inlining budget.
	LayerRecorder{r, r.layerIndex(layer)}.Attempt(at)
}

// Attempt is [Recorder.Attempt] for the handle's layer.
func (l LayerRecorder) Attempt(at time.Duration) {
	r, i := l.r, l.i
	r.lay[i].attempts++
	row := r.row(at)
	row.Attempts++
	if len(row.LayerAttempts) <= i {
		row.LayerAttempts = slices.Grow(row.LayerAttempts, len(r.lay)-len(row.LayerAttempts))[:len(r.lay)]
	}
	row.LayerAttempts[i]++
}

// Retry records that the attempt just recorded at the layer was a retry (call Attempt too).
func (r *Recorder) Retry(at time.Duration, layer string) {
	LayerRecorder{r, r.layerIndex(layer)}.Retry(at)
}

// Retry is [Recorder.Retry] for the handle's layer.
func (l LayerRecorder) Retry(at time.Duration) {
	l.r.lay[l.i].retries++
	l.r.row(at).Retries++
}

// RetryBudget records the arm's retry budget's counts at the end of the run: the first
// attempts deposited and the tokens used (retries allowed). Call it before
// [Recorder.Finish], only for an arm that has a budget.
func (r *Recorder) RetryBudget(deposits, tokensUsed int64) {
	r.budget = &RetryBudget{Deposits: deposits, TokensUsed: tokensUsed}
}

// Suppressed records a retry that was not made because a policy (a retry budget, a deadline,
// a breaker) refused it, by reason.
func (r *Recorder) Suppressed(at time.Duration, reason string) {
	r.suppressed++
	r.suppressedBy.add(reason)
	r.row(at).Suppressed++
}

// Terminal records the terminal outcome of an admitted logical request, exactly once per
// admitted request (or [Recorder.GaveUp] and then [Recorder.Settle]), counted in the tick
// of at. Latency is measured from the intended send time.
func (r *Recorder) Terminal(at time.Duration, class string, outcome Outcome, latency time.Duration) {
	r.Class(class).Terminal(at, outcome, latency)
}

// Terminal is [Recorder.Terminal] for the handle's class.
func (c ClassRecorder) Terminal(at time.Duration, outcome Outcome, latency time.Duration) {
	c.Settle(at, outcome)
	c.GaveUp(at, latency)
}

// GaveUp records the completion latency of an admitted request whose caller gave up at at
// (its deadline passed, or its entry timed out for the last time) while its work may still
// run and decide its outcome (a mutation applied late makes it ambiguous). Call it when
// the caller gives up, and [Recorder.Settle] with the same at once the outcome is known:
// the two together are [Recorder.Terminal].
func (r *Recorder) GaveUp(at time.Duration, class string, latency time.Duration) {
	r.Class(class).GaveUp(at, latency)
}

// GaveUp is [Recorder.GaveUp] for the handle's class.
func (c ClassRecorder) GaveUp(at time.Duration, latency time.Duration) {
	r := c.r
	r.cls[c.i].latency.Record(latency)
	r.tickLatency(r.tickIndex(at), latency)
	for i := range r.winLat {
		w := &r.winLat[i]
		if w.spec.Class != "" && w.class != c.i {
			continue
		}
		if at < w.spec.From || (w.spec.To > 0 && at >= w.spec.To) {
			continue
		}
		if w.spec.State != "" && w.spec.State != r.state {
			continue
		}
		w.h.Record(latency)
	}
}

// Settle counts the terminal outcome of an admitted request whose latency
// [Recorder.GaveUp] recorded, in the tick of at, the instant its caller gave up, however
// long its orphaned work ran on after that.
func (r *Recorder) Settle(at time.Duration, class string, outcome Outcome) {
	r.Class(class).Settle(at, outcome)
}

// Settle is [Recorder.Settle] for the handle's class.
func (c ClassRecorder) Settle(at time.Duration, outcome Outcome) {
	r := c.r
	acc := &r.cls[c.i]
	if int(outcome) >= len(acc.outcomes) || outcome == 0 {
		outcome = Failed // an unknown outcome is a model bug; never silently goodput
	}
	acc.outcomes[outcome]++
	row := r.row(at)
	switch outcome {
	case Goodput:
		row.Goodput++
	case Late:
		row.Late++
	case Expired:
		row.Expired++
	case Failed:
		row.Failed++
	case Ambiguous:
		row.Ambiguous++
	}
}

// Shed records optional work removed from a request of the class (a recommendation, a receipt
// enrichment): the request may still be goodput.
func (r *Recorder) Shed(at time.Duration, class, feature string) {
	r.Class(class).Shed(at, feature)
}

// Shed is [Recorder.Shed] for the handle's class.
func (c ClassRecorder) Shed(at time.Duration, feature string) {
	c.r.cls[c.i].shed++
	c.r.shedBy.add(feature)
	c.r.row(at).Shed++
}

// Orphan records work at a layer that completed after its caller had given up.
func (r *Recorder) Orphan(at time.Duration, layer string) {
	LayerRecorder{r, r.layerIndex(layer)}.Orphan(at)
}

// Orphan is [Recorder.Orphan] for the handle's layer.
func (l LayerRecorder) Orphan(at time.Duration) {
	l.r.lay[l.i].orphans++
	l.r.row(at).Orphans++
}

// CancelCompleted records work at a layer that cancellation stopped before it completed.
func (r *Recorder) CancelCompleted(at time.Duration, layer string) {
	LayerRecorder{r, r.layerIndex(layer)}.CancelCompleted(at)
}

// CancelCompleted is [Recorder.CancelCompleted] for the handle's layer.
func (l LayerRecorder) CancelCompleted(at time.Duration) {
	l.r.lay[l.i].cancels++
	l.r.row(at).CancelsCompleted++
}

// Duplicate records a mutation executed more than once for one logical identity. Kind is
// "payment_authorizations" or "order_commits"; other kinds are counted in Duplicates.Other.
func (r *Recorder) Duplicate(at time.Duration, kind string) {
	switch kind {
	case "payment_authorizations":
		r.dup.PaymentAuthorizations++
	case "order_commits":
		r.dup.OrderCommits++
	default:
		if r.dup.Other == nil {
			r.dup.Other = map[string]int64{}
		}
		r.dup.Other[kind]++
	}
	r.row(at).Duplicates++
}

// HealthRecorder records one service's health checks: get one with [Recorder.Health] and
// keep it. The zero value is not usable.
type HealthRecorder struct {
	r *Recorder
	i int // index in r.health
}

// Health returns the handle of a service's health checks. The services appear in the
// packet in the order of their first call.
func (r *Recorder) Health(service string) HealthRecorder {
	i, added := r.healthNames.find(service)
	if added {
		r.health = append(r.health, HealthStats{Service: service})
	}
	return HealthRecorder{r, i}
}

// Stats returns what the handle has recorded so far.
func (h HealthRecorder) Stats() HealthStats { return h.r.health[h.i] }

// Probe records one probe of an instance and whether it passed.
func (h HealthRecorder) Probe(pass bool) {
	st := &h.r.health[h.i]
	st.Probes++
	if !pass {
		st.ProbesFailed++
	}
}

// Removed records that failed probes took an instance out of routing.
func (h HealthRecorder) Removed() { h.r.health[h.i].Removals++ }

// Returned records that a removed instance passed its probes and takes traffic again.
func (h HealthRecorder) Returned() { h.r.health[h.i].Returns++ }

// Restarted records that failed probes had an instance's process killed, and the attempts
// it held then (queued or in service), which failed with it.
func (h HealthRecorder) Restarted(killed int) {
	st := &h.r.health[h.i]
	st.Restarts++
	st.AttemptsKilled += int64(killed)
}

// cacheAcc is what a run did to one cache.
type cacheAcc struct {
	hits, misses, evictions int64
}

// CacheRecorder records the lookups in one cache without looking its name up: get one
// with [Recorder.Cache] and keep it. The zero value is not usable.
type CacheRecorder struct {
	r *Recorder
	i int // index in r.caches and r.cache
}

// Cache returns the handle of a cache, for recording its lookups on a hot path. It
// registers a new name as [Recorder.CacheAccess] does, now rather than at the first
// lookup.
func (r *Recorder) Cache(name string) CacheRecorder {
	return CacheRecorder{r, r.cacheIndex(name)}
}

func (r *Recorder) cacheIndex(name string) int {
	i, added := r.caches.find(name)
	if added {
		r.cache = append(r.cache, cacheAcc{})
	}
	return i
}

// CacheAccess records one lookup in a cache: a hit, or a miss that sends work to the
// backend behind it.
func (r *Recorder) CacheAccess(at time.Duration, cache string, hit bool) {
	r.Cache(cache).Access(at, hit)
}

// Access is [Recorder.CacheAccess] for the handle's cache.
func (c CacheRecorder) Access(at time.Duration, hit bool) {
	acc := &c.r.cache[c.i]
	row := c.r.row(at)
	if hit {
		acc.hits++
		row.CacheHits++
	} else {
		acc.misses++
		row.CacheMisses++
	}
}

// Evicted records n entries the cache gave up to make room in memory (not the
// replacements of a full cache).
func (c CacheRecorder) Evicted(n int64) { c.r.cache[c.i].evictions += n }

// QueueWait records time a request of the class spent in an application queue.
func (r *Recorder) QueueWait(at time.Duration, class string, wait time.Duration) {
	r.Class(class).QueueWait(at, wait)
}

// QueueWait is [Recorder.QueueWait] for the handle's class.
func (c ClassRecorder) QueueWait(at time.Duration, wait time.Duration) {
	c.r.cls[c.i].queueWait.Record(wait)
}

// Remaining records the remaining deadline of a request of the class when it leaves the
// application queue for service. A negative remainder (work already past its deadline) is
// recorded as zero and counted as overdue.
func (r *Recorder) Remaining(at time.Duration, class string, remaining time.Duration) {
	r.Class(class).Remaining(at, remaining)
}

// Remaining is [Recorder.Remaining] for the handle's class.
func (c ClassRecorder) Remaining(at time.Duration, remaining time.Duration) {
	acc := &c.r.cls[c.i]
	if remaining < 0 {
		acc.overdue++
	}
	acc.remaining.Record(remaining)
}

// DependencyCall records one call to a dependency: the time it waited for a connection from
// the caller's pool and its service time at the dependency.
func (r *Recorder) DependencyCall(at time.Duration, dep string, connWait, service time.Duration) {
	r.Dependency(dep).Call(at, connWait, service)
}

// Call is [Recorder.DependencyCall] for the handle's dependency.
func (d DependencyRecorder) Call(at time.Duration, connWait, service time.Duration) {
	acc := &d.r.dep[d.i]
	acc.calls++
	acc.connWait.Record(connWait)
	acc.service.Record(service)
}

// PoolExhausted records a call to the handle's dependency that gave up waiting for a
// connection of its caller's pool at the pool's acquire timeout.
func (d DependencyRecorder) PoolExhausted() { d.r.dep[d.i].poolExhausted++ }

// Sample records the gauges measured once per tick. A second sample in one tick replaces the
// first.
func (r *Recorder) Sample(at time.Duration, s Sample) {
	row := r.row(at)
	row.Sampled = true
	deps := s.Dependencies
	s.Dependencies = nil
	caches := s.CacheEntries
	s.CacheEntries = nil
	row.Sample = s
	if len(caches) > 0 {
		for _, name := range sortedKeys(caches) {
			r.cacheIndex(name)
		}
		row.CacheEntries = make([]int, len(r.caches.list))
		for name, n := range caches {
			row.CacheEntries[r.caches.idx[name]] = n
		}
	} else {
		row.CacheEntries = nil
	}
	if len(deps) > 0 {
		// Register new names in a deterministic order (map iteration is not).
		for _, name := range sortedKeys(deps) {
			r.dependency(name)
		}
		row.Dependencies = make([]DependencyGauge, len(r.deps.list))
		for name, g := range deps {
			row.Dependencies[r.deps.idx[name]] = g
		}
	} else {
		row.Dependencies = nil
	}
	r.state = s.State
}

// Transition records a load-state change and the policy generation it created. Manual marks
// an operator override.
func (r *Recorder) Transition(at time.Duration, from, to string, generation uint64, reason string, manual bool) {
	r.row(at)
	wall := r.cfg.Start.Add(at)
	r.transitions = append(r.transitions, Transition{
		At: wall, From: from, To: to, Generation: generation, Reason: reason,
		T: roundS(at), Manual: manual,
	})
	r.events = append(r.events, Event{
		At: wall, T: roundS(at), Arm: r.cfg.Arm, Kind: "transition", Text: reason,
		From: from, To: to, Generation: generation, Manual: manual,
	})
}

// Annotate records an event for the timeline: a fault starting or ending, an alert firing, a
// manual action. Kind is a short word ("fault", "alert", "action"); text describes it.
func (r *Recorder) Annotate(at time.Duration, kind, text string) {
	r.row(at)
	r.events = append(r.events, Event{
		At: r.cfg.Start.Add(at), T: roundS(at), Arm: r.cfg.Arm, Kind: kind, Text: text,
	})
}

// seconds converts d to seconds, rounded to the microsecond.
func seconds(d time.Duration) float64 {
	return round(d.Seconds(), 6)
}

// ms converts d to milliseconds, rounded to the microsecond.
func ms(d time.Duration) float64 {
	return round(float64(d)/float64(time.Millisecond), 3)
}

// round rounds x to n decimal places, mapping NaN and infinities to 0 so that every value
// is encodable as JSON.
func round(x float64, n int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	p := math.Pow10(n)
	v := math.Round(x*p) / p
	if v == 0 {
		return 0 // no negative zero
	}
	return v
}
