package admission

import (
	"testing"
	"unsafe"
)

// TestLayout pins the sizes that put each group of words Admit and Done
// write on a cache line of its own (see slots): pointer-free objects whose
// sizes are multiples of 64 bytes are allocated 64-byte aligned, and so are
// the elements of arrays of 64-byte elements within them.
func TestLayout(t *testing.T) {
	for _, tc := range []struct {
		name string
		size uintptr
	}{
		{"slots", unsafe.Sizeof(slots{})},
		{"admitted", unsafe.Sizeof(admitted{})},
		{"refused", unsafe.Sizeof(refused{})},
		{"acc", unsafe.Sizeof(acc{})},
	} {
		if tc.size != 64 {
			t.Errorf("%s is %d bytes, want 64 (one cache line)", tc.name, tc.size)
		}
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
