package scenario

import (
	"cmp"
	"encoding"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
	"github.com/invopop/jsonschema"
)

// Limits that keep decoding fast on hostile input. A real scenario is a few
// kilobytes with a nesting depth under ten.
const (
	maxFileSize = 1 << 20 // bytes
	maxNesting  = 64      // flow collections ([ {) open at once, or block indicators (- ? & !) on one line
	maxKeys     = 256     // keys in one block mapping (the parser's cost grows with the square of it)
	maxValues   = 100_000 // values decoded, counting each expansion of an alias
	maxErrors   = 50      // errors reported before giving up
)

// FieldError is a problem with the value at a YAML path. Validate methods in
// this package (and the Scenario's Validate) return FieldErrors, usually
// gathered in an [Errors], so that [Decode] can report each one at the
// file:line:col where the offending value is written.
//
// Path is a YAML path from the document root: "$" is the root, ".key" selects
// a mapping key (keys outside [A-Za-z0-9_-] are written ['key']), and "[i]"
// selects a list element, e.g. "$.classes[1].share" or
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
//		var errs Errors
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
	if err == nil {
		return
	}
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

// Error is one problem in a file, at a position: what [Decode], [Load] and
// [Unmarshal] report, gathered in an [ErrorList].
type Error struct {
	File   string // as given to Decode; "" prints as "<input>"
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
	if p := displayPath(e.Path); p != "" {
		b.WriteString(p)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
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

// Load reads the scenario file at path and decodes it with [Decode].
func Load(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return Decode(path, data)
}

// Decode decodes a scenario from data, strictly, then validates it. filename
// is only used in error messages.
//
// Unknown keys, duplicate keys, values of the wrong type, quantities without
// units, an empty file and YAML syntax errors are errors; so is anything the
// Scenario's Validate method reports. The error is an [ErrorList] with one
// problem per line, each "file:line:col: path: what is wrong; what is
// expected". Decoding reports every problem it finds (up to 50); Validate runs
// only when decoding found none.
func Decode(filename string, data []byte) (*Scenario, error) {
	s := new(Scenario)
	if err := unmarshal(filename, data, s, "scenario"); err != nil {
		return nil, err
	}
	return s, nil
}

// Unmarshal decodes one YAML document into v, a non-nil pointer, with the
// rules of [Decode]: strict keys, unit-bearing value types, errors as an
// [ErrorList] with positions. It first sets *v to its zero value, so that
// nothing of an earlier value survives. If v has a method Validate() error, Unmarshal
// calls it after a clean decode and places the [FieldError]s it returns.
//
// Fields are matched by their yaml tag (`yaml:"name"`; `yaml:"-"` skips a
// field; `yaml:",inline"` or an untagged embedded struct merges its fields).
// A type decodes from a scalar through [encoding.TextUnmarshaler]; a struct
// type with an unexported afterDecode() error method is checked after it is
// decoded from a mapping.
func Unmarshal(filename string, data []byte, v any) error {
	return unmarshal(filename, data, v, "document")
}

func unmarshal(filename string, data []byte, v any, what string) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("scenario: Unmarshal needs a non-nil pointer, got %T", v)
	}
	rv.Elem().SetZero()
	d := &decoder{file: filename, pos: map[string]ast.Node{}, keys: map[string]*token.Token{}}
	root := d.parse(data, rv.Elem().Type(), what)
	if len(d.errs) > 0 {
		d.errs.sort()
		return d.errs
	}
	d.collectAnchors(root, 0)
	if len(d.errs) == 0 {
		d.value("$", root, rv.Elem())
	}
	if len(d.errs) > 0 {
		d.errs.sort()
		return d.errs
	}
	if val, ok := v.(interface{ Validate() error }); ok {
		if err := val.Validate(); err != nil {
			for _, fe := range fieldErrors(err) {
				d.errAtPath(fe.Path, "%s", fe.Msg)
			}
			d.errs.sort()
			return d.errs
		}
	}
	return nil
}

// decoder walks a goccy/go-yaml syntax tree into Go values by reflection,
// recording every problem with its position and the position of every value
// by path (so that Validate's errors can be placed afterwards).
type decoder struct {
	file    string
	errs    ErrorList
	aliases map[*ast.AliasNode]ast.Node // each alias's anchored value
	pos     map[string]ast.Node         // path → the node its value is written at
	keys    map[string]*token.Token     // path → the key token that introduces it
	values  int                         // values decoded so far
	stopped bool                        // too many values or errors: stop decoding
}

