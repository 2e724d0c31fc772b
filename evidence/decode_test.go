package evidence

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestDecode(t *testing.T) {
	src := `title: retries multiply
source: seed 004
inputs:
  rate: {value: 9000, unit: 1/s, note: logical}
  retry:
    value: 0.28
figures:
  attempts:
    formula: rate * (1 + retry)
    claim: 11520
    unit: 1/s
    note: attempts per second
  share:
    formula: retry * 100
    claim: 28.0
    unit: "%"
  amp: {formula: attempts / rate, claim: 1.28, precision: 3}
  loose: {formula: attempts, claim: 11500, tolerance: 50}
  block:
    formula: |
      rate +
        retry
    claim: 9000.28
`
	p, err := Decode("p.packet.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := &Packet{
		Title:  "retries multiply",
		Source: "seed 004",
		Inputs: []Input{
			{Name: "rate", Value: 9000, Unit: "1/s", Note: "logical"},
			{Name: "retry", Value: 0.28},
		},
		Figures: []Figure{
			{Name: "attempts", Formula: "rate * (1 + retry)", Claim: 11520, ClaimText: "11520", Unit: "1/s",
				Tolerance: 0.5, Basis: "as written: whole number", Note: "attempts per second"},
			{Name: "share", Formula: "retry * 100", Claim: 28, ClaimText: "28.0", Unit: "%",
				Tolerance: 0.05, Basis: "as written: 1 decimal"},
			{Name: "amp", Formula: "attempts / rate", Claim: 1.28, ClaimText: "1.28",
				Tolerance: 0.0005, Basis: "precision 3"},
			{Name: "loose", Formula: "attempts", Claim: 11500, ClaimText: "11500",
				Tolerance: 50, Basis: "declared tolerance"},
			{Name: "block", Formula: "rate +\n  retry\n", Claim: 9000.28, ClaimText: "9000.28",
				Tolerance: 0.005, Basis: "as written: 2 decimals"},
		},
	}
	if diff := cmp.Diff(want, p, cmpopts.IgnoreUnexported(Packet{}, Input{}, Figure{}), cmpopts.EquateApprox(0, 1e-15)); diff != "" {
		t.Errorf("Decode mismatch (-want +got):\n%s", diff)
	}
	if rep := p.Verify(); !rep.OK() {
		t.Errorf("Verify of a consistent packet failed: %+v", rep.Failed())
	}
}

