package packet

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// The JSON boundary. In memory every duration is a time.Duration; packet.json and
// events.jsonl hold them as float milliseconds (keys ending in _ms) or seconds (_s), rounded
// to the microsecond. The wire types below mirror the public ones field for field, in the
// same order and with the same keys, with those durations as float64: the public types'
// MarshalJSON and UnmarshalJSON go through them, and so do WriteJSON and ReadJSON.

// Milliseconds is d in milliseconds, rounded to the microsecond, as packet.json writes it.
func Milliseconds(d time.Duration) float64 { return ms(d) }

// Seconds is d in seconds, rounded to the microsecond, as packet.json writes it.
func Seconds(d time.Duration) float64 { return seconds(d) }

// roundMS and roundS are d rounded to the microsecond exactly as packet.json writes it in
// milliseconds or seconds and reads it back: what a [Read] packet holds.
func roundMS(d time.Duration) time.Duration { return fromMS(ms(d)) }
func roundS(d time.Duration) time.Duration  { return fromS(seconds(d)) }

// fromMS and fromS are the durations of x milliseconds and x seconds, to the microsecond
// (the resolution packet.json has); they invert ms and seconds exactly for every value those
// return. x must be in range (see durationOf).
func fromMS(x float64) time.Duration { return time.Duration(math.Round(x*1e3)) * time.Microsecond }
func fromS(x float64) time.Duration  { return time.Duration(math.Round(x*1e6)) * time.Microsecond }

// maxDurationMS is the largest magnitude of milliseconds a time.Duration holds (about 292
// years), with a margin for rounding.
const maxDurationMS = float64(math.MaxInt64/int64(time.Millisecond)) - 1

// durationOf converts x in milliseconds (perMS 1) or seconds (perMS 1000) to a duration,
// or reports that key is out of range.
func durationOf(key string, x, perMS float64) (time.Duration, error) {
	if math.IsNaN(x) || math.Abs(x*perMS) > maxDurationMS {
		return 0, fmt.Errorf("%s is %v, out of the range of a duration (about ±292 years)", key, x)
	}
	if perMS == 1 {
		return fromMS(x), nil
	}
	return fromS(x), nil
}

// durations converts wire values to durations, remembering the first that is out of range.
type durations struct{ err error }

func (c *durations) ms(key string, x float64) time.Duration { return c.conv(key, x, 1) }
func (c *durations) s(key string, x float64) time.Duration  { return c.conv(key, x, 1000) }
func (c *durations) conv(key string, x, per float64) time.Duration {
	d, err := durationOf(key, x, per)
	if err != nil && c.err == nil {
		c.err = err
	}
	return d
}

func (c *durations) sp(key string, x *float64) *time.Duration {
	if x == nil {
		return nil
	}
	d := c.s(key, *x)
	return &d
}

func secondsPtr(d *time.Duration) *float64 {
	if d == nil {
		return nil
	}
	v := seconds(*d)
	return &v
}

// marshal is json.Marshal without HTML escaping, as WriteJSON writes: a MarshalJSON's
// output is copied as it is, so escaping here would show in packet.json.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

type packetJSON struct {
	Scenario     string    `json:"scenario"`
	Seed         uint64    `json:"seed"`
	ModelVersion int       `json:"model_version,omitempty"`
	Set          []string  `json:"set,omitempty"`
	Arms         []armJSON `json:"arms"`
}

type armJSON struct {
	Name          string            `json:"name"`
	Source        string            `json:"source,omitempty"`
	Set           []string          `json:"set,omitempty"`
	Totals        Totals            `json:"totals"`
	Amplification amplificationJSON `json:"amplification"`
	Duplicates    Duplicates        `json:"duplicates"`
	Objectives    []Objective       `json:"objectives"`
	Transitions   []transitionJSON  `json:"transitions"`

	Start        time.Time             `json:"start"`
	Tick         float64               `json:"tick_ms"`
	Duration     float64               `json:"duration_s"`
	Rates        Rates                 `json:"rates_per_s"`
	Latency      percentilesJSON       `json:"latency"`
	Classes      []classJSON           `json:"classes"`
	Layers       []LayerStats          `json:"layers"`
	Retry        Retry                 `json:"retry"`
	RejectedBy   map[string]int64      `json:"rejected_by_reason"`
	ShedBy       map[string]int64      `json:"shed_by_feature"`
	Samples      int                   `json:"samples"`
	Queue        queueJSON             `json:"queue"`
	Dependencies []dependencyStatsJSON `json:"dependencies"`
	Caches       []CacheStats          `json:"caches"`
	Health       []HealthStats         `json:"health,omitempty"`
	Capacity     Capacity              `json:"capacity"`
	Invariants   []Invariant           `json:"invariants"`
	Recovery     recoveryJSON          `json:"recovery"`
	Alerts       []alertJSON           `json:"alerts,omitempty"`
	Jobs         []Job                 `json:"jobs,omitempty"`
	Breakers     []BreakerStats        `json:"breakers,omitempty"`
	Cells        []CellStats           `json:"cells,omitempty"`
	Live         *liveJSON             `json:"live,omitempty"`
}

