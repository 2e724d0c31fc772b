package budget

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goodput-lab/goodput/control/internal/nanotime"
	"github.com/goodput-lab/goodput/control/internal/stripe"
)

// Slices is the number of buckets the TTL window is divided into: deposits
// and withdrawals expire a bucket at a time, so with the default 10 s TTL
// they expire second by second.
const Slices = 10

// DefaultTTL is the deposit lifetime when [Config.TTL] is zero.
const DefaultTTL = 10 * time.Second

// Second is the span of the budget's rate bound: the retries allowed in any Second are at
// most Ratio × the requests of that Second and the slice before it, plus MinPerSecond (and
// at least one), however many tokens the TTL window holds. It is measured in [RateSlices]
// slices: the bound counts retries and requests over the same span, the current slice and
// the RateSlices before it (a Second to a Second and a slice), so that in a steady state it
// allows Ratio × the request rate, neither more nor less.
const Second = time.Second

// RateSlices is the number of slices the rate bound's Second is divided into.
const RateSlices = 10

// rateWidth is the length of one slice of the rate bound.
const rateWidth = int64(Second) / RateSlices

// NoDeadline is the [Retry.Remaining] of a request without a deadline.
const NoDeadline = time.Duration(math.MaxInt64)

// Config configures a [Budget]. The zero Config is valid and allows no
// retries at all: no ratio, no floor.
type Config struct {
	// Ratio is the number of retries allowed per first attempt within the
	// TTL window: 0.2 in Finagle and Linkerd, 0.02 in the Northstar protected
	// policy (8,600 requests/s buy 172 retries/s on average over the window).
	// Zero allows only the floor.
	Ratio float64
	// MinPerSecond is a floor of retries per second that is always available,
	// so a service with little traffic can still retry: MinPerSecond×TTL
	// retries per window and MinPerSecond in any second, whatever the
	// request count. Zero means no floor.
	MinPerSecond float64
	// TTL is how long a deposit (a first attempt) and a withdrawal (an
	// allowed retry) count. It must be from 1 s to 60 s; zero means
	// [DefaultTTL].
	TTL time.Duration
	// TenantShare is the largest fraction of the window's pool one tenant's
	// retries may use, so no tenant can take the whole pool. Zero means no
	// limit (and tenants are not tracked).
	TenantShare float64
}

// Finagle returns the defaults of Finagle's RetryBudget and Linkerd's
// retryBudget: 20% of requests, a floor of 10 retries a second, a 10 s TTL.
func Finagle() Config {
	return Config{Ratio: 0.2, MinPerSecond: 10, TTL: 10 * time.Second}
}

// Protected returns the budget of the Northstar protected policy (seed 004):
// retries suppressed to 2% of requests with no floor, so 8,600 admitted
// requests/s allow at most 1,720 retries in any 10 s window, 172/s on
// average.
func Protected() Config {
	return Config{Ratio: 0.02, TTL: 10 * time.Second}
}

