package loadgen

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goodput-lab/goodput/internal/latency"
)

// Result is what became of every logical request of a run. For each class and in total,
// Offered = Sent + Unsent and Sent = Goodput + Late + Rejected + Failed.
type Result struct {
	// Target is the URL attacked.
	Target string `json:"target"`
	// Seed is the plan's seed.
	Seed uint64 `json:"seed"`
	// Start is the instant of time 0 of the plan: a request's intended send time is
	// Start plus its At, its Goodput-Deadline Start plus its Deadline.
	Start time.Time `json:"start"`
	// Duration is the plan's length; Elapsed the run's, with its drain.
	Duration time.Duration `json:"-"`
	Elapsed  time.Duration `json:"-"`
	// Interrupted says the run was stopped before its plan ended.
	Interrupted bool `json:"interrupted"`
	// Classes are by class, in the plan's order; Total sums them.
	Classes []ClassResult `json:"classes"`
	Total   ClassResult   `json:"total"`
	// Lateness is the time from each sent request's intended send time to its first
	// attempt: how late the generator itself was.
	Lateness Percentiles `json:"lateness"`
	// MaxInFlight is the bound on requests in flight; PeakInFlight the most there were;
	// Workers how many worker goroutines ran.
	MaxInFlight  int `json:"max_in_flight"`
	PeakInFlight int `json:"peak_in_flight"`
	Workers      int `json:"workers"`
	// CPU is the process's CPU time (user and system) over the run: the generator's own,
	// plus anything else the process runs (a server in the same process, in tests).
	CPU time.Duration `json:"-"`
	// Series has one row per tick of the run, from its start.
	Series []Row `json:"-"`
	// Tick is the series' period.
	Tick time.Duration `json:"-"`
}

// ClassResult counts one class's logical requests by what became of them.
type ClassResult struct {
	Name string `json:"name"`
	// Offered is how many the plan scheduled; Sent how many got a first attempt; Unsent
	// how many did not, because their deadline passed while every worker was busy or
	// because they name an order ({{.Order}}) and none was acknowledged yet: NoOrder of
	// them, not the service's doing.
	Offered int64 `json:"offered"`
	Sent    int64 `json:"sent"`
	Unsent  int64 `json:"unsent"`
	NoOrder int64 `json:"no_order,omitempty"`
	// Goodput is 2xx before the deadline; Late 2xx after it; Rejected a final 429 or 503;
	// Failed anything else (a timeout, a transport error, another status, cut at the end).
	Goodput  int64 `json:"goodput"`
	Late     int64 `json:"late"`
	Rejected int64 `json:"rejected"`
	Failed   int64 `json:"failed"`
	// Attempts counts every attempt, retries included.
	Attempts int64 `json:"attempts"`
	// Rejections break Rejected down by status and reason header; Failures break Failed
	// down by cause. Both are sorted by count, most first.
	Rejections []Rejection `json:"rejections,omitempty"`
	Failures   []Failure   `json:"failures,omitempty"`
	// Latency is from the intended send time to the terminal answer, over the sent.
	Latency Percentiles `json:"latency"`
}

// Rejection is a count of final refusals with one status and reason.
type Rejection struct {
	Status int    `json:"status"`
	Reason string `json:"reason"` // the Goodput-Reject-Reason header; "" when absent
	Count  int64  `json:"count"`
}

// Failure is a count of failures of one cause: "timeout", "error" (a transport error),
// "status 500" (a status not retried or retried out), "unfinished" (cut at the end).
type Failure struct {
	Cause string `json:"cause"`
	Count int64  `json:"count"`
}

// Percentiles summarises a histogram of durations: its count, percentiles, most and mean.
type Percentiles struct {
	Count                          int64
	P50, P90, P99, P999, Max, Mean time.Duration
}

// MarshalJSON writes the durations in milliseconds.
func (p Percentiles) MarshalJSON() ([]byte, error) {
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	return json.Marshal(struct {
		Count int64   `json:"count"`
		P50   float64 `json:"p50_ms"`
		P90   float64 `json:"p90_ms"`
		P99   float64 `json:"p99_ms"`
		P999  float64 `json:"p999_ms"`
		Max   float64 `json:"max_ms"`
		Mean  float64 `json:"mean_ms"`
	}{p.Count, ms(p.P50), ms(p.P90), ms(p.P99), ms(p.P999), ms(p.Max), ms(p.Mean)})
}

// Row is one tick of a run. Offered, Sent and Unsent count by intended send time, Attempts
// by when each was sent, the terminal states and latencies by when they came.
type Row struct {
	T                                                                time.Duration
	Offered, Sent, Unsent, Goodput, Late, Rejected, Failed, Attempts int64
	P50, P99                                                         time.Duration
}

