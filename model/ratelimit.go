package model

import "time"

// Rate limits at the entries (scenario.Entry.RateLimit): a request that finds its entry's
// bucket empty is offered and rejected with reason rate-limited. The buckets live with
// the arm's actions (actionRT), which may set or change a limit at an instant.

// bucket is an entry's rate limit: a token bucket that fills at rate per second and holds
// one second of it (at least one token); 0/s holds none.
type bucket struct {
	on        bool
	rate, cap float64
	tokens    float64
	last      time.Duration
}

// set changes the bucket's limit at now: a new limit starts full, a changed one keeps the
// tokens it holds (up to its new size).
func (b *bucket) set(now time.Duration, on bool, rate float64) {
	b.fill(now)
	wasOn := b.on
	b.on, b.rate, b.last = on, rate, now
	b.cap = 0
	if rate > 0 {
		b.cap = max(1, rate)
	}
	if wasOn {
		b.tokens = min(b.tokens, b.cap)
	} else {
		b.tokens = b.cap
	}
}

func (b *bucket) fill(now time.Duration) {
	if now > b.last {
		b.tokens = min(b.cap, b.tokens+b.rate*(now-b.last).Seconds())
		b.last = now
	}
}

// take reports whether a request arriving at now gets a token, and takes it.
func (b *bucket) take(now time.Duration) bool {
	b.fill(now)
	if b.tokens >= 1 {
		b.tokens--
		return true
	}
	return false
}

// limits sets the entries' rate limits from p at now.
func (r *actionRT) limits(p *plan, now time.Duration) {
	if r.buckets == nil {
		if !p.limited {
			return
		}
		r.buckets = make([]bucket, len(p.entries))
	}
	for e := range p.entries {
		b := &r.buckets[e]
		ep := &p.entries[e]
		if b.on != ep.limited || b.rate != ep.limit {
			b.set(now, ep.limited, ep.limit)
		}
	}
}

// limited reports whether entry e refuses a request arriving at now for its rate limit.
func (r *actionRT) limited(e int, now time.Duration) bool {
	if r.buckets == nil || !r.buckets[e].on {
		return false
	}
	return !r.buckets[e].take(now)
}
