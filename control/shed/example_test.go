package shed_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/goodput-lab/goodput/control/loadstate"
	"github.com/goodput-lab/goodput/control/shed"
)

// The Northstar plan: look a feature up once, then ask per request.
func Example() {
	tbl, err := shed.Default().Compile()
	if err != nil {
		fmt.Println(err)
		return
	}
	recs, _ := tbl.Feature(shed.Recommendations)
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

// Required work cannot be shed: the compiler refuses a shed.Required where a
// shed.Optional is expected, and Validate refuses an Optional that reuses a
// required name.
func ExamplePlan_Validate() {
	plan := shed.Default()
	plan.States[loadstate.Protected] = append(plan.States[loadstate.Protected],
		shed.Optional{Name: shed.OrderCommit, Fallback: "commit later"})
	err := plan.Validate()
	fmt.Println(errors.Is(err, shed.ErrRequired))
	fmt.Println(err)
	// Output:
	// true
	// shed: required work cannot be shed: "order-commit" is declared required and is listed as optional in Protected
}

// A response handler carries the fallback of each feature it skips.
func ExampleTable_Optional() {
	tbl, _ := shed.Default().Compile()
	set := tbl.Set(loadstate.Protected)
	for f := range shed.Feature(tbl.Len()) {
		if set.Has(f) {
			o, _ := tbl.Optional(f)
			fmt.Printf("%s: %s\n", o.Name, o.Fallback)
		}
	}
	// Output:
	// analytics: events deferred to the asynchronous pipeline
	// background: shadow and background work paused
	// recommendations: response without a recommendations block
	// receipt-enrichment: plain receipt without rich rendering
	// fraud-enrichment: conservative risk decision from the mandatory checks alone
}
