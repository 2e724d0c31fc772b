//go:build !amd64 && !arm64

package prefetch

import "unsafe"

// Span hints that the n bytes from p will be read soon. On this architecture it does
// nothing.
func Span(p unsafe.Pointer, n uintptr) {}
