package incident

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	_ "time/tzdata" // time zones resolve the same on every machine
)

// maxErrors bounds the number of problems one DecodeError lists.
const maxErrors = 50

// maxFileSize bounds how much of a file the document links to (series CSV, packet) is read.
const maxFileSize = 64 << 20

// openRegular opens a regular file (not a device or a pipe, which could block or never end).
func openRegular(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return f, nil
}

// DecodeError is the error [Decode] and [Load] return for a document that cannot be read:
// every problem found, each at its source position.
type DecodeError struct {
	Diagnostics []Diagnostic
}

// Error returns one "file:line:col: error: message" line per problem.
func (e *DecodeError) Error() string {
	lines := make([]string, len(e.Diagnostics))
	for i, d := range e.Diagnostics {
		lines[i] = d.String()
	}
	return strings.Join(lines, "\n")
}

// Load reads and decodes the document at path, then reads its series CSV (if the
// document names one) relative to the document's directory.
func Load(path string) (*Document, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("incident: %w", err)
	}
	doc, err := Decode(path, data)
	if err != nil {
		return nil, err
	}
	if s := doc.Series; s != nil && s.CSV != "" {
		csvPath := doc.resolve(s.CSV)
		f, err := openRegular(csvPath)
		if err != nil {
			return nil, &DecodeError{[]Diagnostic{doc.errorAt("series.csv", "cannot read the series CSV: %v; expected a file with header \"at,value\" beside the document", unwrapPathError(err))}}
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.Size() > maxFileSize {
			return nil, &DecodeError{[]Diagnostic{doc.errorAt("series.csv", "%s is larger than %d MiB", csvPath, maxFileSize>>20)}}
		}
		points, err := ReadSeriesCSV(csvPath, f)
		if err != nil {
			return nil, err
		}
		s.Points = points
	}
	return doc, nil
}

// Decode decodes a document from data. filename is used in error messages and to resolve
// the paths the document names (series CSV, replay scenario and packet); Decode itself
// reads no files, so a document whose series is a CSV has no points until [Load] reads it.
//
// Decoding is strict: unknown keys, values of the wrong type, timestamps that are not RFC
// 3339 UTC, malformed dates, unknown enumeration values and unknown time zones are
// errors. Missing fields are not: [Check] reports them, so that a draft still loads.
// The error is a *[DecodeError].
func Decode(filename string, data []byte) (*Document, error) {
	doc := &Document{file: filename, pos: map[string]pos{}, src: data}
	errAt := func(tk *token.Token, format string, args ...any) error {
		d := Diagnostic{File: filename, Severity: Error, Message: fmt.Sprintf(format, args...)}
		if tk != nil && tk.Position != nil {
			d.Line, d.Col = tk.Position.Line, tk.Position.Column
		}
		return &DecodeError{[]Diagnostic{d}}
	}
	file, err := parser.ParseBytes(data, 0)
	if err != nil {
		var yerr yaml.Error
		if errors.As(err, &yerr) {
			return nil, errAt(yerr.GetToken(), "invalid YAML: %s", yerr.GetMessage())
		}
		return nil, errAt(nil, "invalid YAML: %v", err)
	}
	var body ast.Node
	for i, d := range file.Docs {
		if d == nil || d.Body == nil {
			continue
		}
		if body != nil {
			return nil, errAt(nodeToken(d.Body), "a second YAML document (document %d); expected one incident per file", i+1)
		}
		body = d.Body
	}
	if body == nil {
		return nil, errAt(nil, "empty document; expected a mapping with id, status, title and milestones")
	}

	w := &walker{doc: doc}
	w.walk(body, reflect.TypeFor[Document](), "", nil)
	if len(w.diags) > 0 {
		return nil, &DecodeError{w.diags}
	}
	if err := yaml.NodeToValue(body, doc, yaml.Strict()); err != nil {
		var yerr yaml.Error
		if errors.As(err, &yerr) {
			return nil, errAt(yerr.GetToken(), "%s", yerr.GetMessage())
		}
		return nil, errAt(nil, "%v", err)
	}
	for _, f := range w.fixups {
		f.apply(reflect.ValueOf(doc).Elem())
	}
	return doc, nil
}