// errorf records a problem at the position of tk.
func (d *decoder) errorf(tk *token.Token, path, format string, args ...any) {
	if len(d.errs) >= maxErrors {
		if !d.stopped {
			d.stopped = true
			e := &Error{File: d.file, Msg: fmt.Sprintf("more than %d problems; stopping here", maxErrors)}
			if tk != nil {
				e.Line, e.Column = tk.Position.Line, tk.Position.Column
			}
			d.errs = append(d.errs, e)
		}
		return
	}
	e := &Error{File: d.file, Path: path, Msg: fmt.Sprintf(format, args...)}
	if tk != nil {
		e.Line, e.Column = tk.Position.Line, tk.Position.Column
	}
	d.errs = append(d.errs, e)
}

// errAtPath records a problem at the value recorded for path, or at the
// nearest recorded ancestor of path.
func (d *decoder) errAtPath(path, format string, args ...any) {
	d.errorf(d.tokenAt(path), path, format, args...)
}

// tokenAt returns where the value at path (or its nearest recorded ancestor) starts.
func (d *decoder) tokenAt(path string) *token.Token {
	if path == "" {
		path = "$"
	}
	for p := path; ; p = parentPath(p) {
		if n, ok := d.pos[p]; ok {
			if isScalar(d.resolve(n)) {
				return n.GetToken()
			}
			if tk := d.keys[p]; tk != nil {
				return tk
			}
			return startToken(n)
		}
		if p == "$" || p == "" {
			return nil
		}
	}
}

// parentPath strips the last segment of a path: "$.a.b[2]" → "$.a.b" → "$.a".
func parentPath(p string) string {
	if strings.HasSuffix(p, "]") {
		if i := strings.LastIndex(p, "["); i > 0 {
			// A quoted key may contain "["; find the bracket that opens the segment.
			if strings.HasSuffix(p, "']") {
				if j := strings.LastIndex(p[:len(p)-2], "['"); j > 0 {
					return p[:j]
				}
			}
			return p[:i]
		}
	}
	if i := strings.LastIndex(p, "."); i > 0 {
		return p[:i]
	}
	return "$"
}

// keyPath appends a mapping key to a path.
func keyPath(path, key string) string {
	plain := key != ""
	for _, r := range key {
		if !(r == '_' || r == '-' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			plain = false
			break
		}
	}
	if plain {
		return path + "." + key
	}
	return path + "['" + strings.ReplaceAll(key, "'", "''") + "']"
}

