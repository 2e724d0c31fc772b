package incident

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDecodeErrors checks that bad documents fail with file:line:col and a message that
// says what is wrong and what is expected.
func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		name, src string
		want      string // the first diagnostic, as printed
	}{
		{"empty", "", "x.incident.yaml:1:1: error: empty incident; expected a mapping with id, status, severity, title, authors, reviewers, …"},
		{"syntax", "id: [1\n", "x.incident.yaml:1:5: error: invalid YAML:"},
		{"not a mapping", "- a\n- b\n", "x.incident.yaml:1:1: error: got a list; expected a mapping with id, status"},
		{"unknown key", "id: x\ncolour: y\n", `x.incident.yaml:2:1: error: unknown key "colour"; expected one of id, status, severity, title,`},
		{"suggestion", "id: x\ntitel: y\n", `x.incident.yaml:2:1: error: unknown key "titel"; did you mean "title"?`},
		{"nested unknown key", "timeline:\n  - at: 2026-09-12T09:02:00Z\n    titel: x\n", `x.incident.yaml:3:5: error: timeline[0]: unknown key "titel"; did you mean "title"?`},
		{"duplicate key", "id: a\nid: b\n", `x.incident.yaml:2:1: error: duplicate key "id" (first at line 1, column 1); expected each key once per mapping`},
		{"list for text", "id: [1]\n", "x.incident.yaml:1:5: error: id: got a list; expected text"},
		{"mapping for list", "authors: {a: b}\n", "x.incident.yaml:1:10: error: authors: got a mapping; expected a list"},
		{"clock time for a timestamp", "milestones:\n  - name: detected\n    at: 09:47\n", `x.incident.yaml:3:9: error: milestones[0].at: "09:47" is not a timestamp; expected RFC 3339 in UTC, such as 2026-09-12T09:14:00Z`},
		{"offset timestamp", "milestones:\n  - name: detected\n    at: 2026-09-12T11:47:00+02:00\n", `x.incident.yaml:3:9: error: milestones[0].at: "2026-09-12T11:47:00+02:00" is not in UTC; times are stored in UTC (set time_zone for display): write 2026-09-12T09:47:00Z`},
		{"number for a timestamp", "tail: {end: 5}\n", `x.incident.yaml:1:13: error: tail.end: "5" is not a timestamp; expected RFC 3339 in UTC`},
		{"list for a timestamp", "tail: {end: [5]}\n", "x.incident.yaml:1:13: error: tail.end: got a list; expected an RFC 3339 timestamp in UTC"},
		{"bad date", "reviewed: 18 Sep 2026\n", `x.incident.yaml:1:11: error: reviewed: "18 Sep 2026" is not a date; expected a date YYYY-MM-DD, such as 2026-09-18`},
		{"impossible date", "actions:\n  - due: 2026-02-30\n", `x.incident.yaml:2:10: error: actions[0].due: "2026-02-30" is not a date`},
		{"bad status", "status: done\n", `x.incident.yaml:1:9: error: status: "done" is not allowed; expected one of: investigating, identified, mitigated, resolved, closed`},
		{"bad action status", "actions:\n  - status: finished\n", `x.incident.yaml:2:13: error: actions[0].status: "finished" is not allowed; expected one of: not_started, in_progress, blocked, done, wont_do`},
		{"number with separators", "impact:\n  - id: a\n    value: 12,400\n", `x.incident.yaml:3:12: error: impact[0].value: got the text "12,400"; expected a number (write numbers without separators or units, e.g. 12400)`},
		{"text for a number", "series: {unit: x, peak: high}\n", `x.incident.yaml:1:25: error: series.peak: got the text "high"; expected a number`},
		{"float for an integer", "decisions:\n  - generation: 1.5\n", "x.incident.yaml:2:17: error: decisions[0].generation: got the number 1.5; expected a whole number"},
		{"unknown time zone", "time_zone: Mars/Olympus\n", `x.incident.yaml:1:12: error: time_zone: unknown time zone "Mars/Olympus"; expected an IANA name such as UTC or Europe/Dublin`},
		{"Local is not a zone", "time_zone: Local\n", `unknown time zone "Local"`},
		{"two documents", "id: a\n---\nid: b\n", "x.incident.yaml:3:1: error: a second YAML document; expected one incident per file"},
		{"merge key", "base: &b {id: x}\n", `x.incident.yaml:1:1: error: unknown key "base"`},
		{"merge key use", "links:\n  - &l {title: a, url: b}\n  - <<: *l\n", "x.incident.yaml:3:5: error: links[1]: merge keys (<<) are not supported here; expected the keys written out"},
		{"date for a list", "actions:\n  - due: [1]\n", "x.incident.yaml:2:10: error: actions[0].due: got a list; expected a date YYYY-MM-DD, such as 2026-09-18"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode("x.incident.yaml", []byte(tc.src))
			if err == nil {
				t.Fatal("decoded without an error")
			}
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %T is not a *DecodeError: %v", err, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got\n\t%v\nwant it to contain\n\t%s", err, tc.want)
			}
		})
	}
}

