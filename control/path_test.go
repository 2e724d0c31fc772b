package control_test

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/breaker"
	"github.com/goodput-lab/goodput/control/budget"
	"github.com/goodput-lab/goodput/control/deadline"
	"github.com/goodput-lab/goodput/control/loadstate"
	"github.com/goodput-lab/goodput/control/shed"
	"github.com/goodput-lab/goodput/scenario"
)

// path holds the controls of one service instance, built as a service
// built with control/controlhttp holds them: one admission controller, one
// retry budget, one breaker per dependency, one load-state machine and one
// compiled shed table.
type path struct {
	adm  *admission.Controller
	bud  *budget.Budget
	br   *breaker.Breaker
	ls   *loadstate.Machine
	tbl  shed.Table
	recs shed.Feature
}

var pathT0 = time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC)

func newPath(tb testing.TB) *path {
	tb.Helper()
	adm, err := admission.New(admission.Config{Max: 1000})
	if err != nil {
		tb.Fatal(err)
	}
	bud, err := budget.New(budget.Finagle())
	if err != nil {
		tb.Fatal(err)
	}
	br, err := breaker.New(breaker.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	ls, err := loadstate.New(scenario.NorthstarLoadState(), pathT0)
	if err != nil {
		tb.Fatal(err)
	}
	tbl, err := scenario.NorthstarShedPlan().Compile()
	if err != nil {
		tb.Fatal(err)
	}
	recs, ok := tbl.Feature(scenario.FeatureRecommendations)
	if !ok {
		tb.Fatal("no recommendations feature in the default plan")
	}
	return &path{adm: adm, bud: bud, br: br, ls: ls, tbl: tbl, recs: recs}
}

// Per-request constants of the path: the Northstar deadline, the service time
// admission expects, the reserve kept back from a dependency call, and the
// latency a retry is expected to need.
const (
	pathDeadline = 1800 * time.Millisecond
	pathExpected = 300 * time.Millisecond
	pathReserve  = 50 * time.Millisecond
	pathAttempt  = 120 * time.Millisecond
)

// request runs goodput's whole per-request decision path at now for a request
// whose absolute deadline is dl: the steps control/controlhttp takes for one
// request served and one dependency call made, without net/http. ok is false
// when a step refuses; shedRecs reports whether recommendations are shed.
func (p *path) request(now, dl time.Time) (ok, shedRecs bool) {
	// Server side: deadline check, load-state lookup, shed lookup, admission.
	slack := deadline.Remaining(dl, now)
	if slack <= 0 {
		return false, false
	}
	snap := p.ls.Snapshot()
	shedRecs = p.tbl.Set(snap.Policy.Shed).Has(p.recs)
	d := p.adm.Admit(now, admission.Request{Class: admission.Standard, Slack: slack, Expected: pathExpected})
	if !d.Admitted {
		return false, shedRecs
	}
	// Client side, one dependency call: per-call timeout from the deadline,
	// deposit in the retry budget, breaker permission and result.
	timeout, err := deadline.CallTimeout(dl, now, pathReserve, 0)
	if err != nil {
		p.adm.Done(now, admission.Sample{Class: admission.Standard, Dropped: true})
		return false, shedRecs
	}
	t, err := p.br.Allow(now)
	if err != nil {
		p.adm.Done(now, admission.Sample{Class: admission.Standard, Dropped: true})
		return false, shedRecs
	}
	p.bud.Request(now, "tenant-a")
	p.br.Record(now, t, breaker.Success)
	// The retry decision the client would take had the call timed out: the
	// budget is asked (and may refuse; both answers cost the same path).
	_ = p.bud.Allow(now, budget.Retry{
		Tenant:       "tenant-a",
		Failure:      budget.Timeout,
		Deduplicated: true,
		Remaining:    deadline.Remaining(dl, now),
		Expected:     budget.Backoff(1, 25*time.Millisecond, time.Second, 0.5) + pathAttempt,
	})
	// Server side again: release the admission slot with the measurement.
	p.adm.Done(now, admission.Sample{Class: admission.Standard, Latency: timeout / 100})
	return true, shedRecs
}

// benchGoodputPath measures goodput's full per-request decision path (see
// [path.request]) under [testing.B.RunParallel]: all goroutines share one
// service's controls, as the handlers of one server do, and each keeps its
// own clock advancing by 1 µs per request (the controls clamp instants that
// fall behind another goroutine's). Its ns/op is wall time per request with
// GOMAXPROCS goroutines; benchGoodputSerial is the same path from one
// goroutine.
func benchGoodputPath(b *testing.B) { benchGoodputParallel(b, 1) }

// benchGoodputHandlers is benchGoodputPath with handlersPerCPU goroutines
// per GOMAXPROCS, as the handlers of a busy server outnumber its cores.
func benchGoodputHandlers(b *testing.B) { benchGoodputParallel(b, handlersPerCPU) }

// handlersPerCPU is the -handlers variants' goroutines per GOMAXPROCS
// ([testing.B.SetParallelism]).
const handlersPerCPU = 8

// benchGoodputParallel runs the path under RunParallel with par goroutines
// per GOMAXPROCS.
func benchGoodputParallel(b *testing.B, par int) {
	p := newPath(b)
	var worker atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(par)
	b.RunParallel(func(pb *testing.PB) {
		now := pathT0.Add(time.Duration(worker.Add(1)) * time.Nanosecond)
		shed := 0
		for pb.Next() {
			now = now.Add(time.Microsecond)
			ok, s := p.request(now, now.Add(pathDeadline))
			if !ok {
				b.Error("request refused on an idle path")
				return
			}
			if s {
				shed++
			}
		}
		if shed != 0 {
			b.Errorf("Normal shed recommendations %d times", shed)
		}
	})
}

// benchGoodputSerial is benchGoodputPath from one goroutine.
func benchGoodputSerial(b *testing.B) {
	p := newPath(b)
	now := pathT0
	b.ReportAllocs()
	shed := 0
	for b.Loop() {
		now = now.Add(time.Microsecond)
		ok, s := p.request(now, now.Add(pathDeadline))
		if !ok {
			b.Fatal("request refused on an idle path")
		}
		if s {
			shed++
		}
	}
	if shed != 0 {
		b.Errorf("Normal shed recommendations %d times", shed)
	}
}

// TestPath checks the benchmarked path decides what it should: an idle path
// admits, an expired request is refused before admission, a Protected
// machine sheds recommendations, and an open breaker refuses the call and
// releases the admission slot.
func TestPath(t *testing.T) {
	p := newPath(t)
	now := pathT0
	if ok, shedRecs := p.request(now, now.Add(pathDeadline)); !ok || shedRecs {
		t.Fatalf("idle Normal path: ok %v, shed recommendations %v; want true, false", ok, shedRecs)
	}
	if ok, _ := p.request(now, now.Add(-time.Millisecond)); ok {
		t.Fatal("expired request admitted")
	}
	p.ls.Override(now, loadstate.Protected, "test")
	if ok, shedRecs := p.request(now, now.Add(pathDeadline)); !ok || !shedRecs {
		t.Fatalf("Protected path: ok %v, shed recommendations %v; want true, true", ok, shedRecs)
	}
	p.br.ForceOpen(now)
	if ok, _ := p.request(now, now.Add(pathDeadline)); ok {
		t.Fatal("request passed an open breaker")
	}
	if n := p.adm.InFlight(); n != 0 {
		t.Fatalf("in flight = %d after refused calls, want 0", n)
	}
	if got := p.bud.Stats().Requests; got != 2 {
		t.Fatalf("budget requests = %d, want 2 (refused calls deposit nothing)", got)
	}
}

// TestPathConcurrent runs the path from several goroutines at once, each
// with its own clock, as the benchmark's parallel variant does, and checks
// that the controls' counts add up once they are done: every request was
// admitted (the path is idle) and released, deposited once in the budget and
// asked for one retry, and recorded once by the breaker. Run with -race.
func TestPathConcurrent(t *testing.T) {
	p := newPath(t)
	const workers, per = 4, 5000
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			now := pathT0.Add(time.Duration(w) * time.Nanosecond)
			for i := range per {
				if i%7 == 0 {
					runtime.Gosched() // interleave even on one CPU
				}
				now = now.Add(time.Microsecond)
				if ok, _ := p.request(now, now.Add(pathDeadline)); !ok {
					t.Error("request refused on an idle path")
					return
				}
			}
		})
	}
	wg.Wait()
	const n = workers * per
	adm := p.adm.Stats()
	if adm.InFlight != 0 || adm.Admitted() != n || adm.Rejected() != 0 || adm.Unmatched != 0 {
		t.Errorf("admission after %d requests: %+v", n, adm)
	}
	bud := p.bud.Stats()
	if bud.Requests != n || bud.Retries+bud.Suppressions() != n || bud.Retries == 0 {
		t.Errorf("budget after %d requests: %+v", n, bud)
	}
	// 20 ms of virtual time: every result is still in the breaker's window.
	if br := p.br.Stats(); br.Successes != n || br.Failures != 0 || br.Stale != 0 || br.Generation != 1 {
		t.Errorf("breaker after %d requests: %+v", n, br)
	}
}

// TestPathAllocs pins the path at zero allocations per request.
func TestPathAllocs(t *testing.T) {
	p := newPath(t)
	now := pathT0
	allocs := testing.AllocsPerRun(1000, func() {
		now = now.Add(time.Microsecond)
		p.request(now, now.Add(pathDeadline))
	})
	if allocs != 0 {
		t.Fatalf("path allocates %v times per request, want 0", allocs)
	}
}
