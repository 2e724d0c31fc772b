package demo

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/goodput-lab/goodput/control/controlhttp"
	"github.com/goodput-lab/goodput/scenario"
)

// Route is one of the service's routes, each the live form of a scenario class.
type Route int

// The routes. A class of the scenario is served by the route its http: request maps to
// ([RouteOf]); the route, not the class, gives the admission class.
const (
	// NewCheckout is POST /checkout: a risk check, a payment authorisation and the order's
	// commit. Admission class standard.
	NewCheckout Route = iota
	// Continuation is POST /checkout/{id}/pay, or POST /checkout/pay with the identity in
	// the body ({"id": …}) or the Idempotency-Key: a payment capture and the order's
	// commit. Admission class continuation.
	Continuation
	// Lookup is GET /orders/{id}: the order's status from the database. Admission class
	// lookup.
	Lookup
	numRoutes
)

var routeNames = [numRoutes]string{"new_checkout", "payment_continuation", "status_lookup"}

// String is the route's name, as the orders table's class column and the metrics name it.
func (r Route) String() string {
	if r < 0 || r >= numRoutes {
		return fmt.Sprintf("Route(%d)", int(r))
	}
	return routeNames[r]
}

// RouteOf maps a request's method and path (a query is ignored) to the route that
// serves it: POST /checkout, POST /checkout/pay, POST /checkout/{id}/pay and
// GET /orders/{id}. ok is false for any other request.
func RouteOf(method, path string) (r Route, ok bool) {
	path, _, _ = strings.Cut(path, "?")
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case method == "POST" && path == "/checkout":
		return NewCheckout, true
	case method == "POST" && len(parts) == 2 && parts[0] == "checkout" && parts[1] == "pay",
		method == "POST" && len(parts) == 3 && parts[0] == "checkout" && parts[1] != "" && parts[2] == "pay":
		return Continuation, true
	case method == "GET" && len(parts) == 2 && parts[0] == "orders" && parts[1] != "":
		return Lookup, true
	}
	return 0, false
}

// Dependency is how the service calls one dependency.
type Dependency struct {
	// Name is the scenario's name of the dependency, e.g. payment-risk.
	Name string
	// URL is its base URL: the fault proxy in front of its stub, in the lab.
	URL string
	// Timeout is the fixed timeout of one call (the baseline's); zero means none.
	Timeout time.Duration
	// Retries is the service's own retry policy for the dependency (the baseline's
	// layered retries).
	Retries scenario.Retries
	// Median is the median of its service time.
	Median time.Duration
	// Expected is an attempt's p90 service time (the protected client makes no retry
	// without room for it).
	Expected time.Duration
}

// Config is one arm of a scenario as the reference service runs it. Build it with
// [FromScenario].
type Config struct {
	// Arm names the arm.
	Arm string
	// Policy is the arm's policy as the scenario declares it.
	Policy scenario.Policy
	// Controls says the arm runs the controls: the service is behind controlhttp.Handler
	// and calls its dependencies through controlhttp.NewTransport. False is the baseline:
	// fixed timeouts, the dependencies' own retries, and calls that go on after the
	// caller has left.
	Controls bool
	// Risk and Payment are the two dependencies a new checkout calls.
	Risk, Payment Dependency
	// Deadline is each route's deadline for a request that carries none: its class's.
	Deadline [numRoutes]time.Duration
	// Expected is the service time of a new checkout once admitted (the risk and
	// payment medians): admission refuses a request whose deadline leaves less.
	Expected time.Duration
	// AdmissionMax is the admission limit's bound: twice the workers of one instance of
	// the service the checkout enters.
	AdmissionMax int
	// Seed seeds the client transports' jitter.
	Seed uint64
	// Observer, when not nil, is told of every decision of the controls, e.g. a
	// controlotel.Observer that traces them: it is the ServerConfig's and every
	// ClientConfig's Observer. The baseline, without the controls, tells it nothing.
	Observer Observer
}

// Observer is what [Config.Observer] is told of: each request the controls serve and
// each attempt of a dependency call.
type Observer interface {
	controlhttp.ServerObserver
	controlhttp.ClientObserver
}

