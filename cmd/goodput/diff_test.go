package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/goodput-lab/goodput/packet"
)

// modified writes a copy of the packet.json in dir, changed by f, to a new directory.
func modified(t *testing.T, dir string, f func(p *packet.Packet)) string {
	t.Helper()
	p, err := packet.ReadJSON(filepath.Join(dir, packet.JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	f(p)
	out := t.TempDir()
	var b bytes.Buffer
	if err := p.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, packet.JSONFile), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDiff(t *testing.T) {
	dir, _ := replaySmall(t)
	protected := func(p *packet.Packet) *packet.Arm { return &p.Arms[1] }
	worseGoodput := modified(t, dir, func(p *packet.Packet) { protected(p).Totals.Goodput = protected(p).Totals.Goodput * 8 / 10 })
	betterGoodput := modified(t, dir, func(p *packet.Packet) { protected(p).Totals.Goodput += 10 })
	newDuplicate := modified(t, dir, func(p *packet.Packet) { protected(p).Duplicates.OrderCommits = 1 })
	neverNormal := modified(t, dir, func(p *packet.Packet) { protected(p).Recovery.Normal = nil })
	otherSeed := modified(t, dir, func(p *packet.Packet) {
		p.Seed++
		p.Arms = append(p.Arms, p.Arms[0])
		p.Arms[2].Name = "canary"
		p.Arms[0].Name = "control"
	})

	tests := []struct {
		name   string
		args   []string
		gate   string   // the gate's error, naming each regression; "" for none
		stdout []string // in the table
		stderr []string
	}{
		{name: "itself", args: []string{dir, dir, "--fail-above", "0"}, stdout: []string{"baseline ", "protected ", "  goodput "}},
		{name: "packet.json path", args: []string{filepath.Join(dir, packet.JSONFile), dir, "--fail-above", "0"}},
		{name: "regression", args: []string{dir, worseGoodput, "--fail-above", "5"},
			gate: "diff: 2 figures worse by more than 5%: protected goodput (−20.0%); protected goodput / offered (−20.0%)", stdout: []string{"−20.0% worse"}},
		{name: "regression under PCT", args: []string{dir, worseGoodput, "--fail-above", "25"}},
		{name: "regression without a gate", args: []string{dir, worseGoodput}, stdout: []string{"worse"}},
		{name: "improvement", args: []string{dir, betterGoodput, "--fail-above", "0"}},
		{name: "from zero", args: []string{dir, newDuplicate, "--fail-above", "1000000"},
			gate: "protected duplicate mutations (0 in A, 1 in B)"},
		{name: "not measured in B", args: []string{dir, neverNormal, "--fail-above", "1000000"},
			gate: "protected back to Normal (not measured in B)"},
		{name: "arms and seeds", args: []string{dir, otherSeed, "--fail-above", "0"},
			stdout: []string{"only in A: baseline", "only in B: control, canary"},
			stderr: []string{"warning: the packets have different seeds"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(append([]string{"diff"}, tt.args...), &stdout, &stderr)
			switch {
			case tt.gate == "" && err != nil:
				t.Fatalf("error %v, want none", err)
			case tt.gate != "" && (err == nil || !errors.Is(err, errGate) || !strings.Contains(err.Error(), tt.gate)):
				t.Fatalf("error %v, want a failed gate containing %q", err, tt.gate)
			case tt.gate != "" && exitCode(err) != 3:
				t.Errorf("exit %d, want 3", exitCode(err))
			}
			for _, want := range tt.stdout {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
				}
			}
			for _, want := range tt.stderr {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
				}
			}
			if tt.name == "itself" && strings.Contains(stdout.String(), "worse") {
				t.Errorf("a packet compared with itself got worse:\n%s", stdout.String())
			}
			for _, l := range strings.Split(stdout.String(), "\n") {
				if n := utf8.RuneCountInString(l); n > 80 && !strings.HasPrefix(l, "  A  ") && !strings.HasPrefix(l, "  B  ") {
					t.Errorf("line of %d columns: %q", n, l)
				}
			}
		})
	}
}

func TestDiffJSON(t *testing.T) {
	dir, _ := replaySmall(t)
	worse := modified(t, dir, func(p *packet.Packet) { p.Arms[0].Totals.Late += 5 })
	var stdout, stderr bytes.Buffer
	if err := run([]string{"diff", "--json", dir, worse}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	var d struct {
		Arms []struct {
			Name    string
			Figures []struct {
				Key        string
				A, B       *float64
				Change     *float64
				Regression bool
			}
		}
		OnlyInA, OnlyInB []string
	}
	if err := json.Unmarshal(stdout.Bytes(), &d); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if len(d.Arms) != 2 || d.Arms[0].Name != "baseline" {
		t.Fatalf("arms %+v", d.Arms)
	}
	for _, f := range d.Arms[0].Figures {
		if f.Key != "late" {
			continue
		}
		if f.Change == nil || *f.Change != 5 || !f.Regression {
			t.Errorf("late: %+v", f)
		}
		return
	}
	t.Error("no late figure in the baseline arm")
}

func TestDiffErrors(t *testing.T) {
	dir, _ := replaySmall(t)
	empty := t.TempDir()
	bad := filepath.Join(t.TempDir(), packet.JSONFile)
	if err := os.WriteFile(bad, []byte(`{"scenario": "x", "seed": 1, "arms": [{"name": "a", "tick_ms": "fast"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args  []string
		want  string
		usage bool
	}{
		{args: []string{"diff", dir}, want: "diff takes two packets, A and B, got 1", usage: true},
		{args: []string{"diff", dir, dir, dir}, want: "got 3", usage: true},
		{args: []string{"diff", dir, dir, "--fail-above", "-1"}, want: "expected a percentage", usage: true},
		{args: []string{"diff", dir, dir, "--fail-above", "lots"}, want: "expected a percentage", usage: true},
		{args: []string{"diff", dir, empty}, want: "packet.json is missing"},
		{args: []string{"diff", filepath.Join(empty, "nowhere"), dir}, want: "nowhere is missing"},
		{args: []string{"diff", dir, bad}, want: "packet.json:1:"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		err := run(tt.args, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want one containing %q", tt.args, err, tt.want)
			continue
		}
		if code, want := exitCode(err), map[bool]int{true: 2, false: 1}[tt.usage]; code != want {
			t.Errorf("%q: exit %d, want %d", tt.args, code, want)
		}
	}
	var stdout, stderr bytes.Buffer
	if err := run([]string{"diff", "-h"}, &stdout, &stderr); err != nil {
		t.Fatalf("-h: %v", err)
	}
	for _, want := range []string{"usage: goodput diff A B [--fail-above PCT] [--json]", "exits 3", "0 in A and got worse"} {
		if !strings.Contains(strings.Join(strings.Fields(stderr.String()), " "), want) {
			t.Errorf("-h lacks %q:\n%s", want, stderr.String())
		}
	}
}
