package sim

import (
	"math/bits"
	"slices"
	"time"
)

// The pending-event queue is a timing wheel that keeps exact (time, seq) order. Time is cut
// into buckets of 2^bucketShift ns (about 65 µs); the wheel holds the 2^wheelBits buckets
// (about 2.1 s) from the current one on, each a singly linked list threaded through the
// events' slots, with a two-level bitmap of the non-empty buckets. Events further ahead
// wait in an overflow heap. The current bucket's events (and any event scheduled at or
// before it) sit sorted in the run, and are popped from there; when the run is empty the
// next non-empty bucket, of the wheel or of the overflow, is moved into it and sorted, once
// the engine runs to a time in or after that bucket.
//
// A push is a few instructions and touches the event's slot and one word of bucket heads;
// an event moves once, into the run, where the radix heap this replaced moved it about ten
// times (docs/benchmarks.md). A bucket holds a handful of events on the Northstar replay,
// so sorting it is cheap.
const (
	bucketShift = 16
	wheelBits   = 15
	wheelSize   = 1 << wheelBits
	wheelMask   = wheelSize - 1
)

// wheel is that queue. The zero value is empty and ready; the bucket heads are allocated
// on the first push into the wheel.
type wheel struct {
	cur   int64 // absolute bucket of the run: every key in the wheel is in (cur, cur+wheelSize)
	run   []key // keys of buckets ≤ cur, sorted: run[head:]
	head  int
	heads []uint32               // per wheel bucket: first slot + 1 of its list, 0 if empty
	occ   [wheelSize / 64]uint64 // bit b: bucket b is not empty
	sum   [wheelSize / 64 / 64]uint64
	over  []key // overflow: a binary min-heap of keys at or after cur+wheelSize
	n     int
	order []key // scratch for renumber
}

func (q *wheel) len() int { return q.n }

// push adds k; slots is the engine's slot table, through which the buckets are threaded.
func (q *wheel) push(k key, slots []slot) {
	q.n++
	b := int64(k.at) >> bucketShift
	switch d := b - q.cur; {
	case d <= 0:
		q.insertRun(k)
	case d < wheelSize:
		i := uint32(k.ord)
		w := uint32(b) & wheelMask
		if q.heads == nil {
			q.heads = make([]uint32, wheelSize)
		}
		slots[i].next = q.heads[w]
		slots[i].at, slots[i].seq = k.at, uint32(k.ord>>32)
		q.heads[w] = i + 1
		q.occ[w/64] |= 1 << (w % 64)
		q.sum[w/4096] |= 1 << (w / 64 % 64)
	default:
		q.over = append(q.over, k)
		q.up(len(q.over) - 1)
	}
}

// insertRun puts k in its place in the run. A key scheduled into the current bucket is
// usually the latest there, so the search starts from the end.
func (q *wheel) insertRun(k key) {
	j := len(q.run)
	q.run = append(q.run, k)
	for j > q.head && k.less(q.run[j-1]) {
		q.run[j] = q.run[j-1]
		j--
	}
	q.run[j] = k
}

// popUntil removes and returns the least key if its time is at or before until.
func (q *wheel) popUntil(until time.Duration, slots []slot) (key, bool) {
	if q.head == len(q.run) && !q.advance(until, slots) {
		return key{}, false
	}
	k := q.run[q.head]
	if k.at > until {
		return key{}, false
	}
	q.head++
	if q.head == len(q.run) {
		q.run = q.run[:0]
		q.head = 0
	}
	q.n--
	return k, true
}

