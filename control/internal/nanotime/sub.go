package nanotime

import "time"

// subLimit bounds the Unix seconds for which Sub takes its fast path, so that neither the
// difference of two such seconds nor that difference times 1e9 overflows int64.
const (
	unixLimit = 1 << 62
	subLimit  = 9_000_000_000 // seconds; × 1e9 plus a second stays below MaxInt64
)

// Sub returns t.Sub(u), exactly, without the round trip through Add and Equal by which
// time.Time.Sub checks for overflow when the instants carry no monotonic clock reading
// (instants built with time.Date or time.Unix, as a simulator's are). Instants that both carry
// one, and differences out of range, go to t.Sub(u) itself.
func Sub(t, u time.Time) time.Duration {
	ts, us := t.Unix(), u.Unix()
	if ts > -unixLimit && ts < unixLimit && us > -unixLimit && us < unixLimit {
		if s := ts - us; s > -subLimit && s < subLimit && !(mono(t) && mono(u)) {
			return time.Duration(s)*time.Second + time.Duration(t.Nanosecond()-u.Nanosecond())
		}
	}
	return t.Sub(u)
}

// mono reports whether t carries a monotonic clock reading: UTC and Round(0) strip it. A UTC
// instant that UTC leaves unchanged has none, which spares the call to Round.
func mono(t time.Time) bool { return t.UTC() != t && t.Round(0) != t }
