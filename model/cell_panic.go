package model

// A router's panic mode (scenario.Service.PanicThreshold), as Envoy's healthy panic
// threshold: while too few of a service's instances take traffic, concentrating every
// attempt on those few overloads them, so the router spreads attempts over all the
// instances it runs, healthy or not. An instance that is up takes the attempt into its
// queue (a removed or not yet route-ready one too); one that is down (crashed, or
// restarting) fails it at once with an error, as a connection refused.

// panicking reports whether service svc's router is in panic mode: the share of its
// running instances (not scaled in) that take traffic is below the threshold.
func (a *arm) panicking(svc int) bool {
	rt := &a.svcs[svc]
	running := 0
	for _, ii := range rt.insts {
		if in := &a.insts[ii]; !in.retired && !in.draining {
			running++
		}
	}
	return running > 0 && float64(len(rt.routable)) < a.p.services[svc].panic*float64(running)
}

// panicRoute sends attempt ai (at) of request lg to one of service svc's running
// instances drawn at random, healthy or not.
func (a *arm) panicRoute(ai int32, at *attempt, lg *logical, svc int) {
	rt := &a.svcs[svc]
	n := len(rt.insts)
	u := a.draw(a.p.services[svc].routerPurp, lg.id, at.num, 0, 0)
	start := int(u * float64(n))
	pick := rt.insts[0]
	for k := 0; k < n; k++ {
		ii := rt.insts[(start+k)%n]
		if in := &a.insts[ii]; !in.retired && !in.draining {
			pick = ii
			break
		}
	}
	at.inst = pick
	a.hs.svc[svc].Attempt(a.now())
	if !a.insts[pick].up {
		a.finishAttempt(ai, at, lg, causeError, false) // refused: the instance is down
		return
	}
	a.enqueue(ai, at, lg)
}