// advance moves the next non-empty bucket into the empty run, if it begins at or before
// until. It reports false if it did not: no event is pending, or none is due by until. So the
// run's bucket never starts after the clock's next stop, and the events scheduled after a
// stop (at or after it) are never earlier than the run's bucket; they land in the wheel or
// at the run's end, not in front of a run of later events.
func (q *wheel) advance(until time.Duration, slots []slot) bool {
	next, inWheel := int64(0), false
	if w := q.nextBucket(uint32(q.cur+1) & wheelMask); w >= 0 {
		next, inWheel = q.cur+int64((uint32(w)-uint32(q.cur))&wheelMask), true
	}
	if len(q.over) > 0 {
		b := int64(q.over[0].at) >> bucketShift
		if !inWheel || b < next {
			next, inWheel = b, false
		}
		if next > int64(until)>>bucketShift {
			return false
		}
		if b == next {
			q.drainOverflow(b)
		}
		if !inWheel {
			q.cur = next
			return true // the overflow heap gives its keys in order
		}
	} else if !inWheel || next > int64(until)>>bucketShift {
		return false
	}
	q.cur = next
	w := uint32(next) & wheelMask
	for i := q.heads[w]; i != 0; {
		s := &slots[i-1]
		q.run = append(q.run, key{at: s.at, ord: uint64(s.seq)<<32 | uint64(i-1)})
		i = s.next
	}
	q.heads[w] = 0
	if q.occ[w/64] &^= 1 << (w % 64); q.occ[w/64] == 0 {
		q.sum[w/4096] &^= 1 << (w / 64 % 64)
	}
	if len(q.run) > 1 {
		sortKeys(q.run)
	}
	return true
}

// nextBucket returns the first non-empty wheel bucket at or after from, going round, or -1.
func (q *wheel) nextBucket(from uint32) int {
	if w := q.nextFrom(from); w >= 0 {
		return w
	}
	return q.nextFrom(0)
}

// nextFrom returns the first non-empty wheel bucket in [from, wheelSize), or -1.
func (q *wheel) nextFrom(from uint32) int {
	wi := from / 64
	if m := q.occ[wi] & (^uint64(0) << (from % 64)); m != 0 {
		return int(wi*64) + bits.TrailingZeros64(m)
	}
	wi++
	for si := wi / 64; si < uint32(len(q.sum)); si++ {
		m := q.sum[si]
		if si == wi/64 {
			m &= ^uint64(0) << (wi % 64)
		}
		if m != 0 {
			w := si*64 + uint32(bits.TrailingZeros64(m))
			return int(w*64) + bits.TrailingZeros64(q.occ[w])
		}
	}
	return -1
}

// drainOverflow appends the overflow keys of bucket b to the run, in order.
func (q *wheel) drainOverflow(b int64) {
	for len(q.over) > 0 && int64(q.over[0].at)>>bucketShift == b {
		q.run = append(q.run, q.over[0])
		last := len(q.over) - 1
		q.over[0] = q.over[last]
		q.over = q.over[:last]
		q.down(0)
	}
}

func (q *wheel) up(j int) {
	h := q.over
	for j > 0 {
		p := (j - 1) / 2
		if !h[j].less(h[p]) {
			break
		}
		h[j], h[p] = h[p], h[j]
		j = p
	}
}

func (q *wheel) down(j int) {
	h := q.over
	for {
		c := 2*j + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1].less(h[c]) {
			c++
		}
		if !h[c].less(h[j]) {
			return
		}
		h[j], h[c] = h[c], h[j]
		j = c
	}
}

// sortKeys sorts a bucket's keys by (time, seq): insertion sort for the usual handful.
func sortKeys(ks []key) {
	if len(ks) > 24 {
		slices.SortFunc(ks, func(a, b key) int {
			if a.less(b) {
				return -1
			}
			return 1
		})
		return
	}
	for i := 1; i < len(ks); i++ {
		k := ks[i]
		j := i
		for j > 0 && k.less(ks[j-1]) {
			ks[j] = ks[j-1]
			j--
		}
		ks[j] = k
	}
}

// each calls f for every pending key, in no particular order, and lets it rewrite the key's
// order (not its time).
func (q *wheel) each(slots []slot, f func(k *key)) {
	for j := q.head; j < len(q.run); j++ {
		f(&q.run[j])
	}
	for j := range q.over {
		f(&q.over[j])
	}
	for _, h := range q.heads {
		for i := h; i != 0; {
			s := &slots[i-1]
			k := key{at: s.at, ord: uint64(s.seq)<<32 | uint64(i-1)}
			f(&k)
			s.seq = uint32(k.ord >> 32)
			i = s.next
		}
	}
}
