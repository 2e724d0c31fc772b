// Package formula parses and evaluates the arithmetic formulas that evidence packets and
// incident documents compute figures with: expr expressions (github.com/expr-lang/expr) cut
// down to arithmetic, with every number a float64. [Parse] checks a formula and lists the
// names it uses; [Eval] computes it over values for those names.
package formula

import (
	"errors"
	"fmt"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"
)

// Formulas allow numbers, names, + - * / and ^ or ** (power), unary minus and plus,
// parentheses, and these functions.
var functions = map[string]int{ // name → arguments (-1: one or more)
	"abs": 1, "ceil": 1, "floor": 1, "round": 1, "min": -1, "max": -1,
}

// Allowed says what a formula may contain, for error messages.
const Allowed = "expected numbers, names, + - * / ^ ( ) and abs, ceil, floor, round, min, max"

// Ref is a name a formula uses, and where: a rune offset into the formula.
type Ref struct {
	Name   string
	Offset int
}

// Error is why a formula is not arithmetic: Msg, and the rune offset into the formula
// where the problem is, or -1.
type Error struct {
	Msg    string
	Offset int
}

func (e *Error) Error() string { return e.Msg }

// Parse parses src and returns the names it uses, in order (repeats included), or an
// [*Error] for the first thing in it that is not arithmetic.
func Parse(src string) ([]Ref, error) {
	if strings.TrimSpace(src) == "" {
		return nil, &Error{Msg: "formula is empty; " + Allowed, Offset: -1}
	}
	tree, err := parser.Parse(src)
	if err != nil {
		var fe *file.Error
		if errors.As(err, &fe) {
			return nil, &Error{Msg: "formula does not parse: " + fe.Message, Offset: fe.From}
		}
		return nil, &Error{Msg: "formula does not parse: " + err.Error(), Offset: -1}
	}
	var refs []Ref
	var walk func(n ast.Node) *Error
	walk = func(n ast.Node) *Error {
		switch n := n.(type) {
		case *ast.IdentifierNode:
			refs = append(refs, Ref{n.Value, n.Location().From})
		case *ast.IntegerNode, *ast.FloatNode:
		case *ast.UnaryNode:
			if n.Operator != "-" && n.Operator != "+" {
				return notArithmetic(n, "operator "+n.Operator)
			}
			return walk(n.Node)
		case *ast.BinaryNode:
			switch n.Operator {
			case "+", "-", "*", "/", "^", "**":
			default:
				return notArithmetic(n, "operator "+n.Operator)
			}
			if p := walk(n.Left); p != nil {
				return p
			}
			return walk(n.Right)
		case *ast.BuiltinNode:
			want, ok := functions[n.Name]
			if !ok {
				return notArithmetic(n, "function "+n.Name)
			}
			if want > 0 && len(n.Arguments) != want || len(n.Arguments) == 0 {
				return &Error{Msg: fmt.Sprintf("%s takes %s; found %d", n.Name, arguments(want), len(n.Arguments)), Offset: n.Location().From}
			}
			for _, a := range n.Arguments {
				if p := walk(a); p != nil {
					return p
				}
			}
		case *ast.CallNode:
			return notArithmetic(n, "function "+n.Callee.String())
		default:
			return notArithmetic(n, fmt.Sprintf("%q", n.String()))
		}
		return nil
	}
	if p := walk(tree.Node); p != nil {
		return nil, p
	}
	return refs, nil
}

func notArithmetic(n ast.Node, what string) *Error {
	return &Error{Msg: fmt.Sprintf("%s is not arithmetic; %s", what, Allowed), Offset: n.Location().From}
}

func arguments(n int) string {
	if n == 1 {
		return "one argument"
	}
	return "one or more arguments"
}

// Eval checks src with [Parse] and computes it with the values in env, in float64
// arithmetic throughout (an integer literal is a float64 too, so nothing overflows
// silently). A name env lacks is an error; so is anything Parse rejects. The result may
// be infinite or NaN (a division by zero): the caller says whether that is an error.
func Eval(src string, env map[string]float64) (float64, error) {
	refs, err := Parse(src)
	if err != nil {
		return 0, err
	}
	vars := make(map[string]any, len(refs))
	for _, r := range refs {
		v, ok := env[r.Name]
		if !ok {
			return 0, fmt.Errorf("unknown name %q", r.Name)
		}
		vars[r.Name] = v
	}
	prog, err := expr.Compile(src, expr.Env(vars), expr.AsFloat64(), expr.Patch(floatLiterals{}))
	if err != nil {
		return 0, fmt.Errorf("formula does not compile: %w", err)
	}
	out, err := expr.Run(prog, vars)
	if err != nil {
		return 0, fmt.Errorf("formula fails: %w", err)
	}
	v, ok := out.(float64)
	if !ok {
		return 0, fmt.Errorf("formula gives %T; expected a number", out)
	}
	return v, nil
}

// floatLiterals turns integer literals into float literals, so that all arithmetic is in
// float64: integer arithmetic would overflow silently on large literals.
type floatLiterals struct{}

func (floatLiterals) Visit(node *ast.Node) {
	if n, ok := (*node).(*ast.IntegerNode); ok {
		ast.Patch(node, &ast.FloatNode{Value: float64(n.Value)})
	}
}
