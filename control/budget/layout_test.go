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
