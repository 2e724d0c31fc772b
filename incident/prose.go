package incident

import (
	"fmt"
	"unicode/utf8"
)

// proseField is one prose value of a document and its YAML path.
type proseField struct {
	path string
	text string
}

// prose lists every prose field of the document (the text that may hold placeholders
// and stated figures), in document order.
func (d *Document) prose() []proseField {
	var out []proseField
	add := func(path, text string) {
		if text != "" {
			out = append(out, proseField{path, text})
		}
	}
	add("title", d.Title)
	for i, m := range d.Milestones {
		add(fmt.Sprintf("milestones[%d].note", i), m.Note)
	}
	if d.Tail != nil {
		add("tail.description", d.Tail.Description)
	}
	for i, f := range d.Impact {
		add(fmt.Sprintf("impact[%d].note", i), f.Note)
	}
	for i, f := range d.Facts {
		add(fmt.Sprintf("facts[%d].note", i), f.Note)
	}
	add("summary", d.Summary)
	if d.Series != nil {
		add("series.caption", d.Series.Caption)
	}
	for i, e := range d.Timeline {
		add(fmt.Sprintf("timeline[%d].title", i), e.Title)
		add(fmt.Sprintf("timeline[%d].text", i), e.Text)
	}
	if rc := d.RootCause; rc != nil {
		add("root_cause.headline", rc.Headline)
		add("root_cause.explanation", rc.Explanation)
	}
	for i, f := range d.Factors {
		add(fmt.Sprintf("factors[%d].title", i), f.Title)
		add(fmt.Sprintf("factors[%d].text", i), f.Text)
		add(fmt.Sprintf("factors[%d].accepted", i), f.Accepted)
	}
	for i, s := range d.WentWell {
		add(fmt.Sprintf("went_well[%d]", i), s)
	}
	for i, s := range d.WentWrong {
		add(fmt.Sprintf("went_wrong[%d]", i), s)
	}
	for i, s := range d.GotLucky {
		add(fmt.Sprintf("got_lucky[%d]", i), s)
	}
	for i, a := range d.Actions {
		add(fmt.Sprintf("actions[%d].action", i), a.Action)
		add(fmt.Sprintf("actions[%d].validation", i), a.Validation)
		add(fmt.Sprintf("actions[%d].retirement", i), a.Retirement)
	}
	if r := d.Record; r != nil {
		add("record.initiating_condition", r.InitiatingCondition)
		add("record.amplifiers", r.Amplifiers)
		add("record.stabilization", r.Stabilization)
		add("record.protected_result", r.ProtectedResult)
		add("record.rejected_actions", r.RejectedActions)
		add("record.residual_risks", r.ResidualRisks)
		add("record.revisit_triggers", r.RevisitTriggers)
	}
	for i, x := range d.Decisions {
		p := fmt.Sprintf("decisions[%d].", i)
		add(p+"action", x.Action)
		add(p+"hypothesis", x.Hypothesis)
		add(p+"expected_signal", x.ExpectedSignal)
		add(p+"safety_boundary", x.SafetyBoundary)
		add(p+"rollback", x.Rollback)
	}
	for i, c := range d.Constraints {
		add(fmt.Sprintf("constraints[%d].constraint", i), c.Constraint)
		add(fmt.Sprintf("constraints[%d].evidence", i), c.Evidence)
	}
	if p := d.Public; p != nil {
		add("public.overview", p.Overview)
		add("public.who_was_affected", p.WhoWasAffected)
		add("public.what_happened", p.WhatHappened)
		add("public.prevent_wider_impact", p.PreventWiderImpact)
		add("public.future_mitigation", p.FutureMitigation)
	}
	return out
}

// srcOffset returns the byte offset of a 1-based line and column (counted in characters)
// in the source, or -1.
func (d *Document) srcOffset(line, col int) int {
	j := lineStart(d.src, line)
	if j < 0 {
		return -1
	}
	for c := 1; c < col && j < len(d.src) && d.src[j] != '\n'; c++ {
		_, n := utf8.DecodeRune(d.src[j:])
		j += n
	}
	return j
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// locate returns the source line and column of byte off of the prose value at path. It
// aligns the decoded text with the source, so that it works for plain, quoted, folded
// and literal scalars spread over many lines. When the alignment fails it returns the
// position of the value.
func (d *Document) locate(path, text string, off int) (line, col int) {
	pl, pc := d.Position(path)
	if pl == 0 {
		return 0, 0
	}
	j := d.srcOffset(pl, pc)
	if j < 0 || j >= len(d.src) {
		return pl, pc
	}
	src := d.src
	switch src[j] {
	case '|', '>':
		for j < len(src) && src[j] != '\n' {
			j++
		}
	case '"', '\'':
		j++
	}
	for i := 0; i < off && i < len(text); {
		if isSpace(text[i]) {
			for i < off && isSpace(text[i]) {
				i++
			}
			for j < len(src) && isSpace(src[j]) {
				j++
			}
			continue
		}
		k := j
		for k < len(src) && src[k] != text[i] && k-j < 8 {
			k++
		}
		if k >= len(src) || src[k] != text[i] {
			return pl, pc
		}
		j, i = k+1, i+1
	}
	for j < len(src) && isSpace(src[j]) {
		j++
	}
	if j >= len(src) {
		return pl, pc
	}
	line, start := 1, 0
	for k := 0; k < j; k++ {
		if src[k] == '\n' {
			line, start = line+1, k+1
		}
	}
	return line, utf8.RuneCount(src[start:j]) + 1
}
