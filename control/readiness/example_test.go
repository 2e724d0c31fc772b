package readiness_test

import (
	"fmt"
	"time"

	"github.com/goodput-lab/goodput/control/readiness"
)

// Twenty instances requested at 14:06 report process-ready at 14:12 but run
// cold: requested capacity is not route-ready capacity. The criteria are the
// Northstar case study's: representative connections, warm caches and a
// canary proving 350 attempts/s before routing; a warm instance completes 420.
func Example() {
	at := func(hms string) time.Time {
		t, _ := time.Parse(time.DateTime, "2025-03-11 "+hms)
		return t
	}
	fleet, err := readiness.NewFleet(readiness.Config{
		Route:   readiness.Criteria{Connections: 20, CacheWarm: 0.85, CanaryRate: 350, CanaryFor: 30 * time.Second},
		Warm:    readiness.Criteria{Connections: 20, CacheWarm: 0.93, CanaryRate: 400, CanaryFor: time.Minute},
		Nominal: 420,
	})
	if err != nil {
		panic(err)
	}
	var insts []*readiness.Instance
	for range 20 {
		insts = append(insts, fleet.Request(at("14:06:00")))
	}
	for _, in := range insts {
		in.Scheduled(at("14:07:00"))
		in.ProcessReady(at("14:12:00"))
		in.Observe(at("14:12:30"), readiness.Observation{Connections: 20, CacheWarm: 0.60, Throughput: 180})
	}
	fmt.Println(fleet.Summary())

	// One instance warms up under a canary.
	in := insts[0]
	for k, o := range []readiness.Observation{
		{Connections: 20, CacheWarm: 0.80, Throughput: 300},
		{Connections: 20, CacheWarm: 0.86, Throughput: 360}, // route criteria met from here
		{Connections: 20, CacheWarm: 0.90, Throughput: 380},
		{Connections: 20, CacheWarm: 0.92, Throughput: 390},
		{Connections: 20, CacheWarm: 0.94, Throughput: 410}, // warm criteria met from here
		{Connections: 20, CacheWarm: 0.95, Throughput: 415},
		{Connections: 20, CacheWarm: 0.95, Throughput: 418},
		{Connections: 20, CacheWarm: 0.95, Throughput: 420},
		{Connections: 20, CacheWarm: 0.95, Throughput: 420},
		{Connections: 20, CacheWarm: 0.95, Throughput: 420},
		{Connections: 20, CacheWarm: 0.95, Throughput: 420},
	} {
		now := at("14:13:00").Add(time.Duration(k) * 10 * time.Second)
		if st, changed := in.Observe(now, o); changed {
			fmt.Println(now.Format(time.TimeOnly), st)
		}
	}
	for s := readiness.Requested; s <= readiness.Warm; s++ {
		t, _ := in.Reached(s)
		fmt.Printf("%-12v %s\n", s, t.Format(time.TimeOnly))
	}
	fmt.Println(fleet.Summary())
	// Output:
	// requested 20 (8400/s nominal) · scheduled 20 · process-ready 20 (3600/s shown) · route-ready 0 (0/s) · warm 0 (0/s)
	// 14:13:40 RouteReady
	// 14:14:40 Warm
	// Requested    14:06:00
	// Scheduled    14:07:00
	// ProcessReady 14:12:00
	// RouteReady   14:13:40
	// Warm         14:14:40
	// requested 20 (8400/s nominal) · scheduled 20 · process-ready 20 (3840/s shown) · route-ready 1 (420/s) · warm 1 (420/s)
}
