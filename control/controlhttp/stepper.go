package controlhttp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/loadstate"
)

// DefaultInterval is the Stepper's control interval when Interval is zero.
const DefaultInterval = time.Second

// Stepper steps a load-state machine on the wall clock and applies the
// policy in force to the controls that own its levers: the machine itself
// reads no clock (see package loadstate), so a service runs one Stepper
// beside its server.
//
// Every Interval, Run samples Signals, calls [loadstate.Machine.Step] and,
// whenever the policy generation has changed since it last looked (a
// transition, a ramp step, or an Override made elsewhere), applies the
// policy in force: [admission.Controller.SetScale] with its AdmissionScale and
// [budget.Budget.SetRatio] with its RetryRatio. It applies the policy in
// force once when it starts, too.
//
// Set the fields before calling Run and do not change them while it runs.
type Stepper struct {
	// Machine is the load-state machine to step. Required.
	Machine *loadstate.Machine
	// Signals returns the leading indicators measured over the interval
	// that ends at now. Required. It runs on Run's goroutine.
	Signals func(now time.Time) loadstate.Signals
	// Interval is the control interval. Zero means DefaultInterval (1 s).
	Interval time.Duration
	// Admission, when not nil, gets the policy's admission scale.
	Admission *admission.Controller
	// Budget, when not nil, gets the policy's retry ratio.
	Budget *budget.Budget
	// OnTransition, when not nil, is called with each new entry of the
	// machine's log (transitions, ramp steps and overrides, whoever made
	// them), once its policy is applied, e.g. to log it. It runs on Run's
	// goroutine.
	OnTransition func(loadstate.Transition)
	// Metrics, when not nil, gets the load state, the generation and a
	// count of transitions.
	Metrics *Metrics
}

// Run steps the machine every Interval until ctx ends, then returns
// ctx's error (context.Canceled when it was cancelled). It returns at once
// with another error when a required field is missing or Interval is
// negative, or when applying a policy fails.
func (s *Stepper) Run(ctx context.Context) error {
	switch {
	case s.Machine == nil:
		return errors.New("controlhttp: Stepper.Machine is nil")
	case s.Signals == nil:
		return errors.New("controlhttp: Stepper.Signals is nil")
	case s.Interval < 0:
		return fmt.Errorf("controlhttp: Stepper.Interval %v is negative; want 0 (default %v) or more", s.Interval, DefaultInterval)
	}
	interval := s.Interval
	if interval == 0 {
		interval = DefaultInterval
	}
	applied, err := s.apply(time.Now())
	if err != nil {
		return err
	}
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case now := <-ticker.C:
			s.Machine.Step(now, s.Signals(now))
			if s.Machine.Generation() == applied {
				continue
			}
			last := applied
			if applied, err = s.apply(now); err != nil {
				return err
			}
			for _, tr := range s.Machine.Log() {
				if tr.Generation > last && tr.Generation <= applied {
					s.Metrics.countTransition(tr.To)
					if s.OnTransition != nil {
						s.OnTransition(tr)
					}
				}
			}
		}
	}
}

// apply applies the policy in force at now and returns its generation.
func (s *Stepper) apply(now time.Time) (uint64, error) {
	snap := s.Machine.Snapshot()
	s.Metrics.setLoadState(snap.State, snap.Generation)
	if s.Admission != nil {
		s.Admission.SetScale(snap.Policy.AdmissionScale)
	}
	if s.Budget != nil {
		if err := s.Budget.SetRatio(now, snap.Policy.RetryRatio); err != nil {
			return 0, fmt.Errorf("controlhttp: applying generation %d: %w", snap.Generation, err)
		}
	}
	return snap.Generation, nil
}
