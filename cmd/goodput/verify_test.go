package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goodput-lab/goodput/evidence"
)

var northstarPacket = filepath.Join("..", "..", "examples", "northstar", "northstar.packet.yaml")

func TestVerifyNorthstarPasses(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := runVerify([]string{northstarPacket}, &stdout, &stderr); err != nil {
		t.Fatalf("verify %s: %v\n%s", northstarPacket, err, stdout.String())
	}
	out := stdout.String()
	for _, want := range []string{
		`Northstar overload incident`,
		`FIGURE\s+UNIT\s+CLAIMED\s+COMPUTED\s+DIFFERENCE\s+TOLERANCE\s+RESULT`,
		`attempt_rate\s+1/s\s+14054\.4\s+14054\.4\s+0\s+±0\.05 \(precision 1\)\s+ok`,
		`recovery_improvement\s+%\s+68\.97\s+68\.9655\s+-0\.0045\s+±0\.005 \(precision 2\)\s+ok`,
		`13 figures: 13 ok`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("output does not match %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "MISMATCH") {
		t.Errorf("output reports a mismatch:\n%s", out)
	}
}

// TestVerifyChangedFigureFails changes each declared figure of the Northstar packet in turn,
// in a temporary copy, and checks that verify fails, names the figure in its error, and
// prints the declared and computed values.
func TestVerifyChangedFigureFails(t *testing.T) {
	src, err := os.ReadFile(northstarPacket)
	if err != nil {
		t.Fatal(err)
	}
	p, err := evidence.Load(northstarPacket)
	if err != nil {
		t.Fatal(err)
	}
	// The computed column of the passing run, to find in the failing runs' output.
	var ok bytes.Buffer
	if err := runVerify([]string{northstarPacket}, &ok, &ok); err != nil {
		t.Fatal(err)
	}
	computed := map[string]string{}
	for _, line := range strings.Split(ok.String(), "\n") {
		if f := strings.Fields(line); len(f) > 4 {
			computed[f[0]] = f[3]
		}
	}
	if len(p.Figures) != 13 {
		t.Fatalf("the example declares %d figures, want 13", len(p.Figures))
	}
	for _, f := range p.Figures {
		for _, changed := range []string{bumpLastDigit(f.ClaimText), "2" + f.ClaimText} {
			t.Run(f.Name+"="+changed, func(t *testing.T) {
				// The claim line is the first "    claim:" after the figure's key line.
				re := regexp.MustCompile(`(?ms)(^  ` + f.Name + `:\n.*?^    claim: )` + regexp.QuoteMeta(f.ClaimText) + `\n`)
				if !re.Match(src) {
					t.Fatalf("cannot find the claim of %s in %s", f.Name, northstarPacket)
				}
				edited := re.ReplaceAll(src, []byte("${1}"+changed+"\n"))
				path := filepath.Join(t.TempDir(), "changed.packet.yaml")
				if err := os.WriteFile(path, edited, 0o644); err != nil {
					t.Fatal(err)
				}
				var stdout, stderr bytes.Buffer
				err := runVerify([]string{path}, &stdout, &stderr)
				if err == nil {
					t.Fatalf("verify passed with %s claimed as %s:\n%s", f.Name, changed, stdout.String())
				}
				if want := "1 of 13 figures"; !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "("+f.Name+")") {
					t.Errorf("error %q does not say %q and name %s", err, want, f.Name)
				}
				out := stdout.String()
				if want := "MISMATCH " + f.Name + ": declared " + changed; !strings.Contains(out, want) {
					t.Errorf("output does not contain %q:\n%s", want, out)
				}
				if want := ", computed " + computed[f.Name]; !strings.Contains(out, want) {
					t.Errorf("output does not contain %q:\n%s", want, out)
				}
				if want := "13 figures: 12 ok, 1 MISMATCH"; !strings.Contains(out, want) {
					t.Errorf("output does not contain %q:\n%s", want, out)
				}
			})
		}
	}
}

