package scenario

import (
	"fmt"
	"strings"
)

// Note is a remark on the replay's timeline at an instant, for the reader of its
// outputs: an event of kind "note" in events.jsonl in every arm and a numbered marker on
// the report's charts, e.g. where a compressed stretch of the clock ends and the clock's
// labels become the calendar's again. A note changes no input and no figure.
type Note struct {
	// At is the instant, from the start of the run, e.g. 1h.
	At Duration `yaml:"at" json:"at"`
	// Text is the remark, at most 500 bytes, e.g. "from here the clock is September
	// 17's; the hour before compresses the five weeks since August 12".
	Text string `yaml:"text" json:"text"`
}

// maxNotes bounds the notes of a scenario, and maxNoteText a note's text.
const (
	maxNotes    = 200
	maxNoteText = 500
)

// notes checks each note: an instant inside the run and a text of reasonable length.
func (v *validator) notes() {
	if len(v.s.Notes) > maxNotes {
		v.addf("$.notes", "%d notes; expected at most %d", len(v.s.Notes), maxNotes)
		return
	}
	for i, n := range v.s.Notes {
		p := fmt.Sprintf("$.notes[%d]", i)
		switch {
		case n.At < 0:
			v.addf(p+".at", "at is %s; expected zero or more", n.At)
		case v.outside(n.At):
			v.addf(p+".at", "note at %s is at or after the end of the run (%s); expected an instant inside the run", n.At, v.s.Clock.Duration)
		}
		switch {
		case strings.TrimSpace(n.Text) == "":
			v.addf(p+".text", "text is empty; expected the remark, e.g. from here the clock is the calendar's")
		case len(n.Text) > maxNoteText:
			v.addf(p+".text", "text is %d bytes; expected at most %d", len(n.Text), maxNoteText)
		}
	}
}
