package draw

import (
	"hash/fnv"
	"math"
	"testing"
)

// The draws at fixed inputs, as an independent implementation (Python integers) computes
// them. Every committed replay and the live lab's decisions depend on these exact numbers:
// a change here changes them all.
func TestUniformAtFixedInputs(t *testing.T) {
	for _, tc := range []struct {
		key, a, b uint64
		want      float64
	}{
		{0, 0, 0, 0.6524484863740323},
		{Key(1, "payment-risk/service"), 42, 1, 0.6746395012895492},
		{Key(7, "faultproxy/error"), Hash("order-17"), 2, 0.4499150169905625},
		{math.MaxUint64, math.MaxUint64, math.MaxUint64, 0.17907980293439146},
	} {
		if got := Uniform(tc.key, tc.a, tc.b); got != tc.want {
			t.Errorf("Uniform(%#x, %d, %d) = %v, want %v", tc.key, tc.a, tc.b, got, tc.want)
		}
	}
}

// The extreme hashes map inside (0, 1), and many draws average one half.
func TestUniformOpenInterval(t *testing.T) {
	// Mix is a bijection, so some coordinates give each extreme hash: find the b
	// that does for key 0 and a 0 by inverting the last round.
	for _, h := range []uint64{0, math.MaxUint64, math.MaxUint64 >> 11 << 11} {
		b := unmix(h) ^ Mix(0)
		if u := Uniform(0, 0, b); !(u > 0 && u < 1) {
			t.Errorf("Uniform at hash %#x = %v, outside (0, 1)", h, u)
		}
	}
	var sum float64
	const n = 1 << 16
	for i := range uint64(n) {
		u := Uniform(Key(3, "mean"), i, 0)
		if !(u > 0 && u < 1) {
			t.Fatalf("Uniform at %d = %v, outside (0, 1)", i, u)
		}
		sum += u
	}
	if mean := sum / n; math.Abs(mean-0.5) > 0.01 {
		t.Errorf("mean of %d draws %v, want 0.5 ± 0.01", n, mean)
	}
}

func TestHashIsFNV1a(t *testing.T) {
	for _, s := range []string{"", "a", "payment-risk/service", "users/checkout/think", "\xff\x00é"} {
		h := fnv.New64a()
		h.Write([]byte(s))
		if got, want := Hash(s), h.Sum64(); got != want {
			t.Errorf("Hash(%q) = %#x, want hash/fnv's %#x", s, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = Hash("order-17") }); n != 0 {
		t.Errorf("Hash allocates %v times", n)
	}
}

// Mix is a bijection: distinct words stay distinct (checked on a run of neighbours).
func TestMixDistinct(t *testing.T) {
	seen := make(map[uint64]bool, 1<<12)
	for x := range uint64(1 << 12) {
		m := Mix(x)
		if seen[m] {
			t.Fatalf("Mix(%d) = %#x repeats", x, m)
		}
		seen[m] = true
	}
}

// unmix inverts Mix.
func unmix(x uint64) uint64 {
	x ^= x>>31 ^ x>>62
	x *= 0x319642b2d24d8ec3 // inverse of 0x94d049bb133111eb mod 2⁶⁴
	x ^= x>>27 ^ x>>54
	x *= 0x96de1b173f119089 // inverse of 0xbf58476d1ce4e5b9
	x ^= x>>30 ^ x>>60
	return x - 0x9e3779b97f4a7c15
}

func TestUnmix(t *testing.T) {
	for _, x := range []uint64{0, 1, 42, math.MaxUint64, 0x9e3779b97f4a7c15} {
		if got := unmix(Mix(x)); got != x {
			t.Errorf("unmix(Mix(%#x)) = %#x", x, got)
		}
	}
}
