// Package readiness keeps the stages of a new instance apart: requested,
// scheduled, process-ready, route-ready and warm are different events, and
// only the last two are capacity.
//
// In the Northstar incident the autoscaler requested twenty instances — 8,400
// attempts/s of eventual warm capacity — that delivered 3,600 attempts/s while
// cold, and readiness passed before representative warm-up, so the router
// sent live demand to replicas whose first operations were the most
// expensive. This package makes "do not route to an instance until
// representative connections are established, caches meet the declared warm
// criterion, and a canary proves 350 attempts/s at the incident mix" a
// testable rule.
//
// # Which method to call
//
// Build a [Fleet] with [NewFleet] and a [Config] (the zero Config asks for
// nothing beyond process readiness). [Fleet.Request] adds an [Instance] when the autoscaler asks for
// one; report the platform's events with [Instance.Scheduled] and
// [Instance.ProcessReady]; then call [Instance.Observe] every measurement
// interval with what the instance shows. It becomes [RouteReady] once the
// Route [Criteria] have held for Route.CanaryFor, and [Warm] once the Warm
// criteria have held for Warm.CanaryFor. [Instance.Reached] returns when
// each stage was reached. [Fleet.Summary] counts instances and capacity per
// stage — nominal for what was requested, demonstrated throughput for what
// is process-ready, route-ready and warm — so the three are reported apart.
//
// Every method takes the instant of the event as an argument; nothing reads
// a clock, so the simulator and a real autoscaler adapter run the same code.
//
// # A short program
//
//	fleet, _ := readiness.NewFleet(readiness.Config{
//		Route: readiness.Criteria{Connections: 20, CacheWarm: 0.85, CanaryRate: 350, CanaryFor: 30 * time.Second},
//	})
//	inst := fleet.Request(now)
//	inst.Scheduled(scheduledAt)
//	inst.ProcessReady(probePassedAt)
//	// every 10 s:
//	st, _ := inst.Observe(now, readiness.Observation{
//		Connections: pool.Open(),
//		CacheWarm:   cache.HitRatio(),
//		Throughput:  canary.Rate(),
//	})
//	if st >= readiness.RouteReady {
//		router.Add(inst) // route-ready, perhaps already warm
//	}
//	log.Print(fleet.Summary())
//
// Instances and fleets are safe for concurrent use.
package readiness
