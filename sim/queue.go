package sim

import (
	"math/bits"
	"time"
)

// The pending events are kept in a calendar queue: buckets of about a millisecond
// (calShift) over a window of about a second (calBuckets), the events of the current
// bucket in a small heap (near), and events beyond the window in a second heap (far).
// Scheduling into a future bucket is an append; only the few events of the current
// bucket are ever sifted, so a pop costs a handful of comparisons however many events
// are pending. Events pop in exactly (time, seq) order: the buckets only decide which
// events reach the near heap when, never their order.
const (
	calShift   = 20 // bucket width 2^20 ns ≈ 1.05 ms
	calBuckets = 1024
	calMask    = calBuckets - 1
)

type calendar struct {
	cur       int64 // bucket number of near's events: near holds every event of bucket ≤ cur
	near      heap4
	buckets   [calBuckets][]key // bucket b (cur < b < cur+calBuckets) at b&calMask
	inBuckets int
	far       heap4 // events of buckets ≥ cur+calBuckets when scheduled
	n         int
}

func bucketOf(at time.Duration) int64 { return int64(at) >> calShift }

func (c *calendar) len() int { return c.n }

// push adds k.
func (c *calendar) push(k key) {
	c.n++
	switch b := bucketOf(k.at); {
	case b <= c.cur:
		c.near.push(k)
	case b < c.cur+calBuckets:
		c.buckets[b&calMask] = append(c.buckets[b&calMask], k)
		c.inBuckets++
	default:
		c.far.push(k)
	}
}

// min returns the least key; c.len() > 0.
func (c *calendar) min() key {
	if len(c.near) == 0 {
		c.advance()
	}
	return c.near[0]
}

// pop removes and returns the least key; c.len() > 0.
func (c *calendar) pop() key {
	if len(c.near) == 0 {
		c.advance()
	}
	c.n--
	return c.near.pop()
}

// advance moves cur on to the next bucket that holds an event and loads that bucket, and
// the far events that have come into it, into near. near is empty and c.n > 0.
func (c *calendar) advance() {
	for len(c.near) == 0 {
		if c.inBuckets == 0 {
			// Nothing in the window: jump to the first far event's bucket.
			c.cur = max(c.cur+1, bucketOf(c.far[0].at))
		} else {
			c.cur++
		}
		if b := &c.buckets[c.cur&calMask]; len(*b) > 0 {
			c.inBuckets -= len(*b)
			c.near = append(c.near, *b...)
			*b = (*b)[:0]
			c.near.init()
		}
		for len(c.far) > 0 && bucketOf(c.far[0].at) <= c.cur {
			c.near.push(c.far.pop())
		}
	}
}

// each calls f on every pending key, in no particular order, and lets it rewrite the
// key's ord. f must keep the relative order of every pair, so that the heaps stay heaps.
func (c *calendar) each(f func(*key)) {
	for i := range c.near {
		f(&c.near[i])
	}
	for i := range c.far {
		f(&c.far[i])
	}
	for b := range c.buckets {
		for i := range c.buckets[b] {
			f(&c.buckets[b][i])
		}
	}
}

// heap4 is a 4-ary min-heap of keys: node i's children are 4i+1 … 4i+4, four to a cache
// line, and a sift moves a hole instead of swapping.
type heap4 []key

func (h *heap4) push(k key) {
	*h = append(*h, k)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) >> 2
		if !k.less(s[p]) {
			break
		}
		s[i] = s[p]
		i = p
	}
	s[i] = k
}

func (h *heap4) pop() key {
	s := *h
	top := s[0]
	n := len(s) - 1
	last := s[n]
	s = s[:n]
	*h = s
	if n > 0 {
		s.down(0, last)
	}
	return top
}

// down places k at the hole i, moving it down past smaller children.
func (s heap4) down(i int, k key) {
	n := len(s)
	for {
		c := 4*i + 1
		if c+3 < n {
			// A full node: pick the least of four children without branches, which the
			// random order of event times would mispredict.
			a := c + int(lessMask(s[c+1], s[c])&1)
			b := c + 2 + int(lessMask(s[c+3], s[c+2])&1)
			m := a ^ ((a ^ b) & int(lessMask(s[b], s[a])))
			if !s[m].less(k) {
				break
			}
			s[i] = s[m]
			i = m
			continue
		}
		if c >= n {
			break
		}
		m := c
		for j := c + 1; j < n; j++ {
			if s[j].less(s[m]) {
				m = j
			}
		}
		if s[m].less(k) {
			s[i] = s[m]
			i = m
		}
		break
	}
	s[i] = k
}

// init establishes the heap order over unordered keys.
func (s heap4) init() {
	for i := (len(s) - 2) >> 2; i >= 0; i-- {
		s.down(i, s[i])
	}
}

// lessMask is all ones if a orders before b and zero otherwise, computed as the borrow of
// the 128-bit subtraction (at, ord) − (at, ord); at is never negative.
func lessMask(a, b key) uint64 {
	_, borrow := bits.Sub64(a.ord, b.ord, 0)
	_, borrow = bits.Sub64(uint64(a.at), uint64(b.at), borrow)
	return -borrow
}
