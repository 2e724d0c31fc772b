package levers_test

import (
	"fmt"
	"time"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/levers"
	"github.com/goodput-lab/goodput/control/loadstate"
	"github.com/goodput-lab/goodput/control/shed"
)

// An Applier applies the Normal policy at its first Sync, then each new
// generation once; per request, read Levers for the shed set and the
// failover freeze.
func ExampleApplier() {
	now := time.Date(2025, 3, 11, 14, 0, 0, 0, time.UTC)
	m, _ := loadstate.New(loadstate.Config{}, now) // no gates: DefaultPolicies, moved by Override
	adm, _ := admission.New(admission.Config{Max: 100})
	bud, _ := budget.New(budget.Config{Ratio: 0.2, TTL: 10 * time.Second})
	tbl, _ := shed.Plan{States: map[loadstate.State][]shed.Optional{
		loadstate.Protected: {{Name: "recommendations", Fallback: "no recommendations block"}},
	}}.Compile()
	recs, _ := tbl.Feature("recommendations")
	a := &levers.Applier{Machine: m, Shed: tbl, Controls: levers.Controls{Admission: adm, Budget: bud}}

	show := func() {
		l := a.Levers()
		fmt.Printf("gen %d %v: retries %v, admission limit %d, recommendations shed %v, failover frozen %v\n",
			l.Generation, l.State, bud.Ratio(), adm.Limit(), l.Shed.Has(recs), l.FreezeFailover)
	}
	a.Sync(now)
	show()
	m.Override(now.Add(time.Minute), loadstate.Protected, "operator")
	a.Sync(now.Add(time.Minute))
	show()
	// Output:
	// gen 1 Normal: retries 0.1, admission limit 100, recommendations shed false, failover frozen false
	// gen 2 Protected: retries 0.01, admission limit 50, recommendations shed true, failover frozen true
}
