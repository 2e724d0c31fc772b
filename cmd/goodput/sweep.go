package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"goodput/packet"
	"goodput/report"
	"goodput/scenario"
	"goodput/trials"
)

// seedDir is the directory, under a sweep's --out, of one trial's packet (--packets).
func seedDir(seed uint64) string { return fmt.Sprintf("seed-%d", seed) }

// variant is one scenario a sweep runs: the scenario as loaded (with --set), or one value
// of --vary; set lists its overrides and out is where its outputs go ("" for none).
type variant struct {
	sc    *scenario.Scenario
	set   []string
	value string // the --vary value, "" without --vary
	out   string
}

// sweep runs n trials of sc (seeds first, first+1, …; only f.shard's when it is set), for
// each value of --vary if it is given, and writes their summaries: the table, or
// trials.json to stdout with --json, and trials.json and trials.html in --out DIR (one
// directory per value under it with --vary).
func sweep(ctx context.Context, sc *scenario.Scenario, f replayFlags, first uint64, n int, stdout, stderr io.Writer, env replayEnv) error {
	variants := []variant{{sc: sc, set: overrideStrings(f.set), out: f.out}}
	if f.vary != nil {
		variants = nil
		for i, v := range f.vary.Values {
			o := scenario.Override{Path: f.vary.Path, Value: v}
			sci, err := sc.With(o) // sc has the --set overrides already
			if err != nil {
				return fmt.Errorf("%s: --vary: %w", f.file, err)
			}
			vr := variant{sc: sci, set: append(overrideStrings(f.set), o.String()), value: v}
			if f.out != "" {
				vr.out = filepath.Join(f.out, varyDir(i, v))
			}
			variants = append(variants, vr)
		}
	}
	var tp *trialProgress
	if env.terminal && env.now != nil && !f.quiet {
		// The bar's whole is every trial's simulated time, which a --vary value may change.
		var total time.Duration
		for _, v := range variants {
			total += v.sc.Clock.Duration.Std() * time.Duration(len(f.shard.Seeds(first, n)))
		}
		tp = &trialProgress{bar: newProgress(stderr, env.now, progressDelay), total: total, done: map[trialKey]time.Duration{}}
	}
	sums := make([]*trials.Summary, len(variants))
	for i, v := range variants {
		s, err := runTrials(ctx, v, f, first, n, env, tp.forVariant(i))
		if err != nil {
			tp.finish()
			return fmt.Errorf("replay %s: %w", f.file, err)
		}
		sums[i] = s
	}
	tp.finish()
	if f.vary == nil {
		return writeSweep(sums[0], f.out, f.json, f.quiet, stdout, stderr)
	}
	for i, v := range variants {
		if v.out != "" {
			if err := writeSweepDir(sums[i], v.out); err != nil {
				return err
			}
		}
	}
	if !f.quiet {
		values := make([]string, len(variants))
		for i, v := range variants {
			values[i] = v.value
		}
		if err := report.Vary(stdout, f.vary.Path, values, sums); err != nil {
			return err
		}
		if f.out != "" {
			dirs := make([]string, len(variants))
			for i, v := range variants {
				dirs[i] = v.out
			}
			fmt.Fprintf(stderr, "goodput: wrote %s and %s to %s\n", trials.File, report.TrialsHTMLFile, strings.Join(dirs, ", "))
		}
	}
	var failed []string
	for i, s := range sums {
		failed = append(failed, invariantFailures(s, f.vary.Path+"="+variants[i].value+", ")...)
	}
	if len(failed) > 0 {
		return fmt.Errorf("invariant failed: %s", strings.Join(failed, "; "))
	}
	return nil
}

// runTrials runs the trials of one variant.
func runTrials(ctx context.Context, v variant, f replayFlags, first uint64, n int, env replayEnv, update trials.Progress) (*trials.Summary, error) {
	digest, err := trials.Digest(v.sc)
	if err != nil {
		return nil, err
	}
	parallel := f.parallel
	if parallel == 0 {
		parallel = max(1, runtime.GOMAXPROCS(0)/max(1, len(v.sc.Arms)))
	}
	cfg := trials.Config{Scenario: v.sc.Name, Digest: digest, Set: v.set, FirstSeed: first, Trials: n, Shard: f.shard, Parallel: parallel}
	run := func(ctx context.Context, seed uint64, progress func(done, total time.Duration)) (*packet.Packet, error) {
		p, err := env.run(ctx, v.sc, seed, progress)
		if err == nil && p != nil {
			p.Set = v.set
			if f.packets {
				err = writePacketDir(p, filepath.Join(v.out, seedDir(seed)))
			}
		}
		return p, err
	}
	return trials.Run(ctx, cfg, run, update)
}

// varySpec is --vary PATH=V1,V2,…: an input and the values a sweep runs it at.
type varySpec struct {
	Path   string
	Values []string
}

