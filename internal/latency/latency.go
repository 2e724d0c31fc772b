// Package latency provides the one histogram of durations that the model, the packet's
// recorder and the live load generator record latencies in.
//
// A [Histogram] counts whole microseconds in the bucket layout of an HdrHistogram
// (github.com/HdrHistogram/hdrhistogram-go) with a lowest value of 1: single-microsecond
// buckets up to twice the sub-buckets per power of two, then buckets that double in width.
// [New] takes the layout from significant digits, as the library does; [NewSteps] takes the
// sub-buckets per power of two directly, for a coarser histogram than one digit gives.
// Reading it gives the library's figures ([Histogram.ValueAtPercentile], [Histogram.Max],
// [Histogram.Mean]) without building the library's histogram; [Histogram.UpperBound] is the
// conservative reading a controller acts on. Recording does not allocate.
package latency

import (
	"math"
	"math/bits"
	"time"
)

// Histogram counts durations, in microseconds clamped to [0, highest], in HdrHistogram's
// layout. The zero value is not usable: get one from [New] or [NewSteps]. Copying a
// Histogram shares its counts. It is not safe for concurrent use.
type Histogram struct {
	counts  []int64
	total   int64
	max     int64 // the highest value counted, in µs; larger ones count as max
	halfMag uint  // log2 of the sub-buckets per power of two (half the sub-buckets)
	mask    int64 // the number of sub-buckets minus one
}

// New returns a histogram of the durations from 0 to highest that keeps digits significant
// decimal digits (0.1% for 3), laid out as HdrHistogram lays out New(1, max µs, digits).
func New(digits int, highest time.Duration) Histogram {
	// The library's geometry for a lowest value of 1 (unit magnitude 0): single-unit
	// resolution up to 2×10^digits, rounded up to a power of two of sub-buckets.
	subMag := uint(math.Ceil(math.Log2(2 * math.Pow10(digits))))
	return newLayout(subMag, highest)
}

// NewSteps returns a histogram of the durations from 0 to highest with steps sub-buckets per
// power of two (a power of two, at least 1): each bucket is at most 1/steps of its lower
// bound wide, and values below 2×steps µs are counted exactly.
func NewSteps(steps int, highest time.Duration) Histogram {
	return newLayout(uint(bits.Len(uint(max(steps, 1))-1))+1, highest)
}

func newLayout(subMag uint, highest time.Duration) Histogram {
	top := max(int64(highest/time.Microsecond), 1)
	// Buckets double until one holds top; the library keeps half a bucket of sub-buckets
	// per bucket, plus one more bucket.
	buckets := 1
	for v := int64(1) << subMag; v <= top; v <<= 1 {
		buckets++
	}
	return Histogram{
		counts:  make([]int64, (buckets+1)<<(subMag-1)),
		max:     top,
		halfMag: subMag - 1,
		mask:    1<<subMag - 1,
	}
}

// Record counts d, in whole microseconds clamped to [0, highest].
func (h *Histogram) Record(d time.Duration) {
	h.total++
	if d < time.Microsecond {
		// Index 0, the commonest value of the waits (no wait at all), without the arithmetic.
		h.counts[0]++
		return
	}
	v := min(int64(d/time.Microsecond), h.max)
	// The library's index, (bucket+1)<<halfMag + v>>bucket - 1<<halfMag, simplified. Both
	// shifts are below 64; masking them says so, which spares the checks for larger ones.
	bucket := uint(64-bits.LeadingZeros64(uint64(v|h.mask))) - h.halfMag - 1
	h.counts[bucket<<(h.halfMag&63)+uint(v>>(bucket&63))]++
}

// Count is the number of durations recorded.
func (h *Histogram) Count() int64 { return h.total }

// Reset forgets every recorded duration.
func (h *Histogram) Reset() {
	if h.total > 0 {
		clear(h.counts)
		h.total = 0
	}
}

// Merge adds the counts of from, which must have the same layout (the same New or
// NewSteps arguments).
func (h *Histogram) Merge(from *Histogram) {
	if len(from.counts) != len(h.counts) || from.halfMag != h.halfMag {
		panic("latency: Merge of histograms with different layouts")
	}
	for i, c := range from.counts {
		h.counts[i] += c
	}
	h.total += from.total
}

// Subtract takes away the counts of from, which must have the same layout and have been
// merged into h before: a window of histograms keeps a running sum with Merge and Subtract.
func (h *Histogram) Subtract(from *Histogram) {
	if len(from.counts) != len(h.counts) || from.halfMag != h.halfMag {
		panic("latency: Subtract of histograms with different layouts")
	}
	for i, c := range from.counts {
		h.counts[i] -= c
	}
	h.total -= from.total
}

// Bytes is the memory h's counts take.
func (h *Histogram) Bytes() int64 { return int64(len(h.counts)) * 8 }

// bucket returns the lowest value counted at index i and the width of its bucket.
func (h *Histogram) bucket(i int) (lowest, width int64) {
	half := 1 << h.halfMag
	b := i>>h.halfMag - 1
	sub := i&(half-1) + half
	if b < 0 {
		sub -= half
		b = 0
	}
	return int64(sub) << b, 1 << b
}

// index returns the first index at which the running count reaches rank (1 or more).
func (h *Histogram) index(rank int64) int {
	var acc int64
	for i, c := range h.counts {
		acc += c
		if acc >= rank {
			return i
		}
	}
	return len(h.counts) - 1
}

// ValueAtPercentile returns, in microseconds, what HdrHistogram's ValueAtPercentile returns
// for the same values: the highest value of the bucket that holds the value of rank
// p/100 × count + ½ (rounded down, at least 1); for p ≤ 0, the lowest value of the first
// bucket. It is 0 when the histogram is empty.
func (h *Histogram) ValueAtPercentile(p float64) int64 {
	if h.total == 0 {
		return 0
	}
	p = min(p, 100)
	rank := p/100*float64(h.total) + 0.5
	switch {
	case !(rank >= 1):
		rank = 1
	case rank >= float64(h.total):
		rank = float64(h.total)
	}
	lo, w := h.bucket(h.index(int64(rank)))
	if p <= 0 {
		return lo
	}
	return lo + w - 1
}

// Max returns, in microseconds, the highest value of the highest bucket that holds a
// recorded duration (HdrHistogram's Max), or 0 when the histogram is empty.
func (h *Histogram) Max() int64 {
	for i := len(h.counts) - 1; i >= 0; i-- {
		if h.counts[i] != 0 {
			lo, w := h.bucket(i)
			return lo + w - 1
		}
	}
	return 0
}

// Mean returns, in microseconds, the mean of the recorded durations with each taken at
// the middle of its bucket, summed as HdrHistogram's Mean sums it (so to the last bit the
// same); 0 when the histogram is empty.
func (h *Histogram) Mean() float64 {
	if h.total == 0 {
		return 0
	}
	total := float64(h.total)
	var mean float64
	for i, c := range h.counts {
		if c != 0 {
			lo, w := h.bucket(i)
			mean += float64(c) * float64(lo+w>>1) / total
		}
	}
	return mean
}

// UpperBound returns the upper end (exclusive) of the bucket in which the running count
// first reaches ⌈q × count⌉, for q in (0, 1]: a duration that at least a share q of the
// recorded durations are below. It returns false when the histogram is empty.
func (h *Histogram) UpperBound(q float64) (time.Duration, bool) {
	if h.total == 0 {
		return 0, false
	}
	lo, w := h.bucket(h.index(int64(math.Ceil(q * float64(h.total)))))
	return time.Duration(lo+w) * time.Microsecond, true
}
