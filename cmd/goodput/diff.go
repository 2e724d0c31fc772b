package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/report"
	"github.com/goodput-lab/goodput/trials"
)

func diffUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintln(w, "usage: goodput diff A B [--fail-above PCT] [--json]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Compares two packets (packet directories, or their packet.json): for every arm in both,")
	fmt.Fprintln(w, "by name, every figure a sweep records (the populations, amplification, latency, queue")
	fmt.Fprintln(w, "age, retries and waste, caches, health checks, recovery), A beside B with the change,")
	fmt.Fprintln(w, "absolute and relative to A. A change for the worse (less goodput, more latency …) is")
	fmt.Fprintln(w, "marked \"worse\"; rejections, shed work and suppressed retries have no direction. Arms in")
	fmt.Fprintln(w, "only one packet are listed. Packets of different scenarios, seeds or model versions are")
	fmt.Fprintln(w, "compared all the same, with a warning on standard error. Each arm's alert rules show when")
	fmt.Fprintln(w, "they first fired in A and in B; a rule that fired in one packet only heads the table.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "--fail-above PCT makes it a regression gate (for CI, on a policy change): it exits 3 when")
	fmt.Fprintln(w, "a figure got worse by more than PCT percent of its value in A, and names each one. A")
	fmt.Fprintln(w, "figure that was 0 in A and got worse, or that A measured and B did not (a recovery that")
	fmt.Fprintln(w, "never came), counts as a regression beyond any PCT. Alerts have no better direction and")
	fmt.Fprintln(w, "are not gated.")
	fmt.Fprintln(w)
	fs.PrintDefaults()
	fmt.Fprintln(w)
	exitStatus(w, "a packet cannot be read", "a figure got worse by more than --fail-above PCT")
}

// runDiff is the 'diff' subcommand: it compares the figures of two packets arm by arm.
func runDiff(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	failAbove := -1.0
	fs.Func("fail-above", "exit 3 when a figure got worse by more than `PCT` percent (relative to A)", func(v string) error {
		x, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
		if err != nil || x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("expected a percentage, 0 or more (such as 5)")
		}
		failAbove = x
		return nil
	})
	asJSON := fs.Bool("json", false, "write the comparison as JSON to standard output instead of the table")
	fs.Usage = func() { diffUsage(stderr, fs) }
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return fmt.Errorf("%w: diff: %v", errUsage, err)
	}
	if len(paths) != 2 {
		fs.Usage()
		return fmt.Errorf("%w: diff takes two packets, A and B, got %d", errUsage, len(paths))
	}
	var pk [2]*packet.Packet
	for i, arg := range paths {
		if pk[i], err = packet.ReadJSON(packetJSONPath(arg)); err != nil {
			return fmt.Errorf("diff: %w", err)
		}
	}
	d := comparePackets(pk[0], pk[1], paths[0], paths[1])
	for _, w := range d.Warnings {
		fmt.Fprintln(stderr, "goodput: diff: warning:", w)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(d); err != nil {
			return err
		}
	} else if err := d.writeTable(stdout); err != nil {
		return err
	}
	if failAbove < 0 {
		return nil
	}
	var over []string
	for _, a := range d.Arms {
		for _, f := range a.Figures {
			if f.Worse != nil && *f.Worse > failAbove {
				over = append(over, a.Name+" "+f.Label+" "+f.worseText())
			}
		}
	}
	if len(over) > 0 {
		n := fmt.Sprintf("%d figures", len(over))
		if len(over) == 1 {
			n = "1 figure"
		}
		return fmt.Errorf("%w: diff: %s worse by more than %s%%: %s", errGate, n, report.Float(failAbove, -1), strings.Join(over, "; "))
	}
	return nil
}

// packetJSONPath is the packet.json an argument names: a packet directory's, or the file.
func packetJSONPath(arg string) string {
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		return filepath.Join(arg, packet.JSONFile)
	}
	return arg
}

// packetDiff is the comparison of packet B with packet A (its JSON form is what --json writes).
type packetDiff struct {
	A        diffSide  `json:"a"`
	B        diffSide  `json:"b"`
	Warnings []string  `json:"warnings"`
	Arms     []armDiff `json:"arms"`
	OnlyInA  []string  `json:"only_in_a"`
	OnlyInB  []string  `json:"only_in_b"`
	figures  []trials.Figure
}

// diffSide names one of the packets compared.
type diffSide struct {
	Path         string   `json:"path"`
	Scenario     string   `json:"scenario"`
	Seed         uint64   `json:"seed"`
	ModelVersion int      `json:"model_version"`
	Set          []string `json:"set,omitempty"`
}

