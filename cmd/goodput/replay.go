package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/goodput-lab/goodput/model"
	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/report"
	"github.com/goodput-lab/goodput/scenario"
	"github.com/goodput-lab/goodput/trials"
)

// runReplay is the 'replay' subcommand: it loads a scenario, runs every arm on the same
// offered load and random draws, prints the arms side by side and writes the packet.
func runReplay(args []string, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return replay(ctx, args, stdout, stderr, replayEnv{
		load:     scenario.Load,
		run:      runModel,
		estimate: model.Estimate,
		terminal: isTerminal(stderr),
		now:      time.Now, // the progress bar is the one real-time part of a replay
	})
}

// runModel runs a scenario with the replay model: every arm on its own goroutine, one seed.
func runModel(ctx context.Context, sc *scenario.Scenario, seed uint64, progress func(done, total time.Duration)) (*packet.Packet, error) {
	return model.Run(ctx, sc, model.Options{Seed: seed, Progress: progress})
}

// runScenario runs every arm of sc with seed and returns the comparison packet. progress, if
// not nil, is called with the simulated time done and the total, from any goroutine.
type runScenario func(ctx context.Context, sc *scenario.Scenario, seed uint64, progress func(done, total time.Duration)) (*packet.Packet, error)

// replayEnv is what replay needs from the outside world; tests replace it.
type replayEnv struct {
	load func(path string) (*scenario.Scenario, error)
	run  runScenario
	// estimate estimates a run's cost for the work budget (budget.go); nil checks none.
	estimate func(*scenario.Scenario) (model.Cost, error)
	// terminal reports whether stderr is a terminal: only then is a progress bar drawn.
	terminal bool
	// now reads the wall clock for the progress bar's delay; nil means no progress bar.
	now func() time.Time
}

// progressDelay is how long a run must last before a progress bar appears.
const progressDelay = time.Second

func replayUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintln(w, "usage: goodput replay FILE.scenario.yaml [--seed N] [--set PATH=VALUE]… [--out DIR] [--json] [--quiet]")
	fmt.Fprintln(w, "       goodput replay FILE.scenario.yaml --trials N [--vary PATH=V1,V2,…]… [--shard i/n] [--parallel N] [--seed N] [--out DIR [--packets]] [--json]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Replays the scenario's incident under every arm (policy) on identical offered load and")
	fmt.Fprintln(w, "random draws, prints the arms side by side, and with --out writes packet.json, series.csv,")
	fmt.Fprintln(w, "events.jsonl and report.html (the arms' figures and charts, one page that needs nothing")
	fmt.Fprintln(w, "else). Flags may come before or after FILE. --set changes an input without editing the")
	fmt.Fprintln(w, "file: a list element by its name or index, the value as the file would spell it; the")
	fmt.Fprintln(w, "packet records what was set.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "With more than one trial (--trials, or the scenario's trials:) it runs a sweep: the seeds")
	fmt.Fprintln(w, "N, N+1, …, each a whole replay, and prints every figure's median and range across them,")
	fmt.Fprintln(w, "and each arm's difference from the first arm trial by trial; --out writes trials.json and")
	fmt.Fprintln(w, "trials.html (the same as a page, with each trial as a dot), and with --packets each")
	fmt.Fprintln(w, "trial's packet directory in DIR/seed-N. --shard i/n runs every n-th trial from the i-th")
	fmt.Fprintln(w, "(i from 0) for a batch job; 'goodput merge' joins the shards' trials.json into what one")
	fmt.Fprintln(w, "unsharded run writes. --vary runs the sweep once for each value of an input (as --set)")
	fmt.Fprintln(w, "and prints each figure by value; given for several inputs it runs every combination of")
	fmt.Fprintln(w, "their values (a grid: the last input changes fastest). --out DIR gets a directory per")
	fmt.Fprintln(w, "value, one level per input (DIR/00-VALUE/01-VALUE2, …), vary.html (the grid as a page,")
	fmt.Fprintln(w, "each figure and objective by combination) and vary.json (its manifest, which 'goodput")
	fmt.Fprintln(w, "merge' reads to join a grid's shards).")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "For CI: --fail-on-objectives ARM,… exits 3 when an objective of a named arm fails (in a")
	fmt.Fprintln(w, "sweep: fails in any trial), after every output is written; the message names each with")
	fmt.Fprintln(w, "its value and target. --junit FILE writes JUnit XML: a test suite per arm, a test case")
	fmt.Fprintln(w, "per objective and per invariant (in a sweep, failed when it failed in any trial).")
	fmt.Fprintln(w)
	fs.PrintDefaults()
	fmt.Fprintln(w)
	exitStatus(w, "a bad scenario file, a failed invariant, an output that cannot be written", "an objective of an arm named by --fail-on-objectives failed")
}

