package sim

import (
	"math/bits"
	"slices"
	"time"
)

// radix is the pending-event queue: a radix heap (Ahuja, Mehlhorn, Orlin and Tarjan, 1990)
// on event time. It relies on the engine's clock never going back: every key pushed is at
// or after the last key popped (last). Bucket i > 0 holds the keys whose time differs from
// last first in bit i-1 (bits.Len64(at ^ last) == i), so every key of a lower bucket is
// earlier than every key of a higher one. Bucket 0 holds the keys at exactly last, in
// scheduling order.
//
// A push is an append. A pop takes the head of bucket 0; when bucket 0 is empty it scans the
// lowest non-empty bucket for its least key, makes that time last and redistributes the
// bucket, each key to a strictly lower bucket, so a key moves at most 64 times in its life
// (about ten on the Northstar replay). On the engine's floor it measured faster than the
// 4-ary heap it replaced; on the Northstar replay the two cost about the same
// (docs/benchmarks.md). Buckets keep their capacity, so the queue's memory follows the most
// events each bucket has held.
type radix struct {
	last  time.Duration
	b     [65][]key
	head  int    // bucket 0 is b[0][head:]
	full  uint64 // bit i set: bucket i (i ≥ 1) is not empty
	n     int
	order []key // scratch for renumber
}

func (q *radix) len() int { return q.n }

func (q *radix) push(k key) {
	i := bits.Len64(uint64(k.at ^ q.last))
	q.b[i] = append(q.b[i], k)
	q.full |= 1 << i
	q.n++
}

// popUntil removes and returns the least key if its time is at or before until.
func (q *radix) popUntil(until time.Duration) (key, bool) {
	if q.head == len(q.b[0]) {
		if !q.refill(until) {
			return key{}, false
		}
	} else if q.last > until {
		return key{}, false
	}
	k := q.b[0][q.head]
	q.head++
	if q.head == len(q.b[0]) {
		q.b[0] = q.b[0][:0]
		q.head = 0
		q.full &^= 1
	}
	q.n--
	return k, true
}

// refill moves the earliest keys into the empty bucket 0 if they are due by until.
func (q *radix) refill(until time.Duration) bool {
	full := q.full &^ 1
	if full == 0 {
		return false
	}
	i := bits.TrailingZeros64(full)
	src := q.b[i]
	least := src[0].at
	for _, k := range src[1:] {
		least = min(least, k.at)
	}
	if least > until {
		return false
	}
	q.last = least
	var to uint64
	for _, k := range src {
		j := bits.Len64(uint64(k.at ^ least))
		b := &q.b[j]
		*b = append(*b, k)
		to |= 1 << j
	}
	q.b[i] = src[:0]
	q.full = q.full&^(1<<i) | to
	if z := q.b[0]; len(z) > 1 {
		// Keys at one instant from one bucket come in bucket order; deliver them in
		// scheduling order (rarely more than one).
		slices.SortFunc(z, func(a, b key) int {
			if a.ord < b.ord {
				return -1
			}
			return 1
		})
	}
	return true
}

// each calls f for every pending key, in no particular order, and lets it rewrite the key's
// order (not its time).
func (q *radix) each(f func(k *key)) {
	for i := range q.b {
		from := 0
		if i == 0 {
			from = q.head
		}
		for j := from; j < len(q.b[i]); j++ {
			f(&q.b[i][j])
		}
	}
}
