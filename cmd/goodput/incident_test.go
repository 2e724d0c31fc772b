package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const incidentExamples = "../../examples/incidents"

// copyExample copies an example document (and its series CSV) into a temporary
// directory, applying edit to the document's text, and returns the copy's path.
func copyExample(t *testing.T, name string, edit func(string) string) string {
	t.Helper()
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(incidentExamples, name+".incident.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	// A replay's scenario and packet are named relative to the examples: point the copy at
	// them.
	examples, err := filepath.Abs(filepath.Join(incidentExamples, ".."))
	if err != nil {
		t.Fatal(err)
	}
	text = strings.ReplaceAll(text, " ../", " "+examples+"/")
	if edit != nil {
		edited := edit(text)
		if edited == text {
			t.Fatalf("the edit changed nothing in %s", name)
		}
		text = edited
	}
	path := filepath.Join(dir, name+".incident.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	csvs, _ := filepath.Glob(filepath.Join(incidentExamples, name+".*.csv"))
	for _, c := range csvs {
		b, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(c)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

var diagLine = regexp.MustCompile(`^(.+):(\d+):(\d+): (error|warning): .+$`)

func TestIncidentCheck(t *testing.T) {
	t.Run("examples pass", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		if err := run([]string{"incident", "check", incidentExamples}, &stdout, &stderr); err != nil {
			t.Fatalf("check examples: %v\n%s%s", err, stdout.String(), stderr.String())
		}
		for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
			if line == "" {
				continue
			}
			m := diagLine.FindStringSubmatch(line)
			if m == nil || m[4] != "warning" {
				t.Errorf("unexpected output line %q", line)
			}
		}
		if !strings.HasPrefix(stderr.String(), "goodput: incident check: 3 files, 0 errors, ") || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("stderr %q, want the one-line summary", stderr.String())
		}
	})
	t.Run("untied figure is an error, with --lenient a warning", func(t *testing.T) {
		path := copyExample(t, "payment-timeout", func(s string) string {
			return strings.Replace(s, "The rollback was clean.", "The rollback took 47 minutes.", 1)
		})
		const msg = `went_well[1]: duration "47 minutes" matches no interval between recorded instants`
		for _, tc := range []struct {
			args    []string
			sev     string
			summary string
		}{
			{[]string{"incident", "check", path}, "error", "1 file, 1 error, 0 warnings"},
			{[]string{"incident", "check", "--lenient", path}, "warning", "1 file, 0 errors, 1 warning"},
		} {
			var stdout, stderr bytes.Buffer
			err := run(tc.args, &stdout, &stderr)
			if (err != nil) != (tc.sev == "error") || exitCode(err) > 1 {
				t.Errorf("%q: err = %v", tc.args, err)
			}
			m := diagLine.FindStringSubmatch(strings.TrimSpace(stdout.String()))
			if m == nil || m[1] != path || m[4] != tc.sev || !strings.Contains(stdout.String(), msg) {
				t.Errorf("%q: stdout %q, want one %s: %s", tc.args, stdout.String(), tc.sev, msg)
			}
			if want := "goodput: incident check: " + tc.summary + "\n"; stderr.String() != want {
				t.Errorf("%q: stderr %q, want %q", tc.args, stderr.String(), want)
			}
		}
	})
	t.Run("wrong stated duration", func(t *testing.T) {
		path := copyExample(t, "payment-timeout", func(s string) string {
			return strings.Replace(s, "It cost 72\n      minutes", "It cost 75\n      minutes", 1)
		})
		var stdout, stderr bytes.Buffer
		err := run([]string{"incident", "check", path}, &stdout, &stderr)
		if err == nil || errors.Is(err, errUsage) {
			t.Fatalf("err = %v, want a check failure", err)
		}
		out := stdout.String()
		var found bool
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			m := diagLine.FindStringSubmatch(line)
			if m == nil {
				t.Errorf("not a file:line:col diagnostic: %q", line)
				continue
			}
			if m[1] == path && m[4] == "error" && strings.Contains(line, "75") {
				found = true
			}
		}
		if !found {
			t.Errorf("no error about the stated 75 minutes:\n%s", out)
		}
		if stderr.String() != "goodput: incident check: 1 file, 1 error, 0 warnings\n" {
			t.Errorf("no summary on stderr: %q", stderr.String())
		}
	})
	t.Run("decode error is a diagnostic", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "bad.incident.yaml")
		os.WriteFile(path, []byte("id: X\nstatus: resolved\ntitle: [unclosed\n"), 0o644)
		var stdout, stderr bytes.Buffer
		err := run([]string{"incident", "check", path}, &stdout, &stderr)
		if err == nil {
			t.Fatal("want an error")
		}
		if m := diagLine.FindStringSubmatch(strings.TrimSpace(stdout.String())); m == nil || m[1] != path || m[4] != "error" {
			t.Errorf("decode error not reported as file:line:col: error: %q", stdout.String())
		}
	})
	t.Run("missing file", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		err := run([]string{"incident", "check", "no-such.incident.yaml"}, &stdout, &stderr)
		if err == nil || !strings.Contains(stdout.String(), "no-such.incident.yaml: error: ") {
			t.Errorf("err = %v, stdout %q", err, stdout.String())
		}
	})
	t.Run("usage", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		if err := run([]string{"incident", "check"}, &stdout, &stderr); !errors.Is(err, errUsage) {
			t.Errorf("no files: err = %v, want a usage error", err)
		}
		if err := run([]string{"incident", "bogus"}, &stdout, &stderr); !errors.Is(err, errUsage) {
			t.Errorf("unknown subcommand: err = %v, want a usage error", err)
		}
		if err := run([]string{"incident", "check", "-h"}, &stdout, &stderr); err != nil {
			t.Errorf("-h: %v", err)
		}
	})
}

