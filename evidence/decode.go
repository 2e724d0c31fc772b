package evidence

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	yaml "github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// Decode decodes a packet from data, the contents of the file named filename (used in error
// messages only), and validates it (see [Packet.Validate]).
//
// Decoding is strict: an unknown key, a duplicated key, a number written as text, a missing
// formula or claim, anchors, aliases and tags are all errors. Every error reads
// `file:line:col: what is wrong, what is expected`; a problem inside a formula points at the
// offending part of the formula. When there are several problems, the error joins them, one
// per line, and each is an [*Error].
func Decode(filename string, data []byte) (*Packet, error) {
	file, err := parse(data)
	if err != nil {
		return nil, yamlError(filename, err)
	}
	lines := strings.Split(string(data), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	d := &decoder{file: filename, lines: lines}
	p := &Packet{at: where{file: filename, line: 1, col: 1}}
	switch {
	case len(file.Docs) == 0 || file.Docs[0].Body == nil:
		d.errs = append(d.errs, p.at.errorf("packet is empty; expected a mapping with title, inputs and figures"))
	case len(file.Docs) > 1:
		d.fail(file.Docs[1], "file holds %d YAML documents; expected one packet per file", len(file.Docs))
	default:
		d.packet(p, file.Docs[0].Body)
	}
	if len(d.errs) > 0 {
		return nil, errors.Join(d.errs...)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// parse runs the YAML parser, turning a panic inside it (which a malformed file must never
// cause, but which the fuzz target would otherwise surface as a crash) into an error.
func parse(data []byte) (f *ast.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("the YAML parser failed on this input (%v)", r)
		}
	}()
	return parser.ParseBytes(data, 0)
}

// yamlError turns a YAML syntax error into an [*Error] with a position.
func yamlError(filename string, err error) error {
	var ye yaml.Error
	if errors.As(err, &ye) {
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			return &Error{File: filename, Line: tk.Position.Line, Col: tk.Position.Column,
				Msg: "not valid YAML: " + ye.GetMessage()}
		}
		return &Error{File: filename, Msg: "not valid YAML: " + ye.GetMessage()}
	}
	return &Error{File: filename, Msg: "not valid YAML: " + err.Error()}
}

// decoder walks the YAML tree, collecting every problem it meets.
type decoder struct {
	file  string
	lines []string // the file's lines, to map formula offsets to columns
	errs  []error
}

func (d *decoder) at(n ast.Node) where {
	line, col := position(n)
	return where{file: d.file, line: line, col: col}
}

func (d *decoder) fail(n ast.Node, format string, args ...any) {
	d.errs = append(d.errs, d.at(n).errorf(format, args...))
}

// position is where a node starts: a mapping starts at its first key.
func position(n ast.Node) (line, col int) {
	switch m := n.(type) {
	case *ast.MappingNode:
		if len(m.Values) > 0 && !m.IsFlowStyle {
			return position(m.Values[0])
		}
	case *ast.MappingValueNode:
		return position(m.Key)
	}
	if tk := tokenOf(n); tk != nil && tk.Position != nil {
		return tk.Position.Line, tk.Position.Column
	}
	return 0, 0
}

// tokenOf returns a node's token, or nil. Some nodes' GetToken methods dereference fields
// that can be nil (a document without a "---" line), so a panic is taken as "no token".
func tokenOf(n ast.Node) (tk *token.Token) {
	if n == nil {
		return nil
	}
	if doc, ok := n.(*ast.DocumentNode); ok {
		if doc.Start != nil {
			return doc.Start
		}
		return tokenOf(doc.Body)
	}
	defer func() {
		if recover() != nil {
			tk = nil
		}
	}()
	return n.GetToken()
}

// describe names the kind of a node for "found X" messages.
func describe(n ast.Node) string {
	switch n := n.(type) {
	case nil, *ast.NullNode:
		return "nothing"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.StringNode:
		return fmt.Sprintf("text %q", n.Value)
	case *ast.LiteralNode:
		return "a block of text"
	case *ast.AnchorNode, *ast.AliasNode:
		return "an anchor or alias"
	case *ast.TagNode:
		return "a tagged value"
	}
	if tk := tokenOf(n); tk != nil {
		return fmt.Sprintf("%q", tk.Value)
	}
	return "an unexpected value"
}

// mapping returns the entries of a mapping node, or reports that n is not one.
func (d *decoder) mapping(n ast.Node, what, expected string) ([]*ast.MappingValueNode, bool) {
	switch m := n.(type) {
	case *ast.MappingNode:
		return m.Values, true
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{m}, true
	}
	d.fail(n, "%s is %s; expected %s", what, describe(n), expected)
	return nil, false
}

// key returns the name of a mapping key, or reports that it is not a plain name.
func (d *decoder) key(e *ast.MappingValueNode) (string, bool) {
	if s, ok := e.Key.(*ast.StringNode); ok {
		return s.Value, true
	}
	d.fail(e.Key, "key %s is not a name; expected a plain name such as attempt_rate", describe(e.Key))
	return "", false
}