// indexPath appends a list index to a path.
func indexPath(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// parse lexes and parses data into the root node of its single document,
// recording any problem. It returns nil when there is nothing to decode.
func (d *decoder) parse(data []byte, t reflect.Type, what string) (root ast.Node) {
	if len(data) > maxFileSize {
		d.errorf(nil, "", "file is %d bytes; expected a %s of at most %d bytes", len(data), what, maxFileSize)
		return nil
	}
	defer func() {
		// goccy/go-yaml is third-party code; a panic on some input must
		// still come out as an error for the user.
		if r := recover(); r != nil {
			d.errs = nil
			d.errorf(nil, "", "cannot parse the YAML (parser failure: %v); expected well-formed YAML", r)
			root = nil
		}
	}()
	src := strings.TrimPrefix(string(data), "\ufeff") // a byte-order mark is not content
	// YAML breaks lines at \r\n, \r and \n, and folds them all to \n in
	// content; normalising first keeps the parser's line numbers those of an editor.
	src = strings.ReplaceAll(strings.ReplaceAll(src, "\r\n", "\n"), "\r", "\n")
	tokens := lexer.Tokenize(src)
	if !d.checkNesting(tokens) {
		return nil
	}
	f, err := parser.Parse(tokens, 0)
	if err != nil {
		d.syntaxError(err)
		return nil
	}
	var bodies []ast.Node
	for _, doc := range f.Docs {
		if doc == nil || doc.Body == nil {
			continue
		}
		if _, ok := doc.Body.(*ast.DirectiveNode); ok {
			continue // %YAML 1.2 and %TAG lines before a document
		}
		bodies = append(bodies, doc.Body)
	}
	if len(bodies) == 0 {
		d.errorf(&token.Token{Position: &token.Position{Line: 1, Column: 1}}, "",
			"empty %s; expected %s", what, expectType(t))
		return nil
	}
	if len(bodies) > 1 {
		d.errorf(startToken(bodies[1]), "", "a second YAML document; expected one %s per file", what)
		return nil
	}
	return bodies[0]
}

// checkNesting rejects token streams that would take the parser a long
// time: nested too deeply, or with too many keys in one block mapping (its
// cost grows with the square of either).
func (d *decoder) checkNesting(tokens token.Tokens) bool {
	depth, line, onLine := 0, 0, 0
	type mapping struct{ column, keys int }
	var open []mapping // block mappings by the column of their keys, innermost last
	closeDeeper := func(column int) {
		for len(open) > 0 && open[len(open)-1].column > column {
			open = open[:len(open)-1]
		}
	}
	for _, tk := range tokens {
		if tk == nil || tk.Position == nil {
			continue
		}
		if tk.Position.Line != line {
			line, onLine = tk.Position.Line, 0
		}
		switch tk.Type {
		case token.DocumentHeaderType, token.DocumentEndType:
			open = open[:0]
		case token.MappingValueType:
			if depth > 0 {
				break // a flow mapping
			}
			key := tk
			if tk.Prev != nil && tk.Prev.Position != nil && tk.Prev.Position.Line == tk.Position.Line {
				key = tk.Prev
			}
			column := key.Position.Column
			closeDeeper(column)
			if n := len(open); n > 0 && open[n-1].column == column {
				open[n-1].keys++
				if open[n-1].keys > maxKeys {
					d.errorf(key, "", "a mapping with more than %d keys; expected a smaller mapping", maxKeys)
					return false
				}
			} else {
				open = append(open, mapping{column: column, keys: 1})
			}
		}
		switch tk.Type {
		case token.SequenceStartType, token.MappingStartType:
			depth++
			if depth > maxNesting {
				d.errorf(tk, "", "collections nested more than %d deep; expected a shallower document", maxNesting)
				return false
			}
		case token.SequenceEndType, token.MappingEndType:
			depth--
		case token.SequenceEntryType, token.MappingKeyType, token.AnchorType, token.TagType:
			if tk.Type == token.SequenceEntryType && depth == 0 {
				closeDeeper(tk.Position.Column) // a new list item starts new mappings
			}
			onLine++
			if onLine > maxNesting {
				d.errorf(tk, "", "more than %d nested indicators on one line; expected a shallower document", maxNesting)
				return false
			}
		}
	}
	return true
}

// syntaxError records a parser error at its position, on one line.
func (d *decoder) syntaxError(err error) {
	var ye interface {
		GetToken() *token.Token
		GetMessage() string
	}
	if !errors.As(err, &ye) {
		d.errorf(nil, "", "cannot parse the YAML: %v; expected well-formed YAML", err)
		return
	}
	tk, msg := ye.GetToken(), ye.GetMessage()
	if tk != nil && tk.Position == nil {
		tk = nil
	}
	switch {
	case strings.Contains(msg, "already defined at"):
		// `mapping key "a" already defined at [1:1]`
		key, at, _ := strings.Cut(msg, " already defined at ")
		key = strings.TrimPrefix(key, "mapping key ")
		at = strings.Trim(at, "[]")
		l, c, _ := strings.Cut(at, ":")
		d.errorf(tk, "", "duplicate key %s (first at line %s, column %s); expected each key once per mapping", key, l, c)
	case strings.Contains(msg, "'\t'") || tk != nil && strings.HasPrefix(tk.Value, "\t"):
		d.errorf(tk, "", "a tab character; YAML is indented with spaces, expected spaces")
	default:
		d.errorf(tk, "", "invalid YAML: %s; expected well-formed YAML", msg)
	}
}

// collectAnchors walks the tree in document order and resolves each alias to
// the value of the latest anchor of that name defined before it (after its
// own value, so an alias can never refer to a value that contains it).
func (d *decoder) collectAnchors(root ast.Node, _ int) {
	d.aliases = map[*ast.AliasNode]ast.Node{}
	anchors := map[string]ast.Node{}
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		switch n := n.(type) {
		case nil:
		case *ast.AnchorNode:
			walk(n.Value)
			if n.Name != nil {
				anchors[n.Name.GetToken().Value] = n.Value
			}
		case *ast.AliasNode:
			name := ""
			if n.Value != nil && n.Value.GetToken() != nil {
				name = n.Value.GetToken().Value
			}
			if v, ok := anchors[name]; ok {
				d.aliases[n] = v
			} else {
				d.errorf(n.GetToken(), "", "alias *%s refers to no anchor; expected &%s defined earlier in the file", name, name)
			}
		case *ast.TagNode:
			walk(n.Value)
		case *ast.MappingNode:
			for _, mv := range n.Values {
				walk(mv)
			}
		case *ast.MappingValueNode:
			walk(n.Key)
			walk(n.Value)
		case *ast.MappingKeyNode:
			walk(n.Value)
		case *ast.SequenceNode:
			for _, v := range n.Values {
				walk(v)
			}
		}
	}
	walk(root)
}

