package loadstate

import (
	"fmt"
	"math"
	"time"
)

// GateRule names the rule a gate's thresholds break (see [GateError]).
type GateRule uint8

// The rules a gate's thresholds must keep, in the order [Config.Validate] checks them.
const (
	// GateNotFinite: a threshold is NaN or infinite.
	GateNotFinite GateRule = iota + 1
	// GateNegative: a threshold is below zero (zero disables Warn or Hard).
	GateNegative
	// GateAboveOne: a threshold of a share (dependency saturation, ready reserve) is above 1.
	GateAboveOne
	// GateExitWithoutEnter: Exit is set though Warn and Hard are both zero (disabled).
	GateExitWithoutEnter
	// GateNoExit: Warn or Hard is set and Exit is zero.
	GateNoExit
	// GateExitNotSafe: Exit is not strictly on the safe side of Than (Warn or Hard), so
	// the gate has no hysteresis.
	GateExitNotSafe
	// GateHardNotBeyond: Hard is not strictly beyond Warn.
	GateHardNotBeyond
)

// GateError is one gate's fault in a [Config]: which gate, which threshold, and the rule
// it breaks, with the values involved. [Config.Validate] returns the first as its error;
// [Gates.Errors] lists each gate's, so that a caller that declared the gates in a file of
// its own (a scenario) reports each at its field, in its own units, by the one rule.
type GateError struct {
	// Gate is the field of [Gates]: Amplification, Slack, QueueAge,
	// DependencySaturation or ReadyReserve.
	Gate string
	// Field is the threshold at fault: Warn, Hard or Exit.
	Field string
	// Rule is the rule broken.
	Rule GateRule
	// Value is Field's threshold (nanoseconds for a duration gate).
	Value float64
	// Than is the threshold Field is compared with by an order rule (GateExitNotSafe,
	// GateHardNotBeyond): Warn or Hard; empty for the others.
	Than string
	// ThanValue is Than's threshold.
	ThanValue float64
	// LowerWorse marks a signal that is worse when lower (Slack, ReadyReserve): its order
	// is Hard < Warn < Exit, where the others' is Exit < Warn < Hard.
	LowerWorse bool
	// Duration marks a gate whose thresholds are durations (Slack, QueueAge).
	Duration bool
}

// Side is the side of Than that Field must lie on, strictly, for an order rule: "below"
// or "above" (Exit below Warn where higher is worse, above it where lower is worse; Hard
// the other way); empty for the other rules.
func (e *GateError) Side() string {
	switch {
	case e.Rule != GateExitNotSafe && e.Rule != GateHardNotBeyond:
		return ""
	case (e.Rule == GateExitNotSafe) != e.LowerWorse:
		return "below"
	}
	return "above"
}

// Error says what is wrong in the package's terms, e.g. "loadstate:
// Gates.QueueAge.Exit 250ms must be strictly below Warn 250ms (hysteresis)".
func (e *GateError) Error() string {
	show := func(v float64) string {
		if e.Duration {
			return time.Duration(v).String()
		}
		return fmt.Sprint(v)
	}
	at := "loadstate: Gates." + e.Gate + "." + e.Field
	switch e.Rule {
	case GateNotFinite:
		return fmt.Sprintf("%s is %v; want a finite threshold", at, e.Value)
	case GateNegative:
		return fmt.Sprintf("%s %s is negative; want ≥ 0 (0 disables)", at, show(e.Value))
	case GateAboveOne:
		return fmt.Sprintf("%s %s is above 1; want a fraction in [0, 1]", at, show(e.Value))
	case GateExitWithoutEnter:
		return fmt.Sprintf("%s %s is set but Warn and Hard are 0 (disabled); set an enter threshold or clear Exit", at, show(e.Value))
	case GateNoExit:
		return fmt.Sprintf("%s is 0; an enabled gate needs an exit threshold on the safe side of its enter thresholds", at)
	case GateExitNotSafe:
		return fmt.Sprintf("%s %s must be strictly %s %s %s (hysteresis)", at, show(e.Value), e.Side(), e.Than, show(e.ThanValue))
	case GateHardNotBeyond:
		return fmt.Sprintf("%s %s must be strictly %s %s %s", at, show(e.Value), e.Side(), e.Than, show(e.ThanValue))
	}
	return at + ": invalid threshold"
}

// Errors lists each gate's faults, gate by gate in the order of [Gates]' fields: for a
// gate, every threshold that is not finite, negative or (for a share) above 1; failing
// those, the first order rule it breaks. Nil when every gate is valid.
func (g *Gates) Errors() []*GateError {
	var errs []*GateError
	errs = append(errs, checkGate("Amplification", g.Amplification.Warn, g.Amplification.Hard, g.Amplification.Exit, false, false, false)...)
	errs = append(errs, checkGate("Slack", float64(g.Slack.Warn), float64(g.Slack.Hard), float64(g.Slack.Exit), true, false, true)...)
	errs = append(errs, checkGate("QueueAge", float64(g.QueueAge.Warn), float64(g.QueueAge.Hard), float64(g.QueueAge.Exit), false, false, true)...)
	errs = append(errs, checkGate("DependencySaturation", g.DependencySaturation.Warn, g.DependencySaturation.Hard, g.DependencySaturation.Exit, false, true, false)...)
	errs = append(errs, checkGate("ReadyReserve", g.ReadyReserve.Warn, g.ReadyReserve.Hard, g.ReadyReserve.Exit, true, true, false)...)
	return errs
}

// checkGate validates one gate. For a signal where higher is worse the order is
// Exit < Warn < Hard; where lower is worse, Hard < Warn < Exit.
func checkGate(name string, warn, hard, exit float64, lowerWorse, unit, duration bool) []*GateError {
	fault := func(field string, rule GateRule, v float64) *GateError {
		return &GateError{Gate: name, Field: field, Rule: rule, Value: v, LowerWorse: lowerWorse, Duration: duration}
	}
	var errs []*GateError
	for _, f := range []struct {
		field string
		v     float64
	}{{"Warn", warn}, {"Hard", hard}, {"Exit", exit}} {
		switch {
		case math.IsNaN(f.v) || math.IsInf(f.v, 0):
			errs = append(errs, fault(f.field, GateNotFinite, f.v))
		case f.v < 0:
			errs = append(errs, fault(f.field, GateNegative, f.v))
		case unit && f.v > 1:
			errs = append(errs, fault(f.field, GateAboveOne, f.v))
		}
	}
	if errs != nil {
		return errs
	}
	if warn == 0 && hard == 0 {
		if exit != 0 {
			return []*GateError{fault("Exit", GateExitWithoutEnter, exit)}
		}
		return nil
	}
	if exit == 0 {
		return []*GateError{fault("Exit", GateNoExit, exit)}
	}
	beyond := func(a, b float64) bool { // a is strictly worse than b
		if lowerWorse {
			return a < b
		}
		return a > b
	}
	order := func(field string, rule GateRule, v float64, than string, tv float64) []*GateError {
		e := fault(field, rule, v)
		e.Than, e.ThanValue = than, tv
		return []*GateError{e}
	}
	switch {
	case warn != 0 && !beyond(warn, exit):
		return order("Exit", GateExitNotSafe, exit, "Warn", warn)
	case hard != 0 && !beyond(hard, exit):
		return order("Exit", GateExitNotSafe, exit, "Hard", hard)
	case warn != 0 && hard != 0 && !beyond(hard, warn):
		return order("Hard", GateHardNotBeyond, hard, "Warn", warn)
	}
	return nil
}
