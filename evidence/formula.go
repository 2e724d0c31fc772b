package evidence

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/goodput-lab/goodput/internal/formula"
	"github.com/goodput-lab/goodput/yamlfile"
)

// problem is why a figure cannot be computed. own is true when the problem is in the
// figure's own formula (rather than in a figure it depends on); offset is a rune offset into
// the formula, or -1.
type problem struct {
	msg    string
	offset int
	own    bool
}

// parseFormula parses src and returns the names it uses, or the first thing in it that is not
// arithmetic (see package internal/formula for what formulas may contain).
func parseFormula(src string) ([]formula.Ref, *problem) {
	refs, err := formula.Parse(src)
	if err != nil {
		var fe *formula.Error
		if errors.As(err, &fe) {
			return nil, &problem{msg: fe.Msg, offset: fe.Offset, own: true}
		}
		return nil, &problem{msg: err.Error(), offset: -1, own: true}
	}
	return refs, nil
}

// analysis is what Validate and Verify need to know about a packet's formulas.
type analysis struct {
	refs     [][]formula.Ref // per figure, the names its formula uses
	problems []*problem      // per figure, why it cannot be computed, or nil
	order    []int           // figures without problems, each after the figures it uses
	figure   map[string]int  // a figure's name → its index; inputs win clashes, the first figure wins duplicates
}

// analyze parses every formula, resolves names and orders the figures so that each comes after
// the figures it uses. A figure with a problem of its own (a bad formula, an unknown name, a
// cycle) gets it; a figure that uses such a figure gets a problem that names it.
func analyze(p *Packet) analysis {
	n := len(p.Figures)
	a := analysis{refs: make([][]formula.Ref, n), problems: make([]*problem, n)}
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
			if _, ok := figure[r.Name]; ok || inputs[r.Name] {
				continue
			}
			msg := fmt.Sprintf("unknown name %q; expected an input or figure declared in this packet", r.Name)
			if near := nearest(r.Name, p); near != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", near)
			}
			a.problems[i] = &problem{msg: msg, offset: r.Offset, own: true}
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
			j, ok := figure[r.Name]
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
					if r.Name == p.Figures[next].Name {
						off = r.Offset
						break
					}
				}
				a.problems[head] = &problem{msg: "depends on itself through " + path + "; expected formulas without cycles", offset: off, own: true}
				continue
			}
			if a.problems[j] != nil && a.problems[i] == nil {
				a.problems[i] = &problem{msg: fmt.Sprintf("uses figure %q, which cannot be computed", p.Figures[j].Name), offset: r.Offset}
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
