package packet

import (
	"fmt"
	"time"
)

// BreakerStats is what the circuit breakers guarding one dependency did over an arm's
// run, every calling instance's breaker together.
type BreakerStats struct {
	// Dependency is the dependency the breakers guard.
	Dependency string `json:"dependency"`
	// Refused is the calls the breakers refused (not made: no connection, no server),
	// by reason: breaker-open (open) or probe-limit (half-open, every probe out).
	Refused   int64            `json:"refused"`
	RefusedBy map[string]int64 `json:"refused_by_reason"`
	// Trips is how many times a closed breaker opened; Reopens how many times a
	// half-open one opened again on a failed probe; Closes how many times a half-open
	// one closed on its probes' successes.
	Trips   int64 `json:"trips"`
	Reopens int64 `json:"reopens"`
	Closes  int64 `json:"closes"`
	// FirstTrip is when a breaker first opened, in seconds from the start; null if none
	// did.
	FirstTrip *float64 `json:"first_trip_s"`
}

// breakerAcc accumulates one dependency's breakers.
type breakerAcc struct {
	BreakerStats
	refusedBy tally
}

// breakerAcc returns the accumulator of dependency dep's breakers, adding it on first use
// (so the packet lists them in first-seen order).
func (r *Recorder) breakerAcc(dep string) *breakerAcc {
	for _, b := range r.breakers {
		if b.Dependency == dep {
			return b
		}
	}
	b := &breakerAcc{BreakerStats: BreakerStats{Dependency: dep}, refusedBy: newTally()}
	r.breakers = append(r.breakers, b)
	return b
}

// Breakers declares the dependencies an arm's breakers guard, so that the packet lists
// each (in this order) even when its breakers did nothing.
func (r *Recorder) Breakers(deps ...string) {
	for _, d := range deps {
		r.breakerAcc(d)
	}
}

// BreakerRefused records a call to dep that a breaker refused at at, by reason.
func (r *Recorder) BreakerRefused(at time.Duration, dep, reason string) {
	b := r.breakerAcc(dep)
	b.Refused++
	b.refusedBy.add(reason)
}

// BreakerState records that instance's breaker of dep went from state from to state to
// at at ("Closed", "Open", "HalfOpen"), in the timeline as an event of kind breaker.
func (r *Recorder) BreakerState(at time.Duration, dep string, instance int, from, to string) {
	b := r.breakerAcc(dep)
	switch {
	case to == "Open" && from == "Closed":
		b.Trips++
		if b.FirstTrip == nil {
			s := seconds(at)
			b.FirstTrip = &s
		}
	case to == "Open":
		b.Reopens++
	case to == "Closed" && from == "HalfOpen":
		b.Closes++
	}
	r.row(at)
	inst := instance
	r.events = append(r.events, Event{
		At: r.cfg.Start.Add(at), T: roundS(at), Arm: r.cfg.Arm, Kind: "breaker",
		Text: fmt.Sprintf("%s breaker of instance %d: %s → %s", dep, instance, from, to),
		From: from, To: to, Dependency: dep, Instance: &inst,
	})
}

// breakerResults are the arm's breakers for [Recorder.Finish]: nil without any.
func (r *Recorder) breakerResults() []BreakerStats {
	if len(r.breakers) == 0 {
		return nil
	}
	out := make([]BreakerStats, len(r.breakers))
	for i, b := range r.breakers {
		out[i] = b.BreakerStats
		out[i].RefusedBy = b.refusedBy.counts()
	}
	return out
}
