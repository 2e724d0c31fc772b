package scenario

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/invopop/jsonschema"

	"github.com/goodput-lab/goodput/internal/floatdur"
	"github.com/goodput-lab/goodput/internal/numfmt"
)

// Scenario is one *.scenario.yaml: the inputs of a replay. It declares offered load,
// request classes and the stages they run, a topology of entries, services and
// dependencies, faults on a timeline, the policy arms to compare, objectives and alert
// rules. It never declares results: every figure a replay reports comes from the model
// running these inputs.
//
// Decode a file with [Load] or [Decode]; both call [Scenario.Validate].
type Scenario struct {
	// Name names the scenario in reports and packets.
	Name string `yaml:"name" json:"name"`
	// Description is free text for readers.
	Description string `yaml:"description,omitempty" json:"description,omitempty,omitzero"`
	// Seed is the default random seed; the replay's --seed flag overrides it. Zero is a
	// valid seed.
	Seed uint64 `yaml:"seed,omitempty" json:"seed,omitempty,omitzero"`
	// Trials is how many seeds a replay runs (seed, seed+1, …); zero means 1. Above 1,
	// `goodput replay` runs a sweep and reports each figure's median and range across the
	// seeds; its --trials flag overrides this.
	Trials int `yaml:"trials,omitempty" json:"trials,omitempty,omitzero"`
	// Clock fixes the virtual clock: start instant, length and tick.
	Clock Clock `yaml:"clock" json:"clock"`
	// Load is the open-loop offered logical load.
	Load Traffic `yaml:"load" json:"load"`
	// Classes is the request mix; shares sum to 1.
	Classes []Class `yaml:"classes" json:"classes"`
	// Topology is the graph the classes' stages run through.
	Topology Topology `yaml:"topology" json:"topology"`
	// Faults is the incident timeline: each fault changes an input for a window.
	Faults []Fault `yaml:"faults,omitempty" json:"faults,omitempty,omitzero"`
	// Arms are the policies compared on identical offered load and random draws.
	Arms []Arm `yaml:"arms" json:"arms"`
	// Objectives are evaluated on every arm.
	Objectives []Objective `yaml:"objectives,omitempty" json:"objectives,omitempty,omitzero"`
	// Alerts are monitoring rules evaluated on every arm (or the arms each names): each
	// firing and clearing is annotated on the timeline, and packet.json reports when each
	// first fired.
	Alerts []Alert `yaml:"alerts,omitempty" json:"alerts,omitempty,omitzero"`
	// Actions change inputs at instants of the run, in all arms or named ones: a
	// release, a rollback, a manual scale, an admission pause (see [Action]).
	Actions []Action `yaml:"actions,omitempty" json:"actions,omitempty,omitzero"`
	// Cells are two or more cells, each running its own copy of the topology and offered
	// its share of the load (see [Cell]); an arm's policy.failover moves traffic between
	// them. Omitted: one topology, no cells.
	Cells []Cell `yaml:"cells,omitempty" json:"cells,omitempty,omitzero"`
	// Notes are remarks on the timeline at instants of the run, in every arm's events
	// and on the report's charts (see [Note]); they change nothing.
	Notes []Note `yaml:"notes,omitempty" json:"notes,omitempty,omitzero"`
	// Jobs are operator jobs run at instants of the run, in all arms or named ones: a
	// retry job that re-submits a class's failed requests by their identity (see [Job]).
	Jobs []Job `yaml:"jobs,omitempty" json:"jobs,omitempty,omitzero"`
}

// Clock fixes the virtual clock of a replay.
type Clock struct {
	// Start is the wall instant of virtual time 0, for labels and for the controls'
	// `now`. The zero value starts at the zero time.Time.
	Start Instant `yaml:"start,omitempty" json:"start,omitempty,omitzero"`
	// Duration is how long offered load arrives. Required.
	Duration Duration `yaml:"duration" json:"duration"`
	// Tick is the series sampling and controller step period. Zero means 1s.
	Tick Duration `yaml:"tick,omitempty" json:"tick,omitempty,omitzero"`
	// Drain is how long, after Duration, work already in flight may run to its terminal
	// state before the run stops (no new arrivals come in that time; anything still in
	// flight then is counted as failed). Zero means the longest class deadline plus every
	// timeout that could still run, at least 10s.
	Drain Duration `yaml:"drain,omitempty" json:"drain,omitempty,omitzero"`
}

// Arrival processes of offered load.
const (
	ArrivalsPoisson = "poisson" // exponential inter-arrival times (the default)
	ArrivalsUniform = "uniform" // evenly spaced arrivals
)

// Traffic is the offered logical load. The schedule's (and the classes' own schedules')
// load is open-loop: it follows the schedule whatever the system's latency, and every
// request's latency is measured from its intended send time. Users are closed-loop: each
// sends its next request only after the answer to its last one and a think time.
type Traffic struct {
	// Arrivals is the arrival process: poisson (the default) or uniform. With a ramp,
	// Poisson arrivals are non-homogeneous (inversion of the integrated rate) and uniform
	// ones come each time the integrated rate grows by one.
	Arrivals string `yaml:"arrivals,omitempty" json:"arrivals,omitempty,omitzero" jsonschema:"enum=poisson,enum=uniform"`
	// Schedule is the logical offered rate of the classes without a schedule of their
	// own, drawn by their shares: each rate step holds from its At until the next rate
	// step's, constant or, with ramp_to, linear; burst steps add arrivals at an instant.
	// The first rate step must be at 0s. It may be omitted when the classes' own
	// schedules or the users offer all the load.
	Schedule []RateStep `yaml:"schedule,omitempty" json:"schedule,omitempty"`
	// Users are closed-loop client populations beside the open-loop schedule (see
	// [Users]). With users the offered load depends on the arm: an arm that answers more
	// slowly is offered less, so arms no longer share offered load.
	Users []Users `yaml:"users,omitempty" json:"users,omitempty,omitzero"`
	// Keys is the popularity of the logical keys requests carry.
	Keys Keys `yaml:"keys,omitempty" json:"keys,omitempty,omitzero"`
}

// RateStep is one step of an offered-load schedule: a rate step (rate, with an optional
// ramp_to) or a burst step (burst, with an optional within). For example a ramp from 300/s
// to 900/s is {at: 0s, rate: 300/s, ramp_to: 900/s}, and 2000 arrivals at 5m are
// {at: 5m, burst: 2000}.
type RateStep struct {
	// At is when the step begins, from the start of the run.
	At Duration `yaml:"at" json:"at"`
	// Rate is the logical offered rate from At on (a rate step).
	Rate Rate `yaml:"rate" json:"rate"`
	// RampTo makes the rate linear from Rate at At to RampTo at the next rate step's At
	// (the end of the run for the last rate step). Omitted, the rate holds.
	RampTo *Rate `yaml:"ramp_to,omitempty" json:"ramp_to,omitempty,omitzero"`
	// Burst makes the step a burst step: Burst arrivals at At, or evenly spread over
	// Within, beside the rate (which a burst step does not change; a shift fault does
	// not scale a burst). Bursts of the load's schedule draw their class by the shares.
	Burst int `yaml:"burst,omitempty" json:"burst,omitempty,omitzero"`
	// Within spreads a burst's arrivals evenly over [At, At+Within). Zero (the default)
	// sends them all at At.
	Within Duration `yaml:"within,omitempty" json:"within,omitempty,omitzero"`
}

// Keys is the popularity of request keys (the keys caches and keyed dependencies see).
type Keys struct {
	// Count is how many distinct keys there are. Zero means 1,000,000.
	Count int `yaml:"count,omitempty" json:"count,omitempty,omitzero"`
	// Zipf is the Zipf exponent of key popularity (> 1); zero means uniform popularity.
	Zipf float64 `yaml:"zipf,omitempty" json:"zipf,omitempty,omitzero"`
}

// Admission classes, from most to least valuable (see control/admission).
const (
	AdmissionContinuation = "continuation"
	AdmissionLookup       = "lookup"
	AdmissionStandard     = "standard"
	AdmissionSheddable    = "sheddable"
)

// Class is one kind of logical request and the stages it runs.
type Class struct {
	// Name names the class in reports (e.g. new_checkout).
	Name string `yaml:"name" json:"name"`
	// Share is the class's share of load.schedule's offered load; the shares of the
	// classes without a schedule of their own sum to 1. A class with its own schedule
	// has no share. Unused (and unchecked) when load.schedule is omitted.
	Share Fraction `yaml:"share" json:"share"`
	// Schedule is the class's own offered-load schedule, in load.schedule's form (rate
	// steps with ramps, bursts). Its arrivals come from a stream of their own, so adding
	// a class with a schedule does not move another class's arrivals. Omitted, the class
	// draws its share of load.schedule.
	Schedule []RateStep `yaml:"schedule,omitempty" json:"schedule,omitempty,omitzero"`
	// Deadline is the absolute end-to-end deadline, measured from the intended send time.
	// A success after it is late, not goodput. Required.
	Deadline Duration `yaml:"deadline" json:"deadline"`
	// Admission is the class's admission class: continuation, lookup, standard (the
	// default) or sheddable.
	Admission string `yaml:"admission,omitempty" json:"admission,omitempty,omitzero" jsonschema:"enum=continuation,enum=lookup,enum=standard,enum=sheddable"`
	// Idempotent says a blind retry of the class is safe without identity deduplication.
	// A retry of a non-idempotent class without identity may execute its mutations twice.
	Idempotent bool `yaml:"idempotent,omitempty" json:"idempotent,omitempty,omitzero"`
	// Entry names the entry the class's requests arrive through. Empty means the first
	// entry of the topology.
	Entry string `yaml:"entry,omitempty" json:"entry,omitempty,omitzero"`
	// Stages run in order on the entry's target service. At least one.
	Stages []Stage `yaml:"stages" json:"stages"`
	// HTTP is how the live load generator (goodput attack) sends the class's requests.
	// The replay ignores it. Omitted, a class sends GET / with no body.
	HTTP HTTP `yaml:"http,omitempty" json:"http,omitempty,omitzero"`
}

// HTTP is the request the live load generator sends for each logical request of a class.
type HTTP struct {
	// Method is the request method: GET (the default), HEAD, POST, PUT, PATCH, DELETE or
	// OPTIONS.
	Method string `yaml:"method,omitempty" json:"method,omitempty,omitzero" jsonschema:"enum=GET,enum=HEAD,enum=POST,enum=PUT,enum=PATCH,enum=DELETE,enum=OPTIONS"`
	// Path is the path on the target, starting with /, with an optional ?query. Empty
	// means /.
	Path string `yaml:"path,omitempty" json:"path,omitempty,omitzero"`
	// Path may also hold the actions a body may (see [HTTP.PathTemplate]), e.g.
	// /orders/{{.Order}}.
	//
	// Body is the request body: text in which {{.ID}}, {{.Key}}, {{.Class}} and {{.Order}}
	// (the only actions allowed) are replaced for each logical request (see [BodyData]).
	// Empty sends no body.
	Body string `yaml:"body,omitempty" json:"body,omitempty,omitzero"`
	// OrdersFrom names the classes whose acknowledged (2xx) requests {{.Order}} names:
	// a path or body using {{.Order}} needs it, e.g. [new_checkout].
	OrdersFrom []string `yaml:"orders_from,omitempty" json:"orders_from,omitempty,omitzero"`
}

// Mutation kinds: the correctness-sensitive effects a stage can have. A mutation executed
// twice for one logical request is a duplicate.
const (
	MutationPaymentAuthorization = "payment_authorization"
	MutationOrderCommit          = "order_commit"
)

// Fallbacks of an optional stage that fails or is shed.
const (
	FallbackSkip         = "skip"         // omit the feature (the default)
	FallbackConservative = "conservative" // use the approved conservative answer
)

