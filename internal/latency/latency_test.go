package latency

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

const hour = int64(time.Hour / time.Microsecond)

// values are the durations the tests record: small values one by one, values around every
// power of two, log-uniform random values across the whole range, values out of range
// (clamped) and durations that are not whole microseconds.
func values(seed uint64) []time.Duration {
	var vs []time.Duration
	for v := int64(-3); v <= 5000; v++ {
		vs = append(vs, time.Duration(v)*time.Microsecond)
	}
	for p := int64(1); p > 0 && p <= 1<<44; p *= 2 {
		vs = append(vs, time.Duration(p-1)*time.Microsecond, time.Duration(p)*time.Microsecond, time.Duration(p+1)*time.Microsecond)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	for range 200_000 {
		vs = append(vs, time.Duration(int64(1)<<rng.IntN(33)+rng.Int64N(1<<rng.IntN(33)+1))*time.Microsecond)
	}
	vs = append(vs, time.Duration(hour-1)*time.Microsecond, time.Hour, time.Hour+time.Microsecond, 1<<62)
	return append(vs, -1500, -1, 0, 1, 500, 999, 1000, 1001, 1999, 2000, 2001)
}

// TestMatchesLibrary records the same durations in a Histogram and in HdrHistogram and
// compares every count and every reading.
func TestMatchesLibrary(t *testing.T) {
	for _, digits := range []int{1, 2, 3} {
		h := New(digits, time.Hour)
		lib := hdr.New(1, hour, digits)
		if g, w := len(h.counts), len(lib.Export().Counts); g != w {
			t.Fatalf("%d digits: %d counts, library has %d", digits, g, w)
		}
		check := func(n int) {
			t.Helper()
			if !slices.Equal(h.counts, lib.Export().Counts) {
				t.Fatalf("%d digits, %d values: counts differ from the library's", digits, n)
			}
			if g, w := h.Count(), lib.TotalCount(); g != w {
				t.Fatalf("%d digits: count %d, library %d", digits, g, w)
			}
			for _, p := range []float64{-1, 0, 1e-9, 0.1, 10, 50, 90, 99, 99.9, 99.99, 100, 101, math.NaN()} {
				if g, w := h.ValueAtPercentile(p), lib.ValueAtPercentile(p); g != w {
					t.Fatalf("%d digits, %d values: p%v %d, library %d", digits, n, p, g, w)
				}
			}
			if g, w := h.Max(), lib.Max(); g != w {
				t.Fatalf("%d digits, %d values: max %d, library %d", digits, n, g, w)
			}
			if g, w := h.Mean(), lib.Mean(); g != w {
				t.Fatalf("%d digits, %d values: mean %v, library %v", digits, n, g, w)
			}
		}
		check(0)
		for i, d := range values(uint64(digits)) {
			h.Record(d)
			v := min(max(int64(d/time.Microsecond), 0), hour)
			if err := lib.RecordValue(v); err != nil {
				t.Fatal(err)
			}
			if i < 40 || i%50_000 == 0 {
				check(i + 1)
			}
		}
		check(-1)

		// Merging two halves gives the counts of the whole, as the library's Merge does.
		a, b := New(digits, time.Hour), New(digits, time.Hour)
		la, lb := hdr.New(1, hour, digits), hdr.New(1, hour, digits)
		for i, d := range values(uint64(digits) + 10) {
			v := min(max(int64(d/time.Microsecond), 0), hour)
			if i%3 == 0 {
				a.Record(d)
				_ = la.RecordValue(v)
			} else {
				b.Record(d)
				_ = lb.RecordValue(v)
			}
		}
		a.Merge(&b)
		la.Merge(lb)
		if !slices.Equal(a.counts, la.Export().Counts) || a.Count() != la.TotalCount() || a.Mean() != la.Mean() {
			t.Fatalf("%d digits: merged counts differ from the library's", digits)
		}

		h.Reset()
		if h.Count() != 0 || h.Max() != 0 || slices.ContainsFunc(h.counts, func(c int64) bool { return c != 0 }) {
			t.Fatalf("%d digits: Reset left counts", digits)
		}
	}
}

// durHist is the model's former per-tick histogram (8 sub-buckets a power of two of
// microseconds, read at the upper end of a bucket), the reference for NewSteps(8, …).
type durHist struct {
	n      int
	counts [8 * 40]int32
}

func bucketOf(d time.Duration) int {
	us := uint64(max(d, 0) / time.Microsecond)
	if us < 8 {
		return int(us)
	}
	e := bits.Len64(us) - 1
	b := 8*(e-2) + int(us>>(e-3)&7)
	return min(b, 8*40-1)
}

func bucketValue(b int) time.Duration {
	if b < 8 {
		return time.Duration(b+1) * time.Microsecond
	}
	e := b/8 + 2
	sub := uint64(b % 8)
	return time.Duration((8+sub+1)<<(e-3)) * time.Microsecond
}

func (h *durHist) add(d time.Duration) {
	h.counts[bucketOf(d)]++
	h.n++
}

func (h *durHist) quantile(q float64) (time.Duration, bool) {
	if h.n == 0 {
		return 0, false
	}
	want := int(math.Ceil(q * float64(h.n)))
	acc := 0
	for b, c := range h.counts {
		acc += int(c)
		if acc >= want {
			return bucketValue(b), true
		}
	}
	return bucketValue(len(h.counts) - 1), true
}

// TestUpperBoundMatchesDurHist checks that NewSteps(8, 2^42 µs) read by UpperBound gives
// the model's former per-tick quantiles exactly, for small and large populations.
func TestUpperBoundMatchesDurHist(t *testing.T) {
	vs := values(7)
	for _, n := range []int{1, 2, 3, 7, 10, 13, 15, 100, 1001, len(vs)} {
		h := NewSteps(8, (1<<42-1)*time.Microsecond)
		if len(h.counts) != 8*40 {
			t.Fatalf("%d counts; the model's histogram had %d", len(h.counts), 8*40)
		}
		var ref durHist
		rng := rand.New(rand.NewPCG(uint64(n), 3))
		for range n {
			d := vs[rng.IntN(len(vs))]
			h.Record(d)
			ref.add(d)
		}
		for _, q := range []float64{0, 0.01, 0.1, 0.5, 0.9, 0.99, 1} {
			g, gok := h.UpperBound(q)
			w, wok := ref.quantile(q)
			if g != w || gok != wok {
				t.Fatalf("n %d: q %v: %v %v, the model's histogram %v %v", n, q, g, gok, w, wok)
			}
		}
	}
	var empty durHist
	h := NewSteps(8, time.Hour)
	if _, ok := h.UpperBound(0.5); ok {
		t.Fatal("an empty histogram has an upper bound")
	}
	if _, ok := empty.quantile(0.5); ok {
		t.Fatal("reference: an empty histogram has a quantile")
	}
}

// TestLayouts pins the layouts at fixed values: which durations share a bucket.
func TestLayouts(t *testing.T) {
	for _, tc := range []struct {
		name    string
		h       Histogram
		d       time.Duration
		p50, ub time.Duration // the percentile and the upper bound of a histogram holding d alone
	}{
		{"3 digits, exact", New(3, time.Hour), 1500 * time.Microsecond, 1500 * time.Microsecond, 1501 * time.Microsecond},
		{"3 digits, 1 s", New(3, time.Hour), time.Second, 1000447 * time.Microsecond, 1000448 * time.Microsecond},
		{"2 digits, 1 s", New(2, time.Hour), time.Second, 1003519 * time.Microsecond, 1003520 * time.Microsecond},
		{"8 steps, 5 µs", NewSteps(8, time.Hour), 5 * time.Microsecond, 5 * time.Microsecond, 6 * time.Microsecond},
		{"8 steps, 100 µs", NewSteps(8, time.Hour), 100 * time.Microsecond, 103 * time.Microsecond, 104 * time.Microsecond},
		{"8 steps, clamped", NewSteps(8, time.Second), time.Hour, 1048575 * time.Microsecond, 1048576 * time.Microsecond},
		{"below a microsecond", New(2, time.Hour), 999, 0, time.Microsecond},
	} {
		h := tc.h
		h.Record(tc.d)
		if g := time.Duration(h.ValueAtPercentile(50)) * time.Microsecond; g != tc.p50 {
			t.Errorf("%s: p50 %v, want %v", tc.name, g, tc.p50)
		}
		if g, _ := h.UpperBound(0.5); g != tc.ub {
			t.Errorf("%s: upper bound %v, want %v", tc.name, g, tc.ub)
		}
	}
}

func BenchmarkRecord(b *testing.B) {
	vs := make([]time.Duration, 1024)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range vs {
		vs[i] = time.Duration(rng.Int64N(int64(2 * time.Second)))
	}
	b.ReportAllocs()
	h := New(3, time.Hour)
	for i := 0; b.Loop(); i++ {
		h.Record(vs[i&1023])
	}
}

// Subtract undoes a Merge: a window's running sum reads as the merge of what it holds.
func TestSubtract(t *testing.T) {
	a, b, sum := NewSteps(8, time.Hour), NewSteps(8, time.Hour), NewSteps(8, time.Hour)
	for i := range 50 {
		a.Record(time.Duration(i) * time.Millisecond)
		b.Record(time.Duration(i) * time.Second)
	}
	sum.Merge(&a)
	sum.Merge(&b)
	sum.Subtract(&a)
	for _, q := range []float64{0.1, 0.5, 0.99, 1} {
		got, _ := sum.UpperBound(q)
		want, _ := b.UpperBound(q)
		if got != want || sum.Count() != b.Count() {
			t.Errorf("q %v: after Subtract %v (count %d), want %v (count %d)", q, got, sum.Count(), want, b.Count())
		}
	}
}