// resolve looks through anchors, aliases and tags to the node holding the value.
func (d *decoder) resolve(n ast.Node) ast.Node {
	for range 1000 {
		switch x := n.(type) {
		case *ast.AnchorNode:
			n = x.Value
		case *ast.AliasNode:
			n = d.aliases[x]
		case *ast.TagNode:
			n = x.Value
		case *ast.MappingKeyNode:
			n = x.Value
		default:
			return n
		}
	}
	return nil
}

// startToken returns the token where n's text begins.
func startToken(n ast.Node) *token.Token {
	switch x := n.(type) {
	case nil:
		return nil
	case *ast.MappingNode:
		if !x.IsFlowStyle && len(x.Values) > 0 {
			return startToken(x.Values[0])
		}
	case *ast.MappingValueNode:
		return startToken(x.Key)
	case *ast.MappingKeyNode:
		if x.Start != nil {
			return x.Start
		}
	case *ast.AnchorNode:
		if x.Start != nil {
			return x.Start
		}
	case *ast.TagNode:
		if x.Start != nil {
			return x.Start
		}
	}
	tk := n.GetToken()
	if tk != nil && tk.Position == nil {
		return nil
	}
	return tk
}

func isScalar(n ast.Node) bool {
	_, ok := scalarText(n)
	return ok || n == nil || n.Type() == ast.NullType
}

// scalarText returns the text of a non-null scalar as written (quotes removed).
func scalarText(n ast.Node) (string, bool) {
	switch x := n.(type) {
	case *ast.StringNode:
		return x.Value, true
	case *ast.LiteralNode:
		if x.Value != nil {
			return x.Value.Value, true
		}
		return "", true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		if tk := n.GetToken(); tk != nil {
			return tk.Value, true
		}
	}
	return "", false
}

// describe names what a node holds, for "got …" in messages.
func describe(n ast.Node) string {
	switch x := n.(type) {
	case nil, *ast.NullNode:
		return "nothing (null)"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.StringNode, *ast.LiteralNode:
		s, _ := scalarText(x)
		return "the text " + quoteShort(s)
	case *ast.IntegerNode, *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		s, _ := scalarText(x)
		return "the number " + s
	case *ast.BoolNode:
		return strconv.FormatBool(x.Value)
	}
	return "a " + strings.ToLower(n.Type().String())
}

// quoteShort quotes s, shortened to 40 characters.
func quoteShort(s string) string {
	if r := []rune(s); len(r) > 40 {
		s = string(r[:37]) + "…"
	}
	return strconv.Quote(s)
}

// afterDecoder is implemented by struct types that check themselves after
// being decoded from a mapping (Dist: exactly one form; Quantiles: p50 <= p99).
// Its FieldErrors are relative to the value ("$" is the value itself).
type afterDecoder interface{ afterDecode() error }

var (
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	afterDecoderType    = reflect.TypeFor[afterDecoder]()
	nodeUnmarshalerType = reflect.TypeFor[interface{ UnmarshalYAML(ast.Node) error }]()
	durationType        = reflect.TypeFor[time.Duration]()
	timeType            = reflect.TypeFor[time.Time]()
)

