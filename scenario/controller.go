package scenario

import (
	"github.com/goodput-lab/goodput/internal/numfmt"

	"fmt"
	"strings"
	"time"

	"github.com/goodput-lab/goodput/control/loadstate"
)

// The load-state controller as a scenario declares it (an arm's policy.loadstate), and
// how an optional stage says when it is shed (shed_from). Nothing here depends on a name:
// the thresholds, holds, ramp and policies are the file's, or derived by the rules
// documented on each type.

// LoadStateGates declares a gate for each leading indicator the replay measures. A gate
// not declared is disabled (it never binds and never holds up an exit), except slack,
// which is derived from the tightest class deadline.
type LoadStateGates struct {
	// Amplification gates physical attempts per logical request (higher is worse), e.g.
	// {warn: 1.08, hard: 1.3, exit: 1.05}.
	Amplification FactorGate `yaml:"amplification,omitempty" json:"amplification,omitempty,omitzero"`
	// Slack gates the p10 of the remaining deadline when an attempt starts on a worker
	// (lower is worse); see [SlackGate] for what is derived when it is not declared.
	Slack SlackGate `yaml:"slack,omitempty" json:"slack,omitempty,omitzero"`
	// QueueAge gates the oldest queued work's age (higher is worse), e.g. {warn: 250ms,
	// hard: 1s, exit: 200ms}.
	QueueAge DurationGate `yaml:"queue_age,omitempty" json:"queue_age,omitempty,omitzero"`
	// DependencySaturation gates the trigger dependency's busy share of its connections
	// (higher is worse), e.g. {warn: 80%, hard: 95%, exit: 70%}.
	DependencySaturation FractionGate `yaml:"dependency_saturation,omitempty" json:"dependency_saturation,omitempty,omitzero"`
	// ReadyReserve gates the warm workers' idle share (lower is worse), e.g. {warn: 10%,
	// exit: 15%}: a warning only, with no hard gate.
	ReadyReserve FractionGate `yaml:"ready_reserve,omitempty" json:"ready_reserve,omitempty,omitzero"`
}

// FactorGate is a gate on a ratio that may exceed 1 (attempt amplification). Warn,
// sustained for the machine's sustain, moves Normal to Pressured; Hard moves any state to
// Protected at once; the machine de-escalates only while the signal is at or within Exit,
// strictly on the safe side of both. Zero disables Warn or Hard; Exit is needed when
// either is set.
type FactorGate struct {
	// Warn is the warning threshold; zero disables it.
	Warn Factor `yaml:"warn,omitempty" json:"warn,omitempty,omitzero"`
	// Hard is the hard gate; zero disables it.
	Hard Factor `yaml:"hard,omitempty" json:"hard,omitempty,omitzero"`
	// Exit is the all-clear level.
	Exit Factor `yaml:"exit,omitempty" json:"exit,omitempty,omitzero"`
}

// FractionGate is a gate on a share between 0 and 1 (dependency saturation, ready
// reserve), with the thresholds of [FactorGate].
type FractionGate struct {
	// Warn is the warning threshold; zero disables it.
	Warn Fraction `yaml:"warn,omitempty" json:"warn,omitempty,omitzero"`
	// Hard is the hard gate; zero disables it.
	Hard Fraction `yaml:"hard,omitempty" json:"hard,omitempty,omitzero"`
	// Exit is the all-clear level.
	Exit Fraction `yaml:"exit,omitempty" json:"exit,omitempty,omitzero"`
}

// DurationGate is a gate on a signal measured in time (queue age), with the thresholds of
// [FactorGate].
type DurationGate struct {
	// Warn is the warning threshold; zero disables it.
	Warn Duration `yaml:"warn,omitempty" json:"warn,omitempty,omitzero"`
	// Hard is the hard gate; zero disables it.
	Hard Duration `yaml:"hard,omitempty" json:"hard,omitempty,omitzero"`
	// Exit is the all-clear level.
	Exit Duration `yaml:"exit,omitempty" json:"exit,omitempty,omitzero"`
}

