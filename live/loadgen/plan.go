package loadgen

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"
	"strings"
	"text/template"
	"time"

	"github.com/goodput-lab/goodput/scenario"
	"github.com/goodput-lab/goodput/sim"
)

// Class is one request class as the generator sends it: its share of the load, its
// deadline, its HTTP request and the edge's per-attempt timeout and retries.
type Class struct {
	// Name names the class in results.
	Name string
	// Share is the class's share of the load; the shares of a plan's classes sum to 1.
	Share float64
	// Deadline is the absolute deadline, from the intended send time. A 2xx after it is
	// late, not goodput. Must be positive.
	Deadline time.Duration
	// Method is the request method; empty means GET.
	Method string
	// Path is the path (and ?query) on the target; empty means the target's own. It may
	// be a template (see [scenario.HTTP.PathTemplate]), written for each request.
	Path string
	// Body, if not nil, writes each request's body (see [scenario.BodyData]).
	Body *template.Template
	// OrdersFrom indexes the plan's classes whose requests answered 2xx {{.Order}} names
	// (the latest so far); a path or body using {{.Order}} needs it. A request of this
	// class sent before any is counted unsent (NoOrder), not sent.
	OrdersFrom []int
	// Timeout is the per-attempt timeout; zero means none (the run's drain bounds it).
	Timeout time.Duration
	// Retries is the edge's retry policy: how many more attempts, after which failures,
	// after what backoff.
	Retries scenario.Retries
	// Schedule, if set, is the class's own offered load (a class's schedule: in the form of
	// load.schedule, from an arrival stream of its own); such a class has no share of the
	// load's schedule.
	Schedule []scenario.RateStep
}

// Request is one logical request of a [Plan].
type Request struct {
	// ID is the logical request's number, from 0 in the order of intended send times.
	ID int64
	// At is the intended send time, from the start of the run.
	At time.Duration
	// Class indexes the plan's classes.
	Class int
	// Key is the request's key, 0 the most popular of the load's keys.
	Key int
	// Deadline is the absolute deadline, from the start of the run: At plus the class's.
	Deadline time.Duration
}

// Plan is the open-loop schedule of a run: the intended send time, class, key and deadline
// of every logical request, drawn lazily from seeded streams. It reads no clock; call
// [Plan.Next] until it reports the end. A Plan is not safe for concurrent use and is used
// up by one pass (make another with the same seed for the same requests).
//
// The rule is the replay's (package model): the load comes from open-loop sources,
// load.schedule's (whose requests draw their class by the shares: the first whose
// cumulative share exceeds a uniform draw) and each class's own schedule. After each
// arrival, or at each rate step, a source's next arrival comes an exponential gap
// (poisson) or 1/rate (uniform) later at the rate then in force, or on a ramp (ramp_to)
// when the integrated rate has grown by an exponential draw (or by one), a step
// cancelling the pending arrival and drawing afresh; a burst step sends its arrivals at
// its instant, or evenly over within, beside the rate, its classes drawn by the shares
// from a stream of their own. The draws come from the same seed-named streams
// ("arrivals", "class", "bursts" and "arrivals/CLASS" of [sim.NewStreams]), so with the
// same seed and no fault that shifts the rate a plan's send times and classes are the
// replay's arrivals. Keys are drawn from a stream of their own ("load/keys"), from the
// same popularity (keys.count keys, Zipf keys.zipf or uniform); the replay names no key,
// it places each request in that popularity by a draw of its own. Closed-loop users
// (load.users) are the plan's too, but not in Next: an [Attacker] runs each (users.go).
type Plan struct {
	classes  []Class
	cum      []float64
	srcs     []source
	duration time.Duration
	poisson  bool

	keys  *rand.Rand
	zipf  *rand.Zipf
	zipfS float64
	nkeys int
	pops  []userPop // the closed-loop users (users.go)

	next    int64
	started bool
	seed    uint64
}