// Stage is one step of a class: CPU work on a worker of the service (Work set) or a
// call to a dependency through the calling instance's connection pool (Dependency set).
// Exactly one of Work and Dependency is set.
type Stage struct {
	// Name names the stage (e.g. inventory, risk, receipt_enrichment). Optional stages are
	// shed under this name unless Feature is set. A name carries no meaning: which load
	// states shed a stage is its ShedFrom.
	Name string `yaml:"name" json:"name"`
	// Service is the service whose worker runs Work. Empty means the entry's target.
	Service string `yaml:"service,omitempty" json:"service,omitempty,omitzero"`
	// Work is the CPU time of the stage on a worker (a constant such as 4ms or a
	// distribution).
	Work Dist `yaml:"work,omitempty" json:"work,omitempty,omitzero"`
	// Dependency names the dependency the stage calls.
	Dependency string `yaml:"dependency,omitempty" json:"dependency,omitempty,omitzero"`
	// Optional marks work that may be shed or fail without failing the request (a
	// recommendation, a receipt enrichment): a degraded but correct response.
	Optional bool `yaml:"optional,omitempty" json:"optional,omitempty,omitzero"`
	// Fallback is what an optional stage answers when it fails or is shed: skip (the
	// default) or conservative. Only for optional stages.
	Fallback string `yaml:"fallback,omitempty" json:"fallback,omitempty,omitzero" jsonschema:"enum=skip,enum=conservative"`
	// Feature is the name the shed plan uses for the stage. Empty means Name. Stages that
	// share a feature are shed together: they declare one ShedFrom, and the first
	// FallbackText is the feature's.
	Feature string `yaml:"feature,omitempty" json:"feature,omitempty,omitzero"`
	// ShedFrom is the least protective load state in which an optional stage is shed, when
	// the arm's policy declares shed: protected (the default: shed while Protected and
	// while Recovering from it), pressured (also while Pressured) or never. Only for
	// optional stages: a required stage is never shed.
	ShedFrom string `yaml:"shed_from,omitempty" json:"shed_from,omitempty,omitzero" jsonschema:"enum=pressured,enum=protected,enum=never"`
	// FallbackText says what the response carries while the stage is shed, for the shed
	// plan (e.g. "plain receipt without rich rendering"). Empty means a text made from
	// Fallback and the feature. Only for optional stages.
	FallbackText string `yaml:"fallback_text,omitempty" json:"fallback_text,omitempty,omitzero"`
	// Mutation marks a correctness-sensitive effect of a dependency call:
	// payment_authorization or order_commit. It takes effect when the dependency finishes
	// the call, whether or not the caller is still waiting.
	Mutation string `yaml:"mutation,omitempty" json:"mutation,omitempty,omitzero" jsonschema:"enum=payment_authorization,enum=order_commit"`
	// Cache names a cache of the service the stage runs on that the dependency call reads
	// through: a hit answers the stage at once, a miss makes the call and, when it
	// succeeds, fills an entry. Only with Dependency, and not with Mutation.
	Cache string `yaml:"cache,omitempty" json:"cache,omitempty,omitzero"`
}

// Topology is the graph requests run through: entries route to services, whose
// instances run the classes' stages and call dependencies.
type Topology struct {
	// Entries are where logical requests enter (edges, clients). At least one.
	Entries []Entry `yaml:"entries" json:"entries"`
	// Services are the application services. At least one.
	Services []Service `yaml:"services" json:"services"`
	// Dependencies are what the services call.
	Dependencies []Dependency `yaml:"dependencies,omitempty" json:"dependencies,omitempty,omitzero"`
	// Caches are in-process caches held by each instance of a service.
	Caches []Cache `yaml:"caches,omitempty" json:"caches,omitempty,omitzero"`
}

// Entry is an edge or a client: it sends each logical request to its target service as
// one or more attempts, each with its own timeout.
type Entry struct {
	// Name names the entry; it is the attempt layer of its attempts (e.g. edge).
	Name string `yaml:"name" json:"name"`
	// Target names the service the entry routes to.
	Target string `yaml:"target" json:"target"`
	// Timeout is the per-attempt timeout: the entry stops waiting for an attempt after it
	// (the attempt's work goes on unless the policy cancels it). Zero means no timeout.
	Timeout Duration `yaml:"timeout,omitempty" json:"timeout,omitempty,omitzero"`
	// Retries is the entry's own retry policy.
	Retries Retries `yaml:"retries,omitempty" json:"retries,omitempty,omitzero"`
	// RateLimit caps the logical requests the entry takes in, e.g. 100/s: a token
	// bucket that fills at the rate and holds one second of it (at least one request).
	// A request that finds it empty is offered and rejected with reason rate-limited.
	// 0/s pauses the entry: every request is rejected. Absent means no cap. An action
	// may set it, for an admission pause or a rate cap at an instant.
	RateLimit *Rate `yaml:"rate_limit,omitempty" json:"rate_limit,omitempty,omitzero"`
}

// Retry triggers: which failures a retry policy retries.
const (
	RetryOnTimeout  = "timeout"  // the caller's timeout fired
	RetryOnError    = "error"    // the callee answered with an error
	RetryOnOverload = "overload" // the callee refused the work (queue full, pool exhausted)
)

// Retries is one layer's retry policy.
type Retries struct {
	// Max is the most retries per request at this layer (attempts = 1 + Max). Zero means
	// no retries.
	Max int `yaml:"max,omitempty" json:"max,omitempty,omitzero"`
	// On lists the triggers: timeout, error, overload. Empty means all three.
	On []string `yaml:"on,omitempty" json:"on,omitempty,omitzero"`
	// Backoff is the delay before a retry: a duration for a constant delay (backoff:
	// 100ms), or a mapping for an exponential one with a cap and jitter (backoff:
	// {initial: 100ms, multiplier: 2, max: 2s, jitter: full}; see Backoff). Zero retries at
	// once.
	Backoff Backoff `yaml:"backoff,omitempty" json:"backoff,omitempty,omitzero"`
}

// Routers: how a service's router picks an instance for an attempt.
const (
	RouterRoundRobin  = "round_robin"
	RouterRandom      = "random"
	RouterLeastLoaded = "least_loaded" // the less loaded of two random instances, as Envoy's least-request (the default)
)

// Service is an application service: instances behind a router, each with a worker
// pool, a queue in front of it and one connection pool per dependency.
type Service struct {
	// Name names the service; it is the attempt layer of the retries it makes.
	Name string `yaml:"name" json:"name"`
	// Instances is how many warm instances serve at the start. At least one.
	Instances int `yaml:"instances" json:"instances"`
	// Workers is the worker pool of each instance: attempts in service at once. A worker
	// is held for the whole attempt, including its dependency calls. At least one.
	Workers int `yaml:"workers" json:"workers"`
	// Queue is the queue in front of each instance's workers.
	Queue Queue `yaml:"queue,omitempty" json:"queue,omitempty,omitzero"`
	// Router is how attempts are spread over instances: round_robin, random or
	// least_loaded (the default: of two instances drawn at random, the one with fewer
	// attempts queued or in service per unit of capacity).
	Router string `yaml:"router,omitempty" json:"router,omitempty,omitzero" jsonschema:"enum=round_robin,enum=random,enum=least_loaded"`
	// Cold describes instances added by a scale fault until they are warm.
	Cold Cold `yaml:"cold,omitempty" json:"cold,omitempty,omitzero"`
	// Memory is each instance's heap, which the service's caches yield to the attempts
	// it holds. Zero means no limit: the caches keep every entry they fill.
	Memory Memory `yaml:"memory,omitempty" json:"memory,omitempty,omitzero"`
	// Health is the orchestrator's health check of each instance. Zero means none.
	Health Health `yaml:"health,omitempty" json:"health,omitempty,omitzero"`
	// Autoscale is the service's autoscaler rule (see [Autoscale]). Nil means none: the
	// service scales only by scale faults.
	Autoscale *Autoscale `yaml:"autoscale,omitempty" json:"autoscale,omitempty,omitzero"`
	// LoadFactor makes the stage work grow with the instance's busy workers (its
	// service_time; see LoadFactors). Omitted: the work does not depend on the load.
	LoadFactor *LoadFactors `yaml:"load_factor,omitempty" json:"load_factor,omitempty,omitzero"`
	// PanicThreshold is the router's panic mode, as Envoy's healthy panic threshold (whose
	// default is 50%): while the share of the service's instances taking traffic (up,
	// route-ready and passing health checks) among those it runs is below it, the router
	// spreads attempts at random over all of them, healthy or not, instead of
	// concentrating them on the few healthy ones; an attempt sent to an instance that is
	// down fails at once with an error. Zero means no panic mode.
	PanicThreshold Fraction `yaml:"panic_threshold,omitempty" json:"panic_threshold,omitempty,omitzero"`
}

// Health actions: what a health check does to an instance whose probes fail.
const (
	HealthRemove  = "remove"  // a readiness probe: the router stops sending it attempts until it passes again
	HealthRestart = "restart" // a liveness probe: the process is killed and started again, cold
)

// Health is a health check of each instance of a service, as an orchestrator's readiness
// or liveness probe (Kubernetes' periodSeconds, timeoutSeconds, failureThreshold and
// successThreshold). A probe is a request that waits in the instance's queue like an
// attempt (it takes a place in a bounded queue, and an age-bounded or LIFO queue drops or
// reorders it as it would an attempt) and takes no work: it passes if a worker picks it up
// within Timeout, and fails if it is still waiting then or if the queue refuses or drops
// it (a probe that failed at its timeout stays queued, as an abandoned request does, until
// a worker reaches it and drops it). So a slow instance, one whose queue holds more than Timeout of work, fails its
// probes: health checks remove slow instances. When every instance of a service is out of
// routing, the service refuses attempts as overload (no endpoints, as Kubernetes leaves
// it, unless the router has a panic_threshold).
type Health struct {
	// Interval is the time between two probes of an instance, e.g. 10s, at least 1ms. A
	// Health with every field zero means no health check.
	Interval Duration `yaml:"interval" json:"interval"`
	// Timeout is how long a probe waits for its answer, e.g. 1s; at most Interval.
	Timeout Duration `yaml:"timeout" json:"timeout"`
	// Failures is how many probes in a row must fail for the action to be taken. Zero
	// means 3.
	Failures int `yaml:"failures,omitempty" json:"failures,omitempty,omitzero"`
	// Successes is how many probes in a row a removed instance must pass to take traffic
	// again (action remove only). Zero means 1.
	Successes int `yaml:"successes,omitempty" json:"successes,omitempty,omitzero"`
	// Action is remove (the router stops sending the instance attempts until it passes
	// Successes probes in a row; it keeps serving what it holds) or restart (its process
	// is killed: what it holds fails with an error, its dependency calls in service run on
	// as orphans, or are cancelled under a policy that cancels, its caches are lost, and
	// it starts again, cold).
	Action string `yaml:"action" json:"action" jsonschema:"enum=remove,enum=restart"`
	// Restart is the time from a kill until the process is ready again (a container
	// restart: no scheduling or image pull), e.g. 30s, after the back-off if there is one
	// (action restart only). It is then
	// cold for the service's cold.for, as a new instance is. Zero means the service's
	// cold.startup (at once for a service without one).
	Restart Duration `yaml:"restart,omitempty" json:"restart,omitempty,omitzero"`
	// Backoff delays each restart of an instance that keeps failing, as Kubernetes'
	// CrashLoopBackOff does (action restart only): as a mapping, Initial before the first
	// restart, doubling (or growing by Multiplier) with each restart after it up to Max
	// (zero: 5m), and back to Initial once the process has run for Reset (zero: 10m)
	// without a restart (Kubernetes: {initial: 10s, max: 5m, reset: 10m}); as a duration,
	// that delay before every restart. The delay comes before the process starts, so a
	// restart takes the delay plus Restart. Zero means none: every restart takes Restart.
	Backoff Backoff `yaml:"backoff,omitempty" json:"backoff,omitempty,omitzero"`
}

// Memory is the heap of one instance as attempts and caches share it: every attempt the
// instance holds (queued or in service, orphans included) takes PerAttempt, and its caches
// keep only the entries that fit in what is left of Limit.
type Memory struct {
	// Limit is the heap an instance has for attempts and caches (what is left after its
	// code, routing state and other fixed costs), e.g. 2GiB. Zero means no limit.
	Limit Size `yaml:"limit,omitempty" json:"limit,omitempty,omitzero"`
	// PerAttempt is the heap one attempt holds while the instance has it, e.g. 2MiB.
	PerAttempt Size `yaml:"per_attempt,omitempty" json:"per_attempt,omitempty,omitzero"`
	// GC is the cost of collecting the heap as the attempts fill it (see GC). Zero means
	// none.
	GC GC `yaml:"gc,omitempty" json:"gc,omitempty,omitzero"`
}

// Cache is an in-process cache in each instance of a service, in front of a dependency
// (the stages that name it say which). Its keys are the load's keys (load.keys): a
// lookup of a key among the entries it holds is a hit. It holds the most popular keys it
// has filled (the ideal a frequency-based cache approaches; an LRU of the same size hits
// somewhat less), up to Entries, and fewer when the instance's memory is short: every
// tick it evicts what does not fit beside the attempts the instance holds. An instance
// added by a scale fault starts empty and fills by its misses.
type Cache struct {
	// Name names the cache in reports (e.g. profile-cache).
	Name string `yaml:"name" json:"name"`
	// Service names the service whose instances each hold one.
	Service string `yaml:"service" json:"service"`
	// Entries is the most entries the cache holds. At least one.
	Entries int `yaml:"entries" json:"entries"`
	// EntrySize is the heap one entry takes, e.g. 16KiB. Required when the service has a
	// memory limit.
	EntrySize Size `yaml:"entry_size,omitempty" json:"entry_size,omitempty,omitzero"`
}

