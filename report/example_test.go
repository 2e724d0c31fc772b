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
	// Fit an 80-column terminal (report.Table fits report.DefaultWidth).
	if err := (report.Terminal{Width: 80}).Table(os.Stdout, p); err != nil {
		fmt.Println(err)
	}
	// Output:
	// goodput replay: example   seed 1   2s simulated, tick 1s   1 arm
	//
	//                                                                      baseline
	//                                                                 total   per s
	// Logical requests, by outcome (counted when the caller had its answer or gave up)
	//   offered                                                       1,000   500.0
	//   admitted                                                      1,000   500.0
	//   rejected                                                          0     0.0
	//   goodput                                                         750   375.0
	//   late                                                            250   125.0
	//   expired                                                           0     0.0
	//   failed                                                            0     0.0
	//   ambiguous                                                         0     0.0
	//   goodput / offered                                             75.0%
	// Attempts (physical work) and amplification (attempts per offered, by layer)
	//   attempts (one layer)                                          1,250   625.0
	//   amplification: the most amplified layer                      1.250×
	//   the most amplified layer's worst tick                        1.250×
	//   at edge                                                      1.250×
	// Optional features shed (not requests: a request may lose several)
	//   features shed                                                     0     0.0
	// Completion latency of admitted requests, any outcome (ms)
	//   mean                                                          725.0
	//   p50                                                           300.0
	//   p99                                                         2,000.9
	//   p99.9                                                       2,000.9
	//   checkout p99                                                2,000.9
	// Queue (sampled once a tick)
	//   oldest queue age, highest sample (ms)                             –
	//   oldest queue age, mean of samples (ms)                            –
	// Retries (every layer)
	//   retries                                                         250   125.0
	//   retries / admitted                                            25.0%
	//   retries suppressed (not made)                                     0     0.0
	// Duplicate mutations
	//   payment authorisations                                            0     0.0
	//   order commits                                                     0     0.0
	// Wasted and stopped work
	//   orphaned work (finished after its caller stopped waiting)         0     0.0
	//   work stopped by a cancellation                                    0     0.0
	// Load state
	//   transitions                                                       0
	// Invariants
	//   offered = admitted + rejected                                     ✓
	//   admitted = goodput + late + expired + failed + ambiguous          ✓
	//   retries ≤ attempts at every layer                                 ✓
	//   duplicates counted by kind                                        ✓
	// Recovery, seconds after t=0 s (the start: no time_to_normal objective)
	//   goodput stable again (every tick ≥ 95% of offered)            never
	//   queues drained (oldest queue age ≤ 250 ms)                        –
	//   back to Normal (without a load state: stable and drained)         –
}

func ExampleInt() {
	fmt.Println(report.Int(14054), report.Float(9000/0.64, 1))
	// Output: 14,054 14,062.5
}
