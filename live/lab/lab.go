package lab

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/goodput-lab/goodput/live/faultproxy"
	"github.com/goodput-lab/goodput/live/loadgen"
	"github.com/goodput-lab/goodput/model"
	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
)

// LiveCounts is what the lab measured on one arm's run besides the generator's result.
// The zero value is a run without proxies, duplicates or CPU figures.
type LiveCounts struct {
	// Duplicates are the duplicate mutations the store holds after the run, by kind (a
	// query for identities committed more than once).
	Duplicates packet.Duplicates
	// DuplicatesByTick are the same duplicates by tick of the run's series (the tick of
	// each repeat's commit), summing to Duplicates.Total(); nil when there are none. The
	// series needs them for objectives over a window.
	DuplicatesByTick []int64
	// Proxies are the fault proxies' counters at the end of the run, one per dependency.
	Proxies []Proxy
	// ProxyCPU is the proxies' and the stubs' CPU time over the run when they run in
	// processes of their own; zero when they run in the generator's process (its CPU
	// includes theirs).
	ProxyCPU time.Duration
	// ServiceCPU is the service's CPU time over the run when it runs in a process of its
	// own; zero when it runs in the generator's.
	ServiceCPU time.Duration
	// Cores is the number of CPUs the lab ran on (runtime.NumCPU); zero if not known.
	Cores int
}

// Proxy is one fault proxy's counters (faultproxy.Proxy.Stats at the end of the run).
type Proxy struct {
	Dependency string
	Stats      faultproxy.Stats
}

// ErrMismatch is returned by [Arm] and [Join] for inputs that do not belong together.
var ErrMismatch = errors.New("lab: result does not match the scenario")

// Arm converts the generator's result of one arm's run of sc into a packet arm named name,
// with Source "live", on sc's clock (Start is the scenario's, the run's own start is in
// Live.StartedAt). See the package documentation for how the populations map. The
// result's classes must be sc's, in order, and its tick sc's; inputs that do not match
// are an error wrapping [ErrMismatch].
func Arm(name string, sc *scenario.Scenario, res *loadgen.Result, extra LiveCounts) (packet.Arm, error) {
	tick := sc.Clock.Tick.Std()
	if tick <= 0 {
		tick = time.Second
	}
	if err := check(sc, res, tick, extra); err != nil {
		return packet.Arm{}, err
	}
	a := packet.Arm{
		Name:         name,
		Source:       packet.SourceLive,
		Start:        sc.Clock.Start.Time(),
		Tick:         tick,
		Duration:     sc.Clock.Duration.Std(),
		Duplicates:   extra.Duplicates,
		Transitions:  []packet.Transition{},
		RejectedBy:   map[string]int64{},
		ShedBy:       map[string]int64{},
		Caches:       []packet.CacheStats{},
		Dependencies: []packet.DependencyStats{},
		Latency:      percentiles(res.Total.Latency),
	}
	if extra.Duplicates.Other != nil {
		a.Duplicates.Other = maps.Clone(extra.Duplicates.Other)
	}
	t := &a.Totals
	for _, c := range res.Classes {
		cs := packet.ClassStats{
			Name: c.Name, Offered: c.Offered, Admitted: c.Sent - c.Rejected + c.Unsent, Rejected: c.Rejected,
			Goodput: c.Goodput, Late: c.Late, Expired: c.Unsent, Failed: c.Failed,
			Latency: percentiles(c.Latency),
		}
		a.Classes = append(a.Classes, cs)
		t.Offered += cs.Offered
		t.Admitted += cs.Admitted
		t.Rejected += cs.Rejected
		t.Goodput += cs.Goodput
		t.Late += cs.Late
		t.Expired += cs.Expired
		t.Failed += cs.Failed
	}
	for _, r := range res.Total.Rejections {
		reason := r.Reason
		if reason == "" {
			reason = "status " + strconv.Itoa(r.Status)
		}
		a.RejectedBy[reason] += r.Count
	}

	// Attempts at each entry, from the classes that arrive through it.
	entries := entryLayers(sc)
	for i, c := range res.Classes {
		e := entries.of[i]
		l := &entries.layers[e]
		l.Attempts += c.Attempts
		l.Retries += c.Attempts - c.Sent
	}
	a.Layers = entries.layers
	for _, l := range a.Layers {
		t.Attempts += l.Attempts
		t.Retries += l.Retries
	}
	a.Retry = packet.Retry{Retries: t.Retries, SuppressedBy: map[string]int64{}}

	a.Series = series(res, len(entries.layers) == 1, extra.DuplicatesByTick)
	a.Live = live(res, extra, entries.layers)
	a.Evaluate(model.Objectives(sc), packet.Config{})
	a.Invariants = append(a.Invariants, invariants(&a, res)...)
	return a, nil
}

