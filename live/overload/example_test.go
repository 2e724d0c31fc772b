package overload_test

import (
	"fmt"
	"time"

	"github.com/goodput-lab/goodput/live/overload"
)

// Measure turns a run's timeline into the benchmark's figures: here 1 s healthy, 1 s of
// fault during which a third of the load is served with two calls per request, and a
// service back to full goodput half a second after the fault.
func ExampleMeasure() {
	c := overload.Case{Name: "example", Rate: 100, Deadline: time.Second,
		Healthy: time.Second, Fault: time.Second, After: 2 * time.Second}
	var timeline []overload.Bucket
	for _, goodput := range []int64{50, 50, 20, 15, 30, 50, 50, 50} {
		calls := int64(50)
		if goodput < 50 {
			calls = 100
		}
		timeline = append(timeline, overload.Bucket{Offered: 50, Goodput: goodput, Calls: calls})
	}
	m, err := overload.Measure(c, timeline)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("goodput/s %.0f (healthy %.0f), recovery-s %.1f, attempts/req %.1f\n",
		m.Goodput, m.Healthy, m.Recovery.Seconds(), m.Attempts)
	// Output:
	// goodput/s 35 (healthy 100), recovery-s 0.5, attempts/req 2.0
}
