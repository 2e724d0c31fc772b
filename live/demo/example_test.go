package demo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/goodput-lab/goodput/control/identity"
	"github.com/goodput-lab/goodput/live/demo"
	"github.com/goodput-lab/goodput/scenario"
)

// The protected arm of the reference checkout in process: a stub dependency, the service
// on loopback, the orders in a SQLite file. A checkout sent twice with one identity is
// committed once; the database refuses the second commit, and the audit counts it.
func Example() {
	ctx := context.Background()
	stub, _ := demo.NewStub(demo.KindAll, 0)
	deps := httptest.NewServer(stub)
	defer deps.Close()

	sc, err := scenario.Load("testdata/checkout.scenario.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg, err := demo.FromScenario(sc, "protected", map[string]string{"payment-risk": deps.URL, "payment": deps.URL})
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, _ := os.MkdirTemp("", "demo-example")
	defer os.RemoveAll(dir)
	store, err := demo.Open(ctx, filepath.Join(dir, "orders.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()
	svc, _ := demo.New(cfg, store)
	defer svc.Close()
	srv := httptest.NewServer(svc)
	defer srv.Close()

	for range 2 {
		req, _ := http.NewRequest("POST", srv.URL+"/checkout", nil)
		identity.Inject(req.Header, identity.First("order-1"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		var o struct {
			ID        string `json:"order_id"`
			Status    string `json:"status"`
			Duplicate bool   `json:"duplicate"`
		}
		json.NewDecoder(resp.Body).Decode(&o)
		resp.Body.Close()
		fmt.Println(resp.StatusCode, o.ID, o.Status, "duplicate:", o.Duplicate)
	}
	resp, err := http.Get(srv.URL + "/orders/order-1")
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println("lookup:", resp.StatusCode)

	a, err := store.Audit(ctx)
	fmt.Printf("audit: %d orders, %d duplicates, %d refused (%v)\n", a.Orders, a.Duplicates, a.Refused, err)
	st := stub.Stats()
	fmt.Printf("stub: %d authorisation, %d replayed, %d duplicate\n", st.Authorisations, st.AuthorisationReplays, st.DuplicateAuthorisations)
	// Output:
	// 201 ord-0bafe22156d2698c authorised duplicate: false
	// 200 ord-0bafe22156d2698c authorised duplicate: true
	// lookup: 200
	// audit: 1 orders, 0 duplicates, 1 refused (<nil>)
	// stub: 1 authorisation, 1 replayed, 0 duplicate
}
