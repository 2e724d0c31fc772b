// Package stripe picks the stripe of a split count that the calling goroutine writes.
//
// A count that every request writes, kept in one word, passes its cache line from core to
// core on every call when goroutines run at once. Split into N stripes on cache lines of
// their own, with readers adding up (or taking the least or greatest of) all stripes, it
// is written mostly by one core per stripe. Which stripe a call writes never changes a
// result, only how often cores contend for a line; [Of] chooses it.
package stripe

import "unsafe"

// N is the number of stripes of a split count; Bits is its log₂.
const (
	Bits = 4
	N    = 1 << Bits
)

// Of returns the stripe the calling goroutine writes, in [0, N): a hash of the address of
// a variable on its stack. Goroutines run on stacks of their own, so goroutines running
// at once mostly get different stripes. A stack may move; the next call then simply
// writes another stripe.
func Of() int {
	var probe byte
	return int(uint64(uintptr(unsafe.Pointer(&probe))>>11) * 0x9e3779b97f4a7c15 >> (64 - Bits))
}
