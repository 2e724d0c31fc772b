package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/report"
)

// replaySmall replays the small scenario into a new directory and returns it with the table
// the replay printed.
func replaySmall(t *testing.T) (dir string, table []byte) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "packet")
	var stdout, stderr bytes.Buffer
	if err := replay(context.Background(), []string{smallScenario, "--out", dir}, &stdout, &stderr, realEnv); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	return dir, stdout.Bytes()
}

// TestReportRedrawsReplay replays a scenario, removes its report.html and redraws it with
// goodput report: the table and the page are the replay's, byte for byte.
func TestReportRedrawsReplay(t *testing.T) {
	dir, table := replaySmall(t)
	page := filepath.Join(dir, report.HTMLFile)
	want, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(page); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := run([]string{"report", dir}, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !bytes.Equal(stdout.Bytes(), table) {
		t.Errorf("table differs from the replay's:\n--- report\n%s\n--- replay\n%s", stdout.Bytes(), table)
	}
	got, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("report.html differs from the replay's (%d bytes, replay %d)", len(got), len(want))
	}
	if !strings.Contains(stderr.String(), "wrote "+page) {
		t.Errorf("stderr: %q", stderr.String())
	}

	// The packet.json path names the directory too; -o puts the page elsewhere;
	// --table-only writes none, --html-only prints nothing.
	other := filepath.Join(t.TempDir(), "page.html")
	stdout.Reset()
	if err := run([]string{"report", filepath.Join(dir, packet.JSONFile), "-o", other, "--html-only"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(other); err != nil || !bytes.Equal(b, want) {
		t.Errorf("-o %s: %v, same page %v", other, err, bytes.Equal(b, want))
	}
	if stdout.Len() != 0 {
		t.Errorf("--html-only printed %q", stdout.String())
	}
	if err := os.Remove(page); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	if err := run([]string{"report", "--table-only", dir}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(page); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--table-only wrote %s", page)
	}
	if !bytes.Equal(stdout.Bytes(), table) {
		t.Error("--table-only: table differs from the replay's")
	}
}

func TestReportErrors(t *testing.T) {
	empty := t.TempDir()
	tests := []struct {
		args  []string
		want  string
		usage bool
	}{
		{args: []string{"report"}, want: "report needs a packet directory", usage: true},
		{args: []string{"report", "a", "b"}, want: "report takes one packet directory, got 2", usage: true},
		{args: []string{"report", "--table-only", "--html-only", "a"}, want: "exclude each other", usage: true},
		{args: []string{"report", "--table-only", "-o", "x.html", "a"}, want: "-o names the page", usage: true},
		{args: []string{"report", "--bogus", "a"}, want: "flag provided but not defined", usage: true},
		{args: []string{"report", empty}, want: "packet.json is missing"},
		{args: []string{"report", filepath.Join(empty, "nowhere")}, want: "packet.json is missing"},
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
	if err := run([]string{"report", "-h"}, &stdout, &stderr); err != nil {
		t.Fatalf("-h: %v", err)
	}
	for _, want := range []string{"usage: goodput report DIR", "Exit status:\n", "  2  a usage error"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("-h lacks %q:\n%s", want, stderr.String())
		}
	}
}
