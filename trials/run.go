package trials

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
)

// Config defines a sweep: the scenario's identity, the seeds, and how to run them.
type Config struct {
	// Scenario and Digest identify the scenario (see [Digest]).
	Scenario string
	Digest   string
	// Set lists the scenario's inputs changed for the sweep, as PATH=VALUE (recorded).
	Set []string
	// FirstSeed and Trials: the sweep runs seeds FirstSeed … FirstSeed+Trials-1.
	FirstSeed uint64
	Trials    int
	// Shard, if not the zero value, runs only that shard's trials.
	Shard Shard
	// Parallel is how many trials run at once; less than 1 means 1. It changes how long a
	// sweep takes, never its summary.
	Parallel int
}

// RunFunc replays every arm of the scenario with one seed. progress, if not nil, is to be
// called with the simulated time done and the total, from any goroutine.
type RunFunc func(ctx context.Context, seed uint64, progress func(done, total time.Duration)) (*packet.Packet, error)

// Progress is told how far each trial has got: the trial's seed, its simulated time done
// and the total. It is called from the trials' goroutines, possibly at the same time.
type Progress func(seed uint64, done, total time.Duration)

// Run runs the trials of cfg's shard with run, at most cfg.Parallel at once, and returns
// their summary. Only each trial's figures are kept, not its packet, so memory grows with
// the number of trials, not with their length. On an error Run cancels the trials still
// running and returns the error of the lowest seed that failed (other than by that
// cancellation).
func Run(ctx context.Context, cfg Config, run RunFunc, progress Progress) (*Summary, error) {
	if cfg.Trials < 1 {
		return nil, fmt.Errorf("trials: %d trials; expected 1 or more", cfg.Trials)
	}
	if err := cfg.Shard.Validate(); err != nil {
		return nil, err
	}
	if cfg.FirstSeed+uint64(cfg.Trials-1) < cfg.FirstSeed {
		return nil, fmt.Errorf("trials: %d trials from seed %d run past the largest seed, %d", cfg.Trials, cfg.FirstSeed, uint64(math.MaxUint64))
	}
	seeds := cfg.Shard.Seeds(cfg.FirstSeed, cfg.Trials)
	runs := make([]Trial, len(seeds))
	errs := make([]error, len(seeds))
	versions := make([]int, len(seeds))

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(max(cfg.Parallel, 1), max(len(seeds), 1)) {
		wg.Go(func() {
			for i := range next {
				seed := seeds[i]
				var report func(done, total time.Duration)
				if progress != nil {
					report = func(done, total time.Duration) { progress(seed, done, total) }
				}
				p, err := run(ctx, seed, report)
				if err == nil && p == nil {
					err = errors.New("the replay returned no packet")
				}
				if err != nil {
					errs[i] = fmt.Errorf("seed %d: %w", seed, err)
					cancel()
					continue
				}
				runs[i] = newTrial(seed, p)
				versions[i] = p.ModelVersion
			}
		})
	}
feed:
	for i := range seeds {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	// The lowest seed's own failure, not the cancellation it caused in the trials beside it.
	var first error
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, err
		}
		if first == nil {
			first = err
		}
	}
	if first != nil {
		return nil, first
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var shard *Shard
	if !cfg.Shard.Whole() {
		shard = &cfg.Shard
	}
	for i, v := range versions {
		if v != versions[0] {
			return nil, fmt.Errorf("trials: seed %d was replayed by model version %d, seed %d by version %d", seeds[0], versions[0], seeds[i], v)
		}
	}
	s, err := newSummary(cfg.Scenario, cfg.Digest, cfg.Set, cfg.FirstSeed, cfg.Trials, shard, runs)
	if err != nil {
		return nil, err
	}
	if len(versions) > 0 {
		s.ModelVersion = versions[0]
	}
	return s, nil
}

// newTrial keeps the figures of one trial's packet.
func newTrial(seed uint64, p *packet.Packet) Trial {
	r := Trial{Seed: seed, Arms: make([]ArmRun, len(p.Arms))}
	for i := range p.Arms {
		r.Arms[i] = armRun(&p.Arms[i])
	}
	return r
}

// Digest identifies a scenario's inputs, less its seed and number of trials (which a sweep
// records apart): shards whose scenarios differ in anything else have different digests.
func Digest(sc *scenario.Scenario) (string, error) {
	c := *sc
	c.Seed, c.Trials = 0, 0
	b, err := json.Marshal(&c)
	if err != nil {
		return "", fmt.Errorf("trials: digest of scenario %s: %w", sc.Name, err)
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}