// Queue is the count-bounded FIFO queue of the baseline; a policy may replace it with an
// age-bounded one.
type Queue struct {
	// Capacity is the most attempts waiting per instance; one more is refused as
	// overload. Zero means unbounded.
	Capacity int `yaml:"capacity,omitempty" json:"capacity,omitempty,omitzero"`
}

// Cold is how a newly added instance works before it is warm: it loads code,
// connections, routing state and caches.
type Cold struct {
	// Startup is the time from the instance being requested until its process is ready
	// (scheduling, image pull, process start). Zero means at once.
	Startup Duration `yaml:"startup,omitempty" json:"startup,omitempty,omitzero"`
	// RateFactor is the instance's service rate while cold as a fraction of a warm one:
	// its work takes 1/RateFactor as long and only RateFactor of its connection pools
	// are usable. Zero means 1 (cold instances are as fast as warm ones).
	RateFactor Factor `yaml:"rate_factor,omitempty" json:"rate_factor,omitempty,omitzero"`
	// For is how long an instance stays cold after its process is ready.
	For Duration `yaml:"for,omitempty" json:"for,omitempty,omitzero"`
}

// Dependency is a downstream the services call through bounded per-instance connection
// pools, served by a bounded number of servers shared by all callers.
type Dependency struct {
	// Name names the dependency (e.g. payment-risk).
	Name string `yaml:"name" json:"name"`
	// ServiceTime is the log-normal service time at the dependency, fixed by its median
	// and p99; faults may change it.
	ServiceTime Quantiles `yaml:"service_time" json:"service_time"`
	// ErrorRate is the fraction of calls the dependency answers with an error; faults may
	// change it. Zero means none.
	ErrorRate Fraction `yaml:"error_rate,omitempty" json:"error_rate,omitempty,omitzero"`
	// Concurrency is how many calls the dependency serves at once, across all callers;
	// more wait in its FIFO queue (or are rejected: Beyond). Zero means unlimited.
	Concurrency int `yaml:"concurrency,omitempty" json:"concurrency,omitempty,omitzero"`
	// Beyond is what a call gets that finds all Concurrency servers busy, whichever
	// caller and instance it comes from: wait (the default) in the dependency's FIFO
	// queue, or reject: an explicit overload answer at once (cause overload, which a
	// retry budget never retries), the connection given back.
	Beyond string `yaml:"beyond,omitempty" json:"beyond,omitempty,omitzero" jsonschema:"enum=wait,enum=reject"`
	// HangRate is the fraction of calls the dependency never answers: a hung call holds
	// its server and its connection until the caller gives up (its timeout, or a
	// cancellation), and then fails as a timeout; with no timeout it holds them to the
	// end of the run. Faults may change it. Zero means none.
	HangRate Fraction `yaml:"hang_rate,omitempty" json:"hang_rate,omitempty,omitzero"`
	// LoadFactor makes the service time and the error rate grow with the calls in
	// service at the dependency (see LoadFactors). Omitted: they do not depend on the
	// load.
	LoadFactor *LoadFactors `yaml:"load_factor,omitempty" json:"load_factor,omitempty,omitzero"`
	// Pool is each calling instance's connection pool to the dependency.
	Pool Pool `yaml:"pool,omitempty" json:"pool,omitempty,omitzero"`
	// Timeout is the calling service's timeout for one call, from asking for a
	// connection (waiting for one counts) to the answer. Zero means no timeout. A policy
	// with dependency_timeout: derived replaces it with the time left before the
	// request's deadline minus the policy's reserve.
	Timeout Duration `yaml:"timeout,omitempty" json:"timeout,omitempty,omitzero"`
	// Retries is the calling service's retry policy for the dependency.
	Retries Retries `yaml:"retries,omitempty" json:"retries,omitempty,omitzero"`
	// Keyed says the dependency deduplicates mutations by the logical identity a policy
	// with identity sends (an idempotency key).
	Keyed bool `yaml:"keyed,omitempty" json:"keyed,omitempty,omitzero"`
	// Shared makes the dependency one copy that every cell calls (a scenario with cells
	// only): its concurrency is shared by all of them. Omitted, each cell has its own.
	Shared bool `yaml:"shared,omitempty" json:"shared,omitempty,omitzero"`
}

// Pool is a bounded connection pool per calling instance.
type Pool struct {
	// PerInstance is the number of connections each calling instance holds to the
	// dependency. A connection is held from the call's start until the dependency
	// finishes it (or cancellation stops it). Zero means unbounded.
	PerInstance int `yaml:"per_instance,omitempty" json:"per_instance,omitempty,omitzero"`
	// AcquireTimeout bounds how long a call waits for one of the pool's connections, as
	// HikariCP's connectionTimeout or a context on Go's MaxConnsPerHost do: a call still
	// waiting after it fails at once with reason pool-exhausted: nothing was sent, the
	// caller sees an overload (a retry policy retries it on: overload), and packet.json
	// counts it in the dependency's pool_exhausted. E.g. {per_instance: 200,
	// acquire_timeout: 100ms}. The call's own timeout still applies
	// when it is shorter. Zero (the default) waits without bound, until the call's
	// timeout. Only with PerInstance.
	AcquireTimeout Duration `yaml:"acquire_timeout,omitempty" json:"acquire_timeout,omitempty,omitzero"`
}

// Fault changes an input of the scenario for a window of the run. Exactly one of its
// kinds is set: a dependency change (Dependency with ServiceTime, ErrorRate and/or
// HangRate), a Service's WorkFactor, a Crash or a Stall of some of a Service's instances, a
// traffic Shift, or a Scale of a service.
type Fault struct {
	// At is when the fault begins, from the start of the run.
	At Duration `yaml:"at" json:"at"`
	// For is how long it lasts; zero means until the end of the run. A scale fault is
	// permanent and takes no For.
	For Duration `yaml:"for,omitempty" json:"for,omitempty,omitzero"`
	// Note describes the fault on the timeline (e.g. "storage maintenance").
	Note string `yaml:"note,omitempty" json:"note,omitempty,omitzero"`
	// Dependency names the dependency a service-time or error-rate fault changes.
	Dependency string `yaml:"dependency,omitempty" json:"dependency,omitempty,omitzero"`
	// ServiceTime replaces the dependency's service-time distribution during the fault.
	ServiceTime *Quantiles `yaml:"service_time,omitempty" json:"service_time,omitempty,omitzero"`
	// ErrorRate replaces the dependency's error rate during the fault.
	ErrorRate *Fraction `yaml:"error_rate,omitempty" json:"error_rate,omitempty,omitzero"`
	// HangRate replaces the dependency's hang rate during the fault (calls that never
	// answer; see Dependency.HangRate).
	HangRate *Fraction `yaml:"hang_rate,omitempty" json:"hang_rate,omitempty,omitzero"`
	// Service names the service whose stage work a WorkFactor fault changes, or whose
	// instances a Crash or Stall fault hits.
	Service string `yaml:"service,omitempty" json:"service,omitempty,omitzero"`
	// WorkFactor multiplies the Service's stage work during the fault (e.g. 300% for a
	// slowdown to a third of the speed).
	WorkFactor Factor `yaml:"work_factor,omitempty" json:"work_factor,omitempty,omitzero"`
	// Shift multiplies the offered rate (a regional failover moving traffic in).
	Shift *Shift `yaml:"shift,omitempty" json:"shift,omitempty,omitzero"`
	// Scale adds instances to a service (an autoscaler's request); they arrive cold.
	Scale *Scale `yaml:"scale,omitempty" json:"scale,omitempty,omitzero"`
	// Crash kills the processes of some of Service's instances at At (see
	// [InstanceFault] for which): the attempts they hold, queued or in service, fail at
	// once with an error their callers see as a reset connection (and may retry), their
	// dependency calls in service run on as orphans (or are cancelled under a policy that
	// cancels), their caches are lost, and they are out of routing and unprobed while
	// down. After For (the recovery time; zero: never, in this run) each is
	// process-ready again and goes through route-ready and warm as a new instance does
	// (cold for cold.for). E.g. {at: 5m, for: 1m, service: checkout, crash: {count: 2}}.
	Crash *InstanceFault `yaml:"crash,omitempty" json:"crash,omitempty,omitzero"`
	// Stall freezes some of Service's instances for For (zero: to the end of the run):
	// they stay in routing and keep accepting attempts into their queues, but take
	// nothing from them, and work in service does not finish (a work stage due to end
	// during the stall ends when it does; a dependency call's answer is taken in). So
	// their queues age, a bounded queue fills and refuses, and their health probes wait
	// and fail. E.g. {at: 5m, for: 30s, service: checkout, stall: {share: 25%}}.
	Stall *InstanceFault `yaml:"stall,omitempty" json:"stall,omitempty,omitzero"`
}

// Shift multiplies the offered logical rate while the fault lasts: a regional failover
// moving traffic into the cell. The extra share is failover traffic; an arm whose load
// state freezes failover (control/loadstate's FreezeFailover) refuses it — it is offered
// and rejected with reason failover-frozen — so both arms see the same offered load.
type Shift struct {
	// Rate is the multiplier, e.g. 115% for 15% more traffic.
	Rate Factor `yaml:"rate" json:"rate"`
}

// Scale is an autoscaler's request for more instances of a service. The instances start
// after the service's Cold.Startup and work cold for Cold.For.
type Scale struct {
	// Service names the service.
	Service string `yaml:"service" json:"service"`
	// Add is the number of instances requested. At least one.
	Add int `yaml:"add" json:"add"`
}

// Arm is one policy compared in the experiment.
type Arm struct {
	// Name names the arm (e.g. baseline, protected).
	Name string `yaml:"name" json:"name"`
	// Policy is the arm's overload policy.
	Policy Policy `yaml:"policy" json:"policy"`
	// Set changes the arm's inputs from the start, in the --set path syntax (see
	// [Sets]), so that a fix arm can differ in topology, e.g.
	// {topology.dependencies.payment.timeout: 2s}. Offered load stays the same in
	// every arm: a set under load, clock, seed, trials, classes.*.share (or a traffic
	// shift), name, objectives, actions or arms is an error, and so is one that changes
	// the names of the entries, services, dependencies, caches or stages, by which the
	// packet compares the arms.
	Set Sets `yaml:"set,omitempty" json:"set,omitempty,omitzero"`
}

// Retry modes of a policy.
const (
	RetryModeLayered = "layered" // each layer retries as its topology declares, independently
	RetryModeBudget  = "budget"  // one budget bounds the retries of every layer
)

// Dependency-timeout modes of a policy.
const (
	TimeoutFixed   = "fixed"   // the dependency's declared timeout, whatever the deadline
	TimeoutDerived = "derived" // the remaining deadline minus the policy's reserve
)

// Queue kinds of a policy.
const (
	QueueFIFO = "fifo" // the service's count-bounded FIFO
	QueueAge  = "age"  // age- and deadline-bounded (control/queue), optionally CoDel and adaptive LIFO
)

// Readiness gates: when a new instance starts taking traffic.
const (
	ReadyProcess = "process" // as soon as its process is ready (cold)
	ReadyWarm    = "warm"    // only once it is warm
)

// Policy is an arm's overload policy: which controls run and how.
type Policy struct {
	// Deadline is deadline propagation and cancellation.
	Deadline DeadlinePolicy `yaml:"deadline,omitempty" json:"deadline,omitempty,omitzero"`
	// Identity sends one logical identity with every attempt, so keyed dependencies
	// deduplicate mutations (control/identity).
	Identity bool `yaml:"identity,omitempty" json:"identity,omitempty,omitzero"`
	// Retries is the retry mode.
	Retries RetryPolicy `yaml:"retries,omitempty" json:"retries,omitempty,omitzero"`
	// DependencyTimeout is fixed (the default) or derived.
	DependencyTimeout string `yaml:"dependency_timeout,omitempty" json:"dependency_timeout,omitempty,omitzero" jsonschema:"enum=fixed,enum=derived"`
	// Queue is the instances' queue discipline.
	Queue QueuePolicy `yaml:"queue,omitempty" json:"queue,omitempty,omitzero"`
	// Admission is adaptive admission at the entries; nil means every request is admitted.
	Admission *AdmissionPolicy `yaml:"admission,omitempty" json:"admission,omitempty,omitzero"`
	// Shed is typed shedding of optional stages; nil means nothing is shed.
	Shed *ShedPolicy `yaml:"shed,omitempty" json:"shed,omitempty,omitzero"`
	// LoadState is the load-state machine; nil means none (the arm has no load state).
	LoadState *LoadStatePolicy `yaml:"loadstate,omitempty" json:"loadstate,omitempty,omitzero"`
	// Readiness is when new instances take traffic: process (the default) or warm.
	Readiness string `yaml:"readiness,omitempty" json:"readiness,omitempty,omitzero" jsonschema:"enum=process,enum=warm"`
	// Breakers are circuit breakers in the services' clients, one per dependency they
	// guard and per calling instance (BreakerPolicy); none means calls are never refused.
	Breakers []BreakerPolicy `yaml:"breakers,omitempty" json:"breakers,omitempty,omitzero"`
	// Failover moves traffic between the scenario's cells (see [FailoverPolicy]): on the
	// origin's health (mode health) or within the destination's grant (mode grant). Nil
	// means no failover: every request is served in the cell it is offered to.
	Failover *FailoverPolicy `yaml:"failover,omitempty" json:"failover,omitempty,omitzero"`
}

