package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/trials"
)

// manyArms is the comparison with four arms, two of them with long names.
func manyArms() *packet.Packet {
	p := comparison()
	a, b := arm("protected-with-a-very-long-policy-name", true), arm("baseline copy with spaces in its name", false)
	p.Arms = append(p.Arms, a, b)
	return p
}

// TestTablesFitTheWidth checks that no line of any terminal table is longer than the
// width it was laid out for, counted in runes (✓, ×, – and − are one column each, but
// several bytes), from MinWidth up.
func TestTablesFitTheWidth(t *testing.T) {
	s := sweep(t, trials.Config{Scenario: "synthetic", FirstSeed: 1, Trials: 3})
	g := varyGrid(t, []string{"x.y", "z"}, [][]string{{"1", "2"}, {"a", "b"}})
	tables := map[string]func(Terminal, *bytes.Buffer) error{
		"comparison": func(tm Terminal, b *bytes.Buffer) error { return tm.Table(b, comparison()) },
		"four arms":  func(tm Terminal, b *bytes.Buffer) error { return tm.Table(b, manyArms()) },
		"sweep":      func(tm Terminal, b *bytes.Buffer) error { return tm.Trials(b, s) },
		"grid":       func(tm Terminal, b *bytes.Buffer) error { return tm.Vary(b, g) },
	}
	for name, write := range tables {
		for _, width := range []int{MinWidth, 60, 80, 100, 120, 160} {
			var b bytes.Buffer
			if err := write(Terminal{Width: width}, &b); err != nil {
				t.Fatal(err)
			}
			for i, l := range strings.Split(b.String(), "\n") {
				if n := utf8.RuneCountInString(l); n > width {
					t.Errorf("%s at %d: line %d is %d wide: %q", name, width, i+1, n, l)
				}
			}
		}
	}
}

// TestTableLayouts checks which layout each width gets: per-second columns while the
// labels have room, then totals only, then a line per arm under each figure; and that no
// figure is lost on the way.
func TestTableLayouts(t *testing.T) {
	tests := []struct {
		width              int
		perSecond, stacked bool
	}{
		{160, true, false},
		{120, true, false},
		{80, false, false},
		{60, false, false},
		{40, true, true},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if err := (Terminal{Width: tt.width}).Table(&b, comparison()); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if got := strings.Contains(out, "   per s\n"); got != tt.perSecond {
			t.Errorf("width %d: per-second column shown %v, want %v", tt.width, got, tt.perSecond)
		}
		if got := strings.Contains(out, "\n    protected "); got != tt.stacked {
			t.Errorf("width %d: stacked %v, want %v:\n%s", tt.width, got, tt.stacked, out)
		}
		for _, want := range []string{"offered", "goodput floor: goodput per second", "back to Normal", "catalog hit ratio"} {
			if !strings.Contains(out, want) {
				t.Errorf("width %d: lacks %q", tt.width, want)
			}
		}
	}
}

// TestArmNamesFold checks that an arm name wider than its columns folds onto two header
// lines at a hyphen or blank.
func TestArmNamesFold(t *testing.T) {
	var b bytes.Buffer
	if err := (Terminal{Width: 120}).Table(&b, manyArms()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	i := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "protected-with-a-") })
	if i < 0 || !strings.Contains(lines[i+1], "policy-name") || !strings.Contains(lines[i+1], "baseline") {
		t.Errorf("the long arm names did not fold onto two lines:\n%s", strings.Join(lines[:6], "\n"))
	}
}

// TestLastResort checks that a grid too wide for any label column is still written.
func TestLastResort(t *testing.T) {
	g := &grid{groups: []colGroup{{units: []string{""}}}}
	g.row("  a label", strings.Repeat("x", 70))
	var b bytes.Buffer
	if g.render(&b, 40, 20) || b.Len() != 0 {
		t.Errorf("a grid that does not fit was written: %q", b.String())
	}
	if !g.render(&b, 40, 0) || !strings.Contains(b.String(), "  a label") {
		t.Errorf("the last resort wrote %q", b.String())
	}
}