// Validate reports whether c is usable.
func (c Config) Validate() error {
	switch {
	case !finite(c.Ratio) || c.Ratio < 0:
		return fmt.Errorf("budget: Ratio %v; want a number 0 or more (retries per request, e.g. 0.2)", c.Ratio)
	case !finite(c.MinPerSecond) || c.MinPerSecond < 0:
		return fmt.Errorf("budget: MinPerSecond %v; want a number 0 or more", c.MinPerSecond)
	case c.TTL < 0 || c.TTL > 0 && (c.TTL < time.Second || c.TTL > time.Minute):
		return fmt.Errorf("budget: TTL %v; want 0 (10s) or from 1s to 1m0s", c.TTL)
	case !finite(c.TenantShare) || c.TenantShare < 0 || c.TenantShare > 1:
		return fmt.Errorf("budget: TenantShare %v; want 0 (no limit) or a fraction up to 1", c.TenantShare)
	}
	return nil
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// Failure classifies why an attempt failed, which decides whether it may be
// retried. The zero value, Unclassified, is never retried.
type Failure uint8

const (
	// Unclassified: nothing is known about the failure; not retried.
	Unclassified Failure = iota
	// Transient: a failure the next attempt may not meet (a reset
	// connection, a 502, a brief unavailability). Retriable.
	Transient
	// Timeout: the per-call timeout fired; the attempt may still have been
	// applied, so only an idempotent or deduplicated operation is retried.
	// Retriable.
	Timeout
	// Overload: the dependency said explicitly that it is overloaded (429,
	// or 503 with an overload reason). Never retried within the window:
	// retrying adds load exactly where there is no capacity.
	Overload
	// Permanent: the next attempt would fail the same way (a 4xx, a
	// validation error, a declined payment). Not retried.
	Permanent
	// Canceled: the caller cancelled or the deadline passed. Not retried.
	Canceled
)

var failureNames = [...]string{"unclassified", "transient", "timeout", "overload", "permanent", "canceled"}

func (f Failure) String() string {
	if int(f) < len(failureNames) {
		return failureNames[f]
	}
	return "Failure(" + strconv.Itoa(int(f)) + ")"
}

// Retriable reports whether f is Transient or Timeout.
func (f Failure) Retriable() bool { return f == Transient || f == Timeout }

// Retry describes one retry a caller would like to make.
type Retry struct {
	// Tenant is charged for the retry when [Config.TenantShare] is set.
	Tenant string
	// Failure is how the previous attempt failed.
	Failure Failure
	// Idempotent: applying the operation twice has the effect of applying it
	// once (a read, a PUT of a whole value).
	Idempotent bool
	// Deduplicated: the operation carries a logical identity that the
	// dependency deduplicates (see package github.com/goodput-lab/goodput/control/identity).
	Deduplicated bool
	// Remaining is the time left before the request's deadline
	// (deadline.Remaining(d, now)), or [NoDeadline].
	Remaining time.Duration
	// Expected is the time the retry needs to be useful: the backoff wait
	// plus the expected latency of one attempt (e.g. its p90).
	Expected time.Duration
}

// Reason says why a [Decision] was made.
type Reason uint8

const (
	// ReasonAllowed: the retry was allowed and took a token.
	ReasonAllowed Reason = iota
	// ReasonNotTransient: the failure is not classified transient.
	ReasonNotTransient
	// ReasonOverload: the failure was an explicit overload response.
	ReasonOverload
	// ReasonNotIdempotent: the operation is neither idempotent nor
	// deduplicated by identity.
	ReasonNotIdempotent
	// ReasonDeadline: less deadline remains than the retry is expected to need.
	ReasonDeadline
	// ReasonTenantShare: the tenant has used its share of the pool.
	ReasonTenantShare
	// ReasonExhausted: no token remains in the pool.
	ReasonExhausted
	// NumReasons is the number of reasons, for arrays indexed by Reason.
	NumReasons
)

var reasonNames = [NumReasons]string{"allowed", "not-transient", "overload", "not-idempotent", "deadline", "tenant-share", "exhausted"}

// String returns the reason's short name, e.g. "exhausted", as used in
// metrics labels and traces.
func (r Reason) String() string {
	if r < NumReasons {
		return reasonNames[r]
	}
	return "Reason(" + strconv.Itoa(int(r)) + ")"
}

// ParseReason returns the Reason whose String is s.
func ParseReason(s string) (Reason, error) {
	for i, n := range reasonNames {
		if n == s {
			return Reason(i), nil
		}
	}
	return 0, fmt.Errorf("budget: unknown reason %q; want one of %s", s, strings.Join(reasonNames[:], ", "))
}

// Errors returned by [Decision.Err], one per refusal [Reason].
var (
	ErrNotTransient  = errors.New("budget: failure not transient")
	ErrOverload      = errors.New("budget: overload response not retried")
	ErrNotIdempotent = errors.New("budget: operation neither idempotent nor deduplicated")
	ErrDeadline      = errors.New("budget: not enough deadline left for an attempt")
	ErrTenantShare   = errors.New("budget: tenant share exhausted")
	ErrExhausted     = errors.New("budget: exhausted")
)

var reasonErrs = [NumReasons]error{nil, ErrNotTransient, ErrOverload, ErrNotIdempotent, ErrDeadline, ErrTenantShare, ErrExhausted}

// Decision is the answer of [Budget.Allow].
type Decision struct {
	Allowed bool
	Reason  Reason
}

// Err returns nil when d allowed the retry, and otherwise the sentinel error
// of its reason (ErrExhausted, ErrDeadline, ...).
func (d Decision) Err() error {
	if d.Allowed || d.Reason >= NumReasons {
		return nil
	}
	return reasonErrs[d.Reason]
}

// Stats are a [Budget]'s counters since it was created.
type Stats struct {
	// Requests counts first attempts deposited by [Budget.Request].
	Requests int64
	// Retries counts retries allowed: the tokens used.
	Retries int64
	// Suppressed counts retries refused, by reason. Suppressed[ReasonAllowed]
	// is always 0.
	Suppressed [NumReasons]int64
}

// Suppressions returns the number of retries refused, for all reasons.
func (s Stats) Suppressions() int64 {
	var n int64
	for _, v := range s.Suppressed {
		n += v
	}
	return n
}

// Window is what a budget's TTL window holds at one instant.
type Window struct {
	// Requests and Retries count the first attempts deposited and the
	// retries allowed within the window.
	Requests, Retries int64
	// Pool is the number of retries the window allows:
	// Ratio×Requests + MinPerSecond×TTL for the whole budget, TenantShare of
	// that for one tenant.
	Pool float64
	// RecentRequests and RecentRetries count the first attempts and the retries allowed
	// in the rate bound's span, the last [Second] and a slice (the current slice and the
	// [RateSlices] before it); RecentPool is what the rate bound allows:
	// max(1, Ratio×RecentRequests + MinPerSecond). They are the whole
	// budget's, also in a tenant's window.
	RecentRequests, RecentRetries int64
	RecentPool                    float64
}

// Available returns the retries the budget would allow now: the lesser of
// Pool − Retries and RecentPool − RecentRetries, at least 0.
func (w Window) Available() float64 {
	return math.Max(0, math.Min(w.Pool-float64(w.Retries), w.RecentPool-float64(w.RecentRetries)))
}

// Budget is one retry budget shared by every layer, request class and tenant
// that retries on behalf of the same logical requests: the single owner of
// retries that the seed asks for. Call [Budget.Request] for each first
// attempt and [Budget.Allow] before each retry; Allow takes a token when it
// allows the retry. [Budget.SetRatio] tightens or loosens it, e.g. on a load
// state change.
//
// Like Finagle's RetryBudget, the budget counts deposits (first attempts)
// and withdrawals (retries) over a TTL window, and it also bounds their rate,
// so tokens banked while healthy cannot be spent in a burst when an incident
// starts. It allows a retry while both
//
//	retries in window + 1 ≤ Ratio × requests in window + MinPerSecond × TTL
//	retries in the last Second and a slice + 1 ≤ max(1, Ratio × requests in the same span + MinPerSecond)
//
// The window is a ring of [Slices] buckets and the last [Second] a ring of
// [RateSlices] slices, indexed by the time since the start of the first
// instant's bucket (buckets of TTL/Slices from the Unix epoch), measured with
// time.Time.Sub (on the monotonic clock for instants of time.Now, so a step of
// the wall clock changes nothing). Allow and
// Request never allocate and no goroutine or timer is involved. Time going
// backwards counts as no time passed; a jump forward of a TTL or more empties
// the window. Instants more than 292 years from the first saturate.
//
// # Concurrency
//
// A Budget is safe for concurrent use. Create one with [New]. Without
// [Config.TenantShare], Request and Allow take no lock: a deposit is one
// atomic add, an allowed retry one compare-and-swap against the pool, so a
// retry is never allowed beyond the pool of the window it read, and a
// refusal one atomic add to a per-goroutine stripe of its count (see
// stripe). A lock is
// taken only when the window moves to a new bucket, once per TTL/[Slices].
// A deposit or retry made by one goroutine while another moves the window may
// count in the bucket that begins rather than the one that ends, as it would
// had it come a moment later. With a tenant share, Request and Allow take
// the lock, since the tenants' windows live in a map.
//
// From one goroutine every Decision, [Budget.Window] and [Budget.Stats] is
// exactly what a Budget behind one mutex returns; under concurrent use each
// field of Stats is exact once the calls it counts have returned, but a
// snapshot taken while they run may mix counts taken moments apart.
type Budget struct {
	// Immutable after New.
	reserve float64 // MinPerSecond × TTL, in retries
	share   float64
	width   int64 // nanoseconds per bucket

	// The window. Each bucket of the ring holds the cumulative counts of
	// deposits and retries when the bucket began, so the window holds
	// requests − starts[oldest].reqs deposits; likewise each slice of the
	// rate ring. These fields are written with mu held when the window moves
	// (once per bucket or slice) and read without it under the sequence count
	// seq, which is odd while a move is in progress.
	seq    atomic.Uint64
	cur    atomic.Int64  // index of the current bucket
	rcur   atomic.Int64  // index of the current slice of the rate ring
	curEnd atomic.Int64  // instant (since base) at which the next bucket or slice starts; MinInt64 before the first call
	ratio  atomic.Uint64 // math.Float64bits of the ratio
	starts [Slices]mark
	rstart [RateSlices + 1]mark // the last Second's slices and the one before
	base   nanotime.Epoch       // the first instant; written with mu held before curEnd leaves MinInt64
	floor  float64              // MinPerSecond

	n     *counts         // deposits and retries allowed, read together by every Allow
	cells *[stripe.N]cell // refusals, a stripe per goroutine (see control/internal/stripe)

	mu      sync.Mutex // moves the window; guards the fields below
	started bool
	tenants map[string]*tenant
	free    []*tenant
	sweepAt int
	// The tenant of the last call, so a run of calls for one tenant skips
	// the map (the names are compared; nil after a sweep).
	lastName string
	last     *tenant
}

// counts are a budget's cumulative counts since New of deposits and of
// retries allowed, which every Allow reads to size the pool, on a cache line
// of their own: a pointer-free 64-byte object is allocated 64-byte aligned.
type counts struct {
	requests, retries atomic.Int64
	_                 [48]byte
}

// cell is one stripe of the refused retries by reason; the counts are the
// sums over the stripes. A cell is 64 bytes and holds no pointer, and the
// cells are allocated together as an array, so the allocator places each on
// a cache line of its own.
type cell struct {
	suppressed [NumReasons - 1]atomic.Int64 // from ReasonNotTransient on
	_          [16]byte
}

// mark is the cumulative count of deposits and retries when a bucket began.
type mark struct {
	reqs, rets atomic.Int64
}

// ring is a tenant's TTL window of buckets with running sums.
type ring struct {
	reqs, rets       [Slices]int64
	sumReqs, sumRets int64
}

// tenant is one tenant's window, advanced lazily to the budget's bucket.
type tenant struct {
	cur int64
	w   ring
}

// New returns a Budget configured by cfg, with an empty window.
func New(cfg Config) (*Budget, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ttl := cfg.TTL
	if ttl == 0 {
		ttl = DefaultTTL
	}
	b := &Budget{
		reserve: cfg.MinPerSecond * ttl.Seconds(),
		floor:   cfg.MinPerSecond,
		share:   cfg.TenantShare,
		width:   int64(ttl) / Slices,
		sweepAt: minSweep,
		n:       new(counts),
		cells:   new([stripe.N]cell),
	}
	b.ratio.Store(math.Float64bits(cfg.Ratio))
	b.curEnd.Store(math.MinInt64)
	if b.share > 0 {
		b.tenants = make(map[string]*tenant)
	}
	return b, nil
}

// Request deposits one first attempt made at now on behalf of tenant.
// Retries are not deposits: do not call Request for them.
func (b *Budget) Request(now time.Time, tenant string) {
	if b.tenants != nil {
		b.mu.Lock()
		b.advance(now)
		b.n.requests.Add(1)
		t := b.tenant(tenant)
		t.w.reqs[slotOf(b.cur.Load())]++
		t.w.sumReqs++
		b.mu.Unlock()
		return
	}
	if end := b.curEnd.Load(); end == math.MinInt64 || b.since(now) >= end {
		b.move(now)
	}
	b.n.requests.Add(1)
}

// since returns now since the budget's base. Call it only once curEnd has
// left MinInt64 (the load of curEnd orders the base before it), or with mu
// held after the first advance.
func (b *Budget) since(now time.Time) int64 { return int64(b.base.Since(now)) }

// epsilon absorbs rounding in Ratio×requests (0.29×100 is 28.999999999999996).
const epsilon = 1e-9

// Allow decides at now whether the retry r may be made, and takes a token
// when it may. The checks run in order, and the first that fails is the
// Decision's reason: the failure must be retriable ([ReasonOverload] for an
// explicit overload response, [ReasonNotTransient] otherwise); the operation
// must be idempotent or deduplicated; Remaining must be positive and at least
// Expected; the tenant must be under its share; and a token must remain.
func (b *Budget) Allow(now time.Time, r Retry) Decision {
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
		b.cells[stripe.Of()].suppressed[reason-1].Add(1)
		return Decision{Reason: reason}
	}
	if b.tenants != nil {
		return b.allowTenant(now, r.Tenant)
	}
	if end := b.curEnd.Load(); end == math.MinInt64 || b.since(now) >= end {
		b.move(now)
	}
	ratio := math.Float64frombits(b.ratio.Load())
	for {
		w, retries := b.window()
		if float64(w.rets+1) > ratio*float64(w.reqs)+b.reserve+epsilon || float64(w.rrets+1) > b.recentPool(ratio, w.rreqs)+epsilon {
			b.cells[stripe.Of()].suppressed[ReasonExhausted-1].Add(1)
			return Decision{Reason: ReasonExhausted}
		}
		// The token is taken only if no retry was allowed since the window
		// was read; otherwise read it again.
		if b.n.retries.CompareAndSwap(retries, retries+1) {
			return Decision{Allowed: true, Reason: ReasonAllowed}
		}
	}
}

