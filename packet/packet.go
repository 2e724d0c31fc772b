package packet

import "time"

// Packet is the comparison packet of one replay: every arm run on the same offered load and
// random draws. Its JSON form (packet.json) is a stable contract: the field names below stay.
type Packet struct {
	Scenario string `json:"scenario"`
	Seed     uint64 `json:"seed"`
	// ModelVersion is the version of the model that replayed the scenario (model.Version):
	// the same scenario and seed give the same packet under one version.
	ModelVersion int `json:"model_version,omitempty"`
	// Set lists the scenario's inputs changed for this replay (goodput replay --set), as
	// PATH=VALUE; empty when the file was replayed as written.
	Set  []string `json:"set,omitempty"`
	Arms []Arm    `json:"arms"`
}

// Arm is the result of one policy arm, as built by [Recorder.Finish].
//
// Durations are time.Duration in memory, rounded to the microsecond; packet.json writes
// them in milliseconds (keys ending in _ms) or seconds (_s). Rates are per second of
// simulated time. Series and Events are not part of packet.json: they are written by
// [WriteSeriesCSV] and [WriteEventsJSONL]. Use [Read] to load a packet directory back.
type Arm struct {
	Name string `json:"name"`
	// Source says how the arm was measured: [SourceLive] for a live run against real
	// processes (goodput lab), [SourceReplay] for a replay beside live arms in a lab
	// packet. Empty means a replay, and is left out of packet.json.
	Source string `json:"source,omitempty"`
	// Set is the inputs the arm's scenario changes from the file's (scenario.Arm.Set),
	// as PATH=VALUE; empty, and left out of packet.json, for an arm that changes none.
	Set           []string      `json:"set,omitempty"`
	Totals        Totals        `json:"totals"`
	Amplification Amplification `json:"amplification"`
	Duplicates    Duplicates    `json:"duplicates"`
	Objectives    []Objective   `json:"objectives"`
	Transitions   []Transition  `json:"transitions"`

	// Start is the wall instant of virtual time 0; Tick and Duration are the series clock.
	Start    time.Time     `json:"start"`
	Tick     time.Duration `json:"tick_ms"`
	Duration time.Duration `json:"duration_s"`
	// Rates are the totals divided by the run's duration in seconds.
	Rates Rates `json:"rates_per_s"`
	// Latency is completion latency (intended send → terminal state) of every admitted
	// request, from the per-class histograms merged.
	Latency Percentiles `json:"latency"`
	// Classes are terminal outcomes, latency, queue wait and remaining deadline by class,
	// in the order of [Config.Classes].
	Classes []ClassStats `json:"classes"`
	// Layers are attempts, retries, orphans and completed cancellations by layer, in the
	// order of [Config.Layers].
	Layers []LayerStats `json:"layers"`
	// Retry sums retries and suppressed retries (by reason).
	Retry Retry `json:"retry"`
	// RejectedBy counts rejections at admission by reason; ShedBy optional work removed by
	// feature.
	RejectedBy map[string]int64 `json:"rejected_by_reason"`
	ShedBy     map[string]int64 `json:"shed_by_feature"`
	// Samples is how many ticks carry a [Sample]: the queue, capacity, concurrency and
	// load-state figures come from those.
	Samples int `json:"samples"`
	// Queue is application queueing: oldest useful queued work over the run.
	Queue Queue `json:"queue"`
	// Dependencies are calls, connection wait, service time and concurrency by dependency.
	Dependencies []DependencyStats `json:"dependencies"`
	// Caches are hits and misses by cache, in first-seen order.
	Caches []CacheStats `json:"caches"`
	// Health is what the health checks did, by service with one (absent without any).
	Health []HealthStats `json:"health,omitempty"`
	// Capacity is instances requested, ready and warm over the run.
	Capacity Capacity `json:"capacity"`
	// Invariants are the conservation checks; every one should pass.
	Invariants []Invariant `json:"invariants"`
	// Recovery holds the recovery timings measured from Recovery.After.
	Recovery Recovery `json:"recovery"`
	// Alerts are what the scenario's alert rules did, one per rule in the scenario's order
	// (absent for a scenario without alerts): first fired, flaps and last cleared.
	Alerts []Alert `json:"alerts,omitempty"`
	// Jobs are what the scenario's jobs that ran in the arm did, in the scenario's order
	// (absent without any).
	Jobs []Job `json:"jobs,omitempty"`
	// Breakers are what the circuit breakers did, by dependency they guard (absent for
	// an arm without breakers): calls refused, trips, reopens and closes.
	Breakers []BreakerStats `json:"breakers,omitempty"`
	// Cells are the figures of each cell of a scenario with cells, in the scenario's
	// order (absent without cells).
	Cells []CellStats `json:"cells,omitempty"`
	// Live is what a live run measured beside the populations: the generator's own
	// figures, the lab's overhead and the fault proxies' evidence. Nil for a replay.
	Live *Live `json:"live,omitempty"`

	// Series is one row per tick on the shared clock (series.csv).
	Series []Row `json:"-"`
	// Events are annotations and transitions in time order (events.jsonl).
	Events []Event `json:"-"`
	// Dependency names, in column order, for Row.Dependencies.
	DependencyNames []string `json:"-"`
	// Cache names, in column order, for Row.CacheEntries.
	CacheNames []string `json:"-"`
}

