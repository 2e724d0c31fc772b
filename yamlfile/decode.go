package yamlfile

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// Limits that keep decoding fast on hostile input. A real file is a few
// kilobytes with a nesting depth under ten.
const (
	maxFileSize = 1 << 20 // bytes
	maxNesting  = 64      // flow collections ([ {) open at once, or block indicators (- ? & !) on one line
	maxKeys     = 256     // keys in one block mapping (the parser's cost grows with the square of it)
	maxValues   = 100_000 // values decoded, counting each expansion of an alias
	maxErrors   = 50      // errors reported before giving up
)

// Decoder decodes YAML files strictly into Go values; its fields adapt the
// rules to a format. The zero value applies the rules of [Unmarshal], and a
// Decoder is safe for concurrent use as long as its hooks are.
type Decoder struct {
	// Document names what one file holds, in messages such as "empty
	// scenario; expected …" and "expected one scenario per file". The zero
	// value "" means "document".
	Document string

	// Nulls says what a null value (a key with nothing after it, ~ or null)
	// decodes to. The zero value is [NullsEmptyCollections].
	Nulls Nulls

	// NoMergeKeys makes merge keys (<<: *base) errors. The zero value
	// false merges.
	NoMergeKeys bool

	// NoAliases makes anchors (&a), aliases (*a), merge keys and tags (!!str)
	// errors, so that every value is written where it is used, as it is used.
	// The zero value false accepts them (and the core tags only).
	NoAliases bool

	// Scalar, if not nil, decodes the scalars a format spells its own way:
	// it is called with every scalar value that is not null, before the
	// default rules, and returns the value to store (of the type s.Type), or
	// nil to leave the scalar to the default rules, or an error that says
	// what is wrong and what is expected (it is reported at the scalar, with
	// its path). For example, it can insist that times are in UTC, or
	// check a text field against the values its tag allows.
	Scalar func(s Scalar) (any, error)

	// Expect, if not nil, describes what a Go type is written as, for
	// "expected …" in messages, e.g. "a duration such as 350ms"; it returns
	// "" to leave the type to the default description.
	Expect func(t reflect.Type) string
}

// Nulls says what a null value decodes to; see [Decoder].
type Nulls int

const (
	// NullsEmptyCollections decodes null to the zero value of a list,
	// mapping, struct, pointer or interface, and reports it as a missing
	// value where text, a number or true/false is expected.
	NullsEmptyCollections Nulls = iota
	// NullsZero decodes null to the zero value of any type, for formats that
	// report missing values in a check of their own (a draft still decodes).
	NullsZero
	// NullsRefused reports every null as a missing value.
	NullsRefused
)

// Style is how a scalar is written.
type Style uint8

// The scalar styles.
const (
	Plain        Style = iota // unquoted: 9000, text, 2026-03-10T14:00:00Z
	SingleQuoted              // 'text'
	DoubleQuoted              // "text"
	Literal                   // a | block: lines kept as written
	Folded                    // a > block: lines joined with spaces
)

// Scalar is a scalar value as [Decoder.Scalar] sees it.
type Scalar struct {
	Path  string            // its YAML path, e.g. "$.actions[0].status"
	Text  string            // its text, without quotes, escapes or block indentation
	Style Style             // how it is written
	Type  reflect.Type      // the Go type it decodes into (never a pointer)
	Tag   reflect.StructTag // the tag of the struct field it decodes into; "" for a list element, a mapping value or the document
}

// Checker is implemented (through a pointer receiver) by a struct type that
// checks itself once it has been decoded from a mapping without errors, e.g.
// that exactly one of its forms is set. CheckYAML returns [FieldError]s
// relative to the value ("$" is the value itself), which are reported at
// their positions. A type that is both a Checker and an
// [encoding.TextUnmarshaler] decodes from either a scalar (through
// UnmarshalText) or a mapping (field by field, then CheckYAML).
type Checker interface{ CheckYAML() error }

// Unmarshal decodes one YAML document into v, a non-nil pointer, strictly,
// with the rules of the zero [Decoder]; see [Decoder.Decode].
func Unmarshal(filename string, data []byte, v any) error {
	_, err := Decoder{}.Decode(filename, data, v)
	return err
}

