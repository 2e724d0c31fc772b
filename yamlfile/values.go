package yamlfile

import (
	"encoding"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

var (
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	checkerType         = reflect.TypeFor[Checker]()
	durationType        = reflect.TypeFor[time.Duration]()
	timeType            = reflect.TypeFor[time.Time]()
)

// value decodes the node n, written at path, into v. tag is the tag of the
// struct field v is, if it is one.
func (d *decoder) value(path string, n ast.Node, v reflect.Value, tag reflect.StructTag) {
	if d.stopped {
		return
	}
	d.values++
	if d.values > maxValues {
		d.errorf(startToken(n), path, "the %s expands to more than %d values (through aliases?); expected a smaller %[1]s", d.Document, maxValues)
		d.stopped = true
		return
	}
	at := startToken(n)
	if d.refused(path, n) {
		return
	}
	if tag, ok := n.(*ast.TagNode); ok {
		if !d.knownTag(tag, path) {
			return
		}
	}
	r := d.resolve(n)
	d.record(path, n, r)
	if r == nil {
		if _, ok := n.(*ast.AliasNode); ok {
			return // reported by collectAnchors
		}
	}
	t := v.Type()

	if r == nil || r.Type() == ast.NullType {
		switch k := t.Kind(); {
		case d.Nulls == NullsZero,
			d.Nulls == NullsEmptyCollections && (k == reflect.Pointer || k == reflect.Slice || k == reflect.Map || k == reflect.Struct || k == reflect.Interface):
			v.SetZero()
		default:
			d.errorf(at, path, "missing value; expected %s", d.expectType(t))
		}
		return
	}

	if t.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(t.Elem()))
		}
		d.value(path, r, v.Elem(), tag)
		return
	}

	text, scalar := scalarText(r)
	if scalar && d.Scalar != nil {
		x, err := d.Scalar(Scalar{Path: path, Text: text, Style: styleOf(r), Type: t, Tag: tag})
		switch xv := reflect.ValueOf(x); {
		case err != nil:
			d.errorf(at, path, "%v", err)
			return
		case x == nil:
		case xv.Type().AssignableTo(t):
			v.Set(xv)
			return
		default:
			d.errorf(at, path, "cannot store a %s in a %s; expected the Scalar hook to return the type it is given (a bug in the Go code)", xv.Type(), t)
			return
		}
	}

	pt := reflect.PointerTo(t)
	switch {
	case t == durationType:
		if !scalar {
			d.errorf(at, path, "got %s; expected %s", describe(r), d.expectType(t))
			return
		}
		dur, err := time.ParseDuration(strings.TrimSpace(text))
		if err != nil {
			d.errorf(at, path, "%q is not a duration; expected %s", text, d.expectType(t))
			return
		}
		v.SetInt(int64(dur))
		return
	case t == timeType:
		if !scalar {
			d.errorf(at, path, "got %s; expected %s", describe(r), d.expectType(t))
			return
		}
		tm, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(text))
		if err != nil {
			d.errorf(at, path, "%q is not an RFC 3339 time; expected %s", text, d.expectType(t))
			return
		}
		v.Set(reflect.ValueOf(tm))
		return
	case pt.Implements(textUnmarshalerType) && (scalar || !pt.Implements(checkerType)):
		if !scalar {
			d.errorf(at, path, "got %s; expected %s", describe(r), d.expectType(t))
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
			d.errorf(at, path, "got %s; expected %s", describe(r), d.expectType(t))
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
			d.errorf(at, path, "%s is out of range; expected %s between %d and %d", text, d.expectType(t),
				-1<<(t.Bits()-1), 1<<(t.Bits()-1)-1)
			return
		}
		if !ok {
			d.errorf(at, path, "got %s; expected %s%s", describe(r), d.expectType(t), numberHint(r))
			return
		}
		v.SetInt(i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u, ok := uintValue(r)
		if f, isNum := floatValue(r); !ok && isNum && f >= 1<<64 && f == math.Trunc(f) {
			d.errorf(at, path, "%s is out of range; expected %s up to %d", text, d.expectType(t), uint64(1)<<t.Bits()-1)
			return
		}
		if !ok {
			if f, isNum := floatValue(r); isNum && f < 0 {
				d.errorf(at, path, "%s is negative; expected %s", text, d.expectType(t))
				return
			}
			d.errorf(at, path, "got %s; expected %s%s", describe(r), d.expectType(t), numberHint(r))
			return
		}
		if v.OverflowUint(u) {
			d.errorf(at, path, "%s is out of range; expected %s up to %d", text, d.expectType(t), uint64(1)<<t.Bits()-1)
			return
		}
		v.SetUint(u)
	case reflect.Float32, reflect.Float64:
		f, ok := floatValue(r)
		if !ok {
			d.errorf(at, path, "got %s; expected %s%s", describe(r), d.expectType(t), numberHint(r))
			return
		}
		if v.OverflowFloat(f) {
			d.errorf(at, path, "%s is out of range; expected %s", text, d.expectType(t))
			return
		}
		v.SetFloat(f)
	default:
		d.errorf(at, path, "cannot decode into %s; expected a supported Go type (a bug in the Go types)", t)
	}
}

// numberHint explains how to write a number to someone who wrote "12,400" or "5%".
func numberHint(n ast.Node) string {
	if s, ok := n.(*ast.StringNode); ok && strings.ContainsAny(s.Value, ",%") && strings.ContainsAny(s.Value, "0123456789") {
		return " (write numbers without separators or units, e.g. 12400)"
	}
	return ""
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
	d.errorf(tag.Start, path, "unsupported tag %s; expected no tag (or a core tag such as !!str)", shortName(name))
	return false
}