type liveJSON struct {
	StartedAt    time.Time        `json:"started_at"`
	Elapsed      float64          `json:"elapsed_s"`
	Interrupted  bool             `json:"interrupted"`
	Sent         int64            `json:"sent"`
	Unsent       int64            `json:"unsent"`
	FailedBy     map[string]int64 `json:"failed_by_cause"`
	Lateness     percentilesJSON  `json:"lateness"`
	PeakInFlight int              `json:"peak_in_flight"`
	MaxInFlight  int              `json:"max_in_flight"`
	Overhead     overheadJSON     `json:"overhead"`
	Proxies      []ProxyEvidence  `json:"proxies"`
}

type overheadJSON struct {
	GeneratorCPU           float64 `json:"generator_cpu_s"`
	GeneratorCPUPerRequest float64 `json:"generator_cpu_per_request_ms"`
	ProxyCPU               float64 `json:"proxy_cpu_s"`
	ProxyCPUPerRequest     float64 `json:"proxy_cpu_per_request_ms"`
	ServiceCPU             float64 `json:"service_cpu_s"`
	ServiceCPUPerRequest   float64 `json:"service_cpu_per_request_ms"`
	Cores                  int     `json:"cores"`
	CPUShare               float64 `json:"cpu_share"`
}

type amplificationJSON struct {
	Total   float64            `json:"total"`
	ByLayer map[string]float64 `json:"by_layer"`
	Peak    float64            `json:"peak"`
	PeakAt  float64            `json:"peak_at_s"`
}

type transitionJSON struct {
	At         time.Time `json:"at"`
	From       string    `json:"from"`
	To         string    `json:"to"`
	Generation uint64    `json:"generation"`
	Reason     string    `json:"reason"`
	T          float64   `json:"t_s"`
	Manual     bool      `json:"manual"`
}

type percentilesJSON struct {
	Count int64   `json:"count"`
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	P99   float64 `json:"p99_ms"`
	P999  float64 `json:"p999_ms"`
	Max   float64 `json:"max_ms"`
	Mean  float64 `json:"mean_ms"`
}

type classJSON struct {
	Name      string          `json:"name"`
	Offered   int64           `json:"offered"`
	Admitted  int64           `json:"admitted"`
	Rejected  int64           `json:"rejected"`
	Goodput   int64           `json:"goodput"`
	Late      int64           `json:"late"`
	Expired   int64           `json:"expired"`
	Failed    int64           `json:"failed"`
	Ambiguous int64           `json:"ambiguous"`
	Shed      int64           `json:"shed"`
	Latency   percentilesJSON `json:"latency"`
	QueueWait percentilesJSON `json:"queue_wait"`
	Remaining percentilesJSON `json:"remaining_deadline"`
	Overdue   int64           `json:"overdue"`
}

type queueJSON struct {
	AgeMax  float64 `json:"age_max_ms"`
	AgeMean float64 `json:"age_mean_ms"`
	LenMax  int     `json:"len_max"`
}

type dependencyStatsJSON struct {
	Name            string          `json:"name"`
	Calls           int64           `json:"calls"`
	ConnWait        percentilesJSON `json:"connection_wait"`
	ServiceTime     percentilesJSON `json:"service_time"`
	ConcurrencyMax  int             `json:"concurrency_max"`
	ConcurrencyMean float64         `json:"concurrency_mean"`
	WaitingMax      int             `json:"waiting_max"`
	PoolExhausted   int64           `json:"pool_exhausted,omitempty"`
}