// Decode decodes one YAML document from data into v, a non-nil pointer, and
// returns the position of every value it decoded. filename is only used in
// error messages. Decode first sets *v to its zero value, so that nothing of
// an earlier value survives.
//
// Decoding is strict. Unknown keys (with the closest known key suggested),
// duplicate keys, values of the wrong type, an empty file, a second
// document, YAML syntax errors and tabs are errors. So is input that would
// make decoding slow: over 1 MiB, nested over 64 deep, a mapping of over 256
// keys, or expanding through aliases to over 100,000 values. The error is an
// [ErrorList] of every problem found (up to 50), sorted by position, each
// printing as "file:line:col: path: what is wrong; what is expected".
//
// Fields are matched by their yaml tag (`yaml:"name"`; `yaml:"-"` skips a
// field; `yaml:",inline"` or an untagged embedded struct merges its fields;
// `yaml:"name,required"` makes the key required). A type decodes from a
// scalar through [encoding.TextUnmarshaler] (after [Decoder.Scalar]); a
// [Checker] is checked after it is decoded from a mapping. time.Time is
// written in RFC 3339 and time.Duration as 350ms or 1h30m. Numbers are
// read as YAML reads them: decimal (1e3 and 1_000 too), hexadecimal (0x1F)
// or octal (0o17, and 017 as in YAML 1.1); a format that wants decimals
// only says so in its Scalar hook.
//
// After a clean decode, if v has a method Validate() error, Decode calls it
// and reports the [FieldError]s it returns at the positions of their paths.
func (dec Decoder) Decode(filename string, data []byte, v any) (*Positions, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return nil, fmt.Errorf("yamlfile: Decode needs a non-nil pointer, got %T", v)
	}
	rv.Elem().SetZero()
	d := &decoder{
		Decoder: dec,
		file:    filename,
		at:      Positions{values: map[string]spot{}, keys: map[string]point{}},
	}
	if d.Document == "" {
		d.Document = "document"
	}
	if root := d.parse(data, rv.Elem().Type()); len(d.errs) == 0 {
		d.collectAnchors(root)
		if len(d.errs) == 0 {
			d.value("$", root, rv.Elem(), "")
		}
	}
	if len(d.errs) == 0 {
		if val, ok := v.(interface{ Validate() error }); ok {
			for _, fe := range fieldErrors(val.Validate()) {
				d.errAtPath(fe.Path, "%s", fe.Msg)
			}
		}
	}
	if len(d.errs) > 0 {
		d.errs.sort()
		return nil, d.errs
	}
	return &d.at, nil
}

// decoder walks a goccy/go-yaml syntax tree into Go values by reflection,
// recording every problem with its position and the position of every value
// by path (so that Validate's errors can be placed afterwards).
type decoder struct {
	Decoder
	file    string
	errs    ErrorList
	aliases map[*ast.AliasNode]ast.Node // each alias's anchored value
	at      Positions
	values  int  // values decoded so far
	stopped bool // too many values or errors: stop decoding
}

// errorf records a problem at the position of tk.
func (d *decoder) errorf(tk *token.Token, path, format string, args ...any) {
	line, col := 0, 0
	if tk != nil && tk.Position != nil {
		line, col = tk.Position.Line, tk.Position.Column
	}
	d.add(line, col, path, fmt.Sprintf(format, args...))
}

func (d *decoder) add(line, col int, path, msg string) {
	// One problem, one line, whatever text from the file the message quotes.
	msg = strings.NewReplacer("\r\n", `\n`, "\n", `\n`, "\r", `\r`).Replace(msg)
	if len(d.errs) >= maxErrors {
		if !d.stopped {
			d.stopped = true
			d.errs = append(d.errs, &Error{File: d.file, Line: line, Column: col,
				Msg: fmt.Sprintf("more than %d problems; stopping here", maxErrors)})
		}
		return
	}
	d.errs = append(d.errs, &Error{File: d.file, Line: line, Column: col, Path: path, Msg: msg})
}

// errAtPath records a problem at the value recorded for path, or at the
// nearest recorded ancestor of path.
func (d *decoder) errAtPath(path, format string, args ...any) {
	line, col := d.at.At(path)
	d.add(line, col, path, fmt.Sprintf(format, args...))
}

// record notes where the value at path (node n, resolved to r) is written.
func (d *decoder) record(path string, n, r ast.Node) {
	if _, seen := d.at.values[path]; seen {
		return
	}
	s := spot{start: pointOf(startToken(n)), scalar: isScalar(r), style: styleOf(r)}
	v := n
	for {
		if a, ok := v.(*ast.AnchorNode); ok {
			v = a.Value
		} else if t, ok := v.(*ast.TagNode); ok {
			v = t.Value
		} else {
			break
		}
	}
	if s.value = pointOf(startToken(v)); s.value == (point{}) {
		s.value = s.start
	}
	d.at.values[path] = s
}

