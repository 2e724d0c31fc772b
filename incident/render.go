package incident

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"io"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	texttemplate "text/template"
	"time"
)

// ErrNoPublic is returned by [RenderHTML] and [RenderMarkdown] when the public form is
// asked for and the document has no public section.
var ErrNoPublic = errors.New("incident: no public summary")

// RenderOptions selects what [RenderHTML] and [RenderMarkdown] write. The zero value
// renders the internal postmortem page with every link as the document writes it and the
// chart's description inline in Markdown.
type RenderOptions struct {
	// Public renders the public-summary form (title and date line, overview, who was
	// affected, what happened, what was done to prevent wider impact, what will be done)
	// from the document's public section, without internal names, owners or figures.
	Public bool
	// LinkBase is the slash-separated path from the directory the page is written to, to
	// the directory of the document; relative paths the document links (the replay
	// scenario and packet) are prefixed with it. "" links them as written.
	LinkBase string
	// ChartHref is, for Markdown, the address of the impact chart as an SVG file (see
	// [RenderChartSVG]); the chart is then an image with its description as alt text.
	// "" writes the description inline.
	ChartHref string
}

// Validate reports whether the options are usable: LinkBase and ChartHref must be
// relative paths or URLs without spaces or control characters.
func (o RenderOptions) Validate() error {
	for name, v := range map[string]string{"LinkBase": o.LinkBase, "ChartHref": o.ChartHref} {
		if strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f || r == ' ' }) {
			return fmt.Errorf("incident: RenderOptions.%s %q contains a space or a control character", name, v)
		}
	}
	if path.IsAbs(o.LinkBase) || strings.Contains(o.LinkBase, "://") {
		return fmt.Errorf("incident: RenderOptions.LinkBase %q must be a relative path", o.LinkBase)
	}
	return nil
}

//go:embed templates
var templateFS embed.FS

var (
	templates   = htmltemplate.Must(htmltemplate.New("").Funcs(htmlFuncs).ParseFS(templateFS, "templates/*.html.tmpl", "templates/*.svg.tmpl"))
	mdTemplates = texttemplate.Must(texttemplate.New("").Funcs(mdFuncs).ParseFS(templateFS, "templates/*.md.tmpl"))
	pageCSS     = mustRead("templates/style.css")
)

func mustRead(name string) htmltemplate.CSS {
	b, err := templateFS.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return htmltemplate.CSS(b)
}

var htmlFuncs = htmltemplate.FuncMap{
	"css": func() htmltemplate.CSS { return pageCSS },
	"lessons": func(heading, class string, items []string) lessonsView {
		return lessonsView{heading, class, items}
	},
	"section": func(heading string, text []string) publicSection { return publicSection{heading, text} },
}

// publicSection is one question of the public summary and its answer.
type publicSection struct {
	Heading string
	Text    []string
}

// lessonsView is one list of lessons: what went well, wrong, or lucky.
type lessonsView struct {
	Heading, Class string
	Items          []string
}

