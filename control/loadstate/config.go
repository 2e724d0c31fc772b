package loadstate

import (
	"errors"
	"fmt"
	"time"
)

// Gate declares the thresholds of one ratio signal (attempt amplification,
// dependency saturation, ready reserve). Whether higher or lower values are
// worse depends on the signal (see [Gates]); the comparisons below are for a
// signal where higher is worse and flip for one where lower is worse.
//
// The zero Gate is disabled: it never binds and never holds up an exit.
type Gate struct {
	// Warn is the warning surface: a value at or beyond it, sustained for
	// Config.Sustain, moves Normal to Pressured, and while Recovering it
	// returns the machine to Protected at once. Zero disables the warning.
	Warn float64
	// Hard is the hard gate: a value at or beyond it moves any state to
	// Protected at once. Zero disables the hard gate.
	Hard float64
	// Exit is the all-clear level, strictly on the safe side of Warn and
	// Hard (hysteresis): the machine de-escalates only while every enabled
	// gate's signal is at or within its Exit. It must be set (> 0) when Warn
	// or Hard is, and zero when both are disabled.
	Exit float64
}

// DurationGate is a [Gate] for a signal measured in time (slack at
// admission, queue age). The zero DurationGate is disabled.
type DurationGate struct {
	Warn, Hard, Exit time.Duration
}

// Gates declares a gate for each leading indicator of [Signals].
type Gates struct {
	// Amplification gates attempts per logical request; higher is worse.
	Amplification Gate
	// Slack gates the remaining deadline at admission (e.g. its p10); lower
	// is worse, so Hard < Warn < Exit.
	Slack DurationGate
	// QueueAge gates the age of the oldest useful queued work; higher is
	// worse.
	QueueAge DurationGate
	// DependencySaturation gates the busy fraction (0..1) of the constrained
	// dependency, e.g. its connection pool; higher is worse.
	DependencySaturation Gate
	// ReadyReserve gates warm spare capacity as a fraction (0..1) of
	// capacity; lower is worse, so Hard < Warn < Exit.
	ReadyReserve Gate
}

// Holds declares, for each state that can de-escalate, how long its exit
// condition must hold without a break before the machine leaves it for a
// less protected state. A hold is therefore also the minimum time in the
// state. Escalation (to Pressured or Protected) never waits for a hold. Zero
// means no hold: the first sample that meets the exit condition suffices.
type Holds struct {
	// Pressured: every gate at or within Exit for this long → Normal.
	Pressured time.Duration
	// Protected: trigger healthy and every gate at or within Exit for this
	// long → Recovering.
	Protected time.Duration
	// Recovering: the minimum time in Recovering before Normal, in addition
	// to the ramp. Without a Ramp it is also how long the gates must stay
	// clear.
	Recovering time.Duration
}

// RampStep is one stage of the staged ramp back to Normal.
type RampStep struct {
	// Admission is the admission scale in force during the step, in (0, 1];
	// it replaces Policies.Recovering.AdmissionScale.
	Admission float64
	// Hold is how long every gate must stay at or within Exit, without a
	// break, before the ramp moves on to the next step (or, after the last,
	// to Normal). Zero means one clear sample.
	Hold time.Duration
}

// Policy is what a load state imposes on the other controls. Each field is
// read by the control that owns the lever.
type Policy struct {
	// RetryRatio is the retry budget as a fraction of first attempts, in
	// [0, 1] (control/budget): 0.02 allows 2 retries per 100 requests.
	// Zero allows no retries.
	RetryRatio float64
	// AdmissionScale multiplies the admission limit (control/admission
	// SetScale), in [0, 1]. Zero admits no new work (only reserved
	// continuations). While Recovering with a Ramp, the current ramp step's
	// Admission takes its place.
	AdmissionScale float64
	// Shed names the load state whose declared shed set applies
	// (control/shed), usually the state itself; a state may borrow another's
	// set. The zero value is Normal's set.
	Shed State
	// FreezeFailover refuses automatic regional failover into or out of the
	// cell unless the destination grants admission.
	FreezeFailover bool
	// Prewarm asks the autoscaler to warm already requested capacity
	// (connections, caches) before it takes traffic.
	Prewarm bool
	// StopBackground pauses shadow, replay and other background work.
	StopBackground bool
}

// Policies holds the policy of each load state.
type Policies struct {
	Normal, Pressured, Protected, Recovering Policy
}

func (p *Policies) of(s State) *Policy {
	switch s {
	case Pressured:
		return &p.Pressured
	case Protected:
		return &p.Protected
	case Recovering:
		return &p.Recovering
	default:
		return &p.Normal
	}
}

// Config declares a load-state machine: its gates, timing, ramp and the
// policy of each state. Zero gates are disabled and zero durations mean "no
// wait"; zero Policies mean [DefaultPolicies]. The zero Config is therefore
// valid: every gate is disabled, so the machine stays Normal (under
// DefaultPolicies' Normal) and changes state only by [Machine.Override].
// Declare the gates the service measures, with thresholds cut from its own
// deadline and capacity, to let the machine move by itself.
type Config struct {
	// Gates declares the leading-indicator gates. A disabled gate never
	// binds. With every gate disabled the machine stays Normal except by
	// Override.
	Gates Gates
	// Sustain is how long one warning gate must stay breached, without a
	// break, before Normal moves to Pressured. Zero: at the first sample.
	Sustain time.Duration
	// Hold declares the de-escalation holds.
	Hold Holds
	// Ramp declares the staged ramp back to Normal: Recovering begins at the
	// first step and moves one step at a time. Admission must not decrease
	// from step to step, must start at or above Protected's and end at or
	// below Normal's. Empty means no ramp: Recovering applies its own policy
	// and returns to Normal after Hold.Recovering.
	Ramp []RampStep
	// Policies declares what each state imposes.
	Policies Policies
}