// SlackGate is the gate on the remaining deadline, where lower is worse (hard < warn <
// exit). A threshold not declared is derived from D, the tightest (shortest) class
// deadline: warn 2/3 of D, hard 1/3 of D, exit 7/9 of D (for a 1.8s deadline 1.2s, 600ms
// and 1.4s). Declare warn: 0s and hard: 0s to disable the gate; exit is then not derived.
type SlackGate struct {
	// Warn is the warning threshold; not declared: 2/3 of the tightest deadline.
	Warn *Duration `yaml:"warn,omitempty" json:"warn,omitempty,omitzero"`
	// Hard is the hard gate; not declared: 1/3 of the tightest deadline.
	Hard *Duration `yaml:"hard,omitempty" json:"hard,omitempty,omitzero"`
	// Exit is the all-clear level; not declared: 7/9 of the tightest deadline (0 when
	// warn and hard are both 0).
	Exit *Duration `yaml:"exit,omitempty" json:"exit,omitempty,omitzero"`
}

// LoadStateHolds are how long each state's exit condition must hold, without a break,
// before the machine leaves it for a less protected state: also the least time spent in
// it. Zero means the first sample that meets the condition suffices.
type LoadStateHolds struct {
	// Pressured: every gate at or within exit for this long → Normal.
	Pressured Duration `yaml:"pressured,omitempty" json:"pressured,omitempty,omitzero"`
	// Protected: the trigger healthy and every gate at or within exit for this long →
	// Recovering.
	Protected Duration `yaml:"protected,omitempty" json:"protected,omitempty,omitzero"`
	// Recovering: the least time in Recovering before Normal, besides the ramp; without a
	// ramp, also how long the gates must stay clear.
	Recovering Duration `yaml:"recovering,omitempty" json:"recovering,omitempty,omitzero"`
}

// RampStep is one step of the ramp back to Normal.
type RampStep struct {
	// Admission is the admission scale in force during the step, above 0 and at most 100%:
	// not below the previous step's (or Protected's admission_scale for the first) nor
	// above Normal's.
	Admission Fraction `yaml:"admission" json:"admission"`
	// Hold is how long every gate must stay at or within exit before the ramp moves on
	// (after the last step, to Normal). Zero means one clear sample.
	Hold Duration `yaml:"hold,omitempty" json:"hold,omitempty,omitzero"`
}

// StatePolicies declares what each load state imposes. A field not declared takes
// control/loadstate's DefaultPolicies value for that state: Normal retries 10%, admits
// 100%; Pressured retries 5%, prewarms and stops background work; Protected retries 1%,
// admits 50%, freezes failover, prewarms, stops background work; Recovering as Protected
// but admits 75% (with a ramp, its steps set admission instead).
type StatePolicies struct {
	// Normal is the policy in Normal.
	Normal StatePolicy `yaml:"normal,omitempty" json:"normal,omitempty,omitzero"`
	// Pressured is the policy in Pressured.
	Pressured StatePolicy `yaml:"pressured,omitempty" json:"pressured,omitempty,omitzero"`
	// Protected is the policy in Protected.
	Protected StatePolicy `yaml:"protected,omitempty" json:"protected,omitempty,omitzero"`
	// Recovering is the policy in Recovering.
	Recovering StatePolicy `yaml:"recovering,omitempty" json:"recovering,omitempty,omitzero"`
}