// RenderHTML writes the document as a self-contained static HTML page: inline CSS and
// SVG, no scripts, no external requests, every user string escaped. The page follows a
// postmortem's reading order — header (id, status, authors, reviewed), title, impact
// figures, summary, impact chart, timeline with phase tags and computed gaps, root
// cause, contributing factors, lessons, action items — then the incident-record
// sections, decision log, constraint ledger and replay link when the document has them.
//
// Prose placeholders such as {{ttd}} are replaced with computed values (see
// [Document.Expand]); a placeholder that cannot be computed is an error and nothing is
// written. With opts.Public it writes the public-summary form, or returns [ErrNoPublic].
func RenderHTML(w io.Writer, doc *Document, opts RenderOptions) error {
	name, data, err := doc.view(opts, "page", "public")
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, name, data); err != nil {
		return fmt.Errorf("incident: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// RenderMarkdown writes the same content as [RenderHTML] as Markdown: tables for the
// impact figures, the action items and the constraint ledger; the impact chart as an
// image link to opts.ChartHref with its generated description as alt text, or the
// description alone. User text is escaped so that it reads as written.
func RenderMarkdown(w io.Writer, doc *Document, opts RenderOptions) error {
	name, data, err := doc.view(opts, "page.md", "public.md")
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := mdTemplates.ExecuteTemplate(&buf, name, data); err != nil {
		return fmt.Errorf("incident: %w", err)
	}
	_, err = w.Write(squeezeBlankLines(buf.Bytes()))
	return err
}

// view validates opts and returns the template to execute (page, or public with
// opts.Public) and the data it renders.
func (doc *Document) view(opts RenderOptions, page, public string) (string, any, error) {
	if err := opts.Validate(); err != nil {
		return "", nil, err
	}
	if opts.Public {
		pv, err := doc.publicView()
		return public, pv, err
	}
	v, err := doc.pageView(opts)
	return page, v, err
}

var blankRun = regexp.MustCompile(`\n{3,}`)

func squeezeBlankLines(b []byte) []byte {
	b = blankRun.ReplaceAll(b, []byte("\n\n"))
	return append(bytes.TrimRight(b, "\n"), '\n')
}

// name is the document's file name, or its ID when it was not read from a file.
func (d *Document) name() string {
	if d.file != "" {
		return d.file
	}
	if d.ID != "" {
		return d.ID
	}
	return "<incident>"
}

// pageView is the internal page, ready for the templates: every string is display text.
type pageView struct {
	ID, Title, Status, StatusClass, Severity string
	Authors, Reviewers, Services             string
	Reviewed, ReviewedISO                    string
	Figures                                  []figureView
	Summary                                  []string
	Chart, ChartNarrow                       *chartView
	ChartHref                                string
	TimelineHeading                          string
	Timeline                                 []entryView
	Tail                                     *tailView
	RootCause                                *rootCauseView
	Factors                                  []factorView
	WentWell, WentWrong, GotLucky            []string
	Actions                                  []actionView
	Record                                   []recordSection
	Decisions                                []decisionView
	Constraints                              []constraintView
	Milestones                               []milestoneView
	Replay                                   *replayView
	Links                                    []Link
	Source                                   string // the document's file name, for the footer
}

type figureView struct{ Label, Value, Unit, Note string }

type entryView struct {
	Time, Datetime, Day string // Day is set on the first entry of each display-zone day when the timeline spans days
	Since               string // the gap from the previous entry, "+39 min"
	Title               string
	Tag, TagClass       string
	Text                []string
	Uncertain           string // the milestone's uncertainty interval and conflicting values, if any
}

type tailView struct {
	From, To, Duration string
	Text               []string
}

type rootCauseView struct {
	Headline    string
	Explanation []string
}

type factorView struct {
	ID, Title string
	Text      []string
	Accepted  string
	Actions   string // the IDs of the action items that address it
}

type actionView struct {
	ID, Action, Owner, Due, DueISO, Status, StatusClass, Done string
	Validation, Retirement, Addresses, Type, Ticket           string
}

type recordSection struct {
	Heading string
	Text    []string
}

type decisionView struct {
	Time, Datetime, Generation                                          string
	Action, Hypothesis, ExpectedSignal, SafetyBoundary, Owner, Rollback string
}

type constraintView struct {
	Time, Datetime, Constraint, Evidence string
}

type milestoneView struct {
	Time, Datetime, Name, Note, Source, Uncertain string
}

type replayView struct {
	Scenario, ScenarioHref, Packet, PacketHref string
	// ReportHref is the replay's report page, report.html beside a packet.json (which
	// `goodput replay --out` writes together), or "".
	ReportHref string
	Claims     []string
}

// expander expands prose and remembers every placeholder that could not be computed.
type expander struct {
	d    *Document
	errs []error
}

func (e *expander) text(s string) string {
	out, err := e.d.Expand(s)
	if err != nil {
		e.errs = append(e.errs, err)
	}
	return strings.TrimSpace(out)
}

func (e *expander) paras(s string) []string { return paragraphs(e.text(s)) }

func (e *expander) err() error {
	if len(e.errs) == 0 {
		return nil
	}
	return fmt.Errorf("incident: %s: cannot render: %w", e.d.name(), errors.Join(e.errs...))
}

// paragraphs splits prose into paragraphs: at blank lines when there are any (literal
// block scalars), otherwise at line breaks (folded scalars keep one "\n" per blank line).
func paragraphs(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var chunks []string
	if blankLine.MatchString(s) {
		chunks = blankLine.Split(s, -1)
	} else {
		chunks = strings.Split(s, "\n")
	}
	var out []string
	for _, c := range chunks {
		if c = strings.Join(strings.Fields(c), " "); c != "" {
			out = append(out, c)
		}
	}
	return out
}

var blankLine = regexp.MustCompile(`\n[ \t]*\n`)

func (d *Document) pageView(opts RenderOptions) (*pageView, error) {
	e := &expander{d: d}
	v := &pageView{
		ID: d.ID, Title: e.text(d.Title), Status: d.Status.Label(), StatusClass: string(d.Status),
		Severity: d.Severity, Authors: strings.Join(d.Authors, ", "), Reviewers: strings.Join(d.Reviewers, ", "),
		Services: strings.Join(d.Services, ", "), Links: d.Links, Source: filepath.Base(d.file),
	}
	if v.Source == "." {
		v.Source = ""
	}
	if !d.Reviewed.IsZero() {
		v.Reviewed, v.ReviewedISO = d.Reviewed.Format("2 Jan 2006"), d.Reviewed.String()
	}
	for _, f := range d.Impact {
		fv := figureView{Label: f.Label, Note: e.text(f.Note)}
		if fv.Label == "" {
			fv.Label = capitalise(strings.ReplaceAll(f.ID, "_", " "))
		}
		val, err := d.Eval(f.ID)
		if err != nil {
			e.errs = append(e.errs, fmt.Errorf("impact figure %s: %v", f.ID, err))
		}
		fv.Value = val.Text
		if strings.Contains(f.Unit, "/") && val.Kind == KindNumber {
			fv.Unit = f.Unit
		}
		v.Figures = append(v.Figures, fv)
	}
	v.Summary = e.paras(d.Summary)
	if spec, ok := d.chart(); ok {
		v.Chart = d.layoutChart(spec, "impact-chart", chartWide)
		v.ChartNarrow = d.layoutChart(spec, "impact-chart-narrow", chartNarrow)
		v.ChartNarrow.Class = "chart-narrow"
		v.Chart.Class = "chart-wide"
		v.ChartHref = opts.ChartHref
	}
	v.TimelineHeading, v.Timeline = d.timelineView(e)
	if d.Tail != nil {
		if span := d.Derived().Tail; span != nil {
			v.Tail = &tailView{From: d.clock(span.Start), To: d.clock(span.End), Duration: span.String(), Text: e.paras(d.Tail.Description)}
			if d.spansDays() {
				v.Tail.From, v.Tail.To = d.stamp(span.Start), d.stamp(span.End)
			}
		}
	}
	if rc := d.RootCause; rc != nil {
		v.RootCause = &rootCauseView{Headline: e.text(rc.Headline), Explanation: e.paras(rc.Explanation)}
	}
	for _, f := range d.Factors {
		fv := factorView{ID: f.ID, Title: e.text(f.Title), Text: e.paras(f.Text), Accepted: e.text(f.Accepted)}
		var ids []string
		for _, a := range d.Actions {
			for _, id := range a.Addresses {
				if id == f.ID {
					ids = append(ids, a.ID)
				}
			}
		}
		fv.Actions = strings.Join(ids, ", ")
		v.Factors = append(v.Factors, fv)
	}
	for _, s := range d.WentWell {
		v.WentWell = append(v.WentWell, e.text(s))
	}
	for _, s := range d.WentWrong {
		v.WentWrong = append(v.WentWrong, e.text(s))
	}
	for _, s := range d.GotLucky {
		v.GotLucky = append(v.GotLucky, e.text(s))
	}
	year := d.year()
	for _, a := range d.Actions {
		av := actionView{ID: a.ID, Action: e.text(a.Action), Owner: a.Owner, Status: a.Status.Label(), StatusClass: string(a.Status),
			Validation: e.text(a.Validation), Retirement: e.text(a.Retirement), Addresses: strings.Join(a.Addresses, ", "),
			Type: a.Type, Ticket: a.Ticket}
		if !a.Due.IsZero() {
			av.Due, av.DueISO = shortDate(a.Due, year), a.Due.String()
		}
		if !a.Done.IsZero() {
			av.Done = shortDate(a.Done, year)
		}
		v.Actions = append(v.Actions, av)
	}
	if r := d.Record; r != nil {
		for _, s := range []struct{ h, t string }{
			{"Initiating condition", r.InitiatingCondition},
			{"Amplifiers", r.Amplifiers},
			{"Stabilisation", r.Stabilization},
			{"Protected result", r.ProtectedResult},
			{"Rejected actions", r.RejectedActions},
			{"Residual risks", r.ResidualRisks},
			{"Revisit triggers", r.RevisitTriggers},
		} {
			if p := e.paras(s.t); len(p) > 0 {
				v.Record = append(v.Record, recordSection{s.h, p})
			}
		}
	}
	for _, x := range d.Decisions {
		dv := decisionView{Time: d.stamp(x.At), Datetime: x.At.UTC().Format(time.RFC3339),
			Action: e.text(x.Action), Hypothesis: e.text(x.Hypothesis), ExpectedSignal: e.text(x.ExpectedSignal),
			SafetyBoundary: e.text(x.SafetyBoundary), Owner: x.Owner, Rollback: e.text(x.Rollback)}
		if x.Generation != 0 {
			dv.Generation = fmt.Sprint(x.Generation)
		}
		v.Decisions = append(v.Decisions, dv)
	}
	for _, c := range d.Constraints {
		v.Constraints = append(v.Constraints, constraintView{Time: d.stamp(c.At), Datetime: c.At.UTC().Format(time.RFC3339),
			Constraint: e.text(c.Constraint), Evidence: e.text(c.Evidence)})
	}
	for _, m := range d.Milestones {
		v.Milestones = append(v.Milestones, milestoneView{Time: d.stamp(m.At), Datetime: m.At.UTC().Format(time.RFC3339),
			Name: capitalise(milestoneWords(m.Name)), Note: e.text(m.Note), Source: m.Source, Uncertain: d.uncertainty(m)})
	}
	if r := d.Replay; r != nil {
		rv := &replayView{Scenario: r.Scenario, ScenarioHref: linkPath(opts.LinkBase, r.Scenario),
			Packet: r.Packet, PacketHref: linkPath(opts.LinkBase, r.Packet)}
		if dir, file := path.Split(r.Packet); file == "packet.json" {
			rv.ReportHref = linkPath(opts.LinkBase, dir+"report.html")
		}
		for _, c := range r.Claims {
			rv.Claims = append(rv.Claims, c.Assert)
		}
		v.Replay = rv
	}
	return v, e.err()
}

// linkPath prefixes a relative path the document names with base.
func linkPath(base, p string) string {
	if p == "" || base == "" || path.IsAbs(p) || strings.Contains(p, "://") {
		return p
	}
	return path.Join(base, p)
}

// year is the year of the incident (its first milestone), for dates shown without one.
func (d *Document) year() int {
	if len(d.Milestones) > 0 {
		return d.Milestones[0].At.In(d.Location()).Year()
	}
	return d.Reviewed.Year
}

// shortDate formats a date as "19 Sep", with the year when it is not the incident's.
func shortDate(x Date, year int) string {
	if x.Year == year {
		return x.Format("2 Jan")
	}
	return x.Format("2 Jan 2006")
}

// phaseTag returns the tag shown on a timeline entry: a computed gap for the milestones
// that end one ("33 min to detect", "3h 47m total"), the phase's name otherwise.
func (d *Document) phaseTag(phase string, dv Derived) (tag, class string) {
	if phase == "" {
		return "", ""
	}
	if _, ok := d.Milestone(phase); ok {
		class = "milestone"
	} else {
		class = "phase"
	}
	gap := func(s *Span, suffix string) (string, string) {
		if s == nil || s.Duration() < 0 {
			return capitalise(milestoneWords(phase)), class
		}
		return s.String() + suffix, class + " gap"
	}
	switch phase {
	case MilestoneDetected:
		return gap(dv.TTD, " to detect")
	case MilestoneAcknowledged:
		return gap(dv.TTA, " to acknowledge")
	case MilestoneMitigated:
		return gap(dv.Duration, " total")
	case MilestoneResolved:
		return gap(dv.TTR, " to resolve")
	}
	return capitalise(milestoneWords(phase)), class
}

func (d *Document) timelineView(e *expander) (string, []entryView) {
	if len(d.Timeline) == 0 {
		return "", nil
	}
	loc := d.Location()
	dv := d.Derived()
	first := d.Timeline[0].At.In(loc)
	last := d.Timeline[len(d.Timeline)-1].At.In(loc)
	sameDay := first.Format(time.DateOnly) == last.Format(time.DateOnly)
	heading := "Timeline · "
	switch {
	case sameDay:
		heading += first.Format("2 January")
	case first.Year() == last.Year():
		heading += first.Format("2 January") + " – " + last.Format("2 January")
	default:
		heading += first.Format("2 January 2006") + " – " + last.Format("2 January 2006")
	}
	heading += ", " + loc.String()
	var out []entryView
	prevDay := ""
	for i, en := range d.Timeline {
		t := en.At.In(loc)
		ev := entryView{Time: t.Format("15:04"), Datetime: en.At.UTC().Format(time.RFC3339), Title: e.text(en.Title), Text: e.paras(en.Text)}
		if day := t.Format(time.DateOnly); !sameDay && day != prevDay {
			ev.Day, prevDay = t.Format("2 Jan"), day
			if first.Year() != last.Year() {
				ev.Day = t.Format("2 Jan 2006")
			}
		}
		if i > 0 {
			if g := en.At.Sub(d.Timeline[i-1].At); g > 0 {
				ev.Since = "+" + FormatDuration(g)
			}
		}
		ev.Tag, ev.TagClass = d.phaseTag(en.Phase, dv)
		if m, ok := d.Milestone(en.Phase); ok {
			ev.Uncertain = d.uncertainty(m)
		}
		out = append(out, ev)
	}
	return heading, out
}

// publicView is the public-summary form.
type publicView struct {
	Title, Dateline, Datetime                                   string
	Overview, WhoWasAffected, WhatHappened, Prevent, FutureWork []string
}

func (d *Document) publicView() (*publicView, error) {
	p := d.Public
	if p == nil {
		return nil, fmt.Errorf("%w in %s; add a public section (overview, who_was_affected, what_happened, …)", ErrNoPublic, d.name())
	}
	e := &expander{d: d}
	v := &publicView{Title: e.text(d.Title), Overview: e.paras(p.Overview), WhoWasAffected: e.paras(p.WhoWasAffected),
		WhatHappened: e.paras(p.WhatHappened), Prevent: e.paras(p.PreventWiderImpact), FutureWork: e.paras(p.FutureMitigation)}
	v.Dateline, v.Datetime = d.dateline()
	return v, e.err()
}

// dateline is the public report's date line: "17 September 2024, 05:15 – 07:30 UTC".
func (d *Document) dateline() (text, datetime string) {
	start, ok := d.Instant(MilestoneImpactStart)
	if !ok {
		return "", ""
	}
	loc := d.Location()
	s := start.In(loc)
	text = s.Format("2 January 2006, 15:04")
	end, ok := d.Instant(MilestoneMitigated)
	if !ok {
		end, ok = d.Instant(MilestoneResolved)
	}
	if ok {
		en := end.In(loc)
		if en.Format(time.DateOnly) == s.Format(time.DateOnly) {
			text += " – " + en.Format("15:04")
		} else {
			text += " – " + en.Format("2 January 2006, 15:04")
		}
	}
	return text + " " + loc.String(), start.UTC().Format(time.RFC3339)
}

// uncertainty describes what is uncertain about a milestone's instant: "time uncertain:
// between 00:00 and 23:59; also recorded as 23:13 (status page)", or "".
func (d *Document) uncertainty(m Milestone) string {
	loc := d.Location()
	at := func(t time.Time) string {
		if t.In(loc).Format(time.DateOnly) == m.At.In(loc).Format(time.DateOnly) {
			return t.In(loc).Format("15:04")
		}
		return t.In(loc).Format("2 Jan 15:04")
	}
	var parts []string
	if m.Earliest != nil || m.Latest != nil {
		switch {
		case m.Earliest != nil && m.Latest != nil:
			parts = append(parts, "time uncertain: between "+at(*m.Earliest)+" and "+at(*m.Latest))
		case m.Earliest != nil:
			parts = append(parts, "time uncertain: not before "+at(*m.Earliest))
		default:
			parts = append(parts, "time uncertain: not after "+at(*m.Latest))
		}
	}
	for _, a := range m.Alternatives {
		s := "also recorded as " + at(a.At)
		if a.Source != "" {
			s += " (" + a.Source + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}
