package packet

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const ms1 = time.Millisecond

var t0 = time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC)

func ptr(v float64) *float64 { return &v }

// step is one Recorder call at a fixed instant.
type step func(r *Recorder)

func offer(at time.Duration, class string) step {
	return func(r *Recorder) { r.Offered(at, class) }
}

func admit(at time.Duration, class string) step {
	return func(r *Recorder) { r.Offered(at, class); r.Admitted(at, class) }
}

func reject(at time.Duration, class, reason string) step {
	return func(r *Recorder) { r.Offered(at, class); r.Rejected(at, class, reason) }
}

func term(at time.Duration, class string, o Outcome, lat time.Duration) step {
	return func(r *Recorder) { r.Terminal(at, class, o, lat) }
}

func run(cfg Config, steps ...step) *Recorder {
	r := NewRecorder(cfg)
	for _, s := range steps {
		s(r)
	}
	return r
}

func TestConservation(t *testing.T) {
	cfg := Config{Arm: "a", Start: t0, Tick: time.Second, Duration: 3 * time.Second, Classes: []string{"checkout", "lookup"}}
	tests := []struct {
		name   string
		steps  []step
		totals Totals
		pass   []bool // the four invariants, in order
		msg    string // a substring of the first failing invariant's message
	}{
		{
			name: "every outcome once",
			steps: []step{
				admit(0, "checkout"), term(100*ms1, "checkout", Goodput, 100*ms1),
				admit(10*ms1, "checkout"), term(2*time.Second, "checkout", Late, 1990*ms1),
				admit(20*ms1, "checkout"), term(1820*ms1, "checkout", Expired, 1800*ms1),
				admit(30*ms1, "lookup"), term(40*ms1, "lookup", Failed, 10*ms1),
				admit(40*ms1, "checkout"), term(900*ms1, "checkout", Ambiguous, 860*ms1),
				reject(50*ms1, "checkout", "limit"),
				reject(60*ms1, "lookup", "deadline"),
			},
			totals: Totals{Offered: 7, Admitted: 5, Rejected: 2, Goodput: 1, Late: 1, Expired: 1, Failed: 1, Ambiguous: 1},
			pass:   []bool{true, true, true, true},
		},
		{
			name: "offered but neither admitted nor rejected",
			steps: []step{
				offer(0, "lookup"),
				admit(0, "checkout"), term(time.Second, "checkout", Goodput, time.Second),
			},
			totals: Totals{Offered: 2, Admitted: 1, Goodput: 1},
			pass:   []bool{false, true, true, true},
			msg:    "lookup: 1 ≠ 0 + 0",
		},
		{
			name:   "admitted without a terminal state",
			steps:  []step{admit(0, "checkout"), admit(0, "checkout"), term(time.Second, "checkout", Goodput, time.Second)},
			totals: Totals{Offered: 2, Admitted: 2, Goodput: 1, Unfinished: 1},
			pass:   []bool{true, false, true, true},
			msg:    "checkout: 1 admitted without a terminal state",
		},
		{
			name: "two terminal states for one request",
			steps: []step{
				admit(0, "checkout"),
				term(time.Second, "checkout", Late, time.Second),
				term(time.Second, "checkout", Failed, time.Second),
			},
			totals: Totals{Offered: 1, Admitted: 1, Late: 1, Failed: 1},
			pass:   []bool{true, false, true, true},
			msg:    "checkout: 1 terminal states more than admitted",
		},
		{
			name: "a retry that was not an attempt",
			steps: []step{
				func(r *Recorder) { r.Attempt(0, "edge"); r.Retry(0, "edge"); r.Retry(0, "edge") },
			},
			totals: Totals{Attempts: 1, Retries: 2},
			pass:   []bool{true, true, false, true},
			msg:    "edge: 2 retries > 1 attempts",
		},
		{
			name: "duplicates are counted by kind",
			steps: []step{
				func(r *Recorder) {
					r.Duplicate(time.Second, "payment_authorizations")
					r.Duplicate(time.Second, "order_commits")
					r.Duplicate(2*time.Second, "order_commits")
				},
			},
			pass: []bool{true, true, true, true},
		},
		{
			name: "a duplicate of an unknown kind",
			steps: []step{
				func(r *Recorder) {
					r.Duplicate(time.Second, "order_commits")
					r.Duplicate(time.Second, "payment_authorisations") // misspelt
				},
			},
			pass: []bool{true, true, true, false},
			msg:  `0 duplicate payment authorisations, 1 duplicate order commits, 1 of unknown kind "payment_authorisations"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := run(cfg, tt.steps...).Finish(nil)
			if diff := cmp.Diff(tt.totals, a.Totals); diff != "" {
				t.Errorf("totals (-want +got):\n%s", diff)
			}
			if len(a.Invariants) != len(tt.pass) {
				t.Fatalf("got %d invariants, want %d", len(a.Invariants), len(tt.pass))
			}
			failed := ""
			for i, inv := range a.Invariants {
				if inv.Pass != tt.pass[i] {
					t.Errorf("invariant %q: pass = %v, want %v (%s)", inv.Name, inv.Pass, tt.pass[i], inv.Message)
				}
				if !inv.Pass && failed == "" {
					failed = inv.Message
				}
			}
			if !strings.Contains(failed, tt.msg) {
				t.Errorf("failing message %q does not contain %q", failed, tt.msg)
			}
		})
	}
}

// TestMergedPercentiles checks that overall percentiles come from merged histograms: two
// classes with disjoint uniform latencies have an overall median at their boundary, which no
// average of per-class percentiles gives.
func TestMergedPercentiles(t *testing.T) {
	r := NewRecorder(Config{Classes: []string{"fast", "slow"}, Duration: time.Minute})
	// fast: 1..1000 ms, 1000 values; slow: 1001..4000 ms, 3000 values.
	for i := 1; i <= 1000; i++ {
		r.Admitted(0, "fast")
		r.Terminal(0, "fast", Goodput, time.Duration(i)*ms1)
	}
	for i := 1001; i <= 4000; i++ {
		r.Admitted(0, "slow")
		r.Terminal(0, "slow", Late, time.Duration(i)*ms1)
	}
	a := r.Finish([]ObjectiveSpec{
		{Name: "all p99", Metric: "latency_p99", Max: ptr(5000)},
		{Name: "fast p99", Metric: "latency_p99", Class: "fast", Max: ptr(5000)},
	})
	// The merged distribution is uniform on 1..4000 ms.
	checks := []struct {
		name      string
		got, want float64
	}{
		{"overall p50", ms(a.Latency.P50), 2000},
		{"overall p90", ms(a.Latency.P90), 3600},
		{"overall p99", ms(a.Latency.P99), 3960},
		{"overall p99.9", ms(a.Latency.P999), 3996},
		{"overall max", ms(a.Latency.Max), 4000},
		{"overall mean", ms(a.Latency.Mean), 2000.5},
		{"fast p50", ms(a.Classes[0].Latency.P50), 500},
		{"fast p99", ms(a.Classes[0].Latency.P99), 990},
		{"slow p50", ms(a.Classes[1].Latency.P50), 2500},
		{"objective all p99", a.Objectives[0].Value, 3960},
		{"objective fast p99", a.Objectives[1].Value, 990},
	}
	for _, c := range checks {
		// HdrHistogram with three significant digits: relative error below 0.1%.
		if math.Abs(c.got-c.want) > c.want*0.001+0.001 {
			t.Errorf("%s = %v ms, want %v ms ± 0.1%%", c.name, c.got, c.want)
		}
	}
	if avg := (a.Classes[0].Latency.P50 + a.Classes[1].Latency.P50) / 2; (avg - a.Latency.P50).Abs() < 100*time.Millisecond {
		t.Errorf("averaged medians %v agree with the merged median %v; the test distribution is too weak", avg, a.Latency.P50)
	}
	if a.Latency.Count != 4000 {
		t.Errorf("count = %d, want 4000", a.Latency.Count)
	}
}

func TestSeriesRows(t *testing.T) {
	r := NewRecorder(Config{Arm: "a", Start: t0, Tick: time.Second, Duration: 3 * time.Second})
	r.Offered(0, "c")
	r.Admitted(0, "c")
	r.Attempt(0, "edge")
	r.Offered(999*ms1, "c")
	r.Rejected(999*ms1, "c", "limit")
	r.Sample(999*ms1, Sample{QueueAgeMax: 20 * ms1, QueueLen: 3, State: "Normal", Generation: 1,
		Dependencies: map[string]DependencyGauge{"risk": {InService: 5, Waiting: 1}}})
	r.Attempt(time.Second, "edge")
	r.Retry(time.Second, "edge")
	r.Terminal(1500*ms1, "c", Goodput, 1500*ms1)
	r.Sample(1999*ms1, Sample{QueueAgeMax: 900 * ms1, State: "Pressured", Generation: 2})
	// After the run's duration: the series grows.
	r.Terminal(3500*ms1, "c", Expired, 1800*ms1)
	a := r.Finish(nil)

	if len(a.Series) != 4 {
		t.Fatalf("got %d rows, want 4 (3 ticks + one after the end)", len(a.Series))
	}
	type counts struct {
		T                                              time.Duration
		Offered, Admitted, Rejected, Attempts, Retries int64
		Goodput, Expired                               int64
		P99                                            time.Duration
		Sampled                                        bool
		Age                                            time.Duration
		State                                          string
		Deps                                           []DependencyGauge
	}
	var got []counts
	for _, row := range a.Series {
		got = append(got, counts{row.T, row.Offered, row.Admitted, row.Rejected, row.Attempts, row.Retries,
			row.Goodput, row.Expired, row.LatencyP99, row.Sampled, row.QueueAgeMax, row.State, row.Dependencies})
	}
	want := []counts{
		{0, 2, 1, 1, 1, 0, 0, 0, 0, true, 20 * ms1, "Normal", []DependencyGauge{{5, 1}}},
		{time.Second, 0, 0, 0, 1, 1, 1, 0, 1500 * ms1, true, 900 * ms1, "Pressured", nil},
		{2 * time.Second, 0, 0, 0, 0, 0, 0, 0, 0, false, 0, "", nil},
		{3 * time.Second, 0, 0, 0, 0, 0, 0, 1, 1800 * ms1, false, 0, "", nil},
	}
	// HdrHistogram returns the highest value equivalent to the recorded one.
	for i := range got {
		if d := got[i].P99 - want[i].P99; d < 0 || d > want[i].P99/1000 {
			t.Errorf("row %d p99 = %v, want %v", i, got[i].P99, want[i].P99)
		}
		got[i].P99 = want[i].P99
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if a.Duration != 3*time.Second {
		t.Errorf("duration = %v, want 3s (the configured duration)", a.Duration)
	}
	if a.Rates.Offered != round(2.0/3, 3) {
		t.Errorf("offered rate = %v, want %v", a.Rates.Offered, round(2.0/3, 3))
	}
}

func TestAmplificationAndLayers(t *testing.T) {
	r := NewRecorder(Config{Layers: []string{"edge", "service", "risk"}, Duration: time.Second})
	for range 100 {
		r.Offered(0, "c")
		r.Admitted(0, "c")
		r.Terminal(0, "c", Goodput, ms1)
		r.Attempt(0, "edge")
		r.Attempt(0, "service")
	}
	for range 28 {
		r.Attempt(0, "edge")
		r.Retry(0, "edge")
	}
	for range 22 {
		r.Attempt(0, "risk")
		r.Retry(0, "risk")
	}
	r.Suppressed(0, "budget")
	r.Suppressed(0, "budget")
	r.Suppressed(0, "deadline")
	r.Orphan(0, "risk")
	r.CancelCompleted(0, "risk")
	a := r.Finish(nil)
	wantBy := map[string]float64{"edge": 1.28, "service": 1, "risk": 0.22}
	if diff := cmp.Diff(wantBy, a.Amplification.ByLayer); diff != "" {
		t.Errorf("by layer (-want +got):\n%s", diff)
	}
	// The most amplified layer, not the sum over layers.
	if a.Amplification.Total != 1.28 || a.Totals.Attempts != 250 {
		t.Errorf("total amplification = %v, attempts %d; want 1.28 and 250", a.Amplification.Total, a.Totals.Attempts)
	}
	wantRetry := Retry{Retries: 50, Ratio: 0.5, Suppressed: 3, SuppressedBy: map[string]int64{"budget": 2, "deadline": 1}}
	if diff := cmp.Diff(wantRetry, a.Retry); diff != "" {
		t.Errorf("retry (-want +got):\n%s", diff)
	}
	if l := a.Layers[2]; l.Name != "risk" || l.Orphans != 1 || l.CancelsCompleted != 1 || l.Retries != 22 {
		t.Errorf("risk layer = %+v", l)
	}
}

func TestUnknownNamesAppendInFirstSeenOrder(t *testing.T) {
	r := NewRecorder(Config{Classes: []string{"b"}})
	names := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"} // more than the linear-scan limit
	for _, n := range names {
		r.Offered(0, n)
		r.Rejected(0, n, "x")
	}
	r.Offered(0, "k")
	r.Rejected(0, "k", "x")
	a := r.Finish(nil)
	var got []string
	for _, c := range a.Classes {
		got = append(got, c.Name)
	}
	want := []string{"b", "a", "c", "d", "e", "f", "g", "h", "i", "j", "k"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("class order (-want +got):\n%s", diff)
	}
	if a.Classes[len(a.Classes)-1].Offered != 2 {
		t.Errorf("k offered = %d, want 2", a.Classes[len(a.Classes)-1].Offered)
	}
}

func TestQueueRemainingAndDependencies(t *testing.T) {
	r := NewRecorder(Config{Classes: []string{"c"}, Dependencies: []string{"risk"}, Duration: 2 * time.Second})
	r.QueueWait(0, "c", 10*ms1)
	r.QueueWait(0, "c", 30*ms1)
	r.Remaining(0, "c", 500*ms1)
	r.Remaining(0, "c", -20*ms1)
	r.DependencyCall(0, "risk", 5*ms1, 40*ms1)
	r.DependencyCall(0, "payment", 0, 20*ms1)
	r.Sample(0, Sample{QueueAgeMax: 100 * ms1, QueueLen: 7, Instances: Instances{Requested: 24, RouteReady: 24, Warm: 24},
		Dependencies: map[string]DependencyGauge{"risk": {InService: 10, Waiting: 2}}})
	r.Sample(time.Second, Sample{QueueAgeMax: 300 * ms1, QueueLen: 5, Instances: Instances{Requested: 44, RouteReady: 34, Warm: 24},
		Dependencies: map[string]DependencyGauge{"risk": {InService: 30}, "payment": {InService: 4}}})
	a := r.Finish(nil)
	c := a.Classes[0]
	if c.QueueWait.Count != 2 || c.QueueWait.Max < 30*ms1 || c.QueueWait.Max > 30100*time.Microsecond {
		t.Errorf("queue wait = %+v", c.QueueWait)
	}
	if c.Overdue != 1 || c.Remaining.Count != 2 || c.Remaining.P50 != 0 {
		t.Errorf("remaining = %+v overdue %d", c.Remaining, c.Overdue)
	}
	want := Queue{AgeMax: 300 * time.Millisecond, AgeMean: 200 * time.Millisecond, LenMax: 7}
	if a.Queue != want {
		t.Errorf("queue = %+v, want %+v", a.Queue, want)
	}
	if len(a.Dependencies) != 2 || a.Dependencies[0].Name != "risk" || a.Dependencies[1].Name != "payment" {
		t.Fatalf("dependencies = %+v", a.Dependencies)
	}
	risk := a.Dependencies[0]
	if risk.Calls != 1 || risk.ConcurrencyMax != 30 || risk.ConcurrencyMean != 20 || risk.WaitingMax != 2 {
		t.Errorf("risk = %+v", risk)
	}
	wantCap := Capacity{RequestedMax: 44, RouteReadyMin: 24, RouteReadyMax: 34, WarmMin: 24, WarmMax: 24, InstanceSecondsCold: 10}
	if a.Capacity != wantCap {
		t.Errorf("capacity = %+v, want %+v", a.Capacity, wantCap)
	}
}

// stateRun records a run of n one-second ticks with the given per-tick states, offered 100
// and goodput good[i] per tick, and queue age ages[i] ms.
func stateRun(cfg Config, states []string, good []int, ages []int) *Recorder {
	cfg.Tick = time.Second
	cfg.Duration = time.Duration(len(states)) * time.Second
	r := NewRecorder(cfg)
	for i, st := range states {
		at := time.Duration(i) * time.Second
		r.Sample(at, Sample{State: st, QueueAgeMax: time.Duration(ages[i]) * ms1})
		for j := range 100 {
			r.Offered(at, "c")
			r.Admitted(at, "c")
			r.Attempt(at, "edge")
			if j < 10 {
				r.Attempt(at, "edge")
				r.Retry(at, "edge")
			}
			if j < good[i] {
				r.Terminal(at, "c", Goodput, 100*ms1)
			} else {
				r.Terminal(at, "c", Late, 2*time.Second)
			}
		}
	}
	return r
}

func TestRecovery(t *testing.T) {
	states := []string{"Normal", "Pressured", "Protected", "Protected", "Recovering", "Normal", "Normal", "Normal"}
	good := []int{100, 80, 50, 90, 96, 97, 99, 100}
	ages := []int{10, 500, 900, 400, 200, 300, 100, 50}
	a := stateRun(Config{}, states, good, ages).Finish([]ObjectiveSpec{
		{Name: "ttn", Metric: "time_to_normal", After: 2 * time.Second, Max: ptr(4)},
	})
	rc := a.Recovery
	if rc.StateSource != "loadstate" || rc.After != 2*time.Second {
		t.Fatalf("recovery = %+v", rc)
	}
	// Stable (≥95%) from tick 4; drained (≤250ms) from tick 6; Normal from tick 5.
	for _, c := range []struct {
		name string
		got  *time.Duration
		want time.Duration
	}{{"stabilize", rc.Stabilize, 2 * time.Second}, {"drain", rc.Drain, 4 * time.Second}, {"normal", rc.Normal, 3 * time.Second}} {
		if c.got == nil || *c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if o := a.Objectives[0]; !o.Pass || o.Value != 3 || o.Unit != "s" {
		t.Errorf("time_to_normal objective = %+v", o)
	}

	// No state machine: Normal is derived from stable and drained.
	a = stateRun(Config{RecoveryAfter: 2 * time.Second}, make([]string, len(states)), good, ages).Finish(nil)
	if a.Recovery.StateSource != "derived" || a.Recovery.Normal == nil || *a.Recovery.Normal != 4*time.Second {
		t.Errorf("derived recovery = %+v (normal %v)", a.Recovery, a.Recovery.Normal)
	}

	// Never recovers: nil timings and a failing objective that says why.
	bad := []int{100, 50, 50, 50, 50, 50, 50, 50}
	a = stateRun(Config{}, []string{"Normal", "Protected", "Protected", "Protected", "Protected", "Protected", "Protected", "Protected"}, bad, ages).
		Finish([]ObjectiveSpec{{Name: "ttn", Metric: "time_to_normal", After: 2 * time.Second, Max: ptr(4)}})
	if a.Recovery.Stabilize != nil || a.Recovery.Normal != nil {
		t.Errorf("recovery = %+v, want no stabilise or normal time", a.Recovery)
	}
	if o := a.Objectives[0]; o.Pass || o.Value != 6 || !o.Censored || o.NoData || !strings.Contains(o.Note, "never returned to Normal") {
		t.Errorf("objective = %+v", o)
	}

	// Measured from after the end of the run: no data, not a pass or a zero.
	a = stateRun(Config{}, states, good, ages).Finish([]ObjectiveSpec{{Name: "ttn", Metric: "time_to_normal", After: 8 * time.Second, Max: ptr(4)}})
	if o := a.Objectives[0]; o.Pass || !o.NoData || !strings.Contains(o.Note, "the run ends at 8s, before t=8s") {
		t.Errorf("objective after the end = %+v", o)
	}
}

func TestObjectives(t *testing.T) {
	states := []string{"Normal", "Normal", "Protected", "Protected", "Normal"}
	good := []int{100, 90, 60, 70, 100}
	ages := []int{10, 200, 900, 1200, 20}
	winP99 := ObjectiveSpec{Name: "p99 protected", Metric: "latency_p99", State: "Protected", Max: ptr(1800)}
	r := stateRun(Config{Objectives: []ObjectiveSpec{winP99}}, states, good, ages)
	r.Duplicate(3*time.Second, "order_commits")
	a := r.Finish([]ObjectiveSpec{
		{Name: "p99", Metric: "latency_p99", Max: ptr(1800)},
		winP99,
		{Name: "p99 window unknown", Metric: "latency_p99", From: time.Second, Max: ptr(1800)},
		{Name: "goodput mean", Metric: "goodput_rate", From: 2 * time.Second, To: 4 * time.Second, Min: ptr(60)},
		{Name: "goodput min", Metric: "goodput_rate", Stat: "min", From: 2 * time.Second, To: 4 * time.Second, Min: ptr(65)},
		{Name: "fraction", Metric: "goodput_fraction", Min: ptr(0.8)},
		{Name: "dups", Metric: "duplicates", Max: ptr(0)},
		{Name: "age protected", Metric: "queue_age_max", State: "Protected", Max: ptr(1000)},
		{Name: "age normal", Metric: "queue_age_max", State: "Normal", Max: ptr(250)},
		{Name: "amp normal", Metric: "amplification", State: "Normal", Max: ptr(1.08)},
		{Name: "retry", Metric: "retry_ratio", Max: ptr(0.2)},
		{Name: "recovering", Metric: "amplification", State: "Recovering", Max: ptr(2)},
		{Name: "bogus", Metric: "throughput", Max: ptr(1)},
		{Name: "both", Metric: "amplification", Min: ptr(1), Max: ptr(1.2)},
	})
	type row struct {
		Name   string
		Pass   bool
		Value  float64
		Op     string
		Unit   string
		NoData bool
	}
	want := []row{
		{"p99", false, 2000, "<=", "ms", false},
		{"p99 protected", false, 2000, "<=", "ms", false},
		{"p99 window unknown", false, 0, "<=", "ms", true},
		{"goodput mean", true, 65, ">=", "/s", false},
		{"goodput min", false, 60, ">=", "/s", false},
		{"fraction", true, 0.84, ">=", "x", false},
		{"dups", false, 1, "<=", "", false},
		{"age protected", false, 1200, "<=", "ms", false},
		{"age normal", true, 200, "<=", "ms", false},
		{"amp normal", false, 1.1, "<=", "x", false},
		{"retry", true, 0.1, "<=", "x", false},
		{"recovering", false, 0, "<=", "x", true},
		{"bogus", false, 0, "<=", "", true},
		{"both", true, 1.1, "in", "x", false},
	}
	var got []row
	for _, o := range a.Objectives {
		v := o.Value
		if o.Unit == "ms" && v > 0 {
			v = math.Round(v/10) * 10 // histogram resolution
		}
		got = append(got, row{o.Name, o.Pass, v, o.Op, o.Unit, o.NoData})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("objectives (-want +got):\n%s", diff)
	}
}

func TestRecordingAllocatesNothing(t *testing.T) {
	r := NewRecorder(Config{Classes: []string{"c"}, Layers: []string{"edge"}, Dependencies: []string{"d"}, Duration: time.Hour})
	at := time.Minute
	allocs := testing.AllocsPerRun(1000, func() {
		at += time.Millisecond
		r.Offered(at, "c")
		r.Admitted(at, "c")
		r.Attempt(at, "edge")
		r.Retry(at, "edge")
		r.QueueWait(at, "c", 3*ms1)
		r.Remaining(at, "c", time.Second)
		r.DependencyCall(at, "d", ms1, 40*ms1)
		r.Terminal(at, "c", Goodput, 300*ms1)
	})
	if allocs != 0 {
		t.Errorf("hot path allocates %v times per request, want 0", allocs)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{}, ""},
		{Config{Tick: -1}, "tick"},
		{Config{Duration: -1}, "duration"},
		{Config{DrainAge: -1}, "drain age"},
		{Config{RecoveryAfter: -1}, "recovery after"},
		{Config{StableFraction: 1.5}, "stable fraction"},
		{Config{StableFraction: math.NaN()}, "stable fraction"},
		{Config{Classes: []string{"a", "a"}}, `class "a" listed twice`},
		{Config{Layers: []string{"x", "y", "x"}}, `layer "x" listed twice`},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%+v: unexpected error %v", tt.cfg, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%+v: error %v, want one containing %q", tt.cfg, err, tt.want)
		}
	}
}

func TestOutcomeString(t *testing.T) {
	for o, want := range map[Outcome]string{Goodput: "goodput", Late: "late", Expired: "expired", Failed: "failed", Ambiguous: "ambiguous", 0: "Outcome(0)", 9: "Outcome(9)"} {
		if got := o.String(); got != want {
			t.Errorf("Outcome(%d).String() = %q, want %q", o, got, want)
		}
	}
}

func TestTickLatencyOutOfOrder(t *testing.T) {
	r := NewRecorder(Config{Duration: 6 * time.Second})
	r.Annotate(5*time.Second, "fault", "recorded ahead of time")
	r.Terminal(2500*ms1, "c", Goodput, 300*ms1) // tick 2 first
	r.Terminal(500*ms1, "c", Goodput, 100*ms1)  // then tick 0: within the ring
	r.Terminal(1500*ms1, "c", Goodput, 200*ms1) // tick 1
	r.Terminal(5500*ms1, "c", Goodput, 600*ms1) // tick 5 closes tick 1 (same slot)
	r.Terminal(1200*ms1, "c", Goodput, 900*ms1) // tick 1 again: too late for the series
	a := r.Finish(nil)
	want := []time.Duration{100 * ms1, 200 * ms1, 300 * ms1, 0, 0, 600 * ms1}
	for i, row := range a.Series {
		if d := row.LatencyP99 - want[i]; d < 0 || d > want[i]/1000 {
			t.Errorf("tick %d p99 = %v, want %v", i, row.LatencyP99, want[i])
		}
	}
	if a.Latency.Count != 5 || a.Series[1].Goodput != 2 {
		t.Errorf("late terminal state lost from the totals: count %d, tick 1 goodput %d", a.Latency.Count, a.Series[1].Goodput)
	}
}

// TestAmplificationComposes replays the seed's arithmetic: 28% edge retries over 22% service
// retries of the dependency call amplify the dependency's attempts 1.28 × 1.22 = 1.5616×.
func TestAmplificationComposes(t *testing.T) {
	r := NewRecorder(Config{Layers: []string{"edge", "service", "payment-risk"}, Duration: time.Second})
	for i := range 10000 {
		r.Offered(0, "checkout")
		tries := 1
		if i < 2800 {
			tries = 2 // the edge timed out and retried
		}
		for range tries {
			r.Attempt(0, "edge")
			r.Attempt(0, "service")
			r.Attempt(0, "payment-risk")
		}
	}
	// 22% of the 12,800 service attempts retry the dependency call.
	for range 2816 {
		r.Attempt(0, "payment-risk")
		r.Retry(0, "payment-risk")
	}
	a := r.Finish([]ObjectiveSpec{{Name: "amp", Metric: "amplification", Max: ptr(1.08)}})
	if a.Amplification.Total != 1.5616 {
		t.Errorf("total amplification = %v, want 1.5616", a.Amplification.Total)
	}
	if got := a.Amplification.ByLayer["edge"]; got != 1.28 {
		t.Errorf("edge amplification = %v, want 1.28", got)
	}
	if o := a.Objectives[0]; o.Value != 1.5616 || o.Pass {
		t.Errorf("objective = %+v", o)
	}
	if a.Totals.Attempts != 12800+12800+15616 {
		t.Errorf("attempts = %d, want every try at every layer", a.Totals.Attempts)
	}
}

// TestAmplificationPeak checks the worst tick: the largest per-tick amplification of the
// run, at its tick, with the drain after the end left out however amplified it is.
func TestAmplificationPeak(t *testing.T) {
	r := NewRecorder(Config{Layers: []string{"edge", "service"}, Tick: time.Second, Duration: 3 * time.Second})
	// attempts at the service per offered request, by tick; tick 3 is the drain.
	for tick, tries := range []int{1, 3, 2, 9} {
		at := time.Duration(tick) * time.Second
		for range 10 {
			r.Offered(at, "c")
			r.Attempt(at, "edge")
			for range tries {
				r.Attempt(at, "service")
			}
		}
	}
	a := r.Finish(nil)
	if a.Amplification.Peak != 3 || a.Amplification.PeakAt != time.Second {
		t.Errorf("peak %v at %v, want 3 at 1s (the drain's 9 left out)", a.Amplification.Peak, a.Amplification.PeakAt)
	}
	if empty := NewRecorder(Config{Duration: time.Second}).Finish(nil); empty.Amplification.Peak != 0 {
		t.Errorf("peak %v with nothing offered", empty.Amplification.Peak)
	}
}

func TestNamesFindMemo(t *testing.T) {
	// find remembers strings by their data pointer. Copies of a name at other addresses,
	// names of equal length, and the empty name must each find their own index, however
	// often they are looked up.
	n := newNames([]string{"edge", "risk"})
	names := []string{"", "edge", "risk", "eDGE", "edge"}
	want := []int{2, 0, 1, 3, 0}
	for round := range 3 {
		for k, s := range names {
			s = strings.Clone(s) // a fresh address every time
			if i, _ := n.find(s); i != want[k] || n.list[i] != s {
				t.Fatalf("round %d: find(%q) = %d (%q), want %d", round, s, i, n.list[i], want[k])
			}
		}
	}
	// A prefix shares its string's address.
	x := strings.Clone("edge")
	if i, _ := n.find(x); i != 0 {
		t.Fatalf("find(edge) = %d, want 0", i)
	}
	if i, added := n.find(x[:2]); !added || n.list[i] != "ed" {
		t.Fatalf("find(ed) = %d (%q), added %v; want a new name", i, n.list[i], added)
	}
}

func TestRetryBudget(t *testing.T) {
	r := NewRecorder(Config{Arm: "a", Tick: time.Second, Duration: time.Second})
	if a := r.Finish(nil); a.Retry.Budget != nil {
		t.Errorf("an arm without a budget reports %+v", a.Retry.Budget)
	}
	r = NewRecorder(Config{Arm: "a", Tick: time.Second, Duration: time.Second})
	r.RetryBudget(100, 3)
	a := r.Finish(nil)
	if a.Retry.Budget == nil || *a.Retry.Budget != (RetryBudget{Deposits: 100, TokensUsed: 3}) {
		t.Errorf("budget %+v, want 100 deposits, 3 tokens used", a.Retry.Budget)
	}
	var b bytes.Buffer
	if err := (&Packet{Arms: []Arm{a}}).WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"budget": {
          "deposits": 100,
          "tokens_used": 3
        }`) {
		t.Errorf("packet.json lacks the budget:\n%s", b.String())
	}
}

// TestHealth checks the health-check counts: by service in the order of their first
// handle, and absent from packet.json for an arm without health checks.
func TestHealth(t *testing.T) {
	r := NewRecorder(Config{Arm: "a", Tick: time.Second, Duration: time.Second})
	var b bytes.Buffer
	if err := (&Packet{Arms: []Arm{r.Finish(nil)}}).WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `"health"`) {
		t.Errorf("packet.json of an arm without health checks has a health field:\n%s", b.String())
	}

	r = NewRecorder(Config{Arm: "a", Tick: time.Second, Duration: time.Second})
	web, jobs := r.Health("web"), r.Health("jobs")
	if again := r.Health("web"); again != web {
		t.Errorf("a second handle of web is %+v, want the first, %+v", again, web)
	}
	for _, pass := range []bool{true, false, false, true} {
		web.Probe(pass)
	}
	web.Removed()
	web.Returned()
	jobs.Probe(false)
	jobs.Restarted(7)
	jobs.Restarted(5)
	if got := web.Stats(); got.Probes != 4 || got.ProbesFailed != 2 {
		t.Errorf("web so far: %+v, want 4 probes, 2 failed", got)
	}
	want := []HealthStats{
		{Service: "web", Probes: 4, ProbesFailed: 2, Removals: 1, Returns: 1},
		{Service: "jobs", Probes: 1, ProbesFailed: 1, Restarts: 2, AttemptsKilled: 12},
	}
	if diff := cmp.Diff(want, r.Finish(nil).Health); diff != "" {
		t.Errorf("health (-want +got):\n%s", diff)
	}
}

