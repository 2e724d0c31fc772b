package chart

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestGridlines(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   []float64
	}{
		{0, 52, []float64{0, 30, 60}},
		{0, 100, []float64{0, 50, 100}},
		{0, 72.8, []float64{0, 25, 50, 75}},
		{0, 10, []float64{0, 5, 10}},
		{0, 0, []float64{0, 0.5, 1}},
		{0, 0.8, []float64{0, 0.3, 0.6, 0.9}},
		{0, 4200, []float64{0, 2500, 5000}},
		{-5, 20, []float64{-10, 0, 10, 20}},
		{-1e308, 1e308, []float64{-1e308, 1e308}}, // the span overflows
		{0, 1e-310, []float64{0, 1e-310}},
	} {
		got := Gridlines(tc.lo, tc.hi)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Gridlines(%v, %v) (-want +got):\n%s", tc.lo, tc.hi, diff)
		}
		if got[0] > tc.lo || got[len(got)-1] < tc.hi {
			t.Errorf("Gridlines(%v, %v) = %v does not cover the range", tc.lo, tc.hi, got)
		}
	}
	if got := Gridlines(math.NaN(), 1); !cmp.Equal(got, []float64{0, 1}) {
		t.Errorf("Gridlines(NaN, 1) = %v, want [0 1]", got)
	}
}

func TestTimeTicks(t *testing.T) {
	t0 := time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC)
	berlin := time.FixedZone("CET", 3600)
	for _, tc := range []struct {
		name   string
		t0, t1 time.Time
		loc    *time.Location
		max    int
		want   []string
	}{
		{"40 minutes by 10", t0, t0.Add(40 * time.Minute), time.UTC, 6, []string{"14:00", "14:10", "14:20", "14:30", "14:40"}},
		{"unaligned start", t0.Add(90 * time.Second), t0.Add(20 * time.Minute), time.UTC, 6, []string{"14:05", "14:10", "14:15", "14:20"}},
		{"display zone", t0, t0.Add(time.Hour), berlin, 5, []string{"15:00", "15:15", "15:30", "15:45", "16:00"}},
		{"seconds", t0, t0.Add(10 * time.Second), time.UTC, 9, []string{"14:00:00", "14:00:02", "14:00:04", "14:00:06", "14:00:08", "14:00:10"}},
		{"days", t0, t0.Add(5 * 24 * time.Hour), time.UTC, 6, []string{"11 Mar", "12 Mar", "13 Mar", "14 Mar", "15 Mar"}},
	} {
		var got []string
		for _, tk := range TimeTicks(tc.t0, tc.t1, tc.loc, tc.max) {
			if tk.At.Before(tc.t0) || tk.At.After(tc.t1) {
				t.Errorf("%s: tick %v outside [%v, %v]", tc.name, tk.At, tc.t0, tc.t1)
			}
			got = append(got, tk.Label)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

type point struct{ x, v float64 }

func TestDecimate(t *testing.T) {
	x := func(p point) float64 { return p.x }
	v := func(p point) float64 { return p.v }
	short := []point{{0, 1}, {0.5, 9}}
	if got := Decimate(short, 1, x, v); len(got) != 2 {
		t.Errorf("a short series was decimated to %v", got)
	}
	// 4,000 points over 100 columns: a spike and a dip in one column each must survive,
	// and every column keeps at most its two extremes, in order.
	pts := make([]point, 4000)
	for i := range pts {
		pts[i] = point{x: float64(i) / 40, v: 10 + float64(i%7)}
	}
	pts[1234].v, pts[2345].v = 1000, -1000
	got := Decimate(pts, 100, x, v)
	if len(got) > 200 {
		t.Errorf("got %d points for 100 columns, want at most 200", len(got))
	}
	var hi, lo float64
	for i, p := range got {
		hi, lo = max(hi, p.v), min(lo, p.v)
		if i > 0 && p.x <= got[i-1].x {
			t.Fatalf("points out of order at %d: %v after %v", i, p, got[i-1])
		}
	}
	if hi != 1000 || lo != -1000 {
		t.Errorf("extremes %v and %v, want the spike 1000 and the dip -1000 kept", hi, lo)
	}
}

func TestNum(t *testing.T) {
	for x, want := range map[float64]string{0: "0", 12.34: "12.3", 12.35: "12.4", -0.04: "0", -1.26: "-1.3", 640: "640"} {
		if got := Num(x); got != want {
			t.Errorf("Num(%v) = %q, want %q", x, got, want)
		}
	}
}

func ExampleGridlines() {
	fmt.Println(Gridlines(0, 52))
	fmt.Println(Gridlines(0, 4200))
	// Output:
	// [0 30 60]
	// [0 2500 5000]
}
