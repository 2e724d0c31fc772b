package readiness

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"
)

// ErrStage is returned when an instance is told it reached a stage it has
// already passed.
var ErrStage = errors.New("readiness: stage already reached")

// Stage is where an instance is on its way from being requested to carrying
// its full share of traffic. Stages only advance.
type Stage uint8

// The stages, in order.
const (
	// Requested: the autoscaler asked for the instance.
	Requested Stage = iota
	// Scheduled: the instance has a place to run (pod bound to a node).
	Scheduled
	// ProcessReady: the process is up and passes its readiness probe — the
	// point where many platforms start routing, and the point the Northstar
	// incident shows is too early.
	ProcessReady
	// RouteReady: the declared warm-up criteria (connections, cache warmth,
	// canary throughput) have held for Route.CanaryFor; the router may send
	// live traffic.
	RouteReady
	// Warm: the instance meets the fully warm criteria.
	Warm
)

// NumStages is the number of stages.
const NumStages = int(Warm) + 1

var stageNames = [NumStages]string{"Requested", "Scheduled", "ProcessReady", "RouteReady", "Warm"}

// String returns the stage's name, e.g. "RouteReady".
func (s Stage) String() string {
	if int(s) < NumStages {
		return stageNames[s]
	}
	return "Stage(" + strconv.Itoa(int(s)) + ")"
}

// Criteria declare what an instance must show, all at once and without a
// break for CanaryFor, to reach a stage. Zero fields ask for nothing, so the
// zero Criteria is met by the first observation.
type Criteria struct {
	// Connections is the number of established connections to the
	// instance's dependencies it must have at least.
	Connections int
	// CacheWarm is the cache warm fraction, in [0, 1], it must have at
	// least (for example its hit ratio, or the loaded fraction of the warm
	// working set; the caller's Observations must use the same measure).
	CacheWarm float64
	// CanaryRate is the throughput, in attempts/s at the incident's request
	// mix, it must sustain, for example 350.
	CanaryRate float64
	// CanaryFor is how long the criteria must hold without a break. Zero:
	// one observation suffices.
	CanaryFor time.Duration
}

func (c Criteria) met(o Observation) bool {
	return o.Connections >= c.Connections && o.CacheWarm >= c.CacheWarm && o.Throughput >= c.CanaryRate
}

func (c Criteria) validate(name string) error {
	switch {
	case c.Connections < 0:
		return fmt.Errorf("readiness: %s.Connections %d is negative; want ≥ 0", name, c.Connections)
	case !(c.CacheWarm >= 0 && c.CacheWarm <= 1):
		return fmt.Errorf("readiness: %s.CacheWarm %v is out of range; want a fraction in [0, 1]", name, c.CacheWarm)
	case !(c.CanaryRate >= 0) || math.IsInf(c.CanaryRate, 0):
		return fmt.Errorf("readiness: %s.CanaryRate %v is out of range; want attempts/s ≥ 0", name, c.CanaryRate)
	case c.CanaryFor < 0:
		return fmt.Errorf("readiness: %s.CanaryFor %v is negative; want a duration ≥ 0", name, c.CanaryFor)
	}
	return nil
}

// Observation is what an instance shows at one instant.
type Observation struct {
	// Connections established to its dependencies.
	Connections int
	// CacheWarm is its cache warm fraction, in the measure of
	// Criteria.CacheWarm.
	CacheWarm float64
	// Throughput is the attempts/s it completed over the last interval (a
	// canary at the incident mix, or live traffic).
	Throughput float64
}

// Config declares the readiness criteria of a service's instances. The zero
// Config is valid and asks for nothing: an instance is RouteReady and Warm at
// its first observation after ProcessReady (the platform's own readiness
// probe decides), and no nominal capacity is claimed. Declare Route (and
// Warm) to keep traffic off an instance until it shows warm connections,
// caches and a canary's throughput. The Northstar case study's criteria live
// with its scenario (package scenario, NorthstarReadiness).
type Config struct {
	// Route are the criteria for RouteReady.
	Route Criteria
	// Warm are the criteria for Warm; each field must be at least Route's.
	// The zero value makes an instance Warm as soon as it is RouteReady.
	Warm Criteria
	// Nominal is the throughput, in attempts/s, a warm instance is expected
	// to complete: what counting a requested instance as capacity claims.
	// Zero reports no nominal capacity.
	Nominal float64
}

