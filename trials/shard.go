package trials

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is one part of a sweep split for a batch engine: shard Index of Count runs the
// trials k (counted from 0) with k mod Count = Index, so the shards of one sweep cover
// every trial once and each shard's trials are spread over the whole sweep. The zero
// value is the whole sweep.
//
// Index counts from 0, as a Kubernetes Indexed Job's JOB_COMPLETION_INDEX does:
//
//	goodput replay FILE --trials 40 --shard "$JOB_COMPLETION_INDEX/8" --out out/$JOB_COMPLETION_INDEX
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// ParseShard parses "i/n" (0 ≤ i < n).
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("trials: shard %q: expected i/n, the shard's index from 0 and the number of shards (for example 0/4)", s)
	}
	i, err := strconv.Atoi(strings.TrimSpace(is))
	if err != nil {
		return Shard{}, fmt.Errorf("trials: shard %q: index %q is not a whole number", s, is)
	}
	n, err := strconv.Atoi(strings.TrimSpace(ns))
	if err != nil {
		return Shard{}, fmt.Errorf("trials: shard %q: count %q is not a whole number", s, ns)
	}
	sh := Shard{Index: i, Count: n}
	if n < 1 {
		return Shard{}, fmt.Errorf("trials: shard %q: the number of shards must be 1 or more", s)
	}
	if err := sh.Validate(); err != nil {
		return Shard{}, err
	}
	return sh, nil
}

// Validate reports whether the shard is the zero value or has 0 ≤ Index < Count.
func (s Shard) Validate() error {
	if s == (Shard{}) {
		return nil
	}
	if s.Count < 1 {
		return fmt.Errorf("trials: shard %d/%d: the number of shards must be 1 or more", s.Index, s.Count)
	}
	if s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("trials: shard %d/%d: the index must be from 0 to %d", s.Index, s.Count, s.Count-1)
	}
	return nil
}

// Whole reports whether the shard is the whole sweep (the zero value or 0/1).
func (s Shard) Whole() bool { return s.Count <= 1 }

// String formats the shard as i/n.
func (s Shard) String() string {
	if s.Whole() {
		return "0/1"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Seeds returns the seeds the shard runs, in order, of a sweep of trials seeds from first:
// first+k for every trial k of the shard.
func (s Shard) Seeds(first uint64, trials int) []uint64 {
	step, k := 1, 0
	if !s.Whole() {
		step, k = s.Count, s.Index
	}
	var seeds []uint64
	for ; k < trials; k += step {
		seeds = append(seeds, first+uint64(k))
	}
	return seeds
}
