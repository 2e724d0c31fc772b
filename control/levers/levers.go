package levers

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/loadstate"
	"github.com/goodput-lab/goodput/control/shed"
)

// Levers are the settings one policy generation imposes on the other
// controls. The zero Levers is generation 0 in Normal: no policy has been
// applied yet, nothing is shed and failover is not frozen.
type Levers struct {
	// State, Generation and Stage identify the policy generation (see
	// [loadstate.Snapshot]).
	State      loadstate.State
	Generation uint64
	Stage      int
	// RetryRatio is the retry budget's ratio ([budget.Budget.SetRatio]).
	RetryRatio float64
	// AdmissionScale multiplies the admission limit
	// ([admission.Controller.SetScale]); while Recovering with a ramp, the
	// ramp step's.
	AdmissionScale float64
	// Shed is the set of optional features shed, from the policy's Shed
	// state in the shed table.
	Shed shed.Set
	// FreezeFailover refuses automatic failover traffic into or out of the
	// cell.
	FreezeFailover bool
	// Prewarm asks the autoscaler to warm requested capacity.
	Prewarm bool
	// StopBackground pauses shadow, replay and other background work.
	StopBackground bool
}

// Of returns the levers of the policy generation in snap, with the shed set
// looked up in tbl (the zero Table sheds nothing). It is a pure function.
func Of(snap loadstate.Snapshot, tbl shed.Table) Levers {
	p := snap.Policy
	return Levers{
		State:          snap.State,
		Generation:     snap.Generation,
		Stage:          snap.Stage,
		RetryRatio:     p.RetryRatio,
		AdmissionScale: p.AdmissionScale,
		Shed:           tbl.Set(p.Shed),
		FreezeFailover: p.FreezeFailover,
		Prewarm:        p.Prewarm,
		StopBackground: p.StopBackground,
	}
}

// Controls are the controls whose levers a policy sets. A nil control is
// left alone.
type Controls struct {
	// Admission gets the admission scale.
	Admission *admission.Controller
	// Budget gets the retry ratio.
	Budget *budget.Budget
}

// Apply sets l on c as of now: the admission scale and the budget's ratio.
// The shed set, the failover freeze, prewarming and background work are
// read from l by whoever owns them (per request, from [Applier.Levers]).
func (l Levers) Apply(now time.Time, c Controls) error {
	if c.Admission != nil {
		c.Admission.SetScale(l.AdmissionScale)
	}
	if c.Budget != nil {
		if err := c.Budget.SetRatio(now, l.RetryRatio); err != nil {
			return fmt.Errorf("levers: applying generation %d: %w", l.Generation, err)
		}
	}
	return nil
}

// Applier applies each new policy generation of a load-state machine to
// its controls exactly once, the first when Sync is first called. Set the
// fields before the first Sync and do not change them afterwards. An
// Applier is safe for concurrent use.
type Applier struct {
	// Machine is the load-state machine whose policy is applied. Required.
	Machine *loadstate.Machine
	// Shed is the compiled shed plan the shed set is looked up in; the
	// zero Table sheds nothing.
	Shed shed.Table
	// Controls get the admission scale and the retry ratio.
	Controls Controls

	mu  sync.Mutex
	cur atomic.Pointer[Levers]
}

// Sync applies the machine's policy generation in force at now, unless it
// is the generation applied last, and returns the levers in force; applied
// reports whether it applied them now. Call it when the applier starts and
// after every Step (an Override made elsewhere is applied at the next Sync).
func (a *Applier) Sync(now time.Time) (l Levers, applied bool, err error) {
	if a.Machine == nil {
		return Levers{}, false, errors.New("levers: Applier.Machine is nil")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	snap := a.Machine.Snapshot()
	if cur := a.cur.Load(); cur != nil && cur.Generation == snap.Generation {
		return *cur, false, nil
	}
	l = Of(snap, a.Shed)
	if err := l.Apply(now, a.Controls); err != nil {
		return Levers{}, false, err
	}
	a.cur.Store(&l)
	return l, true, nil
}

// Levers returns the levers applied last: the zero Levers (generation 0,
// Normal, nothing shed) before the first Sync. It is a lock-free load that
// does not allocate: call it per request.
func (a *Applier) Levers() Levers {
	if l := a.cur.Load(); l != nil {
		return *l
	}
	return Levers{}
}
