package sim

import (
	"hash/fnv"
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
