package shed

import "github.com/goodput-lab/goodput/control/loadstate"

// Names of the features of checkout, the Northstar checkout's plan (the
// scenario layer's NorthstarShedPlan, which this package's tests cannot import).
const (
	// Optional work.
	Analytics         = "analytics"
	Background        = "background"
	Recommendations   = "recommendations"
	ReceiptEnrichment = "receipt-enrichment"
	FraudEnrichment   = "fraud-enrichment"

	// Required work.
	InventoryReservation = "inventory-reservation"
	PaymentIdempotency   = "payment-idempotency"
	OrderCommit          = "order-commit"
	RiskCheck            = "risk-check"
)

// checkout returns the plan of the Northstar checkout case study. Pressured
// stops synchronous analytics and shadow/background work; Protected and
// Recovering also shed recommendations, rich receipt rendering and the
// optional fraud enrichment, whose approved fallback is conservative.
// Inventory reservation, payment idempotency, durable order commit and the
// mandatory risk checks are required and are never shed. Each call returns a
// fresh Plan that the caller may change.
func checkout() Plan {
	var (
		analytics       = Optional{Name: Analytics, Fallback: "events deferred to the asynchronous pipeline"}
		background      = Optional{Name: Background, Fallback: "shadow and background work paused"}
		recommendations = Optional{Name: Recommendations, Fallback: "response without a recommendations block"}
		receipt         = Optional{Name: ReceiptEnrichment, Fallback: "plain receipt without rich rendering"}
		fraud           = Optional{Name: FraudEnrichment, Fallback: "conservative risk decision from the mandatory checks alone"}
	)
	pressured := []Optional{analytics, background}
	protected := []Optional{analytics, background, recommendations, receipt, fraud}
	return Plan{
		Required: []Required{
			{Name: InventoryReservation, Why: "an order must not sell stock it does not hold"},
			{Name: PaymentIdempotency, Why: "a retried payment must not charge twice"},
			{Name: OrderCommit, Why: "the order must be durable before it is confirmed"},
			{Name: RiskCheck, Why: "mandatory risk checks gate every payment"},
		},
		States: map[loadstate.State][]Optional{
			loadstate.Pressured:  pressured,
			loadstate.Protected:  protected,
			loadstate.Recovering: append([]Optional(nil), protected...),
		},
	}
}
