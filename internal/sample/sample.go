// Package sample is a scenario distribution of durations (scenario.Dist: a constant, an
// exponential, or a log-normal by its p50 and p99) compiled for reading at a uniform draw
// without allocating, so that the replay (package model: work stages and users' think
// times) and the live generator (live/loadgen: users' think times) turn the same draw
// into the same duration.
package sample

import (
	"math"
	"time"

	"github.com/goodput-lab/goodput/internal/floatdur"
	"github.com/goodput-lab/goodput/internal/lognormal"
	"github.com/goodput-lab/goodput/scenario"
)

// Dist is a scenario.Dist compiled for sampling.
type Dist struct {
	kind     scenario.DistKind
	constant time.Duration
	mean     float64 // nanoseconds, for an exponential
	ln       lognormal.Dist
}

// New compiles d.
func New(d scenario.Dist) Dist {
	out := Dist{kind: d.Kind()}
	switch out.kind {
	case scenario.DistConstant:
		out.constant = d.Constant.Std()
	case scenario.DistExponential:
		out.mean = float64(d.Mean)
	case scenario.DistLogNormal:
		out.ln = lognormal.New(d.P50.Std(), d.P99.Std())
	}
	return out
}

// Quantile maps a uniform draw u in (0, 1) to a duration; 0 for an unset distribution.
func (d *Dist) Quantile(u float64) time.Duration {
	switch d.kind {
	case scenario.DistConstant:
		return d.constant
	case scenario.DistExponential:
		return floatdur.Trunc(-d.mean * math.Log1p(-u))
	case scenario.DistLogNormal:
		return d.ln.Sample(u)
	}
	return 0
}

// Constant is the distribution's one value and true when it is a constant, which needs no
// draw (a draw would not change it).
func (d *Dist) Constant() (time.Duration, bool) {
	return d.constant, d.kind == scenario.DistConstant
}
