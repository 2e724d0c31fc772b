package model

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/scenario"
)

// The table's interpolation must stay within its documented error of the exact quantile,
// over the whole of (0, 1), for the shapes a scenario gives: narrow and wide log-normals.
func TestLogNormalTable(t *testing.T) {
	for _, c := range []struct {
		q     scenario.Quantiles
		bound float64 // relative, as the doc comment of logNormal says
	}{
		{qs(38*time.Millisecond, 95*time.Millisecond), 5e-6},
		{qs(40*time.Millisecond, 410*time.Millisecond), 5e-6},
		{qs(3*time.Millisecond, 10*time.Millisecond), 5e-6},
		{qs(10*time.Microsecond, 11*time.Microsecond), 5e-6},
		{qs(time.Millisecond, time.Second), 3e-5},
	} {
		q := c.q
		l := newLogNormal(q)
		worst, at := 0.0, 0.0
		check := func(u float64) {
			got, want := float64(l.quantile(u)), l.exact(u)
			if e := (math.Abs(got-want) - 1) / want; e > worst { // less 1 ns: truncation to ns
				worst, at = e, u
			}
		}
		r := rand.New(rand.NewPCG(1, 2))
		for range 200_000 {
			check(r.Float64())
		}
		for i := 1; i < qN; i++ { // grid points and midpoints, tails included
			check(float64(i) / qN)
			check((float64(i) + 0.5) / qN)
		}
		if worst > c.bound {
			t.Errorf("%v: relative error %.3g at u=%v, want ≤ %g", q, worst, at, c.bound)
		}
		// The median and the 99th percentile are the ones the scenario declared.
		if p50 := q.P50.Std(); absDiff(l.quantile(0.5), p50) > p50/100_000+1 {
			t.Errorf("%v: median %v", q, l.quantile(0.5))
		}
		if p99 := q.P99.Std(); absDiff(l.quantile(0.99), p99) > p99/100_000+1 {
			t.Errorf("%v: p99 %v", q, l.quantile(0.99))
		}
	}
}

// A log-normal without spread, or without a median, samples a constant.
func TestLogNormalDegenerate(t *testing.T) {
	l := newLogNormal(qs(7*time.Millisecond, 7*time.Millisecond))
	for _, u := range []float64{1e-9, 0.3, 0.5, 0.999999} {
		if got := l.quantile(u); absDiff(got, 7*time.Millisecond) > 1 {
			t.Errorf("constant: quantile(%v) = %v", u, got)
		}
	}
	if l := newLogNormal(scenario.Quantiles{}); l.quantile(0.5) != 0 {
		t.Errorf("no median: %v", l.quantile(0.5))
	}
}

func absDiff(a, b time.Duration) time.Duration {
	if a > b {
		return a - b
	}
	return b - a
}

func qs(p50, p99 time.Duration) scenario.Quantiles {
	return scenario.Quantiles{P50: scenario.Duration(p50), P99: scenario.Duration(p99)}
}
