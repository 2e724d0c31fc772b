package main

import (
	"context"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/model"
	"github.com/goodput-lab/goodput/scenario"
	"github.com/goodput-lab/goodput/sim"
)

// churn is the floor's handler: every event schedules one more, a pseudo-random delay
// ahead, so the queue keeps its size and the loop does nothing but push and pop.
type churn struct{ x uint64 }

func (c *churn) Handle(s *sim.Sim, e sim.Event) {
	c.x = c.x*6364136223846793005 + 1442695040888963407
	s.Schedule(time.Duration(c.x>>44)*time.Microsecond/16, c, e.Kind, e.ID)
}

// BenchmarkReplay measures the event loop's floor and the Northstar replay.
//
//	go test -run '^$' -bench Replay ./...
//
// It lives in the command's package so that it is built as the command is: with the
// profile-guided optimisation of default.pgo (docs/benchmarks.md says how to refresh it).
//
// floor is a bare event loop on sim.Sim's queue (schedule and pop, 4,096 events pending,
// 65,536 events an iteration). A Northstar arm's queue holds fewer, at most about 1,900
// (its timeouts wait in the model's timer queues); the floor's events/s is the same, within
// this machine's noise, from 512 to 4,096 pending (docs/benchmarks.md). northstar replays
// examples/northstar (9,000 logical/s for 40 simulated minutes, two arms in parallel). Both
// report events/s; northstar also reports requests/s, the simulated logical requests (both
// arms) per wall second, and each arm's wall seconds (baseline-s, protected-s): the arms run
// in parallel, so the slowest one sets the wall time.
func BenchmarkReplay(b *testing.B) {
	b.Run("floor", func(b *testing.B) {
		b.ReportAllocs()
		s := sim.New(time.Time{})
		h := &churn{x: 1}
		for i := range 4096 {
			s.Schedule(time.Duration(i)*time.Microsecond, h, 0, 0)
		}
		start := s.Processed()
		t0 := time.Now()
		for b.Loop() {
			for range 1 << 16 { // a batch per iteration, so that -benchtime=1x still measures
				s.Step(time.Duration(1<<62 - 1))
			}
		}
		b.ReportMetric(float64(s.Processed()-start)/time.Since(t0).Seconds(), "events/s")
	})
	b.Run("northstar", func(b *testing.B) {
		b.ReportAllocs()
		sc, err := scenario.Load(filepath.Join("..", "..", "examples", "northstar", "northstar.scenario.yaml"))
		if err != nil {
			b.Fatal(err)
		}
		var events, offered atomic.Uint64
		var mu sync.Mutex
		armWall := map[string]time.Duration{} // wall time of each arm, summed over iterations
		var t1 time.Time
		opts := model.Options{Seed: sc.Seed, ArmDone: func(arm string, n uint64) {
			events.Add(n)
			mu.Lock()
			armWall[arm] += time.Since(t1)
			mu.Unlock()
		}}
		t0 := time.Now()
		for b.Loop() {
			t1 = time.Now()
			pk, err := model.Run(context.Background(), sc, opts)
			if err != nil {
				b.Fatal(err)
			}
			for _, a := range pk.Arms {
				offered.Add(uint64(a.Totals.Offered))
			}
		}
		el := time.Since(t0).Seconds()
		b.ReportMetric(float64(events.Load())/el, "events/s")
		b.ReportMetric(float64(offered.Load())/el, "requests/s")
		// The arms run in parallel, so the wall time is the slowest arm's: report each.
		for arm, d := range armWall {
			b.ReportMetric(d.Seconds()/float64(b.N), arm+"-s")
		}
	})
}