// recentPool returns the rate bound's pool for rreqs requests in the last
// Second at ratio.
func (b *Budget) recentPool(ratio float64, rreqs int64) float64 {
	return math.Max(1, ratio*float64(rreqs)+b.floor)
}

// allowTenant is Allow's token check with tenant shares, at now.
func (b *Budget) allowTenant(now time.Time, name string) Decision {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.advance(now)
	w, _ := b.window()
	ratio := math.Float64frombits(b.ratio.Load())
	pool := ratio*float64(w.reqs) + b.reserve
	t := b.tenant(name)
	if float64(t.w.sumRets+1) > b.share*pool+epsilon {
		b.cells[stripe.Of()].suppressed[ReasonTenantShare-1].Add(1)
		return Decision{Reason: ReasonTenantShare}
	}
	if float64(w.rets+1) > pool+epsilon || float64(w.rrets+1) > b.recentPool(ratio, w.rreqs)+epsilon {
		b.cells[stripe.Of()].suppressed[ReasonExhausted-1].Add(1)
		return Decision{Reason: ReasonExhausted}
	}
	b.n.retries.Add(1)
	t.w.rets[slotOf(b.cur.Load())]++
	t.w.sumRets++
	return Decision{Allowed: true, Reason: ReasonAllowed}
}

