package model

import (
	"time"

	"github.com/goodput-lab/goodput/control/queue"
	"github.com/goodput-lab/goodput/internal/draw"
	"github.com/goodput-lab/goodput/internal/floatdur"
	"github.com/goodput-lab/goodput/internal/latency"
	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/sim"
)

// Event kinds of an arm.
const (
	evArrival int32 = iota
	evRateChange
	evEntryTimeout // ID: attempt
	evEntryRetry   // ID: logical
	evWorkDone     // ID: attempt
	evCallRetry    // ID: attempt
	evDepDone      // ID: call
	evCallTimeout  // ID: call
	evDeadline     // ID: logical
	evTick
	evFaultStart // ID: fault index
	evFaultEnd   // ID: fault index
	evInstanceUp
	evInstanceWarm
	evTimerQueue   // ID: timer queue
	evReserve      // ID: logical; its derived call timeout
	evProbe        // ID: instance and its life
	evProbeTimeout // ID: instance and its probe number
	evKill         // ID: instance and its life
	evAction       // ID: index into the arm's action steps
	evBurst        // ID: burstID
	evUserSend     // ID: userID
	evUserAbandon  // ID: userID
	evScheduled    // ID: instance and its life (autoscale.go)
	evDepReject    // ID: call; its dependency's overload answer (hang.go)
	evNote         // ID: index into the plan's notes (note.go)
	evAcquire      // ID: call; its pool's acquire timeout (pool.go)
	evJob          // ID: jobEvent (job.go)
)

// tickStats are counters reset every tick: the controller's and the alerts' signals.
type tickStats struct {
	offered, attempts, edgeAttempts, edgeTimeouts, goodput int
	slack                                                  latency.Histogram // newSignalHist
}

// arm runs one policy arm on its own Sim. This file has its state, the dispatch of its
// events and the plumbing every mechanism uses (scheduling, the per-request draws, the
// recorder's handles); the mechanisms are in files of their own, in a request's order:
// arrival.go, entry.go, retry.go, route.go, worker.go, call.go, pool.go, cache.go and
// settle.go, with health.go, tick.go (the controller, alerts, faults and scaling) and
// timers.go beside them.
type arm struct {
	p    *plan
	keys []uint64 // draw.KeyOf(seed, purpose hash), by purp: the first round of every draw
	name string
	pol  *policyRT
	s    *sim.Sim
	rec  *packet.Recorder

	srcs    []sourceRT // the open-loop sources (arrival.go): load.schedule's, then the classes' own
	users   *usersRT   // the closed-loop users (users.go); nil without
	nextID  int64
	stopped bool
	shift   float64
	shifts  []int

	sl    slabs
	svcs  []svcRT
	insts []instance
	deps  []depRT

	ledgers [numMut]*ledger

	inFlight int // admitted logical requests whose caller has no answer yet
	tk       tickStats
	al       *alertRT // nil without alert rules
	dropFn   func(int64, queue.Reason)
	maxSlack time.Duration

	// Timer queues: one per entry (attempt timeouts), then one per dependency (call
	// timeouts), then one per class (deadlines).
	tqs                                []timerQueue
	tqEntry, tqDep, tqClass, tqReserve int

	hooks   *hooks
	armDone func(arm string, events uint64) // Options.ArmDone
	hs      handles                         // the recorder's, by index

	maxEvents uint64 // Options.MaxEvents: 0, or the most events the engine may deliver

	act     *actionRT          // actions and rate limits (action.go); nil without either
	binding *constraintSampler // the binding constraint's gauges (constraint.go), from the first tick
	ix      instanceFaults     // stall faults' instances (crash.go)
	scalers []autoscaler       // by service; nil without an autoscale rule (autoscale.go)
	cells   *cellsRT           // the cells and their failover (cell.go); nil without cells
	jobs    *jobsRT            // the jobs that run in the arm (job.go); nil without

	// Connections in use to the trigger dependency, and their integral over the tick.
	trigInUse int
	trigLast  time.Duration
	trigArea  float64
}

