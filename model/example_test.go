package model_test

import (
	"context"
	"fmt"

	"github.com/goodput-lab/goodput/model"
	"github.com/goodput-lab/goodput/scenario"
)

// A single server behind a FIFO queue slows down by 30% for ten seconds. The FIFO arm
// keeps serving (its throughput stays up) but almost every answer arrives after the
// 250 ms deadline; the arm with an age- and deadline-bounded queue drops the work that
// can no longer succeed and keeps its goodput.
func Example() {
	src := `
name: single-server
clock: {duration: 30s}
load: {schedule: [{at: 0s, rate: 800/s}]}
classes:
  - {name: request, share: 100%, deadline: 250ms, stages: [{name: serve, work: {mean: 1ms}}]}
topology:
  entries: [{name: clients, target: server, timeout: 2s}]
  services: [{name: server, instances: 1, workers: 1}]
faults:
  - {at: 5s, for: 10s, service: server, work_factor: 130%}
arms:
  - {name: fifo, policy: {}}
  - name: deadline-queue
    policy:
      deadline: {propagate: true, cancel: true, reserve: 5ms}
      queue: {kind: age, max_age: 200ms}
`
	sc, err := scenario.Decode("single-server.scenario.yaml", []byte(src))
	if err != nil {
		fmt.Println(err)
		return
	}
	pk, err := model.Run(context.Background(), sc, model.Options{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range pk.Arms {
		t := a.Totals
		fmt.Printf("%-14s offered %d  goodput %d  late %d  expired %d  failed %d\n",
			a.Name, t.Offered, t.Goodput, t.Late, t.Expired, t.Failed)
	}
	// Output:
	// fifo           offered 24164  goodput 18091  late 6073  expired 0  failed 0
	// deadline-queue offered 24164  goodput 23830  late 0  expired 0  failed 334
}