// ReadSeriesCSV reads series points from CSV data with a header row "at,value": at is an
// RFC 3339 UTC timestamp, value a number. name is used in error messages.
func ReadSeriesCSV(name string, r io.Reader) ([]Point, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 2
	cr.ReuseRecord = true
	var points []Point
	var diags []Diagnostic
	fail := func(line, col int, format string, args ...any) {
		diags = append(diags, Diagnostic{File: name, Line: line, Col: col, Severity: Error, Message: fmt.Sprintf(format, args...)})
	}
	for row := 0; len(diags) < maxErrors; row++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var perr *csv.ParseError
			if errors.As(err, &perr) {
				fail(perr.Line, perr.Column, "%v; expected two columns: at,value", perr.Err)
				break
			}
			fail(0, 0, "%v", err)
			break
		}
		line, _ := cr.FieldPos(0)
		if row == 0 {
			if strings.TrimSpace(rec[0]) != "at" || strings.TrimSpace(rec[1]) != "value" {
				fail(line, 1, "header is %q; expected \"at,value\"", strings.Join(rec, ","))
			}
			continue
		}
		at, err := parseUTC(strings.TrimSpace(rec[0]))
		if err != nil {
			_, col := cr.FieldPos(0)
			fail(line, col, "%v", err)
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rec[1]), 64)
		if err != nil {
			_, col := cr.FieldPos(1)
			fail(line, col, "value %q is not a number; expected a plain decimal such as 6 or 52.5", rec[1])
			continue
		}
		if n := len(points); n > 0 && !at.After(points[n-1].At) {
			fail(line, 1, "%s is not after the previous row's %s; expected rows in strictly increasing time order", at.Format(time.RFC3339), points[n-1].At.Format(time.RFC3339))
			continue
		}
		points = append(points, Point{At: at, Value: v})
	}
	if len(diags) > 0 {
		return nil, &DecodeError{diags}
	}
	if len(points) == 0 {
		return nil, &DecodeError{[]Diagnostic{{File: name, Line: 1, Col: 1, Severity: Error, Message: "no data rows; expected a header \"at,value\" and at least one row"}}}
	}
	return points, nil
}

// parseUTC parses a strict RFC 3339 timestamp and requires it to be in UTC.
func parseUTC(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a timestamp; expected RFC 3339 in UTC, such as 2026-09-12T09:14:00Z", s)
	}
	if _, off := t.Zone(); off != 0 || !strings.HasSuffix(s, "Z") {
		return time.Time{}, fmt.Errorf("%q is not in UTC; times are stored in UTC (set time_zone for display): write %s", s, t.UTC().Format(time.RFC3339))
	}
	return t.UTC(), nil
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}

// resolve returns a path named in the document relative to the document's directory.
func (d *Document) resolve(p string) string {
	if filepath.IsAbs(p) || d.file == "" {
		return p
	}
	return filepath.Join(filepath.Dir(d.file), filepath.FromSlash(p))
}

// File returns the file name the document was decoded from.
func (d *Document) File() string { return d.file }

// Position returns the 1-based line and column of the value at a YAML path such as
// "timeline[2].at" or "actions[0]", or 0, 0 when the path is unknown (for example in a
// document built in Go code).
func (d *Document) Position(path string) (line, col int) {
	p, ok := d.pos[path]
	if !ok {
		return 0, 0
	}
	return p.Line, p.Col
}

// walker validates the YAML tree against the Go types before decoding, records the
// position of every value, and notes scalars that must keep their source text.
type walker struct {
	doc    *Document
	diags  []Diagnostic
	fixups []fixup
	route  []int // field or element indexes from the Document to the current value
}

// fixup sets a string field to the scalar's source text (so that `id: 01` stays "01").
type fixup struct {
	route []int
	text  string
}

func (f fixup) apply(v reflect.Value) {
	for _, i := range f.route {
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return
			}
			v = v.Elem()
		}
		switch v.Kind() {
		case reflect.Struct:
			v = v.Field(i)
		case reflect.Slice:
			if i >= v.Len() {
				return
			}
			v = v.Index(i)
		default:
			return
		}
	}
	if v.Kind() == reflect.String && v.CanSet() {
		v.SetString(f.text)
	}
}

func (w *walker) fail(tk *token.Token, path, format string, args ...any) {
	if len(w.diags) >= maxErrors {
		return
	}
	d := Diagnostic{File: w.doc.file, Severity: Error, Message: fmt.Sprintf(format, args...)}
	if path != "" {
		d.Message = path + ": " + d.Message
	}
	if tk != nil && tk.Position != nil {
		d.Line, d.Col = tk.Position.Line, tk.Position.Column
	}
	w.diags = append(w.diags, d)
}

var (
	timeType   = reflect.TypeFor[time.Time]()
	dateType   = reflect.TypeFor[Date]()
	statusType = reflect.TypeFor[Status]()
)

