package faultproxy

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/goodput-lab/goodput/scenario"
)

// Schedule is the fault over a run's time: a Base and the windows that change it. Call At
// with the time elapsed since the run's start; it reads no clock.
type Schedule struct {
	// Base is the fault outside every window (the dependency as the topology declares it).
	Base Fault
	// Windows change Base for a while, in the order the scenario lists them.
	Windows []Window
}

// Window is one fault of the scenario's timeline on the proxied dependency.
type Window struct {
	// At is when it begins, from the run's start.
	At time.Duration
	// For is how long it lasts; zero means until the end of the run.
	For time.Duration
	// Note describes it (the scenario fault's note).
	Note string
	// ServiceTime, if set, replaces the service time while the window lasts.
	ServiceTime *scenario.Quantiles
	// ErrorRate, if set, replaces the error rate while the window lasts.
	ErrorRate *scenario.Fraction
}

// active reports whether w is in force at elapsed: from At (included) to At+For (excluded).
func (w Window) active(elapsed time.Duration) bool {
	return elapsed >= w.At && (w.For <= 0 || elapsed < w.At+w.For)
}

// At is the fault in force at elapsed. As in the replay model, each field of the base is
// replaced by the window in force that started last (of two that start together, the one
// listed later) among those that set the field; fields no window sets keep the base's.
func (s Schedule) At(elapsed time.Duration) Fault {
	f := s.Base
	st, er := -1, -1
	for i, w := range s.Windows {
		if !w.active(elapsed) {
			continue
		}
		if w.ServiceTime != nil && (st < 0 || w.At >= s.Windows[st].At) {
			st = i
		}
		if w.ErrorRate != nil && (er < 0 || w.At >= s.Windows[er].At) {
			er = i
		}
	}
	if st >= 0 {
		f.ServiceTime = *s.Windows[st].ServiceTime
	}
	if er >= 0 {
		f.ErrorRate = *s.Windows[er].ErrorRate
	}
	return f
}

// Changes lists the instants, in order and once each, at which At may change: every
// window's start and end.
func (s Schedule) Changes() []time.Duration {
	var ts []time.Duration
	for _, w := range s.Windows {
		ts = append(ts, w.At)
		if w.For > 0 {
			ts = append(ts, w.At+w.For)
		}
	}
	slices.Sort(ts)
	return slices.Compact(ts)
}

// Validate reports whether s can be applied: a valid Base and windows with At >= 0,
// For >= 0 and valid service times and error rates.
func (s Schedule) Validate() error {
	if err := s.Base.Validate(); err != nil {
		return err
	}
	for i, w := range s.Windows {
		f := Fault{}
		if w.ServiceTime != nil {
			f.ServiceTime = *w.ServiceTime
			if f.ServiceTime.IsZero() {
				return fmt.Errorf("faultproxy: window %d: empty service time; expected p50 and p99", i)
			}
		}
		if w.ErrorRate != nil {
			f.ErrorRate = *w.ErrorRate
		}
		if w.At < 0 || w.For < 0 {
			return fmt.Errorf("faultproxy: window %d: at %v, for %v: expected durations of zero or more", i, w.At, w.For)
		}
		if err := f.Validate(); err != nil {
			return fmt.Errorf("faultproxy: window %d: %w", i, err)
		}
	}
	return nil
}

// FromScenario is the schedule of one dependency of a decoded scenario: the base is the
// dependency's service_time, error_rate and concurrency from topology.dependencies (beyond
// the ceiling calls wait, as in the model's dependency queue), and each fault on the
// dependency in faults: becomes a window. A fault that begins at or after the clock's
// duration is left out, as the model never starts it.
func FromScenario(sc *scenario.Scenario, dependency string) (Schedule, error) {
	var names []string
	for _, d := range sc.Topology.Dependencies {
		if d.Name != dependency {
			names = append(names, d.Name)
			continue
		}
		s := Schedule{Base: Fault{
			ServiceTime: d.ServiceTime,
			ErrorRate:   d.ErrorRate,
			Concurrency: d.Concurrency,
		}}
		for _, f := range sc.Faults {
			if f.Dependency != dependency || (f.ServiceTime == nil && f.ErrorRate == nil) {
				continue
			}
			if dur := sc.Clock.Duration.Std(); dur > 0 && f.At.Std() >= dur {
				continue
			}
			w := Window{At: f.At.Std(), For: f.For.Std(), Note: f.Note}
			if f.ServiceTime != nil {
				q := *f.ServiceTime
				w.ServiceTime = &q
			}
			if f.ErrorRate != nil {
				e := *f.ErrorRate
				w.ErrorRate = &e
			}
			s.Windows = append(s.Windows, w)
		}
		if err := s.Validate(); err != nil {
			return Schedule{}, fmt.Errorf("dependency %s: %w", dependency, err)
		}
		return s, nil
	}
	if len(names) == 0 {
		return Schedule{}, fmt.Errorf("faultproxy: scenario %q has no dependencies to proxy (topology.dependencies is empty)", sc.Name)
	}
	return Schedule{}, fmt.Errorf("faultproxy: scenario %q has no dependency %q; expected one of %s", sc.Name, dependency, strings.Join(names, ", "))
}