// StatePolicy is what one load state imposes on the other controls; each field not
// declared is derived (see [StatePolicies]). The stages shed in a state are their own
// shed_from's.
type StatePolicy struct {
	// RetryRatio is the retry budget's ratio in the state (retries per admitted request),
	// with retries in mode budget; 0% allows none.
	RetryRatio *Fraction `yaml:"retry_ratio,omitempty" json:"retry_ratio,omitempty,omitzero"`
	// AdmissionScale multiplies the admission limit, with admission declared; 0% admits no
	// new work. Normal's must be above 0; Recovering's is not declared with a ramp.
	AdmissionScale *Fraction `yaml:"admission_scale,omitempty" json:"admission_scale,omitempty,omitzero"`
	// FreezeFailover refuses the failover traffic a shift fault moves into the cell.
	FreezeFailover *bool `yaml:"freeze_failover,omitempty" json:"freeze_failover,omitempty,omitzero"`
	// Prewarm asks an autoscaler to warm requested capacity before it takes traffic
	// (carried to a live service's levers; the replay has no such autoscaler).
	Prewarm *bool `yaml:"prewarm,omitempty" json:"prewarm,omitempty,omitzero"`
	// StopBackground pauses background work (carried to a live service's levers; the
	// replay has no background work).
	StopBackground *bool `yaml:"stop_background,omitempty" json:"stop_background,omitempty,omitzero"`
}

// Values of a stage's shed_from.
const (
	ShedFromPressured = "pressured" // shed in Pressured, Recovering and Protected
	ShedFromProtected = "protected" // shed in Protected and Recovering (the default)
	ShedFromNever     = "never"     // never shed
)

// ShedStates returns the load states in which an optional stage whose shed_from is from
// is shed, least protective first; none for never (and for a value that is not a
// shed_from). Empty means protected.
func ShedStates(from string) []loadstate.State {
	switch from {
	case ShedFromPressured:
		return []loadstate.State{loadstate.Pressured, loadstate.Recovering, loadstate.Protected}
	case "", ShedFromProtected:
		return []loadstate.State{loadstate.Recovering, loadstate.Protected}
	}
	return nil
}

// ShedText is what the response carries while the optional stage st is shed, for the
// shed plan: its fallback_text, else a text made from its fallback and feature.
func ShedText(st Stage) string {
	if st.FallbackText != "" {
		return st.FallbackText
	}
	if st.Fallback != "" {
		return "the stage's fallback (" + st.Fallback + ")"
	}
	return "response without " + StageFeature(st)
}

// StageFeature is the name the shed plan knows stage st by: its feature, else its name.
func StageFeature(st Stage) string {
	if st.Feature != "" {
		return st.Feature
	}
	return st.Name
}

// TightestDeadline is the shortest class deadline of s, the one the derived slack gate is
// cut from; zero without a class.
func (s *Scenario) TightestDeadline() time.Duration {
	var d time.Duration
	for _, c := range s.Classes {
		if c.Deadline > 0 && (d == 0 || c.Deadline.Std() < d) {
			d = c.Deadline.Std()
		}
	}
	return d
}

// part is num/den of d, without overflow for any positive d.
func part(d time.Duration, num, den int64) time.Duration {
	return d/time.Duration(den)*time.Duration(num) + d%time.Duration(den)*time.Duration(num)/time.Duration(den)
}

// DerivedSlack is the slack gate derived from the tightest deadline d: warn 2/3, hard
// 1/3 and exit 7/9 of d.
func DerivedSlack(d time.Duration) loadstate.DurationGate {
	return loadstate.DurationGate{Warn: part(d, 2, 3), Hard: part(d, 1, 3), Exit: part(d, 7, 9)}
}

