package packet

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// handleOp is one recorder call of the differential test. Calls with a name go through the
// string methods on one recorder and through handles on the other; the rest (Sample,
// Suppressed, CacheAccess, Duplicate) are made the same way on both.
type handleOp struct {
	kind      int
	at        time.Duration
	name      string // class, layer or dependency
	reason    string // rejection reason or shed feature
	outcome   Outcome
	d1, d2    time.Duration
	sample    Sample
	cloneName bool // string side: pass a copy of the name, not the string it registered
}

const (
	opOffered = iota
	opAdmitted
	opRejected
	opTerminal
	opShed
	opQueueWait
	opRemaining
	opAttempt
	opRetry
	opOrphan
	opCancel
	opDepCall
	opSample
	opSuppressed
	opCache
	opDuplicate
	opKinds
)

// handleOps returns a pseudo-random sequence of n calls: times move forward with some
// equal and some out-of-order instants (a few far enough back to miss the per-tick ring),
// and some names are first seen mid-run.
func handleOps(seed uint64, n int) []handleOp {
	rng := rand.New(rand.NewPCG(seed, 7))
	classes := []string{"checkout", "lookup", "status", "refund", "late-class"}
	layers := []string{"edge", "svc", "db", "cache-fill"}
	deps := []string{"pay", "risk", "store", "ledger"}
	states := []string{"Normal", "Overload", "Recovering", ""}
	pick := func(names []string, i int) string {
		// The last name of each list appears only in the second half of the run.
		if i < n/2 {
			names = names[:len(names)-1]
		}
		return names[rng.IntN(len(names))]
	}
	ops := make([]handleOp, 0, n)
	now := time.Duration(0)
	for i := range n {
		at := now
		switch k := rng.IntN(20); {
		case k < 2: // same instant as the previous call
		case k == 2: // out of order, sometimes by more than the per-tick ring
			at = max(now-time.Duration(rng.Int64N(int64(700*time.Millisecond))), 0)
		default:
			now += time.Duration(rng.Int64N(int64(15 * time.Millisecond)))
			at = now
		}
		op := handleOp{kind: rng.IntN(opKinds), at: at, cloneName: rng.IntN(4) == 0}
		switch op.kind {
		case opOffered, opAdmitted, opQueueWait:
			op.name = pick(classes, i)
			op.d1 = time.Duration(rng.Int64N(int64(50 * time.Millisecond)))
		case opRejected, opShed:
			op.name = pick(classes, i)
			op.reason = []string{"limit", "deadline", "queue_full", "recs"}[rng.IntN(4)]
		case opTerminal:
			op.name = pick(classes, i)
			op.outcome = Outcome(rng.IntN(7)) // 0 and 6 are invalid: counted as Failed
			op.d1 = time.Duration(rng.Int64N(int64(2 * time.Second)))
		case opRemaining:
			op.name = pick(classes, i)
			op.d1 = time.Duration(rng.Int64N(int64(400*time.Millisecond))) - 100*time.Millisecond
		case opAttempt, opRetry, opOrphan, opCancel:
			op.name = pick(layers, i)
		case opDepCall:
			op.name = pick(deps, i)
			op.d1 = time.Duration(rng.Int64N(int64(5 * time.Millisecond)))
			op.d2 = time.Duration(rng.Int64N(int64(80 * time.Millisecond)))
		case opSample:
			op.sample = Sample{QueueAgeMax: time.Duration(rng.Int64N(int64(time.Second))), State: states[rng.IntN(len(states))]}
			if rng.IntN(3) == 0 {
				op.sample.Dependencies = map[string]DependencyGauge{pick(deps, i): {InService: rng.IntN(9)}, "sampled-only": {Waiting: 1}}
			}
		case opSuppressed, opCache, opDuplicate:
			op.reason = []string{"budget", "breaker", "payment_authorizations", "other"}[rng.IntN(4)]
		}
		ops = append(ops, op)
	}
	return ops
}

