package model

import (
	"context"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/scenario"
)

// TestEstimateBoundsAttemptLife: the payment-timeout replay's entry has no timeout, so its
// callers keep a request as long as its attempt runs; the estimate bounds that by the
// attempt (a bounded queue, the 2 ms of work, up to four 30 s calls after the release
// action) instead of the whole run, and stays an upper bound of what every arm holds at
// once, with its actions (the release, the scale-up to 40 pods) and a retry job.
func TestEstimateBoundsAttemptLife(t *testing.T) {
	sc := loadExample(t, "examples/payment-timeout/payment-timeout.scenario.yaml", 90*time.Minute)
	sc.Jobs = []scenario.Job{{Name: "retry", Kind: scenario.JobRetryFailed, Class: "checkout", At: scenario.Duration(80 * time.Minute), Rate: 45}}
	c, err := Estimate(sc)
	if err != nil {
		t.Fatal(err)
	}
	if c.Lifetime >= 10*time.Minute || c.InFlight*4 > c.Requests*3 {
		t.Errorf("lifetime %v, in flight %d of %d requests; want a caller's life bounded by its attempt, not the run", c.Lifetime, c.InFlight, c.Requests)
	}
	p, err := compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	for _, ad := range sc.Arms {
		a, _, err := armOf(p, sc, ad, 1)
		if err != nil {
			t.Fatal(err)
		}
		pa, err := a.run(context.Background(), func(time.Duration) {})
		if err != nil {
			t.Fatal(err)
		}
		if n := int64(a.sl.recs.n); n > c.InFlight {
			t.Errorf("%s: %d requests alive at once; the estimate says at most %d", ad.Name, n, c.InFlight)
		}
		if pa.Totals.Attempts > c.Attempts || int64(a.s.Processed()) > c.EventsMax {
			t.Errorf("%s: %d attempts, %d events; the estimate says at most %d and %d", ad.Name, pa.Totals.Attempts, a.s.Processed(), c.Attempts, c.EventsMax)
		}
		if len(pa.Jobs) != 1 || pa.Jobs[0].Replayed == 0 {
			t.Errorf("%s: jobs %+v; want the job to re-submit requests", ad.Name, pa.Jobs)
		}
	}
}