// value decodes the node n, written at path, into v.
func (d *decoder) value(path string, n ast.Node, v reflect.Value) {
	if d.stopped {
		return
	}
	d.values++
	if d.values > maxValues {
		d.errorf(startToken(n), path, "the document expands to more than %d values (through aliases?); expected a smaller %s", maxValues, "document")
		d.stopped = true
		return
	}
	if _, seen := d.pos[path]; !seen {
		d.pos[path] = n
	}
	at := startToken(n)
	if tag, ok := n.(*ast.TagNode); ok {
		if !d.knownTag(tag, path) {
			return
		}
	}
	r := d.resolve(n)
	if r == nil {
		if _, ok := n.(*ast.AliasNode); ok {
			return // reported by collectAnchors
		}
	}
	t := v.Type()

	// null: zero for composite kinds, an error for scalars.
	if r == nil || r.Type() == ast.NullType {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Struct, reflect.Interface:
			v.SetZero()
		default:
			d.errorf(at, path, "missing value; expected %s", expectType(t))
		}
		return
	}

	if t.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(t.Elem()))
		}
		d.value(path, r, v.Elem())
		return
	}

	pt := reflect.PointerTo(t)
	text, scalar := scalarText(r)
	switch {
	case t == durationType:
		if !scalar {
			d.errorf(at, path, "got %s; expected %s", describe(r), expectType(t))
			return
		}
		dur, err := ParseDuration(text)
		if err != nil {
			d.errorf(at, path, "%v", err)
			return
		}
		v.SetInt(int64(dur))
		return
	case t == timeType:
		if !scalar {
			d.errorf(at, path, "got %s; expected %s", describe(r), expectType(t))
			return
		}
		in, err := ParseInstant(text)
		if err != nil {
			d.errorf(at, path, "%v", err)
			return
		}
		v.Set(reflect.ValueOf(time.Time(in)))
		return
	case pt.Implements(nodeUnmarshalerType):
		if err := v.Addr().Interface().(interface{ UnmarshalYAML(ast.Node) error }).UnmarshalYAML(r); err != nil {
			d.errorf(at, path, "%v", err)
		}
		return
	case pt.Implements(textUnmarshalerType) && (scalar || !pt.Implements(afterDecoderType)):
		if !scalar {
			d.errorf(at, path, "got %s; expected %s", describe(r), expectType(t))
			return
		}
		if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(text)); err != nil {
			d.errorf(at, path, "%v", err)
		}
		return
	}

	switch t.Kind() {
	case reflect.Struct:
		d.structValue(path, r, v)
	case reflect.Map:
		d.mapValue(path, r, v)
	case reflect.Slice:
		d.sliceValue(path, r, v)
	case reflect.Array:
		d.arrayValue(path, r, v)
	case reflect.Interface:
		if t.NumMethod() != 0 {
			d.errorf(at, path, "cannot decode into %s; expected a concrete type (a bug in the Go types)", t)
			return
		}
		if g := d.generic(path, r); g != nil {
			v.Set(reflect.ValueOf(g))
		}
	case reflect.String:
		if !scalar {
			d.errorf(at, path, "got %s; expected %s", describe(r), expectType(t))
			return
		}
		v.SetString(text)
	case reflect.Bool:
		b, ok := r.(*ast.BoolNode)
		if !ok {
			d.errorf(at, path, "got %s; expected true or false", describe(r))
			return
		}
		v.SetBool(b.Value)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, ok := intValue(r)
		if f, isNum := floatValue(r); !ok && isNum && f == math.Trunc(f) || ok && v.OverflowInt(i) {
			d.errorf(at, path, "%s is out of range; expected %s between %d and %d", text, expectType(t),
				-1<<(t.Bits()-1), 1<<(t.Bits()-1)-1)
			return
		}
		if !ok {
			d.errorf(at, path, "got %s; expected %s", describe(r), expectType(t))
			return
		}
		v.SetInt(i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u, ok := uintValue(r)
		if f, isNum := floatValue(r); !ok && isNum && f >= 1<<64 && f == math.Trunc(f) {
			d.errorf(at, path, "%s is out of range; expected %s up to %d", text, expectType(t), uint64(1)<<t.Bits()-1)
			return
		}
		if !ok {
			if f, isNum := floatValue(r); isNum && f < 0 {
				d.errorf(at, path, "%s is negative; expected %s", text, expectType(t))
				return
			}
			d.errorf(at, path, "got %s; expected %s", describe(r), expectType(t))
			return
		}
		if v.OverflowUint(u) {
			d.errorf(at, path, "%s is out of range; expected %s up to %d", text, expectType(t), uint64(1)<<t.Bits()-1)
			return
		}
		v.SetUint(u)
	case reflect.Float32, reflect.Float64:
		f, ok := floatValue(r)
		if !ok {
			d.errorf(at, path, "got %s; expected %s", describe(r), expectType(t))
			return
		}
		if v.OverflowFloat(f) {
			d.errorf(at, path, "%s is out of range; expected %s", text, expectType(t))
			return
		}
		v.SetFloat(f)
	default:
		d.errorf(at, path, "cannot decode into %s; expected a supported Go type (a bug in the Go types)", t)
	}
}

// knownTag accepts the core-schema tags (!!str, !!int, …) and rejects others.
func (d *decoder) knownTag(tag *ast.TagNode, path string) bool {
	name := ""
	if tag.Start != nil {
		name = tag.Start.Value
	}
	switch name {
	case "!!str", "!!int", "!!float", "!!bool", "!!null", "!!map", "!!seq",
		"tag:yaml.org,2002:str", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
		"tag:yaml.org,2002:bool", "tag:yaml.org,2002:null", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq":
		return true
	}
	d.errorf(tag.Start, path, "unsupported tag %s; expected no tag (or a core tag such as !!str)", name)
	return false
}

// plainNumber returns the number an unquoted scalar spells when the YAML
// lexer left it as text (1e3, 99999999999999999999).
func plainNumber(n ast.Node) (float64, bool) {
	x, ok := n.(*ast.StringNode)
	if !ok || x.Token == nil || x.Token.Type != token.StringType {
		return 0, false
	}
	f, err := parseDecimal(strings.TrimPrefix(x.Value, "+"))
	if err != nil && strings.HasPrefix(x.Value, "-") {
		f, err = parseDecimal(x.Value[1:])
		f = -f
	}
	return f, err == nil
}