// TestGaveUpThenSettle checks that a request whose caller gave up is counted in the tick
// the caller gave up in, with its latency in that tick's percentiles, however many ticks
// later its outcome is settled.
func TestGaveUpThenSettle(t *testing.T) {
	r := NewRecorder(Config{Duration: 10 * time.Second})
	for _, at := range []time.Duration{0, 500 * ms1} {
		r.Offered(at, "c")
		r.Admitted(at, "c")
	}
	r.GaveUp(1200*ms1, "c", 1200*ms1)           // the first caller gives up in tick 1
	r.Terminal(1300*ms1, "c", Goodput, 800*ms1) // the second succeeds late in tick 1
	for s := 2; s < 9; s++ {                    // later ticks move on
		at := time.Duration(s) * time.Second
		r.Offered(at, "c")
		r.Admitted(at, "c")
		r.Terminal(at, "c", Goodput, 0)
	}
	r.Settle(1200*ms1, "c", Expired) // the orphaned work ends at 9s
	a := r.Finish(nil)
	if got := a.Series[1].Expired; got != 1 {
		t.Errorf("tick 1 expired = %d, want 1", got)
	}
	for i, row := range a.Series {
		if i != 1 && row.Expired != 0 {
			t.Errorf("tick %d expired = %d, want 0", i, row.Expired)
		}
	}
	if p99 := a.Series[1].LatencyP99; p99 < 1199*ms1 || p99 > 1202*ms1 {
		t.Errorf("tick 1 latency p99 = %v, want the given-up request's 1.2s", p99)
	}
	if a.Totals.Expired != 1 || a.Latency.Count != 9 || !a.Invariants[1].Pass {
		t.Errorf("totals %+v, latency count %d, %s: %s", a.Totals, a.Latency.Count, a.Invariants[1].Name, a.Invariants[1].Message)
	}
}