// NewPlan returns the plan of load over classes for duration, drawn with seed. load's
// schedule (omitted only when a class has a schedule of its own) must start at 0s, with
// rates and ramps of zero or more and rate steps in increasing time; the shares of the
// classes without a schedule of their own must sum to 1, and every deadline be positive.
func NewPlan(load scenario.Traffic, duration time.Duration, classes []Class, seed uint64) (*Plan, error) {
	if err := checkPlan(load, duration, classes); err != nil {
		return nil, err
	}
	st := sim.NewStreams(seed)
	p := &Plan{
		classes:  classes,
		duration: duration,
		poisson:  load.Arrivals != scenario.ArrivalsUniform,
		keys:     st.Stream("load/keys"),
		nkeys:    load.Keys.Count,
		seed:     seed,
	}
	if len(load.Schedule) > 0 {
		p.srcs = append(p.srcs, newSource(load.Schedule, duration, -1, "arrivals", st))
	}
	for i, c := range classes {
		if len(c.Schedule) > 0 {
			p.srcs = append(p.srcs, newSource(c.Schedule, duration, i, "arrivals/"+c.Name, st))
		}
	}
	if p.nkeys <= 0 {
		p.nkeys = 1_000_000
	}
	if load.Keys.Zipf > 1 {
		p.zipfS = load.Keys.Zipf
		p.zipf = rand.NewZipf(p.keys, load.Keys.Zipf, 1, uint64(p.nkeys-1))
	}
	pops, err := compileUsers(load.Users, classes, seed)
	if err != nil {
		return nil, fmt.Errorf("loadgen: %w", err)
	}
	p.pops = pops
	var cum float64
	for _, c := range classes {
		cum += c.Share
		p.cum = append(p.cum, cum)
	}
	p.cum[len(p.cum)-1] = 1 // absorb rounding in the shares, as the replay does
	return p, nil
}

func checkPlan(load scenario.Traffic, duration time.Duration, classes []Class) error {
	var errs []error
	if duration <= 0 {
		errs = append(errs, fmt.Errorf("duration %s: expected a positive length of the run", duration))
	}
	own := false // a class with a schedule of its own
	for _, c := range classes {
		own = own || len(c.Schedule) > 0
	}
	switch {
	case len(load.Schedule) == 0 && !own && len(load.Users) == 0:
		errs = append(errs, errors.New("schedule: expected steps from 0s, e.g. [{at: 0s, rate: 500/s}]"))
	case len(load.Schedule) > 0 && load.Schedule[0].At != 0:
		errs = append(errs, errors.New("schedule: expected steps from 0s, e.g. [{at: 0s, rate: 500/s}]"))
	}
	errs = append(errs, checkSchedule("schedule", load.Schedule)...)
	if len(classes) == 0 {
		errs = append(errs, errors.New("no classes: expected at least one"))
	}
	var sum float64
	shared := 0 // classes that take a share of the load's schedule
	for _, c := range classes {
		if len(c.Schedule) == 0 {
			sum += c.Share
			shared++
		}
		errs = append(errs, checkSchedule(fmt.Sprintf("class %q: schedule", c.Name), c.Schedule)...)
		if c.Deadline <= 0 {
			errs = append(errs, fmt.Errorf("class %q: deadline %s: expected a positive deadline", c.Name, c.Deadline))
		}
		if c.Share < 0 {
			errs = append(errs, fmt.Errorf("class %q: share %v: expected zero or more", c.Name, c.Share))
		}
	}
	if len(load.Schedule) > 0 && shared > 0 && math.Abs(sum-1) > 1e-6 {
		errs = append(errs, fmt.Errorf("class shares sum to %v: expected 1", sum))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("loadgen: %w", err)
	}
	return nil
}

// checkSchedule checks the steps of a schedule named what: finite rates and ramps of zero
// or more, rate steps in increasing time, bursts of one arrival or more spread over a
// within of zero or more.
func checkSchedule(what string, steps []scenario.RateStep) []error {
	var errs []error
	prev := -1 // the previous rate step
	for i, st := range steps {
		if st.IsBurst() {
			if st.Burst <= 0 || st.Within < 0 || st.Rate != 0 || st.RampTo != nil {
				errs = append(errs, fmt.Errorf("%s step %d: burst %d within %s: expected a burst of one arrival or more, over a within of 0s or more, on a step without rate or ramp_to", what, i, st.Burst, st.Within))
			}
			continue
		}
		for _, r := range []*scenario.Rate{&st.Rate, st.RampTo} {
			if r == nil {
				continue
			}
			if x := float64(*r); x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
				errs = append(errs, fmt.Errorf("%s step %d: rate %s: expected a finite rate of zero or more", what, i, *r))
			}
		}
		if prev >= 0 && st.At <= steps[prev].At {
			errs = append(errs, fmt.Errorf("%s step %d at %s: expected rate steps in increasing time", what, i, st.At))
		}
		prev = i
	}
	return errs
}

// ScenarioPlan returns the plan of sc's load and classes with seed: each class's HTTP
// request from its http: mapping and its timeout and retries from its entry.
func ScenarioPlan(sc *scenario.Scenario, seed uint64) (*Plan, error) {
	cs, err := ScenarioClasses(sc)
	if err != nil {
		return nil, err
	}
	return NewPlan(sc.Load, sc.Clock.Duration.Std(), cs, seed)
}