// counted is what the window and the rate ring hold: deposits and retries
// in the TTL window, and in the last Second's slices and the slice before.
type counted struct {
	reqs, rets, rreqs, rrets int64
}

// window returns what the window and the rate ring hold and the cumulative
// count of retries it read, from one consistent reading of the rings. It
// waits for a move in progress by taking the lock, so it must not be called
// with the lock held while a move could be under way (it cannot be: moves
// take the lock).
func (b *Budget) window() (w counted, retries int64) {
	for {
		s := b.seq.Load()
		if s&1 == 0 {
			first := &b.starts[slotOf(b.cur.Load()+1)] // the oldest bucket of the window
			r0, t0 := first.reqs.Load(), first.rets.Load()
			rc := b.rcur.Load()
			r1 := &b.rstart[rateSlotOf(rc+1)] // the slice before the last Second's oldest
			rr0, rt0 := r1.reqs.Load(), r1.rets.Load()
			retries = b.n.retries.Load()
			reqs := b.n.requests.Load()
			if b.seq.Load() == s {
				return counted{reqs - r0, retries - t0, reqs - rr0, retries - rt0}, retries
			}
			continue
		}
		b.mu.Lock() // a move is in progress: wait for it
		b.mu.Unlock()
	}
}

// SetRatio changes the ratio of retries to requests from now on. It applies
// to the whole window at once: deposits already made buy retries at the new
// ratio, so tightening takes effect immediately rather than after a TTL.
func (b *Budget) SetRatio(now time.Time, ratio float64) error {
	if !finite(ratio) || ratio < 0 {
		return fmt.Errorf("budget: ratio %v; want a number 0 or more", ratio)
	}
	b.mu.Lock()
	b.advance(now)
	b.ratio.Store(math.Float64bits(ratio))
	b.mu.Unlock()
	return nil
}

