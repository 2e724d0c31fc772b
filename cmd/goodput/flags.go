package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// parseInterspersed parses a subcommand's flags, which may come before, between or after
// the positional arguments, and returns the positional arguments. -h prints fs.Usage (the
// full usage) and returns flag.ErrHelp; a bad flag or value prints nothing and comes back
// as the error, for the command to wrap in errUsage: main then prints it with one line
// pointing at -h (see usageHint). Every subcommand parses its flags with it.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	defer func() { fs.Usage = usage; fs.SetOutput(out) }()
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(out)
				usage()
			}
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// usageHint adds to a usage error of 'goodput CMD' the line that points at its full usage,
// `run 'goodput CMD -h' for usage`; other errors, and usage errors that already carry the
// line, come back as they are. An empty cmd points at 'goodput help'.
func usageHint(cmd string, err error) error {
	var h *hintedError
	if err == nil || !errors.Is(err, errUsage) || errors.As(err, &h) {
		return err
	}
	return &hintedError{err: err, cmd: cmd}
}

// hintedError is a usage error followed by the line that points at the command's -h.
type hintedError struct {
	err error
	cmd string
}

func (e *hintedError) Error() string {
	if e.cmd == "" {
		return e.err.Error() + "\nrun 'goodput help' for usage"
	}
	return fmt.Sprintf("%v\nrun 'goodput %s -h' for usage", e.err, e.cmd)
}

func (e *hintedError) Unwrap() error { return e.err }

// exitStatus writes the exit status paragraph of a command's usage: what makes the command
// exit 1, and what makes it exit 3 if it has a gate ("" for none).
func exitStatus(w io.Writer, failure, gate string) {
	fmt.Fprintln(w, "Exit status:")
	fmt.Fprintln(w, "  0  success")
	fmt.Fprintln(w, "  1  an error: "+failure)
	fmt.Fprintln(w, "  2  a usage error: a bad flag, flag value or argument")
	if gate != "" {
		fmt.Fprintln(w, "  3  a failed gate: "+gate)
	}
}
