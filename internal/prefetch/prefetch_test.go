package prefetch

import (
	"testing"
	"unsafe"
)

// A prefetch has no effect a program can see; these check that it returns, leaves memory as
// it was, and accepts what callers pass: one byte, a line boundary, many lines, an object
// at the end of its allocation.
func TestPrefetchLeavesMemoryAlone(t *testing.T) {
	buf := make([]byte, 4096)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	for _, c := range []struct{ off, n uintptr }{{0, 1}, {63, 2}, {64, 64}, {100, 1000}, {4095, 1}} {
		Span(unsafe.Pointer(&buf[c.off]), c.n)
	}
	type rec struct{ a, b, c [64]byte }
	r := &rec{}
	r.c[63] = 9
	Object(r)
	Object(&buf[len(buf)-1])
	for i := range buf {
		if buf[i] != byte(i*7) {
			t.Fatalf("buf[%d] changed", i)
		}
	}
	if r.c[63] != 9 {
		t.Fatal("object changed")
	}
}

func BenchmarkObject(b *testing.B) {
	type rec struct{ a, b, c [64]byte }
	rs := make([]rec, 1<<16)
	i := 0
	for b.Loop() {
		Object(&rs[i&(len(rs)-1)])
		i += 97
	}
}
