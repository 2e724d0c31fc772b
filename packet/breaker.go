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

// MaxBreakerEvents bounds the breaker events (trips and closes) an arm's timeline lists,
// and so the memory they take however often breakers change state; the packet's figures
// count every change.
const MaxBreakerEvents = 10000

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
// at at ("Closed", "Open", "HalfOpen"). The timeline lists, as events of kind breaker,
// the changes that start and end a breaker's refusing: its trips (Closed → Open) and its
// closes (HalfOpen → Closed); the half-open probe cycles between them (Open → HalfOpen,
// and HalfOpen → Open on a failed probe, a reopen) are counted, not listed, since a
// breaker kept open by failing probes would otherwise fill the timeline with them. With
// restarted, the instance's process was replaced and its new breaker starts in state to:
// the change is on the timeline but is no trip, reopen or close.
func (r *Recorder) BreakerState(at time.Duration, dep string, instance int, from, to string, restarted bool) {
	b := r.breakerAcc(dep)
	text := fmt.Sprintf("%s breaker of instance %d: %s → %s", dep, instance, from, to)
	switch {
	case restarted:
		text += " (a new process, with a new breaker)"
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
	if probeCycle := from == "HalfOpen" && to == "Open" || to == "HalfOpen"; probeCycle && !restarted {
		return
	}
	switch r.breakerEvents++; {
	case r.breakerEvents == MaxBreakerEvents+1:
		r.Annotate(at, "breaker", fmt.Sprintf("%d breaker trips and closes listed; the later ones are only counted (breakers in packet.json)", MaxBreakerEvents))
		return
	case r.breakerEvents > MaxBreakerEvents:
		return
	}
	inst := instance
	r.events = append(r.events, Event{
		At: r.cfg.Start.Add(at), T: roundS(at), Arm: r.cfg.Arm, Kind: "breaker",
		Text: text,
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
