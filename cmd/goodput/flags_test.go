package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestFlagErrors checks every subcommand: a bad flag or value prints nothing but the error
// and one line pointing at the command's -h, and exits 2.
func TestFlagErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string // the error, less its hint line
		cmd  string // the command the hint names
	}{
		{[]string{"replay", "x.scenario.yaml", "--shard", "3/2"}, `usage: replay: invalid value "3/2" for flag -shard: `, "replay"},
		{[]string{"replay", "--bogus", "x.scenario.yaml"}, "usage: replay: flag provided but not defined: -bogus", "replay"},
		{[]string{"replay", "x.yaml", "--fail-on-objectives", "a,,b"}, `usage: replay: invalid value "a,,b" for flag -fail-on-objectives: `, "replay"},
		{[]string{"replay"}, "usage: replay needs a scenario file", "replay"},
		{[]string{"merge", "--json=maybe"}, `usage: merge: invalid boolean value "maybe" for -json`, "merge"},
		{[]string{"verify", "-x", "a.packet.yaml"}, "usage: verify: flag provided but not defined: -x", "verify"},
		{[]string{"schema", "-x"}, "usage: schema: flag provided but not defined: -x", "schema"},
		{[]string{"schema", "nothing"}, `usage: unknown format "nothing"`, "schema"},
		{[]string{"incident", "check", "--strict", "a.incident.yaml"}, "usage: incident check: flag provided but not defined: -strict", "incident check"},
		{[]string{"incident", "render", "a.incident.yaml", "-o"}, "usage: incident render: flag needs an argument: -o", "incident render"},
		{[]string{"incident", "site", "dir"}, "usage: incident site needs -o OUT", "incident site"},
		{[]string{"incident", "bogus"}, `usage: unknown incident subcommand "bogus"`, "incident"},
		{[]string{"version", "--short"}, "usage: version: flag provided but not defined: -short", "version"},
		{[]string{"--version", "extra"}, "usage: version takes no arguments, got extra", "version"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		err := run(tt.args, &stdout, &stderr)
		if exitCode(err) != 2 {
			t.Errorf("%q: exit %d (%v), want 2", tt.args, exitCode(err), err)
			continue
		}
		msg, hint, _ := strings.Cut(err.Error(), "\n")
		if !strings.HasPrefix(msg, tt.want) {
			t.Errorf("%q: error %q, want it to begin %q", tt.args, msg, tt.want)
		}
		if want := "run 'goodput " + tt.cmd + " -h' for usage"; hint != want {
			t.Errorf("%q: hint %q, want %q", tt.args, hint, want)
		}
		if stdout.Len() != 0 || stderr.Len() != 0 {
			t.Errorf("%q: printed stdout %q, stderr %q; want only the error", tt.args, stdout.String(), stderr.String())
		}
	}

	var stdout, stderr bytes.Buffer
	err := run([]string{"bogus"}, &stdout, &stderr)
	if exitCode(err) != 2 || err.Error() != "usage: unknown command \"bogus\"\nrun 'goodput help' for usage" || stderr.Len() != 0 {
		t.Errorf("unknown command: %q, stderr %q", err, stderr.String())
	}
}

// TestHelpExitStatus checks that -h prints a command's full usage, with its exit status,
// and exits 0.
func TestHelpExitStatus(t *testing.T) {
	tests := []struct {
		args  []string
		usage string // the usage's first line
		gate  bool   // the command has a gate: exit status 3
	}{
		{[]string{"replay", "-h"}, "usage: goodput replay FILE.scenario.yaml", true},
		{[]string{"merge", "-h"}, "usage: goodput merge", false},
		{[]string{"verify", "--help"}, "usage: goodput verify", false},
		{[]string{"schema", "-h"}, "usage: goodput schema", false},
		{[]string{"incident", "-h"}, "usage: goodput incident check", false},
		{[]string{"incident", "check", "-h"}, "usage: goodput incident check [--lenient]", false},
		{[]string{"incident", "render", "-h"}, "usage: goodput incident render", false},
		{[]string{"incident", "site", "-h"}, "usage: goodput incident site", false},
		{[]string{"version", "-h"}, "usage: goodput version", false},
		{[]string{"report", "-h"}, "usage: goodput report DIR", false},
		{[]string{"diff", "-h"}, "usage: goodput diff A B", true},
		{[]string{"attack", "-h"}, "usage: goodput attack FILE.scenario.yaml", false},
		{[]string{"proxy", "-h"}, "usage: goodput proxy", false},
		{[]string{"help"}, "goodput: an overload lab", true},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		if err := run(tt.args, &stdout, &stderr); err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		out := stdout.String() + stderr.String()
		if !strings.HasPrefix(out, tt.usage) {
			t.Errorf("%q: output begins %q, want %q", tt.args, strings.SplitN(out, "\n", 2)[0], tt.usage)
		}
		for _, want := range []string{"Exit status:\n", "  0  success\n", "  1  an error: ", "  2  a usage error: "} {
			if !strings.Contains(out, want) {
				t.Errorf("%q: no %q in the usage:\n%s", tt.args, want, out)
			}
		}
		if got := strings.Contains(out, "  3  a failed gate: "); got != tt.gate {
			t.Errorf("%q: exit status 3 documented: %v, want %v", tt.args, got, tt.gate)
		}
	}
}
