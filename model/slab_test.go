package model

import "testing"

// TestSlabsInlineThenOverflow checks the record layout: a request's first attempt and call
// are its record's own, a second one in flight at once comes from the overflow slabs, and a
// freed object comes back with a new generation, so that a ref to its earlier life is stale.
func TestSlabsInlineThenOverflow(t *testing.T) {
	var s slabs
	s.newLogical() // another request first, so that this one's index is not the zero value
	li, lg := s.newLogical()

	a1, at1 := s.newAttempt(li)
	if a1 != inline+li || at1 != &s.recs.at(li).att {
		t.Fatalf("first attempt = %d, want the record's own (%d)", a1, inline+li)
	}
	a2, _ := s.newAttempt(li)
	if a2 >= inline {
		t.Fatalf("second attempt in flight = %d, want an overflow index", a2)
	}
	c1, _ := s.newCall(li)
	c2, _ := s.newCall(li)
	if c1 != inline+li || c2 >= inline {
		t.Fatalf("calls = %d, %d, want the record's own then an overflow index", c1, c2)
	}
	if !lg.attIn || !lg.callIn {
		t.Fatalf("record flags attIn=%v callIn=%v, want both set", lg.attIn, lg.callIn)
	}
	// Objects found with their request's record: inline or overflow, the same objects.
	s.att(a2).lg, s.call(c2).lg = li, li // as sendAttempt and startCall set them
	rec := s.recs.at(li)
	for _, ci := range []int32{c1, c2} {
		if o, r := s.callRec(ci); o != s.call(ci) || r != rec {
			t.Fatalf("callRec(%d) = %p, %p; want %p, %p", ci, o, r, s.call(ci), rec)
		}
	}
	for _, ai := range []int32{a1, a2} {
		if o, r := s.attRec(ai); o != s.att(ai) || r != rec || s.attOf(rec, ai) != o {
			t.Fatalf("attRec(%d) = %p, %p, attOf = %p; want %p, %p", ai, o, r, s.attOf(rec, ai), s.att(ai), rec)
		}
	}

	old := ref(a1, at1.gen)
	s.freeAttempt(a1, at1, lg)
	a3, at3 := s.newAttempt(li)
	if a3 != a1 {
		t.Fatalf("attempt after freeing the record's own = %d, want it again (%d)", a3, a1)
	}
	if i, gen := unref(old); i == a3 && gen == at3.gen {
		t.Fatalf("a ref to the freed attempt still matches its reuse (gen %d)", gen)
	}

	// Overflow objects are reused through the free stack, with new generations.
	c2gen := s.call(c2).gen
	s.freeCall(c2, s.call(c2), lg)
	c4, o4 := s.newCall(li)
	if c4 != c2 || o4.gen == c2gen {
		t.Fatalf("reused overflow call = %d gen %d, want %d with a generation other than %d", c4, o4.gen, c2, c2gen)
	}
	if s.attLive != 2 || s.callLive != 2 || s.lgLive != 2 {
		t.Fatalf("live attempts %d, calls %d, requests %d; want 2, 2, 2", s.attLive, s.callLive, s.lgLive)
	}
}

func TestRingPeekIsNextPop(t *testing.T) {
	var r ring
	if _, ok := r.peek(); ok {
		t.Fatal("peek on an empty ring: ok")
	}
	for i := int64(1); i <= 40; i++ { // grows past its first 16 slots while wrapped
		r.push(i)
		if i%3 == 0 {
			p, _ := r.peek()
			if x, _ := r.pop(); x != p {
				t.Fatalf("pop = %d after peek = %d", x, p)
			}
		}
	}
	for r.n > 0 {
		p, _ := r.peek()
		if x, _ := r.pop(); x != p {
			t.Fatalf("pop = %d after peek = %d", x, p)
		}
	}
}