// handleSink applies handleOps to a recorder through the string methods or through handles.
// Handles are taken at a name's first use (so both recorders register names in the same
// order) and kept for the rest of the run.
type handleSink struct {
	r       *Recorder
	handles bool
	cls     map[string]ClassRecorder
	lay     map[string]LayerRecorder
	dep     map[string]DependencyRecorder
}

func newHandleSink(cfg Config, handles bool) *handleSink {
	return &handleSink{
		r: NewRecorder(cfg), handles: handles,
		cls: map[string]ClassRecorder{}, lay: map[string]LayerRecorder{}, dep: map[string]DependencyRecorder{},
	}
}

// cached returns the handle of name in m, getting it with get the first time.
func cached[H any](m map[string]H, name string, get func(string) H) H {
	h, ok := m[name]
	if !ok {
		h = get(name)
		m[name] = h
	}
	return h
}

func (s *handleSink) class(name string) ClassRecorder { return cached(s.cls, name, s.r.Class) }

func (s *handleSink) layer(name string) LayerRecorder { return cached(s.lay, name, s.r.Layer) }

func (s *handleSink) dependency(name string) DependencyRecorder {
	return cached(s.dep, name, s.r.Dependency)
}

func (s *handleSink) apply(op handleOp) {
	r, at, name := s.r, op.at, op.name
	if !s.handles && op.cloneName {
		name = strings.Clone(name)
	}
	switch op.kind {
	case opSample:
		r.Sample(at, op.sample)
	case opSuppressed:
		r.Suppressed(at, op.reason)
	case opCache:
		r.CacheAccess(at, op.reason, op.at%2 == 0)
	case opDuplicate:
		r.Duplicate(at, op.reason)
	}
	if s.handles {
		switch op.kind {
		case opOffered:
			s.class(name).Offered(at)
		case opAdmitted:
			s.class(name).Admitted(at)
		case opRejected:
			s.class(name).Rejected(at, op.reason)
		case opTerminal:
			s.class(name).Terminal(at, op.outcome, op.d1)
		case opShed:
			s.class(name).Shed(at, op.reason)
		case opQueueWait:
			s.class(name).QueueWait(at, op.d1)
		case opRemaining:
			s.class(name).Remaining(at, op.d1)
		case opAttempt:
			s.layer(name).Attempt(at)
		case opRetry:
			s.layer(name).Retry(at)
		case opOrphan:
			s.layer(name).Orphan(at)
		case opCancel:
			s.layer(name).CancelCompleted(at)
		case opDepCall:
			s.dependency(name).Call(at, op.d1, op.d2)
		}
		return
	}
	switch op.kind {
	case opOffered:
		r.Offered(at, name)
	case opAdmitted:
		r.Admitted(at, name)
	case opRejected:
		r.Rejected(at, name, op.reason)
	case opTerminal:
		r.Terminal(at, name, op.outcome, op.d1)
	case opShed:
		r.Shed(at, name, op.reason)
	case opQueueWait:
		r.QueueWait(at, name, op.d1)
	case opRemaining:
		r.Remaining(at, name, op.d1)
	case opAttempt:
		r.Attempt(at, name)
	case opRetry:
		r.Retry(at, name)
	case opOrphan:
		r.Orphan(at, name)
	case opCancel:
		r.CancelCompleted(at, name)
	case opDepCall:
		r.DependencyCall(at, name, op.d1, op.d2)
	}
}

// handleObjectives are the latency objectives of the differential test: windowed and
// state-filtered ones (recorded live), one of them for a class first seen mid-run and one
// for a class never seen, plus run-wide ones.
var handleObjectives = []ObjectiveSpec{
	{Name: "lookup p99 window", Metric: "latency_p99", Class: "lookup", From: 2 * time.Second, To: 9 * time.Second, Max: ptr(900)},
	{Name: "late p50 window", Metric: "latency_p50", Class: "late-class", From: 10 * time.Second, Max: ptr(900)},
	{Name: "overload p50", Metric: "latency_p50", State: "Overload", Max: ptr(900)},
	{Name: "checkout normal p999", Metric: "latency_p999", Class: "checkout", State: "Normal", To: 12 * time.Second, Max: ptr(1500)},
	{Name: "never p99", Metric: "latency_p99", Class: "never", From: time.Second, Max: ptr(10)},
	{Name: "all p99", Metric: "latency_p99", Max: ptr(1000)},
	{Name: "status p50", Metric: "latency_p50", Class: "status", Max: ptr(1000)},
	{Name: "amp", Metric: "amplification", Max: ptr(1.5)},
}