// TestDecodeErrors checks that every kind of bad input gets an error that says where
// (file:line:col), what is wrong and what is expected.
func TestDecodeErrors(t *testing.T) {
	const head = "title: t\ninputs:\n  a: {value: 2}\nfigures:\n"
	tests := []struct {
		name string
		src  string
		want []string // substrings of the error, in order: the first is usually the position
	}{
		{"empty", "", []string{"f.yaml:1:1: empty packet; expected a mapping with title, source, inputs, figures"}},
		{"comment only", "# nothing\n", []string{"f.yaml:1:1: empty packet"}},
		{"not a mapping", "- a\n- b\n", []string{"f.yaml:1:1: got a list; expected a mapping with title, source, inputs, figures"}},
		{"bad yaml", "title: [\n", []string{"f.yaml:1:8: invalid YAML: sequence end token ']' not found; expected well-formed YAML"}},
		{"duplicate key", "title: a\ntitle: b\n", []string{`f.yaml:2:1: duplicate key "title" (first at line 1, column 1); expected each key once per mapping`}},
		{"two documents", "title: a\n---\ntitle: b\n", []string{"f.yaml:3:1: a second YAML document; expected one packet per file"}},
		{"unknown top key", head + "  x: {formula: a, claim: 2}\ncolour: red\n", []string{`f.yaml:6:1: unknown key "colour"; expected one of title, source, inputs, figures`}},
		{"no title", "figures:\n  x: {formula: 1, claim: 1}\n", []string{"f.yaml:1:1: packet has no title"}},
		{"no figures", "title: t\n", []string{"f.yaml:1:1: packet declares no figures"}},
		{"figures empty", "title: t\nfigures:\n", []string{"f.yaml:2:10: figures: missing value; expected a mapping"}},
		{"input not mapping", "title: t\ninputs:\n  a: 2\nfigures:\n  x: {formula: a, claim: 2}\n", []string{`f.yaml:3:6: inputs.a: got the number 2; expected a mapping with value, unit, note`}},
		{"input no value", "title: t\ninputs:\n  a: {unit: s}\nfigures:\n  x: {formula: a, claim: 2}\n", []string{`f.yaml:3:3: inputs.a.value: missing; expected a number`}},
		{"input unknown key", "title: t\ninputs:\n  a: {value: 1, colour: red}\nfigures:\n  x: {formula: a, claim: 1}\n", []string{`f.yaml:3:17: inputs.a: unknown key "colour"; expected one of value, unit, note`}},
		{"input value text", "title: t\ninputs:\n  a: {value: \"9000\"}\nfigures:\n  x: {formula: a, claim: 1}\n", []string{`f.yaml:3:14: inputs.a.value: got the text "9000"; expected a number`}},
		{"input value separators", "title: t\ninputs:\n  a:\n    value: 9,000/s\nfigures:\n  x: {formula: a, claim: 1}\n", []string{`f.yaml:4:12: inputs.a.value: 9,000/s is not a decimal number; expected a number such as 14054.4, written without quotes, thousands separators or units`}},
		{"input value hex", "title: t\ninputs:\n  a:\n    value: 0x1F\nfigures:\n  x: {formula: a, claim: 1}\n", []string{`f.yaml:4:12: inputs.a.value: 0x1F is not a decimal number; expected a number such as 14054.4`}},
		{"input value inf", "title: t\ninputs:\n  a:\n    value: .inf\nfigures:\n  x: {formula: a, claim: 1}\n", []string{`f.yaml:4:12: inputs.a.value: .inf is not a decimal number; expected a number such as 14054.4`}},
		{"input value huge", "title: t\ninputs:\n  a:\n    value: 1e999\nfigures:\n  x: {formula: a, claim: 1}\n", []string{`f.yaml:4:12: inputs.a.value: 1e999 is out of range; expected a finite number`}},
		{"input value quoted number", "title: t\ninputs:\n  a:\n    value: '1e3'\nfigures:\n  x: {formula: a, claim: 1}\n", []string{`f.yaml:4:12: inputs.a.value: got the text "1e3"; expected a number`}},
		{"input value list", "title: t\ninputs:\n  a:\n    value: [1]\nfigures:\n  x: {formula: a, claim: 1}\n", []string{`f.yaml:4:12: inputs.a.value: got a list; expected a number`}},
		{"no formula", head + "  x: {claim: 2}\n", []string{`f.yaml:5:3: figures.x.formula: missing; expected a formula over inputs and figures`}},
		{"no claim", head + "  x: {formula: a}\n", []string{`f.yaml:5:3: figures.x.claim: missing; expected a number`}},
		{"figure unknown key", head + "  x:\n    formula: a\n    claim: 2\n    colour: red\n", []string{`f.yaml:8:5: figures.x: unknown key "colour"; expected one of formula, claim, unit, tolerance, precision, note`}},
		{"claim text", head + "  x: {formula: a, claim: '2'}\n", []string{`f.yaml:5:26: figures.x.claim: got the text "2"; expected a number`}},
		{"claim null", head + "  x:\n    formula: a\n    claim:\n", []string{`f.yaml:7:12: figures.x.claim: missing value; expected a number`}},
		{"formula not text", head + "  x:\n    formula: [a]\n    claim: 2\n", []string{`f.yaml:6:14: figures.x.formula: got a list; expected a formula over inputs and figures`}},
		{"tolerance and precision", head + "  x: {formula: a, claim: 2, tolerance: 1, precision: 0}\n", []string{`f.yaml:5:43: figure "x" has both tolerance and precision; expected one of them`}},
		{"negative tolerance", head + "  x: {formula: a, claim: 2, tolerance: -1}\n", []string{`f.yaml:5:40: figure "x": tolerance is -1; expected a number ≥ 0`}},
		{"precision fraction", head + "  x: {formula: a, claim: 2, precision: 1.5}\n", []string{`f.yaml:5:40: figures.x.precision: got 1.5; expected a whole number of decimals from 0 to 15`}},
		{"precision too big", head + "  x: {formula: a, claim: 2, precision: 16}\n", []string{`f.yaml:5:40: figures.x.precision: got 16; expected a whole number of decimals from 0 to 15`}},
		{"claim finer than precision", head + "  x: {formula: a, claim: 2.25, precision: 1}\n", []string{`f.yaml:5:26: figure "x" claims 2.25, written to 2 decimals, but its precision is 1; expected at most 1 decimal`}},
		{"anchor", "title: &t t\nfigures:\n  x: {formula: 1, claim: 1}\n", []string{"f.yaml:1:8: title: anchors (&t) are not supported here; expected the value written out"}},
		{"tag", "title: !!str t\nfigures:\n  x: {formula: 1, claim: 1}\n", []string{"f.yaml:1:8: title: tags (!!str) are not supported here; expected the value without a tag"}},
		{"merge key", head + "  x: {<<: {formula: a}, claim: 2}\n", []string{"f.yaml:5:7: figures.x: merge keys (<<) are not supported here; expected the keys written out"}},
		{"precision quoted", head + "  x: {formula: a, claim: 2, precision: '2'}\n", []string{`f.yaml:5:40: figures.x.precision: got the text "2"; expected a whole number of decimals from 0 to 15`}},
		{"misspelt key", head + "  x: {formula: a, claim: 2, tolerence: 1}\n", []string{`f.yaml:5:29: figures.x: unknown key "tolerence"; did you mean "tolerance"?`}},
		{"key not a name", head + "  1.5: {formula: a, claim: 2}\n", []string{`f.yaml:5:3: figure name "1.5" is not usable in a formula`}},
		{"key a list", head + "  [x]: {formula: a, claim: 2}\n", []string{"f.yaml:5:6: invalid YAML: found an invalid key for this map"}},

		// Names.
		{"bad name", head + "  2x: {formula: a, claim: 2}\n", []string{`f.yaml:5:3: figure name "2x" is not usable in a formula`}},
		{"reserved name", head + "  max: {formula: a, claim: 2}\n", []string{`f.yaml:5:3: figure name "max" is reserved`}},
		{"keyword name", "title: t\ninputs:\n  in: {value: 1}\nfigures:\n  x: {formula: 1, claim: 1}\n", []string{`f.yaml:3:3: input name "in" is reserved`}},
		{"duplicate across", head + "  a: {formula: 1, claim: 1}\n", []string{`f.yaml:5:3: figure "a" is already declared at line 3; expected one declaration per name`}},

		// Formulas: the column points into the formula.
		{"unknown name", head + "  x:\n    formula: a * (1 + b)\n    claim: 2\n", []string{`f.yaml:6:23: figure "x": unknown name "b"; expected an input or figure declared in this packet`}},
		{"unknown name suggestion", head + "  rate: {formula: a, claim: 2}\n  x: {formula: rte * 2, claim: 4}\n", []string{`f.yaml:6:16: figure "x": unknown name "rte"`, `(did you mean "rate"?)`}},
		{"unknown name double quoted", head + "  x: {formula: \"a + b\", claim: 2}\n", []string{`f.yaml:5:21: figure "x": unknown name "b"`}},
		{"unknown name single quoted", head + "  x: {formula: 'a + b', claim: 2}\n", []string{`f.yaml:5:21: figure "x": unknown name "b"`}},
		{"unknown name literal block", head + "  x:\n    formula: |\n      a +\n        b\n    claim: 2\n", []string{`f.yaml:8:9: figure "x": unknown name "b"`}},
		{"unknown name folded block", head + "  x:\n    formula: >\n      a +\n        b\n    claim: 2\n", []string{`f.yaml:6:14: figure "x": unknown name "b"`}},
		{"parse error", head + "  x: {formula: a +* 2, claim: 2}\n", []string{`f.yaml:5:19: figure "x": formula does not parse`}},
		{"empty formula", head + "  x: {formula: '', claim: 2}\n", []string{`f.yaml:5:17: figure "x": formula is empty`}},
		{"comparison", head + "  x: {formula: a > 1, claim: 2}\n", []string{`f.yaml:5:18: figure "x": operator > is not arithmetic; expected numbers, names, + - * / ^ ( )`}},
		{"modulo", head + "  x: {formula: a % 2, claim: 2}\n", []string{`f.yaml:5:18: figure "x": operator % is not arithmetic`}},
		{"string literal", head + "  x: {formula: 'a + \"s\"', claim: 2}\n", []string{`f.yaml:5:21: figure "x": "\"s\"" is not arithmetic`}},
		{"wall clock", head + "  x: {formula: 'now()', claim: 2}\n", []string{`f.yaml:5:17: figure "x": function now is not arithmetic`}},
		{"unknown function", head + "  x: {formula: 'sqrt(a)', claim: 2}\n", []string{`f.yaml:5:17: figure "x": function sqrt is not arithmetic`}},
		{"member access", head + "  x: {formula: a.b, claim: 2}\n", []string{`f.yaml:5:`, `is not arithmetic`}},
		{"conditional", head + "  x: {formula: 'a ? 1 : 2', claim: 2}\n", []string{`f.yaml:5:`, `is not arithmetic`}},
		{"abs arity", head + "  x: {formula: 'abs(a, a)', claim: 2}\n", []string{`f.yaml:5:17: figure "x": abs takes one argument; found 2`}},
		{"self cycle", head + "  x: {formula: x + 1, claim: 2}\n", []string{`f.yaml:5:16: figure "x": depends on itself through x → x; expected formulas without cycles`}},
		{"cycle", head + "  x: {formula: a + y, claim: 2}\n  y: {formula: z, claim: 2}\n  z: {formula: 2 * x, claim: 2}\n",
			[]string{`f.yaml:5:20: figure "x": depends on itself through x → y → z → x`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Decode("f.yaml", []byte(tt.src))
			if err == nil {
				t.Fatalf("Decode succeeded, want an error containing %q; packet %+v", tt.want, p)
			}
			if p != nil {
				t.Errorf("Decode returned a packet with an error")
			}
			msg := err.Error()
			rest := msg
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("error\n\t%s\ndoes not contain, in order,\n\t%q", msg, tt.want)
				}
				rest = rest[i+len(w):]
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("error %v is not an *evidence.Error", err)
			}
		})
	}
}