// DeadlinePolicy is deadline propagation and cancellation (control/deadline).
type DeadlinePolicy struct {
	// Propagate carries the absolute deadline to every layer: entries stop retrying and
	// queues drop work that can no longer finish in time.
	Propagate bool `yaml:"propagate,omitempty" json:"propagate,omitempty,omitzero"`
	// Cancel stops downstream work (queued attempts, dependency calls) when its caller
	// gives up or the deadline passes; without it abandoned work runs on as orphans.
	Cancel bool `yaml:"cancel,omitempty" json:"cancel,omitempty,omitzero"`
	// Reserve is the time kept back from a call's timeout for the rest of the path.
	Reserve Duration `yaml:"reserve,omitempty" json:"reserve,omitempty,omitzero"`
	// Ceiling caps each call timeout derived from the deadline (dependency_timeout:
	// derived), as control/controlhttp's client caps it: a call's timeout is the remaining
	// deadline less the reserve, at most the ceiling. Unset (or 0s) means the library's
	// default, 30 s; none means no cap. A call cut at the ceiling is a timeout of the
	// dependency (a breaker counts it as a failure, and it is retried as a timeout); one
	// cut short of it by the caller's deadline is the caller's (a breaker ignores it).
	// E.g. {propagate: true, cancel: true, reserve: 150ms, ceiling: 2s}.
	Ceiling Ceiling `yaml:"ceiling,omitempty" json:"ceiling,omitempty,omitzero"`
}

// RetryPolicy selects how retries are bounded.
type RetryPolicy struct {
	// Mode is layered (the default) or budget.
	Mode string `yaml:"mode,omitempty" json:"mode,omitempty,omitzero" jsonschema:"enum=layered,enum=budget"`
	// Budget is the unified retry budget of mode budget.
	Budget *BudgetPolicy `yaml:"budget,omitempty" json:"budget,omitempty,omitzero"`
}

// BudgetPolicy is one retry budget shared by every layer and class (control/budget).
type BudgetPolicy struct {
	// Ratio is retries allowed per admitted request (e.g. 2%). With a load-state
	// machine, the policy in force replaces it from the arm's first instant (Normal's
	// ratio at the start, as a service's controlhttp.Stepper applies it), so Ratio then
	// only sets the budget's configuration until that first application.
	Ratio Fraction `yaml:"ratio" json:"ratio"`
	// MinPerSecond is a floor of retries allowed however few requests there are.
	MinPerSecond Rate `yaml:"min_per_second,omitempty" json:"min_per_second,omitempty,omitzero"`
	// TTL is how long a deposit of retry allowance lasts. Zero means 10s.
	TTL Duration `yaml:"ttl,omitempty" json:"ttl,omitempty,omitzero"`
}

// QueuePolicy is the queue discipline of every instance.
type QueuePolicy struct {
	// Kind is fifo (the default: the service's count-bounded queue) or age.
	Kind string `yaml:"kind,omitempty" json:"kind,omitempty,omitzero" jsonschema:"enum=fifo,enum=age"`
	// MaxAge drops queued work older than this (kind age). Zero means no age bound.
	MaxAge Duration `yaml:"max_age,omitempty" json:"max_age,omitempty,omitzero"`
	// Target is CoDel's target queueing delay (kind age). Zero turns CoDel off.
	Target Duration `yaml:"target,omitempty" json:"target,omitempty,omitzero"`
	// Interval is CoDel's interval (kind age). Zero means 100ms when Target is set.
	Interval Duration `yaml:"interval,omitempty" json:"interval,omitempty,omitzero"`
	// AdaptiveLIFO serves the newest item first while CoDel reports congestion.
	AdaptiveLIFO bool `yaml:"adaptive_lifo,omitempty" json:"adaptive_lifo,omitempty,omitzero"`
}

// AdmissionPolicy is adaptive admission by class at the entries (control/admission). Its
// limit is derived by the controller from measured queueing delay, never declared.
type AdmissionPolicy struct {
	// Adaptive turns the adaptive limit on. Without it only the class reservations and
	// the deadline check apply, on a limit sized from the topology: twice the workers
	// the entry service can have, at most 16384 (admission.MaxLimit).
	Adaptive bool `yaml:"adaptive,omitempty" json:"adaptive,omitempty,omitzero"`
	// Target is the mean queueing delay above which the adaptive limit decreases. Zero
	// means 20ms.
	Target Duration `yaml:"target,omitempty" json:"target,omitempty,omitzero"`
	// Reserve keeps a fraction of the limit for the more valuable classes.
	Reserve Reserve `yaml:"reserve,omitempty" json:"reserve,omitempty,omitzero"`
}

// Reserve is the share of the admission limit that less valuable classes may not use.
type Reserve struct {
	// Continuation is kept for payment continuations: standard and sheddable work may not
	// use it.
	Continuation Fraction `yaml:"continuation,omitempty" json:"continuation,omitempty,omitzero"`
	// Lookup is kept, in addition, for continuations and lookups.
	Lookup Fraction `yaml:"lookup,omitempty" json:"lookup,omitempty,omitzero"`
}

// Shed plans.
const (
	ShedPlanDefault = "default" // each optional stage is shed from the load state its shed_from names
)

// ShedPolicy is typed shedding of optional stages (control/shed). The plan is the
// stages' own: each optional stage is shed from the load state its shed_from names
// (Protected unless declared), with its fallback_text; required stages are never shed.
type ShedPolicy struct {
	// Plan names the shed plan: default, the stages' shed_from (the only plan; it may be
	// omitted).
	Plan string `yaml:"plan,omitempty" json:"plan,omitempty,omitzero" jsonschema:"enum=default"`
	// Features limits shedding to these optional stage features; empty means every
	// optional stage whose shed_from is not never.
	Features []string `yaml:"features,omitempty" json:"features,omitempty,omitzero"`
}

// Load-state presets.
const (
	LoadStateNorthstar = "northstar" // NorthstarLoadState()
)

// LoadStatePolicy is the Normal/Pressured/Protected/Recovering machine (control/loadstate),
// declared in the scenario. Every field may be omitted; what is not declared is derived:
// the slack gate from the tightest class deadline (see [SlackGate]), everything else from
// control/loadstate's zero Config (a gate not declared is disabled, a sustain or hold
// not declared is no wait, no ramp) and its DefaultPolicies (a policy field not declared).
// So `loadstate: {}` is a machine whose only gate is the derived slack gate. Arms that
// share a controller share it with a YAML anchor: `loadstate: &controller {...}` on the
// first, `loadstate: *controller` on the others (a merge key, `<<: *controller`, changes
// part of it).
type LoadStatePolicy struct {
	// Preset is a deprecated shorthand kept for old files: northstar stands for the
	// machine examples/northstar/northstar.scenario.yaml declares, with its slack gates
	// fixed at 1.2s/600ms/1.4s whatever the classes' deadlines. It cannot be combined
	// with gates, sustain, holds, ramp or policies; declare those instead.
	Preset string `yaml:"preset,omitempty" json:"preset,omitempty,omitzero" jsonschema:"enum=northstar"`
	// Gates are the leading-indicator gates.
	Gates LoadStateGates `yaml:"gates,omitempty" json:"gates,omitempty,omitzero"`
	// Sustain is how long a warning gate must stay breached, without a break, before
	// Normal moves to Pressured. Zero: at the first sample.
	Sustain Duration `yaml:"sustain,omitempty" json:"sustain,omitempty,omitzero"`
	// Holds are how long each state's exit condition must hold before the machine leaves
	// it for a less protected state.
	Holds LoadStateHolds `yaml:"holds,omitempty" json:"holds,omitempty,omitzero"`
	// Ramp is the staged ramp back to Normal: Recovering begins at the first step and
	// moves one step at a time. Empty means no ramp: Recovering applies its own policy and
	// returns to Normal after holds.recovering.
	Ramp []RampStep `yaml:"ramp,omitempty" json:"ramp,omitempty,omitzero"`
	// Policies are what each load state imposes on the other controls.
	Policies StatePolicies `yaml:"policies,omitempty" json:"policies,omitempty,omitzero"`
	// Trigger names the dependency whose health gates the way out of Protected. Empty
	// means the dependency of the first dependency fault, or the first dependency.
	Trigger string `yaml:"trigger,omitempty" json:"trigger,omitempty,omitzero"`
}

// Objective metrics.
const (
	MetricLatencyP50      = "latency_p50"
	MetricLatencyP99      = "latency_p99"
	MetricLatencyP999     = "latency_p999"
	MetricGoodputRate     = "goodput_rate"
	MetricGoodputFraction = "goodput_fraction"
	MetricDuplicates      = "duplicates"
	MetricQueueAgeMax     = "queue_age_max"
	MetricAmplification   = "amplification"
	MetricRetryRatio      = "retry_ratio"
	MetricTimeToNormal    = "time_to_normal"
)

var objectiveMetrics = []string{
	MetricLatencyP50, MetricLatencyP99, MetricLatencyP999, MetricGoodputRate, MetricGoodputFraction,
	MetricDuplicates, MetricQueueAgeMax, MetricAmplification, MetricRetryRatio, MetricTimeToNormal,
}

// Objective is a bound on one measured figure of each arm.
type Objective struct {
	// Name names the objective in reports.
	Name string `yaml:"name" json:"name"`
	// Metric is one of latency_p50, latency_p99, latency_p999 (ms), goodput_rate (/s),
	// goodput_fraction, duplicates, queue_age_max (ms), amplification, retry_ratio and
	// time_to_normal (s).
	Metric string `yaml:"metric" json:"metric" jsonschema:"enum=latency_p50,enum=latency_p99,enum=latency_p999,enum=goodput_rate,enum=goodput_fraction,enum=duplicates,enum=queue_age_max,enum=amplification,enum=retry_ratio,enum=time_to_normal"`
	// Class restricts a latency objective to one class.
	Class string `yaml:"class,omitempty" json:"class,omitempty,omitzero"`
	// Min and Max bound the value; at least one is set. Write them in the metric's
	// units: 1800ms, 7800/s, 1.08, 2%, 12m.
	Min *Bound `yaml:"min,omitempty" json:"min,omitempty,omitzero"`
	Max *Bound `yaml:"max,omitempty" json:"max,omitempty,omitzero"`
	// Window restricts the objective to the ticks in [From, To).
	Window *Window `yaml:"window,omitempty" json:"window,omitempty,omitzero"`
	// State restricts the objective to ticks in that load state (e.g. Normal).
	State string `yaml:"state,omitempty" json:"state,omitempty,omitzero" jsonschema:"enum=Normal,enum=Pressured,enum=Protected,enum=Recovering"`
	// After is the instant time_to_normal is measured from.
	After Duration `yaml:"after,omitempty" json:"after,omitempty,omitzero"`
	// Stat is the aggregate of goodput_rate over the window: mean (the default) or min.
	Stat string `yaml:"stat,omitempty" json:"stat,omitempty,omitzero" jsonschema:"enum=mean,enum=min"`
}

// Window is a span of the run, [From, To); a zero To means the end of the run.
type Window struct {
	From Duration `yaml:"from,omitempty" json:"from,omitempty,omitzero"`
	To   Duration `yaml:"to,omitempty" json:"to,omitempty,omitzero"`
}

// BoundUnit is the unit a [Bound] was written in.
type BoundUnit uint8

// Units of a Bound.
const (
	UnitNumber   BoundUnit = iota // a plain number: 1.08, 0
	UnitDuration                  // a duration: 1800ms, 12m
	UnitRate                      // a rate: 7800/s
	UnitPercent                   // a percentage: 2%
)

// Bound is an objective's or an alert's threshold, written in its metric's units: a plain
// number (1.08, 0), a duration (1800ms, 12m), a rate (7800/s) or a percentage (2%).
type Bound struct {
	// Value is the threshold in the metric's canonical unit: milliseconds for latency and
	// queue-age metrics, seconds for time_to_normal, per second for rates, and a plain
	// ratio for percentages and numbers. [Objective] conversion uses [Bound.In].
	Value float64
	// Unit is how the bound was written.
	Unit BoundUnit
	text string
}

