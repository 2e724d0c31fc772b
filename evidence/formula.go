package evidence

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"

	"github.com/goodput-lab/goodput/yamlfile"
)

// Formulas are expr expressions (github.com/expr-lang/expr) cut down to arithmetic: numbers,
// names, + - * / and ^ or ** (power), unary minus, parentheses, and the functions below.
var functions = map[string]int{ // name → arguments (-1: one or more)
	"abs": 1, "ceil": 1, "floor": 1, "round": 1, "min": -1, "max": -1,
}

const allowed = "expected numbers, names, + - * / ^ ( ) and abs, ceil, floor, round, min, max"

// ref is a name a formula uses, and where (rune offset) it uses it.
type ref struct {
	name   string
	offset int
}

// problem is why a figure cannot be computed. own is true when the problem is in the
// figure's own formula (rather than in a figure it depends on); offset is a rune offset into
// the formula, or -1.
type problem struct {
	msg    string
	offset int
	own    bool
}

// parseFormula parses src and returns the names it uses, or the first thing in it that is not
// arithmetic.
func parseFormula(src string) ([]ref, *problem) {
	if strings.TrimSpace(src) == "" {
		return nil, &problem{msg: "formula is empty; " + allowed, offset: -1, own: true}
	}
	tree, err := parser.Parse(src)
	if err != nil {
		var fe *file.Error
		if errors.As(err, &fe) {
			return nil, &problem{msg: "formula does not parse: " + fe.Message, offset: fe.From, own: true}
		}
		return nil, &problem{msg: "formula does not parse: " + err.Error(), offset: -1, own: true}
	}
	var refs []ref
	var walk func(n ast.Node) *problem
	walk = func(n ast.Node) *problem {
		switch n := n.(type) {
		case *ast.IdentifierNode:
			refs = append(refs, ref{n.Value, n.Location().From})
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
				return &problem{msg: fmt.Sprintf("%s takes %s; found %d", n.Name, arguments(want), len(n.Arguments)), offset: n.Location().From, own: true}
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

func notArithmetic(n ast.Node, what string) *problem {
	return &problem{msg: fmt.Sprintf("%s is not arithmetic; %s", what, allowed), offset: n.Location().From, own: true}
}

func arguments(n int) string {
	if n == 1 {
		return "one argument"
	}
	return "one or more arguments"
}

// analysis is what Validate and Verify need to know about a packet's formulas.
type analysis struct {
	refs     [][]ref        // per figure, the names its formula uses
	problems []*problem     // per figure, why it cannot be computed, or nil
	order    []int          // figures without problems, each after the figures it uses
	figure   map[string]int // a figure's name → its index; inputs win clashes, the first figure wins duplicates
}

// analyze parses every formula, resolves names and orders the figures so that each comes after
// the figures it uses. A figure with a problem of its own (a bad formula, an unknown name, a
// cycle) gets it; a figure that uses such a figure gets a problem that names it.
func analyze(p *Packet) analysis {
	n := len(p.Figures)
	a := analysis{refs: make([][]ref, n), problems: make([]*problem, n)}
	inputs := make(map[string]bool, len(p.Inputs))
	for _, in := range p.Inputs {
		inputs[in.Name] = true
	}
	figure := make(map[string]int, n)
	for i, f := range p.Figures {
		if _, dup := figure[f.Name]; !dup && !inputs[f.Name] {
			figure[f.Name] = i
		}
	}
	a.figure = figure
	for i, f := range p.Figures {
		refs, prob := parseFormula(f.Formula)
		a.refs[i] = refs
		if prob != nil {
			a.problems[i] = prob
			continue
		}
		for _, r := range refs {
			if _, ok := figure[r.name]; ok || inputs[r.name] {
				continue
			}
			msg := fmt.Sprintf("unknown name %q; expected an input or figure declared in this packet", r.name)
			if near := nearest(r.name, p); near != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", near)
			}
			a.problems[i] = &problem{msg: msg, offset: r.offset, own: true}
			break
		}
	}

	// Depth-first search in declaration order. A figure is white (0) until visited, grey (1)
	// while its dependencies are being visited, black (2) when done. Meeting a grey figure
	// closes a cycle, which is reported once, on the figure where the search entered it.
	state := make([]int, n)
	var stack []int
	var visit func(i int)
	visit = func(i int) {
		state[i] = 1
		stack = append(stack, i)
		defer func() { stack = stack[:len(stack)-1]; state[i] = 2 }()
		if a.problems[i] != nil {
			return
		}
		for _, r := range a.refs[i] {
			j, ok := figure[r.name]
			if !ok {
				continue // an input
			}
			switch state[j] {
			case 0:
				visit(j)
			case 1:
				start := slices.Index(stack, j)
				cycle := stack[start:]
				names := make([]string, 0, len(cycle)+1)
				for _, k := range cycle {
					names = append(names, p.Figures[k].Name)
				}
				names = append(names, p.Figures[j].Name)
				path := strings.Join(names, " → ")
				for _, k := range cycle {
					if a.problems[k] == nil || !a.problems[k].own {
						a.problems[k] = &problem{msg: "depends on itself through " + path + "; expected formulas without cycles", offset: -1}
					}
				}
				// Point the reported problem at the reference that closes the cycle in the
				// figure where the search entered it.
				head := cycle[0]
				off := -1
				next := j
				if len(cycle) > 1 {
					next = cycle[1]
				}
				for _, r := range a.refs[head] {
					if r.name == p.Figures[next].Name {
						off = r.offset
						break
					}
				}
				a.problems[head] = &problem{msg: "depends on itself through " + path + "; expected formulas without cycles", offset: off, own: true}
				continue
			}
			if a.problems[j] != nil && a.problems[i] == nil {
				a.problems[i] = &problem{msg: fmt.Sprintf("uses figure %q, which cannot be computed", p.Figures[j].Name), offset: r.offset}
			}
		}
		if a.problems[i] == nil {
			a.order = append(a.order, i)
		}
	}
	for i := range p.Figures {
		if state[i] == 0 {
			visit(i)
		}
	}
	return a
}

// nearest returns the declared name that name is most likely a misspelling of, or "".
func nearest(name string, p *Packet) string {
	names := make([]string, 0, len(p.Inputs)+len(p.Figures))
	for _, in := range p.Inputs {
		names = append(names, in.Name)
	}
	for _, f := range p.Figures {
		names = append(names, f.Name)
	}
	return yamlfile.Suggest(name, names)
}