// WriteSeriesCSV writes r's series, one row per tick.
func (r *Result) WriteSeriesCSV(w io.Writer) error {
	b := []byte("t_s,offered,sent,unsent,goodput,late,rejected,failed,attempts,latency_p50_ms,latency_p99_ms\n")
	for _, x := range r.Series {
		b = strconv.AppendFloat(b, x.T.Seconds(), 'f', -1, 64)
		for _, v := range []int64{x.Offered, x.Sent, x.Unsent, x.Goodput, x.Late, x.Rejected, x.Failed, x.Attempts} {
			b = strconv.AppendInt(append(b, ','), v, 10)
		}
		for _, d := range []time.Duration{x.P50, x.P99} {
			b = strconv.AppendFloat(append(b, ','), float64(d)/1e6, 'f', -1, 64)
		}
		b = append(b, '\n')
	}
	_, err := w.Write(b)
	return err
}

// The histograms record microseconds from 1µs to an hour, to 3 significant digits.
const (
	histMax    = time.Hour
	histDigits = 3
)

func newHist(digits int) *latency.Histogram {
	h := latency.New(digits, histMax)
	return &h
}

// record adds d to h in whole microseconds, at least 1.
func record(h *latency.Histogram, d time.Duration) { h.Record(max(d, time.Microsecond)) }

func percentiles(h *latency.Histogram) Percentiles {
	if h.Count() == 0 {
		return Percentiles{}
	}
	us := func(p float64) time.Duration { return time.Duration(h.ValueAtPercentile(p)) * time.Microsecond }
	return Percentiles{Count: h.Count(), P50: us(50), P90: us(90), P99: us(99), P999: us(99.9),
		Max: time.Duration(h.Max()) * time.Microsecond, Mean: time.Duration(h.Mean() * float64(time.Microsecond))}
}

// row is one tick's counters, added to by every worker.
type row struct {
	offered, sent, unsent, goodput, late, rejected, failed, attempts atomic.Int64
}

// seriesLatency holds the latency histograms of the last few ticks (a ring): a tick's
// percentiles are taken, and its histogram reused, when a later tick needs its slot.
// Memory is one small histogram per slot, whatever the run's length.
type seriesLatency struct {
	mu       sync.Mutex
	slots    [4]latSlot
	p50, p99 []time.Duration
}

type latSlot struct {
	row int
	h   *latency.Histogram
}

func (s *seriesLatency) init(rows int) {
	s.p50, s.p99 = make([]time.Duration, rows), make([]time.Duration, rows)
	for i := range s.slots {
		s.slots[i] = latSlot{row: -1, h: newHist(2)}
	}
}

// record adds d to tick i's latencies. A record for a tick whose slot has already been
// taken by a later one (a worker held up for several ticks) is left out of the series'
// percentiles; the class's latency has it.
func (s *seriesLatency) record(i int, d time.Duration) {
	s.mu.Lock()
	sl := &s.slots[i%len(s.slots)]
	if sl.row != i {
		if sl.row > i {
			s.mu.Unlock()
			return
		}
		s.flush(sl)
		sl.row = i
	}
	record(sl.h, d)
	s.mu.Unlock()
}

func (s *seriesLatency) flush(sl *latSlot) {
	if sl.row >= 0 && sl.h.Count() > 0 {
		p := percentiles(sl.h)
		s.p50[sl.row], s.p99[sl.row] = p.P50, p.P99
	}
	sl.h.Reset()
	sl.row = -1
}

// recorders hands out [stats] to workers for the moment of recording: a worker borrows
// one, records a request's outcome in it and puts it back. There are at most a few per
// CPU, however many workers, and they are merged at the end (histograms are not safe for
// concurrent use, and one per worker would cost 10,000 × their size).
type recorders struct {
	free    chan *stats
	mu      sync.Mutex
	all     []*stats
	classes int
}

const maxRecorders = 16

func (rs *recorders) init(classes int) {
	rs.free = make(chan *stats, maxRecorders)
	rs.classes = classes
}

func (rs *recorders) borrow() *stats {
	select {
	case s := <-rs.free:
		return s
	default:
	}
	rs.mu.Lock()
	if len(rs.all) < maxRecorders {
		s := newStats(rs.classes)
		rs.all = append(rs.all, s)
		rs.mu.Unlock()
		return s
	}
	rs.mu.Unlock()
	return <-rs.free
}

func (rs *recorders) put(s *stats) { rs.free <- s }

// stats are the counts and histograms of one recorder.
type stats struct {
	lateness *latency.Histogram
	classes  []classStats
}

type classStats struct {
	sent, unsent, noOrder, goodput, late, rejected, failed, attempts int64
	latency                                                          *latency.Histogram
	rejections                                                       map[Rejection]int64 // Count unused
	failures                                                         map[string]int64
}

func newStats(classes int) *stats {
	s := &stats{lateness: newHist(histDigits), classes: make([]classStats, classes)}
	for i := range s.classes {
		s.classes[i].latency = newHist(histDigits)
	}
	return s
}

// maxKinds bounds the distinct rejections and failures kept per class; the rest are
// counted under reason "(other)", so a target cannot grow them without bound.
const (
	maxKinds     = 32
	maxReasonLen = 64
)

