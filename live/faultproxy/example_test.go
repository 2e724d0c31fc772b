package faultproxy_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"

	"github.com/goodput-lab/goodput/live/faultproxy"
)

// A proxy in front of a dependency, which errs on every call until the control API lifts
// the fault.
func Example() {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok from the dependency\n")
	}))
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL)
	p, err := faultproxy.New(faultproxy.Config{
		Upstream: u,
		Schedule: faultproxy.Schedule{Base: faultproxy.Fault{ErrorRate: 1, ErrorBody: "risk check unavailable\n"}},
		Seed:     1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	proxy := httptest.NewServer(p)
	defer proxy.Close()

	call := func(method, path, body string) []byte {
		req, _ := http.NewRequest(method, proxy.URL+path, strings.NewReader(body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println(err)
			return nil
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		fmt.Printf("%s %s: %d\n", method, path, resp.StatusCode)
		return b
	}
	fmt.Printf("%s", call("GET", "/score", ""))

	var st faultproxy.FaultState
	json.Unmarshal(call("PUT", "/_goodput/fault", `{"error_rate": "0%", "service_time": {"p50": "1ms", "p99": "3ms"}}`), &st)
	fmt.Println("fault from", st.Source+":", st.Fault)

	fmt.Printf("%s", call("GET", "/score", ""))
	s := p.Stats()
	fmt.Println("requests", s.Requests, "errors", s.Errors, "forwarded", s.Forwarded)
	// Output:
	// GET /score: 503
	// risk check unavailable
	// PUT /_goodput/fault: 200
	// fault from override: service_time p50=1ms,p99=3ms
	// GET /score: 200
	// ok from the dependency
	// requests 2 errors 1 forwarded 1
}
