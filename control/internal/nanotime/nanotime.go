package nanotime

import "time"

// limit bounds the nanoseconds from the base, so that sums of a few such readings and
// durations stay within int64.
const limit = 285 * 365 * 24 * 3600 * int64(time.Second)

// Clock maps instants to nanoseconds since its base, the whole second of the first instant
// it was given, measured as t.Sub(base): on the monotonic clock when both instants carry a
// monotonic reading (those of time.Now), so a step of the wall clock changes nothing. The
// zero value is ready to use. Instants more than 285 years from the base saturate. It is
// not safe for concurrent use; callers hold their own lock.
type Clock struct {
	base Epoch // the first instant less its nanoseconds
	set  bool
}

// Nanos returns t as nanoseconds since the clock's base (the whole second of the first
// instant it saw).
func (c *Clock) Nanos(t time.Time) int64 {
	if !c.set {
		c.base, c.set = NewEpoch(t.Add(-time.Duration(t.Nanosecond()))), true
	}
	return max(min(int64(c.base.Since(t)), limit), -limit)
}