func (s diffSide) String() string {
	v := fmt.Sprintf("%s, seed %d", s.Scenario, s.Seed)
	if s.ModelVersion != 0 {
		v += fmt.Sprintf(", model version %d", s.ModelVersion)
	}
	if len(s.Set) > 0 {
		v += ", --set " + strings.Join(s.Set, " --set ")
	}
	return v
}

// armDiff is one arm's figures and alert rules in both packets.
type armDiff struct {
	Name    string       `json:"name"`
	Figures []figureDiff `json:"figures"`
	// Alerts are the rules of either packet's arm, when it has any.
	Alerts []alertDiff `json:"alerts,omitempty"`
}

// figureDiff is one figure of an arm in A and B. A and B are nil when that packet did not
// measure the figure; Change and ChangePct are nil when there is nothing to compute them
// from (ChangePct also when A is 0). Worse is how much worse B is, in percent of A (+Inf,
// written as null with Regression true in JSON, when A was 0 or B did not measure it); nil
// when B is not worse.
type figureDiff struct {
	Key        string   `json:"key"`
	Label      string   `json:"label"`
	Section    string   `json:"section"`
	Unit       string   `json:"unit"`
	Better     int      `json:"better"`
	A          *float64 `json:"a"`
	B          *float64 `json:"b"`
	Change     *float64 `json:"change"`
	ChangePct  *float64 `json:"change_pct"`
	Regression bool     `json:"regression"`
	Worse      *float64 `json:"-"`

	fig trials.Figure
}

func (f figureDiff) worseText() string {
	switch {
	case f.B == nil:
		return "(not measured in B)"
	case math.IsInf(*f.Worse, 1):
		return fmt.Sprintf("(%s in A, %s in B)", report.FigureValue(f.fig, *f.A, false), report.FigureValue(f.fig, *f.B, false))
	}
	return "(" + pctText(*f.ChangePct) + ")"
}

// comparePackets compares b with a, figure by figure, for the arms they share.
func comparePackets(a, b *packet.Packet, pathA, pathB string) *packetDiff {
	side := func(p *packet.Packet, path string) diffSide {
		return diffSide{Path: path, Scenario: p.Scenario, Seed: p.Seed, ModelVersion: p.ModelVersion, Set: p.Set}
	}
	d := &packetDiff{A: side(a, pathA), B: side(b, pathB), Warnings: []string{}, Arms: []armDiff{},
		OnlyInA: []string{}, OnlyInB: []string{}, figures: trials.Figures()}
	if a.Scenario != b.Scenario {
		d.Warnings = append(d.Warnings, fmt.Sprintf("the packets are of different scenarios (%q and %q)", a.Scenario, b.Scenario))
	}
	if a.Seed != b.Seed {
		d.Warnings = append(d.Warnings, fmt.Sprintf("the packets have different seeds (%d and %d): figures differ by chance as well", a.Seed, b.Seed))
	}
	if a.ModelVersion != b.ModelVersion {
		d.Warnings = append(d.Warnings, fmt.Sprintf("the packets come from different model versions (%d and %d): figures differ by the model as well", a.ModelVersion, b.ModelVersion))
	}
	armOf := func(p *packet.Packet, name string) *packet.Arm {
		for i := range p.Arms {
			if p.Arms[i].Name == name {
				return &p.Arms[i]
			}
		}
		return nil
	}
	for i := range a.Arms {
		x := &a.Arms[i]
		y := armOf(b, x.Name)
		if y == nil {
			d.OnlyInA = append(d.OnlyInA, x.Name)
			continue
		}
		ad := armDiff{Name: x.Name, Figures: []figureDiff{}}
		for _, f := range d.figures {
			fd := compareFigure(f, x, y)
			if f.Optional && fd.A == nil && fd.B == nil {
				continue // a figure neither packet has (no caches, no health checks)
			}
			ad.Figures = append(ad.Figures, fd)
		}
		ad.Alerts = compareAlerts(x, y)
		d.Arms = append(d.Arms, ad)
	}
	for _, y := range b.Arms {
		if armOf(a, y.Name) == nil {
			d.OnlyInB = append(d.OnlyInB, y.Name)
		}
	}
	return d
}

func compareFigure(f trials.Figure, x, y *packet.Arm) figureDiff {
	fd := figureDiff{Key: f.Key, Label: f.Label, Section: f.Section, Unit: f.Unit, Better: f.Better, fig: f}
	if v, ok := f.Value(x); ok {
		fd.A = &v
	}
	if v, ok := f.Value(y); ok {
		fd.B = &v
	}
	inf := math.Inf(1)
	switch {
	case fd.A == nil:
		return fd
	case fd.B == nil:
		if f.Better != 0 {
			fd.Worse, fd.Regression = &inf, true
		}
		return fd
	}
	change := *fd.B - *fd.A
	fd.Change = &change
	if *fd.A != 0 {
		pct := 100 * change / math.Abs(*fd.A)
		fd.ChangePct = &pct
	}
	if f.Better != 0 && change*float64(f.Better) < 0 {
		worse := inf
		if fd.ChangePct != nil {
			worse = math.Abs(*fd.ChangePct)
		}
		fd.Worse, fd.Regression = &worse, true
	}
	return fd
}

