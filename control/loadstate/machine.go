package loadstate

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Signals are the leading indicators the machine is stepped with. A signal
// whose gate is disabled is ignored. A NaN value never breaches a gate and
// never counts as clear, so it holds the machine where it is.
type Signals struct {
	// Amplification is physical attempts per logical request, over all
	// layers (1 when nothing is retried).
	Amplification float64
	// Slack is the remaining deadline at admission, e.g. its p10. When no
	// request was admitted in the interval, pass the full deadline.
	Slack time.Duration
	// QueueAge is the age of the oldest useful queued work (0 when empty).
	QueueAge time.Duration
	// DependencySaturation is the busy fraction (0..1) of the constrained
	// dependency, e.g. connections in use over the pool size.
	DependencySaturation float64
	// ReadyReserve is warm spare capacity as a fraction of capacity.
	ReadyReserve float64
	// TriggerHealthy reports that the initiating dependency is healthy
	// again; Protected waits for it before Recovering, and Recovering
	// returns to Protected without it.
	TriggerHealthy bool
}

// Transition is one entry of the machine's log: a change of state, of ramp
// step, or a manual override, each a new policy generation.
type Transition struct {
	At         time.Time
	From, To   State
	Generation uint64
	// Stage is the ramp step in force after the transition, counted from 1,
	// while To is Recovering and the config has a Ramp; 0 otherwise.
	Stage int
	// Reason names the gate and the values that decided, e.g.
	// "queue_age 1.2s ≥ 1s", or carries the operator's words.
	Reason string
	// Manual marks an Override.
	Manual bool
}

// String formats the transition on one line, e.g.
// "14:04:30 Normal → Pressured gen 2: queue_age 300ms ≥ 250ms for 30s".
func (t Transition) String() string {
	var b strings.Builder
	b.WriteString(t.At.Format(time.TimeOnly))
	b.WriteByte(' ')
	b.WriteString(t.From.String())
	b.WriteString(" → ")
	b.WriteString(t.To.String())
	if t.Stage > 0 {
		b.WriteString(" stage ")
		b.WriteString(strconv.Itoa(t.Stage))
	}
	b.WriteString(" gen ")
	b.WriteString(strconv.FormatUint(t.Generation, 10))
	if t.Manual {
		b.WriteString(" (manual)")
	}
	b.WriteString(": ")
	b.WriteString(t.Reason)
	return b.String()
}

// Snapshot is the machine's current state and policy, read together.
type Snapshot struct {
	State      State
	Generation uint64
	// Stage is the ramp step (from 1) while Recovering with a Ramp, else 0.
	Stage int
	// Policy is the policy in force, with the ramp step's admission scale
	// while Recovering.
	Policy Policy
}

// signal indexes the gated signals, in the order reasons are looked for.
type signal uint8

const (
	sigAmplification signal = iota
	sigSlack
	sigQueueAge
	sigDependencySaturation
	sigReadyReserve
	numSignals
)

var signalNames = [numSignals]string{"amplification", "slack", "queue_age", "dependency_saturation", "ready_reserve"}

// gate is a Gate in comparable form: durations are nanoseconds.
type gate struct {
	warn, hard, exit float64
	warnOn, hardOn   bool
	lowerWorse       bool
	duration         bool
}

func newGate(warn, hard, exit float64, lowerWorse, duration bool) gate {
	return gate{warn: warn, hard: hard, exit: exit, warnOn: warn != 0, hardOn: hard != 0, lowerWorse: lowerWorse, duration: duration}
}

func (g *gate) enabled() bool { return g.warnOn || g.hardOn }

// worse reports whether v is at or beyond the threshold x.
func (g *gate) worse(v, x float64) bool {
	if g.lowerWorse {
		return v <= x
	}
	return v >= x
}

func (g *gate) warned(v float64) bool  { return g.warnOn && g.worse(v, g.warn) }
func (g *gate) hardHit(v float64) bool { return g.hardOn && g.worse(v, g.hard) }

// clear reports whether v is at or within Exit (true for a disabled gate).
func (g *gate) clear(v float64) bool {
	if !g.enabled() {
		return true
	}
	if g.lowerWorse {
		return v >= g.exit
	}
	return v <= g.exit
}