// ParseBound parses a threshold: a number, a duration, a rate or a percentage.
func ParseBound(s string) (Bound, error) {
	t := strings.TrimSpace(s)
	switch {
	case t == "":
		return Bound{}, fmt.Errorf("empty bound; expected a number (1.08), a duration (1800ms), a rate (7800/s) or a percentage (2%%)")
	case strings.HasSuffix(t, "%"):
		f, _, err := parseRatio(t, "a percentage", "2%")
		if err != nil {
			return Bound{}, err
		}
		return Bound{Value: f, Unit: UnitPercent, text: t}, nil
	case strings.Contains(t, "/"):
		r, err := ParseRate(t)
		if err != nil {
			return Bound{}, err
		}
		return Bound{Value: float64(r), Unit: UnitRate, text: t}, nil
	case isBareNumber(t):
		v, err := parseDecimal(strings.TrimPrefix(t, "+"))
		if err != nil {
			return Bound{}, fmt.Errorf("invalid number %q; expected a finite number such as 1.08", t)
		}
		return Bound{Value: v, Unit: UnitNumber, text: t}, nil
	}
	d, err := ParseDuration(t)
	if err != nil {
		return Bound{}, fmt.Errorf("invalid bound %q; expected a number (1.08), a duration (1800ms), a rate (7800/s) or a percentage (2%%)", t)
	}
	return Bound{Value: float64(d), Unit: UnitDuration, text: t}, nil
}

// Duration returns a duration bound as a time.Duration.
func (b Bound) Duration() time.Duration { return floatdur.Trunc(b.Value) }

// String returns the bound as written (or a canonical spelling).
func (b Bound) String() string {
	if b.text != "" {
		return b.text
	}
	switch b.Unit {
	case UnitDuration:
		return Duration(floatdur.Trunc(b.Value)).String()
	case UnitRate:
		return Rate(b.Value).String()
	case UnitPercent:
		return numfmt.PlainPercent(b.Value)
	}
	return numfmt.Plain(b.Value)
}

// UnmarshalText implements [encoding.TextUnmarshaler] with [ParseBound].
func (b *Bound) UnmarshalText(p []byte) error {
	v, err := ParseBound(string(p))
	if err != nil {
		return err
	}
	*b = v
	return nil
}

// MarshalText implements [encoding.TextMarshaler].
func (b Bound) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// MarshalJSON encodes b as a JSON string (or number for a plain number).
func (b Bound) MarshalJSON() ([]byte, error) {
	if b.Unit == UnitNumber {
		return []byte(strconv.FormatFloat(b.Value, 'g', -1, 64)), nil
	}
	return json.Marshal(b.String())
}

// UnmarshalJSON decodes a JSON string or number.
func (b *Bound) UnmarshalJSON(p []byte) error {
	var f float64
	if json.Unmarshal(p, &f) == nil {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("bound %s is not finite", p)
		}
		*b = Bound{Value: f, Unit: UnitNumber}
		return nil
	}
	var s string
	if err := json.Unmarshal(p, &s); err != nil {
		return fmt.Errorf("got %s; expected a number or a string such as \"1800ms\", \"7800/s\" or \"2%%\"", p)
	}
	return b.UnmarshalText([]byte(s))
}

// JSONSchema describes the spellings of a Bound.
func (Bound) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		OneOf: []*jsonschema.Schema{
			{Type: "number"},
			{Type: "string"},
		},
		Description: "A threshold in its metric's units: a number (1.08), a duration (1800ms), a rate (7800/s) or a percentage (2%).",
		Examples:    []any{"1800ms", "7800/s", 1.08, "2%"},
	}
}

// Truncate returns a copy of s that runs for d instead, for a shorter replay of the same
// incident: the schedule steps, faults, objectives, alerts, actions and notes that begin
// at or after d are dropped (as Validate refuses them; an alert whose for, clear_for, window or
// incident: the schedule steps, faults, objectives, alerts, actions and jobs that begin at or
// after d are dropped (as Validate refuses them; an alert whose for, clear_for, window or
// n_of_m does not fit in d too), a fault or an objective window that runs past d ends
// at it, and the clock's drain and tick are kept. A d of zero or more than s's duration
// returns an unchanged copy. Call Validate on the result.
func (s *Scenario) Truncate(d time.Duration) *Scenario {
	out := *s
	if d <= 0 || d >= s.Clock.Duration.Std() {
		return &out
	}
	end := Duration(d)
	out.Clock.Duration = end
	out.Load.Schedule = truncateSchedule(s.Load.Schedule, end)
	out.Classes = truncateClassSchedules(s.Classes, end)
	out.Faults = nil
	for _, f := range s.Faults {
		if f.At >= end {
			continue
		}
		if f.For > end-f.At {
			f.For = end - f.At
		}
		out.Faults = append(out.Faults, f)
	}
	out.Objectives = nil
	for _, o := range s.Objectives {
		if o.After >= end || o.Window != nil && o.Window.From >= end {
			continue
		}
		if w := o.Window; w != nil && w.To > end {
			o.Window = &Window{From: w.From, To: end}
		}
		out.Objectives = append(out.Objectives, o)
	}
	out.Alerts = nil
	tick := cmp.Or(s.Clock.Tick.Std(), time.Second)
	for _, a := range s.Alerts {
		if a.fits(end.Std(), tick) {
			out.Alerts = append(out.Alerts, a)
		}
	}
	out.Actions = nil
	for _, a := range s.Actions {
		if a.At < end {
			out.Actions = append(out.Actions, a)
		}
	}
	out.Notes = nil
	for _, n := range s.Notes {
		if n.At < end {
			out.Notes = append(out.Notes, n)
		}
	}
	out.Jobs = nil
	for _, j := range s.Jobs {
		if j.At < end {
			out.Jobs = append(out.Jobs, j)
		}
	}
	return &out
}

// Validate checks the meaning of a decoded scenario: required fields, ranges, names that
// must exist or be unique, and combinations that make no sense. It returns every problem
// it finds as an [Errors] list of [FieldError]s whose paths are YAML paths
// ($.classes[1].share), which [Decode] turns into file:line:col; nil when the scenario is
// valid.
func (s *Scenario) Validate() error {
	v := validator{s: s}
	v.run()
	return v.errs.Err()
}

type validator struct {
	s    *Scenario
	errs Errors
	// end is the run's length (clock.duration) and tick its sampling period, for checking
	// that times fall inside the run; end is 0 when the duration itself is invalid.
	end, tick time.Duration
	// cacheDeps is the dependency behind each cache, as the first stage reading it says;
	// cacheRead marks the caches some stage names.
	cacheDeps map[string]string
	cacheRead map[string]bool
}

func (v *validator) addf(path, format string, args ...any) { v.errs.Addf(path, format, args...) }

func oneOf(s string, allowed ...string) bool {
	for _, a := range allowed {
		if s == a {
			return true
		}
	}
	return false
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = strconv.Quote(x)
	}
	return strings.Join(q, ", ")
}

func (v *validator) run() {
	s := v.s
	if strings.TrimSpace(s.Name) == "" {
		v.addf("$.name", "name is empty; expected a name for the scenario, e.g. northstar")
	}
	if s.Trials < 0 {
		v.addf("$.trials", "trials is %d; expected 1 or more (or omit it for 1)", s.Trials)
	}
	v.clock()
	v.load()
	names := v.topology()
	v.classes(names)
	v.users()
	v.cachesUsed()
	v.faults(names)
	v.arms(names)
	v.objectives()
	v.alerts(names)
	v.horizon()
	v.rateLimits()
	v.actionsDeclared()
	v.cells(names)
	v.notes()
	v.jobs()
	if len(v.errs) == 0 {
		v.derived() // the arms' sets and the actions, on a scenario valid without them
	}
}

func (v *validator) clock() {
	c := v.s.Clock
	if c.Duration <= 0 {
		v.addf("$.clock.duration", "duration is %s; expected a positive length of the run, e.g. 40m", c.Duration)
	}
	if c.Tick < 0 {
		v.addf("$.clock.tick", "tick is %s; expected a positive period, e.g. 1s (or omit it for 1s)", c.Tick)
	} else if c.Duration > 0 && c.Tick > c.Duration {
		v.addf("$.clock.tick", "tick %s is longer than the run (%s); expected a shorter period, e.g. 1s", c.Tick, c.Duration)
	} else if c.Duration > 0 && c.Tick > 0 && time.Duration(c.Duration)/time.Duration(c.Tick) > 10_000_000 {
		v.addf("$.clock.tick", "tick %s makes more than 10,000,000 ticks in %s; expected a longer period", c.Tick, c.Duration)
	}
	if c.Drain < 0 {
		v.addf("$.clock.drain", "drain is %s; expected zero or more", c.Drain)
	}
	if c.Duration > 0 {
		v.end, v.tick = c.Duration.Std(), c.Tick.Std()
		if v.tick <= 0 || v.tick > v.end {
			v.tick = time.Second
		}
	}
}

// outside reports whether the offset t is not inside the run: at or after its end. It is
// false when the run's length is itself invalid (reported on its own).
func (v *validator) outside(t Duration) bool { return v.end > 0 && t.Std() >= v.end }

