package incident

import (
	"fmt"
	"sort"
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
	j := d.lineOffset(line)
	if j < 0 {
		return -1
	}
	for c := 1; c < col && j < len(d.src) && d.src[j] != '\n'; c++ {
		_, n := utf8.DecodeRune(d.src[j:])
		j += n
	}
	return j
}

// lineOffset returns the byte offset in the source at which 1-based line begins, or -1.
func (d *Document) lineOffset(line int) int {
	if line < 1 || line > len(d.lines) {
		return -1
	}
	return d.lines[line-1]
}

// lineOf returns the 1-based line of source offset j and the offset at which it begins.
func (d *Document) lineOf(j int) (line, start int) {
	// The last line beginning at or before j (lines[0] is 0, so there is one).
	line = sort.Search(len(d.lines), func(i int) bool { return d.lines[i] > j })
	return line, d.lines[line-1]
}

// lineStarts returns the byte offset at which each line of src begins.
func lineStarts(src []byte) []int {
	starts := []int{0}
	for k, b := range src {
		if b == '\n' {
			starts = append(starts, k+1)
		}
	}
	return starts
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// locate returns the source line and column of byte off of the prose value at path. It
// aligns the decoded text with the source, so that it works for plain, quoted, folded
// and literal scalars spread over many lines. When the alignment fails it returns the
// position of the value. To place many offsets of one value, use a [locator].
func (d *Document) locate(path, text string, off int) (line, col int) {
	l := d.locator(path, text)
	return l.at(off)
}

// locator places byte offsets of one prose value in the source. Offsets given in
// increasing order cost one pass over the value in all: each call resumes the alignment
// of the decoded text with the source where the previous call stopped. An offset before
// the previous one starts again from the value's beginning.
type locator struct {
	d      *Document
	text   string
	pl, pc int  // the value's position; pl is 0 when it is unknown
	begun  bool // i and j hold an alignment
	i, j   int  // text offset i is aligned with source offset j
	// failAt is the text offset whose character the alignment could not find in the
	// source, or -1: offsets after it get (pl, pc).
	failAt int
	// The column count of the last position placed: rc characters from the start of
	// line cl up to source offset cj, where a character begins.
	cl, cj, rc int
}

// locator returns a locator for the prose value text at path.
func (d *Document) locator(path, text string) *locator {
	pl, pc := d.Position(path)
	return &locator{d: d, text: text, pl: pl, pc: pc, failAt: -1}
}

// at returns the source line and column of byte off of the value: see [Document.locate].
func (l *locator) at(off int) (line, col int) {
	if l.pl == 0 {
		return 0, 0
	}
	if !l.begun || off < l.i {
		if !l.start() {
			return l.pl, l.pc
		}
	}
	if l.failAt >= 0 && off > l.failAt {
		return l.pl, l.pc
	}
	src, text := l.d.src, l.text
	i, j := l.i, l.j
	for i < off && i < len(text) {
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
			l.failAt = i // l.i and l.j still hold the alignment before it
			return l.pl, l.pc
		}
		j, i = k+1, i+1
	}
	l.i, l.j = i, j
	for j < len(src) && isSpace(src[j]) {
		j++
	}
	if j >= len(src) {
		return l.pl, l.pc
	}
	line, start := l.d.lineOf(j)
	if line != l.cl || j < l.cj {
		l.cl, l.cj, l.rc = line, start, 0
	}
	// Count the characters up to j as utf8.RuneCount(src[start:j]) would, keeping the
	// count at the last whole character for the next call: j may fall inside one.
	for l.cj < j {
		_, n := utf8.DecodeRune(src[l.cj:])
		if l.cj+n > j {
			break
		}
		l.cj, l.rc = l.cj+n, l.rc+1
	}
	return line, l.rc + utf8.RuneCount(src[l.cj:j]) + 1
}

// start aligns the beginning of the value with the source: after the header line of a
// block scalar, inside the quotes of a quoted one. It reports false when the value's
// position is not in the source.
func (l *locator) start() bool {
	l.begun, l.failAt, l.i, l.cl, l.cj, l.rc = false, -1, 0, 0, 0, 0
	src := l.d.src
	j := l.d.srcOffset(l.pl, l.pc)
	if j < 0 || j >= len(src) {
		return false
	}
	switch src[j] {
	case '|', '>':
		for j < len(src) && src[j] != '\n' {
			j++
		}
	case '"', '\'':
		j++
	}
	l.begun, l.j = true, j
	return true
}
