// Package prefetch asks the processor to start loading memory that the program will read
// soon, so that the load overlaps other work instead of stalling it.
//
// A prefetch is only a hint: it never faults, never changes what the program computes, and
// costs a call and one instruction per cache line. Use it where the next object to be read
// is known well ahead and is likely out of cache: the next item of a long FIFO, the next
// timer of a queue of timeouts. [Object] is the usual entry point:
//
//	next := waiters.Peek()
//	prefetch.Object(&calls[next]) // read when its turn comes, a few microseconds on
//
// On amd64 it is PREFETCHT0, on arm64 PRFM PLDL1KEEP; elsewhere it does nothing.
package prefetch

import "unsafe"

// Object hints that *p will be read soon: it prefetches every cache line of it.
func Object[T any](p *T) { Span(unsafe.Pointer(p), unsafe.Sizeof(*p)) }