// FromScenario builds the configuration of arm of sc. deps maps dependency names to base
// URLs (the lab points them at the fault proxies). The payment dependency is the one a
// stage with mutation payment_authorization calls; the risk dependency is the first
// required, non-mutating dependency stage before it in the same class. Both must be in
// deps.
func FromScenario(sc *scenario.Scenario, arm string, deps map[string]string) (Config, error) {
	var c Config
	var names []string
	for _, a := range sc.Arms {
		names = append(names, a.Name)
		if a.Name == arm {
			c.Arm, c.Policy = a.Name, a.Policy
		}
	}
	if c.Arm == "" {
		return c, fmt.Errorf("demo: scenario %s has no arm %q; expected one of %s", sc.Name, arm, strings.Join(names, ", "))
	}
	pol := c.Policy
	c.Controls = pol.Deadline.Propagate || pol.Deadline.Cancel || pol.Identity ||
		pol.Retries.Mode == scenario.RetryModeBudget || pol.DependencyTimeout == scenario.TimeoutDerived || pol.Admission != nil
	c.Seed = sc.Seed

	var risk, payment string
	var checkout *scenario.Class
	for i := range sc.Classes {
		cl := &sc.Classes[i]
		for si, st := range cl.Stages {
			if st.Mutation != scenario.MutationPaymentAuthorization {
				continue
			}
			payment, checkout = st.Dependency, cl
			for _, before := range cl.Stages[:si] {
				if before.Dependency != "" && !before.Optional && before.Mutation == "" {
					risk = before.Dependency
					break
				}
			}
			break
		}
		if checkout != nil {
			break
		}
	}
	if payment == "" {
		return c, fmt.Errorf("demo: scenario %s has no payment: expected a class with a stage {dependency: NAME, mutation: %s}", sc.Name, scenario.MutationPaymentAuthorization)
	}
	if risk == "" {
		return c, fmt.Errorf("demo: scenario %s: class %s has no risk check: expected a dependency stage before its %s stage", sc.Name, checkout.Name, scenario.MutationPaymentAuthorization)
	}
	var err error
	if c.Risk, err = dependency(sc, risk, deps); err != nil {
		return c, err
	}
	if c.Payment, err = dependency(sc, payment, deps); err != nil {
		return c, err
	}
	c.Expected = c.Risk.Median + c.Payment.Median

	// Each route's default deadline is its class's; a route no class maps to takes the
	// longest deadline of the scenario.
	var longest time.Duration
	for _, cl := range sc.Classes {
		longest = max(longest, cl.Deadline.Std())
	}
	c.Deadline = [numRoutes]time.Duration{longest, longest, longest}
	for _, cl := range sc.Classes {
		if r, ok := RouteOf(cmpOr(cl.HTTP.Method, "GET"), cmpOr(cl.HTTP.Path, "/")); ok {
			c.Deadline[r] = cl.Deadline.Std()
		}
	}
	c.Deadline[NewCheckout] = checkout.Deadline.Std()

	entry := sc.Topology.Entries[0]
	if i := slices.IndexFunc(sc.Topology.Entries, func(e scenario.Entry) bool { return e.Name == checkout.Entry }); i >= 0 {
		entry = sc.Topology.Entries[i]
	}
	for _, s := range sc.Topology.Services {
		if s.Name == entry.Target {
			c.AdmissionMax = 2 * s.Workers
		}
	}
	return c, nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// dependency is the configuration of the scenario's dependency name, at its URL in deps.
func dependency(sc *scenario.Scenario, name string, deps map[string]string) (Dependency, error) {
	raw, ok := deps[name]
	if !ok {
		return Dependency{}, fmt.Errorf("demo: no URL for dependency %s; expected --dep %s=URL", name, name)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Dependency{}, fmt.Errorf("demo: dependency %s: URL %q: expected http://host:port", name, raw)
	}
	i := slices.IndexFunc(sc.Topology.Dependencies, func(d scenario.Dependency) bool { return d.Name == name })
	if i < 0 {
		return Dependency{}, fmt.Errorf("demo: scenario %s declares no dependency %s", sc.Name, name)
	}
	d := sc.Topology.Dependencies[i]
	return Dependency{
		Name:     name,
		URL:      strings.TrimSuffix(raw, "/"),
		Timeout:  d.Timeout.Std(),
		Retries:  d.Retries,
		Median:   d.ServiceTime.P50.Std(),
		Expected: d.ServiceTime.Quantile(0.9),
	}, nil
}
