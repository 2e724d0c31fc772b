package model

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
)

// cached is a scenario with a cache in front of a dependency, on a service whose memory
// the cache shares with the attempts: a slowdown of the service's own work from 20s to
// 30s queues attempts until the cache must give up entries, and an instance added at 40s
// starts with an empty cache.
const cached = `
name: cached
clock: {duration: 60s, tick: 1s}
load:
  schedule: [{at: 0s, rate: 400/s}]
  keys: {count: 100000, zipf: 1.2}
classes:
  - name: read
    share: 100%
    deadline: 1s
    stages:
      - {name: item-read, dependency: store, cache: items}
      - {name: render, work: 2ms}
topology:
  entries: [{name: client, target: app, timeout: 500ms}]
  services:
    - name: app
      instances: 2
      workers: 8
      queue: {capacity: 400}
      memory: {limit: 64MiB, per_attempt: 256KiB}
  caches:
    - {name: items, service: app, entries: 2000, entry_size: 16KiB}
  dependencies:
    - {name: store, service_time: {p50: 5ms, p99: 20ms}, pool: {per_instance: 8}}
faults:
  - {at: 20s, for: 10s, service: app, work_factor: 2500%}
  - {at: 40s, scale: {service: app, add: 1}}
arms:
  - {name: baseline, policy: {}}
`

func TestHarmonic(t *testing.T) {
	for _, s := range []float64{0.5, 1, math.Nextafter(1, 2), 1 + 1e-12, 1 + 1e-8, 1.01, 1.1, 1.2, 2, 3.5, 100} {
		var sum float64
		next := 1
		for _, n := range []int{1, 5, 32, 33, 100, 1000, 54321, 200000} {
			for ; next <= n; next++ {
				sum += math.Pow(float64(next), -s)
			}
			got := harmonic(n, s)
			if rel := math.Abs(got-sum) / sum; rel > 1e-9 {
				t.Errorf("harmonic(%d, %v) = %.12g, summed %.12g (relative error %.2g)", n, s, got, sum, rel)
			}
		}
	}
}

func TestHitRatio(t *testing.T) {
	zipf := newKeyPopularity(1000, 1.2)
	uniform := newKeyPopularity(1000, 0)
	tests := []struct {
		k    keyPopularity
		held int
		want float64
	}{
		{zipf, -1, 0},
		{zipf, 0, 0},
		{zipf, 1, 1 / harmonic(1000, 1.2)},
		{zipf, 1000, 1},
		{zipf, 5000, 1},
		{uniform, 250, 0.25},
		{uniform, 1000, 1},
		{newKeyPopularity(0, 0), 10_000, 0.01}, // zero keys means a million
	}
	for _, tt := range tests {
		if got := tt.k.hitRatio(tt.held); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("hitRatio(%d) over %d keys, zipf %v: %v, want %v", tt.held, tt.k.n, tt.k.s, got, tt.want)
		}
	}
	for _, k := range []keyPopularity{zipf, newKeyPopularity(1000, math.Nextafter(1, 2)), newKeyPopularity(1000, 100)} {
		for held := 1; held <= 1000; held++ {
			if r := k.hitRatio(held); r < k.hitRatio(held-1) || r > 1 {
				t.Fatalf("zipf %v: hit ratio %v at %d entries, %v at %d: want it to grow within [0, 1]", k.s, k.hitRatio(held-1), held-1, r, held)
			}
		}
	}
}

