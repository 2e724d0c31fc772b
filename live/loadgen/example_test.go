package loadgen_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/goodput-lab/goodput/control/controlhttp"
	"github.com/goodput-lab/goodput/live/loadgen"
	"github.com/goodput-lab/goodput/scenario"
)

// A plan of 200 requests/s for half a second, two classes, against a loopback service
// that refuses one of them.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/busy" {
			w.Header().Set(controlhttp.ReasonHeader, "limit")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()

	load := scenario.Traffic{Arrivals: scenario.ArrivalsUniform, Schedule: []scenario.RateStep{{At: 0, Rate: 200}}}
	classes := []loadgen.Class{
		{Name: "buy", Share: 0.6, Deadline: 5 * time.Second, Path: "/buy"},
		{Name: "browse", Share: 0.4, Deadline: 5 * time.Second, Path: "/busy"},
	}
	plan, err := loadgen.NewPlan(load, 500*time.Millisecond, classes, 1)
	if err != nil {
		panic(err)
	}
	a, err := loadgen.New(plan, srv.URL, loadgen.Options{})
	if err != nil {
		panic(err)
	}
	res, err := a.Run(context.Background())
	if err != nil {
		panic(err)
	}
	for _, c := range res.Classes {
		fmt.Printf("%s: offered %d, sent %d, goodput %d, rejected %d %v\n", c.Name, c.Offered, c.Sent, c.Goodput, c.Rejected, c.Rejections)
	}
	// Output:
	// buy: offered 53, sent 53, goodput 53, rejected 0 []
	// browse: offered 46, sent 46, goodput 0, rejected 46 [429 limit]
}
