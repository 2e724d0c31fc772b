// Package clocktest makes instants whose wall clock reading has been stepped while their
// monotonic reading has not, as an NTP step or an operator's date command leaves them, so
// that tests can show the controls measure durations on the monotonic clock.
package clocktest

import (
	"time"
	"unsafe"
)

// layout mirrors time.Time's fields (wall, ext, loc) as the Go runtime lays them out: with
// the monotonic bit set in wall, ext is the monotonic reading.
type layout struct {
	wall uint64
	ext  int64
	loc  *time.Location
}

const hasMonotonic = 1 << 63

// WallStep returns t with its wall clock reading moved by d and its monotonic reading
// unchanged: t.Sub(WallStep(t, d)) is zero, WallStep(t, d).Round(0) is t.Round(0).Add(d).
// ok is false when t carries no monotonic reading (take it from time.Now) or when the
// runtime's layout of time.Time is not the one this package knows; a test then skips.
func WallStep(t time.Time, d time.Duration) (time.Time, bool) {
	u := t.Add(d)
	lt, lu := (*layout)(unsafe.Pointer(&t)), (*layout)(unsafe.Pointer(&u))
	if lt.wall&hasMonotonic == 0 || lu.wall&hasMonotonic == 0 {
		return time.Time{}, false
	}
	lu.ext = lt.ext
	if t.Sub(u) != 0 || !u.Round(0).Equal(t.Round(0).Add(d)) {
		return time.Time{}, false
	}
	return u, true
}
