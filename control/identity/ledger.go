package identity

import (
	"fmt"
	"strconv"
	"sync"
	"time"
)

// DefaultTTL is how long a [Ledger] remembers a key when [Config.TTL] is
// zero: a day, as common payment APIs keep idempotency keys.
const DefaultTTL = 24 * time.Hour

// Config configures a [Ledger]. The zero Config records every execution but
// does not deduplicate (the baseline: duplicates are applied and counted),
// and remembers keys for [DefaultTTL].
type Config struct {
	// Dedupe makes [Ledger.Execute] apply a mutation at most once per key:
	// a later attempt with the same key is suppressed and gets the recorded
	// outcome. When false, every attempt is applied and each one after the
	// first is counted in [Stats.Duplicates].
	Dedupe bool
	// TTL is how long a key is remembered after its first execution. After
	// it, the key is forgotten and a new attempt with it executes again, so
	// TTL must exceed the longest time over which a logical request can be
	// retried or looked up (its deadline plus reconciliation). It bounds
	// memory to the keys executed within one TTL. Zero means [DefaultTTL].
	TTL time.Duration
}

// Validate reports whether c is usable.
func (c Config) Validate() error {
	if c.TTL < 0 {
		return fmt.Errorf("identity: TTL %v is negative; want 0 (DefaultTTL) or more", c.TTL)
	}
	return nil
}

// Status is what a [Ledger] knows of a key's mutation.
type Status uint8

const (
	// Unknown: the key is not in the ledger (never executed, or forgotten).
	Unknown Status = iota
	// Pending: the mutation was applied; its result has not been recorded.
	Pending
	// Succeeded: the mutation was applied and succeeded (authorised, committed).
	Succeeded
	// Failed: the mutation was applied and failed (declined, rejected).
	Failed
)

var statusNames = [...]string{"unknown", "pending", "succeeded", "failed"}

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "Status(" + strconv.Itoa(int(s)) + ")"
}

// Outcome is what a [Ledger] has recorded for one key.
type Outcome struct {
	Key    Key
	Status Status
	// First is when the mutation was first applied.
	First time.Time
	// Executions counts the times the mutation was applied for this key: 1
	// with deduplication; more than 1 means duplicates were applied.
	Executions int
	// Suppressed counts the attempts deduplication turned away.
	Suppressed int
}

// Stats are a [Ledger]'s counters since it was created.
type Stats struct {
	// Executions counts mutations applied, duplicates included.
	Executions int64
	// Duplicates counts mutations applied for a key that had already been
	// applied: duplicate authorisations or commits, correctness violations.
	// Always 0 with [Config.Dedupe].
	Duplicates int64
	// Suppressed counts attempts that deduplication turned away.
	Suppressed int64
	// Lookups counts [Ledger.Lookup] calls; Unresolved those that found no
	// record of the key.
	Lookups, Unresolved int64
	// Forgotten counts keys dropped after their TTL.
	Forgotten int64
	// Live is the number of keys held now.
	Live int
}

// Ledger is the dependency-side record of mutations by logical identity: a
// payment provider's idempotency store, an order store's commit log. Call
// [Ledger.Execute] where the mutation would be applied; it says whether to
// apply it. Call [Ledger.Complete] when the result is known, and
// [Ledger.Lookup] to answer a status query for an ambiguous outcome.
//
// Keys are forgotten [Config.TTL] after their first execution. Expired keys
// are dropped by [Ledger.Forget] and, amortised, by every Execute, so memory
// stays proportional to the keys executed within one TTL. Lookup and Complete
// take no time and may still see a key whose TTL has passed but which has not
// been dropped yet.
//
// A Ledger is safe for concurrent use. Create one with [NewLedger].
type Ledger struct {
	mu     sync.Mutex
	dedupe bool
	ttl    time.Duration
	byKey  map[Key]Outcome
	order  []recorded // keys in the order first executed; order[head:] are live
	head   int
	latest time.Time // the latest now seen, so backward time does not reorder expiry
	stats  Stats
}

type recorded struct {
	key Key
	at  time.Time
}

// NewLedger returns an empty Ledger configured by cfg.
func NewLedger(cfg Config) (*Ledger, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ttl := cfg.TTL
	if ttl == 0 {
		ttl = DefaultTTL
	}
	return &Ledger{dedupe: cfg.Dedupe, ttl: ttl, byKey: make(map[Key]Outcome)}, nil
}

// Execute is called at now where the mutation for key would be applied. It
// reports whether to apply it and returns the key's outcome after this call.
//
// With deduplication, the first call for a key returns executed true and
// records the key as [Pending]; later calls return executed false (a
// duplicate suppression) and the recorded outcome, whose Status tells the
// caller what to answer (a mutation that failed stays failed for its key, as
// payment APIs answer a repeated key with the original result). Without
// deduplication every call returns executed true; a call for a key already
// executed is counted in [Stats.Duplicates].
//
// An empty key has no identity to deduplicate: it is always executed and
// counted, never recorded.
func (l *Ledger) Execute(now time.Time, key Key) (o Outcome, executed bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.forget(now)
	if key == "" {
		l.stats.Executions++
		return Outcome{Status: Pending, First: now, Executions: 1}, true
	}
	o, seen := l.byKey[key]
	switch {
	case !seen:
		o = Outcome{Key: key, Status: Pending, First: now, Executions: 1}
		l.order = append(l.order, recorded{key: key, at: l.latest})
	case l.dedupe:
		o.Suppressed++
		l.stats.Suppressed++
		l.byKey[key] = o
		return o, false
	default:
		o.Executions++
		o.Status = Pending
		l.stats.Duplicates++
	}
	l.stats.Executions++
	l.byKey[key] = o
	return o, true
}

// Complete records the result of key's mutation: [Succeeded] when ok,
// [Failed] otherwise. found is false, and nothing is recorded, when the key
// is not in the ledger.
func (l *Ledger) Complete(key Key, ok bool) (o Outcome, found bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	o, found = l.byKey[key]
	if !found {
		return Outcome{}, false
	}
	o.Status = Failed
	if ok {
		o.Status = Succeeded
	}
	l.byKey[key] = o
	return o, true
}

// Lookup is the status query that resolves an ambiguous outcome by the
// original identity: it returns what is recorded for key without applying
// anything. found is false when the key was never executed or has been
// forgotten; then the mutation was not applied within the TTL.
func (l *Ledger) Lookup(key Key) (o Outcome, found bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stats.Lookups++
	o, found = l.byKey[key]
	if !found {
		l.stats.Unresolved++
	}
	return o, found
}

// Forget drops every key whose TTL has passed at now (first executed at or
// before now-TTL) and returns how many it dropped. Time earlier than the
// latest seen counts as no time passed.
func (l *Ledger) Forget(now time.Time) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.forget(now)
}

func (l *Ledger) forget(now time.Time) int {
	if now.After(l.latest) {
		l.latest = now
	}
	n := 0
	for l.head < len(l.order) && !l.order[l.head].at.Add(l.ttl).After(l.latest) {
		delete(l.byKey, l.order[l.head].key)
		l.order[l.head] = recorded{}
		l.head++
		n++
	}
	if l.head == len(l.order) {
		l.order, l.head = l.order[:0], 0
	} else if l.head >= 1024 && l.head > len(l.order)/2 {
		live := copy(l.order, l.order[l.head:])
		clear(l.order[live:])
		l.order, l.head = l.order[:live], 0
	}
	l.stats.Forgotten += int64(n)
	return n
}

// Stats returns the ledger's counters.
func (l *Ledger) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.stats
	s.Live = len(l.byKey)
	return s
}