func check(sc *scenario.Scenario, res *loadgen.Result, tick time.Duration, extra LiveCounts) error {
	if res == nil {
		return fmt.Errorf("%w: no result", ErrMismatch)
	}
	if res.Tick != tick {
		return fmt.Errorf("%w: the result's tick is %v, the scenario's %v; run the generator with Options.Tick set to the scenario's", ErrMismatch, res.Tick, tick)
	}
	if len(res.Classes) != len(sc.Classes) {
		return fmt.Errorf("%w: the result has %d classes, the scenario %d", ErrMismatch, len(res.Classes), len(sc.Classes))
	}
	for i, c := range res.Classes {
		if c.Name != sc.Classes[i].Name {
			return fmt.Errorf("%w: the result's class %d is %q, the scenario's %q", ErrMismatch, i, c.Name, sc.Classes[i].Name)
		}
	}
	var n int64
	for _, d := range extra.DuplicatesByTick {
		if d < 0 {
			return fmt.Errorf("%w: a negative count of duplicates in a tick", ErrMismatch)
		}
		n += d
	}
	switch total := extra.Duplicates.Total(); {
	case n != total:
		return fmt.Errorf("%w: %d duplicates by tick, %d by kind; expected the same duplicates counted both ways", ErrMismatch, n, total)
	case len(extra.DuplicatesByTick) > len(res.Series):
		return fmt.Errorf("%w: duplicates in %d ticks, the run has %d", ErrMismatch, len(extra.DuplicatesByTick), len(res.Series))
	}
	seen := map[string]bool{}
	for _, p := range extra.Proxies {
		if p.Dependency == "" || seen[p.Dependency] {
			return fmt.Errorf("%w: proxy for dependency %q: expected one proxy per named dependency", ErrMismatch, p.Dependency)
		}
		seen[p.Dependency] = true
	}
	return nil
}

// layers are the entry layers and, by class, the index of its entry's.
type layers struct {
	layers []packet.LayerStats
	of     []int
}

// entryLayers names the attempt layers of sc's entries that classes arrive through, in
// the topology's order, as the replay names them ("edge" for a scenario without entries).
func entryLayers(sc *scenario.Scenario) layers {
	entries := sc.Topology.Entries
	if len(entries) == 0 {
		return layers{layers: []packet.LayerStats{{Name: "edge"}}, of: make([]int, len(sc.Classes))}
	}
	entryOf := make([]int, len(sc.Classes)) // index in entries; the first when unnamed
	used := make([]bool, len(entries))
	for i, c := range sc.Classes {
		entryOf[i] = max(slices.IndexFunc(entries, func(e scenario.Entry) bool { return e.Name == c.Entry }), 0)
		used[entryOf[i]] = true
	}
	var out layers
	index := make([]int, len(entries))
	for j, e := range entries {
		if used[j] {
			index[j] = len(out.layers)
			out.layers = append(out.layers, packet.LayerStats{Name: e.Name})
		}
	}
	for _, j := range entryOf {
		out.of = append(out.of, index[j])
	}
	return out
}

// series maps the generator's rows onto the packet's. With one entry layer, a row's
// attempts are that layer's. A row's admitted are its offered less its rejected, and its
// retries its attempts less its first sends: the generator counts offered and first sends
// by intended send time but rejections and attempts when they happen, so a tick's
// difference can be negative; it is carried to the neighbouring ticks ([spread]), which
// keeps every sum.
func series(res *loadgen.Result, oneLayer bool, dups []int64) []packet.Row {
	rows := make([]packet.Row, len(res.Series))
	admitted := make([]int64, len(rows))
	retries := make([]int64, len(rows))
	for i, x := range res.Series {
		r := &rows[i]
		r.T = x.T
		r.Offered, r.Rejected, r.Attempts = x.Offered, x.Rejected, x.Attempts
		r.Goodput, r.Late, r.Failed, r.Expired = x.Goodput, x.Late, x.Failed, x.Unsent
		r.LatencyP50, r.LatencyP99 = x.P50, x.P99
		if oneLayer && x.Attempts > 0 {
			r.LayerAttempts = []int64{x.Attempts}
		}
		if i < len(dups) {
			r.Duplicates = dups[i]
		}
		admitted[i] = x.Offered - x.Rejected
		retries[i] = x.Attempts - x.Sent
	}
	spread(admitted)
	spread(retries)
	for i := range rows {
		rows[i].Admitted, rows[i].Retries = admitted[i], retries[i]
	}
	return rows
}

// spread makes v's values zero or more without changing their sum (which must be zero or
// more): a negative value is taken from the ticks after it, and what they cannot give from
// the ticks before it, nearest first.
func spread(v []int64) {
	var owed int64
	for i := range v {
		v[i] -= owed
		owed = 0
		if v[i] < 0 {
			owed, v[i] = -v[i], 0
		}
	}
	for i := len(v) - 1; i >= 0 && owed > 0; i-- {
		take := min(v[i], owed)
		v[i] -= take
		owed -= take
	}
}

