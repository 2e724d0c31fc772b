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
// The rule is the replay's (package model): after each arrival, or at each step of the
// schedule, the next arrival comes an exponential gap (poisson) or 1/rate (uniform) later
// at the rate then in force, a step cancelling the pending arrival and drawing afresh; a
// request's class is the first whose cumulative share exceeds a uniform draw. The draws
// come from the same seed-named streams ("arrivals" and "class" of [sim.NewStreams]), so
// with the same seed and no fault that shifts the rate a plan's send times and classes
// are the replay's arrivals. Keys are drawn from a stream of their own ("load/keys"), from
// the same popularity (keys.count keys, Zipf keys.zipf or uniform); the replay names no
// key, it places each request in that popularity by a draw of its own.
type Plan struct {
	classes  []Class
	cum      []float64
	schedule []scenario.RateStep
	duration time.Duration
	poisson  bool

	arrivals, class, keys *rand.Rand
	zipf                  *rand.Zipf
	nkeys                 int

	t       time.Duration // the last arrival or step change
	step    int           // the next schedule step to come into force
	pending time.Duration // the next arrival; -1 for none until the next step
	next    int64
	started bool
	seed    uint64
}

// NewPlan returns the plan of load over classes for duration, drawn with seed. load's
// schedule must start at 0s with rates of zero or more; the classes' shares must sum to 1
// and their deadlines be positive.
func NewPlan(load scenario.Traffic, duration time.Duration, classes []Class, seed uint64) (*Plan, error) {
	if err := checkPlan(load, duration, classes); err != nil {
		return nil, err
	}
	st := sim.NewStreams(seed)
	p := &Plan{
		classes:  classes,
		schedule: load.Schedule,
		duration: duration,
		poisson:  load.Arrivals != scenario.ArrivalsUniform,
		arrivals: st.Stream("arrivals"),
		class:    st.Stream("class"),
		keys:     st.Stream("load/keys"),
		nkeys:    load.Keys.Count,
		pending:  -1,
		seed:     seed,
	}
	if p.nkeys <= 0 {
		p.nkeys = 1_000_000
	}
	if load.Keys.Zipf > 1 {
		p.zipf = rand.NewZipf(p.keys, load.Keys.Zipf, 1, uint64(p.nkeys-1))
	}
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
	if len(load.Schedule) == 0 || load.Schedule[0].At != 0 {
		errs = append(errs, errors.New("schedule: expected steps from 0s, e.g. [{at: 0s, rate: 500/s}]"))
	}
	for i, st := range load.Schedule {
		if r := float64(st.Rate); r < 0 || math.IsNaN(r) || math.IsInf(r, 0) {
			errs = append(errs, fmt.Errorf("schedule step %d: rate %s: expected a finite rate of zero or more", i, st.Rate))
		}
		if st.RampTo != nil || st.IsBurst() {
			errs = append(errs, fmt.Errorf("schedule step %d: the live generator sends constant rate steps only; expected no ramp_to, burst or within", i))
		}
		if i > 0 && st.At <= load.Schedule[i-1].At {
			errs = append(errs, fmt.Errorf("schedule step %d at %s: expected steps in increasing time", i, st.At))
		}
	}
	if len(load.Users) > 0 {
		errs = append(errs, errors.New("users: the live generator sends open-loop load only; expected no closed-loop users"))
	}
	if len(classes) == 0 {
		errs = append(errs, errors.New("no classes: expected at least one"))
	}
	var sum float64
	for _, c := range classes {
		sum += c.Share
		if c.Deadline <= 0 {
			errs = append(errs, fmt.Errorf("class %q: deadline %s: expected a positive deadline", c.Name, c.Deadline))
		}
		if c.Share < 0 {
			errs = append(errs, fmt.Errorf("class %q: share %v: expected zero or more", c.Name, c.Share))
		}
	}
	if len(classes) > 0 && math.Abs(sum-1) > 1e-6 {
		errs = append(errs, fmt.Errorf("class shares sum to %v: expected 1", sum))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("loadgen: %w", err)
	}
	return nil
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
		})
	}
	return out, nil
}

// Classes returns the plan's classes; a [Request]'s Class indexes them.
func (p *Plan) Classes() []Class { return p.classes }

// Duration is how long the plan sends: no intended send time is at or after it.
func (p *Plan) Duration() time.Duration { return p.duration }

// rateAt is the scheduled rate at t.
func (p *Plan) rateAt(t time.Duration) float64 {
	r := 0.0
	for _, st := range p.schedule {
		if st.At.Std() > t {
			break
		}
		r = float64(st.Rate)
	}
	return r
}

// draw sets the pending arrival from t, as the replay's scheduleArrival does.
func (p *Plan) draw(t time.Duration) {
	p.pending = -1
	r := p.rateAt(t)
	if r <= 0 {
		return // the next step draws again
	}
	var gap float64
	if p.poisson {
		gap = p.arrivals.ExpFloat64() / r
	} else {
		gap = 1 / r
	}
	d := time.Duration(gap * float64(time.Second))
	if t+d >= p.duration {
		return
	}
	p.pending = t + d
}

// Next returns the next logical request in intended-send order, and false after the last.
func (p *Plan) Next() (Request, bool) {
	if !p.started {
		p.started = true
		p.step = 1
		p.draw(0)
	}
	for {
		change := time.Duration(-1)
		for p.step < len(p.schedule) {
			if at := p.schedule[p.step].At.Std(); at > 0 && at < p.duration {
				change = at
				break
			}
			p.step++
		}
		switch {
		case p.pending >= 0 && (change < 0 || p.pending < change):
			// A step at the same instant as the arrival comes first and cancels it, as in
			// the replay, whose step events were scheduled before any arrival.
			at := p.pending
			u := p.class.Float64()
			ci := 0
			for ci < len(p.cum)-1 && u >= p.cum[ci] {
				ci++
			}
			r := Request{ID: p.next, At: at, Class: ci, Key: p.key(), Deadline: at + p.classes[ci].Deadline}
			p.next++
			p.t = at
			p.draw(at)
			return r, true
		case change >= 0:
			p.t = change
			p.step++
			p.draw(change)
		default:
			return Request{}, false
		}
	}
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
