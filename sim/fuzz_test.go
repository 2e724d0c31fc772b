package sim

import (
	"testing"
	"time"
)

// fuzzDelays are the delays a fuzzed program schedules with: zero, either side of a bucket's
// edge and of the wheel's span, and far beyond it.
var fuzzDelays = [...]time.Duration{
	0, 1, time.Microsecond,
	1<<bucketShift - 1, 1 << bucketShift, 1<<bucketShift + 1,
	time.Millisecond, 100 * time.Millisecond,
	1<<bucketShift*wheelSize - 1, 1 << bucketShift * wheelSize, 1<<bucketShift*wheelSize + 1,
	3 * time.Second, time.Hour,
}

// FuzzOrder runs a program of schedules, cancels, Runs and Steps read from the input, with
// handlers that schedule more, and checks the engine against its contract: events come in
// (time, scheduling order), at their time, exactly once, unless cancelled before delivery.
func FuzzOrder(f *testing.F) {
	f.Add([]byte{0, 1, 0, 6, 2, 7, 1, 0, 3, 12, 2, 3})
	f.Add([]byte{0, 12, 0, 9, 0, 10, 2, 1, 0, 0, 2, 4, 0, 5, 3, 11, 1, 2, 2, 12})
	f.Add([]byte{0, 4, 0, 5, 0, 3, 0, 4, 1, 1, 2, 5, 0, 0, 3, 2, 2, 8, 2, 12})
	f.Fuzz(func(t *testing.T, prog []byte) {
		type ev struct {
			at        time.Duration
			seq       int
			timer     Timer
			cancelled bool
			delivered int
		}
		var evs []*ev
		s := New(time.Time{})
		var lastAt time.Duration
		lastSeq := -1
		var h HandlerFunc
		schedule := func(d time.Duration) {
			e := &ev{at: s.Elapsed() + d, seq: len(evs)}
			e.timer = s.Schedule(d, h, 0, int64(len(evs)))
			evs = append(evs, e)
		}
		h = func(s *Sim, x Event) {
			e := evs[x.ID]
			if e.cancelled {
				t.Fatalf("event %d delivered after it was cancelled", e.seq)
			}
			if x.At != e.at || s.Elapsed() != e.at {
				t.Fatalf("event %d for %v delivered at %v, clock %v", e.seq, e.at, x.At, s.Elapsed())
			}
			if e.at < lastAt || (e.at == lastAt && e.seq < lastSeq) {
				t.Fatalf("event %d (%v) after event %d (%v)", e.seq, e.at, lastSeq, lastAt)
			}
			lastAt, lastSeq = e.at, e.seq
			e.delivered++
			if x.ID%3 == 0 && len(evs) < 2000 {
				schedule(fuzzDelays[int(x.ID/3)%len(fuzzDelays)])
			}
		}
		for i := 0; i+1 < len(prog) && len(evs) < 2000; i += 2 {
			arg := int(prog[i+1])
			switch prog[i] % 4 {
			case 0:
				schedule(fuzzDelays[arg%len(fuzzDelays)])
			case 1:
				if len(evs) > 0 {
					e := evs[arg%len(evs)]
					s.Cancel(e.timer)
					if e.delivered == 0 {
						e.cancelled = true
					}
				}
			case 2:
				s.Run(s.Elapsed() + fuzzDelays[arg%len(fuzzDelays)])
			case 3:
				s.Step(s.Elapsed() + fuzzDelays[arg%len(fuzzDelays)])
			}
		}
		s.Run(s.Elapsed() + 1000*time.Hour)
		for _, e := range evs {
			if want := map[bool]int{false: 1, true: 0}[e.cancelled]; e.delivered != want {
				t.Fatalf("event %d (at %v, cancelled %v) delivered %d times", e.seq, e.at, e.cancelled, e.delivered)
			}
		}
		if s.Pending() != 0 {
			t.Fatalf("%d events still pending", s.Pending())
		}
	})
}
