package evidence

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strings"
)

// Packet is declared arithmetic: named inputs and the figures a document claims, each figure
// with the formula that should produce it. Make one with [Decode] or [Load] (which also check
// it), or build one by hand and call [Packet.Validate]; then call [Packet.Verify].
//
// Inputs and figures share one namespace. A formula may name any input and any other figure,
// in any order, as long as no figure depends on itself.
type Packet struct {
	Title   string   // what the arithmetic is about; required
	Source  string   // where the figures come from (free text); optional
	Inputs  []Input  // in declaration order
	Figures []Figure // in declaration order; Verify reports them in this order

	at where // the start of the file, when decoded
}

// Input is a stated input: a value the document gives rather than derives.
// Unit and Note are labels: units are never converted, so a formula that needs a percentage
// as a fraction must divide by 100 itself.
type Input struct {
	Name  string
	Value float64
	Unit  string
	Note  string

	at where // where the input is declared, when it was decoded from a file
}

// Figure is a claimed figure: the value a document states, and the formula over inputs and
// other figures that should produce it.
//
// The claim matches when |computed − Claim| ≤ Tolerance, allowing also for float rounding
// (one part in 10¹² of the claim). A zero Tolerance therefore asks for the exact value. When a
// figure is decoded, Tolerance comes from, in order: the figure's `tolerance`; half a unit in
// the last place of its `precision`; or half a unit in the last digit the claim is written
// with (68.97 allows ±0.005). Basis says which.
type Figure struct {
	Name      string
	Formula   string  // an arithmetic expression; see the package documentation
	Claim     float64 // the figure the document states
	ClaimText string  // the claim as written ("68.97"); empty means format Claim
	Unit      string  // a label, such as "1/s", "s", "%" or "×"; a "%" formula yields the percent
	Tolerance float64 // absolute; zero means exact
	Basis     string  // why Tolerance has its value, for the report; may be empty
	Note      string

	at      where // where the figure is declared
	formula where // where the formula text starts, to point into it
}

// Name rules: formulas are parsed by expr, so a name must be an identifier that expr does not
// reserve. Names of the functions formulas may call are reserved too.
var (
	nameRE   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	reserved = []string{
		"true", "false", "nil", "not", "and", "or", "in", "matches", "contains",
		"startsWith", "endsWith", "let", "if", "else",
		"abs", "ceil", "floor", "round", "min", "max",
	}
)

// checkName reports what is wrong with name as an input or figure name, or "" if nothing is.
func checkName(name string) string {
	switch {
	case name == "":
		return "name is empty; expected a name such as attempt_rate"
	case !nameRE.MatchString(name):
		return fmt.Sprintf("name %q is not usable in a formula; expected letters, digits and _ (not starting with a digit)", name)
	case slices.Contains(reserved, name):
		return fmt.Sprintf("name %q is reserved by the formula language; choose another name", name)
	}
	return ""
}

// Load reads and decodes the packet file at path. See [Decode].
func Load(path string) (*Packet, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("evidence: %w", err)
	}
	return Decode(path, data)
}

// Validate reports every problem that would stop [Packet.Verify] from computing a figure:
// a missing title, a bad, reserved or duplicated name, a non-finite value, a negative
// tolerance, a formula that does not parse, uses something other than arithmetic, names
// something undeclared, or depends on itself. For a decoded packet each problem is
// reported as `file:line:col: what is wrong, what is expected`.
// It returns nil if the packet is valid, and otherwise an error joining one error per
// problem; each is an [*Error].
func (p *Packet) Validate() error {
	var errs []*Error
	add := func(at where, format string, args ...any) {
		errs = append(errs, at.errorf(format, args...))
	}
	if strings.TrimSpace(p.Title) == "" {
		add(p.at, "packet has no title; expected title: followed by what the arithmetic is about")
	}
	if len(p.Figures) == 0 {
		add(p.at, "packet declares no figures; expected figures: with at least one formula and claim")
	}
	declared := make(map[string]where, len(p.Inputs)+len(p.Figures))
	declare := func(kind, name string, at where) {
		if msg := checkName(name); msg != "" {
			add(at, "%s %s", kind, msg)
			return
		}
		if prev, dup := declared[name]; dup {
			add(at, "%s %q is already declared%s; expected one declaration per name", kind, name, joinPlace(prev))
			return
		}
		declared[name] = at
	}
	for _, in := range p.Inputs {
		declare("input", in.Name, in.at)
		if !finite(in.Value) {
			add(in.at, "input %q has value %v; expected a finite number", in.Name, in.Value)
		}
	}
	for _, f := range p.Figures {
		declare("figure", f.Name, f.at)
		if !finite(f.Claim) {
			add(f.at, "figure %q claims %v; expected a finite number", f.Name, f.Claim)
		}
		if !(f.Tolerance >= 0) || math.IsInf(f.Tolerance, 0) {
			add(f.at, "figure %q has tolerance %v; expected a finite number ≥ 0", f.Name, f.Tolerance)
		}
	}
	a := analyze(p)
	for i, fe := range a.problems {
		if fe != nil && fe.own {
			errs = append(errs, p.Figures[i].formula.errorAt(p.Figures[i].Formula, fe.offset, "figure %q: %s", p.Figures[i].Name, fe.msg))
		}
	}
	slices.SortStableFunc(errs, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
	joined := make([]error, len(errs))
	for i, e := range errs {
		joined[i] = e
	}
	return errors.Join(joined...)
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
