package faultproxy

import (
	"math"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/control/identity"
)

// The same seed, key and attempt draw the same decision, in whatever order the calls come;
// another attempt, key or seed draws another delay.
func TestDrawsDeterministic(t *testing.T) {
	f := Fault{ServiceTime: q(20*ms, 100*ms), ErrorRate: 0.3, HangRate: 0.05}
	a, b := NewDraws(42), NewDraws(42)
	reqs := make([]identity.Request, 200)
	for i := range reqs {
		reqs[i] = identity.Request{Key: identity.Key("order-" + strconv.Itoa(i/2)), Attempt: 1 + i%2}
	}
	first := make(map[identity.Request]Decision)
	for _, r := range reqs {
		first[r] = a.Decide(r, f)
	}
	for i := len(reqs) - 1; i >= 0; i-- { // the other proxy sees them in reverse
		if got := b.Decide(reqs[i], f); got != first[reqs[i]] {
			t.Fatalf("%v: %+v, then %+v", reqs[i], first[reqs[i]], got)
		}
	}
	r := reqs[0]
	if a.Decide(r, f).Delay == a.Decide(r.Retry(), f).Delay {
		t.Errorf("attempts 1 and 2 of %v drew the same delay", r.Key)
	}
	if a.Decide(r, f).Delay == NewDraws(43).Decide(r, f).Delay {
		t.Errorf("seeds 42 and 43 drew the same delay for %v", r)
	}
	if a.decideSeq(1, f) != b.decideSeq(1, f) {
		t.Errorf("sequence numbers draw differently under one seed")
	}
}

// Over many identities the shares of errors and hangs and the delays' quantiles are those
// of the fault, within five standard deviations.
func TestDrawsDistribution(t *testing.T) {
	const n = 20000
	f := Fault{ServiceTime: q(20*ms, 100*ms), ErrorRate: 0.3, HangRate: 0.1}
	d := NewDraws(7)
	var errs, hangs int
	var delays []time.Duration
	for i := range n {
		dec := d.Decide(identity.First(identity.Key("k"+strconv.Itoa(i))), f)
		switch {
		case dec.Hang:
			hangs++
		default:
			delays = append(delays, dec.Delay)
			if dec.Error {
				errs++
			}
		}
	}
	within := func(name string, got, trials int, p float64) {
		t.Helper()
		mean, sd := float64(trials)*p, math.Sqrt(float64(trials)*p*(1-p))
		if math.Abs(float64(got)-mean) > 5*sd {
			t.Errorf("%s: %d of %d; want %.0f ± %.0f", name, got, trials, mean, 5*sd)
		}
	}
	within("hangs", hangs, n, 0.1)
	within("errors", errs, n-hangs, 0.3)
	slices.Sort(delays)
	// The rank of the declared p50 and p99 among the draws is binomial too.
	rank := func(v time.Duration) int {
		i, _ := slices.BinarySearch(delays, v)
		return i
	}
	within("draws below p50", rank(20*ms), len(delays), 0.5)
	within("draws below p99", rank(100*ms), len(delays), 0.99)
}

// With no service time and rates of zero nothing is drawn: every call is forwarded at once.
func TestDrawsZeroFault(t *testing.T) {
	if dec := NewDraws(1).Decide(identity.First("k"), Fault{}); dec != (Decision{}) {
		t.Errorf("zero fault: %+v", dec)
	}
	if dec := NewDraws(1).Decide(identity.First("k"), Fault{ErrorRate: 1}); !dec.Error || dec.Hang {
		t.Errorf("error rate 1: %+v", dec)
	}
}
