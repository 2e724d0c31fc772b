package budget

import (
	"testing"
	"unsafe"
)

// TestLayout pins the sizes that give each stripe of counts, and the count
// of retries, a cache line of its own: pointer-free objects whose sizes are
// multiples of 64 bytes are allocated 64-byte aligned, and so are the
// elements of arrays of 64-byte elements.
func TestLayout(t *testing.T) {
	if n := unsafe.Sizeof(cell{}); n != 64 {
		t.Errorf("cell is %d bytes, want 64 (one cache line)", n)
	}
	if n := unsafe.Sizeof(counts{}); n != 64 {
		t.Errorf("counts is %d bytes, want 64 (one cache line)", n)
	}
}

// TestStripesSpread checks that goroutines running at once mostly get
// different stripes, which is what keeps their writes off each other's
// cache lines.
func TestStripesSpread(t *testing.T) {
	const n = 64
	got := make(chan int, n)
	for range n {
		go func() { got <- stripe() }()
	}
	seen := map[int]int{}
	for range n {
		s := <-got
		if s < 0 || s >= stripes {
			t.Fatalf("stripe %d out of [0, %d)", s, stripes)
		}
		seen[s]++
	}
	if len(seen) < stripes/2 {
		t.Errorf("%d goroutines used only %d of %d stripes: %v", n, len(seen), stripes, seen)
	}
}
