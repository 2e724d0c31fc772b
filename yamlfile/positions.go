package yamlfile

import (
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/token"
)

// Positions says where each value of a decoded file is written, by YAML path
// (see [FieldError] for the form of a path). [Decoder.Decode] returns it, for
// formats that point at values after decoding (a check that runs later, or a
// problem inside a scalar's text). A nil *Positions knows no paths, like the
// positions of a value built in Go.
//
// Lines and columns are 1-based, and columns count characters; 0, 0 means the
// path was not decoded.
type Positions struct {
	values map[string]spot  // path → where its value starts (the first time it is decoded)
	keys   map[string]point // path → where the key that introduces it starts
}

// point is a line and column; 0, 0 when unknown.
type point struct{ line, col int32 }

func pointOf(tk *token.Token) point {
	if tk == nil || tk.Position == nil {
		return point{}
	}
	return point{int32(tk.Position.Line), int32(tk.Position.Column)}
}

// spot is where a value is written, and what was written there.
type spot struct {
	start  point // where the node starts, with its anchor or tag
	value  point // where the value itself starts, after its anchor or tag
	scalar bool  // the value is a scalar (or null)
	style  Style // how the scalar is written
}

// Value returns where the value at path starts: the first character of a
// scalar (its quote or block indicator, if any), the "-" of a block list, the
// "[" or "{" of a flow collection, the first key of a block mapping, or the
// "*" of an alias. An anchor (&a) or tag (!!str) before the value is not part
// of it.
func (p *Positions) Value(path string) (line, col int) {
	if p == nil {
		return 0, 0
	}
	s := p.values[path].value
	return int(s.line), int(s.col)
}

// Key returns where the mapping key that introduces the value at path starts;
// 0, 0 for the document and for list elements.
func (p *Positions) Key(path string) (line, col int) {
	if p == nil {
		return 0, 0
	}
	s := p.keys[path]
	return int(s.line), int(s.col)
}

// At returns where a problem with the value at path is reported, as for a
// [FieldError]: a scalar where it is written (at its anchor or tag, if it
// has one), a list or mapping at its key, and a path that was not decoded (a
// missing key) at its nearest decoded ancestor.
func (p *Positions) At(path string) (line, col int) {
	if p == nil {
		return 0, 0
	}
	if path == "" {
		path = "$"
	}
	for q := path; ; q = parentPath(q) {
		if v, ok := p.values[q]; ok {
			if k, ok := p.keys[q]; ok && !v.scalar {
				return int(k.line), int(k.col)
			}
			return int(v.start.line), int(v.start.col)
		}
		if q == "$" {
			return 0, 0
		}
	}
}

// Style returns how the scalar at path is written; [Plain] for anything
// else.
func (p *Positions) Style(path string) Style {
	if p == nil {
		return Plain
	}
	return p.values[path].style
}

// KeyPath appends a mapping key to a path: KeyPath("$.a", "b") is "$.a.b",
// and a key with characters outside [A-Za-z0-9_-] is quoted:
// KeyPath("$.labels", "a.b") is "$.labels['a.b']".
func KeyPath(path, key string) string {
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

// IndexPath appends a list index to a path: IndexPath("$.classes", 1) is
// "$.classes[1]".
func IndexPath(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// parentPath strips the last segment of a path: "$.a.b[2]" → "$.a.b" → "$.a" → "$".
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
