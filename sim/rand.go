package sim

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"time"

	"github.com/goodput-lab/goodput/internal/floatdur"
)

// Streams hands out independent, reproducible random streams named by component and purpose.
// The same seed and name always give the same sequence, so two arms of an experiment draw the
// same numbers for the same things (common random numbers).
type Streams struct {
	seed uint64
}

// NewStreams returns the stream family for seed.
func NewStreams(seed uint64) Streams { return Streams{seed: seed} }

// Seed is the family's seed.
func (f Streams) Seed() uint64 { return f.seed }

// Stream returns a new PCG-backed generator for name (e.g. "arrivals", "payment-risk/service").
// Each call returns a fresh generator at the start of the named sequence.
func (f Streams) Stream(name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(f.seed, h.Sum64()))
}

// Exponential draws an exponentially distributed duration with the given mean.
func Exponential(r *rand.Rand, mean time.Duration) time.Duration {
	return floatdur.Trunc(r.ExpFloat64() * float64(mean))
}

// z99 is the standard normal quantile at 0.99.
const z99 = 2.3263478740408408

// LogNormal is a log-normal distribution of durations fixed by its median and 99th percentile,
// the two figures incident reports give (e.g. p50 40 ms, p99 95 ms).
type LogNormal struct {
	mu, sigma float64
}

// NewLogNormal returns the log-normal with the given median and p99 (p99 ≥ median > 0).
// When p99 equals the median the distribution is a constant.
func NewLogNormal(median, p99 time.Duration) LogNormal {
	if median <= 0 {
		median = 1
	}
	if p99 < median {
		p99 = median
	}
	return LogNormal{mu: math.Log(float64(median)), sigma: math.Log(float64(p99)/float64(median)) / z99}
}

// Sample draws one duration.
func (d LogNormal) Sample(r *rand.Rand) time.Duration {
	return floatdur.Trunc(math.Exp(d.mu + d.sigma*r.NormFloat64()))
}

// Mean is the distribution's mean, exp(mu + sigma²/2).
func (d LogNormal) Mean() time.Duration {
	return floatdur.Trunc(math.Exp(d.mu + d.sigma*d.sigma/2))
}

// Quantile returns the q-quantile (0 < q < 1).
func (d LogNormal) Quantile(q float64) time.Duration {
	return floatdur.Trunc(math.Exp(d.mu + d.sigma*normalQuantile(q)))
}

// normalQuantile is the inverse standard normal CDF (Acklam's rational approximation, relative
// error below 1.2e-9), used only to report quantiles, never to sample.
func normalQuantile(p float64) float64 {
	if p <= 0 {
		return math.Inf(-1)
	}
	if p >= 1 {
		return math.Inf(1)
	}
	a := [...]float64{-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00}
	b := [...]float64{-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01, -1.328068155288572e+01}
	c := [...]float64{-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00}
	d := [...]float64{7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00}
	const lo = 0.02425
	switch {
	case p < lo:
		q := math.Sqrt(-2 * math.Log(p))
		return (((((c[0]*q+c[1])*q+c[2])*q+c[3])*q+c[4])*q + c[5]) / ((((d[0]*q+d[1])*q+d[2])*q+d[3])*q + 1)
	case p > 1-lo:
		q := math.Sqrt(-2 * math.Log(1-p))
		return -(((((c[0]*q+c[1])*q+c[2])*q+c[3])*q+c[4])*q + c[5]) / ((((d[0]*q+d[1])*q+d[2])*q+d[3])*q + 1)
	default:
		q := p - 0.5
		r := q * q
		return (((((a[0]*r+a[1])*r+a[2])*r+a[3])*r+a[4])*r + a[5]) * q / (((((b[0]*r+b[1])*r+b[2])*r+b[3])*r+b[4])*r + 1)
	}
}