// TestHandlesMatchStrings drives one recorder through the string methods and another
// through handles with the same calls and checks that they finish identically, down to the
// bytes of the written packet, series and events.
func TestHandlesMatchStrings(t *testing.T) {
	cfg := Config{
		Arm: "a", Start: t0, Tick: 100 * time.Millisecond, Duration: 8 * time.Second,
		Classes: []string{"checkout"}, Layers: []string{"edge"}, Dependencies: []string{"pay"},
		Objectives: handleObjectives,
	}
	for seed := range uint64(3) {
		ops := handleOps(seed, 4000)
		byName, byHandle := newHandleSink(cfg, false), newHandleSink(cfg, true)
		for _, op := range ops {
			byName.apply(op)
			byHandle.apply(op)
		}
		want, got := byName.r.Finish(handleObjectives), byHandle.r.Finish(handleObjectives)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("seed %d: handles differ from string methods (-strings +handles):\n%s", seed, diff)
		}
		if len(got.Series) <= 80 || len(got.Classes) != 5 || len(got.Layers) != 4 || len(got.Dependencies) != 5 {
			t.Fatalf("seed %d: the run did not cover what it should: %d rows, %d classes, %d layers, %d dependencies",
				seed, len(got.Series), len(got.Classes), len(got.Layers), len(got.Dependencies))
		}
		for _, o := range got.Objectives[:4] {
			if o.NoData {
				t.Errorf("seed %d: objective %q has no data: %s", seed, o.Name, o.Note)
			}
		}
		for _, w := range []func(*bytes.Buffer, Arm) error{
			func(b *bytes.Buffer, a Arm) error { return (&Packet{Arms: []Arm{a}}).WriteJSON(b) },
			func(b *bytes.Buffer, a Arm) error { return WriteSeriesCSV(b, a) },
			func(b *bytes.Buffer, a Arm) error { return WriteEventsJSONL(b, a) },
		} {
			var wb, gb bytes.Buffer
			if err := w(&wb, want); err != nil {
				t.Fatal(err)
			}
			if err := w(&gb, got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(wb.Bytes(), gb.Bytes()) {
				t.Fatalf("seed %d: written bytes differ", seed)
			}
		}
	}
}

