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

// TestAlignment checks what TestLayout's sizes are for: the counts and the
// stripes start on cache lines of their own.
func TestAlignment(t *testing.T) {
	for range 8 { // a few budgets, so the allocator places some mid-span
		b, err := New(Finagle())
		if err != nil {
			t.Fatal(err)
		}
		if p := uintptr(unsafe.Pointer(b.n)); p%64 != 0 {
			t.Errorf("counts at %#x, not on a 64-byte boundary", p)
		}
		if p := uintptr(unsafe.Pointer(b.cells)); p%64 != 0 {
			t.Errorf("cells at %#x, not on a 64-byte boundary", p)
		}
	}
}