// packet decodes the top-level mapping.
func (d *decoder) packet(p *Packet, body ast.Node) {
	entries, ok := d.mapping(body, "the packet", "a mapping with title, source, inputs and figures")
	if !ok {
		return
	}
	p.at = d.at(body)
	for _, e := range entries {
		k, ok := d.key(e)
		if !ok {
			continue
		}
		switch k {
		case "title":
			p.Title, _ = d.text(e.Value, "title")
		case "source":
			p.Source, _ = d.text(e.Value, "source")
		case "inputs":
			d.inputs(p, e.Value)
		case "figures":
			d.figures(p, e.Value)
		default:
			d.fail(e.Key, "unknown key %q in the packet; expected title, source, inputs or figures", k)
		}
	}
}

func (d *decoder) inputs(p *Packet, n ast.Node) {
	entries, ok := d.mapping(n, "inputs", "a mapping of names to {value: NUMBER, unit: TEXT, note: TEXT}")
	if !ok {
		return
	}
	for _, e := range entries {
		name, ok := d.key(e)
		if !ok {
			continue
		}
		in := Input{Name: name, at: d.at(e.Key)}
		fields, ok := d.mapping(e.Value, fmt.Sprintf("input %q", name), "a mapping such as {value: 9000, unit: 1/s}")
		if !ok {
			continue
		}
		hasValue := false
		for _, f := range fields {
			k, ok := d.key(f)
			if !ok {
				continue
			}
			what := fmt.Sprintf("input %q: %s", name, k)
			switch k {
			case "value":
				hasValue = true
				in.Value, _, _ = d.number(f.Value, what)
			case "unit":
				in.Unit, _ = d.text(f.Value, what)
			case "note":
				in.Note, _ = d.text(f.Value, what)
			default:
				d.fail(f.Key, "unknown key %q in input %q; expected value, unit or note", k, name)
			}
		}
		if !hasValue {
			d.fail(e.Key, "input %q has no value; expected value: NUMBER", name)
		}
		p.Inputs = append(p.Inputs, in)
	}
}

func (d *decoder) figures(p *Packet, n ast.Node) {
	entries, ok := d.mapping(n, "figures", "a mapping of names to {formula: EXPRESSION, claim: NUMBER}")
	if !ok {
		return
	}
	for _, e := range entries {
		name, ok := d.key(e)
		if !ok {
			continue
		}
		fig := Figure{Name: name, at: d.at(e.Key)}
		fields, ok := d.mapping(e.Value, fmt.Sprintf("figure %q", name), "a mapping such as {formula: a * b, claim: 1.5}")
		if !ok {
			continue
		}
		var (
			hasFormula, hasClaim, hasTolerance bool
			precision                          = -1
			claimNode, precisionNode           ast.Node
		)
		for _, f := range fields {
			k, ok := d.key(f)
			if !ok {
				continue
			}
			what := fmt.Sprintf("figure %q: %s", name, k)
			switch k {
			case "formula":
				hasFormula = true
				if text, ok := d.text(f.Value, what); ok {
					fig.Formula = text
					fig.formula = d.formulaAt(f.Value)
				}
			case "claim":
				hasClaim = true
				claimNode = f.Value
				fig.Claim, fig.ClaimText, _ = d.number(f.Value, what)
			case "unit":
				fig.Unit, _ = d.text(f.Value, what)
			case "note":
				fig.Note, _ = d.text(f.Value, what)
			case "tolerance":
				hasTolerance = true
				if v, _, ok := d.number(f.Value, what); ok {
					if v < 0 {
						d.fail(f.Value, "%s is %v; expected a number ≥ 0", what, v)
					}
					fig.Tolerance = v
				}
			case "precision":
				precisionNode = f.Key
				precision = d.decimals(f.Value, what)
			default:
				d.fail(f.Key, "unknown key %q in figure %q; expected formula, claim, unit, tolerance, precision or note", k, name)
			}
		}
		if !hasFormula {
			d.fail(e.Key, "figure %q has no formula; expected formula: EXPRESSION over inputs and figures", name)
		}
		if !hasClaim {
			d.fail(e.Key, "figure %q has no claim; expected claim: NUMBER, the figure the document states", name)
		}
		switch stated := statedDecimals(fig.ClaimText); {
		case hasTolerance && precisionNode != nil:
			d.fail(precisionNode, "figure %q has both tolerance and precision; expected one of them", name)
		case hasTolerance:
			fig.Basis = "declared tolerance"
		case precision >= 0:
			fig.Tolerance = halfUnit(precision)
			fig.Basis = fmt.Sprintf("precision %d", precision)
			if hasClaim && fig.ClaimText != "" && stated > precision {
				d.fail(claimNode, "figure %q claims %s, written to %s, but its precision is %d; expected at most %s",
					name, fig.ClaimText, statedAs(stated), precision, statedAs(precision))
			}
		case fig.ClaimText != "":
			fig.Tolerance = halfUnit(stated)
			fig.Basis = "as written: " + statedAs(stated)
		}
		p.Figures = append(p.Figures, fig)
	}
}

