package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/goodput-lab/goodput/incident"
)

// runIncident is the 'incident' subcommand: check, render or index postmortem documents
// (*.incident.yaml).
func runIncident(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		incidentUsage(stdout)
		if len(args) == 0 {
			return fmt.Errorf("%w: incident needs a subcommand: check, render or site", errUsage)
		}
		return nil
	}
	switch args[0] {
	case "check":
		return usageHint("incident check", incidentCheck(args[1:], stdout, stderr))
	case "render":
		return usageHint("incident render", incidentRender(args[1:], stdout, stderr))
	case "site":
		return usageHint("incident site", incidentSite(args[1:], stdout, stderr))
	}
	return fmt.Errorf("%w: unknown incident subcommand %q (want check, render or site)", errUsage, args[0])
}

func incidentUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: goodput incident check [--lenient] FILE|DIR…")
	fmt.Fprintln(w, "       goodput incident render FILE [--format html|md] [-o OUT] [--public] [--lenient]")
	fmt.Fprintln(w, "       goodput incident site DIR -o OUT [--lenient]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "check   reports file:line:col: error|warning: … for each problem; exits 1 on errors")
	fmt.Fprintln(w, "render  writes a self-contained HTML page or Markdown (stdout without -o)")
	fmt.Fprintln(w, "site    writes a page per incident and an index with time-to-detect and")
	fmt.Fprintln(w, "        time-to-mitigate distributions")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'goodput incident SUBCOMMAND -h' for its flags.")
	fmt.Fprintln(w)
	exitStatus(w, "a document with check errors, a file that cannot be read or written", "")
}

// lenientFlag defines --lenient, which a subcommand passes on to incident.CheckWith.
func lenientFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("lenient", false, "report a figure the prose states without tying it to the data (a duration matching no interval, a ratio without a claim, a clock time that is no recorded instant) as a warning, not an error")
}

// flagError turns a flag parsing error into the command's error: nil for -h (the usage
// was printed), a usage error otherwise.
func flagError(cmd string, err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return fmt.Errorf("%w: incident %s: %v", errUsage, cmd, err)
}

