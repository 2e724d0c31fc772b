package controlhttp_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/goodput-lab/goodput/control/controlhttp"
	"github.com/goodput-lab/goodput/control/loadstate"
	"github.com/goodput-lab/goodput/control/shed"
)

// A handler asks whether failover is frozen and whether an optional feature
// is shed under the load-state policy its request was admitted in. In a
// service, a Stepper applies each generation (ServerConfig.Stepper); here an
// operator's Override on the machine the middleware reads stands in for it.
func ExampleFailoverFrozen() {
	m, _ := loadstate.New(loadstate.Config{}, time.Now()) // DefaultPolicies: Protected freezes failover
	tbl, _ := shed.Plan{States: map[loadstate.State][]shed.Optional{
		loadstate.Protected: {{Name: "recommendations", Fallback: "no recommendations block"}},
	}}.Compile()
	recs, _ := tbl.Feature("recommendations")
	h := controlhttp.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, _ := controlhttp.FromContext(r.Context())
		fmt.Printf("%v: failover frozen %v, recommendations shed %v\n",
			info.State, controlhttp.FailoverFrozen(r.Context()), controlhttp.Shed(r.Context(), recs))
	}), controlhttp.ServerConfig{LoadState: m, Shed: tbl})

	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/failover", nil))
	m.Override(time.Now(), loadstate.Protected, "incident commander")
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/failover", nil))
	// Output:
	// Normal: failover frozen false, recommendations shed false
	// Protected: failover frozen true, recommendations shed true
}
