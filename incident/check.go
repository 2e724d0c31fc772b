package incident

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Check checks a document against its own data and returns every problem found, in
// source order. It never modifies the document. The document is fine when no
// diagnostic has Severity [Error]; see [HasErrors].
//
// Check reports:
//
//   - missing required fields (id, status, title, milestones; an action item's owner,
//     due date, status and validation; the decision log's fields …);
//
//   - milestones, timeline entries, decisions and ledger rows out of chronological order,
//     and known milestones out of their canonical order (impact_start ≤ detected ≤ …);
//
//   - a timeline entry tagged with a milestone at another time than the milestone, unless
//     that time is recorded as an alternative with its source; duplicate milestones and
//     alternatives without provenance;
//
//   - claims whose stated figure (a duration, percentage, ratio, fraction or count,
//     written in digits or words, with or without a hedge such as "about" or "nearly")
//     disagrees with the value it references, at the line and column of the figure in
//     the prose; claims whose text no longer occurs in the prose;
//
//   - a percentage next to "X of Y" counts that is not X/Y;
//
//   - unknown placeholders;
//
//   - series markers at other instants than their milestone or stating other values than
//     the series has there, and a stated peak that is not the series' maximum;
//
//   - action items that are done without a done date, open and overdue at the review
//     date, vague, or without measurable validation evidence; contributing factors that
//     no action item addresses and that are not explicitly accepted;
//
//   - replay claims that the linked packet contradicts (a warning when the packet does
//     not exist yet), and constraint-ledger rows whose replay part names another binding
//     constraint than the linked replay's series for most of the row's interval;
//
//   - figures the prose states without tying them to the data: a duration (of a minute or
//     more) that matches no interval between recorded instants, a ratio without a claim,
//     a clock time that is no recorded instant (warnings with [CheckOptions.Lenient]).
//
// Check is CheckWith with the zero CheckOptions.
func Check(doc *Document) []Diagnostic { return CheckWith(doc, CheckOptions{}) }

// CheckOptions change what [CheckWith] reports; the zero value is the full check.
type CheckOptions struct {
	// Lenient reports a figure the prose states without tying it to the data (a duration
	// that matches no interval, a ratio without a claim, a clock time that is no recorded
	// instant) as a warning instead of an error: for drafts whose figures are not all
	// tied yet.
	Lenient bool
}