// Ratio returns the current ratio of retries to requests.
func (b *Budget) Ratio() float64 {
	return math.Float64frombits(b.ratio.Load())
}

// Window returns what the budget's window holds at now.
func (b *Budget) Window(now time.Time) Window {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.advance(now)
	w, _ := b.window()
	return b.windowOf(w)
}

// windowOf returns the Window of the counts w.
func (b *Budget) windowOf(w counted) Window {
	ratio := b.Ratio()
	return Window{
		Requests: w.reqs, Retries: w.rets, Pool: ratio*float64(w.reqs) + b.reserve,
		RecentRequests: w.rreqs, RecentRetries: w.rrets, RecentPool: b.recentPool(ratio, w.rreqs),
	}
}

// TenantWindow returns what tenant's window holds at now; its Pool is the
// tenant's share of the budget's pool. It is the zero Window when
// [Config.TenantShare] is zero (tenants are not tracked) or the tenant has
// not been seen within a TTL.
func (b *Budget) TenantWindow(now time.Time, tenant string) Window {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.advance(now)
	t, ok := b.tenants[tenant]
	if !ok {
		return Window{}
	}
	b.catchUp(t)
	w, _ := b.window()
	tw := b.windowOf(w)
	tw.Requests, tw.Retries, tw.Pool = t.w.sumReqs, t.w.sumRets, b.share*tw.Pool
	return tw
}