// recordKey notes where the key that introduces path is written.
func (d *decoder) recordKey(path string, key *token.Token) {
	if _, seen := d.at.keys[path]; seen || key == nil || key.Position == nil {
		return
	}
	d.at.keys[path] = pointOf(key)
}

// parse lexes and parses data into the root node of its single document,
// recording any problem. It returns nil when there is nothing to decode.
func (d *decoder) parse(data []byte, t reflect.Type) (root ast.Node) {
	if len(data) > maxFileSize {
		d.errorf(nil, "", "file is %d bytes; expected a %s of at most %d bytes", len(data), d.Document, maxFileSize)
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
	tokens := lexer.Tokenize(Text(data))
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
		d.add(1, 1, "", fmt.Sprintf("empty %s; expected %s", d.Document, d.expectType(t)))
		return nil
	}
	if len(bodies) > 1 {
		d.errorf(startToken(bodies[1]), "", "a second YAML document; expected one %s per file", d.Document)
		return nil
	}
	return bodies[0]
}

// Text returns data as the decoder reads it, the text that the lines and
// columns of errors and [Positions] count in: without a byte-order mark, and
// with every line break (\r\n, \r or \n; YAML breaks lines at all three)
// written \n, so that line numbers are those of an editor.
func Text(data []byte) string {
	src := strings.TrimPrefix(string(data), "\ufeff")
	return strings.ReplaceAll(strings.ReplaceAll(src, "\r\n", "\n"), "\r", "\n")
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
				d.errorf(tk, "", "collections nested more than %d deep; expected a shallower %s", maxNesting, d.Document)
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
				d.errorf(tk, "", "more than %d nested indicators on one line; expected a shallower %s", maxNesting, d.Document)
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
func (d *decoder) collectAnchors(root ast.Node) {
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
			name := aliasName(n)
			if v, ok := anchors[name]; ok {
				d.aliases[n] = v
			} else {
				d.errorf(n.GetToken(), "", "alias *%s refers to no anchor; expected &%s defined earlier in the file", shortName(name), shortName(name))
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

func aliasName(n *ast.AliasNode) string {
	if n.Value != nil && n.Value.GetToken() != nil {
		return n.Value.GetToken().Value
	}
	return ""
}

// refused reports whether n is an anchor, alias or tag that the Decoder
// does not accept, recording the problem.
func (d *decoder) refused(path string, n ast.Node) bool {
	if !d.NoAliases {
		return false
	}
	switch x := n.(type) {
	case *ast.AnchorNode:
		name := ""
		if x.Name != nil && x.Name.GetToken() != nil {
			name = x.Name.GetToken().Value
		}
		d.errorf(startToken(n), path, "anchors (&%s) are not supported here; expected the value written out", shortName(name))
	case *ast.AliasNode:
		d.errorf(startToken(n), path, "aliases (*%s) are not supported here; expected the value written out", shortName(aliasName(x)))
	case *ast.TagNode:
		d.errorf(startToken(n), path, "tags (%s) are not supported here; expected the value without a tag", shortName(x.Start.Value))
	default:
		return false
	}
	return true
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

// startToken returns the token where n's text begins, or nil if it has no
// position.
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

// styleOf says how a scalar is written; Plain for anything else.
func styleOf(n ast.Node) Style {
	var tk *token.Token
	switch x := n.(type) {
	case *ast.StringNode:
		tk = x.Token
	case *ast.LiteralNode:
		tk = x.Start
	}
	if tk == nil {
		return Plain
	}
	switch tk.Type {
	case token.SingleQuoteType:
		return SingleQuoted
	case token.DoubleQuoteType:
		return DoubleQuoted
	case token.LiteralType:
		return Literal
	case token.FoldedType:
		return Folded
	}
	return Plain
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

// shortName returns an anchor or tag name for a message: as written when it
// is short and plain, else quoted and shortened.
func shortName(s string) string {
	if len(s) <= 40 && !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsGraphic(r) || unicode.IsSpace(r) }) {
		return s
	}
	return quoteShort(s)
}

// quoteShort quotes s, shortened to 40 characters.
func quoteShort(s string) string {
	if r := []rune(s); len(r) > 40 {
		s = string(r[:37]) + "…"
	}
	return strconv.Quote(s)
}