func TestWrap(t *testing.T) {
	tests := []struct {
		text  string
		width int
		want  []string
	}{
		{"short", 10, []string{"short"}},
		{"  two words here", 11, []string{"  two words", "    here"}},
		{"  keep  two  blanks  between", 14, []string{"  keep  two", "    blanks", "    between"}},
		{"averyveryverylongword x", 8, []string{"averyver", "  yveryl", "  ongwor", "  d x"}},
		{"t=3.0 s  Normal → Protected", 16, []string{"t=3.0 s  Normal", "  → Protected"}},
	}
	for _, tt := range tests {
		got := wrap(tt.text, tt.width, 2)
		if !slices.Equal(got, tt.want) {
			t.Errorf("wrap(%q, %d) = %q, want %q", tt.text, tt.width, got, tt.want)
		}
		for _, l := range got {
			if utf8.RuneCountInString(l) > tt.width {
				t.Errorf("wrap(%q, %d): %q is too wide", tt.text, tt.width, l)
			}
		}
	}
}

func TestFold(t *testing.T) {
	tests := []struct {
		name  string
		width int
		want  []string
	}{
		{"baseline", 9, []string{"baseline"}},
		{"deadline-queue", 10, []string{"deadline-", "queue"}},
		{"protected − baseline", 12, []string{"protected −", "baseline"}},
		{"abcdefgh", 4, []string{"abcd", "efgh"}},
	}
	for _, tt := range tests {
		if got := fold(tt.name, tt.width); !slices.Equal(got, tt.want) {
			t.Errorf("fold(%q, %d) = %q, want %q", tt.name, tt.width, got, tt.want)
		}
	}
	if got := longestPiece("deadline-queue x"); got != 9 {
		t.Errorf("longestPiece = %d, want 9", got)
	}
}

// TestSharedLabels checks that the one-replay table, the sweep tables and the pages say
// the same thing in the same words: the sweep figures' labels and headings are those of
// the comparison table where both show a figure.
func TestSharedLabels(t *testing.T) {
	var b bytes.Buffer
	if err := (Terminal{Width: 200}).Table(&b, comparison()); err != nil {
		t.Fatal(err)
	}
	table := b.String()
	figs := map[string]trials.Figure{}
	for _, f := range trials.Figures() {
		figs[f.Key] = f
	}
	for key, row := range map[string]string{
		"amplification":        "amplification: the most amplified layer",
		"amplification_peak":   "the most amplified layer's worst tick",
		"queue_age_max_ms":     "oldest queue age, highest sample (ms)",
		"suppressed":           "retries suppressed (not made)",
		"orphans":              orphansLabel,
		"recovery_stabilize_s": recoveryStable,
		"recovery_drain_s":     recoveryDrained,
		"recovery_normal_s":    recoveryNormal,
		"latency_p99_ms":       "p99",
	} {
		if got := figs[key].Label; got != row {
			t.Errorf("sweep figure %s is labelled %q, the table says %q", key, got, row)
		}
		if !strings.Contains(table, "\n  "+row) {
			t.Errorf("the table has no row %q", row)
		}
	}
	for key, section := range map[string]string{
		"latency_p50_ms":   sectionLatency,
		"queue_age_max_ms": "Queue (sampled once a tick)",
	} {
		if got := figs[key].Section; got != section {
			t.Errorf("sweep section of %s is %q, the table's %q", key, got, section)
		}
	}
	if !strings.Contains(figs["recovery_stabilize_s"].Section, "seconds after the time_to_normal objective's after") ||
		!strings.Contains(table, "Recovery, seconds after t=6 s (the time_to_normal objective's after)") {
		t.Errorf("the recovery headings differ: %q", figs["recovery_stabilize_s"].Section)
	}
	for _, key := range []string{"attempts", "shed"} {
		if l := figs[key].Label; !strings.Contains(l, "(physical work)") && !strings.Contains(l, "(not requests)") {
			t.Errorf("sweep figure %s, %q, does not say it counts no requests", key, l)
		}
	}
	// The page's table is the terminal table's rows.
	page := newPage(comparison())
	rows := build(comparison().Arms).rows
	for i, r := range page.Table {
		if want := strings.TrimLeft(rows[i].label, " "); r.Section+r.Label != want {
			t.Errorf("page row %d is %q, the table's %q", i, r.Section+r.Label, want)
		}
	}
}
