package lognormal

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/internal/floatdur"
)

func absDiff(a, b time.Duration) time.Duration {
	if a > b {
		return a - b
	}
	return b - a
}

// The table's interpolation must stay within its documented error of the exact quantile,
// over the whole of (0, 1), for the shapes a scenario gives: narrow and wide log-normals.
func TestTable(t *testing.T) {
	for _, c := range []struct {
		p50, p99 time.Duration
		bound    float64 // relative, as the doc comment of Dist says
	}{
		{38 * time.Millisecond, 95 * time.Millisecond, 5e-6},
		{40 * time.Millisecond, 410 * time.Millisecond, 5e-6},
		{3 * time.Millisecond, 10 * time.Millisecond, 5e-6},
		{10 * time.Microsecond, 11 * time.Microsecond, 5e-6},
		{time.Millisecond, time.Second, 3e-5},
	} {
		l := New(c.p50, c.p99)
		worst, at := 0.0, 0.0
		check := func(u float64) {
			got, want := float64(l.Sample(u)), l.exact(u)
			if e := (math.Abs(got-want) - 1) / want; e > worst { // less 1 ns: truncation to ns
				worst, at = e, u
			}
		}
		r := rand.New(rand.NewPCG(1, 2))
		for range 200_000 {
			check(r.Float64())
		}
		for i := 1; i < n; i++ { // grid points and midpoints, tails included
			check(float64(i) / n)
			check((float64(i) + 0.5) / n)
		}
		if worst > c.bound {
			t.Errorf("%v/%v: relative error %.3g at u=%v, want ≤ %g", c.p50, c.p99, worst, at, c.bound)
		}
		// The median and the 99th percentile are the ones declared, sampled or exact.
		for _, got := range []time.Duration{l.Sample(0.5), l.Quantile(0.5)} {
			if absDiff(got, c.p50) > c.p50/100_000+1 {
				t.Errorf("%v/%v: median %v", c.p50, c.p99, got)
			}
		}
		for _, got := range []time.Duration{l.Sample(0.99), l.Quantile(0.99)} {
			if absDiff(got, c.p99) > c.p99/100_000+1 {
				t.Errorf("%v/%v: p99 %v", c.p50, c.p99, got)
			}
		}
	}
}