// text returns the text of a scalar node.
func (d *decoder) text(n ast.Node, what string) (string, bool) {
	switch n := n.(type) {
	case *ast.StringNode:
		return n.Value, true
	case *ast.LiteralNode:
		if n.Value != nil {
			return n.Value.Value, true
		}
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
		if tk := tokenOf(n); tk != nil {
			return tk.Value, true
		}
	}
	d.fail(n, "%s is %s; expected text", what, describe(n))
	return "", false
}

// decimalRE is a number as people write it: digits, an optional fraction, an optional exponent.
var decimalRE = regexp.MustCompile(`^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$`)

// number returns the value of a plain decimal number and its text as written.
func (d *decoder) number(n ast.Node, what string) (float64, string, bool) {
	switch s := n.(type) {
	case *ast.IntegerNode, *ast.FloatNode:
		text := ""
		if tk := tokenOf(n); tk != nil {
			text = tk.Value
		}
		if !decimalRE.MatchString(text) {
			d.fail(n, "%s is %s; expected a decimal number such as 14054.4", what, text)
			return 0, "", false
		}
		v, err := strconv.ParseFloat(text, 64)
		if err != nil || !finite(v) {
			d.fail(n, "%s is %s; expected a finite number", what, text)
			return 0, "", false
		}
		return v, text, true
	case *ast.StringNode:
		if tk := tokenOf(s); tk != nil && tk.Type == token.StringType && decimalRE.MatchString(s.Value) {
			// A plain number the YAML parser left as text: one too large for a float64.
			d.fail(n, "%s is %s; expected a finite number", what, s.Value)
			return 0, "", false
		}
		d.fail(n, "%s is %s; expected a number written without quotes, thousands separators or units", what, describe(n))
	case *ast.InfinityNode, *ast.NanNode:
		d.fail(n, "%s is %s; expected a finite number", what, describe(n))
	default:
		d.fail(n, "%s is %s; expected a number", what, describe(n))
	}
	return 0, "", false
}

// decimals returns a precision: a whole number of decimals from 0 to 15.
func (d *decoder) decimals(n ast.Node, what string) int {
	if tk := tokenOf(n); tk != nil && tk.Type == token.IntegerType {
		if v, err := strconv.Atoi(tk.Value); err == nil && v >= 0 && v <= 15 {
			return v
		}
	}
	d.fail(n, "%s is %s; expected a whole number of decimals from 0 to 15", what, describe(n))
	return -1
}

// statedDecimals is the number of decimals a number is written to: 2 for 68.97, 0 for 8772,
// −2 for 1.5e3 (stated to the nearest hundred).
func statedDecimals(text string) int {
	mant, exp, _ := strings.Cut(strings.ToLower(text), "e")
	_, frac, _ := strings.Cut(mant, ".")
	e, _ := strconv.Atoi(exp)
	return len(frac) - e
}

// halfUnit is half a unit in the place decimals counts to: 0.005 for 2, 0.5 for 0.
func halfUnit(decimals int) float64 { return 0.5 * math.Pow10(-decimals) }

func statedAs(decimals int) string {
	switch {
	case decimals == 1:
		return "1 decimal"
	case decimals > 1:
		return fmt.Sprintf("%d decimals", decimals)
	case decimals == 0:
		return "whole number"
	}
	return fmt.Sprintf("nearest %g", math.Pow10(-decimals))
}

// formulaAt works out how offsets in a formula's text map to the file: exactly when the text
// sits in the file as is, on one line or as a literal block; otherwise to the scalar's start.
func (d *decoder) formulaAt(n ast.Node) where {
	w := d.at(n)
	tk := tokenOf(n)
	switch n := n.(type) {
	case *ast.StringNode:
		if tk == nil {
			return w
		}
		start := w.col - 1 // 0-based rune index of the text in its line
		if tk.Type == token.SingleQuoteType || tk.Type == token.DoubleQuoteType {
			start++
		}
		line := d.line(w.line)
		if !strings.Contains(n.Value, "\n") && start >= 0 && start <= len(line) &&
			strings.HasPrefix(string(line[start:]), n.Value) {
			w.col = start + 1
			w.exact = true
		}
	case *ast.LiteralNode:
		if tk == nil || tk.Type != token.LiteralType || n.Value == nil {
			return w // a folded block: its lines are joined, so point at the indicator
		}
		text := strings.TrimRight(n.Value.Value, "\n")
		first := w.line + 1
		indent := -1
		for i, l := range strings.Split(text, "\n") {
			src := d.line(first + i)
			if l == "" {
				if strings.TrimSpace(string(src)) != "" {
					return w
				}
				continue
			}
			if indent < 0 {
				indent = 0
				for indent < len(src) && src[indent] == ' ' {
					indent++
				}
			}
			if indent > len(src) || string(src[indent:]) != l || strings.TrimSpace(string(src[:indent])) != "" {
				return w
			}
		}
		if indent >= 0 {
			return where{file: d.file, line: first, col: indent + 1, block: true}
		}
	}
	return w
}

// line returns the 1-based line n of the file as runes, or nil.
func (d *decoder) line(n int) []rune {
	if n < 1 || n > len(d.lines) {
		return nil
	}
	return []rune(d.lines[n-1])
}