// Validate reports whether c is usable: no negative or out-of-range field,
// and Warm criteria at least as strict as Route's.
func (c Config) Validate() error {
	if err := c.Route.validate("Route"); err != nil {
		return err
	}
	w := c.Warm
	if w != (Criteria{}) {
		if err := w.validate("Warm"); err != nil {
			return err
		}
		switch {
		case w.Connections < c.Route.Connections:
			return fmt.Errorf("readiness: Warm.Connections %d is below Route's %d; warm must be at least route-ready", w.Connections, c.Route.Connections)
		case w.CacheWarm < c.Route.CacheWarm:
			return fmt.Errorf("readiness: Warm.CacheWarm %v is below Route's %v; warm must be at least route-ready", w.CacheWarm, c.Route.CacheWarm)
		case w.CanaryRate < c.Route.CanaryRate:
			return fmt.Errorf("readiness: Warm.CanaryRate %v is below Route's %v; warm must be at least route-ready", w.CanaryRate, c.Route.CanaryRate)
		}
	}
	if !(c.Nominal >= 0) || math.IsInf(c.Nominal, 0) {
		return fmt.Errorf("readiness: Nominal %v is out of range; want attempts/s ≥ 0", c.Nominal)
	}
	return nil
}

// warm returns the Warm criteria in force: Route's when Warm is zero.
func (c *Config) warm() Criteria {
	if c.Warm == (Criteria{}) {
		return c.Route
	}
	return c.Warm
}

// window tracks how long a criterion has held without a break.
type window struct {
	on    bool
	since time.Time
}

func (w *window) update(now time.Time, ok bool) time.Duration {
	if !ok {
		w.on = false
		return -1
	}
	if !w.on {
		w.on, w.since = true, now
	}
	return now.Sub(w.since)
}

// Instance tracks one instance through its stages. It reads no clock: each
// method takes the instant of the event.
//
// Call [Instance.Scheduled] and [Instance.ProcessReady] when the platform
// reports them, then [Instance.Observe] at each measurement interval; the
// instance becomes RouteReady once the Route criteria have held for
// Route.CanaryFor, and Warm once the Warm criteria have held for
// Warm.CanaryFor. Stages only advance: an instance that later falls below
// its criteria stays at the stage it reached (model a restart as a new
// instance). Time must not run backwards: an earlier instant is taken as the
// latest seen. An Instance is safe for concurrent use.
type Instance struct {
	mu    sync.Mutex
	id    int
	cfg   Config
	warmC Criteria
	stage Stage
	at    [NumStages]time.Time
	last  time.Time
	obs   Observation
	route window
	warmW window
}

// NewInstance returns an instance requested at now.
func NewInstance(cfg Config, now time.Time) (*Instance, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return newInstance(0, cfg, now), nil
}

func newInstance(id int, cfg Config, now time.Time) *Instance {
	i := &Instance{id: id, cfg: cfg, warmC: cfg.warm(), last: now}
	i.at[Requested] = now
	return i
}

// ID returns the instance's number in its Fleet (from 1), or 0 for an
// instance made by NewInstance.
func (i *Instance) ID() int { return i.id }

func (i *Instance) clamp(now time.Time) time.Time {
	if now.Before(i.last) {
		return i.last
	}
	i.last = now
	return now
}

func (i *Instance) reach(now time.Time, s Stage) {
	for st := i.stage + 1; st <= s; st++ {
		i.at[st] = now
	}
	i.stage = s
}

// Scheduled records that the instance was scheduled at now. It returns
// ErrStage if the instance is already scheduled.
func (i *Instance) Scheduled(now time.Time) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	now = i.clamp(now)
	if i.stage >= Scheduled {
		return fmt.Errorf("%w: instance %d is %v, Scheduled at %v", ErrStage, i.id, i.stage, i.at[Scheduled].Format(time.TimeOnly))
	}
	i.reach(now, Scheduled)
	return nil
}

// ProcessReady records that the process passed its readiness probe at now
// (if it was never reported Scheduled, it is taken as scheduled at now too).
// It returns ErrStage if the instance is already process-ready.
func (i *Instance) ProcessReady(now time.Time) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	now = i.clamp(now)
	if i.stage >= ProcessReady {
		return fmt.Errorf("%w: instance %d is %v, ProcessReady at %v", ErrStage, i.id, i.stage, i.at[ProcessReady].Format(time.TimeOnly))
	}
	i.reach(now, ProcessReady)
	return nil
}