// unwrap strips tags and anchors from a node.
func unwrap(n ast.Node) ast.Node {
	for {
		switch v := n.(type) {
		case *ast.TagNode:
			n = v.Value
		case *ast.AnchorNode:
			n = v.Value
		default:
			return n
		}
	}
}

func nodeToken(n ast.Node) *token.Token {
	if n == nil {
		return nil
	}
	if m, ok := n.(*ast.MappingNode); ok {
		if m.IsFlowStyle || len(m.Values) == 0 {
			return m.Start
		}
		return m.Values[0].Key.GetToken()
	}
	if m, ok := n.(*ast.MappingValueNode); ok {
		return m.Key.GetToken()
	}
	return n.GetToken()
}

// describe names a node's kind for messages.
func describe(n ast.Node) string {
	switch v := n.(type) {
	case nil, *ast.NullNode:
		return "nothing (null)"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.StringNode:
		return fmt.Sprintf("the text %q", v.Value)
	case *ast.LiteralNode:
		return "a block of text"
	case *ast.IntegerNode, *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "the number " + n.GetToken().Value
	case *ast.BoolNode:
		return "the boolean " + n.GetToken().Value
	case *ast.AliasNode:
		return "an alias"
	}
	return fmt.Sprintf("a %s", n.Type())
}

// expect names what a Go type accepts, for messages.
func expect(t reflect.Type) string {
	switch {
	case t == timeType:
		return "an RFC 3339 timestamp in UTC, such as 2026-09-12T09:14:00Z"
	case t == dateType:
		return "a date YYYY-MM-DD, such as 2026-09-18"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return expect(t.Elem())
	case reflect.Struct:
		return "a mapping with the keys " + strings.Join(yamlKeys(t), ", ")
	case reflect.Slice:
		return "a list of " + strings.TrimPrefix(strings.TrimPrefix(expect(t.Elem()), "a "), "an ")
	case reflect.String:
		return "text"
	case reflect.Float64:
		return "a number"
	case reflect.Int:
		return "an integer"
	}
	return t.String()
}

func yamlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	return name
}

func yamlKeys(t reflect.Type) []string {
	var keys []string
	for f := range t.Fields() {
		if f.IsExported() && yamlName(f) != "" {
			keys = append(keys, yamlName(f))
		}
	}
	return keys
}

// enumValues returns the values a field's jsonschema tag allows, or nil.
func enumValues(f reflect.StructField) []string {
	var vals []string
	for part := range strings.SplitSeq(f.Tag.Get("jsonschema"), ",") {
		if v, ok := strings.CutPrefix(part, "enum="); ok {
			vals = append(vals, v)
		}
	}
	return vals
}