func intValue(n ast.Node) (int64, bool) {
	if f, ok := plainNumber(n); ok {
		if f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63 {
			return int64(f), true
		}
		return 0, false
	}
	switch x := n.(type) {
	case *ast.IntegerNode:
		switch v := x.Value.(type) {
		case int64:
			return v, true
		case uint64:
			if v <= math.MaxInt64 {
				return int64(v), true
			}
		}
	case *ast.FloatNode:
		// 1e6 is a whole number written as a float.
		if x.Value == math.Trunc(x.Value) && math.Abs(x.Value) < 1<<63 {
			return int64(x.Value), true
		}
	}
	return 0, false
}

func uintValue(n ast.Node) (uint64, bool) {
	if f, ok := plainNumber(n); ok {
		if f >= 0 && f == math.Trunc(f) && f < 1<<64 {
			return uint64(f), true
		}
		return 0, false
	}
	switch x := n.(type) {
	case *ast.IntegerNode:
		switch v := x.Value.(type) {
		case int64:
			if v >= 0 {
				return uint64(v), true
			}
		case uint64:
			return v, true
		}
	case *ast.FloatNode:
		if x.Value >= 0 && x.Value == math.Trunc(x.Value) && x.Value < 1<<64 {
			return uint64(x.Value), true
		}
	}
	return 0, false
}

func floatValue(n ast.Node) (float64, bool) {
	if f, ok := plainNumber(n); ok {
		return f, true
	}
	switch x := n.(type) {
	case *ast.IntegerNode:
		switch v := x.Value.(type) {
		case int64:
			return float64(v), true
		case uint64:
			return float64(v), true
		}
	case *ast.FloatNode:
		if !math.IsInf(x.Value, 0) && !math.IsNaN(x.Value) {
			return x.Value, true
		}
	}
	return 0, false
}

// entry is one key-value pair of a mapping, after merge keys are applied.
type entry struct {
	key   string
	tok   *token.Token // where the key is written
	value ast.Node
}

// entries lists a mapping's pairs in document order. Pairs brought in by a
// merge key (<<: *base) come after, and lose to, the pairs written in the
// mapping itself; among merged mappings the first wins.
func (d *decoder) entries(path string, n ast.Node, depth int) ([]entry, bool) {
	var pairs []*ast.MappingValueNode
	switch x := n.(type) {
	case *ast.MappingNode:
		pairs = x.Values
	case *ast.MappingValueNode:
		pairs = []*ast.MappingValueNode{x}
	default:
		return nil, false
	}
	var own, merged []entry
	seen := map[string]bool{}
	for _, mv := range pairs {
		if mv == nil {
			continue
		}
		if _, ok := mv.Key.(*ast.MergeKeyNode); ok {
			if depth > maxNesting {
				d.errorf(startToken(mv.Key), path, "merge keys nested more than %d deep; expected a shallower document", maxNesting)
				continue
			}
			src := d.resolve(mv.Value)
			var srcs []ast.Node
			if seq, ok := src.(*ast.SequenceNode); ok {
				for _, s := range seq.Values {
					srcs = append(srcs, d.resolve(s))
				}
			} else {
				srcs = []ast.Node{src}
			}
			for _, s := range srcs {
				es, ok := d.entries(path, s, depth+1)
				if !ok {
					d.errorf(startToken(mv.Value), path, "merge key << needs a mapping or a list of mappings, got %s; expected e.g. <<: *base", describe(s))
					continue
				}
				merged = append(merged, es...)
			}
			continue
		}
		key := d.resolve(mv.Key)
		text, ok := scalarText(key)
		if !ok {
			d.errorf(startToken(mv.Key), path, "a key that is %s; expected a plain text key", describe(key))
			continue
		}
		seen[text] = true
		own = append(own, entry{key: text, tok: startToken(mv.Key), value: mv.Value})
	}
	for _, e := range merged {
		if !seen[e.key] {
			seen[e.key] = true
			own = append(own, e)
		}
	}
	return own, true
}

// field is a struct field reachable from a mapping key.
type field struct {
	name  string
	index []int
}

// fieldsCache maps a struct type to its fields in declaration order.
var fieldsCache sync.Map // reflect.Type → []field

