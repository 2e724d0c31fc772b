package controlhttp

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/loadstate"
)

// TestStepper runs a Stepper on synctest's clock: it applies the policy in
// force when it starts, steps the machine every interval, applies the
// policy of each new generation (a transition, or an override made
// elsewhere) to admission and the retry budget, reports each log entry, and
// stops when its context is cancelled.
func TestStepper(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		m, err := loadstate.New(loadstate.Northstar(), start)
		if err != nil {
			t.Fatal(err)
		}
		adm := mustAdmission(t, admission.Config{Max: 100})
		bud := mustBudget(t, budget.Finagle())
		var queueAge atomic.Int64
		var steps atomic.Int64
		var mu sync.Mutex
		var seen []loadstate.Transition
		var metrics Metrics
		s := &Stepper{
			Machine: m,
			Signals: func(now time.Time) loadstate.Signals {
				steps.Add(1)
				return loadstate.Signals{
					Amplification: 1, Slack: 1500 * time.Millisecond, QueueAge: time.Duration(queueAge.Load()),
					DependencySaturation: 0.5, ReadyReserve: 0.5, TriggerHealthy: true,
				}
			},
			Interval:  time.Second,
			Admission: adm,
			Budget:    bud,
			OnTransition: func(tr loadstate.Transition) {
				mu.Lock()
				defer mu.Unlock()
				seen = append(seen, tr)
			},
			Metrics: &metrics,
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx) }()

		check := func(when string, state loadstate.State, ratio float64, limit int, entries int) {
			t.Helper()
			synctest.Wait()
			if got := m.State(); got != state {
				t.Errorf("%s: state %v, want %v", when, got, state)
			}
			if got := bud.Ratio(); got != ratio {
				t.Errorf("%s: retry ratio %v, want %v", when, got, ratio)
			}
			if got := adm.Limit(); got != limit {
				t.Errorf("%s: admission limit %d, want %d", when, got, limit)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(seen) != entries {
				t.Errorf("%s: %d transitions reported, want %d: %v", when, len(seen), entries, seen)
			}
		}
		check("at start", loadstate.Normal, 0.05, 100, 0) // Normal's policy replaces Finagle's 0.2

		time.Sleep(1500 * time.Millisecond) // one tick, all clear
		check("after 1 tick", loadstate.Normal, 0.05, 100, 0)

		queueAge.Store(int64(1200 * time.Millisecond)) // past the 1 s hard gate
		time.Sleep(time.Second)
		check("hard gate", loadstate.Protected, 0.02, 50, 1)

		queueAge.Store(0)
		m.Override(time.Now(), loadstate.Normal, "operator: dependency restored")
		check("override, before the tick", loadstate.Normal, 0.02, 50, 1) // not applied yet
		time.Sleep(time.Second)
		check("override, after the tick", loadstate.Normal, 0.05, 100, 2)

		mu.Lock()
		if seen[0].Manual || seen[0].To != loadstate.Protected || !seen[1].Manual || seen[1].To != loadstate.Normal {
			t.Errorf("transitions reported %v, want Protected by a gate then Normal by override", seen)
		}
		mu.Unlock()
		if got := metrics.transitions[loadstate.Protected].Load() + metrics.transitions[loadstate.Normal].Load(); got != 2 {
			t.Errorf("transitions counted %d, want 2", got)
		}
		if metrics.state.Load() != uint32(loadstate.Normal) || metrics.generation.Load() != m.Generation() {
			t.Errorf("gauges: state %d generation %d; want %d %d", metrics.state.Load(), metrics.generation.Load(), loadstate.Normal, m.Generation())
		}

		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Run returned %v, want context.Canceled", err)
		}
		n := steps.Load()
		time.Sleep(time.Minute)
		if steps.Load() != n || n != 3 {
			t.Errorf("%d steps, %d after stopping; want 3 (at +1s, +2s, +3s) and no more", n, steps.Load())
		}
	})
}

func TestStepperDefaultInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, _ := loadstate.New(loadstate.Northstar(), time.Now())
		var at []time.Time
		s := &Stepper{Machine: m, Signals: func(now time.Time) loadstate.Signals {
			at = append(at, now)
			return loadstate.Signals{Amplification: 1, Slack: time.Second * 2, DependencySaturation: 0.1, ReadyReserve: 1, TriggerHealthy: true}
		}}
		ctx, cancel := context.WithTimeout(context.Background(), 3500*time.Millisecond)
		defer cancel()
		if err := s.Run(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Run: %v", err)
		}
		if len(at) != 3 || at[1].Sub(at[0]) != DefaultInterval {
			t.Errorf("sampled at %v, want 3 samples %v apart", at, DefaultInterval)
		}
	})
}

func TestStepperInvalid(t *testing.T) {
	m, _ := loadstate.New(loadstate.Northstar(), time.Unix(0, 0))
	sig := func(time.Time) loadstate.Signals { return loadstate.Signals{} }
	for _, s := range []*Stepper{
		{Signals: sig},
		{Machine: m},
		{Machine: m, Signals: sig, Interval: -time.Second},
	} {
		if err := s.Run(context.Background()); err == nil || errors.Is(err, context.Canceled) {
			t.Errorf("%+v: Run returned %v, want a configuration error", s, err)
		}
	}
}