type recoveryJSON struct {
	After       float64  `json:"after_s"`
	Stabilize   *float64 `json:"stabilize_s"`
	Drain       *float64 `json:"drain_s"`
	Normal      *float64 `json:"normal_s"`
	StableFrac  float64  `json:"stable_fraction"`
	DrainAge    float64  `json:"drain_age_ms"`
	StateSource string   `json:"state_source"`
}

type eventJSON struct {
	At         time.Time `json:"at"`
	T          float64   `json:"t_s"`
	Arm        string    `json:"arm"`
	Kind       string    `json:"kind"`
	Text       string    `json:"text"`
	From       string    `json:"from,omitempty"`
	To         string    `json:"to,omitempty"`
	Generation uint64    `json:"generation,omitempty"`
	Manual     bool      `json:"manual,omitempty"`
	Dependency string    `json:"dependency,omitempty"`
	Instance   *int      `json:"instance,omitempty"`
	Cell       string    `json:"cell,omitempty"`
}

// ---- to the wire ----

func (p *Packet) wire() packetJSON {
	w := packetJSON{Scenario: p.Scenario, Seed: p.Seed, ModelVersion: p.ModelVersion, Set: p.Set}
	if p.Arms != nil {
		w.Arms = make([]armJSON, len(p.Arms))
		for i := range p.Arms {
			w.Arms[i] = p.Arms[i].wire()
		}
	}
	return w
}

func (a *Arm) wire() armJSON {
	w := armJSON{
		Name: a.Name, Source: a.Source, Set: a.Set, Totals: a.Totals, Amplification: a.Amplification.wire(),
		Duplicates: a.Duplicates, Objectives: a.Objectives,
		Start: a.Start, Tick: ms(a.Tick), Duration: seconds(a.Duration), Rates: a.Rates,
		Latency: a.Latency.wire(), Layers: a.Layers, Retry: a.Retry,
		RejectedBy: a.RejectedBy, ShedBy: a.ShedBy, Samples: a.Samples, Queue: a.Queue.wire(),
		Caches: a.Caches, Health: a.Health, Capacity: a.Capacity, Invariants: a.Invariants,
		Recovery: a.Recovery.wire(), Cells: a.Cells, Jobs: a.Jobs,
	}
	w.Transitions = convertAll(a.Transitions, Transition.wire)
	w.Classes = convertAll(a.Classes, ClassStats.wire)
	w.Dependencies = convertAll(a.Dependencies, DependencyStats.wire)
	w.Alerts = convertAll(a.Alerts, Alert.wire)
	w.Breakers = a.Breakers
	if a.Live != nil {
		l := a.Live.wire()
		w.Live = &l
	}
	return w
}

func (l *Live) wire() liveJSON {
	o := l.Overhead
	return liveJSON{StartedAt: l.StartedAt, Elapsed: seconds(l.Elapsed), Interrupted: l.Interrupted,
		Sent: l.Sent, Unsent: l.Unsent, FailedBy: l.FailedBy, Lateness: l.Lateness.wire(),
		PeakInFlight: l.PeakInFlight, MaxInFlight: l.MaxInFlight, Proxies: l.Proxies,
		Overhead: overheadJSON{GeneratorCPU: seconds(o.GeneratorCPU), GeneratorCPUPerRequest: ms(o.GeneratorCPUPerRequest),
			ProxyCPU: seconds(o.ProxyCPU), ProxyCPUPerRequest: ms(o.ProxyCPUPerRequest),
			ServiceCPU: seconds(o.ServiceCPU), ServiceCPUPerRequest: ms(o.ServiceCPUPerRequest), Cores: o.Cores, CPUShare: o.CPUShare}}
}

// convertAll maps f over s, keeping nil nil and empty empty (packet.json tells null from []).
func convertAll[T, U any](s []T, f func(T) U) []U {
	if s == nil {
		return nil
	}
	out := make([]U, len(s))
	for i, v := range s {
		out[i] = f(v)
	}
	return out
}

func (a Amplification) wire() amplificationJSON {
	return amplificationJSON{Total: a.Total, ByLayer: a.ByLayer, Peak: a.Peak, PeakAt: seconds(a.PeakAt)}
}