// handles are the Recorder's handles for the plan's names, by index, so that the hot path
// records without looking names up.
type handles struct {
	class               []packet.ClassRecorder
	entry, svc, depCall []packet.LayerRecorder
	dep                 []packet.DependencyRecorder
	cache               []packet.CacheRecorder
	health              []packet.HealthRecorder // by service; the zero handle for one without a check
}

func newHandles(r *packet.Recorder, p *plan) handles {
	var h handles
	for _, c := range p.classes {
		h.class = append(h.class, r.Class(c.name))
	}
	for _, e := range p.entries {
		h.entry = append(h.entry, r.Layer(e.name))
	}
	for _, s := range p.services {
		h.svc = append(h.svc, r.Layer(s.name))
	}
	for _, d := range p.deps {
		h.depCall = append(h.depCall, r.Layer(d.name))
		h.dep = append(h.dep, r.Dependency(d.name))
	}
	for _, c := range p.caches {
		h.cache = append(h.cache, r.Cache(c.name))
	}
	h.health = make([]packet.HealthRecorder, len(p.services))
	for i, s := range p.services {
		if s.health != nil {
			h.health[i] = r.Health(s.name)
		}
	}
	return h
}

func (a *arm) now() time.Duration { return a.s.Elapsed() }
func (a *arm) wall() time.Time    { return a.s.Now() }

// schedule delivers an event to the arm after d. Timers are never cancelled: a handler
// ignores an event whose object's generation or state has moved on, which is cheaper than
// the engine's cancellation for the many timeouts that never matter.
func (a *arm) schedule(d time.Duration, kind int32, id int64) {
	at := a.now() + d // a time in the past counts as now, as for Schedule
	if d > 0 && at < 0 {
		at = floatdur.Max // a saturated draw of a heavy tail: after the run, not now
	}
	a.s.ScheduleAt(at, a, kind, id)
}

// draw returns a uniform number in (0, 1) for one purpose of one logical request and one
// (attempt, stage, try). It depends on nothing else, so both arms draw the same number for
// the same thing however differently their runs have gone (common random numbers).
func (a *arm) draw(pu purp, lg int64, att, stage, try int32) float64 {
	return draw.Uniform(a.keys[pu], uint64(lg), uint64(uint32(att))|uint64(uint16(stage))<<32|uint64(uint16(try))<<48)
}

// Handle dispatches the arm's events, from the engine or (with a nil Sim) from a timer
// queue.
func (a *arm) Handle(_ *sim.Sim, e sim.Event) {
	id := e.ID
	switch e.Kind {
	case evArrival:
		a.arrivalFrom(int(id))
	case evRateChange:
		a.rateChange(id)
	case evEntryTimeout:
		a.entryTimeout(id)
	case evEntryRetry:
		a.entryRetryFire(id)
	case evWorkDone:
		a.workDone(id)
	case evCallRetry:
		a.callRetryFire(id)
	case evDepDone:
		a.depDone(id)
	case evCallTimeout:
		a.callTimeout(id)
	case evDeadline:
		a.deadlineFire(id)
	case evTick:
		a.tick()
	case evFaultStart:
		a.faultStart(int(id))
	case evFaultEnd:
		a.faultEnd(int(id))
	case evInstanceUp:
		a.instanceUp(id)
	case evInstanceWarm:
		a.instanceWarm(id)
	case evTimerQueue:
		a.fireQueue(int(id))
	case evReserve:
		a.reserveFire(id)
	case evProbe:
		a.probeFire(id)
	case evProbeTimeout:
		a.probeTimeout(id)
	case evKill:
		a.kill(id)
	case evAction:
		a.action(int(id))
	case evNote:
		a.note(int(id))
	case evBurst:
		a.burst(id)
	case evUserSend:
		a.userSend(id)
	case evUserAbandon:
		a.userAbandon(id)
	case evScheduled:
		a.instanceScheduled(id)
	case evDepReject:
		a.depRejected(id)
	case evAcquire:
		a.acquireTimeout(id)
	case evJob:
		a.jobFire(id)
	}
}