// minRate is the lowest positive rate that offers at least one arrival in the run, per
// hour, spelled so that it parses back to a rate that is not lower.
func (v *validator) minRate() string {
	x := float64(time.Hour) / float64(v.end)
	s := strconv.FormatFloat(x, 'g', 3, 64)
	if y, err := strconv.ParseFloat(s, 64); err != nil || y < x {
		s = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return s + "/h"
}

func (v *validator) load() {
	l := v.s.Load
	if l.Arrivals != "" && !oneOf(l.Arrivals, ArrivalsPoisson, ArrivalsUniform) {
		v.addf("$.load.arrivals", "unknown arrival process %q; expected poisson or uniform", l.Arrivals)
	}
	offers := len(l.Users) > 0 // something besides load.schedule offers load
	shared := false            // some class draws from load.schedule
	for _, c := range v.s.Classes {
		offers = offers || len(c.Schedule) > 0
		shared = shared || len(c.Schedule) == 0
	}
	switch {
	case len(l.Schedule) == 0 && !offers:
		v.addf("$.load.schedule", "schedule is empty; expected at least one step, e.g. [{at: 0s, rate: 9000/s}]")
	case len(l.Schedule) > 0 && !v.schedule("$.load.schedule", l.Schedule):
		v.addf("$.load.schedule", "every step has rate 0/s; expected some offered load")
	case len(l.Schedule) > 0 && len(v.s.Classes) > 0 && !shared:
		v.addf("$.load.schedule", "every class has a schedule of its own, so no class draws from this one; expected no load.schedule, or a class without a schedule")
	}
	if l.Keys.Count < 0 {
		v.addf("$.load.keys.count", "count is %d; expected a positive number of keys", l.Keys.Count)
	}
	if l.Keys.Zipf != 0 && !(l.Keys.Zipf > 1 && l.Keys.Zipf <= 100) {
		v.addf("$.load.keys.zipf", "zipf is %v; expected an exponent above 1 and at most 100 (or omit it for uniform popularity)", l.Keys.Zipf)
	}
}

// topoNames indexes the topology's names for cross-references.
type topoNames struct {
	entries  map[string]int
	services map[string]int
	deps     map[string]int
	caches   map[string]int
	features map[string]bool
}

func (v *validator) retries(p string, r Retries) {
	if r.Max < 0 {
		v.addf(p+".max", "max is %d; expected zero or more retries", r.Max)
	} else if r.Max > 10 {
		v.addf(p+".max", "max is %d; expected at most 10 retries per request", r.Max)
	}
	for i, on := range r.On {
		if !oneOf(on, RetryOnTimeout, RetryOnError, RetryOnOverload) {
			v.addf(fmt.Sprintf("%s.on[%d]", p, i), "unknown retry trigger %q; expected timeout, error or overload", on)
		}
	}
	v.backoff(p+".backoff", r.Backoff, false)
}

func (v *validator) topology() topoNames {
	t := v.s.Topology
	n := topoNames{entries: map[string]int{}, services: map[string]int{}, deps: map[string]int{}, caches: map[string]int{}, features: map[string]bool{}}
	layer := map[string]string{} // every name is an attempt layer or a dependency in reports
	unique := func(p, kind, name string) bool {
		if strings.TrimSpace(name) == "" {
			v.addf(p+".name", "name is empty; expected a name for the %s", kind)
			return false
		}
		if prev, ok := layer[name]; ok {
			v.addf(p+".name", "name %q is already used by %s; expected names unique across entries, services and dependencies", name, prev)
			return false
		}
		layer[name] = kind + " " + strconv.Quote(name)
		return true
	}
	if len(t.Services) == 0 {
		v.addf("$.topology.services", "no services; expected at least one service for the entries to route to")
	}
	for i, sv := range t.Services {
		p := fmt.Sprintf("$.topology.services[%d]", i)
		if unique(p, "service", sv.Name) {
			n.services[sv.Name] = i
		}
		if sv.Instances < 1 {
			v.addf(p+".instances", "instances is %d; expected at least 1", sv.Instances)
		} else if sv.Instances > 100_000 {
			v.addf(p+".instances", "instances is %d; expected at most 100000", sv.Instances)
		}
		if sv.Workers < 1 {
			v.addf(p+".workers", "workers is %d; expected at least 1 worker per instance", sv.Workers)
		} else if sv.Workers > 1_000_000 {
			v.addf(p+".workers", "workers is %d; expected at most 1000000", sv.Workers)
		}
		if sv.Queue.Capacity < 0 {
			v.addf(p+".queue.capacity", "capacity is %d; expected zero (unbounded) or more", sv.Queue.Capacity)
		}
		if sv.Router != "" && !oneOf(sv.Router, RouterRoundRobin, RouterRandom, RouterLeastLoaded) {
			v.addf(p+".router", "unknown router %q; expected round_robin, random or least_loaded", sv.Router)
		}
		if sv.Cold.Startup < 0 {
			v.addf(p+".cold.startup", "startup is %s; expected zero or more", sv.Cold.Startup)
		}
		if sv.Cold.RateFactor < 0 || sv.Cold.RateFactor > 1 {
			v.addf(p+".cold.rate_factor", "rate_factor is %s; expected a fraction of the warm rate above 0 and at most 100%%", sv.Cold.RateFactor)
		}
		if sv.Cold.For < 0 {
			v.addf(p+".cold.for", "for is %s; expected zero or more", sv.Cold.For)
		}
		v.memory(p+".memory", sv.Memory)
		v.gc(p+".memory.gc", sv.Memory)
		if sv.LoadFactor != nil {
			v.loadFactors(p+".load_factor", *sv.LoadFactor, false, true)
		}
		v.health(p+".health", sv.Health)
		v.autoscale(p+".autoscale", sv.Autoscale, sv.Instances)
	}
	for i, d := range t.Dependencies {
		p := fmt.Sprintf("$.topology.dependencies[%d]", i)
		if unique(p, "dependency", d.Name) {
			n.deps[d.Name] = i
		}
		if d.ServiceTime.IsZero() {
			v.addf(p+".service_time", "service_time is missing; expected {p50: …, p99: …}, e.g. {p50: 38ms, p99: 95ms}")
		} else {
			v.errs.Merge(p+".service_time", d.ServiceTime.Validate())
		}
		if d.Concurrency < 0 {
			v.addf(p+".concurrency", "concurrency is %d; expected zero (unlimited) or more", d.Concurrency)
		}
		if d.Pool.PerInstance < 0 {
			v.addf(p+".pool.per_instance", "per_instance is %d; expected zero (unbounded) or more", d.Pool.PerInstance)
		}
		if d.Pool.AcquireTimeout < 0 || (d.Pool.AcquireTimeout > 0 && d.Pool.PerInstance == 0) {
			v.addf(p+".pool.acquire_timeout", "acquire_timeout is %s; expected zero (wait without bound) or more, with a bounded pool (per_instance), e.g. {per_instance: 200, acquire_timeout: 100ms}", d.Pool.AcquireTimeout)
		}
		if d.Timeout < 0 {
			v.addf(p+".timeout", "timeout is %s; expected zero (none) or more", d.Timeout)
		}
		v.retries(p+".retries", d.Retries)
		v.dependencyLoad(p, d)
	}
	v.caches(n)
	if len(t.Entries) == 0 {
		v.addf("$.topology.entries", "no entries; expected at least one edge or client, e.g. {name: edge, target: checkout}")
	}
	for i, e := range t.Entries {
		p := fmt.Sprintf("$.topology.entries[%d]", i)
		if unique(p, "entry", e.Name) {
			n.entries[e.Name] = i
		}
		if _, ok := n.services[e.Target]; !ok {
			v.addf(p+".target", "target %q is not a service; expected one of %s", e.Target, quoteList(serviceNames(t)))
		}
		if e.Timeout < 0 {
			v.addf(p+".timeout", "timeout is %s; expected zero (none) or more", e.Timeout)
		}
		v.retries(p+".retries", e.Retries)
	}
	v.cellNames(&n)
	return n
}

// memory checks a service's memory: sizes of zero or more, and a per-attempt size only
// with a limit for the attempts to share.
func (v *validator) memory(p string, m Memory) {
	if m.Limit < 0 {
		v.addf(p+".limit", "limit is %s; expected zero (no limit) or more, e.g. 2GiB", m.Limit)
	}
	if m.PerAttempt < 0 {
		v.addf(p+".per_attempt", "per_attempt is %s; expected zero or more, e.g. 2MiB", m.PerAttempt)
	} else if m.PerAttempt > 0 && m.Limit == 0 {
		v.addf(p+".per_attempt", "per_attempt needs a limit; expected limit too, e.g. {limit: 2GiB, per_attempt: %s}", m.PerAttempt)
	}
}

// health checks a service's health check. The zero value is no health check; any other
// needs a positive interval, a positive timeout no longer than it and an action, remove or
// restart; failures and successes are counts of zero (the default) to 1000; successes
// belong to remove and restart to restart; no duration is negative.
func (v *validator) health(p string, h Health) {
	if h == (Health{}) {
		return
	}
	switch {
	case h.Interval == 0:
		v.addf(p+".interval", "health needs an interval, but interval is 0s; expected the time between two probes, e.g. 10s (or no health block for no health check)")
	case h.Interval < 0:
		v.addf(p+".interval", "interval is %s; expected a positive time between two probes, e.g. 10s", h.Interval)
	case h.Interval < Duration(time.Millisecond):
		v.addf(p+".interval", "interval is %s; expected at least 1ms between two probes, e.g. 10s", h.Interval)
	}
	switch {
	case h.Timeout <= 0:
		v.addf(p+".timeout", "timeout is %s; expected a positive time a probe waits for its answer, e.g. 1s", h.Timeout)
	case h.Interval > 0 && h.Timeout > h.Interval:
		v.addf(p+".timeout", "timeout %s is longer than the interval %s; expected at most the interval, e.g. 1s", h.Timeout, h.Interval)
	}
	if h.Failures < 0 {
		v.addf(p+".failures", "failures is %d; expected zero (3) or more probes in a row, e.g. 3", h.Failures)
	} else if h.Failures > 1000 {
		v.addf(p+".failures", "failures is %d; expected at most 1000 probes in a row, e.g. 3", h.Failures)
	}
	if h.Successes < 0 {
		v.addf(p+".successes", "successes is %d; expected zero (1) or more probes in a row, e.g. 2", h.Successes)
	} else if h.Successes > 1000 {
		v.addf(p+".successes", "successes is %d; expected at most 1000 probes in a row, e.g. 2", h.Successes)
	} else if h.Successes > 0 && h.Action == HealthRestart {
		v.addf(p+".successes", "successes is %d, but a restarted instance takes traffic once its process is ready; expected successes only with action: remove", h.Successes)
	}
	switch h.Action {
	case "":
		v.addf(p+".action", "action is empty; expected remove (stop routing to the instance) or restart (kill and restart its process), e.g. action: remove")
	case HealthRemove, HealthRestart:
	default:
		v.addf(p+".action", "unknown health action %q; expected remove or restart", h.Action)
	}
	switch {
	case h.Restart < 0:
		v.addf(p+".restart", "restart is %s; expected zero (the service's cold.startup) or more, e.g. 30s", h.Restart)
	case h.Restart > 0 && h.Action == HealthRemove:
		v.addf(p+".restart", "restart is %s, but action remove never kills the process; expected restart only with action: restart", h.Restart)
	}
	if h.Backoff != (Backoff{}) && h.Action == HealthRemove {
		v.addf(p+".backoff", "backoff is set, but action remove never restarts the process; expected backoff only with action: restart")
	} else {
		v.backoff(p+".backoff", h.Backoff, true)
	}
}

// caches checks the topology's caches and indexes their names; the services must be
// indexed already.
func (v *validator) caches(n topoNames) {
	t := v.s.Topology
	for i, c := range t.Caches {
		p := fmt.Sprintf("$.topology.caches[%d]", i)
		if strings.TrimSpace(c.Name) == "" {
			v.addf(p+".name", "name is empty; expected a name for the cache, e.g. profile-cache")
		} else if _, dup := n.caches[c.Name]; dup {
			v.addf(p+".name", "cache %q is declared twice; expected unique cache names", c.Name)
		} else {
			n.caches[c.Name] = i
		}
		si, ok := n.services[c.Service]
		if !ok {
			v.addf(p+".service", "service %q is not declared; expected one of %s", c.Service, quoteList(serviceNames(t)))
		}
		if c.Entries < 1 {
			v.addf(p+".entries", "entries is %d; expected at least 1 entry", c.Entries)
		} else if c.Entries > 100_000_000 {
			v.addf(p+".entries", "entries is %d; expected at most 100000000", c.Entries)
		}
		switch {
		case c.EntrySize < 0:
			v.addf(p+".entry_size", "entry_size is %s; expected zero or more, e.g. 16KiB", c.EntrySize)
		case c.EntrySize == 0 && ok && t.Services[si].Memory.Limit > 0:
			v.addf(p+".entry_size", "service %q has a memory limit, so entry_size must be set; expected the heap one entry takes, e.g. 16KiB", c.Service)
		}
	}
}

// cacheNames lists the names of the topology's caches, each once.
func cacheNames(t Topology) []string {
	var out []string
	for _, c := range t.Caches {
		if strings.TrimSpace(c.Name) != "" && !slices.Contains(out, c.Name) {
			out = append(out, c.Name)
		}
	}
	return out
}

func serviceNames(t Topology) []string {
	var out []string
	for _, s := range t.Services {
		out = append(out, s.Name)
	}
	return out
}

func dependencyNames(t Topology) []string {
	var out []string
	for _, d := range t.Dependencies {
		out = append(out, d.Name)
	}
	return out
}

func (v *validator) classes(n topoNames) {
	cs := v.s.Classes
	if len(cs) == 0 {
		v.addf("$.classes", "no classes; expected at least one request class with a share, a deadline and stages")
	}
	seen := map[string]bool{}
	var sum float64
	for i, c := range cs {
		p := fmt.Sprintf("$.classes[%d]", i)
		if strings.TrimSpace(c.Name) == "" {
			v.addf(p+".name", "name is empty; expected a class name, e.g. new_checkout")
		} else if seen[c.Name] {
			v.addf(p+".name", "class %q is declared twice; expected unique class names", c.Name)
		}
		seen[c.Name] = true
		if len(c.Schedule) > 0 {
			v.classSchedule(p, c)
		} else {
			sum += float64(c.Share)
		}
		if c.Deadline <= 0 {
			v.addf(p+".deadline", "deadline is %s; expected a positive end-to-end deadline, e.g. 1.8s", c.Deadline)
		}
		v.classHTTP(p+".http", c.HTTP)
		v.ordersFrom(p+".http.orders_from", c, cs)
		if c.Admission != "" && !oneOf(c.Admission, AdmissionContinuation, AdmissionLookup, AdmissionStandard, AdmissionSheddable) {
			v.addf(p+".admission", "unknown admission class %q; expected continuation, lookup, standard or sheddable", c.Admission)
		}
		target := ""
		if c.Entry != "" {
			if i, ok := n.entries[c.Entry]; !ok {
				v.addf(p+".entry", "entry %q is not declared; expected one of the topology's entries", c.Entry)
			} else {
				target = v.s.Topology.Entries[i].Target
			}
		} else if len(v.s.Topology.Entries) > 0 {
			target = v.s.Topology.Entries[0].Target
		}
		if len(c.Stages) == 0 {
			v.addf(p+".stages", "no stages; expected at least one stage (work on the service or a dependency call)")
		}
		stageNames := map[string]bool{}
		for j, st := range c.Stages {
			sp := fmt.Sprintf("%s.stages[%d]", p, j)
			if strings.TrimSpace(st.Name) == "" {
				v.addf(sp+".name", "name is empty; expected a stage name, e.g. inventory")
			} else if stageNames[st.Name] {
				v.addf(sp+".name", "stage %q appears twice in the class; expected unique stage names", st.Name)
			}
			stageNames[st.Name] = true
			hasWork := st.Work.Kind() != DistNone || st.Work != (Dist{})
			switch {
			case hasWork && st.Dependency != "":
				v.addf(sp, "sets both work and dependency; expected one: work on the service or a call to a dependency")
			case !hasWork && st.Dependency == "":
				v.addf(sp, "sets neither work nor dependency; expected one, e.g. {work: 4ms} or {dependency: payment-risk}")
			case hasWork:
				v.errs.Merge(sp+".work", st.Work.Validate())
			}
			if st.Dependency != "" {
				if _, ok := n.deps[st.Dependency]; !ok {
					v.addf(sp+".dependency", "dependency %q is not declared; expected one of %s", st.Dependency, quoteList(dependencyNames(v.s.Topology)))
				}
			}
			if st.Service != "" {
				if _, ok := n.services[st.Service]; !ok {
					v.addf(sp+".service", "service %q is not declared; expected one of %s", st.Service, quoteList(serviceNames(v.s.Topology)))
				} else if target != "" && st.Service != target {
					v.addf(sp+".service", "service %q is not the class's entry target %q; expected stages to run on the service the entry routes to", st.Service, target)
				}
			}
			if st.Fallback != "" {
				if !oneOf(st.Fallback, FallbackSkip, FallbackConservative) {
					v.addf(sp+".fallback", "unknown fallback %q; expected skip or conservative", st.Fallback)
				} else if !st.Optional {
					v.addf(sp+".fallback", "a required stage has no fallback; expected fallback only with optional: true")
				}
			}
			if st.Mutation != "" {
				switch {
				case !oneOf(st.Mutation, MutationPaymentAuthorization, MutationOrderCommit):
					v.addf(sp+".mutation", "unknown mutation %q; expected payment_authorization or order_commit", st.Mutation)
				case st.Dependency == "":
					v.addf(sp+".mutation", "a mutation is a dependency call's effect; expected dependency to be set")
				case st.Optional:
					v.addf(sp+".mutation", "a mutation cannot be optional; expected optional: false")
				}
			}
			if st.Cache != "" {
				v.stageCache(sp, st, target, n)
			}
			v.stageShed(sp, i, j, st)
			if st.Optional {
				f := st.Feature
				if f == "" {
					f = st.Name
				}
				n.features[f] = true
			} else if st.Feature != "" {
				v.addf(sp+".feature", "only optional stages have a shed feature; expected optional: true")
			}
		}
	}
	if len(cs) > 0 && len(v.s.Load.Schedule) > 0 && math.Abs(sum-1) > 1e-6 {
		v.addf("$.classes", "class shares sum to %s; expected them to sum to 100%%", numfmt.PlainPercent(sum))
	}
}

// cachesUsed reports what would do nothing: a cache no stage reads, and a memory declared
// for a service that holds no cache and collects no garbage (memory then decides only
// what caches keep).
func (v *validator) cachesUsed() {
	t := v.s.Topology
	for i, c := range t.Caches {
		if strings.TrimSpace(c.Name) != "" && !v.cacheRead[c.Name] {
			v.addf(fmt.Sprintf("$.topology.caches[%d].name", i), "cache %q is read by no stage; expected a stage with cache: %s (or no cache)", c.Name, c.Name)
		}
	}
	for i, sv := range t.Services {
		if sv.Memory == (Memory{}) || sv.Memory.GC.Overhead > 0 || slices.ContainsFunc(t.Caches, func(c Cache) bool { return c.Service == sv.Name }) {
			continue
		}
		v.addf(fmt.Sprintf("$.topology.services[%d].memory", i), "service %q holds no cache, and memory only decides what its caches keep beside the attempts; expected a cache of %q in topology.caches, a gc (or no memory)", sv.Name, sv.Name)
	}
}

// stageCache checks a stage that reads its dependency call through a cache: the cache
// must be declared and held by the service the stage runs on (the class's entry target),
// and the stage must call a dependency without a mutation.
func (v *validator) stageCache(sp string, st Stage, target string, n topoNames) {
	if v.cacheRead == nil {
		v.cacheRead = map[string]bool{}
	}
	v.cacheRead[st.Cache] = true
	ci, ok := n.caches[st.Cache]
	names := cacheNames(v.s.Topology)
	switch {
	case !ok && len(names) == 0:
		v.addf(sp+".cache", "cache %q is not declared; expected a cache declared in topology.caches", st.Cache)
	case !ok:
		v.addf(sp+".cache", "cache %q is not declared; expected one of %s", st.Cache, quoteList(names))
	case target != "" && v.s.Topology.Caches[ci].Service != target:
		v.addf(sp+".cache", "cache %q is held by service %q, not the class's entry target %q; expected a cache of the service the stage runs on", st.Cache, v.s.Topology.Caches[ci].Service, target)
	}
	switch {
	case st.Dependency == "":
		v.addf(sp+".cache", "a cache is read through on the way to a dependency; expected dependency to be set")
	case st.Mutation != "":
		v.addf(sp+".cache", "a mutation must reach its dependency on every call; expected no cache on a stage with a mutation")
	case v.cacheDeps[st.Cache] == "":
		if v.cacheDeps == nil {
			v.cacheDeps = map[string]string{}
		}
		v.cacheDeps[st.Cache] = st.Dependency
	case v.cacheDeps[st.Cache] != st.Dependency:
		v.addf(sp+".cache", "cache %q is already read through on the way to %q; expected one dependency behind a cache (its entries are that dependency's answers)", st.Cache, v.cacheDeps[st.Cache])
	}
}

func (v *validator) faults(n topoNames) {
	peak, shift := 0.0, 1.0 // the schedule's peak rate; the product of the shifts so far, which may overlap
	for _, st := range v.s.Load.Schedule {
		peak = max(peak, float64(st.Rate))
		if st.RampTo != nil {
			peak = max(peak, float64(*st.RampTo))
		}
	}
	for i, f := range v.s.Faults {
		p := fmt.Sprintf("$.faults[%d]", i)
		switch {
		case f.At < 0:
			v.addf(p+".at", "at is %s; expected zero or more", f.At)
		case v.outside(f.At):
			v.addf(p+".at", "fault at %s is at or after the end of the run (%s); expected a time inside the run", f.At, v.s.Clock.Duration)
		}
		switch {
		case f.For < 0:
			v.addf(p+".for", "for is %s; expected zero (until the end) or more", f.For)
		case f.For > 0 && f.At >= 0 && !v.outside(f.At) && v.end > 0 && f.For.Std() > v.end-f.At.Std():
			v.addf(p+".for", "the fault ends at %s, after the end of the run (%s); expected for at most %s (or no for: until the end)", Duration(floatdur.Trunc(float64(f.At)+float64(f.For))), v.s.Clock.Duration, Duration(v.end-f.At.Std()))
		}
		kinds := 0
		if f.Dependency != "" || f.ServiceTime != nil || f.ErrorRate != nil || f.HangRate != nil {
			kinds++
			if _, ok := n.deps[f.Dependency]; !ok {
				v.addf(p+".dependency", "dependency %q is not declared; expected one of %s", f.Dependency, quoteList(dependencyNames(v.s.Topology)))
			}
			if f.ServiceTime == nil && f.ErrorRate == nil && f.HangRate == nil {
				v.addf(p, "a dependency fault changes nothing; expected service_time, error_rate or hang_rate")
			}
			if f.ServiceTime != nil {
				v.errs.Merge(p+".service_time", f.ServiceTime.Validate())
			}
		}
		v.faultInstances(p, f, n, &kinds)
		if f.WorkFactor != 0 || f.Service != "" && f.Crash == nil && f.Stall == nil {
			kinds++
			if _, ok := n.services[f.Service]; !ok {
				v.addf(p+".service", "service %q is not declared; expected one of %s", f.Service, quoteList(serviceNames(v.s.Topology)))
			}
			if !(f.WorkFactor > 0) {
				v.addf(p+".work_factor", "work_factor is %s; expected a positive multiplier of the service's work, e.g. 300%%", f.WorkFactor)
			}
		}
		if f.Shift != nil {
			kinds++
			if !(f.Shift.Rate > 0) {
				v.addf(p+".shift.rate", "rate is %s; expected a positive multiplier of the offered rate, e.g. 115%%", f.Shift.Rate)
			} else if f.Shift.Rate > 1 {
				shift *= float64(f.Shift.Rate)
				if peak*shift > 10_000_000 {
					v.addf(p+".shift.rate", "rate %s takes the peak offered rate %s to %s (shifts that overlap multiply), more than 10,000,000/s; expected a rate one machine can replay", f.Shift.Rate, Rate(peak), Rate(peak*shift))
					shift = 1 // report the first shift that crosses the limit only
				}
			}
		}
		if f.Scale != nil {
			kinds++
			if _, ok := n.services[f.Scale.Service]; !ok {
				v.addf(p+".scale.service", "service %q is not declared; expected one of %s", f.Scale.Service, quoteList(serviceNames(v.s.Topology)))
			}
			if f.Scale.Add < 1 || f.Scale.Add > 100_000 {
				v.addf(p+".scale.add", "add is %d; expected 1 to 100000 instances", f.Scale.Add)
			}
			if f.For != 0 {
				v.addf(p+".for", "a scale fault is permanent; expected no for")
			}
		}
		switch {
		case kinds == 0:
			v.addf(p, "the fault changes nothing; expected one of dependency (with service_time, error_rate or hang_rate), service with work_factor, crash or stall, shift or scale")
		case kinds > 1:
			v.addf(p, "the fault mixes %d kinds; expected exactly one of dependency, service (work_factor, crash or stall), shift or scale per fault", kinds)
		}
	}
}

func (v *validator) arms(n topoNames) {
	if len(v.s.Arms) == 0 {
		v.addf("$.arms", "no arms; expected at least one policy arm, e.g. {name: baseline, policy: {}}")
	}
	seen := map[string]bool{}
	for i, a := range v.s.Arms {
		p := fmt.Sprintf("$.arms[%d]", i)
		if strings.TrimSpace(a.Name) == "" {
			v.addf(p+".name", "name is empty; expected an arm name, e.g. baseline")
		} else if seen[a.Name] {
			v.addf(p+".name", "arm %q is declared twice; expected unique arm names", a.Name)
		}
		seen[a.Name] = true
		v.policy(p+".policy", a.Policy, n)
	}
}

func (v *validator) policy(p string, pol Policy, n topoNames) {
	if pol.Deadline.Reserve < 0 {
		v.addf(p+".deadline.reserve", "reserve is %s; expected zero or more", pol.Deadline.Reserve)
	}
	switch pol.Retries.Mode {
	case "", RetryModeLayered:
		if pol.Retries.Budget != nil {
			v.addf(p+".retries.budget", "a budget needs mode: budget; expected mode: budget or no budget")
		}
	case RetryModeBudget:
		b := pol.Retries.Budget
		if b == nil {
			v.addf(p+".retries", "mode budget has no budget; expected budget: {ratio: 2%%}")
			break
		}
		if b.TTL < 0 {
			v.addf(p+".retries.budget.ttl", "ttl is %s; expected zero (10s) or more", b.TTL)
		}
	default:
		v.addf(p+".retries.mode", "unknown retry mode %q; expected layered or budget", pol.Retries.Mode)
	}
	if pol.DependencyTimeout != "" && !oneOf(pol.DependencyTimeout, TimeoutFixed, TimeoutDerived) {
		v.addf(p+".dependency_timeout", "unknown dependency timeout %q; expected fixed or derived", pol.DependencyTimeout)
	}
	switch c := pol.Deadline.Ceiling; {
	case c < 0 && c != CeilingNone:
		v.addf(p+".deadline.ceiling", "ceiling is %s; expected zero (the default, 30s) or more, or none", Duration(c))
	case c != 0 && pol.DependencyTimeout != TimeoutDerived:
		v.addf(p+".deadline.ceiling", "a ceiling caps derived timeouts only; expected dependency_timeout: derived, or no ceiling")
	}
	q := pol.Queue
	switch q.Kind {
	case "", QueueFIFO:
		if q.MaxAge != 0 || q.Target != 0 || q.Interval != 0 || q.AdaptiveLIFO {
			v.addf(p+".queue", "max_age, target, interval and adaptive_lifo need kind: age; expected kind: age or none of them")
		}
	case QueueAge:
		if q.MaxAge < 0 {
			v.addf(p+".queue.max_age", "max_age is %s; expected zero (none) or more", q.MaxAge)
		}
		if q.Target < 0 {
			v.addf(p+".queue.target", "target is %s; expected zero (no CoDel) or more", q.Target)
		}
		if q.Interval < 0 {
			v.addf(p+".queue.interval", "interval is %s; expected zero or more", q.Interval)
		}
		if q.AdaptiveLIFO && q.Target == 0 {
			v.addf(p+".queue.adaptive_lifo", "adaptive LIFO follows CoDel's congestion; expected a target, e.g. 5ms")
		}
	default:
		v.addf(p+".queue.kind", "unknown queue kind %q; expected fifo or age", q.Kind)
	}
	if a := pol.Admission; a != nil {
		if a.Target < 0 {
			v.addf(p+".admission.target", "target is %s; expected zero (20ms) or more", a.Target)
		}
		if float64(a.Reserve.Continuation)+float64(a.Reserve.Lookup) >= 1 {
			v.addf(p+".admission.reserve", "reservations sum to %s; expected less than 100%% so that standard work can be admitted", numfmt.PlainPercent(float64(a.Reserve.Continuation)+float64(a.Reserve.Lookup)))
		}
	}
	if sh := pol.Shed; sh != nil {
		if sh.Plan != "" && sh.Plan != ShedPlanDefault {
			v.addf(p+".shed.plan", "unknown shed plan %q; expected default", sh.Plan)
		}
		for i, f := range sh.Features {
			if !n.features[f] {
				v.addf(fmt.Sprintf("%s.shed.features[%d]", p, i), "feature %q is not an optional stage of any class; expected the name (or feature) of an optional stage", f)
			}
		}
	}
	if ls := pol.LoadState; ls != nil {
		v.loadState(p+".loadstate", ls)
		if ls.Trigger != "" {
			if _, ok := n.deps[ls.Trigger]; !ok {
				v.addf(p+".loadstate.trigger", "trigger %q is not a dependency; expected one of %s", ls.Trigger, quoteList(dependencyNames(v.s.Topology)))
			}
		}
	}
	if pol.Readiness != "" && !oneOf(pol.Readiness, ReadyProcess, ReadyWarm) {
		v.addf(p+".readiness", "unknown readiness gate %q; expected process or warm", pol.Readiness)
	}
	v.breakers(p+".breakers", pol.Breakers, n)
}

var loadStates = []string{"Normal", "Pressured", "Protected", "Recovering"}

func (v *validator) objectives() {
	classes := map[string]bool{}
	for _, c := range v.s.Classes {
		classes[c.Name] = true
	}
	for i, o := range v.s.Objectives {
		p := fmt.Sprintf("$.objectives[%d]", i)
		if strings.TrimSpace(o.Name) == "" {
			v.addf(p+".name", "name is empty; expected a name, e.g. goodput floor")
		}
		if !oneOf(o.Metric, objectiveMetrics...) {
			v.addf(p+".metric", "unknown metric %q; expected one of %s", o.Metric, strings.Join(objectiveMetrics, ", "))
		}
		switch {
		case o.Class != "" && !classes[o.Class]:
			v.addf(p+".class", "class %q is not declared; expected one of the scenario's classes", o.Class)
		case o.Class != "" && oneOf(o.Metric, objectiveMetrics...) && !isLatencyMetric(o.Metric):
			v.addf(p+".class", "%s is recorded for all classes together, so no arm can measure it for class %q; expected class only on latency_p50, latency_p99 or latency_p999 (or no class)", o.Metric, o.Class)
		}
		if o.Min == nil && o.Max == nil {
			v.addf(p, "the objective has no bound; expected min or max")
		}
		for _, b := range []struct {
			name string
			b    *Bound
		}{{"min", o.Min}, {"max", o.Max}} {
			if b.b != nil && !boundFits(o.Metric, b.b.Unit) {
				v.addf(p+"."+b.name, "%s %s does not fit metric %s; expected %s", b.name, b.b, o.Metric, boundHint(o.Metric))
			}
		}
		if o.Window != nil {
			v.window(p, o)
		}
		if o.State != "" && !oneOf(o.State, loadStates...) {
			v.addf(p+".state", "unknown load state %q; expected Normal, Pressured, Protected or Recovering", o.State)
		}
		switch {
		case o.After < 0:
			v.addf(p+".after", "after is %s; expected zero or more", o.After)
		case v.outside(o.After):
			v.addf(p+".after", "after %s is at or after the end of the run (%s); expected an instant inside the run", o.After, v.s.Clock.Duration)
		}
		if o.Stat != "" && !oneOf(o.Stat, "mean", "min") {
			v.addf(p+".stat", "unknown stat %q; expected mean or min", o.Stat)
		}
	}
}

// window checks an objective's window: from before to, both inside the run, holding at
// least one tick (a window is the ticks that start in it), and not on time_to_normal,
// which is measured from after.
func (v *validator) window(p string, o Objective) {
	w := o.Window
	switch {
	case w.From < 0 || w.To < 0:
		v.addf(p+".window", "window has a negative end; expected times from the start of the run")
		return
	case w.To != 0 && w.To <= w.From:
		v.addf(p+".window.to", "to %s is not after from %s; expected a non-empty window", w.To, w.From)
		return
	case o.Metric == MetricTimeToNormal:
		v.addf(p+".window", "time_to_normal is measured from after to the end of the run, not over a window; expected after (or no window)")
		return
	case v.outside(w.From):
		v.addf(p+".window.from", "from %s is at or after the end of the run (%s); expected a time inside the run", w.From, v.s.Clock.Duration)
		return
	case v.end > 0 && w.To.Std() > v.end:
		v.addf(p+".window.to", "to %s is after the end of the run (%s); expected at most %s (or no to: until the end)", w.To, v.s.Clock.Duration, v.s.Clock.Duration)
		return
	}
	if v.end == 0 {
		return
	}
	// The ticks start at k·tick for k < ceil(end/tick); the first in the window is at
	// ceil(from/tick)·tick.
	first := (w.From.Std() + v.tick - 1) / v.tick * v.tick
	if first >= v.end || (w.To != 0 && first >= w.To.Std()) {
		v.addf(p+".window", "the window [%s, %s) holds no tick (one starts every %s), so no arm can measure it; expected a window that holds at least one tick", w.From, cmp.Or(w.To, v.s.Clock.Duration), Duration(v.tick))
	}
}

// isLatencyMetric reports whether m is a completion-latency percentile, the only
// objective metric recorded per class.
func isLatencyMetric(m string) bool {
	return m == MetricLatencyP50 || m == MetricLatencyP99 || m == MetricLatencyP999
}

// boundFits reports whether a bound written in unit u suits metric m.
func boundFits(m string, u BoundUnit) bool {
	switch m {
	case MetricLatencyP50, MetricLatencyP99, MetricLatencyP999, MetricQueueAgeMax, MetricTimeToNormal:
		return u == UnitDuration
	case MetricGoodputRate:
		return u == UnitRate
	case MetricGoodputFraction, MetricRetryRatio:
		return u == UnitPercent || u == UnitNumber
	case MetricDuplicates, MetricAmplification:
		return u == UnitNumber
	}
	return true // an unknown metric is reported on its own
}

func boundHint(m string) string {
	switch m {
	case MetricLatencyP50, MetricLatencyP99, MetricLatencyP999, MetricQueueAgeMax:
		return "a duration, e.g. 1800ms"
	case MetricTimeToNormal:
		return "a duration, e.g. 12m"
	case MetricGoodputRate:
		return "a rate, e.g. 7800/s"
	case MetricGoodputFraction, MetricRetryRatio:
		return "a percentage or a ratio, e.g. 2%"
	}
	return "a number, e.g. 1.08"
}

// horizon refuses durations whose sums with the run's clock overflow a time.Duration
// (about 292 years): the run's end (duration plus drain, or the default drain derived
// from the deadlines and the entries' attempts, as the model derives it), and every delay
// that is added to a time during the run (deadlines, timeouts, backoffs, health and cold
// times, queue and budget times). It checks in float64, which cannot overflow.
func (v *validator) horizon() {
	if v.end <= 0 {
		return
	}
	s := v.s
	d := float64(v.end)
	errs := len(v.errs)
	drain := float64(s.Clock.Drain)
	if s.Clock.Drain > 0 {
		if !floatdur.InRange(d + drain) {
			v.addf("$.clock.drain", "duration %s plus drain %s is beyond the clock's range (about 292 years); expected a shorter drain", s.Clock.Duration, s.Clock.Drain)
			return
		}
	} else {
		// model/plan.go: twice the longest deadline plus every entry's attempts, at least 10s.
		longest := 0.0
		for i, c := range s.Classes {
			if c.Deadline > 0 && !floatdur.InRange(d+2*float64(c.Deadline)) {
				v.addf(fmt.Sprintf("$.classes[%d].deadline", i), "deadline %s makes the default drain (twice the longest deadline) beyond the clock's range (about 292 years); expected a shorter deadline, or a drain", c.Deadline)
			}
			longest = max(longest, float64(c.Deadline))
		}
		drain = 2 * longest
		for i, e := range s.Topology.Entries {
			if e.Timeout < 0 || e.Retries.Backoff.Initial < 0 || e.Retries.Max < 0 {
				continue
			}
			span := e.Retries.span(e.Retries.Max+1, e.Timeout)
			if !floatdur.InRange(d + span) {
				v.addf(fmt.Sprintf("$.topology.entries[%d].timeout", i), "%d attempts of timeout %s and backoff %s last beyond the clock's range (about 292 years); expected a shorter timeout", e.Retries.Max+1, e.Timeout, e.Retries.Backoff)
			}
			drain += span
		}
		drain = max(drain, float64(10*time.Second))
		if len(v.errs) > errs {
			return
		}
		if !floatdur.InRange(d + drain) {
			v.addf("$.clock", "the default drain (twice the longest deadline plus every entry's timeouts and backoffs) takes the run beyond the clock's range (about 292 years); expected shorter deadlines and timeouts, or a drain")
			return
		}
	}
	base := d + drain
	// A delay may be added to any time up to the end of the drain.
	delay := func(path, name string, x Duration) {
		if x > 0 && !floatdur.InRange(base+float64(x)) {
			v.addf(path, "%s %s reaches beyond the clock's range: the run lasts %s with its drain, and the clock ends at about 292 years; expected a shorter %s", name, x, Duration(floatdur.Trunc(base)), name)
		}
	}
	for i, c := range s.Classes {
		delay(fmt.Sprintf("$.classes[%d].deadline", i), "deadline", c.Deadline)
	}
	// A layer's attempts (timeouts and backoffs) may start as late as the end of the drain.
	attempts := func(p string, timeout Duration, r Retries) {
		if span := r.span(r.Max+1, timeout); !floatdur.InRange(base + span) {
			v.addf(p+".timeout", "%d attempts of timeout %s and backoff %s reach beyond the clock's range: the run lasts %s with its drain, and the clock ends at about 292 years; expected a shorter timeout", r.Max+1, timeout, r.Backoff, Duration(floatdur.Trunc(base)))
		}
	}
	for i, e := range s.Topology.Entries {
		attempts(fmt.Sprintf("$.topology.entries[%d]", i), e.Timeout, e.Retries)
	}
	for i, dp := range s.Topology.Dependencies {
		attempts(fmt.Sprintf("$.topology.dependencies[%d]", i), dp.Timeout, dp.Retries)
	}
	for i, sv := range s.Topology.Services {
		p := fmt.Sprintf("$.topology.services[%d]", i)
		delay(p+".cold.startup", "startup", sv.Cold.Startup)
		delay(p+".cold.for", "for", sv.Cold.For)
		h := sv.Health
		delay(p+".health.interval", "interval", h.Interval)
		delay(p+".health.timeout", "timeout", h.Timeout)
		delay(p+".health.restart", "restart", h.Restart)
		delay(p+".health.backoff.initial", "initial", h.Backoff.Initial)
		delay(p+".health.backoff.max", "max", h.Backoff.Max)
		delay(p+".health.backoff.reset", "reset", h.Backoff.Reset)
		if as := sv.Autoscale; as != nil {
			delay(p+".autoscale.cooldown", "cooldown", as.Cooldown)
			delay(p+".autoscale.delays.scheduled", "scheduled", as.Delays.Scheduled)
			delay(p+".autoscale.delays.process_ready", "process_ready", as.Delays.ProcessReady)
			delay(p+".autoscale.control_plane.slow_by", "slow_by", as.ControlPlane.SlowBy)
		}
	}
	for i, a := range s.Arms {
		p := fmt.Sprintf("$.arms[%d].policy", i)
		pol := a.Policy
		delay(p+".deadline.reserve", "reserve", pol.Deadline.Reserve)
		if b := pol.Retries.Budget; b != nil {
			delay(p+".retries.budget.ttl", "ttl", b.TTL)
		}
		delay(p+".queue.max_age", "max_age", pol.Queue.MaxAge)
		delay(p+".queue.target", "target", pol.Queue.Target)
		delay(p+".queue.interval", "interval", pol.Queue.Interval)
		if ad := pol.Admission; ad != nil {
			delay(p+".admission.target", "target", ad.Target)
		}
	}
}
