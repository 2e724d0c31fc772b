package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/report"
)

func reportUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintln(w, "usage: goodput report DIR [-o FILE] [--table-only | --html-only]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Redraws a replay's outputs from its packet directory (packet.json, series.csv and")
	fmt.Fprintln(w, "events.jsonl, as goodput replay --out writes them) without replaying: prints the")
	fmt.Fprintln(w, "arms side by side and rewrites DIR/report.html, the same bytes the replay wrote. DIR")
	fmt.Fprintln(w, "may also be the path of its packet.json.")
	fmt.Fprintln(w)
	fs.PrintDefaults()
	fmt.Fprintln(w)
	exitStatus(w, "the packet cannot be read or the page cannot be written", "")
}

// runReport is the 'report' subcommand: it reads a packet directory and draws the terminal
// table and report.html from it.
func runReport(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "write the page to `FILE` instead of DIR/report.html")
	tableOnly := fs.Bool("table-only", false, "print the table; write no page")
	htmlOnly := fs.Bool("html-only", false, "write the page; print no table")
	fs.Usage = func() { reportUsage(stderr, fs) }
	dirs, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return fmt.Errorf("%w: report: %v", errUsage, err)
	}
	switch {
	case len(dirs) == 0:
		fs.Usage()
		return fmt.Errorf("%w: report needs a packet directory", errUsage)
	case len(dirs) > 1:
		return fmt.Errorf("%w: report takes one packet directory, got %d: %s", errUsage, len(dirs), strings.Join(dirs, " "))
	case *tableOnly && *htmlOnly:
		return fmt.Errorf("%w: report: --table-only and --html-only exclude each other", errUsage)
	case *tableOnly && *out != "":
		return fmt.Errorf("%w: report: -o names the page, which --table-only does not write", errUsage)
	}
	dir := packetDir(dirs[0])
	p, err := packet.Read(dir)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if !*htmlOnly {
		if err := terminalLayout(stdout).Table(stdout, p); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	if *tableOnly {
		return nil
	}
	path := *out
	if path == "" {
		path = filepath.Join(dir, report.HTMLFile)
	}
	if err := writePage(path, func(w io.Writer) error { return report.HTML(w, p) }); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "goodput: wrote %s\n", path)
	return nil
}

// packetDir is the packet directory an argument names: the directory itself, or the one
// holding a packet.json named by its path.
func packetDir(arg string) string {
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		return filepath.Dir(arg)
	}
	return arg
}
