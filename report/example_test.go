package report_test

import (
	"fmt"
	"os"
	"time"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/report"
)

func ExampleTable() {
	rec := packet.NewRecorder(packet.Config{Arm: "baseline", Duration: 2 * time.Second, Layers: []string{"edge"}})
	for i := range 1000 {
		at := time.Duration(i) * 2 * time.Millisecond
		rec.Offered(at, "checkout")
		rec.Admitted(at, "checkout")
		rec.Attempt(at, "edge")
		if i%4 == 0 { // a timeout, a retry and a late success
			rec.Attempt(at+900*time.Millisecond, "edge")
			rec.Retry(at+900*time.Millisecond, "edge")
			rec.Terminal(at+2*time.Second, "checkout", packet.Late, 2*time.Second)
			continue
		}
		rec.Terminal(at+300*time.Millisecond, "checkout", packet.Goodput, 300*time.Millisecond)
	}
	p := &packet.Packet{Scenario: "example", Seed: 1, Arms: []packet.Arm{rec.Finish(nil)}}
	if err := report.Table(os.Stdout, p); err != nil {
		fmt.Println(err)
	}
	// Output:
	// goodput replay: example   seed 1   2s simulated, tick 1s   1 arm
	//
	//                                                              baseline
	//                                                                 total   per s
	// Populations
	//   offered                                                       1,000   500.0
	//   admitted                                                      1,000   500.0
	//   rejected                                                          0     0.0
	//   attempts                                                      1,250   625.0
	//   goodput                                                         750   375.0
	//   late                                                            250   125.0
	//   expired                                                           0     0.0
	//   shed (optional work)                                              0     0.0
	//   failed                                                            0     0.0
	//   ambiguous                                                         0     0.0
	//   goodput / offered                                             75.0%
	// Amplification (attempts per offered)
	//   total                                                        1.250×
	//   worst tick                                                   1.250×
	//   edge                                                         1.250×
	// Latency, admitted requests (ms)
	//   p50                                                           300.0
	//   p99                                                         2,000.9
	//   p99.9                                                       2,000.9
	//   checkout p99                                                2,000.9
	// Queue
	//   oldest queue age, max (ms)                                        –
	//   oldest queue age, mean (ms)                                       –
	// Retries
	//   retries                                                         250   125.0
	//   retries / admitted                                            25.0%
	//   suppressed                                                        0     0.0
	// Duplicates
	//   payment authorisations                                            0     0.0
	//   order commits                                                     0     0.0
	// Wasted and stopped work
	//   orphans (finished after the caller gave up)                       0     0.0
	//   cancellations completed                                           0     0.0
	// Load state
	//   transitions                                                       0
	// Invariants
	//   offered = admitted + rejected                                     ✓
	//   admitted = goodput + late + expired + failed + ambiguous          ✓
	//   retries ≤ attempts at every layer                                 ✓
	//   duplicates counted by kind                                        ✓
	// Recovery, seconds after t=0 s
	//   stabilise (goodput ≥ 95% of offered)                          never
	//   drain (oldest queue age ≤ 250 ms)                                 –
	//   return to Normal                                                  –
}

func ExampleInt() {
	fmt.Println(report.Int(14054), report.Float(9000/0.64, 1))
	// Output: 14,054 14,062.5
}