// The lowest tick of goodput_rate is a tick of the run: a drain's tick after the end,
// with what finished late, is not one.
func TestGoodputRateMinLeavesOutTheDrain(t *testing.T) {
	r := NewRecorder(Config{Arm: "a", Tick: time.Second, Duration: 2 * time.Second})
	for tick := range 2 {
		for i := range 4 + tick {
			at := time.Duration(tick)*time.Second + time.Duration(i)*time.Millisecond
			r.Offered(at, "c")
			r.Admitted(at, "c")
			r.Terminal(at+time.Millisecond, "c", Goodput, time.Millisecond)
		}
	}
	r.Offered(1900*time.Millisecond, "c")
	r.Admitted(1900*time.Millisecond, "c")
	r.Terminal(2500*time.Millisecond, "c", Goodput, 600*time.Millisecond)
	min := 3.0
	a := r.Finish([]ObjectiveSpec{{Name: "floor", Metric: "goodput_rate", Stat: "min", Min: &min}})
	if len(a.Series) != 3 {
		t.Fatalf("%d ticks, want the run's 2 and the drain's", len(a.Series))
	}
	if o := a.Objectives[0]; o.Value != 4 || !o.Pass {
		t.Errorf("lowest tick %v (pass %v), want 4/s, tick 0's", o.Value, o.Pass)
	}
}
