package packet

import (
	"testing"
	"time"
)

// BenchmarkRecorder records one logical request the way the model does: offered, admitted,
// three attempts, a queue wait, a dependency call and the terminal state.
func BenchmarkRecorder(b *testing.B) {
	r := NewRecorder(Config{
		Classes:      []string{"new_checkout", "payment_continuation", "status_lookup"},
		Layers:       []string{"edge", "checkout", "payment-risk", "payment", "order-store"},
		Dependencies: []string{"payment-risk", "payment", "order-store"},
		Duration:     40 * time.Minute,
	})
	at := time.Duration(0)
	b.ReportAllocs()
	for b.Loop() {
		at += 111 * time.Microsecond // 9,000/s
		if at >= 40*time.Minute {
			at = 0
		}
		r.Offered(at, "payment_continuation")
		r.Admitted(at, "payment_continuation")
		r.Attempt(at, "edge")
		r.Attempt(at, "checkout")
		r.QueueWait(at, "payment_continuation", 2*time.Millisecond)
		r.Attempt(at, "payment-risk")
		r.DependencyCall(at, "payment-risk", time.Millisecond, 38*time.Millisecond)
		r.Terminal(at+300*time.Millisecond, "payment_continuation", Goodput, 300*time.Millisecond)
	}
}
