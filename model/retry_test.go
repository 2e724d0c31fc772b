package model

import (
	"testing"
	"time"
)

// TestRetryNeedsTime pins what a retry must have left before its deadline under the
// protected policy of the small scenario (reserve 20ms, the pay dependency's median
// service time declared 10ms, no backoff): a service's retry of a call is refused unless
// the time left covers the reserve and the median call, since a call with less would be
// given no time at all (its timeout is the time left less the reserve) after the budget
// had spent a token on it. An entry's retry needs the reserve only.
func TestRetryNeedsTime(t *testing.T) {
	sc := decode(t, small)
	p, err := compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		left time.Duration
		took time.Duration // what the retry's try is expected to take
		want bool
	}{
		{"call: room for the reserve and the median", 30*time.Millisecond + time.Microsecond, 10 * time.Millisecond, true},
		{"call: exactly the reserve and the median", 30 * time.Millisecond, 10 * time.Millisecond, true},
		{"call: short of the median", 30*time.Millisecond - time.Microsecond, 10 * time.Millisecond, false},
		{"call: only the reserve (its timeout would be zero)", 20 * time.Millisecond, 10 * time.Millisecond, false},
		{"entry: the reserve and a microsecond", 20*time.Millisecond + time.Microsecond, 0, true},
		{"entry: only the reserve", 20 * time.Millisecond, 0, true},
		{"entry: less than the reserve", 20*time.Millisecond - time.Microsecond, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := newArm(p, sc, sc.Arms[armIndex(sc, "protected")], 1)
			if err != nil {
				t.Fatal(err)
			}
			if got := a.deps[0].p50; got != 10*time.Millisecond {
				t.Fatalf("pay's median before any tick: %v, want the declared 10ms", got)
			}
			for range 100 { // deposits, so that a token remains
				a.pol.budget.Request(a.wall(), "")
			}
			_, lg := a.sl.newLogical()
			lg.class = int16(0) // buy: deadline 300ms, not idempotent but deduplicated (identity)
			lg.t0 = tt.left - p.classes[lg.class].deadline
			if got := a.allowRetry(lg, causeTimeout, 0, tt.took, &p.classes[lg.class]); got != tt.want {
				t.Errorf("retry with %v left: allowed %v, want %v", tt.left, got, tt.want)
			}
			if !tt.want {
				return
			}
			if got := a.pol.budget.Stats().Retries; got != 1 {
				t.Errorf("tokens used %d, want 1", got)
			}
		})
	}
}

// TestRetryMedianMeasured checks that the median a service's retry expects is measured
// once the run has ticked: after the small scenario's protected arm has run, pay's median
// is a bucket bound of its measured service times (the fault doubles the declared 10ms
// median for 8 of the 20 seconds), not the declared value; the baseline arm, whose
// retries do not look at the deadline, keeps the declared one.
func TestRetryMedianMeasured(t *testing.T) {
	sc := decode(t, small)
	p, err := compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		arm      string
		measured bool
	}{{"baseline", false}, {"protected", true}} {
		a, err := newArm(p, sc, sc.Arms[armIndex(sc, tt.arm)], 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.run(t.Context(), func(time.Duration) {}); err != nil {
			t.Fatal(err)
		}
		got := a.deps[0].p50
		if b := bucketValue(bucketOf(got - time.Microsecond)); tt.measured != (got == b && got != 10*time.Millisecond) {
			t.Errorf("%s: pay's median after the run is %v (measured: %v)", tt.arm, got, tt.measured)
		}
		if got < 5*time.Millisecond || got > 25*time.Millisecond {
			t.Errorf("%s: pay's median after the run is %v, want near its declared 10ms", tt.arm, got)
		}
	}
}
