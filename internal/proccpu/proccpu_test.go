package proccpu

import (
	"runtime"
	"testing"
)

// TestSelfGrows: CPU spent between two readings shows in the second.
func TestSelfGrows(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no process CPU reading on " + runtime.GOOS)
	}
	a := Self()
	x := 0
	for i := range 50_000_000 {
		x ^= i * i
	}
	b := Self()
	if b <= a {
		t.Errorf("CPU time %v then %v after a busy loop (%d); want it to grow", a, b, x)
	}
}
