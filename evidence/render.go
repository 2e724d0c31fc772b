package evidence

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteTo writes the report as a table, one row per figure (claimed, computed, difference,
// the tolerance applied and why, and ok, MISMATCH or ERROR), then a summary line, then one
// line per failed figure giving the declared and computed values and the formula.
func (r Report) WriteTo(w io.Writer) (int64, error) {
	var b bytes.Buffer
	if r.Title != "" {
		fmt.Fprintln(&b, r.Title)
	}
	if r.Source != "" {
		fmt.Fprintln(&b, "source:", r.Source)
	}
	if b.Len() > 0 {
		fmt.Fprintln(&b)
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FIGURE\tUNIT\tCLAIMED\tCOMPUTED\tDIFFERENCE\tTOLERANCE\tRESULT")
	var mismatched, broken int
	for _, row := range r.Rows {
		computed, diff := "-", "-"
		result := "ok"
		switch {
		case row.Err != nil:
			result = "ERROR"
			broken++
		default:
			computed = row.formatComputed(row.Computed)
			diff = row.formatComputed(row.Difference())
			if diff != "0" && !strings.HasPrefix(diff, "-") {
				diff = "+" + diff
			}
			if !row.OK {
				result = "MISMATCH"
				mismatched++
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			row.Name, orDash(row.Unit), row.claimed(), computed, diff, row.tolerance(), result)
	}
	tw.Flush()
	noun := "figures"
	if len(r.Rows) == 1 {
		noun = "figure"
	}
	fmt.Fprintf(&b, "\n%d %s: %d ok", len(r.Rows), noun, len(r.Rows)-mismatched-broken)
	if mismatched > 0 {
		fmt.Fprintf(&b, ", %d MISMATCH", mismatched)
	}
	if broken > 0 {
		fmt.Fprintf(&b, ", %d ERROR", broken)
	}
	fmt.Fprintln(&b)
	for _, row := range r.Failed() {
		if row.Err != nil {
			fmt.Fprintf(&b, "ERROR %s: %v\n", row.Name, row.Err)
			continue
		}
		fmt.Fprintf(&b, "MISMATCH %s: declared %s, computed %s from %s; difference %s, allowed %s\n",
			row.Name, withUnit(row.claimed(), row.Unit), withUnit(row.formatComputed(row.Computed), row.Unit),
			oneLine(row.Formula), row.formatComputed(row.Difference()), row.tolerance())
	}
	n, err := w.Write(b.Bytes())
	return int64(n), err
}

func (row Row) claimed() string {
	if row.ClaimText != "" {
		return row.ClaimText
	}
	return strconv.FormatFloat(row.Claimed, 'f', -1, 64)
}

// formatComputed shows v two decimals finer than the tolerance resolves, so a reader sees
// by how much a figure passes or fails: 68.9655 against a claim of 68.97 ± 0.005.
func (row Row) formatComputed(v float64) string {
	if row.Tolerance <= 0 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	d := max(0, int(math.Ceil(-math.Log10(2*row.Tolerance)-1e-9))) + 2
	s := strconv.FormatFloat(v, 'f', min(d, 12), 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

func (row Row) tolerance() string {
	// Round to 12 significant digits first: 0.5 × 10⁻⁴ is 5.000000000000001e-05 in float64.
	tol, _ := strconv.ParseFloat(strconv.FormatFloat(row.Tolerance, 'g', 12, 64), 64)
	t := "±" + strconv.FormatFloat(tol, 'f', -1, 64)
	if row.Tolerance == 0 {
		t = "exact"
	}
	if row.Basis != "" {
		t += " (" + row.Basis + ")"
	}
	return t
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func withUnit(v, unit string) string {
	switch unit {
	case "":
		return v
	case "%", "×":
		return v + unit
	}
	return v + " " + unit
}

// oneLine collapses a formula's white space, so a block formula prints on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
