package shed_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/goodput-lab/goodput/control/loadstate"
	"github.com/goodput-lab/goodput/control/shed"
)

// A checkout's plan (the Northstar case study's): Pressured stops synchronous
// analytics and background work, Protected and Recovering also shed
// recommendations, rich receipts and the optional fraud enrichment; the
// order commit is required. Look a feature up once, then ask per request.
func Example() {
	var (
		analytics       = shed.Optional{Name: "analytics", Fallback: "events deferred to the asynchronous pipeline"}
		background      = shed.Optional{Name: "background", Fallback: "shadow and background work paused"}
		recommendations = shed.Optional{Name: "recommendations", Fallback: "response without a recommendations block"}
		receipt         = shed.Optional{Name: "receipt-enrichment", Fallback: "plain receipt without rich rendering"}
		fraud           = shed.Optional{Name: "fraud-enrichment", Fallback: "conservative risk decision from the mandatory checks alone"}
	)
	protected := []shed.Optional{analytics, background, recommendations, receipt, fraud}
	plan := shed.Plan{
		Required: []shed.Required{{Name: "order-commit", Why: "the order must be durable before it is confirmed"}},
		States: map[loadstate.State][]shed.Optional{
			loadstate.Pressured:  {analytics, background},
			loadstate.Protected:  protected,
			loadstate.Recovering: protected,
		},
	}
	tbl, err := plan.Compile()
	if err != nil {
		fmt.Println(err)
		return
	}
	recs, _ := tbl.Feature("recommendations")
	for _, s := range []loadstate.State{loadstate.Normal, loadstate.Pressured, loadstate.Protected, loadstate.Recovering} {
		fmt.Printf("%-10v recommendations shed: %-5v all shed: [%s]\n",
			s, tbl.Shed(s, recs), strings.Join(tbl.Names(tbl.Set(s)), ", "))
	}
	// Output:
	// Normal     recommendations shed: false all shed: []
	// Pressured  recommendations shed: false all shed: [analytics, background]
	// Protected  recommendations shed: true  all shed: [analytics, background, recommendations, receipt-enrichment, fraud-enrichment]
	// Recovering recommendations shed: true  all shed: [analytics, background, recommendations, receipt-enrichment, fraud-enrichment]
}

// The zero Plan sheds nothing in any state.
func ExamplePlan_zero() {
	tbl, err := shed.Plan{}.Compile()
	fmt.Println(err, tbl.Len(), tbl.Set(loadstate.Protected).Len())
	// Output:
	// <nil> 0 0
}

// Required work cannot be shed: the compiler refuses a shed.Required where a
// shed.Optional is expected, and Validate refuses an Optional that reuses a
// required name.
func ExamplePlan_Validate() {
	plan := shed.Plan{
		Required: []shed.Required{{Name: "order-commit", Why: "the order must be durable before it is confirmed"}},
		States: map[loadstate.State][]shed.Optional{
			loadstate.Protected: {
				{Name: "recommendations", Fallback: "response without a recommendations block"},
				{Name: "order-commit", Fallback: "commit later"},
			},
		},
	}
	err := plan.Validate()
	fmt.Println(errors.Is(err, shed.ErrRequired))
	fmt.Println(err)
	// Output:
	// true
	// shed: required work cannot be shed: "order-commit" is declared required and is listed as optional in Protected
}

// A response handler carries the fallback of each feature it skips.
func ExampleTable_Optional() {
	tbl, _ := shed.Plan{States: map[loadstate.State][]shed.Optional{
		loadstate.Protected: {
			{Name: "recommendations", Fallback: "response without a recommendations block"},
			{Name: "receipt-enrichment", Fallback: "plain receipt without rich rendering"},
		},
	}}.Compile()
	set := tbl.Set(loadstate.Protected)
	for f := range shed.Feature(tbl.Len()) {
		if set.Has(f) {
			o, _ := tbl.Optional(f)
			fmt.Printf("%s: %s\n", o.Name, o.Fallback)
		}
	}
	// Output:
	// recommendations: response without a recommendations block
	// receipt-enrichment: plain receipt without rich rendering
}
