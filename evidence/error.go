package evidence

import (
	"fmt"
	"strings"
)

// Error is one problem in a packet. Its message says what is wrong and what is expected;
// File, Line and Col say where, when the packet was decoded from a file.
type Error struct {
	File string // the file name given to Decode; empty for a packet built in Go
	Line int    // 1-based; zero when unknown
	Col  int    // 1-based; zero when unknown
	Msg  string
}

// Error formats the problem as `file:line:col: message`, leaving out what is unknown.
func (e *Error) Error() string {
	switch {
	case e.File != "" && e.Line > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	case e.File != "":
		return e.File + ": " + e.Msg
	}
	return "evidence: " + e.Msg
}

// where is a place in a decoded file. For a formula it also says how to map an offset in the
// formula's text back to the file: exact means the text sits in the file as is, starting at
// line:col; block means a literal block scalar whose lines start at line, indented to col.
type where struct {
	file      string
	line, col int
	exact     bool
	block     bool
}

func (w where) errorf(format string, args ...any) *Error {
	return &Error{File: w.file, Line: w.line, Col: w.col, Msg: fmt.Sprintf(format, args...)}
}

// errorAt reports a problem at the offset-th rune of text, a formula that starts at w. An
// offset < 0, or a formula whose text is not in the file as written (escapes, folding),
// points at the formula's start.
func (w where) errorAt(text string, offset int, format string, args ...any) *Error {
	e := w.errorf(format, args...)
	if offset < 0 || w.line == 0 || !(w.exact || w.block) {
		return e
	}
	line, col := 0, 0
	for i, r := range []rune(text) {
		if i == offset {
			break
		}
		if r == '\n' {
			line++
			col = 0
		} else {
			col++
		}
	}
	if line > 0 && !w.block {
		return e
	}
	e.Line += line
	e.Col += col
	return e
}

// place describes w for a message that refers back to it: "line 3" or "".
func (w where) place() string {
	if w.line == 0 {
		return ""
	}
	return fmt.Sprintf("line %d", w.line)
}

// joinPlace appends " at line N" when w is known.
func joinPlace(w where) string {
	if p := w.place(); p != "" {
		return " at " + p
	}
	return ""
}

// quoteList formats names as "a", "b" or "c".
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	switch len(q) {
	case 0:
		return ""
	case 1:
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