// The sources of an arm ([Arm.Source]).
const (
	SourceReplay = "replay"
	SourceLive   = "live"
)

// IsLive reports whether the arm was measured on a live run.
func (a *Arm) IsLive() bool { return a.Source == SourceLive }

// ReplayName is the name of the replay arm beside live arm name in a lab packet (one with
// arms of both sources): name_replay. The live arm keeps the scenario's name, so that
// `goodput diff` of a replay's packet and a lab's compares the replay with the live run
// arm by arm, and both names stay identifiers for incident claims.
func ReplayName(name string) string { return name + "_replay" }

// Live is what a live run of an arm measured besides its populations. Its populations map
// onto the packet's: the generator is the entry layer, a final 429 or 503 from the service
// is a rejection, and a request the generator could not send before its deadline (every
// worker busy) is admitted and expired, so that Offered = Sent + Unsent and Admitted =
// Sent − Rejected + Unsent.
type Live struct {
	// StartedAt is the wall instant the run began; the arm's Start is the scenario's clock,
	// so that live and replay arms share one.
	StartedAt time.Time `json:"started_at"`
	// Elapsed is the run's wall time, with its drain after the last intended send time.
	Elapsed time.Duration `json:"elapsed_s"`
	// Interrupted says the run was stopped before its plan ended.
	Interrupted bool `json:"interrupted"`
	// Sent counts the logical requests that got a first attempt; Unsent those that did not,
	// because their deadline passed while every worker was busy (the machine's limit, not
	// the service's) or because they name an order ({{.Order}}) and none was acknowledged
	// yet.
	Sent   int64 `json:"sent"`
	Unsent int64 `json:"unsent"`
	// FailedBy breaks Totals.Failed down by the generator's cause ("timeout", "error",
	// "status 500", "unfinished").
	FailedBy map[string]int64 `json:"failed_by_cause"`
	// Lateness is how late the generator sent: intended send time to first attempt.
	Lateness Percentiles `json:"lateness"`
	// PeakInFlight is the most requests in flight at once; MaxInFlight the bound on them.
	PeakInFlight int `json:"peak_in_flight"`
	MaxInFlight  int `json:"max_in_flight"`
	// Overhead is the lab's own CPU.
	Overhead Overhead `json:"overhead"`
	// Proxies are the fault proxies' counts, by dependency: the evidence whether
	// cancellation stops the work of callers that gave up.
	Proxies []ProxyEvidence `json:"proxies"`
}

// Overhead is the CPU the lab itself spent on a live run, so that a reader sees when the
// machine, not the service, is the limit, and the CPU the service under test spent.
type Overhead struct {
	// GeneratorCPU is the load generator's process CPU time (user and system) over the
	// run; when the other parts run in that process it includes theirs, and ProxyCPU and
	// ServiceCPU are 0.
	GeneratorCPU time.Duration `json:"generator_cpu_s"`
	// GeneratorCPUPerRequest is GeneratorCPU per attempt sent.
	GeneratorCPUPerRequest time.Duration `json:"generator_cpu_per_request_ms"`
	// ProxyCPU is the fault proxies' and the stub dependencies' CPU time over the run when
	// they run in processes of their own; ProxyCPUPerRequest is it per call the proxies
	// received.
	ProxyCPU           time.Duration `json:"proxy_cpu_s"`
	ProxyCPUPerRequest time.Duration `json:"proxy_cpu_per_request_ms"`
	// ServiceCPU is the service's CPU time over the run when it runs in a process of its
	// own; ServiceCPUPerRequest is it per attempt the generator sent. It is not the lab's
	// overhead but the work it measured, and not in CPUShare.
	ServiceCPU           time.Duration `json:"service_cpu_s"`
	ServiceCPUPerRequest time.Duration `json:"service_cpu_per_request_ms"`
	// Cores is the CPUs the lab ran on (0: not known); CPUShare is the lab's CPU time
	// (GeneratorCPU + ProxyCPU) over Elapsed × Cores: near 1, the lab used the whole
	// machine, and what the service did is bounded by it.
	Cores    int     `json:"cores"`
	CPUShare float64 `json:"cpu_share"`
}

