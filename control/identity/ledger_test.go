package identity

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 14, 14, 12, 0, 0, time.UTC)

// step is one call on a Ledger at t0+at, with what it must return.
type step struct {
	at   time.Duration
	op   string // exec, ok, fail (Complete), lookup, forget
	key  Key
	want bool   // executed (exec), found (ok, fail, lookup); ignored for forget
	out  string // "status executions suppressed" of the outcome, or the count forgotten
}

func run(t *testing.T, l *Ledger, steps []step) {
	t.Helper()
	for i, s := range steps {
		now := t0.Add(s.at)
		var got bool
		var o Outcome
		switch s.op {
		case "exec":
			o, got = l.Execute(now, s.key)
		case "ok", "fail":
			o, got = l.Complete(s.key, s.op == "ok")
		case "lookup":
			o, got = l.Lookup(s.key)
		case "forget":
			if n := fmt.Sprint(l.Forget(now)); n != s.out {
				t.Errorf("step %d: Forget(+%v) = %s, want %s", i, s.at, n, s.out)
			}
			continue
		default:
			t.Fatalf("step %d: unknown op %q", i, s.op)
		}
		out := fmt.Sprintf("%v %d %d", o.Status, o.Executions, o.Suppressed)
		if got != s.want || out != s.out {
			t.Errorf("step %d: %s(+%v, %q) = %v, %q; want %v, %q", i, s.op, s.at, s.key, got, out, s.want, s.out)
		}
		if got && s.op != "lookup" && o.Key != s.key {
			t.Errorf("step %d: outcome key %q, want %q", i, o.Key, s.key)
		}
	}
}