// Stats returns the budget's counters.
func (b *Budget) Stats() Stats {
	s := Stats{Requests: b.n.requests.Load(), Retries: b.n.retries.Load()}
	for i := range b.cells {
		for r := range b.cells[i].suppressed {
			s.Suppressed[r+1] += b.cells[i].suppressed[r].Load()
		}
	}
	return s
}

// move advances the window to now, taking the lock.
func (b *Budget) move(now time.Time) {
	b.mu.Lock()
	b.advance(now)
	b.mu.Unlock()
}

// advance moves the window to the bucket and the rate ring to the slice of
// now, expiring the buckets and slices they pass: each one entered begins at
// the current cumulative counts. The first call sets the base. Time before
// the current bucket and slice counts as no time passed. b.mu held.
func (b *Budget) advance(now time.Time) {
	if !b.started {
		b.base = nanotime.NewEpoch(now.Add(-time.Duration(unixMod(now, b.width))))
	}
	ns := b.since(now)
	if ns < b.curEnd.Load() {
		return // the current bucket and slice, or earlier: no division needed
	}
	k, q := floorDiv(ns, b.width), floorDiv(ns, rateWidth)
	b.seq.Add(1) // odd: readers wait
	if !b.started {
		b.started = true // nothing was counted before the first bucket
	} else {
		reqs, rets := b.n.requests.Load(), b.n.retries.Load()
		if cur := b.cur.Load(); k > cur {
			for j := max(cur+1, k-Slices+1); j <= k; j++ {
				s := &b.starts[slotOf(j)]
				s.reqs.Store(reqs)
				s.rets.Store(rets)
			}
		}
		if rc := b.rcur.Load(); q > rc {
			for j := max(rc+1, q-RateSlices); j <= q; j++ {
				s := &b.rstart[rateSlotOf(j)]
				s.reqs.Store(reqs)
				s.rets.Store(rets)
			}
		}
	}
	k, q = max(k, b.cur.Load()), max(q, b.rcur.Load())
	b.cur.Store(k)
	b.rcur.Store(q)
	b.curEnd.Store(min(endOf(k, b.width), endOf(q, rateWidth)))
	b.seq.Add(1)
}

