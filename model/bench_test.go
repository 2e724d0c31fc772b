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
// yet; the baseline arm handles 3.44 M events); overload is Northstar at the slowdown's
// worst (its last service-time fault, p99 410 ms) with the failover's extra traffic, both
// from the start, for 75 s (the baseline arm overloads within seconds: 4.81 M events). Each reports events/s
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

// armWindow is one of BenchmarkArm's windows: the Northstar scenario cut to duration,
// its faults edited by faults if it is set.
type armWindow struct {
	name     string
	duration time.Duration
	faults   func([]scenario.Fault) []scenario.Fault
}

// armWindows are BenchmarkArm's windows.
var armWindows = []armWindow{
	{"light", time.Minute, nil},
	{"overload", 75 * time.Second, worstAtOnce},
}

// worstAtOnce keeps the last service-time fault and the traffic shift, both from the start
// to the end of the run.
func worstAtOnce(faults []scenario.Fault) []scenario.Fault {
	var worst, shift *scenario.Fault
	for i := range faults {
		switch f := &faults[i]; {
		case f.ServiceTime != nil:
			worst = f
		case f.Shift != nil:
			shift = f
		}
	}
	var out []scenario.Fault
	for _, f := range []*scenario.Fault{worst, shift} {
		if f != nil {
			g := *f
			g.At, g.For = 0, 0
			out = append(out, g)
		}
	}
	return out
}

func (w armWindow) load() (*scenario.Scenario, *plan, error) {
	sc, err := scenario.Load(filepath.Join("..", "examples", "northstar", "northstar.scenario.yaml"))
	if err != nil {
		return nil, nil, err
	}
	sc.Clock.Duration = scenario.Duration(w.duration)
	if w.faults != nil {
		sc.Faults = w.faults(sc.Faults)
	}
	p, err := compile(sc)
	return sc, p, err
}

// TestArmWindowsLoad keeps BenchmarkArm's windows loadable (go test runs no benchmark) and
// checks that the overloaded one has the slowdown and the shift from the start.
func TestArmWindowsLoad(t *testing.T) {
	for _, w := range armWindows {
		sc, _, err := w.load()
		if err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		if w.faults == nil {
			continue
		}
		if len(sc.Faults) != 2 || sc.Faults[0].ServiceTime == nil || sc.Faults[1].Shift == nil ||
			sc.Faults[0].At != 0 || sc.Faults[1].At != 0 || sc.Faults[0].For != 0 {
			t.Errorf("%s: faults %+v, want the last service-time fault and the shift, from 0", w.name, sc.Faults)
		}
	}
}
