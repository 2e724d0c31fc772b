package model

import "math"

// Caches. Each instance of a service holds its own copy of each of the service's caches.
// A cache holds the most popular keys it has filled (the ideal a frequency-based cache
// approaches), so with held entries out of n keys of Zipf exponent s a lookup hits with
// probability H(held, s) / H(n, s), H the generalised harmonic number (held/n for uniform
// popularity). A request carries one key: a draw u of its own (the same in both arms and for
// every attempt and cache) stands for the key's place in that popularity, and a lookup hits
// when u < H(held)/H(n), so a retry of a request misses again unless the cache has grown.
//
// Memory couples a cache to the load: an instance's heap (its service's memory limit) holds
// the attempts it has (queued or in service) and its caches, and every tick the caches give
// up what no longer fits beside the attempts (evictions). A miss whose call succeeds fills
// one entry, up to what fits, so a cache that lost entries under pressure, or an instance
// added cold with an empty cache, warms up only through its own misses: the backend work
// the seed's "cache and autoscaling create new loops" describes.

// cachePlan is one declared cache, compiled.
type cachePlan struct {
	name      string
	slot      int     // index in the service's caches (servicePlan.caches, instance.caches)
	entries   int     // most entries held
	entrySize float64 // bytes
}

// cacheRT is one instance's copy of a cache.
type cacheRT struct {
	held    int     // entries held
	allowed int     // entries that fit in memory, as of the last tick
	hit     float64 // probability that a lookup hits, for held
}

// keyPopularity is the load's key distribution: n keys, Zipf exponent s (0: uniform).
type keyPopularity struct {
	n    int
	s    float64
	head *[harmonicExact + 1]float64 // H(i, s) for i ≤ harmonicExact
	hn   float64                     // H(n, s)
}

func newKeyPopularity(n int, s float64) keyPopularity {
	if n <= 0 {
		n = 1_000_000
	}
	k := keyPopularity{n: n, s: s}
	if s > 0 {
		k.head = new([harmonicExact + 1]float64)
		for i := 1; i <= harmonicExact; i++ {
			k.head[i] = k.head[i-1] + math.Pow(float64(i), -s)
		}
		k.hn = harmonicFrom(k.head, n, s)
	}
	return k
}

// hitRatio is the share of lookups that hit a cache holding the held most popular keys.
func (k keyPopularity) hitRatio(held int) float64 {
	switch {
	case held <= 0:
		return 0
	case held >= k.n:
		return 1
	case k.s == 0:
		return float64(held) / float64(k.n)
	}
	return harmonicFrom(k.head, held, k.s) / k.hn
}

// harmonicExact is how many terms harmonic sums before the Euler–Maclaurin tail.
const harmonicExact = 32

// harmonic is H(n, s) = Σ_{i=1..n} i^-s for s > 0, summed for the first terms and
// completed with the Euler–Maclaurin formula (relative error below 1e-9 for s ≤ 4).
func harmonic(n int, s float64) float64 {
	var head [harmonicExact + 1]float64
	for i := 1; i <= harmonicExact; i++ {
		head[i] = head[i-1] + math.Pow(float64(i), -s)
	}
	return harmonicFrom(&head, n, s)
}

// harmonicFrom is harmonic with its first terms' sums (head[i] = H(i, s)) given: what a
// cache's fill computes, once per entry.
func harmonicFrom(head *[harmonicExact + 1]float64, n int, s float64) float64 {
	m := min(n, harmonicExact)
	h := head[m]
	if n <= m {
		return h
	}
	// Σ_{i=m+1..n} f(i) = ∫_m^n f + (f(n) − f(m))/2 + (f′(n) − f′(m))/12
	//                     − (f‴(n) − f‴(m))/720 + …, f(x) = x^-s.
	a, b := float64(m), float64(n)
	fa, fb := math.Pow(a, -s), math.Pow(b, -s)
	// ∫_a^b x^-s dx = a^(1-s)·(e^((1-s)·ln(b/a)) − 1)/(1−s), with Expm1 so that it stays
	// exact as s nears 1 (where it tends to ln(b/a)).
	integral := math.Log(b / a)
	if s != 1 {
		integral = math.Pow(a, 1-s) * math.Expm1((1-s)*integral) / (1 - s)
	}
	d1 := func(x, fx float64) float64 { return -s * fx / x }                               // f′
	d3 := func(x, fx float64) float64 { return -s * (s + 1) * (s + 2) * fx / (x * x * x) } // f‴
	return h + integral + (fb-fa)/2 + (d1(b, fb)-d1(a, fa))/12 - (d3(b, fb)-d3(a, fa))/720
}