// fieldsOf lists the keys a struct type accepts, with inline (embedded) struct
// fields flattened in place.
func fieldsOf(t reflect.Type) []field {
	if f, ok := fieldsCache.Load(t); ok {
		return f.([]field)
	}
	var out []field
	var walk func(t reflect.Type, index []int, depth int)
	walk = func(t reflect.Type, index []int, depth int) {
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("yaml")
			name, opts, _ := strings.Cut(tag, ",")
			if name == "-" && opts == "" {
				continue
			}
			idx := append(slices.Clone(index), i)
			inline := slices.Contains(strings.Split(opts, ","), "inline") || sf.Anonymous && name == ""
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if inline && ft.Kind() == reflect.Struct && depth < 10 {
				walk(ft, idx, depth+1)
				continue
			}
			if !sf.IsExported() {
				continue
			}
			if name == "" {
				name = strings.ToLower(sf.Name)
			}
			out = append(out, field{name: name, index: idx})
		}
	}
	walk(t, nil, 0)
	fieldsCache.Store(t, out)
	return out
}

// fieldByIndex is reflect.Value.FieldByIndex that allocates nil embedded pointers.
func fieldByIndex(v reflect.Value, index []int) reflect.Value {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}

func (d *decoder) structValue(path string, n ast.Node, v reflect.Value) {
	es, ok := d.entries(path, n, 0)
	if !ok {
		d.errorf(startToken(n), path, "got %s; expected %s", describe(n), expectType(v.Type()))
		return
	}
	fields := fieldsOf(v.Type())
	before := len(d.errs)
	for _, e := range es {
		i := slices.IndexFunc(fields, func(f field) bool { return f.name == e.key })
		if i < 0 {
			d.errorf(e.tok, path, "%s", unknownKey(e.key, fields))
			continue
		}
		fp := keyPath(path, e.key)
		if _, seen := d.keys[fp]; !seen {
			d.keys[fp] = e.tok
		}
		d.value(fp, e.value, fieldByIndex(v, fields[i].index))
	}
	if len(d.errs) > before || d.stopped {
		return
	}
	if v.Addr().Type().Implements(afterDecoderType) {
		if err := v.Addr().Interface().(afterDecoder).afterDecode(); err != nil {
			for _, fe := range fieldErrors(err) {
				d.errAtPath(rebase(path, fe.Path), "%s", fe.Msg)
			}
		}
	}
}

// unknownKey says a key is unknown, suggesting the closest known key.
func unknownKey(key string, fields []field) string {
	best, bestDist := "", math.MaxInt
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
		if dist := editDistance(strings.ToLower(key), f.name); dist < bestDist {
			best, bestDist = f.name, dist
		}
	}
	if best != "" && suggestible(strings.ToLower(key), best, bestDist) {
		return fmt.Sprintf("unknown key %s; did you mean %q?", quoteShort(key), best)
	}
	switch len(names) {
	case 0:
		return fmt.Sprintf("unknown key %s; expected no keys here", quoteShort(key))
	case 1:
		return fmt.Sprintf("unknown key %s; expected only %s", quoteShort(key), names[0])
	}
	return fmt.Sprintf("unknown key %s; expected one of %s", quoteShort(key), strings.Join(names, ", "))
}