func (c *classStats) reject(status int, reason string) {
	if len(reason) > maxReasonLen {
		reason = reason[:maxReasonLen]
	}
	if c.rejections == nil {
		c.rejections = map[Rejection]int64{}
	}
	k := Rejection{Status: status, Reason: reason}
	if _, ok := c.rejections[k]; !ok && len(c.rejections) >= maxKinds {
		k.Reason = "(other)"
	}
	c.rejections[k]++
}

func (c *classStats) fail(res cause, status int) {
	var k string
	switch {
	case res == causeTimeout:
		k = "timeout"
	case res == causeCut:
		k = "unfinished"
	case status != 0:
		k = "status " + strconv.Itoa(status)
	default:
		k = "error"
	}
	if c.failures == nil {
		c.failures = map[string]int64{}
	}
	c.failures[k]++ // at most the causes above and one per status: bounded
}

// result merges the recorders into the run's Result.
func (a *Attacker) result(offered []int64, workers int) *Result {
	res := &Result{Target: a.target, Seed: a.plan.seed, Start: a.start, Duration: a.plan.Duration(), Elapsed: a.since(),
		MaxInFlight: a.opts.MaxInFlight, PeakInFlight: int(a.peak.Load()), Workers: workers, Tick: a.tick}
	late := newHist(histDigits)
	total := ClassResult{Name: "total"}
	totalLat := newHist(histDigits)
	totalRej, totalFail := map[Rejection]int64{}, map[string]int64{}
	for ci, c := range a.classes {
		cr := ClassResult{Name: c.Name, Offered: offered[ci]}
		lat := newHist(histDigits)
		rej, fail := map[Rejection]int64{}, map[string]int64{}
		for _, s := range a.rec.all {
			cs := &s.classes[ci]
			cr.Sent += cs.sent
			cr.Unsent += cs.unsent
			cr.NoOrder += cs.noOrder
			cr.Goodput += cs.goodput
			cr.Late += cs.late
			cr.Rejected += cs.rejected
			cr.Failed += cs.failed
			cr.Attempts += cs.attempts
			lat.Merge(cs.latency)
			for k, n := range cs.rejections {
				rej[k] += n
				totalRej[k] += n
			}
			for k, n := range cs.failures {
				fail[k] += n
				totalFail[k] += n
			}
		}
		cr.Latency = percentiles(lat)
		totalLat.Merge(lat)
		cr.Rejections, cr.Failures = rejections(rej), failures(fail)
		total.Offered += cr.Offered
		total.Sent += cr.Sent
		total.Unsent += cr.Unsent
		total.NoOrder += cr.NoOrder
		total.Goodput += cr.Goodput
		total.Late += cr.Late
		total.Rejected += cr.Rejected
		total.Failed += cr.Failed
		total.Attempts += cr.Attempts
		res.Classes = append(res.Classes, cr)
	}
	for _, s := range a.rec.all {
		late.Merge(s.lateness)
	}
	total.Latency = percentiles(totalLat)
	total.Rejections, total.Failures = rejections(totalRej), failures(totalFail)
	res.Total = total
	res.Lateness = percentiles(late)

	a.lat.mu.Lock()
	for i := range a.lat.slots {
		a.lat.flush(&a.lat.slots[i])
	}
	a.lat.mu.Unlock()
	last := a.row(res.Elapsed)
	for i := range a.rows[:last+1] {
		r := &a.rows[i]
		res.Series = append(res.Series, Row{T: time.Duration(i) * a.tick,
			Offered: r.offered.Load(), Sent: r.sent.Load(), Unsent: r.unsent.Load(), Goodput: r.goodput.Load(),
			Late: r.late.Load(), Rejected: r.rejected.Load(), Failed: r.failed.Load(), Attempts: r.attempts.Load(),
			P50: a.lat.p50[i], P99: a.lat.p99[i]})
	}
	return res
}

func rejections(m map[Rejection]int64) []Rejection {
	var out []Rejection
	for k, n := range m {
		out = append(out, Rejection{Status: k.Status, Reason: k.Reason, Count: n})
	}
	slices.SortFunc(out, func(a, b Rejection) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Status, b.Status), cmp.Compare(a.Reason, b.Reason))
	})
	return out
}

func failures(m map[string]int64) []Failure {
	var out []Failure
	for k, n := range m {
		out = append(out, Failure{Cause: k, Count: n})
	}
	slices.SortFunc(out, func(a, b Failure) int { return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Cause, b.Cause)) })
	return out
}

// String is r's one-line summary.
func (r Rejection) String() string {
	if r.Reason == "" {
		return fmt.Sprintf("%d", r.Status)
	}
	return fmt.Sprintf("%d %s", r.Status, r.Reason)
}

// MarshalJSON writes r with its durations in seconds (duration_s, elapsed_s, cpu_s) and
// without its series (WriteSeriesCSV writes it).
func (r *Result) MarshalJSON() ([]byte, error) {
	type plain Result
	return json.Marshal(struct {
		*plain
		DurationS float64 `json:"duration_s"`
		ElapsedS  float64 `json:"elapsed_s"`
		CPUS      float64 `json:"cpu_s"`
	}{(*plain)(r), r.Duration.Seconds(), r.Elapsed.Seconds(), r.CPU.Seconds()})
}