// plainNumber returns the number an unquoted scalar spells when the YAML
// lexer left it as text (1e3, 1_000, 99999999999999999999).
func plainNumber(n ast.Node) (float64, bool) {
	x, ok := n.(*ast.StringNode)
	if !ok || x.Token == nil || x.Token.Type != token.StringType || x.Value == "" {
		return 0, false
	}
	if strings.Trim(x.Value, "0123456789._eE+-") != "" {
		return 0, false // hexadecimal, infinity, not a number…
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(x.Value, "_", ""), 64)
	return f, err == nil && !math.IsInf(f, 0)
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
			if d.NoMergeKeys || d.NoAliases {
				d.errorf(startToken(mv.Key), path, "merge keys (<<) are not supported here; expected the keys written out")
				continue
			}
			if depth > maxNesting {
				d.errorf(startToken(mv.Key), path, "merge keys nested more than %d deep; expected a shallower %s", maxNesting, d.Document)
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
		if d.refused(path, mv.Key) {
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
	name     string
	index    []int
	tag      reflect.StructTag
	required bool // `yaml:",required"`: the key must be written
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
			name, opts, _ := strings.Cut(sf.Tag.Get("yaml"), ",")
			if name == "-" && opts == "" {
				continue
			}
			idx := append(slices.Clone(index), i)
			options := strings.Split(opts, ",")
			inline := slices.Contains(options, "inline") || sf.Anonymous && name == ""
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
			out = append(out, field{name: name, index: idx, tag: sf.Tag, required: slices.Contains(options, "required")})
		}
	}
	walk(t, nil, 0)
	fieldsCache.Store(t, out)
	return out
}

// Field is a key a struct type accepts, and the struct field it decodes into.
type Field struct {
	Name  string // the YAML key
	Index []int  // the field, for reflect.Type.FieldByIndex
}

// Fields lists the keys a struct type accepts, in declaration order, with
// the fields of inline (embedded) structs in place: what a mapping decoded
// into t may hold. A JSON Schema generated from the same type should name
// the same keys.
func Fields(t reflect.Type) []Field {
	fields := fieldsOf(t)
	out := make([]Field, len(fields))
	for i, f := range fields {
		out[i] = Field{Name: f.name, Index: slices.Clone(f.index)}
	}
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
		d.errorf(startToken(n), path, "got %s; expected %s", describe(n), d.expectType(v.Type()))
		return
	}
	fields := fieldsOf(v.Type())
	before := len(d.errs)
	written := make([]bool, len(fields))
	for _, e := range es {
		i := slices.IndexFunc(fields, func(f field) bool { return f.name == e.key })
		if i < 0 {
			d.errorf(e.tok, path, "%s", unknownKey(e.key, fieldNames(fields)))
			continue
		}
		written[i] = true
		fp := KeyPath(path, e.key)
		d.recordKey(fp, e.tok)
		d.value(fp, e.value, fieldByIndex(v, fields[i].index), fields[i].tag)
	}
	for i, f := range fields {
		if f.required && !written[i] {
			d.errAtPath(KeyPath(path, f.name), "missing; expected %s", d.expectType(v.Type().FieldByIndex(f.index).Type))
		}
	}
	if len(d.errs) > before || d.stopped {
		return
	}
	if c, ok := v.Addr().Interface().(Checker); ok {
		for _, fe := range fieldErrors(c.CheckYAML()) {
			d.errAtPath(rebase(path, fe.Path), "%s", fe.Msg)
		}
	}
}

func fieldNames(fields []field) []string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	return names
}

func (d *decoder) mapValue(path string, n ast.Node, v reflect.Value) {
	es, ok := d.entries(path, n, 0)
	if !ok {
		d.errorf(startToken(n), path, "got %s; expected %s", describe(n), d.expectType(v.Type()))
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
		fp := KeyPath(path, e.key)
		d.recordKey(fp, e.tok)
		elem := reflect.New(t.Elem()).Elem()
		d.value(fp, e.value, elem, "")
		v.SetMapIndex(k, elem)
	}
}

func (d *decoder) sliceValue(path string, n ast.Node, v reflect.Value) {
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		d.errorf(startToken(n), path, "got %s; expected %s", describe(n), d.expectType(v.Type()))
		return
	}
	s := reflect.MakeSlice(v.Type(), len(seq.Values), len(seq.Values))
	for i, e := range seq.Values {
		d.value(IndexPath(path, i), e, s.Index(i), "")
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
		d.value(IndexPath(path, i), e, v.Index(i), "")
	}
}

// generic decodes into untyped Go values: map[string]any, []any, string,
// int64 (uint64 above its range), float64, bool, nil.
func (d *decoder) generic(path string, n ast.Node) any {
	switch x := n.(type) {
	case *ast.SequenceNode:
		out := make([]any, len(x.Values))
		for i, e := range x.Values {
			d.value(IndexPath(path, i), e, reflect.ValueOf(&out[i]).Elem(), "")
		}
		return out
	case *ast.MappingNode, *ast.MappingValueNode:
		es, _ := d.entries(path, x, 0)
		out := make(map[string]any, len(es))
		for _, e := range es {
			var g any
			fp := KeyPath(path, e.key)
			d.recordKey(fp, e.tok)
			d.value(fp, e.value, reflect.ValueOf(&g).Elem(), "")
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
func (d *decoder) expectType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if d.Expect != nil {
		if s := d.Expect(t); s != "" {
			return s
		}
	}
	switch {
	case t == durationType:
		return "a duration such as 350ms"
	case t == timeType:
		return "an RFC 3339 time such as 2026-03-10T14:00:00Z"
	case reflect.PointerTo(t).Implements(textUnmarshalerType) && !reflect.PointerTo(t).Implements(checkerType):
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
		names := fieldNames(fieldsOf(t))
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
