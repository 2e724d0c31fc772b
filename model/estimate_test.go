package model

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/scenario"
)

// measured is what an arm's replay did, for comparison with its estimate.
type measured struct {
	offered, attempts int64
	events            uint64
	inFlight          int // the high-water mark of the records' slab: requests alive at once
}

// measureArms replays every arm of sc with seed, one after the other.
func measureArms(t *testing.T, sc *scenario.Scenario, seed uint64) []measured {
	t.Helper()
	p, err := compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	var out []measured
	for _, ad := range sc.Arms {
		a, err := newArm(p, sc, ad, seed)
		if err != nil {
			t.Fatal(err)
		}
		pa, err := a.run(context.Background(), func(time.Duration) {})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, measured{offered: pa.Totals.Offered, attempts: pa.Totals.Attempts, events: a.s.Processed(), inFlight: int(a.sl.recs.n)})
	}
	return out
}

// loadExample loads a scenario file of the repository, cut to d if d is not zero.
func loadExample(t *testing.T, path string, d time.Duration) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Load(filepath.Join("..", path))
	if err != nil {
		t.Fatal(err)
	}
	return sc.Truncate(d)
}

// TestEstimateBoundsReplays checks the estimate against replays of a few scenarios and
// seeds (one for the big ones): the requests, attempts, events (EventsMax) and requests in flight an arm measures
// are at most the estimate's, and the typical events (Events) are within a factor of the
// measured.
func TestEstimateBoundsReplays(t *testing.T) {
	worst, _, err := armWindow{duration: 20 * time.Second, faults: worstAtOnce}.load()
	if err != nil {
		t.Fatal(err)
	}
	overload := decode(t, small)
	overload.Load.Schedule[1].Rate = scenario.Rate(3000)
	cases := []struct {
		name string
		sc   *scenario.Scenario
		big  bool // replayed with one seed
	}{
		{"small", decode(t, small), false},
		{"small overloaded", overload, false},
		{"single-server", loadExample(t, "examples/single-server/single-server.scenario.yaml", 2*time.Minute), false},
		{"cmd small", loadExample(t, "cmd/goodput/testdata/small.scenario.yaml", 0), false},
		{"northstar overloaded 20s", worst, true},
		{"health 30s", loadExample(t, "examples/northstar/health/northstar-health.scenario.yaml", 30*time.Second), true},
	}
	if testing.Short() {
		cases = cases[:4]
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Estimate(tc.sc)
			if err != nil {
				t.Fatal(err)
			}
			seeds := []uint64{1, 2}
			if tc.big {
				seeds = seeds[:1]
			}
			for _, seed := range seeds {
				for i, m := range measureArms(t, tc.sc, seed) {
					arm := tc.sc.Arms[i].Name
					t.Logf("seed %d, %s: measured %+v; estimate requests %d, attempts %d, events %d (max %d), in flight %d", seed, arm, m, c.Requests, c.Attempts, c.Events, c.EventsMax, c.InFlight)
					if m.offered > c.Requests {
						t.Errorf("seed %d, %s: offered %d > estimated %d", seed, arm, m.offered, c.Requests)
					}
					if m.attempts > c.Attempts {
						t.Errorf("seed %d, %s: attempts %d > estimated %d", seed, arm, m.attempts, c.Attempts)
					}
					if int64(m.events) > c.EventsMax {
						t.Errorf("seed %d, %s: events %d > estimated bound %d", seed, arm, m.events, c.EventsMax)
					}
					if r := float64(m.events) / float64(c.Events); r < 0.25 || r > 4 {
						t.Errorf("seed %d, %s: events %d are %.2f× the typical estimate %d; want within 4×", seed, arm, m.events, r, c.Events)
					}
					if int64(m.inFlight) > c.InFlight {
						t.Errorf("seed %d, %s: %d requests in flight > estimated %d", seed, arm, m.inFlight, c.InFlight)
					}
				}
			}
		})
	}
}

// TestEstimateBytesPerRequest checks BytesPerRequest against the heap of a replay that
// holds many requests at once: a single server whose queue grows by about 19,000 requests
// a second, until the client timeout and the queue make it hold about 40,000.
func TestEstimateBytesPerRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap of a replay")
	}
	sc := decode(t, `
name: backlog
clock: {duration: 6s, tick: 1s}
load: {schedule: [{at: 0s, rate: 20000/s}]}
classes: [{name: r, share: 1, deadline: 1s, stages: [{name: w, work: 1ms}]}]
topology:
  entries: [{name: e, target: s, timeout: 2s}]
  services: [{name: s, instances: 1, workers: 1}]
arms: [{name: fifo, policy: {}}]
`)
	p, err := compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	a, err := newArm(p, sc, sc.Arms[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak uint64
	if _, err := a.run(context.Background(), func(time.Duration) {
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
	}); err != nil {
		t.Fatal(err)
	}
	c, err := Estimate(sc)
	if err != nil {
		t.Fatal(err)
	}
	records := int64(a.sl.recs.n)
	per := float64(peak-base) / float64(records)
	t.Logf("peak heap %d B over %d B for %d requests at once: %.0f B a request; estimate %d B a request, %d B in all for %d in flight", peak, base, records, per, c.BytesPerRequest, c.Memory, c.InFlight)
	if records < 20_000 {
		t.Fatalf("only %d requests at once; the test no longer measures a backlog", records)
	}
	if per > float64(c.BytesPerRequest) {
		t.Errorf("a request in flight took %.0f B, above the estimate's %d B", per, c.BytesPerRequest)
	}
	if per < float64(c.BytesPerRequest)/8 {
		t.Errorf("a request in flight took %.0f B, under an eighth of the estimate's %d B: the estimate is far too high", per, c.BytesPerRequest)
	}
	if int64(peak-base) > c.Memory {
		t.Errorf("the run's heap grew by %d B, above the estimated %d B", peak-base, c.Memory)
	}
}