// ProxyEvidence is what the fault proxy in front of one dependency counted on a live run
// (live/faultproxy's Stats).
type ProxyEvidence struct {
	Dependency string `json:"dependency"`
	// Requests is every call the proxy received; WorkStarted the calls whose work began.
	Requests    int64 `json:"requests"`
	WorkStarted int64 `json:"work_started"`
	// StartedAfterDeadline counts work begun after the absolute deadline its call carried,
	// and StartedAfterCancel work begun after its caller had gone: work nobody could use,
	// which cancellation and deadline propagation should bring to zero.
	StartedAfterDeadline int64 `json:"started_after_deadline"`
	StartedAfterCancel   int64 `json:"started_after_cancel"`
	// Cancelled counts calls whose caller gave up before the answer.
	Cancelled int64 `json:"cancelled"`
	// Rejected counts calls refused over the concurrency ceiling; Errors calls answered an
	// injected error.
	Rejected int64 `json:"rejected"`
	Errors   int64 `json:"errors"`
}

// Totals counts the populations of an arm. Every offered logical request is admitted or
// rejected; every admitted one ends in exactly one of goodput, late, expired, failed or
// ambiguous, counted (in the series too) when its caller got its answer or gave up.
// Attempts and Shed are not populations of requests (see their fields).
type Totals struct {
	Offered  int64 `json:"offered"`
	Admitted int64 `json:"admitted"`
	Rejected int64 `json:"rejected"`
	// Attempts is physical work summed over every layer: a request that crosses two layers
	// without a retry makes two attempts (see [Amplification] for attempts per offered
	// request, by layer).
	Attempts int64 `json:"attempts"`
	Goodput  int64 `json:"goodput"`
	Late     int64 `json:"late"`
	// Expired counts admitted requests whose caller gave up, with no successful answer, at
	// or after their deadline (one with a mutation applied is ambiguous instead).
	Expired int64 `json:"expired"`
	// Shed counts optional features removed from requests (a recommendation, a receipt
	// enrichment), not requests: one request may lose several, and a degraded but correct
	// response is still goodput.
	Shed      int64 `json:"shed"`
	Failed    int64 `json:"failed"`
	Ambiguous int64 `json:"ambiguous"`

	Retries    int64 `json:"retries"`
	Suppressed int64 `json:"suppressed"`
	// Orphans counts work that finished after its caller had stopped waiting for it:
	// attempts that succeeded, and dependency calls however they ended. CancelsCompleted
	// counts the work a cancellation stopped.
	Orphans          int64 `json:"orphans"`
	CancelsCompleted int64 `json:"cancellations_completed"`
	// Unfinished counts admitted requests with no terminal state at the end of the run; it
	// must be zero.
	Unfinished int64 `json:"unfinished"`
}

// Rates are totals per second of simulated time.
type Rates struct {
	Offered   float64 `json:"offered"`
	Admitted  float64 `json:"admitted"`
	Rejected  float64 `json:"rejected"`
	Attempts  float64 `json:"attempts"`
	Goodput   float64 `json:"goodput"`
	Late      float64 `json:"late"`
	Expired   float64 `json:"expired"`
	Shed      float64 `json:"shed"`
	Failed    float64 `json:"failed"`
	Ambiguous float64 `json:"ambiguous"`
	Retries   float64 `json:"retries"`
}

// Amplification is attempts per offered logical request, by layer and in total.
//
// ByLayer is a layer's attempts (first tries, retries, hedges, fan-out) per offered logical
// request. Total is the largest of them: retries compose multiplicatively down the call
// tree, so the most amplified layer carries the product of the layers above it (edge retries
// ×1.28 over service retries ×1.22 show as 1.5616 at the dependency). A run without retries
// or fan-out has Total 1 however many layers a request crosses. (Totals.Attempts, by
// contrast, sums every try at every layer: the physical work.)
type Amplification struct {
	Total   float64            `json:"total"`
	ByLayer map[string]float64 `json:"by_layer"`
	// Peak is the largest amplification of one tick of the run (see [Row.Amplification];
	// ticks of the drain after the run's end are left out), and PeakAt the start of that
	// tick; both 0 when no tick offered anything.
	Peak   float64       `json:"peak"`
	PeakAt time.Duration `json:"peak_at_s"`
}