func (w *walker) record(path string, n ast.Node, key *token.Token) {
	p := pos{}
	if tk := nodeToken(n); tk != nil && tk.Position != nil {
		p.Line, p.Col = tk.Position.Line, tk.Position.Column
	}
	if key != nil && key.Position != nil {
		p.KeyLine, p.KeyCol = key.Position.Line, key.Position.Column
		if p.Line == 0 {
			p.Line, p.Col = p.KeyLine, p.KeyCol
		}
	}
	w.doc.pos[path] = p
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// walk checks node n against type t at path. field is the struct field being decoded
// (for enumerations), or nil.
func (w *walker) walk(n ast.Node, t reflect.Type, path string, field *reflect.StructField) {
	if n != nil {
		n = unwrap(n)
	}
	if _, isAlias := n.(*ast.AliasNode); isAlias {
		return // the decoder resolves aliases; their target was checked where it was defined
	}
	if t.Kind() == reflect.Pointer {
		if _, null := n.(*ast.NullNode); null || n == nil {
			return
		}
		t = t.Elem()
	}
	if _, null := n.(*ast.NullNode); null || n == nil {
		return // an empty value: the zero value; Check reports required fields
	}
	tk := nodeToken(n)
	switch {
	case t == timeType:
		s, ok := n.(*ast.StringNode)
		if !ok {
			w.fail(tk, path, "found %s; expected %s", describe(n), expect(t))
			return
		}
		if _, err := parseUTC(s.Value); err != nil {
			w.fail(tk, path, "%v", err)
		}
		return
	case t == dateType:
		s, ok := n.(*ast.StringNode)
		if !ok {
			w.fail(tk, path, "found %s; expected %s", describe(n), expect(t))
			return
		}
		if _, err := time.Parse(time.DateOnly, s.Value); err != nil {
			w.fail(tk, path, "%q is not a date; expected %s", s.Value, expect(t))
		}
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		var pairs []*ast.MappingValueNode
		switch m := n.(type) {
		case *ast.MappingNode:
			pairs = m.Values
		case *ast.MappingValueNode:
			pairs = []*ast.MappingValueNode{m}
		default:
			w.fail(tk, path, "found %s; expected %s", describe(n), expect(t))
			return
		}
		seen := map[string]bool{}
		for _, kv := range pairs {
			ktk := kv.Key.GetToken()
			if kv.Key.IsMergeKey() {
				w.fail(ktk, path, "merge keys (<<) are not supported; write the keys out")
				continue
			}
			key := ktk.Value
			if seen[key] {
				w.fail(ktk, path, "key %q appears twice; expected each key once", key)
				continue
			}
			seen[key] = true
			sf, idx, ok := fieldByYAML(t, key)
			if !ok {
				w.fail(ktk, path, "unknown key %q; expected one of: %s%s", key, strings.Join(yamlKeys(t), ", "), suggest(key, yamlKeys(t)))
				continue
			}
			sub := joinPath(path, key)
			w.record(sub, unwrapOrNil(kv.Value), ktk)
			w.route = append(w.route, idx)
			w.walk(kv.Value, sf.Type, sub, &sf)
			w.route = w.route[:len(w.route)-1]
		}
	case reflect.Slice:
		seq, ok := n.(*ast.SequenceNode)
		if !ok {
			w.fail(tk, path, "found %s; expected %s", describe(n), expect(t))
			return
		}
		for i, v := range seq.Values {
			sub := fmt.Sprintf("%s[%d]", path, i)
			w.record(sub, unwrapOrNil(v), nil)
			w.route = append(w.route, i)
			w.walk(v, t.Elem(), sub, nil)
			w.route = w.route[:len(w.route)-1]
		}
	case reflect.String:
		var text string
		switch s := n.(type) {
		case *ast.StringNode:
			text = s.Value
		case *ast.LiteralNode:
			text = s.Value.Value
		case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
			text = n.GetToken().Value
			w.fixups = append(w.fixups, fixup{route: slices.Clone(w.route), text: text})
		default:
			w.fail(tk, path, "found %s; expected %s", describe(n), expect(t))
			return
		}
		if field != nil {
			if vals := enumValues(*field); vals != nil && !slices.Contains(vals, text) {
				w.fail(tk, path, "%q is not allowed; expected one of: %s", text, strings.Join(nonEmpty(vals), ", "))
			}
		}
		if t == statusType {
			return
		}
		if field != nil && yamlName(*field) == "time_zone" && text != "" {
			if _, err := time.LoadLocation(text); err != nil || strings.EqualFold(text, "local") {
				w.fail(tk, path, "unknown time zone %q; expected an IANA name such as UTC or Europe/Dublin", text)
			}
		}
	case reflect.Float64:
		switch n.(type) {
		case *ast.IntegerNode, *ast.FloatNode:
		default:
			hint := ""
			if s, ok := n.(*ast.StringNode); ok && strings.ContainsAny(s.Value, ",%") {
				hint = " (write numbers without separators or units, e.g. 12400)"
			}
			w.fail(tk, path, "found %s; expected a number%s", describe(n), hint)
		}
	case reflect.Int:
		if _, ok := n.(*ast.IntegerNode); !ok {
			w.fail(tk, path, "found %s; expected an integer", describe(n))
		}
	default:
		w.fail(tk, path, "unsupported field type %s", t)
	}
}

func unwrapOrNil(n ast.Node) ast.Node {
	if n == nil {
		return nil
	}
	return unwrap(n)
}

func nonEmpty(vals []string) []string {
	var out []string
	for _, v := range vals {
		if v == "" {
			v = `"" (none)`
		}
		out = append(out, v)
	}
	return out
}

func fieldByYAML(t reflect.Type, key string) (reflect.StructField, int, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if f.IsExported() && yamlName(f) == key {
			return f, i, true
		}
	}
	return reflect.StructField{}, 0, false
}

// suggest proposes the closest known key for a misspelt one.
func suggest(key string, keys []string) string {
	best, bestD := "", 3
	for _, k := range keys {
		if d := editDistance(strings.ToLower(key), k); d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// errorAt returns an error diagnostic at a YAML path of the document.
func (d *Document) errorAt(path, format string, args ...any) Diagnostic {
	line, col := d.Position(path)
	return Diagnostic{File: d.file, Line: line, Col: col, Severity: Error, Message: path + ": " + fmt.Sprintf(format, args...)}
}

// bytesIndexLine returns the byte offset at which 1-based line starts in src, or -1.
func lineStart(src []byte, line int) int {
	if line < 1 {
		return -1
	}
	off := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return -1
		}
		off += i + 1
	}
	return off
}