// TestDecodeReportsEveryProblem checks that one Decode reports all the problems of a file,
// sorted by position, not only the first.
func TestDecodeReportsEveryProblem(t *testing.T) {
	src := "title: t\ninputs:\n  a: {value: 2}\nfigures:\n" +
		"  x: {formula: a + b, claim: 2}\n" +
		"  y: {formula: now(), claim: 2}\n" +
		"  a: {formula: 1, claim: 1}\n"
	_, err := Decode("f.yaml", []byte(src))
	if err == nil {
		t.Fatal("Decode succeeded")
	}
	lines := strings.Split(err.Error(), "\n")
	want := []string{"f.yaml:5:20:", "f.yaml:6:16:", "f.yaml:7:3:"}
	if len(lines) != len(want) {
		t.Fatalf("got %d errors, want %d:\n%s", len(lines), len(want), err)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("error %d = %q, want prefix %q", i, lines[i], w)
		}
	}
}

func TestStatedDecimals(t *testing.T) {
	tests := []struct {
		text string
		want int
		tol  float64
	}{
		{"68.97", 2, 0.005},
		{"8772", 0, 0.5},
		{"14054.4", 1, 0.05},
		{"1.5616", 4, 0.00005},
		{"42.860", 3, 0.0005},
		{"1.5e3", -2, 50},
		{"15E-3", 3, 0.0005},
		{"-0.5", 1, 0.05},
		{"7.", 0, 0.5},
	}
	for _, tt := range tests {
		got := statedDecimals(tt.text)
		if got != tt.want {
			t.Errorf("statedDecimals(%q) = %d, want %d", tt.text, got, tt.want)
		}
		if tol := halfUnit(got); !within(tol, tt.tol, 0) {
			t.Errorf("halfUnit(%d) = %v, want %v", got, tol, tt.tol)
		}
	}
}
