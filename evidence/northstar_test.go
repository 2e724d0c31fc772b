package evidence

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// northstarPath is the example packet of the Northstar case study (seed 004).
var northstarPath = filepath.Join("..", "examples", "northstar", "northstar.packet.yaml")

// The figures the seed claims, and the inputs it states.
var (
	northstarClaims = map[string]float64{
		"attempt_rate":           14054.4,
		"amplification":          1.5616,
		"excess_rate":            4854.4,
		"queued_in_window":       582528,
		"warm_contribution":      8400,
		"cold_contribution":      3600,
		"cold_share":             42.86,
		"retry_attempt_rate":     172,
		"protected_attempt_rate": 8772,
		"drain_rate":             2400,
		"drain_time":             75,
		"protected_goodput":      8170,
		"recovery_improvement":   68.97,
	}
	northstarInputs = []float64{9000, 0.28, 0.22, 9200, 120, 20, 420, 180, 8600, 0.02, 11172, 180000, 0.95, 29, 9}
)

func loadNorthstar(t *testing.T) *Packet {
	t.Helper()
	p, err := Load(northstarPath)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestNorthstarVerifies(t *testing.T) {
	p := loadNorthstar(t)
	rep := p.Verify()
	if !rep.OK() {
		t.Fatalf("the Northstar packet does not verify: %+v", rep.Failed())
	}
	var got []float64
	for _, in := range p.Inputs {
		got = append(got, in.Value)
	}
	if !slices.Equal(got, northstarInputs) {
		t.Errorf("inputs %v, want the seed's stated inputs %v", got, northstarInputs)
	}
	if len(p.Figures) != len(northstarClaims) {
		t.Errorf("%d figures, want %d", len(p.Figures), len(northstarClaims))
	}
	for _, f := range p.Figures {
		want, ok := northstarClaims[f.Name]
		if !ok {
			t.Errorf("unexpected figure %q", f.Name)
			continue
		}
		if f.Claim != want {
			t.Errorf("%s claims %v, the seed says %v", f.Name, f.Claim, want)
		}
	}
	// Every input feeds some figure, so changing any input changes some computed figure.
	used := map[string]bool{}
	a := analyze(p)
	for _, refs := range a.refs {
		for _, r := range refs {
			used[r.Name] = true
		}
	}
	for _, in := range p.Inputs {
		if !used[in.Name] {
			t.Errorf("input %q is not used by any formula", in.Name)
		}
	}
}

// TestNorthstarAnyChangedClaimFails changes each declared figure in turn, in several ways,
// and checks that exactly that figure fails and the report names it with both values.
func TestNorthstarAnyChangedClaimFails(t *testing.T) {
	base := loadNorthstar(t)
	for i, f := range base.Figures {
		d := statedDecimals(f.ClaimText)
		unit := math.Pow10(-d)
		for _, claim := range []float64{f.Claim + unit, f.Claim - unit, f.Claim * 1.01, f.Claim * 10, 0, math.Round(f.Claim/10) * 10} {
			if claim == f.Claim {
				continue
			}
			t.Run(fmt.Sprintf("%s=%v", f.Name, claim), func(t *testing.T) {
				p := *base
				p.Figures = slices.Clone(base.Figures)
				p.Figures[i].Claim = claim
				p.Figures[i].ClaimText = ""
				rep := p.Verify()
				if rep.OK() {
					t.Fatalf("claim %v for %s verifies", claim, f.Name)
				}
				failed := rep.Failed()
				if len(failed) != 1 || failed[0].Name != f.Name {
					t.Fatalf("failed rows %+v, want only %s", failed, f.Name)
				}
				var b strings.Builder
				rep.WriteTo(&b)
				if !strings.Contains(b.String(), "MISMATCH "+f.Name+": declared ") {
					t.Errorf("report does not name %s as a mismatch:\n%s", f.Name, b.String())
				}
			})
		}
	}
}

// TestNorthstarAnyChangedInputFails changes each stated input by 1% and checks that
// verification fails.
func TestNorthstarAnyChangedInputFails(t *testing.T) {
	base := loadNorthstar(t)
	for i, in := range base.Inputs {
		p := *base
		p.Inputs = slices.Clone(base.Inputs)
		p.Inputs[i].Value *= 1.01
		if rep := p.Verify(); rep.OK() {
			t.Errorf("input %s changed from %v to %v, and the packet still verifies", in.Name, in.Value, p.Inputs[i].Value)
		}
	}
}