// Duplicates counts mutations executed more than once for one logical identity.
type Duplicates struct {
	PaymentAuthorizations int64 `json:"payment_authorizations"`
	OrderCommits          int64 `json:"order_commits"`
	// Other counts duplicates of any other kind passed to [Recorder.Duplicate].
	Other map[string]int64 `json:"other,omitempty"`
}

// Total is the number of duplicates of every kind.
func (d Duplicates) Total() int64 {
	n := d.PaymentAuthorizations + d.OrderCommits
	for _, v := range d.Other {
		n += v
	}
	return n
}

// Objective is one declared objective evaluated on an arm.
type Objective struct {
	Name   string  `json:"name"`
	Pass   bool    `json:"pass"`
	Value  float64 `json:"value"`
	Target float64 `json:"target"`

	// Metric is the ObjectiveSpec metric; Op is "<=" (a maximum) or ">=" (a minimum); Unit
	// is the unit of Value and Target ("ms", "/s", "s", "x" for ratios, "" for counts).
	Metric string `json:"metric"`
	Op     string `json:"op"`
	Unit   string `json:"unit"`
	// Statistic says what Value is, whatever the objective's name: the statistic and the
	// requests or ticks it is over ("goodput per second, mean over t=180–540 s").
	Statistic string `json:"statistic,omitempty"`
	// Note explains a value that is not a plain measurement (for example, a state never
	// reached, or a window with no data).
	Note string `json:"note,omitempty"`
	// NoData marks an objective that could not be evaluated (no tick in its window or state,
	// an unknown metric): Value is 0 and Pass is false.
	NoData bool `json:"no_data,omitempty"`
	// Censored marks a value that is only a lower bound, because what it measures had
	// not happened when the run ended (a time_to_normal that never recovered: Value is
	// the time observed). Pass is false.
	Censored bool `json:"censored,omitempty"`
}

// Transition is one load-state change, with the policy generation it created.
type Transition struct {
	At         time.Time `json:"at"`
	From       string    `json:"from"`
	To         string    `json:"to"`
	Generation uint64    `json:"generation"`
	Reason     string    `json:"reason"`

	// T is the virtual time of the transition since the start; Manual marks an operator
	// override.
	T      time.Duration `json:"t_s"`
	Manual bool          `json:"manual"`
}

// Percentiles summarises one histogram, to the microsecond (in milliseconds in packet.json).
type Percentiles struct {
	Count int64         `json:"count"`
	P50   time.Duration `json:"p50_ms"`
	P90   time.Duration `json:"p90_ms"`
	P99   time.Duration `json:"p99_ms"`
	P999  time.Duration `json:"p999_ms"`
	Max   time.Duration `json:"max_ms"`
	Mean  time.Duration `json:"mean_ms"`
}

// ClassStats are the populations and timings of one request class.
type ClassStats struct {
	Name      string `json:"name"`
	Offered   int64  `json:"offered"`
	Admitted  int64  `json:"admitted"`
	Rejected  int64  `json:"rejected"`
	Goodput   int64  `json:"goodput"`
	Late      int64  `json:"late"`
	Expired   int64  `json:"expired"`
	Failed    int64  `json:"failed"`
	Ambiguous int64  `json:"ambiguous"`
	Shed      int64  `json:"shed"`
	// Latency is completion latency of admitted requests of the class, any outcome.
	Latency Percentiles `json:"latency"`
	// QueueWait is time spent in application queues ([Recorder.QueueWait]).
	QueueWait Percentiles `json:"queue_wait"`
	// Remaining is the remaining deadline reported by [Recorder.Remaining] (negative
	// remainders are recorded as zero and counted in Overdue).
	Remaining Percentiles `json:"remaining_deadline"`
	Overdue   int64       `json:"overdue"`
}

// LayerStats are the physical attempts at one layer.
type LayerStats struct {
	Name             string  `json:"name"`
	Attempts         int64   `json:"attempts"`
	Retries          int64   `json:"retries"`
	Amplification    float64 `json:"amplification"`
	Orphans          int64   `json:"orphans"`
	CancelsCompleted int64   `json:"cancellations_completed"`
}

