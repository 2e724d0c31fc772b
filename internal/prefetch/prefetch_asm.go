//go:build amd64 || arm64

package prefetch

import "unsafe"

// Span hints that the n bytes from p will be read soon: it prefetches each cache line of
// the span (at least the line at p) into all cache levels.
//
//go:noescape
func Span(p unsafe.Pointer, n uintptr)
