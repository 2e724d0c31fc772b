package budget

// This file keeps, for the differential tests in equiv_test.go, the mutex
// implementation of Budget that the lock-free one replaced (commit 24e1cd9),
// renamed, with the rate bound over the last Second and time measured from
// the start of the first instant's bucket with time.Time.Sub added since: refBudget is the
// specification the new Budget must match, decision for decision and counter
// for counter, when one goroutine drives it.

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"time"
)

type refBudget struct {
	mu      sync.Mutex
	ratio   float64
	reserve float64 // MinPerSecond × TTL, in retries
	floor   float64 // MinPerSecond
	share   float64
	width   int64 // nanoseconds per bucket

	started bool
	base    time.Time // the first instant
	cur     int64     // index of the current bucket
	curEnd  int64     // instant since base at which the bucket after cur starts
	w       refRing
	// The rate ring: deposits and retries per slice of the last Second and
	// the slice before, rcur the current slice.
	rcur         int64
	rreqs, rrets [RateSlices + 1]int64

	tenants map[string]*refTenant
	free    []*refTenant
	sweepAt int
	// The tenant of the last call, so a run of calls for one tenant skips
	// the map (the names are compared; nil after a sweep).
	lastName string
	last     *refTenant

	stats Stats
}

// refRing is a TTL window of buckets with running sums.
type refRing struct {
	reqs, rets       [Slices]int64
	sumReqs, sumRets int64
}

// tenant is one tenant's window, advanced lazily to the budget's bucket.
type refTenant struct {
	cur int64
	w   refRing
}

// New returns a refBudget configured by cfg, with an empty window.
func newRef(cfg Config) (*refBudget, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ttl := cfg.TTL
	if ttl == 0 {
		ttl = DefaultTTL
	}
	b := &refBudget{
		ratio:   cfg.Ratio,
		reserve: cfg.MinPerSecond * ttl.Seconds(),
		floor:   cfg.MinPerSecond,
		share:   cfg.TenantShare,
		width:   int64(ttl) / Slices,
		sweepAt: refMinSweep,
	}
	if b.share > 0 {
		b.tenants = make(map[string]*refTenant)
	}
	return b, nil
}

// Request deposits one first attempt made at now on behalf of tenant.
// Retries are not deposits: do not call Request for them.
func (b *refBudget) Request(now time.Time, tenant string) {
	b.mu.Lock()
	b.advance(now)
	slot := refSlotOf(b.cur)
	b.w.reqs[slot]++
	b.w.sumReqs++
	b.rreqs[refRateSlotOf(b.rcur)]++
	b.stats.Requests++
	if b.tenants != nil {
		t := b.tenant(tenant)
		t.w.reqs[slot]++
		t.w.sumReqs++
	}
	b.mu.Unlock()
}

// refEpsilon absorbs rounding in Ratio×requests (0.29×100 is 28.999999999999996).
const refEpsilon = 1e-9

// Allow decides at now whether the retry r may be made, and takes a token
// when it may. The checks run in order, and the first that fails is the
// Decision's reason: the failure must be retriable ([ReasonOverload] for an
// explicit overload response, [ReasonNotTransient] otherwise); the operation
// must be idempotent or deduplicated; Remaining must be positive and at least
// Expected; the tenant must be under its share; and a token must remain.
func (b *refBudget) Allow(now time.Time, r Retry) Decision {
	var reason Reason
	switch {
	case r.Failure == Overload:
		reason = ReasonOverload
	case !r.Failure.Retriable():
		reason = ReasonNotTransient
	case !r.Idempotent && !r.Deduplicated:
		reason = ReasonNotIdempotent
	case r.Remaining <= 0 || r.Remaining < r.Expected:
		reason = ReasonDeadline
	}
	if reason != ReasonAllowed {
		b.mu.Lock()
		b.stats.Suppressed[reason]++
		b.mu.Unlock()
		return Decision{Reason: reason}
	}
	b.mu.Lock()
	b.advance(now)
	pool := b.ratio*float64(b.w.sumReqs) + b.reserve
	var t *refTenant
	if b.tenants != nil {
		t = b.tenant(r.Tenant)
		if float64(t.w.sumRets+1) > b.share*pool+refEpsilon {
			b.stats.Suppressed[ReasonTenantShare]++
			b.mu.Unlock()
			return Decision{Reason: ReasonTenantShare}
		}
	}
	rreqs, rrets := b.recent()
	if float64(b.w.sumRets+1) > pool+refEpsilon || float64(rrets+1) > max(1, b.ratio*float64(rreqs)+b.floor)+refEpsilon {
		b.stats.Suppressed[ReasonExhausted]++
		b.mu.Unlock()
		return Decision{Reason: ReasonExhausted}
	}
	slot := refSlotOf(b.cur)
	b.w.rets[slot]++
	b.w.sumRets++
	b.rrets[refRateSlotOf(b.rcur)]++
	if t != nil {
		t.w.rets[slot]++
		t.w.sumRets++
	}
	b.stats.Retries++
	b.mu.Unlock()
	return Decision{Allowed: true, Reason: ReasonAllowed}
}

// SetRatio changes the ratio of retries to requests from now on. It applies
// to the whole window at once: deposits already made buy retries at the new
// ratio, so tightening takes effect immediately rather than after a TTL.
func (b *refBudget) SetRatio(now time.Time, ratio float64) error {
	if !finite(ratio) || ratio < 0 {
		return fmt.Errorf("budget: ratio %v; want a number 0 or more", ratio)
	}
	b.mu.Lock()
	b.advance(now)
	b.ratio = ratio
	b.mu.Unlock()
	return nil
}

// Ratio returns the current ratio of retries to requests.
func (b *refBudget) Ratio() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ratio
}

