package controlhttp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/levers"
	"github.com/goodput-lab/goodput/control/loadstate"
	"github.com/goodput-lab/goodput/control/shed"
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
// policy in force through a [levers.Applier], as the simulator does:
// [admission.Controller.SetScale] with its AdmissionScale,
// [budget.Budget.SetRatio] with its RetryRatio, and the shed set and
// failover freeze that [Stepper.Levers] returns. It applies the policy in
// force once when it starts, too, so Normal's policy holds from the first
// instant.
//
// Give the Stepper to [ServerConfig.Stepper] so that requests are served
// under the levers it applied (their shed set and [FailoverFrozen]),
// generation by generation with admission and retries.
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
	// Shed is the compiled shed plan the policy's shed set is looked up
	// in; give [ServerConfig.Shed] the same table. The zero Table sheds
	// nothing.
	Shed shed.Table
	// OnTransition, when not nil, is called with each new entry of the
	// machine's log (transitions, ramp steps and overrides, whoever made
	// them), once its policy is applied, e.g. to log it. It runs on Run's
	// goroutine.
	OnTransition func(loadstate.Transition)
	// Metrics, when not nil, gets the load state, the generation and a
	// count of transitions.
	Metrics *Metrics

	app levers.Applier
}

// Levers returns the levers Run applied last: the zero Levers (generation
// 0, Normal, nothing shed, failover not frozen) before Run starts. It is a
// lock-free load that does not allocate: call it per request.
func (s *Stepper) Levers() levers.Levers { return s.app.Levers() }

// FailoverFrozen reports whether the load-state policy the request whose
// context is ctx was admitted under freezes automatic failover, so that a
// handler refuses to fail over into or out of the cell (see
// [Info.FreezeFailover]). Outside a [Handler] it is false.
func FailoverFrozen(ctx context.Context) bool {
	st := stateFrom(ctx)
	return st != nil && st.info.FreezeFailover
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
	s.app.Machine, s.app.Shed = s.Machine, s.Shed
	s.app.Controls = levers.Controls{Admission: s.Admission, Budget: s.Budget}
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
	l, _, err := s.app.Sync(now)
	if err != nil {
		return 0, fmt.Errorf("controlhttp: %w", err)
	}
	s.Metrics.setLoadState(l.State, l.Generation)
	return l.Generation, nil
}
