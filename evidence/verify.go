package evidence

import (
	"math"

	"github.com/goodput-lab/goodput/internal/formula"
)

// Report is the result of [Packet.Verify]: one row per figure, in declaration order.
// Its WriteTo method renders it as a table.
type Report struct {
	Title  string
	Source string
	Rows   []Row
}

// Row is one figure: what the document claims, what the formula computes, and whether they
// agree within Tolerance.
type Row struct {
	Name      string
	Formula   string
	Unit      string
	Claimed   float64
	ClaimText string  // the claim as written; empty for a packet built in Go without it
	Computed  float64 // NaN when Err is set
	Tolerance float64 // the absolute difference allowed
	Basis     string  // why Tolerance has its value
	OK        bool    // Computed matches Claimed within Tolerance
	Err       error   // why the figure could not be computed, or nil
}

// Difference is Computed − Claimed.
func (r Row) Difference() float64 { return r.Computed - r.Claimed }

// OK reports whether the report has figures and every one of them matched its claim.
func (r Report) OK() bool {
	return len(r.Rows) > 0 && len(r.Failed()) == 0
}

// Failed returns the rows whose figure did not match its claim or could not be computed.
func (r Report) Failed() []Row {
	var bad []Row
	for _, row := range r.Rows {
		if !row.OK {
			bad = append(bad, row)
		}
	}
	return bad
}

// Verify computes every figure from the inputs and compares it with its claim. It never
// fails as a whole: a figure that cannot be computed (see [Packet.Validate]) gets a row with
// Err set and OK false, and so does every figure that uses it. Verify does not change p.
func (p *Packet) Verify() Report {
	rep := Report{Title: p.Title, Source: p.Source, Rows: make([]Row, len(p.Figures))}
	for i, f := range p.Figures {
		rep.Rows[i] = Row{
			Name: f.Name, Formula: f.Formula, Unit: f.Unit,
			Claimed: f.Claim, ClaimText: f.ClaimText, Computed: math.NaN(),
			Tolerance: f.Tolerance, Basis: f.Basis,
		}
	}
	a := analyze(p)
	for i, prob := range a.problems {
		if prob != nil {
			f := p.Figures[i]
			rep.Rows[i].Err = f.formula.errorAt(f.Formula, prob.offset, "figure %q: %s", f.Name, prob.msg)
		}
	}

	// Every name is in the environment from the start, so that each formula type-checks;
	// figures are filled in as they are computed, in dependency order.
	env := make(map[string]float64, len(p.Inputs)+len(p.Figures))
	for _, f := range p.Figures {
		env[f.Name] = 0.0
	}
	for i := len(p.Inputs) - 1; i >= 0; i-- { // the first declaration of a name wins
		env[p.Inputs[i].Name] = p.Inputs[i].Value
	}
	for _, i := range a.order {
		f, row := p.Figures[i], &rep.Rows[i]
		for _, r := range a.refs[i] {
			if j, ok := a.figure[r.Name]; ok && rep.Rows[j].Err != nil {
				row.Err = f.formula.errorAt(f.Formula, r.Offset, "figure %q: uses figure %q, which cannot be computed", f.Name, r.Name)
				break
			}
		}
		if row.Err != nil {
			continue
		}
		v, err := formula.Eval(f.Formula, env)
		if err != nil {
			row.Err = f.formula.errorf("figure %q: %v", f.Name, err)
			continue
		}
		if !finite(v) {
			row.Err = f.formula.errorf("figure %q: formula gives %v (a division by zero?); expected a finite number", f.Name, v)
			continue
		}
		if j, ok := a.figure[f.Name]; ok && j == i {
			env[f.Name] = v
		}
		row.Computed = v
		row.OK = within(v, f.Claim, f.Tolerance)
	}
	return rep
}

// within reports whether computed matches claim within tol, allowing one part in 10¹² of the
// claim for float rounding (9000 × 1.28 × 1.22 is 14054.400000000001 in float64).
func within(computed, claim, tol float64) bool {
	return math.Abs(computed-claim) <= tol+1e-12*math.Max(1, math.Abs(claim))
}
