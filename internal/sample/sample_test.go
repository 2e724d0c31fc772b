package sample

import (
	"math"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/internal/lognormal"
	"github.com/goodput-lab/goodput/scenario"
)

func dur(d time.Duration) scenario.Duration { return scenario.Duration(d) }

// Each family read at fixed draws: a constant at any draw, an exponential by its
// inverse CDF, a log-normal at its median and 99th percentile, nothing unset.
func TestQuantileAtFixedDraws(t *testing.T) {
	exp := func(u float64) time.Duration {
		return time.Duration(-float64(100*time.Millisecond) * math.Log1p(-u))
	}
	for _, tc := range []struct {
		name string
		d    scenario.Dist
		u    float64
		want time.Duration
	}{
		{"constant low", scenario.Dist{Constant: dur(7 * time.Millisecond)}, 0.001, 7 * time.Millisecond},
		{"constant high", scenario.Dist{Constant: dur(7 * time.Millisecond)}, 0.999, 7 * time.Millisecond},
		{"exponential median", scenario.Dist{Mean: dur(100 * time.Millisecond)}, 0.5, exp(0.5)},
		{"exponential tail", scenario.Dist{Mean: dur(100 * time.Millisecond)}, 0.99, exp(0.99)},
		{"log-normal median", scenario.Dist{P50: dur(40 * time.Millisecond), P99: dur(95 * time.Millisecond)}, 0.5, 40 * time.Millisecond},
		{"log-normal p99", scenario.Dist{P50: dur(40 * time.Millisecond), P99: dur(95 * time.Millisecond)}, 0.99, 95 * time.Millisecond},
		{"unset", scenario.Dist{}, 0.5, 0},
		{"mixed forms", scenario.Dist{Mean: dur(time.Second), Constant: dur(time.Second)}, 0.5, 0},
	} {
		d := New(tc.d)
		got := d.Quantile(tc.u)
		if diff := got - tc.want; diff < -time.Microsecond || diff > time.Microsecond {
			t.Errorf("%s: Quantile(%v) = %v; want %v", tc.name, tc.u, got, tc.want)
		}
	}
}

// A log-normal is read exactly as package lognormal samples it, which the replay's
// service times use too.
func TestLogNormalIsLognormals(t *testing.T) {
	d := New(scenario.Dist{P50: dur(40 * time.Millisecond), P99: dur(95 * time.Millisecond)})
	ln := lognormal.New(40*time.Millisecond, 95*time.Millisecond)
	for _, u := range []float64{1e-9, 0.1, 0.5, 0.9, 0.999999} {
		if got, want := d.Quantile(u), ln.Sample(u); got != want {
			t.Errorf("Quantile(%v) = %v; lognormal samples %v", u, got, want)
		}
	}
}

// Constant reports a constant's value, and only a constant's.
func TestConstant(t *testing.T) {
	d := New(scenario.Dist{Constant: dur(3 * time.Millisecond)})
	if c, ok := d.Constant(); !ok || c != 3*time.Millisecond {
		t.Errorf("Constant() = %v, %v; want 3ms, true", c, ok)
	}
	for _, sd := range []scenario.Dist{{Mean: dur(time.Second)}, {P50: dur(time.Millisecond), P99: dur(2 * time.Millisecond)}, {}} {
		d := New(sd)
		if _, ok := d.Constant(); ok {
			t.Errorf("%+v: Constant() reports a constant", sd)
		}
	}
}
