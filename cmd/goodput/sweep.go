package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/report"
	"github.com/goodput-lab/goodput/scenario"
	"github.com/goodput-lab/goodput/trials"
)

// seedDir is the directory, under a sweep's --out, of one trial's packet (--packets).
func seedDir(seed uint64) string { return fmt.Sprintf("seed-%d", seed) }

// variant is one scenario a sweep runs: the scenario as loaded (with --set), or one
// combination of the --vary values; set lists its overrides and out is where its outputs
// go ("" for none), dir that directory relative to --out.
type variant struct {
	sc  *scenario.Scenario
	set []string
	out string
	dir string
}

// sweep runs n trials of sc (seeds first, first+1, …; only f.shard's when it is set), for
// each combination of the --vary values if any are given, and writes their summaries:
// the table, or trials.json to stdout with --json, and trials.json and trials.html in
// --out DIR (with --vary, one directory per combination under it, and the grid's page).
func sweep(ctx context.Context, sc *scenario.Scenario, f replayFlags, first uint64, n int, stdout, stderr io.Writer, env replayEnv) error {
	variants := []variant{{sc: sc, set: overrideStrings(f.set), out: f.out}}
	var grid report.VaryGrid
	if len(f.vary) > 0 {
		var err error
		if variants, grid, err = varyVariants(sc, f); err != nil {
			return err
		}
	}
	gates := sweepOutcomes(sc.Name, variants, grid)
	env.run = gates.record(env.run)
	rp := runPlan{file: f.file, variants: variants, trials: len(f.shard.Seeds(first, n)), parallel: trialsAtOnce(f.parallel, len(sc.Arms))}
	if done, err := checkBudget(f.budget, rp, f.quiet, stdout, stderr, env.estimate); done || err != nil {
		return err
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
	if err := gates.writeJUnit(f.junit); err != nil {
		return err
	}
	if len(f.vary) == 0 {
		if err := writeSweep(sums[0], f.out, f.json, f.quiet, stdout, stderr); err != nil {
			return err
		}
		return gates.gate(f.failOn)
	}
	grid.Sums = sums
	manifest := &trials.Grid{Paths: grid.Paths, Values: grid.Values}
	for _, v := range variants {
		manifest.Dirs = append(manifest.Dirs, filepath.ToSlash(v.dir))
	}
	if err := writeGrid(manifest, grid, f.out, f.quiet, stdout, stderr); err != nil {
		return err
	}
	return gates.gate(f.failOn)
}

// writeGrid writes a grid's sweeps: with out, each combination's trials.json and
// trials.html in its directory (manifest.Dirs, under out), the manifest (vary.json) and
// the grid's page (vary.html); then the table, unless quiet. A failed invariant in any
// trial is an error, reported after everything is written.
func writeGrid(manifest *trials.Grid, grid report.VaryGrid, out string, quiet bool, stdout, stderr io.Writer) error {
	if out != "" {
		grid.Links = nil
		for i, d := range manifest.Dirs {
			if err := writeSweepDir(grid.Sums[i], filepath.Join(out, filepath.FromSlash(d))); err != nil {
				return err
			}
			grid.Links = append(grid.Links, d+"/"+report.TrialsHTMLFile)
		}
		if err := manifest.WriteDir(out); err != nil {
			return err
		}
		if err := writePage(filepath.Join(out, report.VaryHTMLFile), func(w io.Writer) error { return report.VaryHTML(w, grid) }); err != nil {
			return err
		}
	}
	if !quiet {
		if err := terminalLayout(stdout).Vary(stdout, grid); err != nil {
			return err
		}
		if out != "" {
			fmt.Fprintf(stderr, "goodput: wrote %s, %s and each combination's %s and %s to %s (%s)\n", trials.GridFile, report.VaryHTMLFile, trials.File, report.TrialsHTMLFile, out, gridDirs(manifest.Dirs))
		}
	}
	var failed []string
	for i, s := range grid.Sums {
		failed = append(failed, invariantFailures(s, grid.Label(i)+", ")...)
	}
	if len(failed) > 0 {
		return fmt.Errorf("invariant failed: %s", strings.Join(failed, "; "))
	}
	return nil
}

// varyVariants makes a variant of sc (which has the --set overrides already) for every
// combination of the --vary values, in row-major order, and the grid that shows them.
// Two combinations that come to the same scenario are an error: one input varied under
// two paths (a list element by name and by index), or a value that changes nothing.
func varyVariants(sc *scenario.Scenario, f replayFlags) ([]variant, report.VaryGrid, error) {
	g := report.VaryGrid{}
	for _, vs := range f.vary {
		g.Paths = append(g.Paths, vs.Path)
		g.Values = append(g.Values, vs.Values)
	}
	n, err := trials.Combinations(g.Values)
	if err != nil {
		return nil, g, fmt.Errorf("%w: replay: --vary: %v", errUsage, err)
	}
	variants := make([]variant, n)
	seen := map[string]int{} // a scenario's digest: the first combination that came to it
	for i := range variants {
		var (
			overrides []scenario.Override
			dirs      []string
		)
		for k, v := range g.Combination(i) {
			overrides = append(overrides, scenario.Override{Path: g.Paths[k], Value: v, Flag: "--vary"})
			dirs = append(dirs, varyDir(slices.Index(g.Values[k], v), v))
		}
		sci, err := sc.With(overrides...)
		if err != nil {
			return nil, g, fmt.Errorf("%s: %w", f.file, err)
		}
		digest, err := trials.Digest(sci)
		if err != nil {
			return nil, g, err
		}
		if j, ok := seen[digest]; ok {
			return nil, g, fmt.Errorf("%s: --vary: %s and %s give the same scenario; is one input varied under two paths, or does a value change nothing?", f.file, g.Label(j), g.Label(i))
		}
		seen[digest] = i
		vr := variant{sc: sci, set: overrideStrings(append(slices.Clone(f.set), overrides...)), dir: filepath.Join(dirs...)}
		if f.out != "" {
			vr.out = filepath.Join(f.out, vr.dir)
		}
		variants[i] = vr
	}
	return variants, g, nil
}

// gridDirs lists a grid's directories: every one for a handful, else the first and the
// last.
func gridDirs(dirs []string) string {
	if len(dirs) <= 4 {
		return strings.Join(dirs, ", ")
	}
	return fmt.Sprintf("%s, …, %s: %d directories", dirs[0], dirs[len(dirs)-1], len(dirs))
}

// runTrials runs the trials of one variant.
func runTrials(ctx context.Context, v variant, f replayFlags, first uint64, n int, env replayEnv, update trials.Progress) (*trials.Summary, error) {
	digest, err := trials.Digest(v.sc)
	if err != nil {
		return nil, err
	}
	parallel := trialsAtOnce(f.parallel, len(v.sc.Arms))
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

// trialsAtOnce is how many trials of a sweep run at once: --parallel, or by default the
// CPUs divided by the arms, at least 1.
func trialsAtOnce(parallel, arms int) int {
	if parallel == 0 {
		parallel = max(1, runtime.GOMAXPROCS(0)/max(1, arms))
	}
	return parallel
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
		if err := terminalLayout(stdout).Trials(stdout, s); err != nil {
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
		fmt.Fprintln(stderr, "byte for byte what one unsharded run writes. The shards must be of one scenario, model")
		fmt.Fprintln(stderr, "version, first seed and number of trials, and hold every trial once. Shards of a grid (--vary, each")
		fmt.Fprintln(stderr, "SHARD the directory holding its vary.json) are merged combination by combination, and")
		fmt.Fprintln(stderr, "--out DIR gets the whole grid: its directories, vary.json and vary.html.")
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
		fmt.Fprintln(stderr)
		exitStatus(stderr, "a shard that cannot be read or does not fit the others, a failed invariant in a trial, an output that cannot be written", "")
	}
	paths, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: merge: %v", errUsage, err)
	}
	if len(paths) == 0 {
		return fmt.Errorf("%w: merge needs the shards' trials.json files or directories", errUsage)
	}
	grids := 0
	for i, p := range paths {
		if filepath.Base(p) == trials.GridFile {
			paths[i] = filepath.Dir(p) // a grid's shard by its manifest
		}
		if _, err := os.Stat(filepath.Join(paths[i], trials.GridFile)); err == nil {
			grids++
		}
	}
	switch {
	case grids > 0 && grids < len(paths):
		return fmt.Errorf("%w: merge: %d of the %d shards are grids (a %s in the directory); merge shards of one sweep", errUsage, grids, len(paths), trials.GridFile)
	case grids > 0 && *asJSON:
		return fmt.Errorf("%w: merge: --json writes one summary; a grid's go under --out DIR", errUsage)
	case grids > 0:
		return mergeGrid(paths, *out, *quiet, stdout, stderr)
	}
	s, err := mergeShards(paths)
	if err != nil {
		return err
	}
	return writeSweep(s, *out, *asJSON, *quiet, stdout, stderr)
}

// mergeShards merges the summaries at paths (each a trials.json or its directory).
func mergeShards(paths []string) (*trials.Summary, error) {
	parts := make([]*trials.Summary, len(paths))
	for i, p := range paths {
		s, err := trials.ReadFile(p)
		if err != nil {
			return nil, err
		}
		parts[i] = s
	}
	s, err := trials.Merge(parts...)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	return s, nil
}

// mergeGrid merges the shards of a grid, each the directory of its vary.json: the
// summaries in each combination's directory are merged, and the whole grid written.
func mergeGrid(shards []string, out string, quiet bool, stdout, stderr io.Writer) error {
	var manifest *trials.Grid
	for _, sh := range shards {
		g, err := trials.ReadGridFile(sh)
		if err != nil {
			return err
		}
		if manifest == nil {
			manifest = g
		} else if !g.Equal(manifest) {
			return fmt.Errorf("merge: %s is not the grid of %s: its inputs, values or directories differ", sh, shards[0])
		}
	}
	grid := report.VaryGrid{Paths: manifest.Paths, Values: manifest.Values}
	for c, d := range manifest.Dirs {
		paths := make([]string, len(shards))
		for i, sh := range shards {
			paths[i] = filepath.Join(sh, filepath.FromSlash(d))
		}
		s, err := mergeShards(paths)
		if err != nil {
			return fmt.Errorf("%s: %w", d, err)
		}
		// The summary in a combination's directory must be that combination's.
		for k, v := range grid.Combination(c) {
			if o := manifest.Paths[k] + "=" + v; !slices.Contains(s.Set, o) {
				of := "the scenario with nothing set"
				if len(s.Set) > 0 {
					of = strings.Join(s.Set, ", ")
				}
				return fmt.Errorf("merge: %s holds the sweep of %s, not of %s", filepath.Join(shards[0], filepath.FromSlash(d)), of, grid.Label(c))
			}
		}
		grid.Sums = append(grid.Sums, s)
	}
	return writeGrid(manifest, grid, out, quiet, stdout, stderr)
}
