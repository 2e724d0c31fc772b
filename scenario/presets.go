package scenario

import (
	"fmt"
	"time"

	"github.com/goodput-lab/goodput/control/loadstate"
	"github.com/goodput-lab/goodput/control/readiness"
	"github.com/goodput-lab/goodput/control/shed"
)

// The Northstar case study's controller as Go values. A scenario declares its own
// controller (policy.loadstate and the stages' shed_from); examples/northstar writes the
// values below out in YAML. NorthstarLoadState is also what the deprecated
// `loadstate: {preset: northstar}` of old files expands to; NorthstarShedPlan is example
// data for the control packages' tests and live services, which the replay does not use.
// None of this is a default of the control packages, whose zero values are generic.

// LoadStateConfig returns the load-state machine a scenario's loadstate preset names, or
// an error for an unknown preset.
func LoadStateConfig(preset string) (loadstate.Config, error) {
	switch preset {
	case LoadStateNorthstar:
		return NorthstarLoadState(), nil
	}
	return loadstate.Config{}, fmt.Errorf("scenario: unknown load-state preset %q; expected %s", preset, LoadStateNorthstar)
}

// NorthstarLoadState returns the load-state machine of the Northstar case study, the one
// examples/northstar/*.scenario.yaml declare. The seed fixes the queue-age gates (250 ms
// in Normal, 1,000 ms while Protected), the 1.08 attempts-per-logical bound in Normal,
// the 2% retry budget while Protected and the 1.8 s deadline that the slack gates are cut
// from (1.2 s, 0.6 s and 1.4 s are what [DerivedSlack] gives for it); the other
// thresholds, holds and the 0.5/0.75/1 ramp (2 minutes a step) are goodput's calibration
// choices, picked so that a restored dependency can return the cell to Normal inside the
// seed's twelve-minute objective.
func NorthstarLoadState() loadstate.Config {
	return loadstate.Config{
		Gates: loadstate.Gates{
			Amplification:        loadstate.Gate{Warn: 1.08, Hard: 1.3, Exit: 1.05},
			Slack:                loadstate.DurationGate{Warn: 1200 * time.Millisecond, Hard: 600 * time.Millisecond, Exit: 1400 * time.Millisecond},
			QueueAge:             loadstate.DurationGate{Warn: 250 * time.Millisecond, Hard: 1000 * time.Millisecond, Exit: 200 * time.Millisecond},
			DependencySaturation: loadstate.Gate{Warn: 0.8, Hard: 0.95, Exit: 0.7},
			ReadyReserve:         loadstate.Gate{Warn: 0.10, Exit: 0.15}, // a warning only: low reserve prewarms, it does not shed
		},
		Sustain: 30 * time.Second,
		Hold: loadstate.Holds{
			Pressured:  time.Minute,
			Protected:  2 * time.Minute,
			Recovering: 6 * time.Minute,
		},
		Ramp: []loadstate.RampStep{
			{Admission: 0.5, Hold: 2 * time.Minute},
			{Admission: 0.75, Hold: 2 * time.Minute},
			{Admission: 1, Hold: 2 * time.Minute},
		},
		Policies: loadstate.Policies{
			Normal: loadstate.Policy{RetryRatio: 0.05, AdmissionScale: 1, Shed: loadstate.Normal},
			Pressured: loadstate.Policy{RetryRatio: 0.03, AdmissionScale: 1, Shed: loadstate.Pressured,
				Prewarm: true, StopBackground: true},
			Protected: loadstate.Policy{RetryRatio: 0.02, AdmissionScale: 0.5, Shed: loadstate.Protected,
				FreezeFailover: true, Prewarm: true, StopBackground: true},
			Recovering: loadstate.Policy{RetryRatio: 0.02, Shed: loadstate.Recovering,
				FreezeFailover: true, Prewarm: true, StopBackground: true},
		},
	}
}

// Names of the features of [NorthstarShedPlan], the Northstar checkout's. They are example
// data: no code gives a stage of these names any meaning.
const (
	// Optional work.
	FeatureAnalytics         = "analytics"
	FeatureBackground        = "background"
	FeatureRecommendations   = "recommendations"
	FeatureReceiptEnrichment = "receipt-enrichment"
	FeatureFraudEnrichment   = "fraud-enrichment"

	// Required work.
	FeatureInventoryReservation = "inventory-reservation"
	FeaturePaymentIdempotency   = "payment-idempotency"
	FeatureOrderCommit          = "order-commit"
	FeatureRiskCheck            = "risk-check"
)

// NorthstarShedPlan returns the shed plan of the Northstar checkout case study, for
// services and tests that compile a plan in Go (the Northstar scenario files declare the
// same with their stages' shed_from and fallback_text). Pressured stops synchronous
// analytics and shadow/background work; Protected and Recovering also shed
// recommendations, rich receipt rendering and the optional fraud enrichment, whose
// approved fallback is conservative. Inventory reservation, payment idempotency, durable
// order commit and the mandatory risk checks are required and are never shed. Each call
// returns a fresh Plan that the caller may change.
func NorthstarShedPlan() shed.Plan {
	var (
		analytics       = shed.Optional{Name: FeatureAnalytics, Fallback: "events deferred to the asynchronous pipeline"}
		background      = shed.Optional{Name: FeatureBackground, Fallback: "shadow and background work paused"}
		recommendations = shed.Optional{Name: FeatureRecommendations, Fallback: "response without a recommendations block"}
		receipt         = shed.Optional{Name: FeatureReceiptEnrichment, Fallback: "plain receipt without rich rendering"}
		fraud           = shed.Optional{Name: FeatureFraudEnrichment, Fallback: "conservative risk decision from the mandatory checks alone"}
	)
	pressured := []shed.Optional{analytics, background}
	protected := []shed.Optional{analytics, background, recommendations, receipt, fraud}
	return shed.Plan{
		Required: []shed.Required{
			{Name: FeatureInventoryReservation, Why: "an order must not sell stock it does not hold"},
			{Name: FeaturePaymentIdempotency, Why: "a retried payment must not charge twice"},
			{Name: FeatureOrderCommit, Why: "the order must be durable before it is confirmed"},
			{Name: FeatureRiskCheck, Why: "mandatory risk checks gate every payment"},
		},
		States: map[loadstate.State][]shed.Optional{
			loadstate.Pressured:  pressured,
			loadstate.Protected:  protected,
			loadstate.Recovering: append([]shed.Optional(nil), protected...),
		},
	}
}

// NorthstarReadiness returns the readiness criteria of the Northstar case study: route
// traffic only after representative connections are established, caches meet a warm
// criterion and a canary proves 350 attempts/s at the incident mix; a warm instance
// completes 420 attempts/s. The connection count, the cache fractions, the canary
// durations and the 400/s warm criterion are goodput's choices.
func NorthstarReadiness() readiness.Config {
	return readiness.Config{
		Route:   readiness.Criteria{Connections: 20, CacheWarm: 0.85, CanaryRate: 350, CanaryFor: 30 * time.Second},
		Warm:    readiness.Criteria{Connections: 20, CacheWarm: 0.93, CanaryRate: 400, CanaryFor: time.Minute},
		Nominal: 420,
	}
}
