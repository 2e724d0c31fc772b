package report

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/goodput-lab/goodput/packet"
)

// breakdown is a table of the parts of each arm that a mechanism reports on — the cells
// of a scenario with cells, the dependencies an arm's breakers guard — with a row per arm
// and part and a column per figure. The terminal writes it after the comparison table as
// a block of its own, and the page as a table of its own; an arm without such parts has
// no rows, and a packet where no arm has any has no breakdown.
type breakdown struct {
	id    string // the page section's id
	title string // its heading: "Cells"
	note  string // what the figures are, under the heading
	part  string // what a row is: "cell", "dependency"
	cols  []partCol
	arms  []partArm
}

// partCol is a column of a breakdown: its name under an optional group name ("failed
// over" over "out" and "in"). A pageOnly column is on the page but not in the terminal's
// block, which fits 80 columns without it.
type partCol struct {
	group, name string
	pageOnly    bool
}

// label is the column's name with its group's: "failed over out".
func (c partCol) label() string { return strings.TrimSpace(c.group + " " + c.name) }

// partArm is an arm's rows of a breakdown.
type partArm struct {
	name string
	rows []partRow
}

// partRow is one part of an arm: its name and a cell per column.
type partRow struct {
	name  string
	cells []string
}

// breakdowns are the breakdowns of arms, in the order the table and the page show them,
// each only when some arm has its parts. Another mechanism reporting per part (the retry
// jobs an arm replays: a row per job with what it replayed, recovered and failed) adds
// its breakdown here.
func breakdowns(arms []packet.Arm) []*breakdown {
	var out []*breakdown
	for _, b := range []*breakdown{cellBreakdown(arms), breakerBreakdown(arms)} {
		if b != nil {
			out = append(out, b)
		}
	}
	return out
}

// add appends arm's rows, one per part, when it has any.
func (b *breakdown) add(arm string, rows []partRow) {
	if len(rows) > 0 {
		b.arms = append(b.arms, partArm{name: arm, rows: rows})
	}
}

// empty reports whether no arm has a row.
func (b *breakdown) empty() bool { return len(b.arms) == 0 }

// render writes the terminal's block of b to fit width: a blank line and its heading,
// then a row per part under a heading per arm, the figures in columns; when the columns
// do not fit, each part's figures on a line each, under the part's name.
func (b *breakdown) render(out *bytes.Buffer, width int) {
	var cols []int
	for i, c := range b.cols {
		if !c.pageOnly {
			cols = append(cols, i)
		}
	}
	out.WriteString("\n")
	writeWrapped(out, fmt.Sprintf("%s (%s)", b.title, b.note), width)

	g := &grid{right: true}
	for _, i := range cols {
		c := b.cols[i]
		if n := len(g.groups); n > 0 && c.group != "" && g.groups[n-1].name == c.group {
			g.groups[n-1].units = append(g.groups[n-1].units, c.name)
			continue
		}
		g.groups = append(g.groups, colGroup{name: c.group, units: []string{c.name}})
	}
	labelMax := 0
	for _, a := range b.arms {
		g.heading("  " + a.name)
		for _, r := range a.rows {
			cells := make([]string, len(cols))
			for k, i := range cols {
				cells[k] = r.cells[i]
			}
			g.row("    "+r.name, cells...)
			labelMax = max(labelMax, runes(r.name)+4)
		}
	}
	// A part's name does not wrap: the columns give way to the stacked block first.
	if g.render(out, width, labelMax) {
		return
	}
	s := &grid{right: true, groups: []colGroup{{units: []string{""}}}}
	for _, a := range b.arms {
		s.heading("  " + a.name)
		for _, r := range a.rows {
			s.rows = append(s.rows, layoutRow{label: "    " + r.name, heading: true, hang: 4})
			for _, i := range cols {
				s.row("      "+b.cols[i].label(), r.cells[i])
			}
		}
	}
	s.render(out, width, 0)
}

// partTable is a breakdown as the page draws it: a two-line header when a column has a
// group (the group's name spanning its columns), then for each arm a row per part, the
// arm's name spanning its rows.
type partTable struct {
	ID, Title, Note string
	Top             []headCell // the header's first line: arm, part, the groups and the columns without one
	Sub             []string   // its second line: the names of the grouped columns (none if no column has a group)
	Arms            []partArmView
}

// headCell is a cell of a table's header that may span columns or both header lines.
type headCell struct {
	Text             string
	Colspan, Rowspan int    // 1 or more
	Class            string // label for a column of names (aligned left)
}

type partArmView struct {
	armView
	Rows []partRowView
}

type partRowView struct {
	Name  string
	Cells []string
}

// table lays b out for the page, with each arm's name and colour from views.
func (b *breakdown) table(views []armView) partTable {
	t := partTable{ID: b.id, Title: b.title, Note: b.note}
	two := false
	for _, c := range b.cols {
		two = two || c.group != ""
	}
	span := 1
	if two {
		span = 2
	}
	t.Top = []headCell{{Text: "arm", Colspan: 1, Rowspan: span, Class: "label"}, {Text: b.part, Colspan: 1, Rowspan: span, Class: "label"}}
	for i, c := range b.cols {
		switch {
		case c.group == "":
			t.Top = append(t.Top, headCell{Text: c.name, Colspan: 1, Rowspan: span})
			continue
		case i > 0 && b.cols[i-1].group == c.group:
			t.Top[len(t.Top)-1].Colspan++
		default:
			t.Top = append(t.Top, headCell{Text: c.group, Colspan: 1, Rowspan: 1})
		}
		t.Sub = append(t.Sub, c.name)
	}
	for _, a := range b.arms {
		v := partArmView{armView: armView{Name: a.name, Label: a.name}}
		for _, w := range views {
			if w.Name == a.name {
				v.armView = w
				break
			}
		}
		for _, r := range a.rows {
			v.Rows = append(v.Rows, partRowView{Name: r.name, Cells: r.cells})
		}
		t.Arms = append(t.Arms, v)
	}
	return t
}

// Rowspan is how many rows the arm's name spans: one per part.
func (v partArmView) Rowspan() int { return len(v.Rows) }