// TestDecodeAllErrors checks that one decode reports every structural problem.
func TestDecodeAllErrors(t *testing.T) {
	_, err := Decode("x.yaml", []byte("id: x\ntitel: y\nstatus: done\nreviewed: soon\n"))
	var de *DecodeError
	if !errors.As(err, &de) || len(de.Diagnostics) != 3 {
		t.Fatalf("want 3 diagnostics, got %v", err)
	}
	for i, line := range []int{2, 3, 4} {
		if de.Diagnostics[i].Line != line {
			t.Errorf("diagnostic %d at line %d, want %d", i, de.Diagnostics[i].Line, line)
		}
	}
}

// TestDecodeKeepsScalarText checks that text fields keep what was written: `id: 01`
// stays "01", not the number 1.
func TestDecodeKeepsScalarText(t *testing.T) {
	doc, err := Decode("x.yaml", []byte("id: 0042\nseverity: 1\nfactors:\n  - id: 01\n    title: 1.10\n"))
	if err != nil {
		t.Fatal(err)
	}
	if doc.ID != "0042" || doc.Severity != "1" || doc.Factors[0].ID != "01" || doc.Factors[0].Title != "1.10" {
		t.Errorf("got id %q severity %q factor %q title %q", doc.ID, doc.Severity, doc.Factors[0].ID, doc.Factors[0].Title)
	}
}

func TestDecodePositions(t *testing.T) {
	src := "id: x\nmilestones:\n  - name: impact_start\n    at: 2026-09-12T09:14:00Z\n  - {name: detected, at: 2026-09-12T09:47:00Z}\nseverity: &s SEV-1\ntail:\nsummary: x\n"
	doc, err := Decode("x.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path      string
		line, col int
	}{
		{"id", 1, 5},
		{"milestones", 3, 3},
		{"milestones[0]", 3, 5},
		{"milestones[0].at", 4, 9},
		{"milestones[1]", 5, 5},
		{"milestones[1].at", 5, 26},
		{"severity", 6, 14}, // the value, after its anchor
		{"tail", 7, 6},      // a key with nothing after it: where the nothing is
		{"nope", 0, 0},
	} {
		if l, c := doc.Position(tc.path); l != tc.line || c != tc.col {
			t.Errorf("Position(%q) = %d:%d, want %d:%d", tc.path, l, c, tc.line, tc.col)
		}
	}
}

func TestReadSeriesCSV(t *testing.T) {
	cases := []struct {
		name, data string
		want       string // error substring; "" for success
		n          int
	}{
		{"ok", "at,value\n2026-09-12T09:00:00Z,0.3\n2026-09-12T09:01:00Z,6\n", "", 2},
		{"header", "time,value\n2026-09-12T09:00:00Z,1\n", `s.csv:1:1: error: header is "time,value"; expected "at,value"`, 0},
		{"not a time", "at,value\n09:00,1\n", `s.csv:2:1: error: "09:00" is not a timestamp`, 0},
		{"not UTC", "at,value\n2026-09-12T09:00:00+01:00,1\n", `s.csv:2:1: error: "2026-09-12T09:00:00+01:00" is not in UTC`, 0},
		{"not a number", "at,value\n2026-09-12T09:00:00Z,6%\n", `s.csv:2:22: error: value "6%" is not a number`, 0},
		{"order", "at,value\n2026-09-12T09:01:00Z,1\n2026-09-12T09:00:00Z,2\n", "s.csv:3:1: error: 2026-09-12T09:00:00Z is not after the previous row's 2026-09-12T09:01:00Z", 0},
		{"columns", "at,value\n2026-09-12T09:00:00Z,1,2\n", "s.csv:2:", 0},
		{"no rows", "at,value\n", "s.csv:1:1: error: no data rows", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pts, err := ReadSeriesCSV("s.csv", strings.NewReader(tc.data))
			if tc.want == "" {
				if err != nil || len(pts) != tc.n {
					t.Fatalf("got %d points, %v", len(pts), err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestLoadSeriesCSVErrors(t *testing.T) {
	dir := t.TempDir()
	doc := "id: x\nseries:\n  unit: \"%\"\n  csv: missing.csv\n"
	p := filepath.Join(dir, "x.incident.yaml")
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(p)
	if err == nil || !strings.Contains(err.Error(), p+":4:8: error: series.csv: cannot read the series CSV:") {
		t.Errorf("got %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "missing.csv"), []byte("at,value\nx,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(p)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "missing.csv")+":2:1: error:") {
		t.Errorf("got %v", err)
	}
	if _, err := Load(filepath.Join(dir, "none.yaml")); err == nil {
		t.Error("loaded a missing file")
	}
}