// replayFlags are the parsed command line of 'goodput replay'.
type replayFlags struct {
	file    string
	seed    uint64
	seedSet bool
	out     string
	json    bool
	quiet   bool

	set       []scenario.Override
	vary      []*varySpec // one per input varied, in order
	trials    int
	trialsSet bool
	packets   bool
	shard     trials.Shard
	parallel  int

	failOn []string    // --fail-on-objectives: the arms whose objectives gate the exit status
	junit  string      // --junit FILE
	budget budgetFlags // --max-memory, --max-requests, --dry-run
}

// parseReplayFlags parses args, accepting flags before and after the scenario file.
func parseReplayFlags(args []string, stderr io.Writer) (replayFlags, error) {
	var f replayFlags
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Uint64Var(&f.seed, "seed", 0, "random seed (default: the scenario's seed); a sweep's first seed")
	fs.StringVar(&f.out, "out", "", "write packet.json, series.csv, events.jsonl and report.html to `DIR` (created if needed); a sweep writes trials.json and trials.html")
	fs.BoolVar(&f.json, "json", false, "write packet.json (a sweep: trials.json) to standard output instead of the table")
	fs.BoolVar(&f.quiet, "quiet", false, "print nothing on success except what --json asks for")
	fs.Func("set", "change one input of the scenario, `PATH=VALUE` with the file's keys and spelling (repeatable; e.g. topology.dependencies.payment-risk.pool.per_instance=32)", func(v string) error {
		o, err := scenario.ParseOverride(v)
		if err != nil {
			return errors.New(strings.TrimPrefix(err.Error(), "scenario: "))
		}
		f.set = append(f.set, o)
		return nil
	})
	fs.Func("vary", "run the sweep once for each value of an input, `PATH=V1,V2,…` (as --set; e.g. load.schedule.0.rate=8000/s,9000/s,10000/s); repeat it for a grid of every combination", func(v string) error {
		vs, err := parseVary(v)
		if err != nil {
			return err
		}
		for _, o := range f.vary {
			if o.Path == vs.Path {
				return fmt.Errorf("vary %q: %s is already varied", v, vs.Path)
			}
		}
		f.vary = append(f.vary, vs)
		return nil
	})
	fs.IntVar(&f.trials, "trials", 0, "run a sweep of `N` seeds from the first (default: the scenario's trials, else 1)")
	fs.Func("shard", "run only shard `i/n` of the sweep's trials (i from 0; the trials k with k mod n = i)", func(v string) error {
		sh, err := trials.ParseShard(v)
		if err != nil {
			return errors.New(strings.TrimPrefix(err.Error(), "trials: "))
		}
		f.shard = sh
		return nil
	})
	fs.BoolVar(&f.packets, "packets", false, "in a sweep, also write each trial's packet directory to DIR/seed-N (needs --out)")
	fs.IntVar(&f.parallel, "parallel", 0, "run `N` trials of a sweep at once (default: the CPUs divided by the arms, at least 1)")
	fs.Func("fail-on-objectives", "exit 3 when an objective of an arm in `ARM[,ARM…]` fails (repeatable; in a sweep: fails in any trial)", func(v string) (err error) {
		f.failOn, err = parseArmList(v, f.failOn)
		return err
	})
	fs.StringVar(&f.junit, "junit", "", "write the objectives and invariants of every arm as JUnit XML to `FILE`")
	f.budget.register(fs)
	fs.Usage = func() { replayUsage(stderr, fs) }

	files, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return f, err
	}
	if err != nil {
		return f, fmt.Errorf("%w: replay: %v", errUsage, err)
	}
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "seed":
			f.seedSet = true
		case "trials":
			f.trialsSet = true
		}
	})
	if f.trialsSet && f.trials < 1 {
		return f, fmt.Errorf("%w: replay: --trials %d: expected 1 or more", errUsage, f.trials)
	}
	if len(f.vary) > 0 && f.json {
		return f, fmt.Errorf("%w: replay: --json writes one summary; with --vary each value's trials.json goes under --out DIR", errUsage)
	}
	if f.packets && f.out == "" {
		return f, fmt.Errorf("%w: replay: --packets writes each trial's packet under --out DIR; give --out", errUsage)
	}
	if f.parallel < 0 {
		return f, fmt.Errorf("%w: replay: --parallel %d: expected 1 or more (or 0 for the default)", errUsage, f.parallel)
	}
	switch len(files) {
	case 0:
		return f, fmt.Errorf("%w: replay needs a scenario file", errUsage)
	case 1:
		f.file = files[0]
	default:
		return f, fmt.Errorf("%w: replay takes one scenario file, got %d: %s", errUsage, len(files), strings.Join(files, " "))
	}
	return f, nil
}

