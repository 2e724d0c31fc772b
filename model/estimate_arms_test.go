package model

import (
	"context"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/scenario"
)

// An arm whose set: and actions change the work (one instance instead of two, so that
// most attempts time out, and eight retries at the entry instead of one; later a third
// instance) is costed on its own plans: the estimate bounds what that arm measures, where
// the file's plan alone would not.
func TestEstimateArmsOwnPlans(t *testing.T) {
	sc := loadExample(t, "cmd/goodput/testdata/small.scenario.yaml", 0)
	sc.Arms = append(sc.Arms, scenario.Arm{Name: "more-retries", Set: scenario.Sets{
		"topology.entries.clients.retries.max": int64(8), "topology.services.server.instances": int64(1),
	}})
	sc.Actions = append(sc.Actions, scenario.Action{At: scenario.Duration(30 * time.Second), Arms: []string{"more-retries"},
		Set: scenario.Sets{"topology.services.server.instances": int64(3)}})
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	c, err := Estimate(sc)
	if err != nil {
		t.Fatal(err)
	}
	p, err := compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	file := estimatePlan(p, []*plan{p}, sc.Arms) // every arm on the file's plan, as before
	for _, seed := range []uint64{1, 2} {
		for _, ad := range sc.Arms {
			a, _, err := armOf(p, sc, ad, seed)
			if err != nil {
				t.Fatal(err)
			}
			pa, err := a.run(context.Background(), func(time.Duration) {})
			if err != nil {
				t.Fatal(err)
			}
			m := measured{offered: pa.Totals.Offered, attempts: pa.Totals.Attempts, events: a.s.Processed(), inFlight: int(a.sl.recs.n)}
			t.Logf("seed %d, %s: measured %+v; estimate attempts %d (file's plan %d), events max %d (%d), in flight %d (%d)",
				seed, ad.Name, m, c.Attempts, file.Attempts, c.EventsMax, file.EventsMax, c.InFlight, file.InFlight)
			switch {
			case m.offered > c.Requests:
				t.Errorf("seed %d, %s: offered %d > estimated %d", seed, ad.Name, m.offered, c.Requests)
			case m.attempts > c.Attempts:
				t.Errorf("seed %d, %s: attempts %d > estimated %d", seed, ad.Name, m.attempts, c.Attempts)
			case int64(m.events) > c.EventsMax:
				t.Errorf("seed %d, %s: events %d > estimated bound %d", seed, ad.Name, m.events, c.EventsMax)
			case int64(m.inFlight) > c.InFlight:
				t.Errorf("seed %d, %s: %d requests in flight > estimated %d", seed, ad.Name, m.inFlight, c.InFlight)
			}
			if ad.Name == "more-retries" && m.attempts <= file.Attempts {
				t.Errorf("seed %d: the arm's %d attempts are within the file plan's bound %d: the test does not need the arm's own plans", seed, m.attempts, file.Attempts)
			}
		}
	}
	if c.Arms != 3 || c.Requests != file.Requests || c.Memory <= file.Memory/3 {
		t.Errorf("cost %+v; file's plan %+v", c, file)
	}
}

// Without sets or actions, every arm is costed on the file's plan, as before.
func TestEstimateArmsPlain(t *testing.T) {
	sc := loadExample(t, "cmd/goodput/testdata/small.scenario.yaml", 0)
	c, err := Estimate(sc)
	if err != nil {
		t.Fatal(err)
	}
	p, err := compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	if want := estimatePlan(p, []*plan{p}, sc.Arms); c.Attempts != want.Attempts || c.Memory != want.Memory || c.InFlight != want.InFlight || c.Events != want.Events {
		t.Errorf("Estimate %+v, the file's plan %+v", c, want)
	}
}
