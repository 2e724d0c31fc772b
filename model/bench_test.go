package model

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/scenario"
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
					a, d := replayArm(b, p, sc, ad, nil)
					spent += d
					events += a.s.Processed()
				}
				reportEvents(b, events, spent)
			})
		}
	}
}

// replayArm replays arm ad of sc once and returns the arm and the wall time its run took.
// progress, if not nil, is called with 0 as the run starts, then as the run's progress
// callback.
func replayArm(b *testing.B, p *plan, sc *scenario.Scenario, ad scenario.Arm, progress func(a *arm, d time.Duration)) (*arm, time.Duration) {
	a, err := newArm(p, sc, ad, sc.Seed)
	if err != nil {
		b.Fatal(err)
	}
	report := func(time.Duration) {}
	if progress != nil {
		report = func(d time.Duration) { progress(a, d) }
	}
	report(0)
	t0 := time.Now()
	if _, err := a.run(context.Background(), report); err != nil {
		b.Fatal(err)
	}
	return a, time.Since(t0)
}

// reportEvents reports a benchmark's events/s and ns/event.
func reportEvents(b *testing.B, events uint64, spent time.Duration) {
	b.ReportMetric(float64(events)/spent.Seconds(), "events/s")
	b.ReportMetric(float64(spent.Nanoseconds())/float64(events), "ns/event")
}

// armWindow is one of BenchmarkArm's windows: the Northstar scenario cut to duration (0:
// the whole of it), its faults edited by faults if it is set.
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
	if w.faults != nil {
		sc.Faults = w.faults(sc.Faults)
	}
	if w.duration > 0 {
		sc = sc.Truncate(w.duration)
	}
	p, err := compile(sc)
	return sc, p, err
}

// BenchmarkPhases replays the whole Northstar scenario one arm at a time and prints, for
// every simulated minute, the events the arm handled and the wall time they took: where in
// the incident a replay spends its time (BenchmarkReplay/northstar gives only the total).
//
//	go test -run '^$' -bench Phases -benchtime 1x -pgo=cmd/goodput/default.pgo ./model
//
// Each arm reports events/s and ns/event over the whole run, and prints one row per
// simulated minute (summed over iterations).
func BenchmarkPhases(b *testing.B) {
	sc, p, err := armWindow{name: "northstar"}.load()
	if err != nil {
		b.Fatal(err)
	}
	for _, ad := range sc.Arms {
		b.Run(ad.Name, func(b *testing.B) {
			minutes := int((p.duration + time.Minute - 1) / time.Minute)
			events := make([]uint64, minutes)
			wall := make([]time.Duration, minutes)
			var total uint64
			var spent time.Duration
			for b.Loop() {
				var last time.Time
				var lastEv uint64
				// progress is called at the start, at every slice of ten ticks and at the end
				// of the clock; the drain after it is counted in the last minute.
				a, d := replayArm(b, p, sc, ad, func(a *arm, d time.Duration) {
					if d%time.Minute != 0 && d < p.duration {
						return
					}
					now, ev := time.Now(), a.s.Processed()
					if d > 0 {
						m := min(int((d-1)/time.Minute), minutes-1)
						events[m] += ev - lastEv
						wall[m] += now.Sub(last)
					}
					last, lastEv = now, ev
				})
				events[minutes-1] += a.s.Processed() - lastEv
				wall[minutes-1] += time.Since(last)
				spent += d
				total += a.s.Processed()
			}
			// The table goes to standard output: the testing package keeps only ten lines
			// of a benchmark's log.
			fmt.Printf("%s: minute  events (M)  wall (s)  ns/event\n", ad.Name)
			for m := range minutes {
				if events[m] > 0 {
					fmt.Printf("%s: %6d  %9.2f  %8.2f  %8.0f\n", ad.Name, m+1, float64(events[m])/1e6,
						wall[m].Seconds(), float64(wall[m].Nanoseconds())/float64(events[m]))
				}
			}
			reportEvents(b, total, spent)
		})
	}
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