// TestHandlesSurviveNewNames takes handles, registers more names than the recorder's slices
// had room for, and checks that the old handles still record to their own names.
func TestHandlesSurviveNewNames(t *testing.T) {
	r := NewRecorder(Config{Tick: time.Second, Duration: 2 * time.Second, Objectives: []ObjectiveSpec{
		{Name: "b window", Metric: "latency_p50", Class: "b", From: time.Second},
	}})
	a, edge, pay := r.Class("a"), r.Layer("edge"), r.Dependency("pay")
	b := r.Class("b")
	for i := range 40 {
		n := string(rune('c' + i))
		r.Offered(0, n)
		r.Attempt(0, "layer-"+n)
		r.DependencyCall(0, "dep-"+n, 0, 0)
	}
	if r.Class("a") != a || r.Layer("edge") != edge || r.Dependency("pay") != pay {
		t.Fatal("a second handle for a name differs from the first")
	}
	a.Offered(1500 * time.Millisecond)
	a.Admitted(1500 * time.Millisecond)
	a.Terminal(1600*time.Millisecond, Goodput, 100*time.Millisecond)
	b.Offered(1500 * time.Millisecond)
	b.Admitted(1500 * time.Millisecond)
	b.Terminal(1700*time.Millisecond, Late, 200*time.Millisecond)
	edge.Attempt(1500 * time.Millisecond)
	edge.Attempt(1600 * time.Millisecond)
	edge.Retry(1600 * time.Millisecond)
	pay.Call(1600*time.Millisecond, time.Millisecond, 20*time.Millisecond)

	arm := r.Finish([]ObjectiveSpec{{Name: "b window", Metric: "latency_p50", Class: "b", From: time.Second}})
	if c := arm.Classes[0]; c.Name != "a" || c.Offered != 1 || c.Admitted != 1 || c.Goodput != 1 || c.Late != 0 {
		t.Errorf("class a: %+v", c)
	}
	if c := arm.Classes[1]; c.Name != "b" || c.Offered != 1 || c.Late != 1 || c.Goodput != 0 {
		t.Errorf("class b: %+v", c)
	}
	if l := arm.Layers[0]; l.Name != "edge" || l.Attempts != 2 || l.Retries != 1 {
		t.Errorf("layer edge: %+v", l)
	}
	if d := arm.Dependencies[0]; d.Name != "pay" || d.Calls != 1 {
		t.Errorf("dependency pay: %+v", d)
	}
	if row := arm.Series[1]; len(row.LayerAttempts) != 41 || row.LayerAttempts[0] != 2 || row.Attempts != 2 {
		t.Errorf("row 1: attempts %d, by layer %v", row.Attempts, row.LayerAttempts)
	}
	if o := arm.Objectives[0]; o.NoData || o.Value < 199 || o.Value > 201 {
		t.Errorf("windowed objective of class b: %+v", o)
	}
}

// BenchmarkRecorderHandles records one logical request the way the model does (offered,
// admitted, an attempt at two layers, a dependency call, a queue wait, the remaining
// deadline and the terminal state) through the string methods and through handles.
func BenchmarkRecorderHandles(b *testing.B) {
	cfg := Config{
		Classes:      []string{"new_checkout", "payment_continuation", "status_lookup"},
		Layers:       []string{"edge", "checkout", "payment-risk", "payment", "order-store"},
		Dependencies: []string{"payment-risk", "payment", "order-store"},
		Duration:     40 * time.Minute,
	}
	next := func(at time.Duration) time.Duration {
		at += 111 * time.Microsecond // 9,000/s
		if at >= 40*time.Minute {
			at = 0
		}
		return at
	}
	b.Run("strings", func(b *testing.B) {
		r := NewRecorder(cfg)
		at := time.Duration(0)
		b.ReportAllocs()
		for b.Loop() {
			at = next(at)
			r.Offered(at, "payment_continuation")
			r.Admitted(at, "payment_continuation")
			r.Attempt(at, "edge")
			r.Attempt(at, "payment-risk")
			r.DependencyCall(at, "payment-risk", time.Millisecond, 38*time.Millisecond)
			r.QueueWait(at, "payment_continuation", 2*time.Millisecond)
			r.Remaining(at, "payment_continuation", 700*time.Millisecond)
			r.Terminal(at+300*time.Millisecond, "payment_continuation", Goodput, 300*time.Millisecond)
		}
	})
	b.Run("handles", func(b *testing.B) {
		r := NewRecorder(cfg)
		class, edge, risk, dep := r.Class("payment_continuation"), r.Layer("edge"), r.Layer("payment-risk"), r.Dependency("payment-risk")
		at := time.Duration(0)
		b.ReportAllocs()
		for b.Loop() {
			at = next(at)
			class.Offered(at)
			class.Admitted(at)
			edge.Attempt(at)
			risk.Attempt(at)
			dep.Call(at, time.Millisecond, 38*time.Millisecond)
			class.QueueWait(at, 2*time.Millisecond)
			class.Remaining(at, 700*time.Millisecond)
			class.Terminal(at+300*time.Millisecond, Goodput, 300*time.Millisecond)
		}
	})
}
