package stripe

import "testing"

// TestSpread checks that goroutines running at once mostly get different stripes, which
// is what keeps their writes off each other's cache lines.
func TestSpread(t *testing.T) {
	const n = 64
	got := make(chan int, n)
	for range n {
		go func() { got <- Of() }()
	}
	seen := map[int]int{}
	for range n {
		s := <-got
		if s < 0 || s >= N {
			t.Fatalf("stripe %d out of [0, %d)", s, N)
		}
		seen[s]++
	}
	if len(seen) < N/2 {
		t.Errorf("%d goroutines used only %d of %d stripes: %v", n, len(seen), N, seen)
	}
}