// Config returns the load-state machine ls declares for scenario s: the preset's, or the
// declared fields with the rest derived (see [LoadStatePolicy]). The result is not
// validated; the scenario's Validate reports what is wrong with it, at the field.
func (ls *LoadStatePolicy) Config(s *Scenario) (loadstate.Config, error) {
	if ls.Preset != "" {
		if ls.declaresMachine() {
			return loadstate.Config{}, fmt.Errorf("scenario: load-state preset %q cannot be combined with declared gates, sustain, holds, ramp or policies", ls.Preset)
		}
		return LoadStateConfig(ls.Preset)
	}
	g := ls.Gates
	c := loadstate.Config{
		Gates: loadstate.Gates{
			Amplification:        loadstate.Gate{Warn: float64(g.Amplification.Warn), Hard: float64(g.Amplification.Hard), Exit: float64(g.Amplification.Exit)},
			Slack:                ls.slack(s.TightestDeadline()),
			QueueAge:             loadstate.DurationGate{Warn: g.QueueAge.Warn.Std(), Hard: g.QueueAge.Hard.Std(), Exit: g.QueueAge.Exit.Std()},
			DependencySaturation: loadstate.Gate{Warn: float64(g.DependencySaturation.Warn), Hard: float64(g.DependencySaturation.Hard), Exit: float64(g.DependencySaturation.Exit)},
			ReadyReserve:         loadstate.Gate{Warn: float64(g.ReadyReserve.Warn), Hard: float64(g.ReadyReserve.Hard), Exit: float64(g.ReadyReserve.Exit)},
		},
		Sustain: ls.Sustain.Std(),
		Hold: loadstate.Holds{
			Pressured:  ls.Holds.Pressured.Std(),
			Protected:  ls.Holds.Protected.Std(),
			Recovering: ls.Holds.Recovering.Std(),
		},
	}
	for _, st := range ls.Ramp {
		c.Ramp = append(c.Ramp, loadstate.RampStep{Admission: float64(st.Admission), Hold: st.Hold.Std()})
	}
	def := loadstate.DefaultPolicies()
	if len(c.Ramp) > 0 {
		def.Recovering.AdmissionScale = 0 // the ramp's steps set it
	}
	c.Policies = loadstate.Policies{
		Normal:     ls.Policies.Normal.over(def.Normal),
		Pressured:  ls.Policies.Pressured.over(def.Pressured),
		Protected:  ls.Policies.Protected.over(def.Protected),
		Recovering: ls.Policies.Recovering.over(def.Recovering),
	}
	return c, nil
}

// declaresMachine reports whether ls declares any part of the machine (anything but a
// preset and a trigger).
func (ls *LoadStatePolicy) declaresMachine() bool {
	return ls.Gates != (LoadStateGates{}) || ls.Sustain != 0 || ls.Holds != (LoadStateHolds{}) || len(ls.Ramp) > 0 || ls.Policies != (StatePolicies{})
}

// slack is the slack gate ls declares, with what is not declared derived from the
// tightest deadline d.
func (ls *LoadStatePolicy) slack(d time.Duration) loadstate.DurationGate {
	der := DerivedSlack(d)
	sg := ls.Gates.Slack
	g := der
	if sg.Warn != nil {
		g.Warn = sg.Warn.Std()
	}
	if sg.Hard != nil {
		g.Hard = sg.Hard.Std()
	}
	switch {
	case sg.Exit != nil:
		g.Exit = sg.Exit.Std()
	case g.Warn == 0 && g.Hard == 0:
		g.Exit = 0 // a disabled gate has no exit
	}
	return g
}

// over is p's declared fields over the derived policy def.
func (p StatePolicy) over(def loadstate.Policy) loadstate.Policy {
	if p.RetryRatio != nil {
		def.RetryRatio = float64(*p.RetryRatio)
	}
	if p.AdmissionScale != nil {
		def.AdmissionScale = float64(*p.AdmissionScale)
	}
	if p.FreezeFailover != nil {
		def.FreezeFailover = *p.FreezeFailover
	}
	if p.Prewarm != nil {
		def.Prewarm = *p.Prewarm
	}
	if p.StopBackground != nil {
		def.StopBackground = *p.StopBackground
	}
	return def
}

