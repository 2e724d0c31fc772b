package controlhttp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/loadstate"
	"github.com/goodput-lab/goodput/control/shed"
)

// TestStepper runs a Stepper on synctest's clock: it applies the policy in
// force when it starts, steps the machine every interval, applies the
// policy of each new generation (a transition, or an override made
// elsewhere) to admission and the retry budget, reports each log entry, and
// stops when its context is cancelled.
func TestStepper(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		m, err := loadstate.New(testLoadState(), start)
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

// TestStepperServesLevers: with ServerConfig.Stepper, a request is served
// under the levers the Stepper applied last — shed set, failover freeze,
// state and generation — so they change generation by generation together
// with admission and the retry budget, not when the machine is overridden
// between two ticks.
func TestStepperServesLevers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, err := loadstate.New(testLoadState(), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := testShedPlan().Compile()
		if err != nil {
			t.Fatal(err)
		}
		recs, _ := tbl.Feature("recommendations")
		adm := mustAdmission(t, admission.Config{Max: 100})
		calm := loadstate.Signals{Amplification: 1, Slack: 1500 * time.Millisecond, DependencySaturation: 0.5, ReadyReserve: 0.5, TriggerHealthy: true}
		s := &Stepper{Machine: m, Signals: func(time.Time) loadstate.Signals { return calm }, Admission: adm, Shed: tbl}
		type seen struct {
			info         Info
			frozen, shed bool
			limit        int
		}
		var got seen
		h := Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got.info, _ = FromContext(r.Context())
			got.frozen, got.shed, got.limit = FailoverFrozen(r.Context()), Shed(r.Context(), recs), adm.Limit()
		}), ServerConfig{Admission: adm, LoadState: m, Shed: tbl, Stepper: s})
		serve := func(when string, state loadstate.State, gen uint64, frozen bool, limit int) {
			t.Helper()
			synctest.Wait()
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
			want := seen{frozen: frozen, shed: frozen, limit: limit}
			if got.info.State != state || got.info.Generation != gen || got.info.FreezeFailover != frozen ||
				got.frozen != want.frozen || got.shed != want.shed || got.limit != want.limit ||
				got.info.Shed != tbl.Set(state) {
				t.Errorf("%s: served %+v (frozen %v, recommendations shed %v, limit %d); want %v gen %d, frozen %v, limit %d",
					when, got.info, got.frozen, got.shed, got.limit, state, gen, frozen, limit)
			}
		}
		serve("before Run", loadstate.Normal, 0, false, 100)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx) }()
		serve("at start", loadstate.Normal, 1, false, 100)
		m.Override(time.Now(), loadstate.Protected, "operator")
		serve("override, before the tick", loadstate.Normal, 1, false, 100)
		time.Sleep(time.Second)
		serve("override, after the tick", loadstate.Protected, 2, true, 50)
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Run: %v", err)
		}
	})
}

func TestStepperDefaultInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, _ := loadstate.New(testLoadState(), time.Now())
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
	m, _ := loadstate.New(testLoadState(), time.Unix(0, 0))
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

// testLoadState is the Northstar case study's machine (the scenario layer's
// NorthstarLoadState), written out: the tests step its calibrated gates.
func testLoadState() loadstate.Config {
	return loadstate.Config{
		Gates: loadstate.Gates{
			Amplification:        loadstate.Gate{Warn: 1.08, Hard: 1.3, Exit: 1.05},
			Slack:                loadstate.DurationGate{Warn: 1200 * time.Millisecond, Hard: 600 * time.Millisecond, Exit: 1400 * time.Millisecond},
			QueueAge:             loadstate.DurationGate{Warn: 250 * time.Millisecond, Hard: time.Second, Exit: 200 * time.Millisecond},
			DependencySaturation: loadstate.Gate{Warn: 0.8, Hard: 0.95, Exit: 0.7},
			ReadyReserve:         loadstate.Gate{Warn: 0.10, Exit: 0.15},
		},
		Sustain: 30 * time.Second,
		Hold:    loadstate.Holds{Pressured: time.Minute, Protected: 2 * time.Minute, Recovering: 6 * time.Minute},
		Ramp: []loadstate.RampStep{
			{Admission: 0.5, Hold: 2 * time.Minute},
			{Admission: 0.75, Hold: 2 * time.Minute},
			{Admission: 1, Hold: 2 * time.Minute},
		},
		Policies: loadstate.Policies{
			Normal:     loadstate.Policy{RetryRatio: 0.05, AdmissionScale: 1, Shed: loadstate.Normal},
			Pressured:  loadstate.Policy{RetryRatio: 0.03, AdmissionScale: 1, Shed: loadstate.Pressured, Prewarm: true, StopBackground: true},
			Protected:  loadstate.Policy{RetryRatio: 0.02, AdmissionScale: 0.5, Shed: loadstate.Protected, FreezeFailover: true, Prewarm: true, StopBackground: true},
			Recovering: loadstate.Policy{RetryRatio: 0.02, Shed: loadstate.Recovering, FreezeFailover: true, Prewarm: true, StopBackground: true},
		},
	}
}

// testShedPlan is a checkout's shed plan (the scenario layer's
// NorthstarShedPlan), written out.
func testShedPlan() shed.Plan {
	var (
		analytics       = shed.Optional{Name: "analytics", Fallback: "events deferred to the asynchronous pipeline"}
		background      = shed.Optional{Name: "background", Fallback: "shadow and background work paused"}
		recommendations = shed.Optional{Name: "recommendations", Fallback: "response without a recommendations block"}
		receipt         = shed.Optional{Name: "receipt-enrichment", Fallback: "plain receipt without rich rendering"}
		fraud           = shed.Optional{Name: "fraud-enrichment", Fallback: "conservative risk decision from the mandatory checks alone"}
	)
	protected := []shed.Optional{analytics, background, recommendations, receipt, fraud}
	return shed.Plan{
		Required: []shed.Required{{Name: "order-commit", Why: "the order must be durable before it is confirmed"}},
		States: map[loadstate.State][]shed.Optional{
			loadstate.Pressured:  {analytics, background},
			loadstate.Protected:  protected,
			loadstate.Recovering: append([]shed.Optional(nil), protected...),
		},
	}
}
