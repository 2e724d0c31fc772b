package report

import (
	"bytes"
	"cmp"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/trials"
)

// DefaultWidth is the width the terminal tables fit when nothing says how wide the
// terminal is (output to a pipe or a file): [Table], [Trials] and [Vary] use it.
const DefaultWidth = 100

// MinWidth is the narrowest width the tables keep to: below it, some lines are longer.
const MinWidth = 40

// Terminal writes the terminal tables to fit a terminal Width columns wide: the label
// column wraps, long arm names fold onto two header lines, and a table still too wide
// leaves out its per-second columns, folds each sweep cell's range under its median, or
// stacks the arms (each figure's label on a line of its own, then a line per arm). Width
// is counted in runes. Call [Terminal.Table], [Terminal.Trials] or [Terminal.Vary].
type Terminal struct {
	// Width is the number of columns a line may take; 0 means DefaultWidth, and less than
	// MinWidth means MinWidth.
	Width int
}

func (t Terminal) width() int {
	if t.Width <= 0 {
		return DefaultWidth
	}
	return max(t.Width, MinWidth)
}

// Table writes the comparison table of p ([Table]) to fit t's width.
func (t Terminal) Table(w io.Writer, p *packet.Packet) error { return writeTable(w, p, t.width()) }

// Trials writes a sweep's summary ([Trials]) to fit t's width.
func (t Terminal) Trials(w io.Writer, s *trials.Summary) error { return trialsTable(w, s, t.width()) }

// Vary writes the table of a grid of sweeps ([Vary]) to fit t's width.
func (t Terminal) Vary(w io.Writer, g VaryGrid) error { return varyTable(w, g, t.width()) }

// gap is the blank between two columns; maxLabel is the widest a label column gets
// (longer labels wrap), so that the figures stay near their labels on a wide terminal.
const gap, maxLabel = 3, 60

// grid is a table of rows under a header of column groups, laid out to a width by render.
type grid struct {
	groups []colGroup
	rows   []layoutRow
	right  bool // cells aligned right (numbers), else left
}

// colGroup is a header over one or more columns: a name (folded onto two lines when it is
// wider than its columns) and a unit under each column ("" for none).
type colGroup struct {
	name  string
	units []string
}

// layoutRow is a line of the table: a heading on a line of its own (wrapped to the width),
// or a label (with its indent) and a cell per column; a cell's lines are separated by
// "\n", and a missing cell is empty.
type layoutRow struct {
	label   string
	heading bool
	hang    int // a heading's lines after the first are indented this much more; 0 means 2
	cells   []string
}

func (g *grid) heading(label string) { g.rows = append(g.rows, layoutRow{label: label, heading: true}) }

func (g *grid) row(label string, cells ...string) {
	g.rows = append(g.rows, layoutRow{label: label, cells: cells})
}

func runes(s string) int { return utf8.RuneCountInString(s) }

// render writes g to out and returns true if every line fits width with a label column
// at least minLabel wide (or as wide as the widest label, if that is less); otherwise it
// writes nothing and returns false. With minLabel 0 it always writes the table.
func (g *grid) render(out *bytes.Buffer, width, minLabel int) bool {
	var units []string
	var first []int // the first column of each group
	for _, gr := range g.groups {
		first = append(first, len(units))
		units = append(units, gr.units...)
	}
	colW := make([]int, len(units))
	for c, u := range units {
		colW[c] = runes(u)
	}
	labelMax := 0
	for _, r := range g.rows {
		if r.heading {
			continue
		}
		labelMax = max(labelMax, runes(r.label))
		for c, cell := range r.cells {
			if c >= len(colW) {
				break
			}
			for _, l := range strings.Split(cell, "\n") {
				colW[c] = max(colW[c], runes(l))
			}
		}
	}
	// A group's name may take two lines over its columns; widen its first column if not.
	span := func(i int) int {
		n := len(g.groups[i].units)
		s := gap * (n - 1)
		for c := first[i]; c < first[i]+n; c++ {
			s += colW[c]
		}
		return s
	}
	names := make([][]string, len(g.groups))
	nameLines := 0
	for i, gr := range g.groups {
		if len(gr.units) == 0 {
			continue
		}
		// Break the name only where it has a blank, hyphen, underscore, dot or slash.
		for span(i) < longestPiece(gr.name) || len(fold(gr.name, span(i))) > 2 {
			colW[first[i]]++
		}
		names[i] = fold(gr.name, span(i))
		nameLines = max(nameLines, len(names[i]))
	}
	cols := 0
	for _, w := range colW {
		cols += gap + w
	}
	labelW := min(labelMax, width-cols, maxLabel)
	if labelW < min(minLabel, labelMax) || labelW < 1 && labelMax > 0 {
		if minLabel > 0 {
			return false
		}
		// The last resort (minLabel 0) always renders: its lines may pass width.
		labelW = min(labelMax, 12)
	}

	var b bytes.Buffer
	line := func(label string, cells []string) {
		var l strings.Builder
		l.WriteString(label)
		l.WriteString(strings.Repeat(" ", max(labelW-runes(label), 0)))
		for c, w := range colW {
			cell := ""
			if c < len(cells) {
				cell = cells[c]
			}
			l.WriteString(strings.Repeat(" ", gap))
			pad := strings.Repeat(" ", max(w-runes(cell), 0))
			if g.right {
				l.WriteString(pad + cell)
			} else {
				l.WriteString(cell + pad)
			}
		}
		b.WriteString(strings.TrimRight(l.String(), " "))
		b.WriteByte('\n')
	}
	// The header: the groups' names, bottom-aligned, then the units.
	for k := range nameLines {
		var l strings.Builder
		l.WriteString(strings.Repeat(" ", labelW))
		for i := range g.groups {
			if len(g.groups[i].units) == 0 {
				continue
			}
			s := ""
			if j := k - (nameLines - len(names[i])); j >= 0 {
				s = names[i][j]
			}
			pad := strings.Repeat(" ", span(i)-runes(s))
			l.WriteString(strings.Repeat(" ", gap))
			if g.right {
				l.WriteString(pad + s)
			} else {
				l.WriteString(s + pad)
			}
		}
		if t := strings.TrimRight(l.String(), " "); t != "" {
			b.WriteString(t + "\n")
		}
	}
	if strings.Join(units, "") != "" {
		line("", units)
	}
	for _, r := range g.rows {
		if r.heading {
			for _, l := range wrap(r.label, width, cmp.Or(r.hang, 2)) {
				b.WriteString(l + "\n")
			}
			continue
		}
		labels := wrap(r.label, labelW, 2)
		cells := make([][]string, len(r.cells))
		h := len(labels)
		for c, cell := range r.cells {
			cells[c] = strings.Split(cell, "\n")
			h = max(h, len(cells[c]))
		}
		for k := range h {
			label := ""
			if k < len(labels) {
				label = labels[k]
			}
			row := make([]string, len(cells))
			for c := range cells {
				if k < len(cells[c]) {
					row[c] = cells[c][k]
				}
			}
			line(label, row)
		}
	}
	out.Write(b.Bytes())
	return true
}

