package packet

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestPropertyConservation records many random, well-formed request lifecycles (random
// classes, admissions, retries, outcomes and times, in any order) and checks that the
// invariants hold, that the series sums to the totals and that the merged latency histogram
// counts every terminal state. A lifecycle missing its terminal state must break the
// invariant.
func TestPropertyConservation(t *testing.T) {
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 99))
		classes := []string{"a", "b", "c", "d"}[:1+rng.IntN(4)]
		layers := []string{"edge", "svc", "dep"}[:1+rng.IntN(3)]
		tick := time.Duration(1+rng.IntN(1000)) * time.Millisecond
		dur := time.Duration(1+rng.IntN(20)) * tick
		r := NewRecorder(Config{Tick: tick, Duration: dur})
		n := rng.IntN(500)
		drop := -1
		if seed%5 == 0 && n > 0 {
			drop = rng.IntN(n) // this admitted request never reaches a terminal state
		}
		var admitted int64
		dropped := false
		for i := range n {
			at := time.Duration(rng.Int64N(int64(dur)))
			class := classes[rng.IntN(len(classes))]
			r.Offered(at, class)
			if rng.Float64() < 0.2 {
				r.Rejected(at, class, "limit")
				continue
			}
			r.Admitted(at, class)
			admitted++
			for _, l := range layers {
				for try := range 1 + rng.IntN(3) {
					r.Attempt(at, l)
					if try > 0 {
						r.Retry(at, l)
					}
				}
			}
			if i == drop {
				dropped = true
				continue
			}
			lat := time.Duration(rng.Int64N(int64(3 * time.Second)))
			r.Terminal(at+lat, class, Outcome(1+rng.IntN(5)), lat)
		}
		a := r.Finish(nil)
		for _, inv := range a.Invariants {
			wantPass := !(dropped && inv.Name == "admitted = goodput + late + expired + failed + ambiguous")
			if inv.Pass != wantPass {
				t.Fatalf("seed %d: invariant %q pass=%v, want %v: %s", seed, inv.Name, inv.Pass, wantPass, inv.Message)
			}
		}
		var sum Row
		for _, row := range a.Series {
			sum.Offered += row.Offered
			sum.Admitted += row.Admitted
			sum.Rejected += row.Rejected
			sum.Attempts += row.Attempts
			sum.Retries += row.Retries
			sum.Goodput += row.Goodput + row.Late + row.Expired + row.Failed + row.Ambiguous
			for _, l := range row.LayerAttempts {
				sum.Duplicates += l // reused as the sum of attempts by layer
			}
		}
		tt := a.Totals
		term := tt.Goodput + tt.Late + tt.Expired + tt.Failed + tt.Ambiguous
		if sum.Offered != tt.Offered || sum.Admitted != tt.Admitted || sum.Rejected != tt.Rejected ||
			sum.Attempts != tt.Attempts || sum.Retries != tt.Retries || sum.Goodput != term || sum.Duplicates != tt.Attempts {
			t.Fatalf("seed %d: series sums %+v disagree with totals %+v", seed, sum, tt)
		}
		if a.Latency.Count != term || tt.Admitted != admitted {
			t.Fatalf("seed %d: latency count %d, terminal states %d, admitted %d (recorded %d)", seed, a.Latency.Count, term, tt.Admitted, admitted)
		}
		if dropped != (tt.Unfinished == 1) || tt.Unfinished > 1 {
			t.Fatalf("seed %d: unfinished = %d, want 1", seed, tt.Unfinished)
		}
	}
}