// CheckWith is [Check] with options.
func CheckWith(doc *Document, opts CheckOptions) []Diagnostic {
	c := &checker{doc: doc, opts: opts, covered: map[string][][2]int{}}
	c.top()
	c.milestones()
	c.tail()
	c.figures()
	c.series()
	c.timeline()
	c.factorsAndActions()
	c.decisionLog()
	c.public()
	c.claims()
	c.replay() // before scanProse: a replay claim's text ties the figures it states to the packet
	c.scanProse()
	c.constraintReplays()
	slices.SortStableFunc(c.diags, func(a, b Diagnostic) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
	return c.diags
}

// HasErrors reports whether any diagnostic is an error.
func HasErrors(diags []Diagnostic) bool {
	return slices.ContainsFunc(diags, func(d Diagnostic) bool { return d.Severity == Error })
}

type checker struct {
	doc     *Document
	opts    CheckOptions
	multi   *bool // whether the document spans more than one day, once computed
	diags   []Diagnostic
	covered map[string][][2]int // prose path -> byte ranges tied to the data by claims or placeholders

	normalized []normalizedField // the prose with white space collapsed, for find
}

type normalizedField struct {
	field proseField
	text  string
	idx   []int
}

// at returns the position of path, or of its closest recorded parent.
func (c *checker) at(path string) (int, int) {
	for p := path; p != ""; {
		if l, col := c.doc.Position(p); l > 0 {
			return l, col
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return 0, 0
}

func (c *checker) add(sev Severity, line, col int, msg string) {
	c.diags = append(c.diags, Diagnostic{File: c.doc.file, Line: line, Col: col, Severity: sev, Message: msg})
}

func (c *checker) errf(path, format string, args ...any) {
	l, col := c.at(path)
	c.add(Error, l, col, path+": "+fmt.Sprintf(format, args...))
}

func (c *checker) warnf(path, format string, args ...any) {
	l, col := c.at(path)
	c.add(Warning, l, col, path+": "+fmt.Sprintf(format, args...))
}

// line returns the line of path for cross-references in messages ("line 24"), or "".
func (c *checker) line(path string) string {
	if l, _ := c.doc.Position(path); l > 0 {
		return fmt.Sprintf(", line %d", l)
	}
	return ""
}

// when formats an instant for messages, in the display zone, with the date when the
// document spans more than one day.
func (c *checker) when(t time.Time) string {
	loc := c.doc.Location()
	layout := "15:04 MST"
	if c.multiDay() {
		layout = "2 Jan 15:04 MST"
	}
	return t.In(loc).Format(layout)
}

func (c *checker) multiDay() bool {
	if c.multi == nil {
		m := c.doc.spansDays()
		c.multi = &m
	}
	return *c.multi
}

func (d *Document) spansDays() bool {
	loc := d.Location()
	var first Date
	for _, t := range d.instants() {
		day := DateOf(t.at.In(loc))
		if first.IsZero() {
			first = day
		} else if day != first {
			return true
		}
	}
	return false
}

var nameRe = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

func (c *checker) top() {
	d := c.doc
	if strings.TrimSpace(d.ID) == "" {
		c.errf("id", "missing; expected the incident identifier, e.g. INC-2026-0912")
	}
	if strings.TrimSpace(d.Title) == "" {
		c.errf("title", "missing; expected the full title")
	}
	if d.Status == "" {
		c.errf("status", "missing; expected one of investigating, identified, mitigated, resolved, closed")
	}
	if len(d.Milestones) == 0 {
		c.errf("milestones", "missing; expected at least impact_start, with detected and mitigated when known")
	}
	if d.TimeZone != "" {
		if _, err := time.LoadLocation(d.TimeZone); err != nil || strings.EqualFold(d.TimeZone, "local") {
			c.errf("time_zone", "unknown time zone %q; expected an IANA name such as UTC or Europe/Dublin (times display in UTC meanwhile)", d.TimeZone)
		}
	}
	if d.Status == StatusResolved || d.Status == StatusClosed {
		_, m := d.Milestone(MilestoneMitigated)
		_, r := d.Milestone(MilestoneResolved)
		if !m && !r {
			c.errf("status", "is %s but milestones records neither mitigated nor resolved", d.Status)
		}
	}
	if start, ok := d.Milestone(MilestoneImpactStart); ok && !d.Reviewed.IsZero() {
		if d.Reviewed.Before(DateOf(start.At.In(d.Location()))) {
			c.errf("reviewed", "%s is before the impact started (%s)", d.Reviewed, start.At.In(d.Location()).Format(time.DateOnly))
		}
	}
	for i, l := range d.Links {
		p := fmt.Sprintf("links[%d]", i)
		if l.Title == "" {
			c.errf(p+".title", "missing; expected the link text")
		}
		if l.URL == "" {
			c.errf(p+".url", "missing; expected the address")
		}
	}
}

func (c *checker) milestones() {
	ms := c.doc.Milestones
	first := map[string]int{}
	reported := map[int]bool{}
	prev := -1
	for i, m := range ms {
		p := fmt.Sprintf("milestones[%d]", i)
		switch {
		case m.Name == "":
			c.errf(p+".name", "missing; expected a milestone name such as impact_start or detected")
		case !nameRe.MatchString(m.Name):
			c.errf(p+".name", "%q is not a snake_case name; expected e.g. impact_start", m.Name)
		default:
			if j, dup := first[m.Name]; dup {
				c.errf(p+".name", "milestone %s is recorded twice (also at milestones[%d]%s); record a conflicting value under alternatives, with its source", m.Name, j, c.line(fmt.Sprintf("milestones[%d]", j)))
			} else {
				first[m.Name] = i
			}
		}
		if m.At.IsZero() {
			c.errf(p+".at", "missing; expected the instant in UTC, e.g. 2026-09-12T09:14:00Z")
			continue
		}
		if prev >= 0 && m.At.Before(ms[prev].At) {
			c.errf(p+".at", "%s (%s) is earlier than %s (%s%s) listed before it; milestones must be in chronological order", m.Name, c.when(m.At), ms[prev].Name, c.when(ms[prev].At), c.line(fmt.Sprintf("milestones[%d].at", prev)))
			reported[i] = true
		} else {
			prev = i
		}
		if m.Earliest != nil && m.Earliest.After(m.At) {
			c.errf(p+".earliest", "%s is after at (%s); expected earliest ≤ at ≤ latest", c.when(*m.Earliest), c.when(m.At))
		}
		if m.Latest != nil && m.Latest.Before(m.At) {
			c.errf(p+".latest", "%s is before at (%s); expected earliest ≤ at ≤ latest", c.when(*m.Latest), c.when(m.At))
		}
		if len(m.Alternatives) > 0 && strings.TrimSpace(m.Source) == "" {
			c.errf(p, "%s records conflicting values but no source for at; conflicting values are allowed only when each has its provenance: add source", m.Name)
		}
		for k, a := range m.Alternatives {
			if strings.TrimSpace(a.Source) == "" {
				c.errf(fmt.Sprintf("%s.alternatives[%d]", p, k), "alternative %s has no source; conflicting values are allowed only with provenance", c.when(a.At))
			}
		}
	}
	// Canonical order of the known milestones.
	rank := map[string]int{}
	for i, n := range MilestoneOrder {
		rank[n] = i
	}
	for i, b := range ms {
		rb, known := rank[b.Name]
		if !known || b.At.IsZero() || reported[i] || first[b.Name] != i {
			continue
		}
		worst := -1
		for j, a := range ms {
			ra, ok := rank[a.Name]
			if !ok || ra >= rb || a.At.IsZero() || first[a.Name] != j || !a.At.After(b.At) {
				continue
			}
			if worst < 0 || a.At.After(ms[worst].At) {
				worst = j
			}
		}
		if worst >= 0 {
			a := ms[worst]
			c.errf(fmt.Sprintf("milestones[%d].at", i), "%s (%s) is earlier than %s (%s%s); milestones follow the order %s", b.Name, c.when(b.At), a.Name, c.when(a.At), c.line(fmt.Sprintf("milestones[%d].at", worst)), strings.Join(MilestoneOrder, " ≤ "))
		}
	}
}

func (c *checker) tail() {
	t := c.doc.Tail
	if t == nil {
		return
	}
	start, ok := c.doc.Instant("tail_start")
	if !ok {
		c.errf("tail", "has no start and there is no mitigated milestone; add tail.start")
		return
	}
	if t.End.IsZero() {
		c.errf("tail.end", "missing; expected when the residual impact ended")
		return
	}
	if t.End.Before(start) {
		c.errf("tail.end", "%s is before the tail's start (%s)", c.when(t.End), c.when(start))
	}
}

func (c *checker) figures() {
	d := c.doc
	seen := map[string]string{}
	check := func(list string, figs []Figure) {
		for i, f := range figs {
			p := fmt.Sprintf("%s[%d]", list, i)
			switch {
			case f.ID == "":
				c.errf(p+".id", "missing; expected a snake_case id such as failed_checkouts")
			case !nameRe.MatchString(f.ID):
				c.errf(p+".id", "%q is not a snake_case id", f.ID)
			case slices.Contains(reserved, f.ID):
				c.errf(p+".id", "%q is a reserved name (%s); choose another id", f.ID, strings.Join(reserved, ", "))
			default:
				if q, dup := seen[f.ID]; dup {
					c.errf(p+".id", "%q is already used by %s; ids are unique across impact and facts", f.ID, q)
				}
				if _, clash := d.Milestone(f.ID); clash {
					c.errf(p+".id", "%q is also a milestone name; choose another id", f.ID)
				}
				seen[f.ID] = p
			}
			n := 0
			for _, set := range []bool{f.Value != nil, f.Computed != "", f.Display != ""} {
				if set {
					n++
				}
			}
			switch {
			case n == 0:
				c.errf(p, "%s has no value; give value (a number), computed (a reference such as duration) or display (e.g. None)", f.ID)
			case f.Value != nil && f.Computed != "":
				c.errf(p+".value", "%s is both typed (value) and computed (%s); a derived value is computed, never typed: remove value", f.ID, f.Computed)
			}
			if f.Computed != "" && f.Value == nil {
				if _, err := d.quantity(f.ID); err != nil {
					c.errf(p+".computed", "%v", err)
				}
			}
			if f.Of != "" {
				whole, ok := d.figure(f.Of)
				switch {
				case !ok:
					c.errf(p+".of", "unknown figure %q; expected the id of the figure this one is a part of", f.Of)
				case f.Value != nil && whole.Value != nil && *f.Value > *whole.Value:
					c.errf(p+".value", "%s (%s) exceeds its whole %s (%s)", f.ID, FormatNumber(*f.Value), f.Of, FormatNumber(*whole.Value))
				}
			}
			if len(f.Alternatives) > 0 && strings.TrimSpace(f.Source) == "" {
				c.errf(p, "%s records conflicting values but no source for value; conflicting values are allowed only when each has its provenance: add source", f.ID)
			}
			for k, a := range f.Alternatives {
				if strings.TrimSpace(a.Source) == "" {
					c.errf(fmt.Sprintf("%s.alternatives[%d]", p, k), "alternative %s has no source; conflicting values are allowed only with provenance", FormatNumber(a.Value))
				}
			}
		}
	}
	check("impact", d.Impact)
	check("facts", d.Facts)
}

// statedNumber returns a number typed in YAML as a stated figure with the precision of
// its shortest decimal form (52 → 1, 0.6 → 0.1).
func statedNumber(x float64, unit string) stated {
	s := strconv.FormatFloat(x, 'f', -1, 64)
	prec := 1.0
	if _, frac, ok := strings.Cut(s, "."); ok {
		prec = 1 / pow10(len(frac))
	}
	kind := figCount
	if unit == "%" {
		kind = figPercent
	}
	return stated{kind: kind, value: x, prec: prec, text: formatWithUnit(x, unit)}
}

func pow10(n int) float64 {
	p := 1.0
	for range n {
		p *= 10
	}
	return p
}

func (c *checker) series() {
	d := c.doc
	s := d.Series
	if s == nil {
		return
	}
	if s.Unit == "" {
		c.errf("series.unit", "missing; expected the unit of the values, e.g. %%")
	}
	line, _ := d.Position("series.points")
	inline := line > 0
	if s.CSV != "" && inline {
		c.errf("series.points", "both csv and points are given; give one of them")
		return
	}
	if len(s.Points) == 0 {
		if s.CSV != "" {
			c.warnf("series.csv", "%s was not read (the document was decoded, not loaded); the series is not checked", s.CSV)
		} else {
			c.errf("series", "has no points; expected points or csv")
		}
		return
	}
	for i := 1; i < len(s.Points) && inline; i++ {
		if !s.Points[i].At.After(s.Points[i-1].At) {
			c.errf(fmt.Sprintf("series.points[%d].at", i), "%s is not after the previous point (%s); expected points in strictly increasing time order", c.when(s.Points[i].At), c.when(s.Points[i-1].At))
		}
	}
	peak, _ := s.Max()
	source := "the series"
	if s.CSV != "" {
		source = s.CSV
	}
	if s.Peak != nil {
		st := statedNumber(*s.Peak, s.Unit)
		if !st.agrees(peak.Value) {
			c.errf("series.peak", "stated peak %s is not the series' peak: the maximum of %s is %s at %s; %s", st.text, source, formatWithUnit(peak.Value, s.Unit), c.when(peak.At), st.rule())
		}
	}
	if start, ok := d.Instant(MilestoneImpactStart); ok {
		end, ok := d.Instant(MilestoneMitigated)
		if !ok {
			end, ok = d.Instant(MilestoneResolved)
		}
		if peak.At.Before(start) || ok && peak.At.After(end) {
			c.warnf("series", "the series peaks (%s) at %s, outside the impact window %s – %s; check impact_start and the series", formatWithUnit(peak.Value, s.Unit), c.when(peak.At), c.when(start), map[bool]string{true: c.when(end), false: "…"}[ok])
		}
	}
	for i, m := range s.Markers {
		p := fmt.Sprintf("series.markers[%d]", i)
		ms, ok := d.Milestone(m.Milestone)
		if !ok {
			c.errf(p+".milestone", "unknown milestone %q; a marker must name a recorded milestone", m.Milestone)
			continue
		}
		at := ms.At
		if m.At != nil && !m.At.Equal(ms.At) {
			c.errf(p+".at", "marker %s is at %s but milestone %s is at %s%s; the chart's markers must agree with the timeline", m.Milestone, c.when(*m.At), ms.Name, c.when(ms.At), c.line(c.milestonePath(ms.Name)+".at"))
		}
		if m.Value == nil {
			continue
		}
		v, ok := s.ValueAt(at)
		if !ok {
			c.errf(p+".milestone", "%s (%s) is outside the series (%s – %s)", m.Milestone, c.when(at), c.when(s.Points[0].At), c.when(s.Points[len(s.Points)-1].At))
			continue
		}
		st := statedNumber(*m.Value, s.Unit)
		if !st.agrees(v) {
			c.errf(p+".value", "stated %s at %s (%s) but %s has %s there; %s", st.text, m.Milestone, c.when(at), source, formatWithUnit(roundTo(v, 4), s.Unit), st.rule())
		}
	}
	for i := 1; i < len(s.Gridlines); i++ {
		if s.Gridlines[i] <= s.Gridlines[i-1] {
			c.errf(fmt.Sprintf("series.gridlines[%d]", i), "gridlines must increase")
		}
	}
}

func roundTo(x float64, digits int) float64 {
	p := pow10(digits)
	return float64(int64(x*p+0.5*sign(x))) / p
}

func sign(x float64) float64 {
	if x < 0 {
		return -1
	}
	return 1
}

func (c *checker) milestonePath(name string) string {
	for i, m := range c.doc.Milestones {
		if m.Name == name {
			return fmt.Sprintf("milestones[%d]", i)
		}
	}
	return "milestones"
}

func (c *checker) timeline() {
	d := c.doc
	ids := map[string]int{}
	for i, e := range d.Timeline {
		p := fmt.Sprintf("timeline[%d]", i)
		if e.At.IsZero() {
			c.errf(p+".at", "missing; expected the instant in UTC")
			continue
		}
		if strings.TrimSpace(e.Title) == "" {
			c.errf(p+".title", "missing; expected the entry's headline")
		}
		if i > 0 && !d.Timeline[i-1].At.IsZero() && e.At.Before(d.Timeline[i-1].At) {
			c.errf(p+".at", "%s is earlier than the entry before it (%s%s); timeline entries must be in chronological order", c.when(e.At), c.when(d.Timeline[i-1].At), c.line(fmt.Sprintf("timeline[%d].at", i-1)))
		}
		if e.ID != "" {
			switch {
			case !nameRe.MatchString(e.ID):
				c.errf(p+".id", "%q is not a snake_case id", e.ID)
			case ids[e.ID] > 0:
				c.errf(p+".id", "%q is already used by timeline[%d]", e.ID, ids[e.ID]-1)
			default:
				if _, clash := d.Milestone(e.ID); clash {
					c.errf(p+".id", "%q is also a milestone name; tag the entry with phase: %s instead", e.ID, e.ID)
				}
				ids[e.ID] = i + 1
			}
		}
		if e.Phase == "" {
			continue
		}
		if m, ok := d.Milestone(e.Phase); ok {
			if !e.At.Equal(m.At) && !slices.ContainsFunc(m.Alternatives, func(a TimeAlternative) bool { return a.At.Equal(e.At) && a.Source != "" }) {
				c.errf(p+".at", "the entry tagged %s is at %s but milestone %s is at %s%s; fix one of them, or record %s under the milestone's alternatives with its source", e.Phase, c.when(e.At), m.Name, c.when(m.At), c.line(c.milestonePath(m.Name)+".at"), e.At.UTC().Format(time.RFC3339))
			}
			continue
		}
		if slices.Contains(MilestoneOrder, e.Phase) {
			c.errf(p+".phase", "tags milestone %s, which milestones does not record; add it to milestones", e.Phase)
			continue
		}
		if !slices.Contains(PhaseTags, e.Phase) {
			c.warnf(p+".phase", "unknown phase tag %q; expected a milestone name or one of %s", e.Phase, strings.Join(PhaseTags, ", "))
		}
	}
}

var (
	vagueVerbs = []string{"tune", "improve", "investigate", "review", "revisit", "consider", "explore", "monitor", "optimize", "optimise", "look", "enhance", "address", "fix", "update", "check", "evaluate", "discuss", "clean", "refactor", "harden", "better", "increase", "reduce", "ensure"}
	digitRe    = regexp.MustCompile(`\d`)
	evidenceRe = regexp.MustCompile(`(?i)\b(?:tests?|tested|replays?|canary|canaries|drills?|game ?days?|alerts?|pages?|fires|ci|pass(?:es)?|fails?|benchmarks?|experiments?|queries|query|metrics?|slo|dashboards?|audits?|threshold|rehears(?:al|ed))\b`)
)

// vague reports whether an action names no verifiable change ("Tune autoscaling").
func vague(action string) bool {
	words := strings.Fields(action)
	if len(words) < 3 {
		return true
	}
	verb := strings.ToLower(strings.Trim(words[0], ".,;:!\"'"))
	return slices.Contains(vagueVerbs, verb) && len(words) < 6 && !digitRe.MatchString(action)
}

// measurable reports whether validation evidence names a measurable result: a number or
// threshold, or a test, replay, drill, alert or query that passes or fails.
func measurable(validation string) bool {
	if len(strings.Fields(validation)) < 3 {
		return false
	}
	if digitRe.MatchString(validation) || evidenceRe.MatchString(validation) {
		return true
	}
	for _, f := range parseFigures(validation) {
		if f.kind != figCount {
			return true
		}
	}
	return false
}

func (c *checker) factorsAndActions() {
	d := c.doc
	factorIDs := map[string]int{}
	for i, f := range d.Factors {
		p := fmt.Sprintf("factors[%d]", i)
		if f.ID == "" {
			c.errf(p+".id", "missing; expected the factor's number, e.g. \"01\"")
		} else if j, dup := factorIDs[f.ID]; dup {
			c.errf(p+".id", "%q is already used by factors[%d]", f.ID, j)
		} else {
			factorIDs[f.ID] = i
		}
		if strings.TrimSpace(f.Title) == "" {
			c.errf(p+".title", "missing; expected the factor's headline")
		}
	}
	addressed := map[string]bool{}
	actionIDs := map[string]int{}
	var incidentDay Date
	if m, ok := d.Milestone(MilestoneImpactStart); ok {
		incidentDay = DateOf(m.At.In(d.Location()))
	}
	for i, a := range d.Actions {
		p := fmt.Sprintf("actions[%d]", i)
		name := a.ID
		if name == "" {
			name = p
			c.errf(p+".id", "missing; expected an identifier such as AI-1")
		} else if j, dup := actionIDs[a.ID]; dup {
			c.errf(p+".id", "%q is already used by actions[%d]", a.ID, j)
		} else {
			actionIDs[a.ID] = i
		}
		if strings.TrimSpace(a.Action) == "" {
			c.errf(p+".action", "%s has no action; say what will be done", name)
		} else if vague(a.Action) {
			c.errf(p+".action", "%s is vague: %q names no change that can be verified; say what will change and what proves it (like \"Do not route traffic to an instance until its caches meet the warm criterion\")", name, a.Action)
		}
		if strings.TrimSpace(a.Owner) == "" {
			c.errf(p+".owner", "%s has no owner; an action item needs a person or team who owns it", name)
		}
		if a.Due.IsZero() {
			c.errf(p+".due", "%s has no due date; expected due: YYYY-MM-DD", name)
		} else if !incidentDay.IsZero() && a.Due.Before(incidentDay) {
			c.warnf(p+".due", "%s is due %s, before the incident started (%s)", name, a.Due, incidentDay)
		}
		switch {
		case a.Status == "":
			c.errf(p+".status", "%s has no status; expected not_started, in_progress, blocked, done or wont_do", name)
		case a.Status == ActionDone && a.Done.IsZero():
			c.errf(p+".status", "%s is done but has no done date; add done: YYYY-MM-DD", name)
		case a.Status != ActionDone && !a.Done.IsZero():
			c.warnf(p+".done", "%s has a done date (%s) but its status is %s", name, a.Done, a.Status)
		case a.Status.Open() && !a.Due.IsZero() && !d.Reviewed.IsZero() && a.Due.Before(d.Reviewed):
			c.errf(p+".due", "%s is %s and was due %s, before the review on %s: it is overdue; update its status or due date", name, a.Status.Label(), a.Due, d.Reviewed)
		}
		if strings.TrimSpace(a.Validation) == "" {
			c.errf(p+".validation", "%s has no validation evidence; say what measurable result (a test, a replay, an alert at a threshold) will show that the action worked", name)
		} else if !measurable(a.Validation) {
			c.errf(p+".validation", "%s's validation evidence %q is not measurable; name a threshold, a number, or a test, replay or alert that passes or fails", name, a.Validation)
		}
		for k, f := range a.Addresses {
			if _, ok := factorIDs[f]; !ok {
				c.errf(fmt.Sprintf("%s.addresses[%d]", p, k), "%s addresses factor %q, which factors does not list", name, f)
			}
			addressed[f] = true
		}
	}
	for i, f := range d.Factors {
		if f.ID == "" || addressed[f.ID] || strings.TrimSpace(f.Accepted) != "" {
			continue
		}
		c.errf(fmt.Sprintf("factors[%d]", i), "factor %s (%s) has no action item addressing it and is not accepted; list %q in an action's addresses, or write accepted: with the reason", f.ID, shorten(f.Title, 60), f.ID)
	}
}

func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func (c *checker) decisionLog() {
	d := c.doc
	for i, x := range d.Decisions {
		p := fmt.Sprintf("decisions[%d]", i)
		for _, f := range []struct{ key, val string }{
			{"action", x.Action}, {"hypothesis", x.Hypothesis}, {"expected_signal", x.ExpectedSignal},
			{"safety_boundary", x.SafetyBoundary}, {"owner", x.Owner}, {"rollback", x.Rollback},
		} {
			if strings.TrimSpace(f.val) == "" {
				c.errf(p+"."+f.key, "missing; every decision records its action, hypothesis, expected signal, safety boundary, owner and rollback")
			}
		}
		if x.At.IsZero() {
			c.errf(p+".at", "missing; expected the instant in UTC")
			continue
		}
		if i > 0 && x.At.Before(d.Decisions[i-1].At) {
			c.errf(p+".at", "%s is earlier than the decision before it (%s); the decision log is chronological", c.when(x.At), c.when(d.Decisions[i-1].At))
		}
		if i > 0 && x.Generation != 0 && x.Generation < d.Decisions[i-1].Generation {
			c.warnf(p+".generation", "policy generation %d is lower than the previous decision's %d; generations only increase", x.Generation, d.Decisions[i-1].Generation)
		}
	}
	for i, x := range d.Constraints {
		p := fmt.Sprintf("constraints[%d]", i)
		if strings.TrimSpace(x.Constraint) == "" {
			c.errf(p+".constraint", "missing; expected the resource or control that limits goodput")
		}
		if strings.TrimSpace(x.Evidence) == "" {
			c.errf(p+".evidence", "missing; expected the observation that shows the constraint")
		}
		if x.At.IsZero() {
			c.errf(p+".at", "missing; expected the instant in UTC")
			continue
		}
		if i > 0 && x.At.Before(d.Constraints[i-1].At) {
			c.errf(p+".at", "%s is earlier than the row before it (%s); the ledger is chronological", c.when(x.At), c.when(d.Constraints[i-1].At))
		}
	}
}

func (c *checker) public() {
	p := c.doc.Public
	if p == nil {
		return
	}
	if strings.TrimSpace(p.Overview) == "" {
		c.errf("public.overview", "missing; expected the opening paragraph (when, who, an apology)")
	}
	if strings.TrimSpace(p.WhoWasAffected) == "" {
		c.errf("public.who_was_affected", "missing; expected who was affected")
	}
	if strings.TrimSpace(p.WhatHappened) == "" {
		c.errf("public.what_happened", "missing; expected what happened")
	}
}

// cover marks a byte range of a prose field as tied to the data.
func (c *checker) cover(path string, start, end int) {
	c.covered[path] = append(c.covered[path], [2]int{start, end})
}

func (c *checker) isCovered(path string, start, end int) bool {
	for _, r := range c.covered[path] {
		if start < r[1] && end > r[0] {
			return true
		}
	}
	return false
}

// occurrence is where a text occurs in a prose field.
type occurrence struct {
	field proseField
	start int
}

// normalizeSpace collapses runs of white space, returning the new string and a map from
// its byte offsets to the original's.
func normalizeSpace(s string) (string, []int) {
	var b strings.Builder
	var idx []int
	space := false
	for i := 0; i < len(s); i++ {
		if isSpace(s[i]) {
			if !space {
				b.WriteByte(' ')
				idx = append(idx, i)
			}
			space = true
			continue
		}
		space = false
		b.WriteByte(s[i])
		idx = append(idx, i)
	}
	idx = append(idx, len(s))
	return b.String(), idx
}

// find returns every occurrence of text in the document's prose (white space runs match
// any white space).
func (c *checker) find(text string) []occurrence {
	needle, _ := normalizeSpace(strings.TrimSpace(text))
	if needle == "" {
		return nil
	}
	if c.normalized == nil {
		for _, f := range c.doc.prose() {
			hay, idx := normalizeSpace(f.text)
			c.normalized = append(c.normalized, normalizedField{f, hay, idx})
		}
	}
	var out []occurrence
	for _, n := range c.normalized {
		f, hay, idx := n.field, n.text, n.idx
		for off := 0; ; {
			i := strings.Index(hay[off:], needle)
			if i < 0 {
				break
			}
			out = append(out, occurrence{f, idx[off+i]})
			off += i + len(needle)
		}
	}
	return out
}

// evalClaim computes a claim's value: a reference or a formula.
func (c *checker) evalClaim(value, unit string) (Value, error) {
	if !IsRef(value) {
		return c.doc.EvalFormula(value, unit)
	}
	v, err := c.doc.Eval(value)
	if err != nil || unit == "" || v.Kind != KindNumber {
		return v, err
	}
	if scale, ok := durationUnits[unit]; ok {
		d, err := durationIn(v.Number, unit, scale)
		if err != nil {
			return Value{}, fmt.Errorf("%s: %v", value, err)
		}
		v.Kind, v.Duration = KindDuration, d
	} else if unit == "%" {
		v.Kind, v.Unit = KindPercent, "%"
	}
	return v, nil
}

// pick returns the first figure in text that can state v.
func pick(text string, v Value) (stated, bool) {
	kinds := wants(v)
	for _, f := range parseFigures(text) {
		if slices.Contains(kinds, f.kind) {
			return f, true
		}
	}
	return stated{}, false
}

func (c *checker) claims() {
	for i, cl := range c.doc.Claims {
		p := fmt.Sprintf("claims[%d]", i)
		if strings.TrimSpace(cl.Text) == "" {
			c.errf(p+".text", "missing; expected the stated phrase, copied from the prose")
			continue
		}
		if strings.Contains(cl.Text, "{{") {
			c.errf(p+".text", "contains a placeholder; a placeholder is computed and needs no claim")
			continue
		}
		if cl.Value == "" && strings.TrimSpace(cl.Source) == "" {
			c.errf(p, "claim %q has neither value (a reference or formula to check it against) nor source (where the figure comes from)", cl.Text)
		}
		occ := c.find(cl.Text)
		var v Value
		var fig stated
		checked := false
		if cl.Value != "" {
			var err error
			v, err = c.evalClaim(cl.Value, cl.Unit)
			if err != nil {
				c.errf(p+".value", "%v", err)
			} else if f, ok := pick(cl.Text, v); !ok {
				c.errf(p+".text", "%q states no %s to compare with %s (%s)", cl.Text, kindName(v), cl.Value, v.Text)
			} else {
				fig, checked = f, true
			}
		}
		if len(occ) == 0 {
			c.staleClaim(p, cl, v, fig, checked)
			continue
		}
		for _, o := range occ {
			c.cover(o.field.path, o.start, o.start+c.offsetIn(o.field.text[o.start:], cl.Text, len(cl.Text)))
			if !checked {
				continue
			}
			cv, ok := fig.comparable(v)
			if !ok || fig.agrees(cv) {
				continue
			}
			// Place the diagnostic on the figure inside the occurrence.
			off := o.start + c.offsetIn(o.field.text[o.start:], cl.Text, fig.start)
			l, col := c.doc.locate(o.field.path, o.field.text, off)
			c.add(Error, l, col, fmt.Sprintf("%s: stated %q disagrees with the data: %s is %s (%s); %s (%s)", o.field.path, fig.text, cl.Value, fig.formatComputed(cv), v.Expl, fig.rule(), p))
		}
	}
}

// offsetIn maps a byte offset in the claim text to the occurrence in the prose, which
// may differ in white space.
func (c *checker) offsetIn(hay, claim string, off int) int {
	i, j := 0, 0
	for i < off && j < len(hay) {
		if isSpace(claim[i]) {
			for i < off && isSpace(claim[i]) {
				i++
			}
			for j < len(hay) && isSpace(hay[j]) {
				j++
			}
			continue
		}
		i, j = i+1, j+1
	}
	return j
}

func kindName(v Value) string {
	switch v.Kind {
	case KindDuration:
		return "duration"
	case KindPercent:
		return "percentage"
	case KindRatio:
		return "ratio"
	case KindInstant:
		return "instant"
	case KindText:
		return "figure"
	}
	if v.Unit == "%" {
		return "percentage"
	}
	return "number"
}

// staleClaim handles a claim whose text no longer occurs in the prose: when the prose
// holds the same phrase with another figure, the figure is checked where it now stands.
func (c *checker) staleClaim(p string, cl Claim, v Value, fig stated, checked bool) {
	if checked {
		// The phrase with every figure in it replaced by a wildcard; group k+1 is the
		// figure the claim checks.
		var pattern strings.Builder
		group, last := 0, 0
		for k, g := range parseFigures(cl.Text) {
			pattern.WriteString(regexp.QuoteMeta(cl.Text[last:g.start]))
			pattern.WriteString(`(\S+(?:\s\S+)?)`)
			if g.start == fig.start {
				group = k + 1
			}
			last = g.end
		}
		pattern.WriteString(regexp.QuoteMeta(cl.Text[last:]))
		re, err := regexp.Compile(strings.ReplaceAll(pattern.String(), " ", `\s+`))
		if err == nil && group > 0 {
			for _, f := range c.doc.prose() {
				m := re.FindStringSubmatchIndex(f.text)
				if m == nil {
					continue
				}
				// The wildcard may have taken a word before the figure ("produced 14,504.4").
				var now stated
				ok := false
				for _, g := range parseFigures(f.text[:m[2*group+1]]) {
					if g.start >= m[2*group] && g.kind == fig.kind {
						now, ok = g, true
						break
					}
				}
				if !ok {
					continue
				}
				// As for any claim, only a hedge inside the claim's text counts.
				now.hedge, now.hword = fig.hedge, fig.hword
				c.cover(f.path, m[0], m[1])
				cv, _ := now.comparable(v)
				l, col := c.doc.locate(f.path, f.text, now.start)
				if now.agrees(cv) {
					c.add(Warning, l, col, fmt.Sprintf("%s: the prose now reads %q where %s expects %q; update the claim's text", f.path, strings.Join(strings.Fields(f.text[m[0]:m[1]]), " "), p, cl.Text))
				} else {
					c.add(Error, l, col, fmt.Sprintf("%s: stated %q disagrees with the data: %s is %s (%s); %s (%s, which expects %q)", f.path, now.text, cl.Value, now.formatComputed(cv), v.Expl, now.rule(), p, fig.text))
				}
				return
			}
		}
	}
	c.errf(p+".text", "%q does not occur in the document's prose; copy the stated phrase exactly (or remove the claim)", cl.Text)
}

var (
	ofCountsRe = regexp.MustCompile(`(?i)\b(\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s+(?:\w+\s+)?(?:out\s+)?of\s+(?:the\s+|all\s+)?(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\b`)
	clauseRe   = regexp.MustCompile(`[.;!?](?:\s|$)`)
	// What may stand between "X of Y [noun]" and the percentage that restates it.
	pctAfterRe = regexp.MustCompile(`(?i)^(?:\s*[A-Za-z-]+)?[\s,:(–—-]*(?:(?:or|i\.e\.|that is|about|around|roughly|nearly|almost|approximately|some|~|≈)[\s,]*)*$`)
	// What may stand between a percentage and the "X of Y" that explains it.
	pctBeforeRe = regexp.MustCompile(`^\s*(?:\(|,|:|–|—|-)\s*(?:or\s+)?$`)
	pctOfRe     = regexp.MustCompile(`(?i)^\s+of\s+[a-z]`)
	clockRe     = regexp.MustCompile(`(?:^|[^\d:.])((?:[01]?\d|2[0-3]):[0-5]\d)(\s*(?:UTC|GMT|Z)\b)?`)
)

// scanProse checks placeholders and the figures prose states without a claim.
func (c *checker) scanProse() {
	untied := Error // the severity of a figure not tied to the data
	if c.opts.Lenient {
		untied = Warning
	}
	d := c.doc
	spans := d.allSpans()
	clocks, utcClocks := d.clockSet()
	for _, f := range d.prose() {
		loc := d.locator(f.path, f.text) // each pass below places offsets in increasing order
		for _, m := range placeholder.FindAllStringSubmatchIndex(f.text, -1) {
			c.cover(f.path, m[0], m[1])
			ref := f.text[m[2]:m[3]]
			if _, err := d.Eval(ref); err != nil {
				l, col := loc.at(m[0])
				c.add(Error, l, col, fmt.Sprintf("%s: placeholder {{%s}}: %v", f.path, ref, err))
			}
		}
		c.percentOfCounts(f)
		for _, fig := range parseFigures(f.text) {
			if c.isCovered(f.path, fig.start, fig.end) {
				continue
			}
			switch {
			case fig.kind == figDuration && fig.prec >= 60:
				if !anySpanAgrees(fig, spans) {
					l, col := loc.at(fig.start)
					c.add(untied, l, col, fmt.Sprintf("%s: duration %q matches no interval between recorded instants; tie it to the data with a claim (value: gap:FROM:TO) or record its source in one", f.path, fig.text))
				}
			case fig.kind == figRatio || fig.kind == figFraction:
				l, col := loc.at(fig.start)
				c.add(untied, l, col, fmt.Sprintf("%s: ratio %q is not tied to the data; add a claim (value: ratio:X:Y or a formula) or record its source in one", f.path, fig.text))
			}
		}
		for _, m := range clockRe.FindAllStringSubmatchIndex(f.text, -1) {
			if c.isCovered(f.path, m[2], m[3]) {
				continue
			}
			hm := normalizeClock(f.text[m[2]:m[3]])
			set, zone := clocks, d.Location().String()
			if m[4] >= 0 {
				set, zone = utcClocks, "UTC"
			}
			if !set[hm] {
				l, col := loc.at(m[2])
				c.add(untied, l, col, fmt.Sprintf("%s: clock time %s (%s) is not a recorded instant; record it as a milestone or timeline entry, or use a placeholder such as {{at:detected}}", f.path, f.text[m[2]:m[3]], zone))
			}
		}
	}
}

func normalizeClock(s string) string {
	h, m, _ := strings.Cut(s, ":")
	if len(h) == 1 {
		h = "0" + h
	}
	return h + ":" + m
}

// percentOfCounts checks a percentage stated next to "X of Y" counts in one clause.
func (c *checker) percentOfCounts(f proseField) {
	text := f.text
	loc := c.doc.locator(f.path, text)
	start := 0
	bounds := clauseRe.FindAllStringIndex(text, -1)
	bounds = append(bounds, []int{len(text), len(text)})
	for _, b := range bounds {
		clause := text[start:b[0]]
		off := start
		start = b[1]
		pairs := ofCountsRe.FindAllStringSubmatchIndex(clause, -1)
		if len(pairs) != 1 {
			continue
		}
		pm := pairs[0]
		x, _ := strconv.ParseFloat(strings.ReplaceAll(clause[pm[2]:pm[3]], ",", ""), 64)
		y, _ := strconv.ParseFloat(strings.ReplaceAll(clause[pm[4]:pm[5]], ",", ""), 64)
		if y == 0 {
			continue
		}
		for _, fig := range parseFigures(clause) {
			if fig.kind != figPercent {
				continue
			}
			// Only a percentage that restates the pair: right after it ("X of Y (P%)",
			// "X of Y checkouts, or about P%") or right before it ("P% (X of Y)"), and
			// not one that names its own base ("P% of requests").
			near := fig.start >= pm[1] && pctAfterRe.MatchString(clause[pm[1]:fig.start]) ||
				fig.end <= pm[0] && pctBeforeRe.MatchString(clause[fig.end:pm[0]])
			if !near || pctOfRe.MatchString(clause[fig.end:]) || c.isCovered(f.path, off+fig.start, off+fig.end) {
				continue
			}
			pct := 100 * x / y
			if !fig.agrees(pct) {
				l, col := loc.at(off + fig.start)
				c.add(Error, l, col, fmt.Sprintf("%s: stated %q disagrees with its counts: %s of %s is %s; %s", f.path, fig.text, FormatNumber(x), FormatNumber(y), fig.formatComputed(pct), fig.rule()))
			}
		}
	}
}

// instant is a recorded instant with the name it is recorded under.
type instant struct {
	name string
	at   time.Time
}

// instants returns every recorded instant: milestones (and their alternatives), timeline
// entries, the tail, decisions and ledger rows.
func (d *Document) instants() []instant {
	var out []instant
	for _, m := range d.Milestones {
		if !m.At.IsZero() {
			out = append(out, instant{m.Name, m.At})
		}
		for _, a := range m.Alternatives {
			out = append(out, instant{m.Name + " (alternative)", a.At})
		}
	}
	for i, e := range d.Timeline {
		if !e.At.IsZero() {
			out = append(out, instant{d.entryName(i), e.At})
		}
	}
	if d.Tail != nil {
		if t, ok := d.Instant("tail_start"); ok {
			out = append(out, instant{"tail_start", t})
		}
		if !d.Tail.End.IsZero() {
			out = append(out, instant{"tail_end", d.Tail.End})
		}
	}
	for i, x := range d.Decisions {
		if !x.At.IsZero() {
			out = append(out, instant{fmt.Sprintf("decisions[%d]", i), x.At})
		}
	}
	for i, x := range d.Constraints {
		if !x.At.IsZero() {
			out = append(out, instant{fmt.Sprintf("constraints[%d]", i), x.At})
		}
	}
	return out
}

// allSpans returns the distinct positive intervals between any two recorded instants,
// in seconds, sorted.
func (d *Document) allSpans() []float64 {
	ins := d.instants()
	var out []float64
	for i := range ins {
		for j := range ins {
			if s := ins[j].at.Sub(ins[i].at); s > 0 {
				out = append(out, s.Seconds())
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// anySpanAgrees reports whether a stated duration agrees with any of the sorted spans.
// The values a figure admits form one interval, so only the spans near it are tried.
func anySpanAgrees(f stated, spans []float64) bool {
	if len(spans) == 0 {
		return false
	}
	switch f.hedge {
	case hedgeOver, hedgeAtLeast:
		return f.agrees(spans[len(spans)-1])
	case hedgeUnder, hedgeAtMost:
		return f.agrees(spans[0])
	}
	w := math.Max(f.prec, aboutTolerance*math.Abs(f.value)) + 1
	i, _ := slices.BinarySearch(spans, f.value-w)
	for ; i < len(spans) && spans[i] <= f.value+w; i++ {
		if f.agrees(spans[i]) {
			return true
		}
	}
	return false
}

// clockSet returns the clock times (HH:MM) of the recorded instants in the display zone
// and in UTC.
func (d *Document) clockSet() (local, utc map[string]bool) {
	local, utc = map[string]bool{}, map[string]bool{}
	loc := d.Location()
	for _, in := range d.instants() {
		local[in.at.In(loc).Format("15:04")] = true
		utc[in.at.UTC().Format("15:04")] = true
	}
	return local, utc
}