// bumpLastDigit changes the last digit of a number: 14054.4 → 14054.5, 68.99 → 68.98.
func bumpLastDigit(s string) string {
	b := []byte(s)
	i := len(b) - 1
	if b[i] == '9' {
		b[i] = '8'
	} else {
		b[i]++
	}
	return string(b)
}

func TestVerifyErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.packet.yaml")
	if err := os.WriteFile(bad, []byte("title: t\ninputs:\n  a: {value: 1}\nfigures:\n  x: {formula: a + b, claim: 2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		usage  bool   // the error is a usage error (exit 2)
		want   string // in the error
		stderr string // in stderr
	}{
		{"no file", nil, true, "no packet file given", ""},
		{"unknown flag", []string{"-x", northstarPacket}, true, "flag provided but not defined", ""},
		{"missing file", []string{filepath.Join(dir, "none.packet.yaml")}, false, "no such file", ""},
		{"bad packet", []string{bad}, false, bad + `:5:20: figure "x": unknown name "b"`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := runVerify(tt.args, &stdout, &stderr)
			if err == nil {
				t.Fatal("verify succeeded")
			}
			if errors.Is(err, errUsage) != tt.usage {
				t.Errorf("errors.Is(%v, errUsage) = %v, want %v", err, !tt.usage, tt.usage)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
			if !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("stderr %q does not contain %q", stderr.String(), tt.stderr)
			}
		})
	}
}

func TestVerifyHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := runVerify([]string{"-h"}, &stdout, &stderr); err != nil {
		t.Fatalf("verify -h: %v", err)
	}
	if !strings.Contains(stderr.String(), "usage: goodput verify FILE.packet.yaml") {
		t.Errorf("verify -h does not print the usage:\n%s", stderr.String())
	}
}

// TestVerifySeveralFiles checks that every file is verified and the error counts each
// failing file.
func TestVerifySeveralFiles(t *testing.T) {
	src, err := os.ReadFile(northstarPacket)
	if err != nil {
		t.Fatal(err)
	}
	changed := filepath.Join(t.TempDir(), "changed.packet.yaml")
	if err := os.WriteFile(changed, bytes.Replace(src, []byte("claim: 75\n"), []byte("claim: 80\n"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err = runVerify([]string{northstarPacket, changed}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), changed) || strings.Contains(err.Error(), northstarPacket) {
		t.Fatalf("error %v, want one naming only %s", err, changed)
	}
	if n := strings.Count(stdout.String(), "13 figures:"); n != 2 {
		t.Errorf("%d summaries, want 2:\n%s", n, stdout.String())
	}
}

// TestVerifyPaymentTimeoutPasses: seed 000's pool arithmetic (200 connections held 2 s
// against 30 s, a fifteenth of the load) and its timeline's durations verify, and a pool
// figure stated wrongly fails.
func TestVerifyPaymentTimeoutPasses(t *testing.T) {
	path := filepath.Join("..", "..", "examples", "payment-timeout", "payment-timeout.packet.yaml")
	var stdout, stderr bytes.Buffer
	if err := runVerify([]string{path}, &stdout, &stderr); err != nil {
		t.Fatalf("verify %s: %v\n%s", path, err, stdout.String())
	}
	for _, want := range []string{
		`hold_ratio\s+×\s+15\s+15\s+0\s+±0\.5 \(precision 0\)\s+ok`,
		`load_share\s+-\s+0\.0667\s+0\.066667`,
		`12 figures: 12 ok`,
	} {
		if !regexp.MustCompile(want).MatchString(stdout.String()) {
			t.Errorf("output does not match %q:\n%s", want, stdout.String())
		}
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	wrong := filepath.Join(t.TempDir(), "wrong.packet.yaml")
	if err := os.WriteFile(wrong, bytes.Replace(src, []byte("claim: 0.0667"), []byte("claim: 0.0714"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	if err := runVerify([]string{wrong}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "load_share") {
		t.Errorf("verify of a wrong load share: err %v; want an error naming load_share\n%s", err, stdout.String())
	}
}
