// Command goodput is an overload lab for online services: it replays overload incidents as
// deterministic open-loop experiments, verifies declared arithmetic, and checks and renders
// postmortems.
//
// Usage:
//
//	goodput replay FILE.scenario.yaml [--seed N] [--out DIR] [--json] [--quiet] [--fail-on-objectives ARM[,ARM…]] [--junit FILE]
//	goodput replay FILE.scenario.yaml --trials N [--shard i/n] [--parallel N] [--out DIR] [--json] [--fail-on-objectives ARM[,ARM…]] [--junit FILE]
//	goodput attack FILE.scenario.yaml --target URL [--seed N] [--out DIR] [--json]
//	goodput attack URL --rate 500/s --for 30s [--out DIR] [--json]
//	goodput attack URL --rates 100/s,200/s,… --for 20s [--out DIR]
//	goodput merge [--out DIR] [--json] SHARD...
//	goodput report DIR [-o FILE] [--table-only | --html-only]
//	goodput diff A B [--fail-above PCT] [--json]
//	goodput verify FILE.packet.yaml
//	goodput schema scenario|incident
//	goodput incident check [--lenient] FILE|DIR…
//	goodput incident render|site …
//	goodput proxy --upstream URL [FILE.scenario.yaml --dependency NAME] [--listen ADDR] [--seed N] …
//	goodput lab FILE.scenario.yaml [--out DIR] [--with-replay] [--seed N] [--db FILE|postgres://…] [--arms ARM[,ARM…]]
//	goodput demo FILE.scenario.yaml --policy ARM --dep NAME=URL… [--listen ADDR] [--db FILE|postgres://…] [--otel stdout|otlp]
//	goodput demo dependency [--kind risk|payment|all] [--listen ADDR]
//	goodput version (or goodput --version)
//
// Every command exits 0 on success, 1 on an error (a bad input file, a failed invariant or
// check, …), 2 on a usage error (a bad flag or argument: the error and a line pointing at
// 'goodput COMMAND -h') and 3 on a failed gate (replay --fail-on-objectives, diff --fail-above).
//
// default.pgo beside this file is a CPU profile of the Northstar replay; go build and go run
// use it for profile-guided optimisation (docs/benchmarks.md says how to refresh it).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// command is one subcommand: its name, a one-line summary and the function that runs it.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

// commands lists the subcommands in the order `goodput help` prints them.
var commands = []command{
	{"replay", "replay a scenario: baseline and protected arms side by side", runReplay},
	{"attack", "send open-loop load to a live URL: a scenario's, a fixed rate, or rate steps (the overload curve)", runAttack},
	{"merge", "join the trials.json of a sweep's shards into the whole sweep's", runMerge},
	{"report", "redraw the table and report.html from a packet directory, without replaying", runReport},
	{"diff", "compare two packets figure by figure; --fail-above PCT gates regressions", runDiff},
	{"verify", "recompute a packet's declared arithmetic and compare it with the claimed figures", runVerify},
	{"schema", "print the JSON Schema of a file format (scenario or incident)", runSchema},
	{"incident", "check, render or index postmortem documents", runIncident},
	{"proxy", "an HTTP fault proxy applying a dependency's faults on the timeline", runProxy},
	{"lab", "run a scenario's arms live on loopback (service, fault proxies, stubs, load); --with-replay beside the replay", runLab},
	{"demo", "the live lab's reference checkout under a scenario's arm, or a stub dependency", runDemo},
	{"version", "print the module version, VCS revision, Go version and model_version", runVersion},
}

// errUsage marks an error that is about how the command was called; main exits 2 for it.
var errUsage = errors.New("usage")

// errGate marks a run that worked but whose result fails a gate the caller asked for (an
// objective under --fail-on-objectives, a regression under --fail-above); main exits 3 for it,
// so a CI pipeline can tell a failed gate (3) from bad input (2) and from an error (1).
var errGate = errors.New("gate failed")

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "goodput:", err)
		os.Exit(exitCode(err))
	}
}

// exitCode is the process's exit status for an error run returned: 2 for usage, 3 for a
// failed gate, 1 for anything else.
func exitCode(err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		return 2
	case errors.Is(err, errGate):
		return 3
	}
	return 1
}

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		if len(args) == 0 {
			return fmt.Errorf("%w: no command given", errUsage)
		}
		return nil
	}
	if args[0] == "--version" || args[0] == "-version" {
		return usageHint("version", runVersion(args[1:], stdout, stderr))
	}
	for _, c := range commands {
		if c.name == args[0] {
			return usageHint(c.name, c.run(args[1:], stdout, stderr))
		}
	}
	return usageHint("", fmt.Errorf("%w: unknown command %q", errUsage, args[0]))
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "goodput: an overload lab for online services")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'goodput COMMAND -h' for a command's flags; 'goodput --version' is 'goodput version'.")
	fmt.Fprintln(w)
	exitStatus(w, "a bad input file, a failed invariant, a failed check, a file that cannot be written", "replay --fail-on-objectives, diff --fail-above")
}