// Fixed instants of one distribution: the quantiles and the mean, and the sample mean and
// quantiles of many draws.
func TestQuantilesAndMean(t *testing.T) {
	d := New(40*time.Millisecond, 410*time.Millisecond)
	for _, tc := range []struct {
		name      string
		got, want time.Duration
		tol       time.Duration
	}{
		{"p50", d.Quantile(0.5), 40 * time.Millisecond, time.Microsecond},
		{"p99", d.Quantile(0.99), 410 * time.Millisecond, 10 * time.Microsecond},
		{"mean", d.Mean().Round(time.Millisecond), 66 * time.Millisecond, 0},
	} {
		if absDiff(tc.got, tc.want) > tc.tol {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	r := rand.New(rand.NewPCG(1, 3))
	const count = 200_000
	xs := make([]time.Duration, count)
	sum := 0.0
	for i := range xs {
		xs[i] = d.Sample(r.Float64())
		sum += float64(xs[i])
	}
	sort.Slice(xs, func(i, j int) bool { return xs[i] < xs[j] })
	if p50 := xs[count/2]; absDiff(p50, 40*time.Millisecond) > 2*time.Millisecond {
		t.Errorf("sample p50 = %v", p50)
	}
	if p99 := xs[count*99/100]; absDiff(p99, 410*time.Millisecond) > 30*time.Millisecond {
		t.Errorf("sample p99 = %v", p99)
	}
	if mean := time.Duration(sum / count); absDiff(mean, d.Mean()) > 2*time.Millisecond {
		t.Errorf("sample mean = %v, want about %v", mean, d.Mean())
	}
}

// A log-normal without spread, or without a median, samples a constant.
func TestDegenerate(t *testing.T) {
	l := New(7*time.Millisecond, 7*time.Millisecond)
	for _, u := range []float64{1e-9, 0.3, 0.5, 0.999999} {
		if got := l.Sample(u); absDiff(got, 7*time.Millisecond) > 1 {
			t.Errorf("constant: Sample(%v) = %v", u, got)
		}
		if got := l.Quantile(u); absDiff(got, 7*time.Millisecond) > 1 {
			t.Errorf("constant: Quantile(%v) = %v", u, got)
		}
	}
	if l := New(0, 0); l.Sample(0.5) != 0 || l.Quantile(0.5) != 0 || l.Mean() != 0 {
		t.Errorf("no median: %v %v %v", l.Sample(0.5), l.Quantile(0.5), l.Mean())
	}
}

// A log-normal whose tail lies beyond a Duration's range saturates at floatdur.Max, in the
// table and in the exact tails alike, instead of wrapping to a negative duration (amd64) or
// turning NaN into 0; and every draw is monotone in u.
func TestTailSaturates(t *testing.T) {
	for _, q := range []struct{ p50, p99 time.Duration }{
		{time.Millisecond, 1000 * time.Hour},
		{time.Millisecond, floatdur.Max},
		{time.Hour, floatdur.Max},
	} {
		l := New(q.p50, q.p99)
		prev := time.Duration(0)
		saturated := false
		for i := 1; i < n; i++ {
			for _, u := range []float64{float64(i) / n, (float64(i) + 0.5) / n} {
				d := l.Sample(u)
				if d < prev {
					t.Fatalf("p50 %v p99 %v: Sample(%g) = %d, below the sample of a smaller u (%d)", q.p50, q.p99, u, d, prev)
				}
				prev = d
				saturated = saturated || d == floatdur.Max
			}
		}
		if d := l.Sample(math.Nextafter(1, 0)); d != floatdur.Max {
			t.Errorf("p50 %v p99 %v: Sample(1−ε) = %d, want floatdur.Max", q.p50, q.p99, d)
		}
		if !saturated {
			t.Errorf("p50 %v p99 %v: no sample on the grid saturates; the case tests nothing", q.p50, q.p99)
		}
	}
	heavy := New(time.Millisecond, floatdur.Max) // sigma ≈ 12.9: the tail overflows
	for _, tc := range []struct {
		name      string
		got, want time.Duration
	}{
		{"quantile near 1", heavy.Quantile(1 - 1e-9), floatdur.Max},
		{"quantile at 1", heavy.Quantile(1), floatdur.Max},
		{"quantile at 0", heavy.Quantile(0), 0},
		{"mean", heavy.Mean(), floatdur.Max},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %d, want %d", tc.name, tc.got, tc.want)
		}
	}
	r := rand.New(rand.NewPCG(1, 4))
	saturated := 0
	for range 100_000 {
		d := heavy.Sample(r.Float64())
		if d < 0 {
			t.Fatalf("Sample = %d, negative", d)
		}
		if d == floatdur.Max {
			saturated++
		}
	}
	// P(z > (ln 2⁶³ − ln 1e6)/sigma = z99) is 1%.
	if want := 1000.0; math.Abs(float64(saturated)-want) > 5*math.Sqrt(want) {
		t.Errorf("%d of 100000 draws saturated, want about %v", saturated, want)
	}
}

// The table-free QuantileNS and MeanNS are New's, degenerate shapes included; a
// constant rounds to its p50 exactly.
func TestQuantileNSWithoutTable(t *testing.T) {
	for _, c := range [][2]time.Duration{
		{38 * time.Millisecond, 95 * time.Millisecond},
		{240 * time.Millisecond, 4800 * time.Millisecond},
		{time.Millisecond, time.Hour},
		{20 * time.Millisecond, 20 * time.Millisecond}, // p99 = p50: a constant
		{20 * time.Millisecond, 10 * time.Millisecond}, // p99 < p50: a constant
		{0, time.Second}, // no median: 0
		{5, 7},
	} {
		d := New(c[0], c[1])
		if got, want := floatdur.Trunc(MeanNS(c[0], c[1])), d.Mean(); got != want {
			t.Errorf("%v/%v: MeanNS %v, New's Mean %v", c[0], c[1], got, want)
		}
		for i := 1; i < 1000; i++ {
			u := float64(i) / 1000
			if got, want := QuantileNS(c[0], c[1], u), d.QuantileNS(u); got != want {
				t.Errorf("%v/%v: QuantileNS(%v) %v, New's %v", c[0], c[1], u, got, want)
			}
		}
		if c[1] <= c[0] {
			if got := floatdur.Round(QuantileNS(c[0], c[1], 0.3)); got != max(c[0], 0) {
				t.Errorf("%v/%v: constant rounds to %v", c[0], c[1], got)
			}
		}
	}
}
