// Package lognormal provides the log-normal distribution of durations that the model
// samples service times from: fixed by its median and 99th percentile, the two figures
// incident reports give (e.g. p50 40 ms, p99 95 ms). It replaces the model's private copy
// and the simulator's sim.LogNormal.
package lognormal

import (
	"math"
	"time"

	"github.com/goodput-lab/goodput/internal/floatdur"
)

// Dist is a log-normal distribution of durations, exp(mu + sigma·z) for a standard normal
// z. A replay samples one for every dependency call, and math.Exp is a long chain of
// dependent multiplications, so [Dist.Sample] reads the quantile function from a table
// made once per distribution on a grid of u and interpolated linearly in the body
// (relative error below 5e-6 for a p99 up to ten times the median, below 3e-5 up to a
// thousand times; TestTable). In the tails, where it curves too fast for the grid, it is
// computed exactly. Copies share the table. The zero value is the constant 1 ns; get one
// from [New].
type Dist struct {
	mu, sigma float64
	body      *[bodyLen]float32 // the quantile at u = (lo+i)/n; nil if sigma is 0
}

// The table's grid: n steps over (0, 1), of which [lo, hi] is the tabulated body.
const (
	n       = 1 << 12
	lo      = n / 32 // u = 1/32, z ≈ −1.86
	hi      = n - lo
	bodyLen = hi - lo + 1
)

// z99 is the standard normal quantile at 0.99.
const z99 = 2.3263478740408408

// New returns the log-normal with median p50 and 99th percentile p99. With p99 at or
// below p50 it is the constant p50 (up to rounding); with p50 at or below zero, the
// constant 0.
func New(p50, p99 time.Duration) Dist {
	d := shape(p50, p99)
	if d.sigma > 0 {
		d.body = new([bodyLen]float32)
		for i := range d.body { // at most about p99 (z ≤ z99): finite
			d.body[i] = float32(d.exact(float64(lo+i) / n))
		}
	}
	return d
}

// shape is the log-normal with median p50 and 99th percentile p99, without the table:
// its Quantile and Mean are New's, its Sample is not to be called.
func shape(p50, p99 time.Duration) Dist {
	if p50 <= 0 {
		return Dist{mu: math.Inf(-1)}
	}
	mu := math.Log(float64(p50))
	sigma := 0.0
	if p99 > p50 {
		sigma = (math.Log(float64(p99)) - mu) / z99
	}
	return Dist{mu: mu, sigma: sigma}
}

// QuantileNS is New(p50, p99).QuantileNS(u) without building the table, in nanoseconds,
// neither truncated nor saturated: for a caller that reads a distribution a few times and
// does not keep it, and rounds to a Duration its own way (a scenario's Quantiles, which the
// live fault proxy draws its delays from, round to the nearest nanosecond).
func QuantileNS(p50, p99 time.Duration, u float64) float64 {
	d := shape(p50, p99)
	return d.exact(u)
}

// MeanNS is the mean of New(p50, p99), exp(mu + sigma²/2), in nanoseconds, neither
// truncated nor saturated.
func MeanNS(p50, p99 time.Duration) float64 {
	d := shape(p50, p99)
	return d.meanNS()
}

// Sample maps a uniform draw u in (0, 1) to a duration: the quantile at u, from the table
// in the body. Durations beyond a Duration's range saturate.
func (d *Dist) Sample(u float64) time.Duration {
	if d.sigma == 0 {
		return floatdur.Trunc(math.Exp(d.mu))
	}
	x := u * n
	if i := int(x); i >= lo && i < hi {
		t := d.body[i-lo : i-lo+2 : i-lo+2]
		// The conversions round each product, so that no platform fuses a multiply-add
		// and draws another duration (arm64 would; outputs are the same everywhere).
		l := float64(t[0])
		return floatdur.Trunc(l + float64((x-float64(i))*(float64(t[1])-l)))
	}
	return floatdur.Trunc(d.exact(u))
}

// Quantile is the distribution's exact quantile at u in [0, 1], truncated to a Duration
// (saturating beyond its range).
func (d *Dist) Quantile(u float64) time.Duration {
	if d.sigma == 0 {
		return floatdur.Trunc(math.Exp(d.mu))
	}
	return floatdur.Trunc(d.exact(u))
}

// QuantileNS is the distribution's exact quantile at u in (0, 1), in nanoseconds, not
// truncated nor saturated.
func (d *Dist) QuantileNS(u float64) float64 { return d.exact(u) }

// Mean is the distribution's mean, exp(mu + sigma²/2), saturating beyond a Duration's
// range.
func (d *Dist) Mean() time.Duration { return floatdur.Trunc(d.meanNS()) }

// meanNS is the mean in nanoseconds.
func (d *Dist) meanNS() float64 { return math.Exp(d.mu + d.sigma*d.sigma/2) }

// exact is the quantile at u without the table, in nanoseconds.
func (d *Dist) exact(u float64) float64 {
	return math.Exp(d.mu + float64(d.sigma*float64(math.Sqrt2*math.Erfinv(2*u-1))))
}