func newLedger(t *testing.T, cfg Config) *Ledger {
	t.Helper()
	l, err := NewLedger(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestLedgerDedupe(t *testing.T) {
	l := newLedger(t, Config{Dedupe: true, TTL: time.Minute})
	run(t, l, []step{
		{0, "lookup", "pay-1", false, "unknown 0 0"},
		{0, "exec", "pay-1", true, "pending 1 0"},
		// The caller timed out at 350 ms; the authorisation is still running.
		// The retry carries the same key and is suppressed.
		{400 * time.Millisecond, "exec", "pay-1", false, "pending 1 1"},
		{410 * time.Millisecond, "ok", "pay-1", true, "succeeded 1 1"},
		// The ambiguous outcome is resolved by the original key.
		{500 * time.Millisecond, "lookup", "pay-1", true, "succeeded 1 1"},
		{600 * time.Millisecond, "exec", "pay-1", false, "succeeded 1 2"},
		{700 * time.Millisecond, "exec", "pay-2", true, "pending 1 0"},
		{800 * time.Millisecond, "fail", "pay-2", true, "failed 1 0"},
		// A declined payment stays declined for its key.
		{900 * time.Millisecond, "exec", "pay-2", false, "failed 1 1"},
		{time.Second, "ok", "pay-9", false, "unknown 0 0"},
	})
	s := l.Stats()
	want := Stats{Executions: 2, Duplicates: 0, Suppressed: 3, Lookups: 2, Unresolved: 1, Live: 2}
	if s != want {
		t.Errorf("Stats = %+v, want %+v", s, want)
	}
}

func TestLedgerCountsDuplicatesWithoutDedupe(t *testing.T) {
	l := newLedger(t, Config{TTL: time.Minute})
	run(t, l, []step{
		{0, "exec", "pay-1", true, "pending 1 0"},
		{400 * time.Millisecond, "exec", "pay-1", true, "pending 2 0"},
		{410 * time.Millisecond, "ok", "pay-1", true, "succeeded 2 0"},
		{800 * time.Millisecond, "exec", "pay-1", true, "pending 3 0"},
		{900 * time.Millisecond, "exec", "pay-2", true, "pending 1 0"},
		{time.Second, "exec", "", true, "pending 1 0"}, // no identity: applied, not recorded
		{time.Second, "exec", "", true, "pending 1 0"},
	})
	s := l.Stats()
	want := Stats{Executions: 6, Duplicates: 2, Live: 2}
	if s != want {
		t.Errorf("Stats = %+v, want %+v", s, want)
	}
}

func TestLedgerTTL(t *testing.T) {
	l := newLedger(t, Config{Dedupe: true, TTL: 10 * time.Second})
	run(t, l, []step{
		{0, "exec", "a", true, "pending 1 0"},
		{5 * time.Second, "exec", "b", true, "pending 1 0"},
		{9 * time.Second, "exec", "a", false, "pending 1 1"},
		// Time going backwards counts as no time passed.
		{2 * time.Second, "exec", "c", true, "pending 1 0"},
		{10*time.Second - 1, "forget", "", false, "0"},
		{10 * time.Second, "forget", "", false, "1"}, // a: first executed exactly one TTL ago
		{10 * time.Second, "lookup", "a", false, "unknown 0 0"},
		{10 * time.Second, "exec", "a", true, "pending 1 0"}, // a new execution after the TTL
		// c was recorded at +9s (the latest time seen then), so it lives until +19s.
		{15 * time.Second, "exec", "b", true, "pending 1 0"}, // Execute drops b on the way
		{19 * time.Second, "lookup", "c", true, "pending 1 0"},
		{19 * time.Second, "forget", "", false, "1"},
		{time.Hour, "forget", "", false, "2"},
	})
	s := l.Stats()
	if s.Forgotten != 5 || s.Live != 0 || s.Duplicates != 0 {
		t.Errorf("Stats = %+v, want 5 forgotten, none live", s)
	}
}

// Memory stays bounded by the keys of one TTL however long the ledger runs.
func TestLedgerBoundedMemory(t *testing.T) {
	l := newLedger(t, Config{Dedupe: true, TTL: time.Second})
	for i := range 20_000 {
		l.Execute(t0.Add(time.Duration(i)*time.Millisecond), Key(fmt.Sprint("k", i)))
		if live := l.Stats().Live; live > 1000 {
			t.Fatalf("after %d executions %d keys live, want at most 1000", i+1, live)
		}
	}
	if len(l.order)-l.head > 1000 || cap(l.order) > 4096 {
		t.Errorf("expiry queue holds %d (cap %d), want it bounded", len(l.order)-l.head, cap(l.order))
	}
}

func TestConfigValidate(t *testing.T) {
	if err := (Config{}).Validate(); err != nil {
		t.Error(err)
	}
	if _, err := NewLedger(Config{TTL: -time.Second}); err == nil || !strings.Contains(err.Error(), "identity: TTL -1s is negative") {
		t.Errorf("NewLedger(negative TTL) error = %v", err)
	}
	l := newLedger(t, Config{})
	l.Execute(t0, "a")
	if n := l.Forget(t0.Add(DefaultTTL - 1)); n != 0 {
		t.Errorf("zero TTL forgot after %v", DefaultTTL-1)
	}
	if n := l.Forget(t0.Add(DefaultTTL)); n != 1 {
		t.Errorf("zero TTL did not forget after DefaultTTL")
	}
	if got := Status(9).String(); got != "Status(9)" {
		t.Errorf("Status(9) = %q", got)
	}
}

// Concurrent attempts with one key execute the mutation exactly once.
func TestLedgerConcurrent(t *testing.T) {
	l := newLedger(t, Config{Dedupe: true, TTL: time.Minute})
	var wg sync.WaitGroup
	var mu sync.Mutex
	applied := 0
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				if _, ok := l.Execute(t0.Add(time.Duration(i)*time.Millisecond), Key(fmt.Sprint("k", i%50))); ok {
					mu.Lock()
					applied++
					mu.Unlock()
				}
				if g%2 == 0 {
					l.Lookup(Key(fmt.Sprint("k", i%50)))
				}
			}
		}()
	}
	wg.Wait()
	if s := l.Stats(); applied != 50 || s.Executions != 50 || s.Suppressed != 8*200-50 {
		t.Errorf("applied %d, Stats %+v; want 50 executions and %d suppressed", applied, s, 8*200-50)
	}
}

func BenchmarkLedgerExecute(b *testing.B) {
	l, _ := NewLedger(Config{Dedupe: true, TTL: time.Second})
	keys := make([]Key, 4096)
	for i := range keys {
		keys[i] = Key(fmt.Sprint("key-", i))
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		l.Execute(t0.Add(time.Duration(i)*time.Millisecond), keys[i%len(keys)])
		i++
	}
}
