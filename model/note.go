package model

import (
	"time"

	"github.com/goodput-lab/goodput/scenario"
)

// notePlan is a remark on the timeline (scenario.Note), compiled.
type notePlan struct {
	at   time.Duration
	text string
}

// compileNotes compiles the scenario's notes, in the file's order.
func compileNotes(sc *scenario.Scenario) []notePlan {
	var out []notePlan
	for _, n := range sc.Notes {
		out = append(out, notePlan{at: n.At.Std(), text: n.Text})
	}
	return out
}

// beginNotes schedules the notes inside the run.
func (a *arm) beginNotes() {
	for i, n := range a.p.notes {
		if n.at < a.p.duration {
			a.s.ScheduleAt(n.at, a, evNote, int64(i))
		}
	}
}

// note annotates note i on the arm's timeline: an event of kind note. Nothing else
// changes.
func (a *arm) note(i int) {
	a.rec.Annotate(a.now(), "note", a.p.notes[i].text)
}
