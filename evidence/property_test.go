package evidence

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// term is a random arithmetic expression, evaluated naively here to check expr's answer.
type term struct {
	op          string // "num", "name", "+", "-", "*", "/", "^", "neg", "min", "max", "abs"
	num         float64
	name        string
	left, right *term
}

func (t *term) String() string {
	switch t.op {
	case "num":
		return strconv.FormatFloat(t.num, 'f', -1, 64)
	case "name":
		return t.name
	case "neg":
		return "(-(" + t.left.String() + "))" // expr reads -a ^ b as -(a ^ b)
	case "abs":
		return "abs(" + t.left.String() + ")"
	case "min", "max":
		return t.op + "(" + t.left.String() + ", " + t.right.String() + ")"
	}
	return "(" + t.left.String() + " " + t.op + " " + t.right.String() + ")"
}

func (t *term) eval(env map[string]float64) float64 {
	switch t.op {
	case "num":
		return t.num
	case "name":
		return env[t.name]
	case "neg":
		return -t.left.eval(env)
	case "abs":
		return math.Abs(t.left.eval(env))
	case "min":
		return math.Min(t.left.eval(env), t.right.eval(env))
	case "max":
		return math.Max(t.left.eval(env), t.right.eval(env))
	}
	l, r := t.left.eval(env), t.right.eval(env)
	switch t.op {
	case "+":
		return l + r
	case "-":
		return l - r
	case "*":
		return l * r
	case "/":
		return l / r
	}
	return math.Pow(l, r)
}

// randomTerm builds a term of at most depth levels over names.
func randomTerm(r *rand.Rand, depth int, names []string) *term {
	if depth == 0 || r.IntN(4) == 0 {
		if len(names) > 0 && r.IntN(3) > 0 {
			return &term{op: "name", name: names[r.IntN(len(names))]}
		}
		return &term{op: "num", num: float64(r.IntN(100) + 1)}
	}
	switch ops := []string{"+", "-", "*", "/", "^", "neg", "min", "max", "abs"}; ops[r.IntN(len(ops))] {
	case "^": // small integer powers, to keep values finite
		return &term{op: "^", left: randomTerm(r, depth-1, names), right: &term{op: "num", num: float64(r.IntN(3))}}
	case "neg":
		return &term{op: "neg", left: randomTerm(r, depth-1, names)}
	case "abs":
		return &term{op: "abs", left: randomTerm(r, depth-1, names)}
	case "min":
		return &term{op: "min", left: randomTerm(r, depth-1, names), right: randomTerm(r, depth-1, names)}
	case "max":
		return &term{op: "max", left: randomTerm(r, depth-1, names), right: randomTerm(r, depth-1, names)}
	case "+":
		return &term{op: "+", left: randomTerm(r, depth-1, names), right: randomTerm(r, depth-1, names)}
	case "-":
		return &term{op: "-", left: randomTerm(r, depth-1, names), right: randomTerm(r, depth-1, names)}
	case "*":
		return &term{op: "*", left: randomTerm(r, depth-1, names), right: randomTerm(r, depth-1, names)}
	default:
		return &term{op: "/", left: randomTerm(r, depth-1, names), right: randomTerm(r, depth-1, names)}
	}
}

// TestVerifyRandomPackets generates random packets whose figures use inputs and earlier
// figures, writes them as YAML in shuffled order, and checks three properties:
//   - expr computes what a naive evaluator computes;
//   - claims rounded to any precision verify;
//   - moving one claim by more than its tolerance fails that figure and no other.
func TestVerifyRandomPackets(t *testing.T) {
	r := rand.New(rand.NewPCG(2026, 4))
	for trial := range 300 {
		env := map[string]float64{}
		var inputNames, names []string
		var b strings.Builder
		b.WriteString("title: random\ninputs:\n")
		for i := range r.IntN(5) + 1 {
			name := fmt.Sprintf("in%d", i)
			v := float64(r.IntN(100000)) / 100
			env[name] = v
			inputNames = append(inputNames, name)
			fmt.Fprintf(&b, "  %s: {value: %s}\n", name, strconv.FormatFloat(v, 'f', -1, 64))
		}
		names = append(names, inputNames...)

		type fig struct {
			name, formula string
			value         float64
			decimals      int
		}
		var figs []fig
		for i := range r.IntN(8) + 1 {
			name := fmt.Sprintf("f%d", i)
			tm := randomTerm(r, 3, names)
			v := tm.eval(env)
			if !finite(v) || math.Abs(v) > 1e9 {
				continue // keep claims printable to a few decimals
			}
			env[name] = v
			names = append(names, name)
			figs = append(figs, fig{name, tm.String(), v, r.IntN(5)})
		}
		if len(figs) == 0 {
			continue
		}
		r.Shuffle(len(figs), func(i, j int) { figs[i], figs[j] = figs[j], figs[i] })
		write := func(skew int) string {
			var fb strings.Builder
			fb.WriteString(b.String())
			fb.WriteString("figures:\n")
			for i, f := range figs {
				claim := f.value
				if i == skew {
					claim += 3 * halfUnit(f.decimals)
				}
				fmt.Fprintf(&fb, "  %s:\n    formula: %q\n    claim: %s\n    precision: %d\n",
					f.name, f.formula, strconv.FormatFloat(claim, 'f', f.decimals, 64), f.decimals)
			}
			return fb.String()
		}

		src := write(-1)
		p, err := Decode("random.yaml", []byte(src))
		if err != nil {
			t.Fatalf("trial %d: %v\n%s", trial, err, src)
		}
		rep := p.Verify()
		for i, row := range rep.Rows {
			want := figs[i].value
			if row.Err != nil || !within(row.Computed, want, 1e-9*math.Abs(want)) {
				t.Fatalf("trial %d: %s = %s: expr gives %v (err %v), naive %v\n%s", trial, row.Name, row.Formula, row.Computed, row.Err, want, src)
			}
			if !row.OK {
				t.Fatalf("trial %d: %s claimed %s at precision %d, computed %v: not ok\n%s", trial, row.Name, row.ClaimText, figs[i].decimals, row.Computed, src)
			}
		}

		skew := r.IntN(len(figs))
		src = write(skew)
		p, err = Decode("random.yaml", []byte(src))
		if err != nil {
			t.Fatalf("trial %d: %v\n%s", trial, err, src)
		}
		failed := p.Verify().Failed()
		if len(failed) != 1 || failed[0].Name != figs[skew].name {
			t.Fatalf("trial %d: skewed the claim of %s; failed rows %+v\n%s", trial, figs[skew].name, failed, src)
		}
	}
}