func (g *gate) format(v float64) string {
	if g.duration {
		return time.Duration(v).String()
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// breach formats "name value ≥ threshold".
func (g *gate) breach(i signal, v, x float64) string {
	op := " ≥ "
	if g.lowerWorse {
		op = " ≤ "
	}
	return signalNames[i] + " " + g.format(v) + op + g.format(x)
}

// Machine is the load-state machine: a pure, synchronous state machine in the
// manner of etcd raft's RawNode. It reads no clock, starts no goroutine and
// sets no timer; it changes only when [Machine.Step] or [Machine.Override] is
// called, with the current instant.
//
// Call [Machine.Step] once per control interval with the measured [Signals];
// it applies at most one transition and returns it. Per request, read
// [Machine.Policy] (or [Machine.Snapshot]) — a lock-free, allocation-free
// load — and stamp the decision with the generation. [Machine.Override] is
// the manual command; [Machine.Log] is the audit trail.
//
// The rules:
//   - any state → Protected as soon as a hard gate binds;
//   - Normal → Pressured when one warning gate stays breached for Sustain;
//   - Pressured → Normal when every gate stays at or within Exit for
//     Hold.Pressured;
//   - Protected → Recovering when the trigger is healthy and every gate stays
//     at or within Exit for Hold.Protected;
//   - Recovering → Protected at once on any warning or hard breach, or when
//     the trigger is unhealthy;
//   - Recovering advances one ramp step each time every gate has stayed at or
//     within Exit for the step's Hold, and returns to Normal after the last
//     step once Hold.Recovering has passed since it began.
//
// A signal between its Exit and Warn thresholds neither escalates nor
// de-escalates (hysteresis): it restarts the hold clock.
//
// Time must not run backwards: an instant earlier than one already seen is
// taken as the latest. A Machine is safe for concurrent use.
type Machine struct {
	mu       sync.Mutex
	cfg      Config
	gates    [numSignals]gate
	policies [4]Policy

	state   State
	gen     uint64
	stage   int // index into cfg.Ramp while Recovering
	entered time.Time
	last    time.Time

	warnOn    [numSignals]bool
	warnSince [numSignals]time.Time
	clearOn   bool
	clearFrom time.Time

	log []Transition

	cur atomic.Pointer[Snapshot]
}

// New returns a machine in Normal at generation 1, as of now.
func New(cfg Config, now time.Time) (*Machine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.Ramp = append([]RampStep(nil), cfg.Ramp...)
	g := &cfg.Gates
	m := &Machine{
		cfg: cfg,
		gates: [numSignals]gate{
			sigAmplification:        newGate(g.Amplification.Warn, g.Amplification.Hard, g.Amplification.Exit, false, false),
			sigSlack:                newGate(float64(g.Slack.Warn), float64(g.Slack.Hard), float64(g.Slack.Exit), true, true),
			sigQueueAge:             newGate(float64(g.QueueAge.Warn), float64(g.QueueAge.Hard), float64(g.QueueAge.Exit), false, true),
			sigDependencySaturation: newGate(g.DependencySaturation.Warn, g.DependencySaturation.Hard, g.DependencySaturation.Exit, false, false),
			sigReadyReserve:         newGate(g.ReadyReserve.Warn, g.ReadyReserve.Hard, g.ReadyReserve.Exit, true, false),
		},
		gen:     1,
		entered: now,
		last:    now,
	}
	cfg.Policies = cfg.policies()
	for s := Normal; s <= Recovering; s++ {
		m.policies[s] = *cfg.Policies.of(s)
	}
	m.publish()
	return m, nil
}

// Config returns a copy of the machine's configuration.
func (m *Machine) Config() Config {
	c := m.cfg
	c.Ramp = append([]RampStep(nil), c.Ramp...)
	return c
}

// Step feeds the signals measured at now to the machine and applies at most
// one transition, which it returns with true; it returns false when the
// state, ramp step and generation are unchanged. Step allocates only when it
// makes a transition.
func (m *Machine) Step(now time.Time, s Signals) (Transition, bool) {
	v := [numSignals]float64{
		sigAmplification:        s.Amplification,
		sigSlack:                float64(s.Slack),
		sigQueueAge:             float64(s.QueueAge),
		sigDependencySaturation: s.DependencySaturation,
		sigReadyReserve:         s.ReadyReserve,
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now = m.clamp(now)

	hard, warn := signal(numSignals), signal(numSignals)
	clear := true
	for i := range numSignals {
		g := &m.gates[i]
		if hard == numSignals && g.hardHit(v[i]) {
			hard = i
		}
		if warn == numSignals && g.warned(v[i]) {
			warn = i
		}
		if !g.clear(v[i]) {
			clear = false
		}
	}
	if hard != numSignals && m.state != Protected {
		g := &m.gates[hard]
		return m.transition(now, Protected, 0, g.breach(hard, v[hard], g.hard), false), true
	}

	switch m.state {
	case Normal:
		for i := range numSignals {
			if !m.gates[i].warned(v[i]) {
				m.warnOn[i] = false
				continue
			}
			if !m.warnOn[i] {
				m.warnOn[i], m.warnSince[i] = true, now
			}
			if held := now.Sub(m.warnSince[i]); held >= m.cfg.Sustain {
				g := &m.gates[i]
				return m.transition(now, Pressured, 0, g.breach(i, v[i], g.warn)+" for "+held.String(), false), true
			}
		}

	case Pressured:
		if held, ok := m.clearFor(now, clear); ok && held >= m.cfg.Hold.Pressured {
			return m.transition(now, Normal, 0, "all gates within exit for "+held.String(), false), true
		}

	case Protected:
		if held, ok := m.clearFor(now, clear && s.TriggerHealthy); ok && held >= m.cfg.Hold.Protected {
			return m.transition(now, Recovering, 0, "trigger healthy and all gates within exit for "+held.String(), false), true
		}

	case Recovering:
		if warn != numSignals {
			g := &m.gates[warn]
			return m.transition(now, Protected, 0, g.breach(warn, v[warn], g.warn)+" while recovering", false), true
		}
		if !s.TriggerHealthy {
			return m.transition(now, Protected, 0, "trigger unhealthy while recovering", false), true
		}
		held, ok := m.clearFor(now, clear)
		if !ok {
			break
		}
		stepHold, steps := m.cfg.Hold.Recovering, len(m.cfg.Ramp)
		if steps > 0 {
			stepHold = m.cfg.Ramp[m.stage].Hold
		}
		if held < stepHold {
			break
		}
		if m.stage+1 < steps {
			next := m.cfg.Ramp[m.stage+1]
			reason := fmt.Sprintf("ramp step %d/%d: admission %s after %v within exit",
				m.stage+2, steps, strconv.FormatFloat(next.Admission, 'g', 4, 64), held)
			return m.transition(now, Recovering, m.stage+1, reason, false), true
		}
		if in := now.Sub(m.entered); in >= m.cfg.Hold.Recovering {
			return m.transition(now, Normal, 0, fmt.Sprintf("ramp complete: %v within exit, %v in Recovering", held, in), false), true
		}
	}
	return Transition{}, false
}

// clearFor tracks how long the current state's exit condition has held
// without a break: it returns that duration and true while ok holds.
func (m *Machine) clearFor(now time.Time, ok bool) (time.Duration, bool) {
	if !ok {
		m.clearOn = false
		return 0, false
	}
	if !m.clearOn {
		m.clearOn, m.clearFrom = true, now
	}
	return now.Sub(m.clearFrom), true
}

// Override is the manual command: it moves the machine to state to at now,
// whatever the gates say, as a new generation marked Manual, with reason in
// the log. Overriding to the current state still starts a new generation
// (and restarts its holds; to Recovering, the ramp's first step). The rules
// continue from the new state: an override to Normal while a hard gate binds
// is followed by Protected at the next Step. Override panics if to is not
// one of the four states.
func (m *Machine) Override(now time.Time, to State, reason string) Transition {
	if to > Recovering {
		panic("loadstate: Override to " + to.String() + ", which is not a load state")
	}
	if reason == "" {
		reason = "manual override"
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.transition(m.clamp(now), to, 0, reason, true)
}

// State returns the current state.
func (m *Machine) State() State { return m.cur.Load().State }

// Generation returns the current policy generation: 1 at New, and one more
// for every transition, ramp step and override.
func (m *Machine) Generation() uint64 { return m.cur.Load().Generation }

// Policy returns the policy in force, including the current ramp step's
// admission scale while Recovering. It is a lock-free load that does not
// allocate: call it per request.
func (m *Machine) Policy() Policy { return m.cur.Load().Policy }

// Snapshot returns the state, generation, ramp step and policy in force,
// consistent with one another. Like Policy, it does not lock or allocate.
func (m *Machine) Snapshot() Snapshot { return *m.cur.Load() }

// Log returns a copy of every transition since New, oldest first. The log
// grows by one entry per transition, ramp step and override.
func (m *Machine) Log() []Transition {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Transition(nil), m.log...)
}

func (m *Machine) clamp(now time.Time) time.Time {
	if now.Before(m.last) {
		return m.last
	}
	m.last = now
	return now
}

// transition moves to state to (ramp index stage while Recovering), logs it
// and publishes the new snapshot.
func (m *Machine) transition(now time.Time, to State, stage int, reason string, manual bool) Transition {
	from := m.state
	if to != Recovering {
		stage = 0
	}
	if from != to || manual {
		m.entered = now
	}
	m.state, m.stage = to, stage
	m.gen++
	m.warnOn = [numSignals]bool{}
	m.clearOn = false
	if to == Recovering && !manual {
		// The gates were clear at now (that is how Recovering, or its next
		// ramp step, is reached): the new step's hold starts now.
		m.clearOn, m.clearFrom = true, now
	}
	t := Transition{At: now, From: from, To: to, Generation: m.gen, Stage: m.publish(), Reason: reason, Manual: manual}
	m.log = append(m.log, t)
	return t
}

// publish stores the snapshot of the current state and returns its stage.
func (m *Machine) publish() int {
	snap := &Snapshot{State: m.state, Generation: m.gen, Policy: m.policies[m.state]}
	if m.state == Recovering && len(m.cfg.Ramp) > 0 {
		snap.Stage = m.stage + 1
		snap.Policy.AdmissionScale = m.cfg.Ramp[m.stage].Admission
	}
	m.cur.Store(snap)
	return snap.Stage
}
