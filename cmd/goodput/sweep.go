package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"goodput/packet"
	"goodput/report"
	"goodput/scenario"
	"goodput/trials"
)

// seedDir is the directory, under a sweep's --out, of one trial's packet (--packets).
func seedDir(seed uint64) string { return fmt.Sprintf("seed-%d", seed) }

// sweep runs n trials of sc (seeds first, first+1, …; only f.shard's when it is set) and
// writes their summary: the table, or trials.json to stdout with --json, and trials.json in
// --out DIR.
func sweep(ctx context.Context, sc *scenario.Scenario, f replayFlags, first uint64, n int, stdout, stderr io.Writer, env replayEnv) error {
	digest, err := trials.Digest(sc)
	if err != nil {
		return err
	}
	parallel := f.parallel
	if parallel == 0 {
		parallel = max(1, runtime.GOMAXPROCS(0)/max(1, len(sc.Arms)))
	}
	cfg := trials.Config{Scenario: sc.Name, Digest: digest, Set: overrideStrings(f.set), FirstSeed: first, Trials: n, Shard: f.shard, Parallel: parallel}

	var (
		tp     *trialProgress
		update trials.Progress
	)
	if env.terminal && env.now != nil && !f.quiet {
		tp = &trialProgress{bar: newProgress(stderr, env.now, progressDelay), seeds: len(f.shard.Seeds(first, n)), done: map[uint64]time.Duration{}}
		update = tp.update
	}
	run := func(ctx context.Context, seed uint64, progress func(done, total time.Duration)) (*packet.Packet, error) {
		p, err := env.run(ctx, sc, seed, progress)
		if err == nil && f.packets {
			err = writePacketDir(p, filepath.Join(f.out, seedDir(seed)))
		}
		return p, err
	}
	s, err := trials.Run(ctx, cfg, run, update)
	tp.finish()
	if err != nil {
		return fmt.Errorf("replay %s: %w", f.file, err)
	}
	return writeSweep(s, f.out, f.json, f.quiet, stdout, stderr)
}

// writeSweep writes a sweep's summary and its page to dir (if set), then the table or
// trials.json on stdout. A failed invariant in any trial is an error, reported after everything is written.
func writeSweep(s *trials.Summary, dir string, asJSON, quiet bool, stdout, stderr io.Writer) error {
	if dir != "" {
		if err := s.WriteDir(dir); err != nil {
			return err
		}
		if err := writePage(filepath.Join(dir, report.TrialsHTMLFile), func(w io.Writer) error { return report.TrialsHTML(w, s) }); err != nil {
			return err
		}
	}
	switch {
	case asJSON:
		if err := s.WriteJSON(stdout); err != nil {
			return err
		}
	case !quiet:
		if err := report.Trials(stdout, s); err != nil {
			return err
		}
	}
	if dir != "" && !quiet {
		fmt.Fprintf(stderr, "goodput: wrote %s and %s to %s\n", trials.File, report.TrialsHTMLFile, dir)
	}
	var failed []string
	for _, r := range s.Runs {
		for _, a := range r.Arms {
			for _, inv := range a.InvariantsFailed {
				failed = append(failed, fmt.Sprintf("seed %d, %s: %s", r.Seed, a.Name, inv))
			}
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("invariant failed: %s", strings.Join(failed, "; "))
	}
	return nil
}

// trialProgress adds up the simulated time every trial of a sweep has done, for one bar.
// Its methods do nothing on a nil *trialProgress.
type trialProgress struct {
	bar   *progress
	seeds int

	mu   sync.Mutex
	done map[uint64]time.Duration
	sum  time.Duration
}

func (t *trialProgress) update(seed uint64, done, total time.Duration) {
	if t == nil {
		return
	}
	t.mu.Lock()
	if d := done - t.done[seed]; d > 0 {
		t.done[seed] = done
		t.sum += d
	}
	sum := t.sum
	t.mu.Unlock()
	t.bar.update(sum, total*time.Duration(t.seeds))
}

func (t *trialProgress) finish() {
	if t != nil {
		t.bar.finish()
	}
}

// runMerge is the 'merge' subcommand: it joins the trials.json of a sweep's shards.
func runMerge(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "write the merged trials.json and trials.html to `DIR` (created if needed)")
	asJSON := fs.Bool("json", false, "write the merged trials.json to standard output instead of the table")
	quiet := fs.Bool("quiet", false, "print nothing on success except what --json asks for")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: goodput merge [--out DIR] [--json] [--quiet] SHARD...")
		fmt.Fprintln(stderr)
		fmt.Fprintln(stderr, "Joins the trials.json that 'goodput replay --trials N --shard i/n' wrote for each shard")
		fmt.Fprintln(stderr, "(SHARD is the file or the directory holding it) into the summary of the whole sweep,")
		fmt.Fprintln(stderr, "byte for byte what one unsharded run writes. The shards must be of one scenario, first")
		fmt.Fprintln(stderr, "seed and number of trials, and hold every trial once.")
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	paths, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: merge: %v", errUsage, err)
	}
	if len(paths) == 0 {
		fs.Usage()
		return fmt.Errorf("%w: merge needs the shards' trials.json files or directories", errUsage)
	}
	parts := make([]*trials.Summary, len(paths))
	for i, p := range paths {
		s, err := trials.ReadFile(p)
		if err != nil {
			return err
		}
		parts[i] = s
	}
	s, err := trials.Merge(parts...)
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	return writeSweep(s, *out, *asJSON, *quiet, stdout, stderr)
}