// loadState checks an arm's load-state machine at path p: the preset alone or the
// fields, each gate's thresholds in order with hysteresis, durations not negative, the
// ramp's steps and the policies in range. A derived threshold that conflicts with a
// declared one is reported at the gate with the rule that derived it.
func (v *validator) loadState(p string, ls *LoadStatePolicy) {
	if ls.Preset != "" {
		if ls.Preset != LoadStateNorthstar {
			v.addf(p+".preset", "unknown load-state preset %q; expected northstar (deprecated: declare the machine's fields instead)", ls.Preset)
		} else if ls.declaresMachine() {
			v.addf(p+".preset", "preset %q stands for a whole machine and cannot be combined with gates, sustain, holds, ramp or policies; expected either the preset or the fields (examples/northstar/northstar.scenario.yaml writes the preset out)", ls.Preset)
		}
		return
	}
	cfg, err := ls.Config(v.s)
	if err != nil {
		v.addf(p, "%v", err)
		return
	}
	before := len(v.errs)
	v.gates(p+".gates", cfg.Gates, ls.Gates.Slack)
	for _, f := range []struct {
		path string
		d    Duration
	}{
		{".sustain", ls.Sustain},
		{".holds.pressured", ls.Holds.Pressured},
		{".holds.protected", ls.Holds.Protected},
		{".holds.recovering", ls.Holds.Recovering},
	} {
		if f.d < 0 {
			v.addf(p+f.path, "%s is %s; expected zero (no wait) or more", f.path[strings.LastIndexByte(f.path, '.')+1:], f.d)
		}
	}
	if cfg.Policies.Normal.AdmissionScale == 0 {
		v.addf(p+".policies.normal.admission_scale", "admission_scale is 0%%; Normal must admit work, expected a share above 0, usually 100%%")
	}
	if len(cfg.Ramp) > 0 && ls.Policies.Recovering.AdmissionScale != nil {
		v.addf(p+".policies.recovering.admission_scale", "admission_scale is unused: the ramp's steps set admission while Recovering; expected no admission_scale for recovering (or no ramp)")
	}
	prev, prevName := cfg.Policies.Protected.AdmissionScale, "the protected policy's admission_scale"
	for i, st := range cfg.Ramp {
		sp := fmt.Sprintf("%s.ramp[%d]", p, i)
		switch {
		case st.Admission == 0:
			v.addf(sp+".admission", "admission is 0%%; expected a share above 0 and at most 100%%")
		case st.Admission < prev:
			v.addf(sp+".admission", "admission %s is below %s %s; expected a ramp that does not tighten admission", formatShare(st.Admission), prevName, formatShare(prev))
		case st.Admission > cfg.Policies.Normal.AdmissionScale:
			v.addf(sp+".admission", "admission %s is above the normal policy's admission_scale %s; expected a ramp that ends at or below Normal's", formatShare(st.Admission), formatShare(cfg.Policies.Normal.AdmissionScale))
		}
		if st.Hold < 0 {
			v.addf(sp+".hold", "hold is %s; expected zero (one clear sample) or more", Duration(st.Hold))
		}
		prev, prevName = st.Admission, fmt.Sprintf("ramp[%d]'s", i)
	}
	if len(v.errs) == before {
		// What the checks above cannot have missed: the machine's own validation.
		if err := cfg.Validate(); err != nil {
			v.addf(p, "%v", err)
		}
	}
}

// How gate thresholds are shown in messages, by the gate's unit.
func formatFactor(x float64) string   { return numfmt.Plain(x) }
func formatDuration(x float64) string { return Duration(time.Duration(x)).String() }
func formatShare(x float64) string    { return numfmt.PlainPercent(x) }

// gateFields maps each gate of [loadstate.Gates] to its key under gates: and the way its
// thresholds are shown.
var gateFields = map[string]struct {
	key  string
	show func(float64) string
}{
	"Amplification":        {"amplification", formatFactor},
	"Slack":                {"slack", formatDuration},
	"QueueAge":             {"queue_age", formatDuration},
	"DependencySaturation": {"dependency_saturation", formatShare},
	"ReadyReserve":         {"ready_reserve", formatShare},
}

