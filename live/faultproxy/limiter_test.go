package faultproxy

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
)

// Under many goroutines taking and giving back slots, some giving up while they wait, the
// ceiling is never exceeded and nothing is left held or queued.
func TestLimiterStress(t *testing.T) {
	const limit, workers, rounds = 3, 32, 300
	var l limiter
	var inside, most atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				ctx, cancel := context.WithCancel(context.Background())
				if (w+i)%7 == 0 {
					cancel() // this one gives up at once, or takes a free slot
				}
				if l.acquire(ctx, limit, false) == acquired {
					n := inside.Add(1)
					for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
					}
					inside.Add(-1)
					l.release(limit)
				}
				cancel()
			}
		}()
	}
	wg.Wait()
	if m := most.Load(); m > limit {
		t.Errorf("%d calls in service at once; the ceiling is %d", m, limit)
	}
	if busy, waiting := l.counts(); busy != 0 || waiting != 0 {
		t.Errorf("left %d in service and %d waiting", busy, waiting)
	}
}

// A call that gives up is skipped when its turn comes, and the queue of given-up calls is
// compacted while no slot frees.
func TestLimiterGiveUpCompacts(t *testing.T) {
	var l limiter
	if l.acquire(context.Background(), 1, false) != acquired {
		t.Fatal("the first call did not get the free slot")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for range 5000 {
		if got := l.acquire(ctx, 1, false); got != gaveUp {
			t.Fatalf("a call whose caller has gone: %v", got)
		}
	}
	l.mu.Lock()
	n := len(l.queue) - l.head
	l.mu.Unlock()
	if n > 2048 {
		t.Errorf("%d given-up calls still queued", n)
	}
	if l.acquire(context.Background(), 1, true) != overCeiling {
		t.Error("under reject a call over the ceiling was not rejected")
	}
	l.release(1)
	if busy, waiting := l.counts(); busy != 0 || waiting != 0 {
		t.Errorf("left %d in service and %d waiting", busy, waiting)
	}
}
