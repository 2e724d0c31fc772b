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
		{"demand", unsafe.Sizeof(demand{})},
	} {
		if tc.size != 64 {
			t.Errorf("%s is %d bytes, want 64 (one cache line)", tc.name, tc.size)
		}
	}
}