// firstArm compiles sc and builds its first arm, with seed 1, without running it.
func firstArm(t *testing.T, sc *scenario.Scenario) (*plan, *arm) {
	t.Helper()
	p, err := compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	a, err := newArm(p, sc, sc.Arms[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	return p, a
}

// TestFitCaches sets an instance's attempts at fixed counts and checks what its cache may
// hold, what it evicts and what a fill adds.
func TestFitCaches(t *testing.T) {
	sc := decode(t, cached)
	p, a := firstArm(t, sc)
	in := &a.insts[0]
	cr := &in.caches[0]
	if cr.held != 2000 || cr.allowed != 2000 {
		t.Fatalf("an instance of the start holds %d of %d entries, want a full cache of 2000", cr.held, cr.allowed)
	}
	// 64MiB: the full cache (2000 × 16KiB = 31.25MiB) fits beside 131 attempts of 256KiB.
	steps := []struct {
		queued, busy  int
		fills         int
		allowed, held int
	}{
		{queued: 123, busy: 8, allowed: 2000, held: 2000},
		{queued: 124, busy: 8, allowed: 1984, held: 1984},         // 256KiB more: 16 entries out
		{queued: 0, busy: 8, fills: 1, allowed: 2000, held: 1985}, // room again, filled one miss at a time
		{queued: 0, busy: 8, fills: 40, allowed: 2000, held: 2000},
		{queued: 400, busy: 8, fills: 3, allowed: 0, held: 0}, // 102MiB of attempts: nothing fits
	}
	var evicted int64
	for i, st := range steps {
		in.queued, in.busy = st.queued, st.busy
		before := cr.held
		a.fitCaches(0)
		if cr.held < before {
			evicted += int64(before - cr.held)
		}
		for range st.fills {
			a.fill(0, 0)
		}
		if cr.allowed != st.allowed || cr.held != st.held {
			t.Errorf("step %d (%d queued, %d busy): holds %d of %d allowed, want %d of %d", i, st.queued, st.busy, cr.held, cr.allowed, st.held, st.allowed)
		}
		if want := p.keys.hitRatio(cr.held); cr.hit != want {
			t.Errorf("step %d: hit probability %v for %d entries, want %v", i, cr.hit, cr.held, want)
		}
	}
	ii := a.newInstance(0, false) // as a scale fault adds one
	if c := a.insts[ii].caches[0]; c.held != 0 || c.allowed != 2000 || c.hit != 0 {
		t.Errorf("an added instance's cache: %+v, want empty, with room for 2000 entries", c)
	}
	pa := a.rec.Finish(nil)
	if got := pa.Caches[0].Evictions; got != evicted || evicted != 16+2000 {
		t.Errorf("evictions %d, want %d", got, 16+2000)
	}
}

// TestCacheReplay replays the cached scenario: the hit ratio before the slowdown is the
// analytic one for the cache's size and the keys' popularity, the slowdown evicts entries
// and lowers it, and a cache never grows by more than its misses.
func TestCacheReplay(t *testing.T) {
	sc := decode(t, cached)
	pk := fates(t, sc, 1)
	a := pk.Arms[0]
	if len(a.Caches) != 1 || a.Caches[0].Name != "items" {
		t.Fatalf("caches %+v, want items", a.Caches)
	}
	cs := a.Caches[0]
	if cs.Evictions == 0 || cs.EntriesMax != 4000 || cs.EntriesMin >= 4000 {
		t.Errorf("evictions %d, entries %d–%d: want evictions, and a full 2 × 2000 at best", cs.Evictions, cs.EntriesMin, cs.EntriesMax)
	}
	var store packet.LayerStats
	for _, l := range a.Layers {
		if l.Name == "store" {
			store = l
		}
	}
	if store.Attempts != cs.Misses {
		t.Errorf("store was called %d times for %d misses: a call is made for every miss and only then", store.Attempts, cs.Misses)
	}

	p, err := compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	want := p.keys.hitRatio(2000)
	var hits, lookups int64
	for _, row := range a.Series[2:20] {
		hits += row.CacheHits
		lookups += row.CacheHits + row.CacheMisses
		if row.CacheEntries[0] != 4000 {
			t.Errorf("at %v the caches hold %d entries before the slowdown, want 4000", row.T, row.CacheEntries[0])
		}
	}
	sigma := math.Sqrt(want * (1 - want) / float64(lookups))
	if got := float64(hits) / float64(lookups); math.Abs(got-want) > 5*sigma {
		t.Errorf("hit ratio before the slowdown %.4f over %d lookups, want %.4f ± %.4f (5σ)", got, lookups, want, 5*sigma)
	}
	var slowHits, slowLookups int64
	for _, row := range a.Series[25:31] {
		slowHits += row.CacheHits
		slowLookups += row.CacheHits + row.CacheMisses
	}
	if got := float64(slowHits) / float64(slowLookups); got > want-0.1 {
		t.Errorf("hit ratio late in the slowdown %.4f, want well under the %.4f before it", got, want)
	}
	for i := 1; i < len(a.Series); i++ {
		row, prev := a.Series[i], a.Series[i-1]
		if !row.Sampled || !prev.Sampled {
			continue
		}
		// A fill comes when a miss's call succeeds: from a miss in this tick or, for a call
		// still running at its start, the one before (store's calls take milliseconds).
		if grew := int64(row.CacheEntries[0] - prev.CacheEntries[0]); grew > row.CacheMisses+prev.CacheMisses {
			t.Errorf("at %v the caches grew by %d entries on %d misses in this tick and %d in the one before", row.T, grew, row.CacheMisses, prev.CacheMisses)
		}
	}
}

// twoCaches has two caches in one service, each in front of its own store. The instance of
// the start holds every key (it never misses); the one added at 2s starts empty, so each of
// its caches holds exactly what its own misses brought back.
const twoCaches = `
name: two-caches
clock: {duration: 20s, tick: 1s}
load:
  schedule: [{at: 0s, rate: 300/s}]
  keys: {count: 100000, zipf: 1.1}
classes:
  - name: read
    share: 100%
    deadline: 1s
    stages:
      - {name: a-read, dependency: a-store, cache: a-cache}
      - {name: b-read, dependency: b-store, cache: b-cache}
topology:
  entries: [{name: client, target: app, timeout: 800ms}]
  services:
    - {name: app, instances: 1, workers: 50, router: round_robin}
  caches:
    - {name: a-cache, service: app, entries: 100000}
    - {name: b-cache, service: app, entries: 100000}
  dependencies:
    - {name: a-store, service_time: {p50: 2ms, p99: 8ms}}
    - {name: b-store, service_time: {p50: 3ms, p99: 9ms}}
faults:
  - {at: 2s, scale: {service: app, add: 1}}
arms:
  - {name: baseline, policy: {}}
`

// TestCacheFills runs twoCaches and reads the added instance's caches at the end: a call's
// answer fills the cache of its stage on the instance that made it, and only an answer the
// caller was still waiting for (not an error, not an orphan's).
func TestCacheFills(t *testing.T) {
	tests := []struct {
		name   string
		change string // replaces a-store's declaration
		aFills bool
	}{
		{"answers fill", "", true},
		{"errors do not", "{name: a-store, service_time: {p50: 2ms, p99: 8ms}, error_rate: 100%}", false},
		{"orphans do not", "{name: a-store, service_time: {p50: 50ms, p99: 60ms}, timeout: 10ms}", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := twoCaches
			if tt.change != "" {
				src = strings.Replace(src, "{name: a-store, service_time: {p50: 2ms, p99: 8ms}}", tt.change, 1)
			}
			sc := decode(t, src)
			_, a := firstArm(t, sc)
			pa, err := a.run(context.Background(), func(time.Duration) {})
			if err != nil {
				t.Fatal(err)
			}
			if len(a.insts) != 2 {
				t.Fatalf("%d instances, want 2", len(a.insts))
			}
			for slot, cs := range pa.Caches {
				start, added := a.insts[0].caches[slot], a.insts[1].caches[slot]
				if start.held != 100000 {
					t.Errorf("%s: the instance of the start holds %d entries, want all 100000", cs.Name, start.held)
				}
				want := int(cs.Misses) // every miss was the added instance's
				if slot == 0 && !tt.aFills {
					want = 0
				}
				if cs.Misses == 0 && (slot == 0 || tt.aFills) {
					t.Errorf("%s: no misses", cs.Name)
				}
				if added.held != want {
					t.Errorf("%s: the added instance holds %d entries after %d misses, want %d", cs.Name, added.held, cs.Misses, want)
				}
			}
		})
	}
}

// TestCacheMemoryShares checks that two caches of one service share the memory left beside
// the attempts in proportion to their full sizes.
func TestCacheMemoryShares(t *testing.T) {
	src := strings.NewReplacer(
		"{name: app, instances: 1, workers: 50, router: round_robin}", "{name: app, instances: 1, workers: 50, memory: {limit: 10MiB, per_attempt: 1MiB}}",
		"{name: a-cache, service: app, entries: 100000}", "{name: a-cache, service: app, entries: 1000, entry_size: 4KiB}",
		"{name: b-cache, service: app, entries: 100000}", "{name: b-cache, service: app, entries: 500, entry_size: 8KiB}",
	).Replace(twoCaches)
	sc := decode(t, src)
	_, a := firstArm(t, sc)
	in := &a.insts[0]
	for _, tt := range []struct {
		attempts int
		a, b     int
	}{
		{0, 1000, 500}, // 10MiB: both fit whole (3.90625MiB each)
		{4, 768, 384},  // 6MiB left, 3MiB each
		{9, 128, 64},   // 1MiB left
		{20, 0, 0},     // more attempts than memory
	} {
		in.queued = tt.attempts
		a.fitCaches(0)
		if got := [2]int{in.caches[0].allowed, in.caches[1].allowed}; got != [2]int{tt.a, tt.b} {
			t.Errorf("%d attempts: the caches may hold %v entries, want [%d %d]", tt.attempts, got, tt.a, tt.b)
		}
	}
}

// TestLookupDrawsTheKey checks that a lookup's outcome is the request's alone: arms of
// different policies, and an attempt and its retry, look the same request up with the
// same draw, and a larger cache hits every request a smaller one does.
func TestLookupDrawsTheKey(t *testing.T) {
	sc := decode(t, cached)
	sc.Arms = append(sc.Arms, scenario.Arm{Name: "other", Policy: scenario.Policy{
		Deadline: scenario.DeadlinePolicy{Propagate: true, Cancel: true}, Identity: true,
	}})
	p, err := compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	var arms [2]*arm
	for i := range arms {
		if arms[i], err = newArm(p, sc, sc.Arms[i], 7); err != nil {
			t.Fatal(err)
		}
	}
	st := &p.classes[0].stages[0]
	hits := map[int]int{}
	for id := range int64(2000) {
		var first bool
		for _, held := range []int{200, 2000} {
			var got []bool
			for _, a := range arms {
				in := &a.insts[0]
				in.caches[0] = cacheRT{held: held, allowed: held, hit: p.keys.hitRatio(held)}
				for num := int32(1); num <= 2; num++ {
					got = append(got, a.lookup(in, st, &logical{id: id}, &attempt{num: num}))
				}
			}
			for _, g := range got[1:] {
				if g != got[0] {
					t.Fatalf("request %d, %d entries: lookups %v, want the same for both arms and both attempts", id, held, got)
				}
			}
			if held == 200 {
				first = got[0]
			} else if first && !got[0] {
				t.Fatalf("request %d hits 200 entries but misses 2000", id)
			}
			if got[0] {
				hits[held]++
			}
		}
	}
	for _, held := range []int{200, 2000} {
		want := p.keys.hitRatio(held)
		if got := float64(hits[held]) / 2000; math.Abs(got-want) > 5*math.Sqrt(want*(1-want)/2000) {
			t.Errorf("%d entries: %.3f of 2000 requests hit, want %.3f", held, got, want)
		}
	}
}
