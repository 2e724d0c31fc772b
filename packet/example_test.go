package packet_test

import (
	"fmt"
	"os"
	"time"

	"github.com/goodput-lab/goodput/packet"
)

// A recorder counts the four populations of an arm and checks their conservation.
func ExampleRecorder() {
	rec := packet.NewRecorder(packet.Config{
		Arm: "baseline", Tick: time.Second, Duration: 2 * time.Second,
		Classes: []string{"checkout"}, Layers: []string{"edge", "payment-risk"},
	})
	for i := range 4 {
		at := time.Duration(i) * 250 * time.Millisecond
		rec.Offered(at, "checkout")
		if i == 3 {
			rec.Rejected(at, "checkout", "limit")
			continue
		}
		rec.Admitted(at, "checkout")
		rec.Attempt(at, "edge")
		rec.Attempt(at, "payment-risk")
		latency := 400 * time.Millisecond
		outcome := packet.Goodput
		if i == 1 || i == 2 { // the edge timed out and retried; the success came after the deadline
			rec.Attempt(at+900*time.Millisecond, "edge")
			rec.Retry(at+900*time.Millisecond, "edge")
			latency, outcome = 2*time.Second, packet.Late
		}
		rec.Terminal(at+latency, "checkout", outcome, latency)
	}
	max := 1.08
	arm := rec.Finish([]packet.ObjectiveSpec{{Name: "amplification", Metric: "amplification", Max: &max}})

	t := arm.Totals
	fmt.Printf("offered %d = admitted %d + rejected %d\n", t.Offered, t.Admitted, t.Rejected)
	fmt.Printf("goodput %d, late %d; attempts %d (%.2f per logical request at the edge)\n", t.Goodput, t.Late, t.Attempts, arm.Amplification.Total)
	for _, o := range arm.Objectives {
		fmt.Printf("%s: %v %s %v pass=%v\n", o.Name, o.Value, o.Op, o.Target, o.Pass)
	}
	for _, inv := range arm.Invariants[:2] {
		fmt.Printf("%s: %v\n", inv.Name, inv.Pass)
	}
	// Output:
	// offered 4 = admitted 3 + rejected 1
	// goodput 1, late 2; attempts 8 (1.25 per logical request at the edge)
	// amplification: 1.25 <= 1.08 pass=false
	// offered = admitted + rejected: true
	// admitted = goodput + late + expired + failed + ambiguous: true
}

// A model on a hot path takes a handle per class, layer and dependency once, then records
// through the handles without looking names up.
func ExampleRecorder_Class() {
	rec := packet.NewRecorder(packet.Config{Arm: "protected", Duration: time.Second})
	checkout := rec.Class("checkout")
	edge, payment := rec.Layer("edge"), rec.Layer("payment")
	risk := rec.Dependency("payment-risk")
	for i := range 3 {
		at := time.Duration(i) * 100 * time.Millisecond
		checkout.Offered(at)
		checkout.Admitted(at)
		edge.Attempt(at)
		payment.Attempt(at)
		risk.Call(at, time.Millisecond, 40*time.Millisecond)
		checkout.Terminal(at+200*time.Millisecond, packet.Goodput, 200*time.Millisecond)
	}
	rec.Offered(time.Second/2, "checkout") // the string methods record to the same class
	rec.Rejected(time.Second/2, "checkout", "limit")

	arm := rec.Finish(nil)
	c := arm.Classes[0]
	fmt.Printf("%s: offered %d, admitted %d, rejected %d, goodput %d, p50 %v\n", c.Name, c.Offered, c.Admitted, c.Rejected, c.Goodput, c.Latency.P50)
	for _, l := range arm.Layers {
		fmt.Printf("%s: %d attempts\n", l.Name, l.Attempts)
	}
	fmt.Printf("%s: %d calls\n", arm.Dependencies[0].Name, arm.Dependencies[0].Calls)
	// Output:
	// checkout: offered 4, admitted 3, rejected 1, goodput 3, p50 200.063ms
	// edge: 3 attempts
	// payment: 3 attempts
	// payment-risk: 3 calls
}

// The writers turn a packet into packet.json, series.csv and events.jsonl.
func ExampleWriteSeriesCSV() {
	rec := packet.NewRecorder(packet.Config{Arm: "a", Start: time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC), Duration: 2 * time.Second})
	rec.Offered(0, "c")
	rec.Admitted(0, "c")
	rec.Attempt(0, "edge")
	rec.Terminal(100*time.Millisecond, "c", packet.Goodput, 100*time.Millisecond)
	rec.Sample(0, packet.Sample{QueueAgeMax: 5 * time.Millisecond, State: "Normal", Generation: 1, Constraint: "none"})
	arm := rec.Finish(nil)
	if err := packet.WriteSeriesCSV(os.Stdout, arm); err != nil {
		fmt.Println(err)
	}
	// Output:
	// t_s,time,arm,offered_per_s,admitted_per_s,rejected_per_s,attempts_per_s,retries_per_s,suppressed_per_s,goodput_per_s,late_per_s,expired_per_s,failed_per_s,ambiguous_per_s,shed_per_s,orphans_per_s,cancellations_completed_per_s,duplicates,cache_hits_per_s,cache_misses_per_s,amplification,latency_p50_ms,latency_p99_ms,queue_age_max_ms,queue_len,in_flight,pool_waiters,instances_requested,instances_process_ready,instances_route_ready,instances_warm,state,generation,admission_limit,slack_p10_ms,constraint,attempts_edge_per_s
	// 0,2026-03-10T14:00:00Z,a,1,1,0,1,0,0,1,0,0,0,0,0,0,0,0,0,0,1,100.031,100.031,5,0,0,0,0,0,0,0,Normal,1,0,0,none,1
	// 1,2026-03-10T14:00:01Z,a,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,,,,,,,,,,,,,,,,,0
}

// A packet directory written by WriteDir reads back whole: figures with their durations,
// the series and the events.
func ExampleRead() {
	rec := packet.NewRecorder(packet.Config{Arm: "baseline", Tick: time.Second, Duration: 2 * time.Second})
	for i := range 4 {
		at := time.Duration(i) * 500 * time.Millisecond
		rec.Offered(at, "checkout")
		rec.Admitted(at, "checkout")
		rec.Terminal(at+120*time.Millisecond, "checkout", packet.Goodput, 120*time.Millisecond)
	}
	rec.Annotate(time.Second, "fault", "start: slow dependency")
	p := &packet.Packet{Scenario: "example", Seed: 1, Arms: []packet.Arm{rec.Finish(nil)}}

	dir, err := os.MkdirTemp("", "packet")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	if err := p.WriteDir(dir); err != nil {
		panic(err)
	}
	back, err := packet.Read(dir)
	if err != nil {
		panic(err)
	}
	a := back.Arms[0]
	fmt.Printf("%s: %v simulated at a %v tick, p50 %v\n", a.Name, a.Duration, a.Tick, a.Latency.P50)
	fmt.Printf("%d rows, goodput %d in the first; %d event: %s at %v\n", len(a.Series), a.Series[0].Goodput, len(a.Events), a.Events[0].Text, a.Events[0].T)
	// Output:
	// baseline: 2s simulated at a 1s tick, p50 120.063ms
	// 2 rows, goodput 2 in the first; 1 event: start: slow dependency at 1s
}