// wrap breaks text into lines of at most width runes at its blanks (a word longer than a
// line is cut), keeping its indent and the blanks between words on a line, and indenting
// the lines after the first hang more.
func wrap(text string, width, hang int) []string {
	body := strings.TrimLeft(text, " ")
	indent := len(text) - len(body)
	if runes(text) <= width || body == "" {
		return []string{text}
	}
	var lines []string
	cur := strings.Repeat(" ", indent)
	curLen, empty := indent, true
	cont := strings.Repeat(" ", min(indent+hang, max(width/2, 0)))
	for _, w := range words(body) {
		word, sep := w[0], w[1]
		for {
			n := runes(word)
			if !empty && curLen+len(sep)+n > width {
				lines = append(lines, cur)
				cur, curLen, empty = cont, len(cont), true
				continue
			}
			if empty && curLen+n > width && width-curLen > 0 {
				// A word longer than a line: cut it.
				r := []rune(word)
				k := width - curLen
				lines = append(lines, cur+string(r[:k]))
				word = string(r[k:])
				cur, curLen = cont, len(cont)
				continue
			}
			if !empty {
				cur += sep
				curLen += len(sep)
			}
			cur += word
			curLen += n
			empty = false
			break
		}
	}
	return append(lines, cur)
}

// words splits text at its blanks into each word and the blanks before it.
func words(text string) [][2]string {
	var out [][2]string
	sep := ""
	for len(text) > 0 {
		i := strings.IndexByte(text, ' ')
		if i < 0 {
			i = len(text)
		}
		if i > 0 {
			out = append(out, [2]string{text[:i], sep})
			sep = ""
		}
		for i < len(text) && text[i] == ' ' {
			sep += " "
			i++
		}
		text = text[i:]
	}
	return out
}

// fold breaks a name into lines of at most width runes, after a space, hyphen,
// underscore, dot or slash where it can, else anywhere.
func fold(name string, width int) []string {
	r := []rune(name)
	if len(r) <= width || width < 1 {
		return []string{name}
	}
	cut := width
	for i := width; i > 0; i-- {
		if strings.ContainsRune(" -_./", r[i-1]) {
			cut = i
			break
		}
	}
	head := strings.TrimRight(string(r[:cut]), " ")
	return append([]string{head}, fold(strings.TrimLeft(string(r[cut:]), " "), width)...)
}

// longestPiece is the width of the longest piece of name between the places fold breaks
// it, each piece with the separator that ends it.
func longestPiece(name string) int {
	n, longest := 0, 0
	for _, r := range name {
		n++
		switch {
		case r == ' ': // dropped where the name breaks
			longest, n = max(longest, n-1), 0
		case strings.ContainsRune("-_./", r):
			longest, n = max(longest, n), 0
		}
	}
	return max(longest, n)
}

// headerLine writes parts joined by three blanks, starting a new line (indented two)
// where the next part would pass width.
func headerLine(b *bytes.Buffer, width int, parts ...string) {
	cur := ""
	for _, p := range parts {
		if p == "" {
			continue
		}
		switch {
		case cur == "":
			cur = p
		case runes(cur)+gap+runes(p) <= width:
			cur += strings.Repeat(" ", gap) + p
		default:
			writeWrapped(b, cur, width)
			cur = "  " + p
		}
	}
	writeWrapped(b, cur, width)
}

// writeWrapped writes text wrapped to width, a line each.
func writeWrapped(b *bytes.Buffer, text string, width int) {
	for _, l := range wrap(text, width, 2) {
		b.WriteString(l + "\n")
	}
}

// Wrap breaks text into lines of at most width runes at its blanks, keeping its indent and
// indenting the lines after the first hang more: the label wrapping of the tables, for a
// command that lays out a table of its own.
func Wrap(text string, width, hang int) []string { return wrap(text, width, hang) }
