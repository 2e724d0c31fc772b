package model

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/controlhttp"
	"github.com/goodput-lab/goodput/control/loadstate"
	"github.com/goodput-lab/goodput/control/shed"
	"github.com/goodput-lab/goodput/scenario"
)

// leverView is what a policy generation set on the controls, as seen from outside them.
type leverView struct {
	Generation uint64
	State      loadstate.State
	RetryRatio float64
	Scale      float64
	Shed       shed.Set
	Freeze     bool
}

// TestLeversMatchStepper drives the simulator's policy (newPolicy, then Step and sync as
// a tick does) and a service's controlhttp.Stepper with the same machine config and the
// same scripted signals and overrides, one control interval apart, and checks that both
// apply identical levers at every step, including t=0: the arm's declared 10% budget
// ratio gives way to Normal's from the first instant, as a Stepper applies it when it
// starts.
func TestLeversMatchStepper(t *testing.T) {
	sc := decode(t, small)
	p, err := compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	pol := sc.Arms[1].Policy // protected: budget 10%, admission, shed, northstar load state
	if pol.LoadState == nil || pol.Retries.Budget.Ratio != 0.1 {
		t.Fatalf("the small scenario's protected arm is not the one this test expects: %+v", pol)
	}
	calm := loadstate.Signals{Amplification: 1, Slack: 1500 * time.Millisecond, DependencySaturation: 0.5, ReadyReserve: 0.5, TriggerHealthy: true}
	hot := calm
	hot.QueueAge = 1200 * time.Millisecond // past the 1 s hard gate
	warm := calm
	warm.DependencySaturation = 0.85 // past the 0.8 warning, below the hard gate
	sick := calm
	sick.TriggerHealthy = false
	type row struct {
		from     int // second from the start
		sig      loadstate.Signals
		override *loadstate.State
	}
	st := func(s loadstate.State) *loadstate.State { return &s }
	tests := []struct {
		name   string
		script []row
		steps  int
	}{
		{"calm", []row{{1, calm, nil}}, 5},
		{"warning sustained, then clear", []row{{1, warm, nil}, {40, calm, nil}}, 120},
		{"hard gate, ramp back to Normal", []row{{1, hot, nil}, {5, sick, nil}, {20, calm, nil}}, 1000},
		{"overrides between transitions", []row{{1, calm, nil}, {3, calm, st(loadstate.Protected)}, {6, calm, st(loadstate.Pressured)},
			{9, hot, nil}, {12, calm, st(loadstate.Normal)}, {15, calm, st(loadstate.Recovering)}}, 30},
	}
	at := func(script []row, k int) (loadstate.Signals, *loadstate.State) {
		r := script[0]
		for _, x := range script {
			if x.from <= k {
				r = x
			}
		}
		if r.from != k {
			return r.sig, nil
		}
		return r.sig, r.override
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				// The simulator's side, built as an arm is.
				rt, err := newPolicy(p, sc, pol, start)
				if err != nil {
					t.Fatal(err)
				}
				model := func() leverView {
					return leverView{rt.machine.Generation(), rt.machine.State(), rt.budget.Ratio(), rt.adm.Stats().Scale, rt.shedSet, rt.freezeFailover}
				}
				// The service's side.
				cfg, err := scenario.LoadStateConfig(pol.LoadState.Preset)
				if err != nil {
					t.Fatal(err)
				}
				m, err := loadstate.New(cfg, start)
				if err != nil {
					t.Fatal(err)
				}
				bud, err := budget.New(budget.Config{Ratio: float64(pol.Retries.Budget.Ratio), TTL: 10 * time.Second})
				if err != nil {
					t.Fatal(err)
				}
				adm, err := admission.New(admission.Config{Max: 100})
				if err != nil {
					t.Fatal(err)
				}
				s := &controlhttp.Stepper{
					Machine: m,
					Signals: func(now time.Time) loadstate.Signals {
						sig, ov := at(tt.script, int(now.Sub(start)/time.Second))
						if ov != nil {
							m.Override(now, *ov, "script")
						}
						return sig
					},
					Interval:  time.Second,
					Admission: adm,
					Budget:    bud,
					Shed:      rt.shedTable,
				}
				service := func() leverView {
					l := s.Levers()
					return leverView{l.Generation, l.State, bud.Ratio(), adm.Stats().Scale, l.Shed, l.FreezeFailover}
				}
				ctx, cancel := context.WithCancel(t.Context())
				done := make(chan error, 1)
				go func() { done <- s.Run(ctx) }()

				synctest.Wait()
				states := map[loadstate.State]bool{}
				for k := 0; k <= tt.steps; k++ {
					if k > 0 {
						time.Sleep(time.Second)
						synctest.Wait()
						now := time.Now()
						sig, ov := at(tt.script, k)
						if ov != nil {
							rt.machine.Override(now, *ov, "script")
						}
						rt.machine.Step(now, sig)
						if err := rt.sync(now); err != nil {
							t.Fatal(err)
						}
					}
					got, want := model(), service()
					if got != want {
						t.Fatalf("t=%ds: the model applies %+v, the Stepper %+v", k, got, want)
					}
					states[got.State] = true
				}
				if len(tt.script) > 1 && len(states) < 2 {
					t.Errorf("the script stayed in %v; it is meant to move the machine", states)
				}
				cancel()
				if err := <-done; !errors.Is(err, context.Canceled) {
					t.Errorf("Run: %v", err)
				}
			})
		})
	}
}