// Retry sums retries across layers and the retries a budget suppressed.
type Retry struct {
	Retries int64 `json:"retries"`
	// Ratio is retries per admitted logical request.
	Ratio        float64          `json:"ratio"`
	Suppressed   int64            `json:"suppressed"`
	SuppressedBy map[string]int64 `json:"suppressed_by_reason"`
	// Budget is the arm's retry budget's own count, when the arm has one
	// ([Recorder.RetryBudget]); nil otherwise.
	Budget *RetryBudget `json:"budget,omitempty"`
}

// RetryBudget is what a retry budget counted over the run: the first attempts deposited and
// the tokens used (retries it allowed). A retry the budget allowed may still not be made
// (its request ended during the backoff), so TokensUsed can exceed the retries counted.
type RetryBudget struct {
	Deposits   int64 `json:"deposits"`
	TokensUsed int64 `json:"tokens_used"`
}

// Queue summarises the sampled oldest useful queued work and queue length.
type Queue struct {
	AgeMax  time.Duration `json:"age_max_ms"`
	AgeMean time.Duration `json:"age_mean_ms"`
	LenMax  int           `json:"len_max"`
}

// DependencyStats are the calls made to one dependency.
type DependencyStats struct {
	Name        string      `json:"name"`
	Calls       int64       `json:"calls"`
	ConnWait    Percentiles `json:"connection_wait"`
	ServiceTime Percentiles `json:"service_time"`
	// ConcurrencyMax and ConcurrencyMean come from the per-tick samples.
	ConcurrencyMax  int     `json:"concurrency_max"`
	ConcurrencyMean float64 `json:"concurrency_mean"`
	WaitingMax      int     `json:"waiting_max"`
	// PoolExhausted counts the calls that gave up waiting for a connection of their
	// caller's pool at its acquire timeout (reason pool-exhausted); absent when none did.
	PoolExhausted int64 `json:"pool_exhausted,omitempty"`
}

// CacheStats are the lookups in one cache. MissesPerOffered is backend work the cache sent
// on per offered logical request. Evictions are entries given up to make room in memory;
// EntriesMin and EntriesMax are the sampled entries held over all instances.
type CacheStats struct {
	Name             string  `json:"name"`
	Hits             int64   `json:"hits"`
	Misses           int64   `json:"misses"`
	HitRatio         float64 `json:"hit_ratio"`
	MissesPerOffered float64 `json:"misses_per_offered"`
	Evictions        int64   `json:"evictions"`
	EntriesMin       int     `json:"entries_min"`
	EntriesMax       int     `json:"entries_max"`
}

// HealthStats are one service's health checks: the probes of its instances that got a
// verdict and how many of those failed (a probe in flight when its process is killed gets
// none), removals from routing and returns to it (action remove), and restarts with the
// attempts the killed processes held, which failed with them (action restart).
type HealthStats struct {
	Service        string `json:"service"`
	Probes         int64  `json:"probes"`
	ProbesFailed   int64  `json:"probes_failed"`
	Removals       int64  `json:"removals"`
	Returns        int64  `json:"returns"`
	Restarts       int64  `json:"restarts"`
	AttemptsKilled int64  `json:"attempts_killed"`
}

// Capacity summarises sampled instance counts.
type Capacity struct {
	RequestedMax  int `json:"requested_max"`
	RouteReadyMin int `json:"route_ready_min"`
	RouteReadyMax int `json:"route_ready_max"`
	WarmMin       int `json:"warm_min"`
	WarmMax       int `json:"warm_max"`
	// InstanceSecondsCold is the sum over ticks of route-ready minus warm instances, times the
	// tick: capacity routed traffic before it was warm.
	InstanceSecondsCold float64 `json:"instance_seconds_cold"`
}

// Invariant is one conservation check.
type Invariant struct {
	Name    string `json:"name"`
	Pass    bool   `json:"pass"`
	Message string `json:"message"`
}

// Recovery holds recovery timings in seconds after After, the instant recovery is measured
// from: [Config.RecoveryAfter], else the after of the first time_to_normal objective (which
// a scenario sets to when its fault ends), else 0, the start of the run. A timing is nil
// when the condition never held until the end of the run.
//
//   - Stabilize: from then on, every tick's goodput is at least StableFraction of its
//     offered load.
//   - Drain: from then on, the sampled oldest queue age stays at most DrainAge.
//   - Normal: from then on, the load state is Normal. An arm that reports no load state
//     (no state machine) counts as Normal once it has both stabilised and drained.
type Recovery struct {
	After       time.Duration  `json:"after_s"`
	Stabilize   *time.Duration `json:"stabilize_s"`
	Drain       *time.Duration `json:"drain_s"`
	Normal      *time.Duration `json:"normal_s"`
	StableFrac  float64        `json:"stable_fraction"`
	DrainAge    time.Duration  `json:"drain_age_ms"`
	StateSource string         `json:"state_source"` // "loadstate" or "derived"
}