// replay runs 'goodput replay' with its dependencies passed in.
func replay(ctx context.Context, args []string, stdout, stderr io.Writer, env replayEnv) error {
	f, err := parseReplayFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	sc, err := env.load(f.file)
	if err != nil {
		return err
	}
	if len(f.set) > 0 {
		if sc, err = sc.With(f.set...); err != nil {
			return fmt.Errorf("%s: %w", f.file, err)
		}
	}
	if err := checkGateArms(f.failOn, sc); err != nil {
		return err
	}
	seed := sc.Seed
	if f.seedSet {
		seed = f.seed
	}
	n := max(sc.Trials, 1)
	if f.trialsSet {
		n = f.trials
	}
	if n > 1 || f.shard != (trials.Shard{}) || len(f.vary) > 0 { // any --shard makes a sweep, whose trials.json merge reads
		return sweep(ctx, sc, f, seed, n, stdout, stderr, env)
	}

	if done, err := checkBudget(f.budget, runPlan{file: f.file, variants: []variant{{sc: sc}}, trials: 1, parallel: 1}, f.quiet, stdout, stderr, env.estimate); done || err != nil {
		return err
	}
	var (
		bar    *progress
		update func(done, total time.Duration)
	)
	if env.terminal && env.now != nil && !f.quiet {
		bar = newProgress(stderr, env.now, progressDelay)
		update = bar.update
	}
	p, err := env.run(ctx, sc, seed, update)
	bar.finish()
	if err != nil {
		return fmt.Errorf("replay %s: %w", f.file, err)
	}
	p.Set = overrideStrings(f.set)
	return writeReplay(p, f, stdout, stderr)
}

// overrideStrings formats overrides as PATH=VALUE, nil for none.
func overrideStrings(set []scenario.Override) []string {
	var out []string
	for _, o := range set {
		out = append(out, o.String())
	}
	return out
}

// writeReplay writes the outputs of a finished replay: the packet directory, then the table
// or packet.json on stdout, then the --junit file. A failed invariant is an error, reported
// after everything is written, and so is a failed --fail-on-objectives gate.
func writeReplay(p *packet.Packet, f replayFlags, stdout, stderr io.Writer) error {
	if f.out != "" {
		if err := writePacketDir(p, f.out); err != nil {
			return err
		}
	}
	switch {
	case f.json:
		if err := p.WriteJSON(stdout); err != nil {
			return err
		}
	case !f.quiet:
		if err := terminalLayout(stdout).Table(stdout, p); err != nil {
			return err
		}
	}
	if f.out != "" && !f.quiet {
		fmt.Fprintf(stderr, "goodput: wrote %s, %s, %s and %s to %s\n", packet.JSONFile, packet.SeriesFile, packet.EventsFile, report.HTMLFile, f.out)
	}
	gates := replayOutcomes(p)
	if err := gates.writeJUnit(f.junit); err != nil {
		return err
	}
	var failed []string
	for _, a := range p.Arms {
		for _, inv := range a.Invariants {
			if !inv.Pass {
				failed = append(failed, fmt.Sprintf("%s: %s (%s)", a.Name, inv.Name, inv.Message))
			}
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("replay: invariant failed: %s", strings.Join(failed, "; "))
	}
	return gates.gate(f.failOn)
}

// writePacketDir writes the packet's data files and its report page to dir.
func writePacketDir(p *packet.Packet, dir string) error {
	if err := p.WriteDir(dir); err != nil {
		return err
	}
	return writePage(filepath.Join(dir, report.HTMLFile), func(w io.Writer) error { return report.HTML(w, p) })
}

// writePage renders a page in memory and writes it to path, so that a failed rendering
// leaves no half-written file.
func writePage(path string, render func(io.Writer) error) error {
	var page bytes.Buffer
	if err := render(&page); err != nil {
		return err
	}
	return os.WriteFile(path, page.Bytes(), 0o644) // its error names the path
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// terminalLayout fits the tables to w's width when w is a terminal, else to
// report.DefaultWidth, so that piped output is the same wherever it is made.
func terminalLayout(w io.Writer) report.Terminal {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if width, _, err := term.GetSize(int(f.Fd())); err == nil {
			return report.Terminal{Width: width}
		}
	}
	return report.Terminal{}
}