// incidentFiles expands the arguments: files as given, directories to the
// *.incident.yaml files under them, in lexical order.
func incidentFiles(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil || !st.IsDir() {
			files = append(files, a) // Load reports a missing file as a diagnostic
			continue
		}
		found := 0
		err = filepath.WalkDir(a, func(p string, d iofs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(d.Name(), ".incident.yaml") {
				files = append(files, p)
				found++
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("incident: %w", err)
		}
		if found == 0 {
			return nil, fmt.Errorf("incident: no *.incident.yaml files in %s", a)
		}
	}
	return files, nil
}

// loadChecked loads and checks one document with opts. It writes every diagnostic
// (decoding problems included) to w and returns the document (nil when it could not be
// decoded) and the numbers of errors and warnings.
func loadChecked(file string, opts incident.CheckOptions, w io.Writer) (doc *incident.Document, errs, warns int) {
	doc, err := incident.Load(file)
	var diags []incident.Diagnostic
	if err != nil {
		var de *incident.DecodeError
		if errors.As(err, &de) {
			diags = de.Diagnostics
		} else {
			diags = []incident.Diagnostic{{File: file, Severity: incident.Error, Message: strings.TrimPrefix(unwrapPath(err), "incident: ")}}
		}
		doc = nil
	} else {
		diags = incident.CheckWith(doc, opts)
	}
	for _, d := range diags {
		fmt.Fprintln(w, d)
		if d.Severity == incident.Error {
			errs++
		} else {
			warns++
		}
	}
	if err != nil && errs == 0 {
		errs = 1
	}
	return doc, errs, warns
}

// unwrapPath shortens "open FILE: no such file or directory" to the reason, since the
// diagnostic already names the file.
func unwrapPath(err error) string {
	var pe *iofs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// incidentCheck is 'goodput incident check [--lenient] FILE|DIR…'.
func incidentCheck(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("incident check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	lenient := lenientFlag(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: goodput incident check [--lenient] FILE|DIR…")
		fmt.Fprintln(stderr)
		fmt.Fprintln(stderr, "Checks each postmortem against its own data: milestone order, stated durations,")
		fmt.Fprintln(stderr, "percentages and ratios against the computed ones, the impact series, action items;")
		fmt.Fprintln(stderr, "a figure the prose states that is tied to no interval, instant or figure is an error.")
		fmt.Fprintln(stderr, "Prints file:line:col: error|warning: … per problem on stdout, then one line on stderr:")
		fmt.Fprintln(stderr, "goodput: incident check: N files, N errors, N warnings. A directory stands for the")
		fmt.Fprintln(stderr, "*.incident.yaml files under it.")
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
		fmt.Fprintln(stderr)
		exitStatus(stderr, "a document with check errors, or one that cannot be read", "")
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagError("check", err)
	}
	if len(pos) == 0 {
		return fmt.Errorf("%w: incident check needs at least one file", errUsage)
	}
	files, err := incidentFiles(pos)
	if err != nil {
		return err
	}
	var errs, warns int
	for _, f := range files {
		_, e, w := loadChecked(f, incident.CheckOptions{Lenient: *lenient}, stdout)
		errs, warns = errs+e, warns+w
	}
	fmt.Fprintf(stderr, "goodput: incident check: %s, %s, %s\n", plural(len(files), "file"), plural(errs, "error"), plural(warns, "warning"))
	if errs > 0 {
		return fmt.Errorf("incident check: %s", plural(errs, "error"))
	}
	return nil
}

// incidentRender is 'goodput incident render FILE [--format html|md] [-o OUT] [--public]'.
func incidentRender(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("incident render", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "html", "output `format`: html (a self-contained page) or md (Markdown); default from -o's extension")
	out := fs.String("o", "", "write to `OUT` instead of standard output (with md, the chart goes to OUT's name + .chart.svg)")
	public := fs.Bool("public", false, "render the public-summary form from the document's public section")
	lenient := lenientFlag(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: goodput incident render FILE [--format html|md] [-o OUT] [--public] [--lenient]")
		fmt.Fprintln(stderr)
		fmt.Fprintln(stderr, "Renders a checked postmortem; a document with check errors is not rendered.")
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
		fmt.Fprintln(stderr)
		exitStatus(stderr, "a document with check errors, a file that cannot be read or written", "")
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagError("render", err)
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: incident render takes one file, got %d", errUsage, len(pos))
	}
	formatSet := false
	fs.Visit(func(f *flag.Flag) { formatSet = formatSet || f.Name == "format" })
	if !formatSet && (strings.HasSuffix(*out, ".md") || strings.HasSuffix(*out, ".markdown")) {
		*format = "md"
	}
	if *format != "html" && *format != "md" {
		return fmt.Errorf("%w: incident render: unknown format %q (want html or md)", errUsage, *format)
	}
	file := pos[0]
	doc, errs, _ := loadChecked(file, incident.CheckOptions{Lenient: *lenient}, stderr)
	if errs > 0 {
		return fmt.Errorf("incident render: %s has %s; see above or run goodput incident check %s", file, plural(errs, "error"), file)
	}
	opts := incident.RenderOptions{Public: *public}
	if *out != "" {
		opts.LinkBase = relDir(filepath.Dir(*out), filepath.Dir(file))
	}
	var chart bytes.Buffer
	chartPath := ""
	if *format == "md" && *out != "" && !*public && doc.Series != nil && len(doc.Series.Points) > 0 {
		if err := incident.RenderChartSVG(&chart, doc); err != nil {
			return err
		}
		chartPath = strings.TrimSuffix(*out, filepath.Ext(*out)) + ".chart.svg"
		opts.ChartHref = filepath.Base(chartPath)
	}
	var buf bytes.Buffer
	if *format == "md" {
		err = incident.RenderMarkdown(&buf, doc, opts)
	} else {
		err = incident.RenderHTML(&buf, doc, opts)
	}
	if err != nil {
		return err
	}
	if *out == "" {
		_, err := stdout.Write(buf.Bytes())
		return err
	}
	if chartPath != "" {
		if err := os.WriteFile(chartPath, chart.Bytes(), 0o644); err != nil {
			return fmt.Errorf("incident render: %w", err)
		}
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("incident render: %w", err)
	}
	return nil
}

// relDir is the slash path from directory from to directory to, or "" when they are the
// same or the path cannot be computed.
func relDir(from, to string) string {
	a, err1 := filepath.Abs(from)
	b, err2 := filepath.Abs(to)
	if err1 != nil || err2 != nil {
		return ""
	}
	rel, err := filepath.Rel(a, b)
	if err != nil || rel == "." {
		return ""
	}
	return filepath.ToSlash(rel)
}

// incidentSite is 'goodput incident site DIR -o OUT'.
func incidentSite(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("incident site", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "write the site to directory `OUT` (created if needed; required)")
	lenient := lenientFlag(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: goodput incident site DIR -o OUT [--lenient]")
		fmt.Fprintln(stderr)
		fmt.Fprintln(stderr, "Checks every *.incident.yaml under DIR and writes one page per incident and an")
		fmt.Fprintln(stderr, "index.html with time to detect and time to mitigate as distributions (median,")
		fmt.Fprintln(stderr, "range, count). Nothing is written when a document has check errors.")
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
		fmt.Fprintln(stderr)
		exitStatus(stderr, "a document with check errors, a file that cannot be read or written", "")
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagError("site", err)
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: incident site takes one directory, got %d", errUsage, len(pos))
	}
	if *out == "" {
		return fmt.Errorf("%w: incident site needs -o OUT", errUsage)
	}
	if st, err := os.Stat(pos[0]); err != nil || !st.IsDir() {
		return fmt.Errorf("%w: incident site: %s is not a directory", errUsage, pos[0])
	}
	files, err := incidentFiles(pos)
	if err != nil {
		return err
	}
	var docs []*incident.Document
	errs := 0
	for _, f := range files {
		doc, e, _ := loadChecked(f, incident.CheckOptions{Lenient: *lenient}, stderr)
		errs += e
		if doc != nil {
			docs = append(docs, doc)
		}
	}
	if errs > 0 {
		return fmt.Errorf("incident site: %s in %s; nothing written", plural(errs, "error"), pos[0])
	}
	if err := incident.WriteSite(*out, docs); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s and %s\n", plural(len(docs), "incident page"), filepath.Join(*out, "index.html"))
	return nil
}