// live is the arm's Live: the generator's own figures, the overhead and the proxies'.
func live(res *loadgen.Result, extra LiveCounts, entries []packet.LayerStats) *packet.Live {
	l := &packet.Live{
		StartedAt: res.Start.UTC(), Elapsed: res.Elapsed.Round(time.Microsecond), Interrupted: res.Interrupted,
		Sent: res.Total.Sent, Unsent: res.Total.Unsent, FailedBy: map[string]int64{},
		Lateness: percentiles(res.Lateness), PeakInFlight: res.PeakInFlight, MaxInFlight: res.MaxInFlight,
		Proxies: []packet.ProxyEvidence{},
	}
	for _, f := range res.Total.Failures {
		l.FailedBy[f.Cause] += f.Count
	}
	var sent, calls int64
	for _, e := range entries {
		sent += e.Attempts
	}
	for _, p := range extra.Proxies {
		s := p.Stats
		l.Proxies = append(l.Proxies, packet.ProxyEvidence{Dependency: p.Dependency,
			Requests: int64(s.Requests), WorkStarted: int64(s.WorkStarted),
			StartedAfterDeadline: int64(s.StartedAfterDeadline), StartedAfterCancel: int64(s.StartedAfterCancel),
			Cancelled: int64(s.Cancelled), Rejected: int64(s.Rejected), Errors: int64(s.Errors)})
		calls += int64(s.Requests)
	}
	o := &l.Overhead
	o.GeneratorCPU, o.ProxyCPU, o.Cores = res.CPU.Round(time.Microsecond), extra.ProxyCPU.Round(time.Microsecond), extra.Cores
	o.GeneratorCPUPerRequest = perRequest(res.CPU, sent)
	o.ProxyCPUPerRequest = perRequest(extra.ProxyCPU, calls)
	o.ServiceCPU = extra.ServiceCPU.Round(time.Microsecond)
	o.ServiceCPUPerRequest = perRequest(extra.ServiceCPU, sent)
	if o.Cores > 0 && res.Elapsed > 0 {
		share := float64(res.CPU+extra.ProxyCPU) / (float64(res.Elapsed) * float64(o.Cores))
		o.CPUShare = float64(int64(share*1e4+0.5)) / 1e4
	}
	return l
}

func perRequest(cpu time.Duration, n int64) time.Duration {
	if n <= 0 {
		return 0
	}
	return (cpu / time.Duration(n)).Round(time.Microsecond)
}

// percentiles is the generator's summary as the packet's: to the microsecond, the mean
// (which the generator does not keep) 0.
func percentiles(p loadgen.Percentiles) packet.Percentiles {
	us := func(d time.Duration) time.Duration { return d.Round(time.Microsecond) }
	return packet.Percentiles{Count: p.Count, P50: us(p.P50), P90: us(p.P90), P99: us(p.P99), P999: us(p.P999), Max: us(p.Max), Mean: us(p.Mean)}
}

// invariants are the checks a live arm adds to the packet's: the generator's own
// conservation, and the series against the totals.
func invariants(a *packet.Arm, res *loadgen.Result) []packet.Invariant {
	t, l := a.Totals, a.Live
	var out []packet.Invariant
	inv := packet.Invariant{Name: "offered = sent + unsent", Pass: t.Offered == l.Sent+l.Unsent,
		Message: fmt.Sprintf("%d = %d + %d", t.Offered, l.Sent, l.Unsent)}
	for _, c := range res.Classes {
		if c.Offered != c.Sent+c.Unsent {
			inv.Pass = false
			inv.Message += fmt.Sprintf("; %s: %d ≠ %d + %d", c.Name, c.Offered, c.Sent, c.Unsent)
		}
	}
	out = append(out, inv)
	g := res.Total
	out = append(out, packet.Invariant{Name: "sent = goodput + late + rejected + failed",
		Pass:    g.Sent == g.Goodput+g.Late+g.Rejected+g.Failed,
		Message: fmt.Sprintf("%d = %d + %d + %d + %d", g.Sent, g.Goodput, g.Late, g.Rejected, g.Failed)})

	var sum packet.Row
	for _, r := range a.Series {
		sum.Offered += r.Offered
		sum.Admitted += r.Admitted
		sum.Rejected += r.Rejected
		sum.Goodput += r.Goodput
		sum.Late += r.Late
		sum.Expired += r.Expired
		sum.Failed += r.Failed
		sum.Duplicates += r.Duplicates
	}
	inv = packet.Invariant{Name: "the series sums to the totals", Pass: true, Message: "offered, admitted, rejected, goodput, late, expired, failed and duplicates"}
	for _, f := range []struct {
		what        string
		series, tot int64
	}{
		{"offered", sum.Offered, t.Offered}, {"admitted", sum.Admitted, t.Admitted}, {"rejected", sum.Rejected, t.Rejected},
		{"goodput", sum.Goodput, t.Goodput}, {"late", sum.Late, t.Late}, {"expired", sum.Expired, t.Expired},
		{"failed", sum.Failed, t.Failed}, {"duplicates", sum.Duplicates, a.Duplicates.Total()},
	} {
		if f.series != f.tot {
			inv.Pass = false
			inv.Message += fmt.Sprintf("; %s: %d in the series, %d in total", f.what, f.series, f.tot)
		}
	}
	out = append(out, inv)
	return out
}