// gates reports, under path p, each fault control/loadstate finds in the derived gates g
// (the rules live there: thresholds finite and not negative, exit set when the gate is
// enabled and only then, exit < warn < hard where higher is worse, hard < warn < exit
// where lower is worse). An order fault of a slack gate with a threshold not declared
// (slack as written) says how the rest was derived.
func (v *validator) gates(p string, g loadstate.Gates, slack SlackGate) {
	for _, e := range g.Errors() {
		f, ok := gateFields[e.Gate]
		if !ok { // a gate this file does not know: the machine's own words
			v.addf(p, "%v", e)
			continue
		}
		gp, show := p+"."+f.key, f.show
		field, than := strings.ToLower(e.Field), strings.ToLower(e.Than)
		note := ""
		if e.Gate == "Slack" && (slack.Warn == nil || slack.Hard == nil || slack.Exit == nil) {
			note = fmt.Sprintf(" (what is not declared is derived from the tightest class deadline %s: warn 2/3, hard 1/3, exit 7/9 of it)", Duration(v.s.TightestDeadline()))
		}
		switch e.Rule {
		case loadstate.GateNotFinite:
			v.addf(gp+"."+field, "%s is %v; expected a finite threshold", field, e.Value)
		case loadstate.GateNegative:
			v.addf(gp+"."+field, "%s is %s; expected zero (disabled) or more", field, show(e.Value))
		case loadstate.GateAboveOne:
			v.addf(gp+"."+field, "%s is %s; expected a share from 0%% to 100%%", field, show(e.Value))
		case loadstate.GateExitWithoutEnter:
			v.addf(gp+".exit", "exit is %s but warn and hard are 0 (disabled); expected an enter threshold or no exit", show(e.Value))
		case loadstate.GateNoExit:
			v.addf(gp+".exit", "exit is not declared; expected an all-clear level on the safe side of warn and hard for an enabled gate")
		case loadstate.GateExitNotSafe:
			v.addf(gp, "exit %s is not strictly %s %s %s%s; expected hysteresis: exit on the safe side of %s", show(e.Value), e.Side(), than, show(e.ThanValue), note, than)
		case loadstate.GateHardNotBeyond:
			v.addf(gp, "hard %s is not strictly %s warn %s%s; expected the hard gate beyond the warning", show(e.Value), e.Side(), show(e.ThanValue), note)
		default:
			v.addf(gp, "%v", e)
		}
	}
}

// stageShed checks the shed_from and fallback_text of stage st (the stage-th of the
// class-th class) at path sp: only on optional stages, a known shed_from, and for the
// stages that share a feature one shed_from and no two fallback_texts (the first stage's
// text is the plan's).
func (v *validator) stageShed(sp string, class, stage int, st Stage) {
	if st.ShedFrom != "" {
		switch {
		case !st.Optional:
			v.addf(sp+".shed_from", "a required stage is never shed; expected shed_from only with optional: true")
		case !oneOf(st.ShedFrom, ShedFromPressured, ShedFromProtected, ShedFromNever):
			v.addf(sp+".shed_from", "unknown shed_from %q; expected pressured, protected or never", st.ShedFrom)
		}
	}
	if st.FallbackText != "" && !st.Optional {
		v.addf(sp+".fallback_text", "a required stage has no fallback; expected fallback_text only with optional: true")
	}
	if !st.Optional {
		return
	}
	f := StageFeature(st)
	for ci, c := range v.s.Classes[:class+1] {
		for si, o := range c.Stages {
			if ci == class && si == stage {
				return // the first stage of its feature, or agrees with those before
			}
			if !o.Optional || !strings.EqualFold(StageFeature(o), f) {
				continue
			}
			switch {
			case shedFrom(o) != shedFrom(st):
				v.addf(sp+".shed_from", "feature %q is shed from %s here but from %s in class %q, stage %q; expected one shed_from for a feature (stages that share it are shed together)", f, shedFrom(st), shedFrom(o), c.Name, o.Name)
				return
			case o.FallbackText != "" && st.FallbackText != "" && o.FallbackText != st.FallbackText:
				v.addf(sp+".fallback_text", "feature %q has fallback_text %q here but %q in class %q, stage %q; expected one fallback_text for a feature", f, st.FallbackText, o.FallbackText, c.Name, o.Name)
				return
			}
		}
	}
}

// shedFrom is st's shed_from, protected when not declared.
func shedFrom(st Stage) string {
	if st.ShedFrom == "" {
		return ShedFromProtected
	}
	return st.ShedFrom
}