// Row is one tick of an arm's series. Counters count events whose time falls in
// [T, T+tick), a terminal outcome at the instant its caller had its answer or gave up
// (not when orphaned work ends); gauges are the last [Sample] taken in the tick.
type Row struct {
	T time.Duration

	Offered, Admitted, Rejected, Attempts, Retries, Suppressed int64
	Goodput, Late, Expired, Failed, Ambiguous, Shed            int64
	Orphans, CancelsCompleted, Duplicates                      int64
	CacheHits, CacheMisses                                     int64

	// LayerAttempts are the tick's attempts by layer, in the order of the arm's Layers (a
	// shorter slice means zeros for the layers after it).
	LayerAttempts []int64

	// LatencyP50 and LatencyP99 are of the requests that reached a terminal state in the tick.
	LatencyP50, LatencyP99 time.Duration

	Sampled bool
	Sample
	// Dependencies are the sampled gauges in the order of Arm.DependencyNames.
	Dependencies []DependencyGauge
	// CacheEntries are the sampled entries held by each cache (over all instances), in the
	// order of Arm.CacheNames.
	CacheEntries []int
}

// Amplification is the tick's attempts per offered request at its most amplified layer
// (see [Amplification]), rounded to four decimals; ok is false when nothing was offered in
// the tick.
func (r *Row) Amplification() (v float64, ok bool) {
	if r.Offered == 0 {
		return 0, false
	}
	return maxLayerRatio(r.LayerAttempts, r.Offered), true
}

// Sample is the gauges the model measures once per tick ([Recorder.Sample]).
type Sample struct {
	// QueueAgeMax is the age of the oldest useful queued work across instances.
	QueueAgeMax time.Duration
	QueueLen    int
	InFlight    int
	// PoolWaiters is callers waiting for a dependency connection, all pools together.
	PoolWaiters int
	// Dependencies are per-dependency gauges by name (names not in Config.Dependencies are
	// added in first-seen order).
	Dependencies map[string]DependencyGauge
	// CacheEntries are the entries each cache holds, over all instances, by name.
	CacheEntries map[string]int
	Instances    Instances
	// State is the load state ("Normal", "Pressured", "Protected", "Recovering") or "" when
	// the arm has no state machine; Generation is the current policy generation.
	State          string
	Generation     uint64
	AdmissionLimit int
	// SlackP10 is the 10th percentile of remaining deadline among queued work.
	SlackP10 time.Duration
	// Constraint names the binding constraint at the tick, the resource or control that
	// limits deadline-valid goodput, by the model's rule (docs/constraint.md):
	// "dependency:D:concurrency", "pool:S->D", "workers:S", "queue:S",
	// "ready-capacity:S", "cache-misses:C", "admission", or "none" when nothing is
	// saturated; "" when the arm does not name one (a live run).
	Constraint string
}

// DependencyGauge is one dependency's sampled concurrency.
type DependencyGauge struct {
	// InService is calls being served at the dependency; Waiting is callers waiting for a
	// connection to it.
	InService int
	Waiting   int
}

// Instances counts a service's instances by readiness.
type Instances struct {
	Requested, ProcessReady, RouteReady, Warm int
}

// Event is one line of events.jsonl: an annotation (fault, alert, manual action) or a
// load-state transition.
type Event struct {
	At   time.Time     `json:"at"`
	T    time.Duration `json:"t_s"`
	Arm  string        `json:"arm"`
	Kind string        `json:"kind"`
	Text string        `json:"text"`

	From       string `json:"from,omitempty"`
	To         string `json:"to,omitempty"`
	Generation uint64 `json:"generation,omitempty"`
	Manual     bool   `json:"manual,omitempty"`

	// Dependency and Instance name the breaker of an event of kind breaker (a state
	// change of one calling instance's breaker of the dependency).
	Dependency string `json:"dependency,omitempty"`
	Instance   *int   `json:"instance,omitempty"`

	// Cell names the cell of an event of kind failover, whose To says the move:
	// [FailoverOut] (the cell's failover moves its share of traffic to other cells) or
	// [FailoverBack] (it fails back and keeps its traffic again).
	Cell string `json:"cell,omitempty"`
}