// parseVary parses PATH=V1,V2,…; commas inside {…}, […] or a quoted value do not split
// values. The seed and the number of trials cannot be varied: a sweep sets them itself.
func parseVary(s string) (*varySpec, error) {
	o, err := scenario.ParseOverride(s)
	if err != nil {
		return nil, fmt.Errorf("vary %q: expected PATH=V1,V2,…, for example load.schedule.0.rate=8000/s,9000/s,10000/s", s)
	}
	var values []string
	depth, quote, start := 0, byte(0), 0
	v := o.Value
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case quote == '"' && c == '\\':
			i++ // an escaped character inside double quotes
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case (c == '"' || c == '\'') && strings.TrimSpace(v[start:i]) == "":
			quote = c // a quote opens a quoted scalar only at the start of a value
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth--; depth < 0 {
				return nil, fmt.Errorf("vary %q: a %c closes nothing", s, c)
			}
		case c == ',' && depth == 0:
			values = append(values, strings.TrimSpace(v[start:i]))
			start = i + 1
		}
	}
	if depth > 0 || quote != 0 {
		return nil, fmt.Errorf("vary %q: a bracket or quote is not closed", s)
	}
	values = append(values, strings.TrimSpace(o.Value[start:]))
	for i, v := range values {
		if v == "" {
			return nil, fmt.Errorf("vary %q: value %d is empty", s, i+1)
		}
		if slices.Index(values, v) < i {
			return nil, fmt.Errorf("vary %q: %s is given twice", s, v)
		}
	}
	if o.Path == "seed" || o.Path == "trials" {
		return nil, fmt.Errorf("vary %q: a sweep sets the %s itself; use --seed and --trials", s, o.Path)
	}
	return &varySpec{Path: o.Path, Values: values}, nil
}

// varyDir names the output directory of the i-th value of --vary: its index, then the
// value with % spelled pct and anything else but letters, digits, '.', '_' and '-' replaced
// by '_': "03-9000_s", "01-130pct".
func varyDir(i int, value string) string {
	slug := strings.Map(func(r rune) rune {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_' || r == '-') {
			return r
		}
		return '_'
	}, strings.ReplaceAll(value, "%", "pct"))
	if len(slug) > 40 {
		slug = slug[:40]
	}
	return fmt.Sprintf("%02d-%s", i, slug)
}

// writeSweep writes a sweep's summary and its page to dir (if set), then the table or
// trials.json on stdout. A failed invariant in any trial is an error, reported after everything is written.
func writeSweep(s *trials.Summary, dir string, asJSON, quiet bool, stdout, stderr io.Writer) error {
	if dir != "" {
		if err := writeSweepDir(s, dir); err != nil {
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
	if failed := invariantFailures(s, ""); len(failed) > 0 {
		return fmt.Errorf("invariant failed: %s", strings.Join(failed, "; "))
	}
	return nil
}

// writeSweepDir writes a sweep's trials.json and its page, trials.html, to dir.
func writeSweepDir(s *trials.Summary, dir string) error {
	if err := s.WriteDir(dir); err != nil {
		return err
	}
	return writePage(filepath.Join(dir, report.TrialsHTMLFile), func(w io.Writer) error { return report.TrialsHTML(w, s) })
}

// invariantFailures lists the failed invariants of every trial of s, each prefixed.
func invariantFailures(s *trials.Summary, prefix string) []string {
	var failed []string
	for _, r := range s.Runs {
		for _, a := range r.Arms {
			for _, inv := range a.InvariantsFailed {
				failed = append(failed, fmt.Sprintf("%sseed %d, %s: %s", prefix, r.Seed, a.Name, inv))
			}
		}
	}
	return failed
}

// trialProgress adds up the simulated time every trial of a sweep has done, for one bar.
// Its methods do nothing on a nil *trialProgress.
type trialProgress struct {
	bar   *progress
	total time.Duration // the simulated time of every trial of the sweep, over every --vary value

	mu   sync.Mutex
	done map[trialKey]time.Duration
	sum  time.Duration
}

// trialKey is one trial: a --vary value's index and a seed.
type trialKey struct {
	variant int
	seed    uint64
}

func (t *trialProgress) update(k trialKey, done time.Duration) {
	if t == nil {
		return
	}
	t.mu.Lock()
	if d := done - t.done[k]; d > 0 {
		t.done[k] = done
		t.sum += d
	}
	sum := t.sum
	t.mu.Unlock()
	t.bar.update(sum, t.total)
}

// forVariant is the trials.Progress of the i-th variant's trials; nil on a nil receiver.
func (t *trialProgress) forVariant(i int) trials.Progress {
	if t == nil {
		return nil
	}
	return func(seed uint64, done, _ time.Duration) { t.update(trialKey{i, seed}, done) }
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
