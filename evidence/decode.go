package evidence

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/goodput-lab/goodput/yamlfile"
)

// Decode decodes a packet from data, the contents of the file named filename (used in error
// messages only), and validates it (see [Packet.Validate]).
//
// Decoding is strict (package yamlfile does it): an unknown key, a duplicated key, a number
// written as text or in anything but decimal, a missing value, formula or claim, anchors,
// aliases and tags are all errors. Every error reads `file:line:col: what is wrong; what is
// expected`; a problem inside a formula points at the offending part of the formula. When
// there are several problems, the error joins them, one per line, and each is an [*Error].
func Decode(filename string, data []byte) (*Packet, error) {
	var f packetFile
	claims := map[string]string{} // YAML path of each number → its text as written
	dec := yamlfile.Decoder{
		Document:  "packet",
		Nulls:     yamlfile.NullsRefused,
		NoAliases: true, // a formula's offsets map to the file only where it is written out
		Scalar:    func(s yamlfile.Scalar) (any, error) { return decodeScalar(s, claims) },
		Expect:    expect,
	}
	pos, err := dec.Decode(filename, data, &f)
	if err != nil {
		return nil, fileErrors(err)
	}
	b := &builder{file: filename, pos: pos, lines: strings.Split(yamlfile.Text(data), "\n"), texts: claims}
	p := b.packet(&f)
	if len(b.errs) > 0 {
		slices.SortStableFunc(b.errs, func(a, b *Error) int {
			return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
		})
		errs := make([]error, len(b.errs))
		for i, e := range b.errs {
			errs[i] = e
		}
		return nil, errors.Join(errs...)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// packetFile is a packet as written, before its figures get their tolerances. Inputs and
// figures are mappings; their order in the file is recovered from the keys' positions.
type packetFile struct {
	Title   string                `yaml:"title"`
	Source  string                `yaml:"source"`
	Inputs  map[string]inputFile  `yaml:"inputs"`
	Figures map[string]figureFile `yaml:"figures"`
}

type inputFile struct {
	Value float64 `yaml:"value,required"`
	Unit  string  `yaml:"unit"`
	Note  string  `yaml:"note"`
}

type figureFile struct {
	Formula   expression `yaml:"formula,required"`
	Claim     float64    `yaml:"claim,required"`
	Unit      string     `yaml:"unit"`
	Tolerance *float64   `yaml:"tolerance"`
	Precision *decimals  `yaml:"precision"`
	Note      string     `yaml:"note"`
}

// expression is a formula as written; decimals is a number of decimals, from 0 to 15.
type (
	expression string
	decimals   int
)

var (
	floatType    = reflect.TypeFor[float64]()
	decimalsType = reflect.TypeFor[decimals]()
)

func expect(t reflect.Type) string {
	switch t {
	case reflect.TypeFor[expression]():
		return "a formula over inputs and figures, such as rate * (1 + retry)"
	case decimalsType:
		return "a whole number of decimals from 0 to 15"
	}
	return ""
}

// decimalRE is a number as people write it: digits, an optional fraction, an optional exponent.
var decimalRE = regexp.MustCompile(`^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$`)

// decodeScalar reads numbers in decimal only (not 0x1F, .inf or 1_000), noting each one's
// text in texts by path, so that a claim's stated precision is known; a quoted number is left
// to yamlfile, which says it is text.
func decodeScalar(s yamlfile.Scalar, texts map[string]string) (any, error) {
	if s.Style != yamlfile.Plain {
		return nil, nil
	}
	switch s.Type {
	case floatType:
		if !decimalRE.MatchString(s.Text) {
			return nil, fmt.Errorf("%s is not a decimal number; expected a number such as 14054.4, written without quotes, thousands separators or units", s.Text)
		}
		v, err := strconv.ParseFloat(s.Text, 64)
		if err != nil || !finite(v) {
			return nil, fmt.Errorf("%s is out of range; expected a finite number", s.Text)
		}
		texts[s.Path] = s.Text
		return v, nil
	case decimalsType:
		n, err := strconv.Atoi(s.Text)
		if err != nil || n < 0 || n > 15 || strings.ContainsAny(s.Text, "+-") {
			return nil, fmt.Errorf("got %s; expected %s", s.Text, expect(decimalsType))
		}
		return decimals(n), nil
	}
	return nil, nil
}

// fileErrors turns yamlfile's errors into *Errors.
func fileErrors(err error) error {
	var list yamlfile.ErrorList
	if !errors.As(err, &list) {
		return &Error{Msg: err.Error()}
	}
	errs := make([]error, len(list))
	for i, e := range list {
		errs[i] = &Error{File: e.File, Line: e.Line, Col: e.Column, Msg: e.Problem()}
	}
	return errors.Join(errs...)
}

// builder makes a Packet of a decoded packetFile, working out each figure's tolerance.
type builder struct {
	file  string
	pos   *yamlfile.Positions
	lines []string          // the file's lines, to map formula offsets to columns
	texts map[string]string // numbers as written, by path
	errs  []*Error
}

func (b *builder) at(path string) where {
	line, col := b.pos.Value(path)
	return where{file: b.file, line: line, col: col}
}

func (b *builder) keyAt(path string) where {
	line, col := b.pos.Key(path)
	return where{file: b.file, line: line, col: col}
}

func (b *builder) fail(at where, format string, args ...any) {
	b.errs = append(b.errs, at.errorf(format, args...))
}

// inOrder returns the keys of the mapping at path in the order they are written.
func inOrder[V any](b *builder, path string, m map[string]V) []string {
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	slices.SortFunc(names, func(x, y string) int {
		xl, xc := b.pos.Key(yamlfile.KeyPath(path, x))
		yl, yc := b.pos.Key(yamlfile.KeyPath(path, y))
		return cmp.Or(cmp.Compare(xl, yl), cmp.Compare(xc, yc))
	})
	return names
}

func (b *builder) packet(f *packetFile) *Packet {
	p := &Packet{Title: f.Title, Source: f.Source, at: b.at("$")}
	for _, name := range inOrder(b, "$.inputs", f.Inputs) {
		in := f.Inputs[name]
		p.Inputs = append(p.Inputs, Input{Name: name, Value: in.Value, Unit: in.Unit, Note: in.Note,
			at: b.keyAt(yamlfile.KeyPath("$.inputs", name))})
	}
	for _, name := range inOrder(b, "$.figures", f.Figures) {
		p.Figures = append(p.Figures, b.figure(name, f.Figures[name]))
	}
	return p
}

func (b *builder) figure(name string, f figureFile) Figure {
	path := yamlfile.KeyPath("$.figures", name)
	fig := Figure{
		Name: name, Formula: string(f.Formula), Claim: f.Claim, ClaimText: b.texts[path+".claim"],
		Unit: f.Unit, Note: f.Note,
		at: b.keyAt(path), formula: b.formulaAt(path+".formula", string(f.Formula)),
	}
	if f.Tolerance != nil && *f.Tolerance < 0 {
		b.fail(b.at(path+".tolerance"), "figure %q: tolerance is %v; expected a number ≥ 0", name, *f.Tolerance)
	}
	switch stated := statedDecimals(fig.ClaimText); {
	case f.Tolerance != nil && f.Precision != nil:
		b.fail(b.keyAt(path+".precision"), "figure %q has both tolerance and precision; expected one of them", name)
	case f.Tolerance != nil:
		fig.Tolerance = *f.Tolerance
		fig.Basis = "declared tolerance"
	case f.Precision != nil:
		precision := int(*f.Precision)
		fig.Tolerance = halfUnit(precision)
		fig.Basis = fmt.Sprintf("precision %d", precision)
		if stated > precision {
			b.fail(b.at(path+".claim"), "figure %q claims %s, written to %s, but its precision is %d; expected at most %s",
				name, fig.ClaimText, statedAs(stated), precision, statedAs(precision))
		}
	default:
		fig.Tolerance = halfUnit(stated)
		fig.Basis = "as written: " + statedAs(stated)
	}
	return fig
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
func (b *builder) formulaAt(path, text string) where {
	w := b.at(path)
	switch b.pos.Style(path) {
	case yamlfile.Plain, yamlfile.SingleQuoted, yamlfile.DoubleQuoted:
		start := w.col - 1 // 0-based rune index of the text in its line
		if b.pos.Style(path) != yamlfile.Plain {
			start++
		}
		line := b.line(w.line)
		if !strings.Contains(text, "\n") && start >= 0 && start <= len(line) &&
			strings.HasPrefix(string(line[start:]), text) {
			w.col = start + 1
			w.exact = true
		}
	case yamlfile.Literal:
		text = strings.TrimRight(text, "\n")
		first := w.line + 1
		indent := -1
		for i, l := range strings.Split(text, "\n") {
			src := b.line(first + i)
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
			return where{file: b.file, line: first, col: indent + 1, block: true}
		}
	}
	return w // a folded block: its lines are joined, so point at the indicator
}

// line returns the 1-based line n of the file as runes, or nil.
func (b *builder) line(n int) []rune {
	if n < 1 || n > len(b.lines) {
		return nil
	}
	return []rune(b.lines[n-1])
}
