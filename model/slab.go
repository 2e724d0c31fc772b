package model

import "time"

// ref packs a slab index and its generation into an event id, so that an event for an
// object that has since been freed and reused is recognised as stale.
func ref(idx int32, gen uint32) int64 { return int64(gen)<<32 | int64(uint32(idx)) }

func unref(id int64) (int32, uint32) { return int32(uint32(id)), uint32(id >> 32) }

// cause is why an attempt or a call ended without success.
type cause uint8

const (
	causeNone     cause = iota // success
	causeTimeout               // the caller's timeout fired
	causeError                 // the callee answered with an error
	causeOverload              // the callee refused the work (queue full, dropped from a queue)
	causeExpired               // the deadline passed or left too little time
)

// Logical-request states.
const (
	lgActive     uint8 = iota // the entry is still working on it
	lgClientDone              // the caller has its answer (or gave up); work may still run
	lgRecorded                // its terminal state is recorded
	lgFreed                   // the slab entry is free
)

// logical is one logical request, alive from its arrival until its terminal state is
// recorded and no attempt or call of it is left. Timers are never cancelled: an event that
// fires for an object whose generation or state has moved on is ignored.
type logical struct {
	id       int64
	t0       time.Duration // intended send time; the deadline is t0 + the class's
	giveUpAt time.Duration
	gen      uint32
	attempts int32
	cur      int32 // attempt the entry is waiting for, -1 if none
	live     int32 // attempts and calls of it not yet freed
	// queueDelUs is the last attempt's queueing and connection wait, in microseconds.
	queueDelUs int32
	class      int16
	entry      int16
	state      uint8
	mutated    bool
	admitted   bool
	cause      cause
	execs      [numMut]uint8 // mutations applied for this identity, by kind
	recorded   [numMut]bool  // the first execution is written in the dependency's ledger
	attIn      bool          // the record's own attempt is in use
	callIn     bool          // the record's own call is in use
}

// Attempt states.
const (
	attQueued uint8 = iota
	attRunning
	attDone
)

// attempt is one try the entry sends to a service instance.
type attempt struct {
	enq       time.Duration
	enqWait   time.Duration
	connWait  time.Duration
	gen       uint32
	lg        int32
	num       int32 // attempt number at the entry, from 1
	inst      int32
	stage     int32
	tries     int32  // tries of the current dependency stage, from 0
	call      int32  // the call in flight, -1 if none
	tpos      uint32 // its entry timeout's token for kill (see after), 0 if none
	state     uint8
	abandoned bool // the entry stopped waiting for it; it runs on (baseline) as an orphan
	cancelled bool // cancellation reached it while queued; discard when dequeued
	result    cause
}

// Call states.
const (
	callWaitConn uint8 = iota
	callWaitServer
	callServing
	callDone
)

// call is one try of a dependency call.
type call struct {
	asked      time.Duration
	connAt     time.Duration
	gen        uint32
	lg         int32
	att        int32
	attGen     uint32
	dep        int32
	inst       int32
	stage      int32
	try        int32
	num        int32
	tpos       uint32 // its timeout's token for kill (see after), 0 if none
	state      uint8
	mutation   uint8 // the mutation its stage applies, mutNone if none
	callerGone bool  // the calling attempt stopped waiting for it
	err        bool
	hung       bool // the dependency will never answer it (hang.go)
}

// ring is a FIFO of refs that grows by doubling.
type ring struct {
	buf     []int64
	head, n int
}

func (r *ring) push(x int64) {
	if r.n == len(r.buf) {
		size := max(2*len(r.buf), 16)
		buf := make([]int64, size)
		for i := range r.n {
			buf[i] = r.buf[(r.head+i)%len(r.buf)]
		}
		r.buf, r.head = buf, 0
	}
	r.buf[(r.head+r.n)%len(r.buf)] = x
	r.n++
}

// peek returns the oldest ref without removing it.
func (r *ring) peek() (int64, bool) {
	if r.n == 0 {
		return 0, false
	}
	return r.buf[r.head], true
}

func (r *ring) pop() (int64, bool) {
	if r.n == 0 {
		return 0, false
	}
	x := r.buf[r.head]
	r.head++
	if r.head == len(r.buf) {
		r.head = 0
	}
	r.n--
	return x, true
}

// chunk is the number of objects per slab chunk. Chunks never move, so a pointer to an
// object stays valid while the slab grows.
const chunkBits = 12
const chunk = 1 << chunkBits

// store is a chunked slab of T with a stack of free indices. Chunks are arrays that never
// move, so a pointer to an object stays valid while the slab grows, and finding an object
// costs one bounds check.
type store[T any] struct {
	chunks []*[chunk]T
	n      int32
	free   []int32
}

func (s *store[T]) at(i int32) *T { return &s.chunks[i>>chunkBits][i&(chunk-1)] }

// take returns the index of a free object, growing the slab if none is free.
func (s *store[T]) take() int32 {
	if k := len(s.free); k > 0 {
		i := s.free[k-1]
		s.free = s.free[:k-1]
		return i
	}
	if int(s.n)>>chunkBits == len(s.chunks) {
		s.chunks = append(s.chunks, new([chunk]T))
	}
	s.n++
	return s.n - 1
}

// put returns object i to the free objects.
func (s *store[T]) put(i int32) { s.free = append(s.free, i) }

// inline marks an attempt or call index that names the object kept in a request's own
// record (index inline + the request's index) rather than one in the overflow slabs.
const inline = 1 << 30

