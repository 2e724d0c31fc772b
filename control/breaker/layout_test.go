package breaker

import (
	"math"
	"testing"
	"time"
	"unsafe"

	"github.com/goodput-lab/goodput/control/internal/nanotime"
)

// TestLayout pins the sizes that give each stripe, and the generation's
// fixed header, a cache line of its own: pointer-free objects whose sizes are
// multiples of 64 bytes are allocated 64-byte aligned, and so are the
// elements of arrays of 64-byte elements within them.
func TestLayout(t *testing.T) {
	if n := unsafe.Sizeof(cell{}); n != 64 {
		t.Errorf("cell is %d bytes, want 64 (one cache line)", n)
	}
	if n := unsafe.Sizeof(okCell{}); n != 64 {
		t.Errorf("okCell is %d bytes, want 64 (one cache line)", n)
	}
	if n := unsafe.Offsetof(generation{}.ok); n != 64 {
		t.Errorf("generation's stripes start at byte %d, want 64 (after one line of header)", n)
	}
}

// TestAlignment checks what TestLayout's sizes are for: the stripes and each
// generation start on cache lines of their own.
func TestAlignment(t *testing.T) {
	for range 8 { // a few breakers and generations, so the allocator places some mid-span
		b, err := New(Config{})
		if err != nil {
			t.Fatal(err)
		}
		b.ForceOpen(time.Unix(0, 0)) // a generation allocated after New's
		if p := uintptr(unsafe.Pointer(b.gen.Load())); p%64 != 0 {
			t.Errorf("generation at %#x, not on a 64-byte boundary", p)
		}
		if p := uintptr(unsafe.Pointer(b.cells)); p%64 != 0 {
			t.Errorf("cells at %#x, not on a 64-byte boundary", p)
		}
	}
}

// TestSinceEpoch checks the breaker's subtraction against nanotime.Sub and
// time.Time.Sub, for epochs with and without a monotonic clock reading, near
// each other and at the extremes. Only whether an instant carries a
// monotonic reading matters here, not what time.Now returned.
func TestSinceEpoch(t *testing.T) {
	t0 := time.Date(2026, 3, 10, 14, 0, 0, 500, time.UTC)
	wall := time.Now()
	mono := wall.Add(0) // keeps the monotonic reading
	instants := []time.Time{
		{}, t0, t0.Add(1800 * time.Millisecond), t0.Add(-time.Nanosecond), t0.In(time.FixedZone("X", 3600)),
		t0.AddDate(250, 0, 0), t0.AddDate(-250, 0, 0), t0.AddDate(300, 0, 0), t0.AddDate(-300, 0, 0),
		time.Unix(math.MaxInt64/2, 999_999_999), time.Unix(-math.MaxInt64/2, 0),
		time.Unix(math.MaxInt64-1e10, 0), time.Unix(math.MinInt64+1e11, 0),
		mono, mono.Add(time.Second), mono.Add(-3 * time.Millisecond), wall.Round(0), wall.Round(0).Add(time.Hour),
		time.Unix(0, math.MaxInt64), time.Unix(0, math.MinInt64),
	}
	for _, epoch := range instants {
		b := &Breaker{epoch: epoch, wall: newWallEpoch(epoch)}
		for _, now := range instants {
			got := b.sinceEpoch(now)
			if want := nanotime.Sub(now, epoch); got != want || got != now.Sub(epoch) {
				t.Errorf("sinceEpoch(%v) from %v = %v; nanotime.Sub says %v, time.Time.Sub %v", now, epoch, got, want, now.Sub(epoch))
			}
		}
	}
}
