package lab_test

import (
	"context"
	"fmt"
	"time"

	"github.com/goodput-lab/goodput/live/lab"
	"github.com/goodput-lab/goodput/live/loadgen"
	"github.com/goodput-lab/goodput/model"
	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
)

const exampleScenario = `
name: example
clock: {start: 2026-03-10T14:00:00Z, duration: 2s}
load: {schedule: [{at: 0s, rate: 10/s}]}
classes:
  - {name: buy, share: 1, deadline: 500ms, stages: [{name: handle, service: server, work: {mean: 10ms}}]}
topology:
  entries: [{name: edge, target: server}]
  services: [{name: server, instances: 1, workers: 4}]
arms: [{name: baseline, policy: {}}]
objectives:
  - {name: goodput, metric: goodput_fraction, min: 90%}
`

// A generator's result of a two-second run becomes a live arm, joined with the replay of
// the same scenario.
func Example() {
	sc, err := scenario.Decode("example.scenario.yaml", []byte(exampleScenario))
	if err != nil {
		panic(err)
	}
	res := &loadgen.Result{
		Start: time.Date(2026, 12, 1, 22, 0, 0, 0, time.UTC), Duration: 2 * time.Second, Elapsed: 2500 * time.Millisecond,
		Tick: time.Second, CPU: 20 * time.Millisecond,
		Classes: []loadgen.ClassResult{{Name: "buy", Offered: 20, Sent: 20, Goodput: 18, Rejected: 2, Attempts: 20,
			Rejections: []loadgen.Rejection{{Status: 429, Reason: "admission", Count: 2}}}},
		Series: []loadgen.Row{
			{T: 0, Offered: 10, Sent: 10, Goodput: 10, Attempts: 10},
			{T: time.Second, Offered: 10, Sent: 10, Goodput: 8, Rejected: 2, Attempts: 10},
		},
	}
	res.Total = res.Classes[0]
	live, err := lab.Arm("baseline", sc, res, lab.LiveCounts{})
	if err != nil {
		panic(err)
	}
	t := live.Totals
	fmt.Printf("%s (%s): offered %d, admitted %d, rejected %d, goodput %d\n", live.Name, live.Source, t.Offered, t.Admitted, t.Rejected, t.Goodput)
	fmt.Printf("objective %s: %v (%v)\n", live.Objectives[0].Name, live.Objectives[0].Value, live.Objectives[0].Pass)
	fmt.Printf("generator CPU per request: %v\n", live.Live.Overhead.GeneratorCPUPerRequest)

	replay, err := model.Run(context.Background(), sc, model.Options{})
	if err != nil {
		panic(err)
	}
	joined, err := lab.Join(&packet.Packet{Scenario: replay.Scenario, Arms: []packet.Arm{live}}, replay)
	if err != nil {
		panic(err)
	}
	for _, a := range joined.Arms {
		fmt.Println(a.Name, a.Source)
	}
	// Output:
	// baseline (live): offered 20, admitted 18, rejected 2, goodput 18
	// objective goodput: 0.9 (true)
	// generator CPU per request: 1ms
	// baseline live
	// baseline_replay replay
}
