package model

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"goodput/scenario"
)

// BenchmarkArm replays one arm of a Northstar window on its own: the model's cost per
// event, without the other arm competing for the machine and without the whole 40 minutes.
//
//	go test -run '^$' -bench Arm -pgo=cmd/goodput/default.pgo ./model   # from the repository root
//
// light is Northstar's first 60 simulated seconds (the slowdown begins, nothing overloads
// yet; the baseline arm handles 3.44 M events); overload is testdata/overload.scenario.yaml,
// Northstar at the slowdown's worst with the failover's extra traffic from the start, for
// 75 s (the baseline arm overloads within seconds: 4.81 M events). Each reports events/s
// and ns/event. The -pgo flag builds the model as the command is built (a test of this
// package would otherwise be built without the profile). docs/benchmarks.md counts
// instructions with one iteration of this benchmark under cachegrind.
func BenchmarkArm(b *testing.B) {
	for _, w := range armWindows {
		sc, p, err := w.load()
		if err != nil {
			b.Fatal(err)
		}
		for _, ad := range sc.Arms {
			b.Run(w.name+"/"+ad.Name, func(b *testing.B) {
				b.ReportAllocs()
				var events uint64
				var spent time.Duration
				for b.Loop() {
					a, err := newArm(p, sc, ad, sc.Seed)
					if err != nil {
						b.Fatal(err)
					}
					t0 := time.Now()
					if _, err := a.run(context.Background(), func(time.Duration) {}); err != nil {
						b.Fatal(err)
					}
					spent += time.Since(t0)
					events += a.s.Processed()
				}
				b.ReportMetric(float64(events)/spent.Seconds(), "events/s")
				b.ReportMetric(float64(spent.Nanoseconds())/float64(events), "ns/event")
			})
		}
	}
}

// armWindow is one of BenchmarkArm's windows: a scenario, cut to duration if it is set.
type armWindow struct {
	name, file string
	duration   time.Duration // 0: the scenario's own
}

// armWindows are BenchmarkArm's windows.
var armWindows = []armWindow{
	{"light", filepath.Join("..", "examples", "northstar", "northstar.scenario.yaml"), time.Minute},
	{"overload", filepath.Join("testdata", "overload.scenario.yaml"), 0},
}

func (w armWindow) load() (*scenario.Scenario, *plan, error) {
	sc, err := scenario.Load(w.file)
	if err != nil {
		return nil, nil, err
	}
	if w.duration > 0 {
		sc.Clock.Duration = scenario.Duration(w.duration)
	}
	p, err := compile(sc)
	return sc, p, err
}

// TestArmWindowsLoad keeps BenchmarkArm's scenarios loadable: go test runs no benchmark.
func TestArmWindowsLoad(t *testing.T) {
	for _, w := range armWindows {
		if _, _, err := w.load(); err != nil {
			t.Errorf("%s: %v", w.name, err)
		}
	}
}