func (t Transition) wire() transitionJSON {
	return transitionJSON{At: t.At, From: t.From, To: t.To, Generation: t.Generation, Reason: t.Reason,
		T: seconds(t.T), Manual: t.Manual}
}

func (p Percentiles) wire() percentilesJSON {
	return percentilesJSON{Count: p.Count, P50: ms(p.P50), P90: ms(p.P90), P99: ms(p.P99),
		P999: ms(p.P999), Max: ms(p.Max), Mean: ms(p.Mean)}
}

func (c ClassStats) wire() classJSON {
	return classJSON{Name: c.Name, Offered: c.Offered, Admitted: c.Admitted, Rejected: c.Rejected,
		Goodput: c.Goodput, Late: c.Late, Expired: c.Expired, Failed: c.Failed,
		Ambiguous: c.Ambiguous, Shed: c.Shed, Latency: c.Latency.wire(),
		QueueWait: c.QueueWait.wire(), Remaining: c.Remaining.wire(), Overdue: c.Overdue}
}

func (q Queue) wire() queueJSON {
	return queueJSON{AgeMax: ms(q.AgeMax), AgeMean: ms(q.AgeMean), LenMax: q.LenMax}
}

func (d DependencyStats) wire() dependencyStatsJSON {
	return dependencyStatsJSON{Name: d.Name, Calls: d.Calls, ConnWait: d.ConnWait.wire(),
		ServiceTime: d.ServiceTime.wire(), ConcurrencyMax: d.ConcurrencyMax,
		ConcurrencyMean: d.ConcurrencyMean, WaitingMax: d.WaitingMax, PoolExhausted: d.PoolExhausted}
}

func (r Recovery) wire() recoveryJSON {
	return recoveryJSON{After: seconds(r.After), Stabilize: secondsPtr(r.Stabilize),
		Drain: secondsPtr(r.Drain), Normal: secondsPtr(r.Normal), StableFrac: r.StableFrac,
		DrainAge: ms(r.DrainAge), StateSource: r.StateSource}
}

func (e Event) wire() eventJSON {
	return eventJSON{At: e.At, T: seconds(e.T), Arm: e.Arm, Kind: e.Kind, Text: e.Text,
		From: e.From, To: e.To, Generation: e.Generation, Manual: e.Manual,
		Dependency: e.Dependency, Instance: e.Instance, Cell: e.Cell}
}

// ---- from the wire ----

func (w *packetJSON) packet() (*Packet, error) {
	p := &Packet{Scenario: w.Scenario, Seed: w.Seed, ModelVersion: w.ModelVersion, Set: w.Set}
	if w.Arms != nil {
		p.Arms = make([]Arm, len(w.Arms))
	}
	for i := range w.Arms {
		var c durations
		p.Arms[i] = w.Arms[i].arm(&c)
		if c.err != nil {
			return nil, fmt.Errorf("arms[%d].%w", i, c.err)
		}
	}
	return p, nil
}

func (w *armJSON) arm(c *durations) Arm {
	a := Arm{
		Name: w.Name, Source: w.Source, Set: w.Set, Totals: w.Totals, Amplification: w.Amplification.amplification(c),
		Duplicates: w.Duplicates, Objectives: w.Objectives,
		Start: w.Start, Tick: c.ms("tick_ms", w.Tick), Duration: c.s("duration_s", w.Duration),
		Rates: w.Rates, Latency: w.Latency.percentiles(c, "latency"), Layers: w.Layers,
		Retry: w.Retry, RejectedBy: w.RejectedBy, ShedBy: w.ShedBy, Samples: w.Samples,
		Queue: w.Queue.queue(c), Caches: w.Caches, Health: w.Health, Capacity: w.Capacity,
		Invariants: w.Invariants, Recovery: w.Recovery.recovery(c), Cells: w.Cells, Jobs: w.Jobs,
	}
	a.Transitions = convertAll(w.Transitions, func(t transitionJSON) Transition { return t.transition(c) })
	a.Classes = convertAll(w.Classes, func(x classJSON) ClassStats { return x.class(c) })
	a.Dependencies = convertAll(w.Dependencies, func(d dependencyStatsJSON) DependencyStats { return d.dependency(c) })
	a.Alerts = convertAll(w.Alerts, func(x alertJSON) Alert { return x.alert(c) })
	a.Breakers = w.Breakers
	if w.Live != nil {
		a.Live = w.Live.live(c)
	}
	return a
}

