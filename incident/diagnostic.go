package incident

import "fmt"

// Severity says whether a [Diagnostic] fails the check.
type Severity int

const (
	// Error is a defect: the document disagrees with its own data or misses a required
	// field. `goodput incident check` exits non-zero when there is one.
	Error Severity = iota
	// Warning is something a reviewer should look at but that does not fail the check.
	Warning
)

// String returns "error" or "warning".
func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// Diagnostic is one problem found in a document, at a source position. Line and Col are
// 1-based; they are 0 when the position is unknown.
type Diagnostic struct {
	File     string
	Line     int
	Col      int
	Severity Severity
	Message  string
}

// String formats the diagnostic as "file:line:col: error: message" (the form editors and
// compilers use), leaving out the position parts that are unknown.
func (d Diagnostic) String() string {
	loc := d.File
	if loc == "" {
		loc = "<incident>"
	}
	if d.Line > 0 {
		loc += fmt.Sprintf(":%d", d.Line)
		if d.Col > 0 {
			loc += fmt.Sprintf(":%d", d.Col)
		}
	}
	return fmt.Sprintf("%s: %s: %s", loc, d.Severity, d.Message)
}
