package model

import (
	"bytes"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/packet"
)

// TestNotes: each note is an event of kind note at its instant in every arm, and the run
// is otherwise byte for byte the run without notes.
func TestNotes(t *testing.T) {
	run := func(src string) *packet.Packet {
		t.Helper()
		pk, err := Run(t.Context(), decode(t, src), Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return pk
	}
	with := run(small + "notes:\n  - {at: 7s, text: slow from here}\n  - {at: 0s, text: start}\n")
	plain := run(small)
	for i, a := range with.Arms {
		var notes []packet.Event
		var others []packet.Event
		for _, e := range a.Events {
			if e.Kind == "note" {
				notes = append(notes, e)
			} else {
				others = append(others, e)
			}
		}
		if len(notes) != 2 || notes[0].T != 0 || notes[0].Text != "start" || notes[1].T != 7*time.Second || notes[1].Text != "slow from here" {
			t.Errorf("%s: notes %+v; want start at 0s and slow from here at 7s", a.Name, notes)
		}
		if len(others) != len(plain.Arms[i].Events) {
			t.Errorf("%s: %d other events, %d without notes", a.Name, len(others), len(plain.Arms[i].Events))
		}
	}
	var w, p bytes.Buffer
	if err := with.WriteJSON(&w); err != nil {
		t.Fatal(err)
	}
	if err := plain.WriteJSON(&p); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(w.Bytes(), p.Bytes()) {
		t.Error("packet.json differs with notes")
	}
	w.Reset()
	p.Reset()
	if err := packet.WriteSeriesCSV(&w, with.Arms...); err != nil {
		t.Fatal(err)
	}
	if err := packet.WriteSeriesCSV(&p, plain.Arms...); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(w.Bytes(), p.Bytes()) {
		t.Error("series.csv differs with notes")
	}
}
