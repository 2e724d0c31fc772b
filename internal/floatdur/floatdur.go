// Package floatdur converts float64 nanoseconds to a time.Duration the one way goodput does:
// the value is clamped before it is converted, so NaN, ±Inf and values beyond the range of a
// Duration give the same result on every architecture. (Go leaves the conversion of an
// out-of-range float to an integer to the implementation: amd64 gives math.MinInt64, arm64
// saturates.) Call [Trunc] where a conversion truncates, [Round] where it rounds, and
// [InRange] in validation, to refuse an input whose derived duration would be clamped.
package floatdur

import (
	"math"
	"time"
)

// Max and Min are the bounds a conversion saturates to: about ±292 years. Min is −Max rather
// than math.MinInt64, so that negating a clamped Duration never overflows.
const (
	Max = time.Duration(math.MaxInt64)
	Min = -Max
)

// limit is 2⁶³, the first float64 beyond Max; every float64 in (−limit, limit) converts exactly.
const limit = 0x1p63

// Trunc converts ns nanoseconds to a Duration, truncating toward zero as time.Duration(ns)
// does. Values at or beyond ±2⁶³ and ±Inf saturate to Max or Min; NaN is 0.
func Trunc(ns float64) time.Duration {
	if ns < limit && ns > -limit { // false for NaN
		return time.Duration(ns)
	}
	return saturate(ns)
}

// Round converts ns nanoseconds to the nearest Duration (halves away from zero, as
// math.Round), saturating as [Trunc] does.
func Round(ns float64) time.Duration { return Trunc(math.Round(ns)) }

// InRange reports whether ns nanoseconds converts to a Duration without saturating: it is
// finite and strictly inside ±2⁶³.
func InRange(ns float64) bool { return ns < limit && ns > -limit }

// saturate is the Duration of an ns outside (−2⁶³, 2⁶³).
func saturate(ns float64) time.Duration {
	switch {
	case ns > 0:
		return Max
	case ns < 0:
		return Min
	}
	return 0 // NaN
}