// lookup looks attempt ai's current stage (st) up in its instance's cache: a hit ends the
// stage, a miss makes the call.
func (a *arm) lookup(in *instance, st *stagePlan, lg *logical, at *attempt) bool {
	cr := &in.caches[a.p.caches[st.cache].slot]
	hit := a.draw(a.p.keyPurp, identityOf(lg.id), 0, 0, 0) < cr.hit
	a.hs.cache[st.cache].Access(a.now(), hit)
	return hit
}

// fill adds the entry a successful miss of cache c on instance ii brought back, if it
// fits.
func (a *arm) fill(ii int32, c int) {
	cr := &a.insts[ii].caches[a.p.caches[c].slot]
	if cr.held < cr.allowed {
		cr.held++
		cr.hit = a.p.keys.hitRatio(cr.held)
	}
}

// fitCaches sets how many entries instance ii's caches may hold beside the attempts it
// has now, evicting what no longer fits. A service without a memory limit keeps every
// cache at its size.
func (a *arm) fitCaches(ii int32) {
	in := &a.insts[ii]
	sp := &a.p.services[in.svc]
	free := math.Inf(1)
	if sp.memLimit > 0 {
		free = max(0, sp.memLimit-float64(in.queued+in.busy)*sp.perAttempt)
	}
	for slot, c := range sp.caches {
		cp := &a.p.caches[c]
		allowed := cp.entries
		if sp.memLimit > 0 {
			// The caches share what is free in proportion to their full sizes.
			share := free * cp.entrySize * float64(cp.entries) / sp.cacheBytes
			allowed = int(min(float64(cp.entries), share/cp.entrySize)) // in floats: no overflow
		}
		cr := &in.caches[slot]
		cr.allowed = allowed
		if cr.held > allowed {
			a.hs.cache[c].Evicted(int64(cr.held - allowed))
			cr.held = allowed
			cr.hit = a.p.keys.hitRatio(cr.held)
		}
	}
}

// cacheEntries adds up the entries each cache holds over the instances, by cache name.
func (a *arm) cacheEntries() map[string]int {
	if len(a.p.caches) == 0 {
		return nil
	}
	m := make(map[string]int, len(a.p.caches))
	for _, c := range a.p.caches {
		m[c.name] += 0
	}
	for ii := range a.insts {
		in := &a.insts[ii]
		for slot, c := range a.p.services[in.svc].caches {
			m[a.p.caches[c].name] += in.caches[slot].held
		}
	}
	return m
}

// cacheNames names the plan's caches in declaration order.
func (p *plan) cacheNames() []string {
	var out []string
	for _, c := range p.caches {
		out = append(out, c.name)
	}
	return out
}

// startCaches gives a new instance its caches: full (as far as memory allows) for an
// instance of the start, empty for one a scale fault added.
func (a *arm) startCaches(ii int32, warm bool) {
	in := &a.insts[ii]
	sp := &a.p.services[in.svc]
	if len(sp.caches) == 0 {
		return
	}
	in.caches = make([]cacheRT, len(sp.caches))
	a.fitCaches(ii)
	if warm {
		for slot := range in.caches {
			cr := &in.caches[slot]
			cr.held = cr.allowed
			cr.hit = a.p.keys.hitRatio(cr.held)
		}
	}
}
