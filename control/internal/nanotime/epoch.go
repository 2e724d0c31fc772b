package nanotime

import "time"

// Epoch is a base instant that instants are measured from, as t.Sub(base) measures them (on
// the monotonic clock when both carry a reading), at less cost than Sub: whether the base
// carries a monotonic reading is decided once, in NewEpoch.
type Epoch struct {
	base      time.Time
	sec, nsec int64 // base.Unix(), base.Nanosecond()
	wall      bool  // base carries no monotonic reading and sec is in Sub's fast range
}

// NewEpoch returns the epoch of base.
func NewEpoch(base time.Time) Epoch {
	sec := base.Unix()
	return Epoch{
		base: base,
		sec:  sec,
		nsec: int64(base.Nanosecond()),
		wall: base.Round(0) == base && sec > -unixLimit && sec < unixLimit,
	}
}

// Base returns the epoch's base instant.
func (e *Epoch) Base() time.Time { return e.base }

// Since returns t.Sub(base), exactly. With a base that carries no monotonic reading (the
// instants of a simulator) it subtracts wall clocks whatever t carries, as t.Sub does; with
// one, t.Sub subtracts the monotonic readings when t carries one too (an instant of
// time.Now), so a step of the wall clock between the two changes nothing.
func (e *Epoch) Since(t time.Time) time.Duration {
	if e.wall {
		if ts := t.Unix(); ts > -unixLimit && ts < unixLimit {
			if s := ts - e.sec; s > -subLimit && s < subLimit {
				return time.Duration(s)*time.Second + time.Duration(int64(t.Nanosecond())-e.nsec)
			}
		}
		return Sub(t, e.base)
	}
	return t.Sub(e.base)
}
