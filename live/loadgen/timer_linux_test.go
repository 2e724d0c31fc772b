//go:build linux

package loadgen

import (
	"testing"
	"time"
)

// The timerfd sleep waits at least what it is asked (never less: the pacer would send
// early), and returns at once for nothing.
func TestFDTimer(t *testing.T) {
	tm, err := newPacerTimer()
	if err != nil {
		t.Fatal(err)
	}
	defer tm.Close()
	for _, d := range []time.Duration{0, -time.Millisecond, 300 * time.Microsecond, 2 * time.Millisecond} {
		t0 := time.Now()
		tm.Sleep(d)
		if got := time.Since(t0); got < d {
			t.Errorf("Sleep(%s) returned after %s", d, got)
		}
	}
}
