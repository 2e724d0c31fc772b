package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/goodput-lab/goodput/evidence"
)

// runVerify is the 'verify' subcommand: it recomputes each packet's declared arithmetic,
// prints claimed against computed figures, and fails if any figure does not match its claim.
func runVerify(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: goodput verify FILE.packet.yaml ...")
		fmt.Fprintln(fs.Output())
		fmt.Fprintln(fs.Output(), "Recomputes every figure a packet declares from its inputs and formulas, prints")
		fmt.Fprintln(fs.Output(), "claimed against computed values, and exits non-zero if any figure does not match")
		fmt.Fprintln(fs.Output(), "its claim at the precision the claim is stated to.")
		fmt.Fprintln(fs.Output())
		exitStatus(fs.Output(), "a figure that does not match its claim, a packet file that cannot be read", "")
	}
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return fmt.Errorf("%w: verify: %v", errUsage, err)
	}
	if len(paths) == 0 {
		return fmt.Errorf("%w: verify: no packet file given", errUsage)
	}
	var failed []string
	for i, path := range paths {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		p, err := evidence.Load(path)
		if err != nil {
			return fmt.Errorf("verify: %w", err)
		}
		rep := p.Verify()
		if _, err := rep.WriteTo(stdout); err != nil {
			return fmt.Errorf("verify: %w", err)
		}
		if bad := rep.Failed(); len(bad) > 0 {
			names := make([]string, len(bad))
			for j, row := range bad {
				names[j] = row.Name
			}
			failed = append(failed, fmt.Sprintf("%d of %d figures in %s did not match (%s)",
				len(bad), len(rep.Rows), path, strings.Join(names, ", ")))
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("verify: %s", strings.Join(failed, "; "))
	}
	return nil
}