// DefaultPolicies returns the policies a zero [Config.Policies] stands for,
// a generic ladder for a service that has not calibrated its own: Normal
// admits everything and allows 10 retries per 100 requests; Pressured halves
// the retries, prewarms and stops background work; Protected admits half the
// limit, allows 1 retry per 100, sheds its set and freezes failover;
// Recovering admits three quarters (unless a Ramp sets admission), with
// Protected's retries, shedding its own set. The figures are goodput's
// choices, not measurements: calibrate them for the service.
func DefaultPolicies() Policies {
	return Policies{
		Normal:    Policy{RetryRatio: 0.1, AdmissionScale: 1, Shed: Normal},
		Pressured: Policy{RetryRatio: 0.05, AdmissionScale: 1, Shed: Pressured, Prewarm: true, StopBackground: true},
		Protected: Policy{RetryRatio: 0.01, AdmissionScale: 0.5, Shed: Protected,
			FreezeFailover: true, Prewarm: true, StopBackground: true},
		Recovering: Policy{RetryRatio: 0.01, AdmissionScale: 0.75, Shed: Recovering,
			FreezeFailover: true, Prewarm: true, StopBackground: true},
	}
}

// policies returns c's policies: [DefaultPolicies] when they are all zero.
// With a Ramp, the default Recovering admission scale is left to the ramp.
func (c *Config) policies() Policies {
	if c.Policies != (Policies{}) {
		return c.Policies
	}
	p := DefaultPolicies()
	if len(c.Ramp) > 0 {
		p.Recovering.AdmissionScale = 0
	}
	return p
}

// Validate reports the first problem that makes c unusable: a negative or
// NaN threshold (a gate's fault is a [*GateError]), an exit threshold not strictly on the safe side of its
// enter thresholds, a hard gate not beyond its warning, a negative duration,
// a ramp that tightens admission, or a policy out of range.
func (c Config) Validate() error {
	if errs := c.Gates.Errors(); len(errs) > 0 {
		return errs[0]
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"Sustain", c.Sustain},
		{"Hold.Pressured", c.Hold.Pressured},
		{"Hold.Protected", c.Hold.Protected},
		{"Hold.Recovering", c.Hold.Recovering},
	} {
		if d.v < 0 {
			return fmt.Errorf("loadstate: %s %v is negative; want a duration ≥ 0", d.name, d.v)
		}
	}
	pols := c.policies()
	for s := Normal; s <= Recovering; s++ {
		p := pols.of(s)
		name := "Policies." + s.String()
		if !inUnit(p.RetryRatio) {
			return fmt.Errorf("loadstate: %s.RetryRatio %v is out of range; want a fraction in [0, 1]", name, p.RetryRatio)
		}
		if !inUnit(p.AdmissionScale) {
			return fmt.Errorf("loadstate: %s.AdmissionScale %v is out of range; want a fraction in [0, 1]", name, p.AdmissionScale)
		}
		if p.Shed > Recovering {
			return fmt.Errorf("loadstate: %s.Shed %v is not a load state", name, p.Shed)
		}
	}
	if pols.Normal.AdmissionScale == 0 {
		return errors.New("loadstate: Policies.Normal.AdmissionScale is 0; Normal must admit work (want a fraction in (0, 1], usually 1)")
	}
	if len(c.Ramp) > 0 && pols.Recovering.AdmissionScale != 0 {
		return fmt.Errorf("loadstate: Policies.Recovering.AdmissionScale %v is unused: the Ramp sets admission while Recovering; leave it 0", pols.Recovering.AdmissionScale)
	}
	prev := pols.Protected.AdmissionScale
	for i, st := range c.Ramp {
		switch {
		case !inUnit(st.Admission) || st.Admission == 0:
			return fmt.Errorf("loadstate: Ramp[%d].Admission %v is out of range; want a fraction in (0, 1]", i, st.Admission)
		case st.Hold < 0:
			return fmt.Errorf("loadstate: Ramp[%d].Hold %v is negative; want a duration ≥ 0", i, st.Hold)
		case i == 0 && st.Admission < prev:
			return fmt.Errorf("loadstate: Ramp[0].Admission %v is below Protected's %v; a ramp must not tighten admission", st.Admission, prev)
		case st.Admission < prev:
			return fmt.Errorf("loadstate: Ramp[%d].Admission %v is below Ramp[%d]'s %v; ramp steps must not decrease", i, st.Admission, i-1, prev)
		case st.Admission > pols.Normal.AdmissionScale:
			return fmt.Errorf("loadstate: Ramp[%d].Admission %v is above Normal's %v", i, st.Admission, pols.Normal.AdmissionScale)
		}
		prev = st.Admission
	}
	return nil
}

func inUnit(x float64) bool { return x >= 0 && x <= 1 } // false for NaN
