package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/goodput-lab/goodput/live/lab"
	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/report"
	"github.com/goodput-lab/goodput/scenario"
)

// runLab is the 'lab' subcommand: a scenario's arms against real processes on loopback,
// the service, the proxies and the stubs each in a process of its own, which is this
// binary run as the hidden 'goodput lab part' (only with lab.PartEnv set, as the lab sets
// it for its parts).
func runLab(args []string, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if len(args) > 0 && args[0] == "part" && os.Getenv(lab.PartEnv) == "1" {
		return lab.RunPart(ctx, args[1:], os.Stdin, stdout)
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("lab: finding this binary to run the parts: %w", err)
	}
	return labCommand(ctx, args, stdout, stderr, lab.Options{Executable: exe})
}

func labUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintln(w, "usage: goodput lab FILE.scenario.yaml [--out DIR] [--with-replay] [--seed N] [--db FILE|postgres://…] [--arms ARM[,ARM…]]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Runs the scenario live on loopback, one arm after the other: for each arm the stub")
	fmt.Fprintln(w, "dependencies, a fault proxy in front of each with the scenario's faults on the arm's")
	fmt.Fprintln(w, "clock, the reference checkout (goodput demo) under the arm's policy, and the scenario's")
	fmt.Fprintln(w, "open-loop load (goodput attack) against it; then it stops every part, counts duplicate")
	fmt.Fprintln(w, "orders by a query on the database and duplicate authorisations at the payment stub,")
	fmt.Fprintln(w, "and prints the arms side by side. The service, each proxy and each stub runs in a")
	fmt.Fprintln(w, "process of its own (this binary again), so the packet's live.overhead has the CPU of")
	fmt.Fprintln(w, "the generator, of the proxies and stubs, and of the service, each also per request.")
	fmt.Fprintln(w, "Each arm has \"source\": \"live\". --with-replay also")
	fmt.Fprintln(w, "replays the scenario with the same seed and puts its arms (\"source\": \"replay\",")
	fmt.Fprintln(w, "named ARM_replay) beside the live ones. --out writes the packet directory: packet.json,")
	fmt.Fprintln(w, "series.csv, events.jsonl and report.html. On SIGINT or SIGTERM every part stops and")
	fmt.Fprintln(w, "nothing is written.")
	fmt.Fprintln(w)
	fs.PrintDefaults()
	fmt.Fprintln(w)
	exitStatus(w, "a scenario that does not load or that the reference service cannot serve, a database that cannot be opened or fails, a failed invariant, an interrupted run", "")
}

// labFlags are the parsed command line of 'goodput lab'.
type labFlags struct {
	file, out, db string
	withReplay    bool
	seed          uint64
	seedSet       bool
	arms          []string
}

func parseLabFlags(args []string, stderr io.Writer) (labFlags, error) {
	var f labFlags
	fs := flag.NewFlagSet("lab", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.out, "out", "", "write packet.json, series.csv, events.jsonl and report.html to `DIR` (created if needed)")
	fs.BoolVar(&f.withReplay, "with-replay", false, "also replay the scenario with the same seed and put its arms beside the live ones")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the load plan, the proxies' draws and the replay (default: the scenario's seed)")
	fs.StringVar(&f.db, "db", "", "commit every arm's orders to `DB`, a SQLite file or a postgres:// URL (default: a fresh SQLite file per arm in a temporary directory)")
	fs.Func("arms", "run only the arms `ARM[,ARM…]` (default: every arm)", func(v string) error {
		for _, a := range strings.Split(v, ",") {
			if a = strings.TrimSpace(a); a == "" {
				return fmt.Errorf("%q: expected arm names separated by commas", v)
			}
			f.arms = append(f.arms, strings.TrimSpace(a))
		}
		return nil
	})
	fs.Usage = func() { labUsage(stderr, fs) }
	files, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return f, err
	}
	if err != nil {
		return f, fmt.Errorf("%w: lab: %v", errUsage, err)
	}
	fs.Visit(func(fl *flag.Flag) { f.seedSet = f.seedSet || fl.Name == "seed" })
	if len(files) != 1 {
		return f, fmt.Errorf("%w: lab takes one scenario file, got %d: %s", errUsage, len(files), strings.Join(files, " "))
	}
	f.file = files[0]
	if err := lab.CheckDB(f.db); err != nil {
		return f, fmt.Errorf("%w: lab: --db: %v", errUsage, strings.TrimPrefix(err.Error(), "lab: "))
	}
	return f, nil
}

// labCommand runs 'goodput lab' until it is done or ctx ends; base holds the options the
// flags do not set.
func labCommand(ctx context.Context, args []string, stdout, stderr io.Writer, base lab.Options) error {
	f, err := parseLabFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	sc, err := scenario.Load(f.file)
	if err != nil {
		return err
	}
	for _, a := range f.arms {
		if !slices.ContainsFunc(sc.Arms, func(s scenario.Arm) bool { return s.Name == a }) {
			var names []string
			for _, s := range sc.Arms {
				names = append(names, s.Name)
			}
			return fmt.Errorf("%w: lab: --arms: %s has no arm %q; expected one of %s", errUsage, f.file, a, strings.Join(names, ", "))
		}
	}
	seed := sc.Seed
	if f.seedSet {
		seed = f.seed
	}
	o := base
	o.Seed, o.DB, o.Arms = seed, f.db, f.arms
	if o.Executable != "" {
		o.Scenario = f.file
	}
	if o.Log == nil {
		o.Log = func(line string) { fmt.Fprintln(stderr, "goodput lab:", line) }
	}
	p, err := lab.Run(ctx, sc, o)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("lab %s: interrupted; every part is stopped and nothing was written", f.file)
		}
		return fmt.Errorf("lab %s: %w", f.file, err)
	}
	if f.withReplay {
		r, err := runModel(ctx, sc, seed, nil)
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("lab %s: interrupted during the replay; nothing was written", f.file)
			}
			return fmt.Errorf("lab %s: replay: %w", f.file, err)
		}
		if len(f.arms) > 0 {
			r.Arms = slices.DeleteFunc(r.Arms, func(a packet.Arm) bool { return !slices.Contains(f.arms, a.Name) })
		}
		if p, err = lab.Join(p, r); err != nil {
			return fmt.Errorf("lab %s: %w", f.file, err)
		}
	}
	if f.out != "" {
		if err := writePacketDir(p, f.out); err != nil {
			return err
		}
	}
	if err := terminalLayout(stdout).Table(stdout, p); err != nil {
		return err
	}
	if f.out != "" {
		fmt.Fprintf(stderr, "goodput: wrote %s, %s, %s and %s to %s\n", packet.JSONFile, packet.SeriesFile, packet.EventsFile, report.HTMLFile, f.out)
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
		return fmt.Errorf("lab: invariant failed: %s", strings.Join(failed, "; "))
	}
	return nil
}
