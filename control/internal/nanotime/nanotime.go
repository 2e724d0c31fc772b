package nanotime

import "time"

// limit bounds the seconds from the base so that seconds × 1e9 stays within int64.
const limit = 285 * 365 * 24 * 3600

// Clock maps instants to nanoseconds since the first instant it was given. The zero value is
// ready to use. Instants more than 285 years from the first saturate. It is not safe for
// concurrent use; callers hold their own lock.
type Clock struct {
	base int64 // Unix seconds of the first instant
	set  bool
}

// Nanos returns t as nanoseconds since the clock's base (the first instant it saw).
func (c *Clock) Nanos(t time.Time) int64 {
	sec := t.Unix()
	if !c.set {
		c.base, c.set = sec, true
	}
	d := max(min(sec-c.base, limit), -limit)
	return d*1e9 + int64(t.Nanosecond())
}