func TestIncidentRender(t *testing.T) {
	seed000 := filepath.Join(incidentExamples, "payment-timeout.incident.yaml")
	t.Run("html to stdout", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		if err := run([]string{"incident", "render", seed000}, &stdout, &stderr); err != nil {
			t.Fatal(err)
		}
		out := stdout.String()
		if !strings.HasPrefix(out, "<!DOCTYPE html>") || !strings.Contains(out, "33 min to detect") || strings.Contains(out, "<script") {
			t.Errorf("unexpected page:\n%.300s", out)
		}
	})
	t.Run("md to a file with the chart beside it", func(t *testing.T) {
		dir := t.TempDir()
		out := filepath.Join(dir, "pm.md")
		var stdout, stderr bytes.Buffer
		if err := run([]string{"incident", "render", "-o", out, seed000}, &stdout, &stderr); err != nil {
			t.Fatal(err)
		}
		md, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(md, []byte("# Synthetic extended title")) || !bytes.Contains(md, []byte("](pm.chart.svg)")) {
			t.Errorf("Markdown (format from -o's extension) lacks the title or the chart link:\n%.400s", md)
		}
		svg, err := os.ReadFile(filepath.Join(dir, "pm.chart.svg"))
		if err != nil || !bytes.Contains(svg, []byte("<svg xmlns=")) {
			t.Errorf("chart file: %v %.100s", err, svg)
		}
		if stdout.Len() != 0 {
			t.Errorf("stdout not empty with -o: %q", stdout.String())
		}
	})
	t.Run("public", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		if err := run([]string{"incident", "render", filepath.Join(incidentExamples, "router-limit.incident.yaml"), "--public", "--format", "md"}, &stdout, &stderr); err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{"## Who was affected?", "## What happened?", "## What did we do to prevent wider impact?", "## What will we do to mitigate problems like this in the future?"} {
			if !strings.Contains(stdout.String(), s) {
				t.Errorf("public Markdown lacks %q", s)
			}
		}
		stdout.Reset()
		if err := run([]string{"incident", "render", "--public", seed000}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "no public summary") {
			t.Errorf("--public without a public section: err = %v", err)
		}
	})
	t.Run("check errors block rendering", func(t *testing.T) {
		path := copyExample(t, "payment-timeout", func(s string) string {
			return strings.Replace(s, "owner: M. Halvorsen\n", "", 1)
		})
		out := filepath.Join(t.TempDir(), "pm.html")
		var stdout, stderr bytes.Buffer
		err := run([]string{"incident", "render", path, "-o", out}, &stdout, &stderr)
		if err == nil || !strings.Contains(stderr.String(), ": error: ") {
			t.Errorf("err = %v, stderr %q; want the check errors", err, stderr.String())
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Error("the page was written despite check errors")
		}
	})
	t.Run("usage", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		for _, args := range [][]string{
			{"incident", "render"},
			{"incident", "render", seed000, seed000},
			{"incident", "render", seed000, "--format", "pdf"},
			{"incident", "render", seed000, "--bogus"},
		} {
			if err := run(args, &stdout, &stderr); !errors.Is(err, errUsage) {
				t.Errorf("%q: err = %v, want a usage error", args, err)
			}
		}
	})
}

func TestIncidentSite(t *testing.T) {
	t.Run("examples", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "site")
		var stdout, stderr bytes.Buffer
		if err := run([]string{"incident", "site", incidentExamples, "-o", out}, &stdout, &stderr); err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		index, err := os.ReadFile(filepath.Join(out, "index.html"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(index, []byte("median 33 min")) || !bytes.Contains(index, []byte("n = 3")) {
			t.Error("index lacks the time-to-detect distribution")
		}
		pages, _ := filepath.Glob(filepath.Join(out, "*.html"))
		if len(pages) != 5 {
			t.Errorf("%d pages, want 3 incidents + 1 public summary + index: %v", len(pages), pages)
		}
		if !strings.Contains(stdout.String(), "wrote 3 incident pages") {
			t.Errorf("stdout = %q", stdout.String())
		}
	})
	t.Run("errors block the site", func(t *testing.T) {
		path := copyExample(t, "payment-timeout", func(s string) string {
			return strings.Replace(s, "name: detected\n    at: 2026-09-12T09:47:00Z", "name: detected\n    at: 2026-09-12T09:07:00Z", 1)
		})
		out := filepath.Join(t.TempDir(), "site")
		var stdout, stderr bytes.Buffer
		err := run([]string{"incident", "site", filepath.Dir(path), "-o", out}, &stdout, &stderr)
		if err == nil || !strings.Contains(stderr.String(), ": error: ") {
			t.Errorf("err = %v, stderr %q", err, stderr.String())
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Error("the site was written despite errors")
		}
	})
	t.Run("usage", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		for _, args := range [][]string{
			{"incident", "site", incidentExamples},
			{"incident", "site", "-o", t.TempDir()},
			{"incident", "site", filepath.Join(incidentExamples, "router-limit.incident.yaml"), "-o", t.TempDir()},
		} {
			if err := run(args, &stdout, &stderr); !errors.Is(err, errUsage) {
				t.Errorf("%q: err = %v, want a usage error", args, err)
			}
		}
		empty := t.TempDir()
		if err := run([]string{"incident", "site", empty, "-o", t.TempDir()}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "no *.incident.yaml") {
			t.Errorf("empty dir: err = %v", err)
		}
	})
}
