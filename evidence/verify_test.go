package evidence

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func TestVerify(t *testing.T) {
	inputs := []Input{{Name: "a", Value: 9000}, {Name: "r", Value: 0.28}, {Name: "s", Value: 0.22}}
	tests := []struct {
		name    string
		figures []Figure
		ok      []bool    // per figure
		value   []float64 // per figure; NaN for "could not be computed"
		errs    []string  // per figure: substring of Err, or ""
	}{
		{
			name:    "exact product within rounding",
			figures: []Figure{{Name: "x", Formula: "a * (1 + r) * (1 + s)", Claim: 14054.4}},
			ok:      []bool{true}, value: []float64{14054.4}, errs: []string{""},
		},
		{
			name:    "zero tolerance rejects the last digit",
			figures: []Figure{{Name: "x", Formula: "a * (1 + r) * (1 + s)", Claim: 14054.5}},
			ok:      []bool{false}, value: []float64{14054.4}, errs: []string{""},
		},
		{
			name: "tolerance at the boundary",
			figures: []Figure{
				{Name: "pct", Formula: "(29 - 9) / 29 * 100", Claim: 68.97, Tolerance: 0.005},
				{Name: "tight", Formula: "(29 - 9) / 29 * 100", Claim: 68.97, Tolerance: 0.004},
				{Name: "coarse", Formula: "(29 - 9) / 29 * 100", Claim: 69, Tolerance: 0.5},
			},
			ok:    []bool{true, false, true},
			value: []float64{2000.0 / 29, 2000.0 / 29, 2000.0 / 29}, errs: []string{"", "", ""},
		},
		{
			name: "figures in any order",
			figures: []Figure{
				{Name: "amp", Formula: "att / a", Claim: 1.5616, Tolerance: 0.00005},
				{Name: "att", Formula: "a * (1 + r) * (1 + s)", Claim: 14054.4, Tolerance: 0.05},
			},
			ok: []bool{true, true}, value: []float64{1.5616, 14054.4}, errs: []string{"", ""},
		},
		{
			name: "functions and powers",
			figures: []Figure{
				{Name: "p", Formula: "2 ^ 10 + 2 ** 2 - -1", Claim: 1029},
				{Name: "m", Formula: "max(a, 10000) - min(r, s) + abs(-1) + floor(1.5) + ceil(1.5) + round(2.5)", Claim: 10000 - 0.22 + 1 + 1 + 2 + 3},
			},
			ok: []bool{true, true}, value: []float64{1029, 10000 - 0.22 + 7}, errs: []string{"", ""},
		},
		{
			name: "integer literals do not overflow",
			figures: []Figure{
				{Name: "big", Formula: "9999999999 * 9999999999 * 9999999999", Claim: 9.999999997e29, Tolerance: 1e16},
			},
			ok: []bool{true}, value: []float64{9999999999.0 * 9999999999.0 * 9999999999.0}, errs: []string{""},
		},
		{
			name: "division by zero fails the figure and what uses it",
			figures: []Figure{
				{Name: "z", Formula: "a / (r - r)", Claim: 1},
				{Name: "y", Formula: "z + 1", Claim: 2},
				{Name: "fine", Formula: "a", Claim: 9000},
			},
			ok:    []bool{false, false, true},
			value: []float64{math.NaN(), math.NaN(), 9000},
			errs:  []string{`figure "z": formula gives +Inf`, `figure "y": uses figure "z", which cannot be computed`, ""},
		},
		{
			name: "cycle fails every figure on it",
			figures: []Figure{
				{Name: "x", Formula: "y + 1", Claim: 1},
				{Name: "y", Formula: "x + 1", Claim: 1},
				{Name: "w", Formula: "y", Claim: 1},
			},
			ok:    []bool{false, false, false},
			value: []float64{math.NaN(), math.NaN(), math.NaN()},
			errs:  []string{"depends on itself through x → y → x", "depends on itself through x → y → x", `uses figure "y"`},
		},
		{
			name:    "unknown name",
			figures: []Figure{{Name: "x", Formula: "a + b", Claim: 1}},
			ok:      []bool{false}, value: []float64{math.NaN()},
			errs: []string{`evidence: figure "x": unknown name "b"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Packet{Title: tt.name, Inputs: inputs, Figures: tt.figures}
			rep := p.Verify()
			if len(rep.Rows) != len(tt.figures) {
				t.Fatalf("%d rows for %d figures", len(rep.Rows), len(tt.figures))
			}
			allOK := true
			for i, row := range rep.Rows {
				if row.Name != tt.figures[i].Name {
					t.Errorf("row %d is %q, want %q (declaration order)", i, row.Name, tt.figures[i].Name)
				}
				if row.OK != tt.ok[i] {
					t.Errorf("%s: OK = %v, want %v (computed %v, claimed %v, err %v)", row.Name, row.OK, tt.ok[i], row.Computed, row.Claimed, row.Err)
				}
				allOK = allOK && tt.ok[i]
				if want := tt.value[i]; math.IsNaN(want) != math.IsNaN(row.Computed) || !math.IsNaN(want) && !within(row.Computed, want, 0) {
					t.Errorf("%s: computed %v, want %v", row.Name, row.Computed, want)
				}
				switch {
				case tt.errs[i] == "" && row.Err != nil:
					t.Errorf("%s: unexpected error %v", row.Name, row.Err)
				case tt.errs[i] != "" && (row.Err == nil || !strings.Contains(row.Err.Error(), tt.errs[i])):
					t.Errorf("%s: error %v, want one containing %q", row.Name, row.Err, tt.errs[i])
				}
			}
			if rep.OK() != allOK {
				t.Errorf("Report.OK() = %v, want %v", rep.OK(), allOK)
			}
			if got, want := len(rep.Failed()), countFalse(tt.ok); got != want {
				t.Errorf("len(Failed()) = %d, want %d", got, want)
			}
		})
	}
}

func countFalse(b []bool) int {
	n := 0
	for _, v := range b {
		if !v {
			n++
		}
	}
	return n
}

func TestReportOKNeedsFigures(t *testing.T) {
	if (Report{}).OK() {
		t.Error("an empty report is OK; want not OK, since nothing was verified")
	}
}

// TestVerifyDoesNotChangePacket checks that Verify leaves the packet as it found it, so a
// packet can be verified again (and from several goroutines; run with -race).
func TestVerifyDoesNotChangePacket(t *testing.T) {
	p, err := Load(filepath.Join("testdata", "mixed.packet.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	first := p.Verify()
	done := make(chan Report)
	for range 4 {
		go func() { done <- p.Verify() }()
	}
	for range 4 {
		again := <-done
		var a, b bytes.Buffer
		first.WriteTo(&a)
		again.WriteTo(&b)
		if a.String() != b.String() {
			t.Fatalf("a second Verify differs:\n%s\n---\n%s", a.String(), b.String())
		}
	}
}

// TestWriteTo renders reports against golden files; run with -update to rewrite them.
func TestWriteTo(t *testing.T) {
	for _, name := range []string{"mixed", "northstar"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", name+".packet.yaml")
			if name == "northstar" {
				path = northstarPath
			}
			p, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if _, err := p.Verify().WriteTo(&b); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if b.String() != string(want) {
				t.Errorf("WriteTo output differs from %s (run go test -update if the change is intended):\n%s", golden, b.String())
			}
		})
	}
}

func TestFormatComputed(t *testing.T) {
	tests := []struct {
		tol  float64
		v    float64
		want string
	}{
		{0.005, 68.96551724, "68.9655"},
		{0.05, 14054.400000000001, "14054.4"},
		{0.5, 582528, "582528"},
		{0.5, -0.0001, "0"},
		{0.00005, 1.5616, "1.5616"},
		{50, 1512.3, "1512.3"},
		{0, 14054.400000000001, "14054.400000000001"},
	}
	for _, tt := range tests {
		if got := (Row{Tolerance: tt.tol}).formatComputed(tt.v); got != tt.want {
			t.Errorf("formatComputed(%v) with tolerance %v = %q, want %q", tt.v, tt.tol, got, tt.want)
		}
	}
}

// TestValidate checks the problems Validate finds in a packet built in Go, which carry no
// position.
func TestValidate(t *testing.T) {
	p := &Packet{
		Inputs: []Input{{Name: "a", Value: math.NaN()}, {Name: "a", Value: 1}, {Name: "if", Value: 1}},
		Figures: []Figure{
			{Name: "x", Formula: "a + y", Claim: 1, Tolerance: -1},
			{Name: "y", Formula: "x", Claim: math.Inf(1)},
			{Name: "z", Formula: "a ? 1 : 2", Claim: 1},
		},
	}
	err := p.Validate()
	if err == nil {
		t.Fatal("Validate accepted an invalid packet")
	}
	for _, want := range []string{
		"evidence: packet has no title",
		`evidence: input "a" has value NaN; expected a finite number`,
		`evidence: input "a" is already declared; expected one declaration per name`,
		`evidence: input name "if" is reserved`,
		`evidence: figure "x" has tolerance -1; expected a finite number ≥ 0`,
		`evidence: figure "y" claims +Inf; expected a finite number`,
		`evidence: figure "x": depends on itself through x → y → x`,
		`evidence: figure "z": "a ? 1 : 2" is not arithmetic`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Validate error does not contain %q:\n%v", want, err)
		}
	}
	if got := strings.Count(err.Error(), "\n") + 1; got != 8 {
		t.Errorf("%d problems reported, want 8:\n%v", got, err)
	}
	if err := (&Packet{Title: "t", Figures: []Figure{{Name: "x", Formula: "1", Claim: 1}}}).Validate(); err != nil {
		t.Errorf("Validate rejected a valid packet: %v", err)
	}
}

func BenchmarkVerifyNorthstar(b *testing.B) {
	data, err := os.ReadFile(northstarPath)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Decode("northstar.packet.yaml", data); err != nil {
				b.Fatal(err)
			}
		}
	})
	p, err := Decode("northstar.packet.yaml", data)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("verify", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !p.Verify().OK() {
				b.Fatal("not ok")
			}
		}
	})
}