// unixMod returns t's Unix nanoseconds modulo width (in (0, 1 min]), in
// [0, width), for any t: the first bucket begins where a bucket of the Unix
// epoch's would.
func unixMod(t time.Time, width int64) int64 {
	m := (t.Unix()%width*1e9 + int64(t.Nanosecond())) % width // |t.Unix()%width| × 1e9 < 6e18: no overflow
	if m < 0 {
		m += width
	}
	return m
}

// endOf returns the start of bucket k+1 of the given width, or MaxInt64.
func endOf(k, width int64) int64 {
	if k < math.MaxInt64/width {
		return (k + 1) * width
	}
	return math.MaxInt64
}

// catchUp advances a tenant's window to the budget's current bucket. b.mu held.
func (b *Budget) catchUp(t *tenant) {
	if cur := b.cur.Load(); cur > t.cur {
		t.w.expire(t.cur, cur)
		t.cur = cur
	}
}

// expire empties the buckets after from up to and including to.
func (w *ring) expire(from, to int64) {
	if to-from >= Slices {
		*w = ring{}
		return
	}
	for k := from + 1; k <= to; k++ {
		s := slotOf(k)
		w.sumReqs -= w.reqs[s]
		w.sumRets -= w.rets[s]
		w.reqs[s], w.rets[s] = 0, 0
	}
}

func rateSlotOf(k int64) int {
	s := k % (RateSlices + 1)
	if s < 0 {
		s += RateSlices + 1
	}
	return int(s)
}

func slotOf(k int64) int {
	s := k % Slices
	if s < 0 {
		s += Slices
	}
	return int(s)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// minSweep is the tenant count below which idle tenants are not swept.
const minSweep = 64

// tenant returns the window of the named tenant, advanced to the current
// bucket, creating it if needed. Creating a tenant may first sweep away the
// tenants whose windows are empty, so memory stays proportional to the
// tenants active within a TTL; the sweep runs only when the table has doubled
// since the last one, so its cost is amortised over the insertions. b.mu held.
func (b *Budget) tenant(name string) *tenant {
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
		b.sweepAt = max(minSweep, 2*len(b.tenants))
	}
	var t *tenant
	if n := len(b.free); n > 0 {
		t, b.free = b.free[n-1], b.free[:n-1]
		*t = tenant{}
	} else {
		t = new(tenant)
	}
	t.cur = b.cur.Load()
	name = strings.Clone(name)
	b.tenants[name] = t
	b.lastName, b.last = name, t
	return t
}
