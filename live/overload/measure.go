package overload

import (
	"errors"
	"fmt"
	"time"
)

// Tick is the length of a [Bucket] of a run's timeline.
const Tick = 500 * time.Millisecond

// Recovered is the share of the offered load a bucket's goodput must reach for the service
// to count as back, and RecoveredBuckets how many consecutive buckets must reach it.
const (
	Recovered        = 0.95
	RecoveredBuckets = 2
)

// Bucket is one [Tick] of a run's timeline: the logical requests offered in it (by
// intended send time), the goodput answered in it (2xx before the deadline, by the time of
// the answer) and the calls the dependency received in it (by arrival at the proxy).
type Bucket struct {
	Offered, Goodput, Calls int64
}

// Metrics are the benchmark's figures of one run. See the package doc for their
// definitions.
type Metrics struct {
	// Goodput is goodput per second over the fault; Healthy the same over the healthy
	// phase before it.
	Goodput, Healthy float64
	// Recovery is the time from the fault's end until goodput was back; Capped says it
	// never came back and Recovery is the time to the run's end.
	Recovery time.Duration
	Capped   bool
	// Attempts is the dependency's calls per logical request offered, over the fault.
	Attempts float64
}

// Measure computes the metrics of a run of c from its timeline, one [Bucket] per [Tick]
// from the run's start; buckets past c's end are ignored. It reads no clock.
func Measure(c Case, buckets []Bucket) (Metrics, error) {
	if err := c.Validate(); err != nil {
		return Metrics{}, err
	}
	h, f, end := int(c.Healthy/Tick), int((c.Healthy+c.Fault)/Tick), int(c.Duration()/Tick)
	if len(buckets) < end {
		return Metrics{}, fmt.Errorf("overload: %d buckets, want %d for a run of %v", len(buckets), end, c.Duration())
	}
	var m Metrics
	var healthy, incident, offered, calls int64
	for i, b := range buckets[:end] {
		switch {
		case i < h:
			healthy += b.Goodput
		case i < f:
			incident += b.Goodput
			offered += b.Offered
			calls += b.Calls
		}
	}
	m.Healthy = float64(healthy) / c.Healthy.Seconds()
	m.Goodput = float64(incident) / c.Fault.Seconds()
	if offered > 0 {
		m.Attempts = float64(calls) / float64(offered)
	}
	back := func(b Bucket) bool {
		return b.Offered > 0 && float64(b.Goodput) >= Recovered*float64(b.Offered)
	}
	m.Recovery, m.Capped = c.After, true
	for i := f; i+RecoveredBuckets <= end; i++ {
		ok := true
		for _, b := range buckets[i : i+RecoveredBuckets] {
			ok = ok && back(b)
		}
		if ok {
			m.Recovery, m.Capped = time.Duration(i-f)*Tick, false
			break
		}
	}
	return m, nil
}

// errTimeline is returned for a case whose phases are not whole buckets.
var errTimeline = errors.New("overload: the healthy, fault and after phases must be positive multiples of Tick")