func (w *liveJSON) live(c *durations) *Live {
	o := w.Overhead
	return &Live{StartedAt: w.StartedAt, Elapsed: c.s("live.elapsed_s", w.Elapsed), Interrupted: w.Interrupted,
		Sent: w.Sent, Unsent: w.Unsent, FailedBy: w.FailedBy, Lateness: w.Lateness.percentiles(c, "live.lateness"),
		PeakInFlight: w.PeakInFlight, MaxInFlight: w.MaxInFlight, Proxies: w.Proxies,
		Overhead: Overhead{GeneratorCPU: c.s("live.overhead.generator_cpu_s", o.GeneratorCPU),
			GeneratorCPUPerRequest: c.ms("live.overhead.generator_cpu_per_request_ms", o.GeneratorCPUPerRequest),
			ProxyCPU:               c.s("live.overhead.proxy_cpu_s", o.ProxyCPU),
			ProxyCPUPerRequest:     c.ms("live.overhead.proxy_cpu_per_request_ms", o.ProxyCPUPerRequest),
			ServiceCPU:             c.s("live.overhead.service_cpu_s", o.ServiceCPU),
			ServiceCPUPerRequest:   c.ms("live.overhead.service_cpu_per_request_ms", o.ServiceCPUPerRequest),
			Cores:                  o.Cores, CPUShare: o.CPUShare}}
}

func (w amplificationJSON) amplification(c *durations) Amplification {
	return Amplification{Total: w.Total, ByLayer: w.ByLayer, Peak: w.Peak, PeakAt: c.s("amplification.peak_at_s", w.PeakAt)}
}

func (w transitionJSON) transition(c *durations) Transition {
	return Transition{At: w.At, From: w.From, To: w.To, Generation: w.Generation, Reason: w.Reason,
		T: c.s("transitions.t_s", w.T), Manual: w.Manual}
}

func (w percentilesJSON) percentiles(c *durations, key string) Percentiles {
	return Percentiles{Count: w.Count, P50: c.ms(key+".p50_ms", w.P50), P90: c.ms(key+".p90_ms", w.P90),
		P99: c.ms(key+".p99_ms", w.P99), P999: c.ms(key+".p999_ms", w.P999),
		Max: c.ms(key+".max_ms", w.Max), Mean: c.ms(key+".mean_ms", w.Mean)}
}

func (w classJSON) class(c *durations) ClassStats {
	return ClassStats{Name: w.Name, Offered: w.Offered, Admitted: w.Admitted, Rejected: w.Rejected,
		Goodput: w.Goodput, Late: w.Late, Expired: w.Expired, Failed: w.Failed,
		Ambiguous: w.Ambiguous, Shed: w.Shed, Latency: w.Latency.percentiles(c, "classes.latency"),
		QueueWait: w.QueueWait.percentiles(c, "classes.queue_wait"),
		Remaining: w.Remaining.percentiles(c, "classes.remaining_deadline"), Overdue: w.Overdue}
}

func (w queueJSON) queue(c *durations) Queue {
	return Queue{AgeMax: c.ms("queue.age_max_ms", w.AgeMax), AgeMean: c.ms("queue.age_mean_ms", w.AgeMean), LenMax: w.LenMax}
}

func (w dependencyStatsJSON) dependency(c *durations) DependencyStats {
	return DependencyStats{Name: w.Name, Calls: w.Calls,
		ConnWait:        w.ConnWait.percentiles(c, "dependencies.connection_wait"),
		ServiceTime:     w.ServiceTime.percentiles(c, "dependencies.service_time"),
		ConcurrencyMax:  w.ConcurrencyMax,
		ConcurrencyMean: w.ConcurrencyMean, WaitingMax: w.WaitingMax, PoolExhausted: w.PoolExhausted}
}

func (w recoveryJSON) recovery(c *durations) Recovery {
	return Recovery{After: c.s("recovery.after_s", w.After), Stabilize: c.sp("recovery.stabilize_s", w.Stabilize),
		Drain: c.sp("recovery.drain_s", w.Drain), Normal: c.sp("recovery.normal_s", w.Normal),
		StableFrac: w.StableFrac, DrainAge: c.ms("recovery.drain_age_ms", w.DrainAge),
		StateSource: w.StateSource}
}