// ScenarioClasses returns sc's classes as the generator sends them.
func ScenarioClasses(sc *scenario.Scenario) ([]Class, error) {
	var out []Class
	index := map[string]int{}
	for i, c := range sc.Classes {
		index[c.Name] = i
	}
	for _, c := range sc.Classes {
		var e scenario.Entry
		for _, en := range sc.Topology.Entries {
			if en.Name == c.Entry || c.Entry == "" {
				e = en
				break
			}
		}
		body, err := c.HTTP.BodyTemplate()
		if err != nil {
			return nil, fmt.Errorf("loadgen: class %s: %w", c.Name, err)
		}
		path := c.HTTP.Path
		if path == "" {
			path = "/"
		}
		var from []int
		for _, name := range c.HTTP.OrdersFrom {
			j, ok := index[name]
			if !ok {
				return nil, fmt.Errorf("loadgen: class %s: orders_from names no class %q", c.Name, name)
			}
			from = append(from, j)
		}
		out = append(out, Class{
			Name:       c.Name,
			Share:      float64(c.Share),
			Deadline:   c.Deadline.Std(),
			Method:     c.HTTP.Method,
			Path:       path,
			Body:       body,
			OrdersFrom: from,
			Timeout:    e.Timeout.Std(),
			Retries:    e.Retries,
			Schedule:   c.Schedule,
		})
	}
	return out, nil
}

// Classes returns the plan's classes; a [Request]'s Class indexes them.
func (p *Plan) Classes() []Class { return p.classes }

// Duration is how long the plan sends: no intended send time is at or after it.
func (p *Plan) Duration() time.Duration { return p.duration }

// Next returns the next logical request in intended-send order, and false after the last.
// Of the sources' events at one instant, the first source's (load.schedule's) go first,
// then each class's in the classes' order.
func (p *Plan) Next() (Request, bool) {
	if !p.started {
		p.started = true
		for k := range p.srcs {
			p.srcs[k].draw(0, p.duration, p.poisson)
		}
	}
	for {
		src, kind, at, burst := -1, evNone, time.Duration(-1), 0
		for k := range p.srcs {
			if kd, t, b := p.srcs[k].next(p.duration); kd != evNone && (src < 0 || t < at || t == at && kd < kind) {
				src, kind, at, burst = k, kd, t, b
			}
		}
		if src < 0 {
			return Request{}, false
		}
		s := &p.srcs[src]
		switch kind {
		case evChange:
			s.step++
			s.draw(at, p.duration, p.poisson)
			continue
		case evBurst:
			s.sent[burst]++
			return p.request(at, s.class, s.bclasses), true
		}
		r := p.request(at, s.class, s.classes)
		s.draw(at, p.duration, p.poisson)
		return r, true
	}
}

// request is the next logical request, at at, of class ci or, for -1, of the class a draw
// from classes picks by the shares.
func (p *Plan) request(at time.Duration, ci int, classes *rand.Rand) Request {
	if ci < 0 {
		u := classes.Float64()
		ci = 0
		for ci < len(p.cum)-1 && u >= p.cum[ci] {
			ci++
		}
	}
	r := Request{ID: p.next, At: at, Class: ci, Key: p.key(), Deadline: at + p.classes[ci].Deadline}
	p.next++
	return r
}

func (p *Plan) key() int {
	if p.zipf != nil {
		return int(p.zipf.Uint64())
	}
	return p.keys.IntN(p.nkeys)
}

// ConstantPlan returns the plan of one class sending method to the target's own path at
// rate for duration: uniform arrivals unless poisson, each with deadline, timeout and no
// retries. It is `goodput attack URL --rate`.
func ConstantPlan(rate scenario.Rate, duration time.Duration, poisson bool, c Class, seed uint64) (*Plan, error) {
	load := scenario.Traffic{Arrivals: scenario.ArrivalsUniform, Schedule: []scenario.RateStep{{At: 0, Rate: rate}}}
	if poisson {
		load.Arrivals = scenario.ArrivalsPoisson
	}
	if c.Name == "" {
		c.Name = "request"
	}
	c.Share = 1
	return NewPlan(load, duration, []Class{c}, seed)
}

// joinPath is the URL of a class's request on base: the class's path (with its query)
// after base's path, or base's own path and query when the class has none.
func joinPath(base *url.URL, path string) (*url.URL, error) {
	u := *base
	if path == "" {
		if u.Path == "" {
			u.Path = "/"
		}
		return &u, nil
	}
	rel, err := url.ParseRequestURI(path)
	if err != nil {
		return nil, fmt.Errorf("path %q: %w", path, err)
	}
	u.Path = strings.TrimSuffix(base.Path, "/") + rel.Path
	u.RawPath = ""
	u.RawQuery = rel.RawQuery
	return &u, nil
}