// writeTable prints the comparison: the two packets, then one block per arm with a row per
// figure under the sweeps' headings.
func (d *packetDiff) writeTable(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "goodput diff\n  A  %s\n     %s\n  B  %s\n     %s\n", d.A.Path, d.A, d.B.Path, d.B)
	if hs := d.alertHeadlines(); len(hs) > 0 {
		b.WriteString("\nalerts that fired in one packet only\n")
		for _, h := range hs {
			for _, l := range report.Wrap("  "+h, diffWidth, 2) {
				b.WriteString(l + "\n")
			}
		}
	}
	for _, arm := range d.Arms {
		rows := [][]string{{arm.Name, "A", "B", "change", "%", ""}}
		section := ""
		for _, f := range arm.Figures {
			if f.Section != section {
				section = f.Section
				rows = append(rows, []string{section})
			}
			rows = append(rows, f.cells())
		}
		if len(arm.Alerts) > 0 {
			rows = append(rows, []string{sectionDiffAlerts})
			for _, al := range arm.Alerts {
				rows = append(rows, al.cells())
			}
		}
		b.WriteString("\n")
		writeColumns(&b, rows)
	}
	for _, x := range []struct {
		which string
		names []string
	}{{"A", d.OnlyInA}, {"B", d.OnlyInB}} {
		if len(x.names) > 0 {
			fmt.Fprintf(&b, "\nonly in %s: %s\n", x.which, strings.Join(x.names, ", "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cells are the figure's row: label, A, B, change, change in percent, and "worse" for a
// change for the worse.
func (f figureDiff) cells() []string {
	val := func(v *float64) string {
		if v == nil {
			return "–"
		}
		return report.FigureValue(f.fig, *v, false)
	}
	row := []string{"  " + f.Label, val(f.A), val(f.B), "", "", ""}
	if f.Change != nil {
		row[3] = report.FigureValue(f.fig, *f.Change, true)
	}
	if f.ChangePct != nil {
		row[4] = pctText(*f.ChangePct)
	}
	if f.Regression {
		row[5] = "worse"
	}
	return row
}

// pctText formats a relative change: "+12.5%", "−3.0%", "−0.0%" (a change too small to
// show, but a change), "0%".
func pctText(p float64) string {
	s := report.Float(p, 1)
	switch {
	case p == 0:
		return "0%"
	case p < 0 && !strings.HasPrefix(s, "-"):
		return "−" + s + "%"
	case strings.HasPrefix(s, "-"):
		return "−" + s[1:] + "%"
	}
	return "+" + s + "%"
}

// diffWidth is the width the comparison fits: the label column wraps to keep every line
// within it.
const diffWidth = 80

// writeColumns writes rows as columns, the first left-aligned and two spaces from the
// others, which are right-aligned and a space apart; a row of one cell is a heading. A
// label too long for what the other columns leave of diffWidth wraps, its cells on its
// last line.
func writeColumns(b *strings.Builder, rows [][]string) {
	var width []int
	for _, r := range rows {
		if len(r) == 1 {
			continue
		}
		for i, c := range r {
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	if len(width) > 0 {
		rest := 1 // the space before the last column
		for i := 1; i < len(width); i++ {
			rest += width[i] + 1
		}
		width[0] = min(width[0], max(diffWidth-rest-1, 20)) // -1: the second space after the label
	}
	for _, r := range rows {
		if len(r) == 1 {
			b.WriteString(r[0] + "\n")
			continue
		}
		label := report.Wrap(r[0], width[0], 2)
		for _, l := range label[:len(label)-1] {
			b.WriteString(strings.TrimRight(l, " ") + "\n")
		}
		var line strings.Builder
		for i, c := range r {
			if i == 0 {
				c = label[len(label)-1]
			}
			pad := strings.Repeat(" ", max(width[min(i, len(width)-1)]-utf8.RuneCountInString(c), 0))
			switch {
			case i == 0:
				line.WriteString(c + pad)
			case i == len(r)-1:
				if c != "" {
					line.WriteString(" " + c)
				}
			case i == 1:
				line.WriteString("  " + pad + c)
			default:
				line.WriteString(" " + pad + c)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}