// Window returns what the budget's window holds at now.
func (b *refBudget) Window(now time.Time) Window {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.advance(now)
	return b.window()
}

// window returns the whole budget's Window.
func (b *refBudget) window() Window {
	rreqs, rrets := b.recent()
	return Window{
		Requests: b.w.sumReqs, Retries: b.w.sumRets, Pool: b.ratio*float64(b.w.sumReqs) + b.reserve,
		RecentRequests: rreqs, RecentRetries: rrets, RecentPool: max(1, b.ratio*float64(rreqs)+b.floor),
	}
}

// recent returns the deposits and the retries of the last Second's slices and
// the slice before.
func (b *refBudget) recent() (reqs, rets int64) {
	for k := b.rcur - RateSlices; k <= b.rcur; k++ {
		reqs += b.rreqs[refRateSlotOf(k)]
		rets += b.rrets[refRateSlotOf(k)]
	}
	return reqs, rets
}

// TenantWindow returns what tenant's window holds at now; its Pool is the
// tenant's share of the budget's pool. It is the zero Window when
// [Config.TenantShare] is zero (tenants are not tracked) or the tenant has
// not been seen within a TTL.
func (b *refBudget) TenantWindow(now time.Time, tenant string) Window {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.advance(now)
	t, ok := b.tenants[tenant]
	if !ok {
		return Window{}
	}
	b.catchUp(t)
	w := b.window()
	w.Requests, w.Retries, w.Pool = t.w.sumReqs, t.w.sumRets, b.share*w.Pool
	return w
}

// Stats returns the budget's counters.
func (b *refBudget) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stats
}

// advance moves the window to the bucket and the rate ring to the slice of
// now, expiring the buckets and slices it passes; the first call sets the
// base. Time before the current bucket or slice counts as no time passed.
func (b *refBudget) advance(now time.Time) {
	if !b.started {
		// The first bucket begins where a bucket counted from the Unix epoch would.
		b.started, b.base = true, now.Add(-time.Duration(refFloorMod(now.UnixNano(), b.width)))
	}
	ns := int64(now.Sub(b.base))
	if k := refFloorDiv(ns, b.width); k > b.cur {
		b.w.expire(b.cur, k)
		b.cur = k
	}
	if q := refFloorDiv(ns, int64(Second/RateSlices)); q > b.rcur {
		if q-b.rcur > RateSlices {
			b.rreqs, b.rrets = [RateSlices + 1]int64{}, [RateSlices + 1]int64{}
		} else {
			for j := b.rcur + 1; j <= q; j++ {
				b.rreqs[refRateSlotOf(j)], b.rrets[refRateSlotOf(j)] = 0, 0
			}
		}
		b.rcur = q
	}
	b.curEnd = math.MaxInt64
	if b.cur < math.MaxInt64/b.width {
		b.curEnd = (b.cur + 1) * b.width
	}
}

// next returns the first instant after now's of a bucket of the given width
// counted from the base, once the budget has started; now itself before.
func (b *refBudget) next(now time.Time, width int64) time.Time {
	if !b.started {
		return now
	}
	return b.base.Add(time.Duration((refFloorDiv(int64(now.Sub(b.base)), width) + 1) * width))
}

func refFloorMod(a, b int64) int64 { return a - refFloorDiv(a, b)*b }

func refRateSlotOf(k int64) int {
	s := k % (RateSlices + 1)
	if s < 0 {
		s += RateSlices + 1
	}
	return int(s)
}

// catchUp advances a tenant's window to the budget's current bucket.
func (b *refBudget) catchUp(t *refTenant) {
	if b.cur > t.cur {
		t.w.expire(t.cur, b.cur)
		t.cur = b.cur
	}
}

// expire empties the buckets after from up to and including to.
func (w *refRing) expire(from, to int64) {
	if to-from >= Slices {
		*w = refRing{}
		return
	}
	for k := from + 1; k <= to; k++ {
		s := refSlotOf(k)
		w.sumReqs -= w.reqs[s]
		w.sumRets -= w.rets[s]
		w.reqs[s], w.rets[s] = 0, 0
	}
}

func refSlotOf(k int64) int {
	s := k % Slices
	if s < 0 {
		s += Slices
	}
	return int(s)
}

func refFloorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// refMinSweep is the tenant count below which idle tenants are not swept.
const refMinSweep = 64

// tenant returns the window of the named tenant, advanced to the current
// bucket, creating it if needed. Creating a tenant may first sweep away the
// tenants whose windows are empty, so memory stays proportional to the
// tenants active within a TTL; the sweep runs only when the table has doubled
// since the last one, so its cost is amortised over the insertions.
func (b *refBudget) tenant(name string) *refTenant {
	if b.last != nil && name == b.lastName {
		b.catchUp(b.last)
		return b.last
	}
	if t, ok := b.tenants[name]; ok {
		b.catchUp(t)
		b.lastName, b.last = name, t
		return t
	}
	if len(b.tenants) >= b.sweepAt {
		b.lastName, b.last = "", nil
		for n, t := range b.tenants {
			b.catchUp(t)
			if t.w.sumReqs == 0 && t.w.sumRets == 0 {
				delete(b.tenants, n)
				b.free = append(b.free, t)
			}
		}
		b.sweepAt = max(refMinSweep, 2*len(b.tenants))
	}
	var t *refTenant
	if n := len(b.free); n > 0 {
		t, b.free = b.free[n-1], b.free[:n-1]
		*t = refTenant{}
	} else {
		t = new(refTenant)
	}
	t.cur = b.cur
	name = strings.Clone(name)
	b.tenants[name] = t
	b.lastName, b.last = name, t
	return t
}
