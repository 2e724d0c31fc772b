package packet

import (
	"math"
	"math/bits"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// hist is a histogram written on the hot path: the counts array of an HdrHistogram over
// [histMin, histMax] microseconds with the given significant digits, indexed exactly as
// the library indexes it, without the library's per-value checks and running total. A
// replay records about twelve values per request, so that difference is a few percent of
// the whole run. Read it through hdr, which builds the library's histogram from the counts
// (the library derives its total, minimum and maximum from the counts too).
type hist struct {
	counts  []int64
	digits  int
	halfMag uint  // log2 of half the number of sub-buckets
	mask    int64 // the number of sub-buckets minus one
}

func newHistDigits(digits int) hist {
	// The library's geometry for a lowest value of 1 (unit magnitude 0): single-unit
	// resolution up to 2×10^digits, rounded up to a power of two of sub-buckets.
	subMag := uint(math.Ceil(math.Log2(2 * math.Pow10(digits))))
	// Buckets double until one holds histMax; the library keeps half a bucket of
	// sub-buckets per bucket, plus one more bucket.
	buckets := 1
	for top := int64(1) << subMag; top <= histMax; top <<= 1 {
		buckets++
	}
	return hist{
		counts:  make([]int64, (buckets+1)<<(subMag-1)),
		digits:  digits,
		halfMag: subMag - 1,
		mask:    1<<subMag - 1,
	}
}

// record adds d, in microseconds, clamped to [0, histMax].
func (h *hist) record(d time.Duration) {
	if d < time.Microsecond {
		// Index 0, the commonest value of the waits (no wait at all), without the arithmetic.
		h.counts[0]++
		return
	}
	v := min(int64(d/time.Microsecond), histMax)
	// The library's index, (bucket+1)<<halfMag + v>>bucket - 1<<halfMag, simplified. Both
	// shifts are below 64; masking them says so, which spares the checks for larger ones.
	bucket := uint(64-bits.LeadingZeros64(uint64(v|h.mask))) - h.halfMag - 1
	h.counts[bucket<<(h.halfMag&63)+uint(v>>(bucket&63))]++
}

// hdr returns the recorded values as an HdrHistogram, for reading.
func (h *hist) hdr() *hdr.Histogram {
	return hdr.Import(&hdr.Snapshot{
		LowestTrackableValue:  histMin,
		HighestTrackableValue: histMax,
		SignificantFigures:    int64(h.digits),
		Counts:                h.counts,
	})
}
