package packet

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// TestHistMatchesLibrary records the same values in a hist and in the library's histogram
// and compares every count: small values one by one, values around every power of two,
// log-uniform random values across the whole range, values out of range (clamped) and
// durations that are not whole microseconds.
func TestHistMatchesLibrary(t *testing.T) {
	for _, digits := range []int{diagDigits, histDigits} {
		var vs []int64
		for v := int64(-3); v <= 5000; v++ {
			vs = append(vs, v)
		}
		for p := int64(1); p > 0 && p <= 4*histMax; p *= 2 {
			vs = append(vs, p-1, p, p+1)
		}
		rng := rand.New(rand.NewPCG(uint64(digits), 1))
		for range 200_000 {
			vs = append(vs, int64(1)<<rng.IntN(33)+rng.Int64N(1<<rng.IntN(33)+1))
		}
		vs = append(vs, histMax-1, histMax, histMax+1, 1<<62)

		fast := newHistDigits(digits)
		lib := newHist()
		if digits == diagDigits {
			lib = hdr.New(histMin, histMax, diagDigits)
		}
		if g, w := len(fast.counts), len(lib.Export().Counts); g != w {
			t.Fatalf("%d digits: %d counts, library has %d", digits, g, w)
		}
		for _, v := range vs {
			d := time.Duration(v) * time.Microsecond
			fast.record(d)
			record(lib, d)
		}
		// Durations that are not whole microseconds, around zero and one microsecond.
		for _, d := range []time.Duration{-1500, -1, 0, 1, 500, 999, 1000, 1001, 1999, 2000, 2001} {
			fast.record(d)
			record(lib, d)
		}
		got, want := fast.hdr().Export().Counts, lib.Export().Counts
		if !slices.Equal(got, want) {
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%d digits: count %d = %d, library has %d", digits, i, got[i], want[i])
				}
			}
			t.Fatalf("%d digits: %d counts, library has %d", digits, len(got), len(want))
		}
		if g, w := fast.hdr().TotalCount(), lib.TotalCount(); g != w {
			t.Fatalf("%d digits: total %d, library has %d", digits, g, w)
		}
		if g, w := fast.hdr().ValueAtQuantile(99), lib.ValueAtQuantile(99); g != w {
			t.Fatalf("%d digits: p99 %d, library has %d", digits, g, w)
		}
	}
}

func BenchmarkHistRecord(b *testing.B) {
	vs := make([]time.Duration, 1024)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range vs {
		vs[i] = time.Duration(rng.Int64N(int64(2 * time.Second)))
	}
	b.Run("hist", func(b *testing.B) {
		b.ReportAllocs()
		h := newHistDigits(histDigits)
		for i := 0; b.Loop(); i++ {
			h.record(vs[i&1023])
		}
	})
	b.Run("hdrhistogram", func(b *testing.B) {
		b.ReportAllocs()
		h := newHist()
		for i := 0; b.Loop(); i++ {
			record(h, vs[i&1023])
		}
	})
}