// record is a logical request with room for one attempt and one call of its own. Most
// requests never have more than one of each in flight at a time, so the objects an event
// touches are usually in one record, three adjacent cache lines whose addresses follow from
// any one index, instead of three lines found one after another. A retry that overlaps an
// orphan, or a call while an earlier one of the request runs on, takes an overflow object.
type record struct {
	lg  logical
	att attempt
	c   call
}

// slabs hold the model's per-request objects with free lists, so the hot path
// allocates only when the number in flight reaches a new high.
type slabs struct {
	recs              store[record]
	atts              store[attempt]
	calls             store[call]
	lgLive            int
	attLive, callLive int
}

func (s *slabs) lg(i int32) *logical { return &s.recs.at(i).lg }

func (s *slabs) att(i int32) *attempt {
	if i >= inline {
		return &s.recs.at(i - inline).att
	}
	return s.atts.at(i)
}

func (s *slabs) call(i int32) *call {
	if i >= inline {
		return &s.recs.at(i - inline).c
	}
	return s.calls.at(i)
}

// attRec returns attempt i and the record of its request: one lookup for a record's own
// attempt.
func (s *slabs) attRec(i int32) (*attempt, *record) {
	if i >= inline {
		r := s.recs.at(i - inline)
		return &r.att, r
	}
	o := s.atts.at(i)
	return o, s.recs.at(o.lg)
}

// callRec returns call i and the record of its request: one lookup for a record's own call.
func (s *slabs) callRec(i int32) (*call, *record) {
	if i >= inline {
		r := s.recs.at(i - inline)
		return &r.c, r
	}
	o := s.calls.at(i)
	return o, s.recs.at(o.lg)
}

// attOf returns attempt i of the request whose record is r. A record's own attempt is
// found without a lookup: an inline index names the record that holds it.
func (s *slabs) attOf(r *record, i int32) *attempt {
	if i >= inline {
		return &r.att
	}
	return s.atts.at(i)
}

func (s *slabs) newLogical() (int32, *logical) {
	s.lgLive++
	i := s.recs.take()
	o := &s.recs.at(i).lg
	*o = logical{gen: o.gen + 1, cur: -1}
	return i, o
}

// freeLogical frees logical i, which is o.
func (s *slabs) freeLogical(i int32, o *logical) {
	s.lgLive--
	o.gen++
	o.state = lgFreed
	s.recs.put(i)
}

// newAttempt returns a new attempt of logical li: the record's own if it is free.
func (s *slabs) newAttempt(li int32) (int32, *attempt) {
	s.attLive++
	var i int32
	var o *attempt
	if r := s.recs.at(li); !r.lg.attIn {
		r.lg.attIn = true
		i, o = inline+li, &r.att
	} else {
		i = s.atts.take()
		o = s.atts.at(i)
	}
	*o = attempt{gen: o.gen + 1, call: -1}
	return i, o
}

// freeAttempt frees attempt i, which is o, of request lg.
func (s *slabs) freeAttempt(i int32, o *attempt, lg *logical) {
	s.attLive--
	o.gen++
	if i >= inline {
		lg.attIn = false // the record's own attempt: lg's record holds it
		return
	}
	s.atts.put(i)
}

// newCall returns a new call of logical li: the record's own if it is free.
func (s *slabs) newCall(li int32) (int32, *call) {
	s.callLive++
	var i int32
	var o *call
	if r := s.recs.at(li); !r.lg.callIn {
		r.lg.callIn = true
		i, o = inline+li, &r.c
	} else {
		i = s.calls.take()
		o = s.calls.at(i)
	}
	*o = call{gen: o.gen + 1}
	return i, o
}

// freeCall frees call i, which is o, of request lg.
func (s *slabs) freeCall(i int32, o *call, lg *logical) {
	s.callLive--
	o.gen++
	if i >= inline {
		lg.callIn = false // the record's own call: lg's record holds it
		return
	}
	s.calls.put(i)
}

// eachLive calls lg for every live request (with its record's index), att for every live
// attempt and call for every live call, each with its index as the model names it (a
// record's own objects by inline + the record's index). A scan of the slabs: for kills and
// tests, not for the hot path. Any of the functions may be nil.
func (s *slabs) eachLive(lg func(i int32, o *logical), att func(i int32, o *attempt), call func(i int32, o *call)) {
	for i := int32(0); i < s.recs.n; i++ {
		r := s.recs.at(i)
		if r.lg.state == lgFreed {
			continue
		}
		if lg != nil {
			lg(i, &r.lg)
		}
		if r.lg.attIn && att != nil {
			att(inline+i, &r.att)
		}
		if r.lg.callIn && call != nil {
			call(inline+i, &r.c)
		}
	}
	if att != nil {
		free := freeSet(s.atts.n, s.atts.free)
		for i := int32(0); i < s.atts.n; i++ {
			if !free[i] {
				att(i, s.atts.at(i))
			}
		}
	}
	if call != nil {
		free := freeSet(s.calls.n, s.calls.free)
		for i := int32(0); i < s.calls.n; i++ {
			if !free[i] {
				call(i, s.calls.at(i))
			}
		}
	}
}

// freeSet marks the free indexes of a store of n objects.
func freeSet(n int32, free []int32) []bool {
	set := make([]bool, n)
	for _, i := range free {
		set[i] = true
	}
	return set
}
