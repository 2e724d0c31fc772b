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

// TestAlignment checks what TestLayout's sizes are for: the objects Admit and
// Done write start on a cache line of their own, so no two of them, and no
// object another goroutine writes, share a line.
func TestAlignment(t *testing.T) {
	for range 8 { // a few controllers, so the allocator places some mid-span
		c := mustNew(t, Config{})
		for _, p := range []struct {
			name string
			addr uintptr
		}{
			{"slots", uintptr(unsafe.Pointer(c.slots))},
			{"admitted", uintptr(unsafe.Pointer(c.admitted))},
			{"refused", uintptr(unsafe.Pointer(c.refused))},
			{"demand", uintptr(unsafe.Pointer(c.demand))},
			{"accs", uintptr(unsafe.Pointer(c.accs))},
		} {
			if p.addr%64 != 0 {
				t.Errorf("%s at %#x, not on a 64-byte boundary", p.name, p.addr)
			}
		}
	}
}
