package yamlfile

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Error is one problem in a file, at a position: what [Unmarshal] and
// [Decoder.Decode] report, gathered in an [ErrorList].
type Error struct {
	File   string // as given to Unmarshal; "" prints as "<input>"
	Line   int    // 1-based; 0 when the problem has no position (e.g. the file is too big)
	Column int    // 1-based, in characters
	Path   string // YAML path of the value, as in FieldError; "" if none
	Msg    string // what is wrong; what is expected
}

// Error returns "file:line:col: path: msg" on one line.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(cmp.Or(e.File, "<input>"))
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	b.WriteString(": ")
	b.WriteString(e.Problem())
	return b.String()
}

// Problem returns what Error prints after the position: "path: msg", or msg
// alone when there is no path. Formats with an error type of their own use
// it as their message.
func (e *Error) Problem() string {
	if p := displayPath(e.Path); p != "" {
		return p + ": " + e.Msg
	}
	return e.Msg
}

// ErrorList is every problem found in a file, in order of position. Its Error
// method prints one problem per line.
type ErrorList []*Error

// Error returns one "file:line:col: path: msg" line per problem.
func (l ErrorList) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the problems, for [errors.As].
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

func (l ErrorList) sort() {
	slices.SortStableFunc(l, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
}

// FieldError is a problem with the value at a YAML path. Validate methods
// return FieldErrors, usually gathered in an [Errors], so that [Unmarshal] can
// report each one at the file:line:col where the offending value is written.
//
// Path is a YAML path from the document root: "$" is the root, ".key" selects
// a mapping key (keys outside [A-Za-z0-9_-] are written ['key']; see
// [KeyPath]), and "[i]" selects a list element, e.g. "$.classes[1].share" or
// "$.topology.services[0].queue.capacity". Use the YAML key names, not the Go
// field names. A path to a key that is absent (a missing required field) is
// reported at the nearest enclosing value that is present.
//
// Msg says what is wrong and what is expected, separated by "; ", e.g.
// "shares sum to 95%; expected 100%".
type FieldError struct {
	Path string
	Msg  string
}

// Error returns "path: msg" with the "$." prefix dropped.
func (e FieldError) Error() string {
	if p := displayPath(e.Path); p != "" {
		return p + ": " + e.Msg
	}
	return e.Msg
}

// Errors is a list of [FieldError]s. Build it in a Validate method with
// [Errors.Addf] and [Errors.Merge], and return [Errors.Err]:
//
//	func (s *Scenario) Validate() error {
//		var errs yamlfile.Errors
//		if s.Name == "" {
//			errs.Addf("$.name", "missing; expected a name for the scenario")
//		}
//		errs.Merge("$.topology.dependencies[0].service_time", dep.ServiceTime.Validate())
//		return errs.Err()
//	}
type Errors []FieldError

// Addf appends a FieldError at path with a formatted message.
func (e *Errors) Addf(path, format string, args ...any) {
	*e = append(*e, FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
}

// Merge appends err, an error returned by a nested value's Validate, under the
// path prefix: FieldErrors (alone, in an Errors, or in an [errors.Join]) have
// their "$" replaced by prefix; any other error becomes a FieldError at prefix.
// A nil err appends nothing.
func (e *Errors) Merge(prefix string, err error) {
	for _, fe := range fieldErrors(err) {
		*e = append(*e, FieldError{Path: rebase(prefix, fe.Path), Msg: fe.Msg})
	}
}

// Err returns e as an error, or nil if e is empty.
func (e Errors) Err() error {
	if len(e) == 0 {
		return nil
	}
	return e
}

// Error returns one line per FieldError.
func (e Errors) Error() string {
	lines := make([]string, len(e))
	for i, fe := range e {
		lines[i] = fe.Error()
	}
	return strings.Join(lines, "\n")
}

// fieldErrors flattens err into FieldErrors; a plain error becomes one at "$".
func fieldErrors(err error) []FieldError {
	switch x := err.(type) {
	case nil:
		return nil
	case Errors:
		return x
	case *Errors:
		return *x
	case FieldError:
		return []FieldError{x}
	case *FieldError:
		return []FieldError{*x}
	case interface{ Unwrap() []error }:
		var out []FieldError
		for _, e := range x.Unwrap() {
			out = append(out, fieldErrors(e)...)
		}
		return out
	}
	return []FieldError{{Path: "$", Msg: err.Error()}}
}

// rebase replaces the leading "$" of path with prefix.
func rebase(prefix, path string) string {
	if prefix == "" {
		prefix = "$"
	}
	if path == "" || path == "$" {
		return prefix
	}
	if strings.HasPrefix(path, "$") {
		return prefix + path[1:]
	}
	return prefix + "." + path
}

// displayPath drops the "$." prefix: "$.classes[1].share" → "classes[1].share".
func displayPath(p string) string {
	p = strings.TrimPrefix(p, "$")
	return strings.TrimPrefix(p, ".")
}