func (w eventJSON) event(c *durations) Event {
	return Event{At: w.At, T: c.s("t_s", w.T), Arm: w.Arm, Kind: w.Kind, Text: w.Text,
		From: w.From, To: w.To, Generation: w.Generation, Manual: w.Manual,
		Dependency: w.Dependency, Instance: w.Instance, Cell: w.Cell}
}

// ---- the public types' JSON methods ----

// MarshalJSON writes the arm as packet.json holds it: durations in ms or s.
func (a Arm) MarshalJSON() ([]byte, error) { return marshal(a.wire()) }

// UnmarshalJSON reads an arm of packet.json.
func (a *Arm) UnmarshalJSON(b []byte) error {
	return unmarshal(b, func(w *armJSON, c *durations) { *a = w.arm(c) })
}

// MarshalJSON writes the amplification with its peak's time in seconds.
func (a Amplification) MarshalJSON() ([]byte, error) { return marshal(a.wire()) }

// UnmarshalJSON reads an amplification of packet.json.
func (a *Amplification) UnmarshalJSON(b []byte) error {
	return unmarshal(b, func(w *amplificationJSON, c *durations) { *a = w.amplification(c) })
}

// MarshalJSON writes the transition with its time in seconds.
func (t Transition) MarshalJSON() ([]byte, error) { return marshal(t.wire()) }

// UnmarshalJSON reads a transition of packet.json.
func (t *Transition) UnmarshalJSON(b []byte) error {
	return unmarshal(b, func(w *transitionJSON, c *durations) { *t = w.transition(c) })
}

// MarshalJSON writes the percentiles in milliseconds.
func (p Percentiles) MarshalJSON() ([]byte, error) { return marshal(p.wire()) }

// UnmarshalJSON reads percentiles in milliseconds.
func (p *Percentiles) UnmarshalJSON(b []byte) error {
	return unmarshal(b, func(w *percentilesJSON, c *durations) { *p = w.percentiles(c, "percentiles") })
}

// MarshalJSON writes the class's figures, timings in milliseconds.
func (s ClassStats) MarshalJSON() ([]byte, error) { return marshal(s.wire()) }

// UnmarshalJSON reads a class of packet.json.
func (s *ClassStats) UnmarshalJSON(b []byte) error {
	return unmarshal(b, func(w *classJSON, c *durations) { *s = w.class(c) })
}

// MarshalJSON writes the queue's ages in milliseconds.
func (q Queue) MarshalJSON() ([]byte, error) { return marshal(q.wire()) }

// UnmarshalJSON reads a queue of packet.json.
func (q *Queue) UnmarshalJSON(b []byte) error {
	return unmarshal(b, func(w *queueJSON, c *durations) { *q = w.queue(c) })
}

// MarshalJSON writes the dependency's figures, timings in milliseconds.
func (d DependencyStats) MarshalJSON() ([]byte, error) { return marshal(d.wire()) }

// UnmarshalJSON reads a dependency of packet.json.
func (d *DependencyStats) UnmarshalJSON(b []byte) error {
	return unmarshal(b, func(w *dependencyStatsJSON, c *durations) { *d = w.dependency(c) })
}

// MarshalJSON writes the recovery timings in seconds (the drain age in milliseconds).
func (r Recovery) MarshalJSON() ([]byte, error) { return marshal(r.wire()) }

// UnmarshalJSON reads a recovery of packet.json.
func (r *Recovery) UnmarshalJSON(b []byte) error {
	return unmarshal(b, func(w *recoveryJSON, c *durations) { *r = w.recovery(c) })
}

// MarshalJSON writes the event as a line of events.jsonl holds it: its time in seconds.
func (e Event) MarshalJSON() ([]byte, error) { return marshal(e.wire()) }

// UnmarshalJSON reads a line of events.jsonl.
func (e *Event) UnmarshalJSON(b []byte) error {
	return unmarshal(b, func(w *eventJSON, c *durations) { *e = w.event(c) })
}

// unmarshal decodes b into a wire value and converts it with set.
func unmarshal[W any](b []byte, set func(*W, *durations)) error {
	var w W
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	var c durations
	set(&w, &c)
	return c.err
}