// Observe records what the instance shows at now and advances it to
// RouteReady and then Warm when their criteria have held long enough (both
// in one call if both have). It returns the stage after the observation and
// whether it changed. Observations before ProcessReady are ignored.
func (i *Instance) Observe(now time.Time, o Observation) (Stage, bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	now = i.clamp(now)
	if i.stage < ProcessReady {
		return i.stage, false
	}
	i.obs = o
	from := i.stage
	r := i.route.update(now, i.cfg.Route.met(o))
	w := i.warmW.update(now, i.warmC.met(o))
	if i.stage == ProcessReady && r >= i.cfg.Route.CanaryFor {
		i.reach(now, RouteReady)
	}
	if i.stage == RouteReady && w >= i.warmC.CanaryFor {
		i.reach(now, Warm)
	}
	return i.stage, i.stage != from
}

// Stage returns the stage the instance has reached.
func (i *Instance) Stage() Stage {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.stage
}

// Reached returns when the instance reached stage s, and false if it has not.
func (i *Instance) Reached(s Stage) (time.Time, bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if s > i.stage {
		return time.Time{}, false
	}
	return i.at[s], true
}

// Last returns the latest observation (the zero Observation before the
// first).
func (i *Instance) Last() Observation {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.obs
}

// Fleet tracks the instances of one service and summarises them by stage,
// so that an autoscaler reports requested, process-ready, route-ready and
// warm capacity apart instead of counting requested replicas as capacity.
// A Fleet is safe for concurrent use.
type Fleet struct {
	mu    sync.Mutex
	cfg   Config
	next  int
	insts []*Instance
}

// NewFleet returns an empty fleet whose instances follow cfg.
func NewFleet(cfg Config) (*Fleet, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Fleet{cfg: cfg}, nil
}

// Request adds an instance requested at now and returns it; drive it with
// its own methods.
func (f *Fleet) Request(now time.Time) *Instance {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next++
	i := newInstance(f.next, f.cfg, now)
	f.insts = append(f.insts, i)
	return i
}

// Remove takes inst out of the fleet (scaled in, failed, or replaced) and
// reports whether it was there.
func (f *Fleet) Remove(inst *Instance) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, i := range f.insts {
		if i == inst {
			f.insts = append(f.insts[:k], f.insts[k+1:]...)
			return true
		}
	}
	return false
}

// Summary counts a fleet's instances and capacity by stage.
type Summary struct {
	// Count is the number of instances whose current stage is exactly s.
	Count [NumStages]int
	// Nominal is Config.Nominal times the instances at stage s or beyond:
	// the capacity counting them as ready would claim.
	Nominal [NumStages]float64
	// Demonstrated is the sum of the latest observed throughput of the
	// instances at stage s or beyond: the capacity they have shown.
	Demonstrated [NumStages]float64
}

// AtLeast returns the number of instances at stage s or beyond.
func (s Summary) AtLeast(st Stage) int {
	n := 0
	for k := int(st); k < NumStages; k++ {
		n += s.Count[k]
	}
	return n
}

// String formats the summary on one line, e.g.
// "requested 20 (8400/s nominal) · process-ready 20 (3600/s shown) · route-ready 0 (0/s) · warm 0 (0/s)".
func (s Summary) String() string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	return fmt.Sprintf("requested %d (%s/s nominal) · scheduled %d · process-ready %d (%s/s shown) · route-ready %d (%s/s) · warm %d (%s/s)",
		s.AtLeast(Requested), f(s.Nominal[Requested]),
		s.AtLeast(Scheduled),
		s.AtLeast(ProcessReady), f(s.Demonstrated[ProcessReady]),
		s.AtLeast(RouteReady), f(s.Demonstrated[RouteReady]),
		s.AtLeast(Warm), f(s.Demonstrated[Warm]))
}

// Summary counts the fleet's instances and capacity by stage, in the order
// the instances were requested.
func (f *Fleet) Summary() Summary {
	f.mu.Lock()
	defer f.mu.Unlock()
	var s Summary
	for _, i := range f.insts {
		i.mu.Lock()
		st, thr := i.stage, i.obs.Throughput
		i.mu.Unlock()
		s.Count[st]++
		for k := Requested; k <= st; k++ {
			s.Nominal[k] += f.cfg.Nominal
			s.Demonstrated[k] += thr
		}
	}
	return s
}
