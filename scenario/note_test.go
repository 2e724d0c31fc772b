package scenario

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestValidateNotes decodes notes and breaks one per case: the error's path and text.
func TestValidateNotes(t *testing.T) {
	s, err := Decode("notes.yaml", []byte(validBase+"notes:\n  - {at: 30s, text: from here the clock is the calendar's}\n"))
	if err != nil {
		t.Fatalf("rejected:\n%v", err)
	}
	if len(s.Notes) != 1 || s.Notes[0].At != Duration(30*time.Second) || s.Notes[0].Text != "from here the clock is the calendar's" {
		t.Fatalf("decoded %+v", s.Notes)
	}
	for _, tc := range []struct {
		name, note string
		path, msg  string
	}{
		{"negative", "{at: -1s, text: x}", "$.notes[0].at", "expected zero or more"},
		{"after the run", "{at: 1m, text: x}", "$.notes[0].at", "at or after the end of the run (1m)"},
		{"empty", "{at: 1s, text: \" \"}", "$.notes[0].text", "text is empty"},
		{"long", "{at: 1s, text: " + strings.Repeat("x", 501) + "}", "$.notes[0].text", "501 bytes; expected at most 500"},
		{"no text", "{at: 1s}", "$.notes[0].text", "text is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode("notes.yaml", []byte(validBase+"notes:\n  - "+tc.note+"\n"))
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("Decode = %v; want an ErrorList", err)
			}
			for _, e := range list {
				if e.Path == tc.path && strings.Contains(e.Msg, tc.msg) {
					if e.Line == 0 {
						t.Errorf("%s has no position: %v", tc.path, e)
					}
					return
				}
			}
			t.Errorf("no error at %s containing %q in:\n%v", tc.path, tc.msg, err)
		})
	}
}

// TestTruncateNotes: a shorter run keeps the notes inside it.
func TestTruncateNotes(t *testing.T) {
	s := &Scenario{Clock: Clock{Duration: Duration(time.Minute)},
		Notes: []Note{{At: Duration(10 * time.Second), Text: "a"}, {At: Duration(40 * time.Second), Text: "b"}}}
	out := s.Truncate(30 * time.Second)
	if len(out.Notes) != 1 || out.Notes[0].Text != "a" {
		t.Errorf("truncated notes %+v, want the one at 10s", out.Notes)
	}
}