// suggestible reports whether a key is close enough to a known one to
// suggest it: a typo or two in a long enough word, or a truncation.
func suggestible(key, known string, dist int) bool {
	n := len([]rune(key))
	switch {
	case dist <= 1:
		return true
	case dist <= 2 && n >= 5, dist <= 3 && n >= 9:
		return true
	}
	common := 0
	for common < len(key) && common < len(known) && key[common] == known[common] {
		common++
	}
	return common >= max(4, n-1)
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		return math.MaxInt
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			c := 1
			if ra[i-1] == rb[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

func (d *decoder) mapValue(path string, n ast.Node, v reflect.Value) {
	es, ok := d.entries(path, n, 0)
	if !ok {
		d.errorf(startToken(n), path, "got %s; expected %s", describe(n), expectType(v.Type()))
		return
	}
	t := v.Type()
	if t.Key().Kind() != reflect.String && !reflect.PointerTo(t.Key()).Implements(textUnmarshalerType) {
		d.errorf(startToken(n), path, "cannot decode into %s; expected text keys (a bug in the Go types)", t)
		return
	}
	if v.IsNil() {
		v.Set(reflect.MakeMapWithSize(t, len(es)))
	}
	for _, e := range es {
		k := reflect.New(t.Key()).Elem()
		if u, ok := k.Addr().Interface().(encoding.TextUnmarshaler); ok {
			if err := u.UnmarshalText([]byte(e.key)); err != nil {
				d.errorf(e.tok, path, "key %s: %v", quoteShort(e.key), err)
				continue
			}
		} else {
			k.SetString(e.key)
		}
		fp := keyPath(path, e.key)
		d.keys[fp] = e.tok
		elem := reflect.New(t.Elem()).Elem()
		d.value(fp, e.value, elem)
		v.SetMapIndex(k, elem)
	}
}

func (d *decoder) sliceValue(path string, n ast.Node, v reflect.Value) {
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		d.errorf(startToken(n), path, "got %s; expected %s", describe(n), expectType(v.Type()))
		return
	}
	s := reflect.MakeSlice(v.Type(), len(seq.Values), len(seq.Values))
	for i, e := range seq.Values {
		d.value(indexPath(path, i), e, s.Index(i))
	}
	v.Set(s)
}

func (d *decoder) arrayValue(path string, n ast.Node, v reflect.Value) {
	seq, ok := n.(*ast.SequenceNode)
	if !ok || len(seq.Values) != v.Len() {
		got := describe(n)
		if ok {
			got = fmt.Sprintf("a list of %d", len(seq.Values))
		}
		d.errorf(startToken(n), path, "got %s; expected a list of %d", got, v.Len())
		return
	}
	for i, e := range seq.Values {
		d.value(indexPath(path, i), e, v.Index(i))
	}
}

// generic decodes into untyped Go values: map[string]any, []any, string,
// int64 (uint64 above its range), float64, bool, nil.
func (d *decoder) generic(path string, n ast.Node) any {
	switch x := n.(type) {
	case *ast.SequenceNode:
		out := make([]any, len(x.Values))
		for i, e := range x.Values {
			v := reflect.ValueOf(&out[i]).Elem()
			d.value(indexPath(path, i), e, v)
		}
		return out
	case *ast.MappingNode, *ast.MappingValueNode:
		es, _ := d.entries(path, x, 0)
		out := make(map[string]any, len(es))
		for _, e := range es {
			var g any
			fp := keyPath(path, e.key)
			d.keys[fp] = e.tok
			d.value(fp, e.value, reflect.ValueOf(&g).Elem())
			out[e.key] = g
		}
		return out
	case *ast.IntegerNode:
		if u, ok := x.Value.(uint64); ok && u <= math.MaxInt64 {
			return int64(u)
		}
		return x.Value
	case *ast.FloatNode:
		return x.Value
	case *ast.BoolNode:
		return x.Value
	case *ast.InfinityNode:
		return x.Value
	case *ast.NanNode:
		return math.NaN()
	}
	if s, ok := scalarText(n); ok {
		return s
	}
	return nil
}

// expectType describes, for "expected …" in messages, what a Go type decodes from.
func expectType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case reflect.TypeFor[Duration](), durationType:
		return "a duration such as 350ms"
	case reflect.TypeFor[Rate]():
		return "a rate such as 9000/s"
	case reflect.TypeFor[Fraction]():
		return "a fraction such as 28% or 0.28"
	case reflect.TypeFor[Factor]():
		return "a factor such as 115% or 1.15"
	case reflect.TypeFor[Instant](), timeType:
		return "an RFC 3339 time such as 2026-03-10T14:00:00Z"
	case reflect.TypeFor[Dist]():
		return "a duration (4ms) or a distribution ({p50: 38ms, p99: 95ms}, {mean: 5ms} or {constant: 4ms})"
	case reflect.TypeFor[Quantiles]():
		return "quantiles such as {p50: 38ms, p99: 95ms}"
	}
	if reflect.PointerTo(t).Implements(textUnmarshalerType) && !reflect.PointerTo(t).Implements(afterDecoderType) {
		// A type decoded from text: let its schema description say what text.
		if s, ok := reflect.Zero(t).Interface().(interface{ JSONSchema() *jsonschema.Schema }); ok {
			if d := firstSentence(s.JSONSchema().Description); d != "" {
				return d
			}
		}
		return "text"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "a whole number of zero or more"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "text"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map:
		return "a mapping"
	case reflect.Struct:
		fields := fieldsOf(t)
		names := make([]string, 0, len(fields))
		for _, f := range fields {
			names = append(names, f.name)
		}
		if len(names) > 6 {
			names = append(names[:6], "…")
		}
		if len(names) == 0 {
			return "a mapping"
		}
		return "a mapping with " + strings.Join(names, ", ")
	}
	return "a value"
}

// firstSentence returns a description's first sentence, lower-cased and
// without its full stop: "A rate, e.g. 9/s. More." → "a rate, e.g. 9/s".
func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	for from := 0; ; {
		i := strings.Index(s[from:], ". ")
		if i < 0 {
			break
		}
		i += from
		if !strings.HasSuffix(s[:i], "e.g") && !strings.HasSuffix(s[:i], "i.e") {
			s = s[:i]
			break
		}
		from = i + 2
	}
	s = strings.TrimSuffix(s, ".")
	if s == "" {
		return ""
	}
	return strings.ToLower(s[:1]) + s[1:]
}
