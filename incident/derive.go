package incident

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/goodput-lab/goodput/internal/floatdur"
	"github.com/goodput-lab/goodput/internal/formula"
	"github.com/goodput-lab/goodput/internal/numfmt"
)

// Span is a computed interval between two named instants.
type Span struct {
	// Name is the derived value's name: "duration", "ttd", "gap:detected:mitigated" …
	Name string
	// From and To name the instants (milestone names, timeline entry IDs, tail_start,
	// tail_end).
	From, To string
	// Start and End are the instants, in UTC.
	Start, End time.Time
}

// Duration returns End − Start.
func (s Span) Duration() time.Duration { return s.End.Sub(s.Start) }

// String formats the duration as on a postmortem page: "3h 47m", "33 min".
func (s Span) String() string { return FormatDuration(s.Duration()) }

// Kind is the kind of a derived [Value].
type Kind int

// The kinds of derived values.
const (
	KindNumber   Kind = iota // a count or measured quantity, with a unit
	KindPercent              // a percentage (Number is in percent)
	KindRatio                // a ratio (Number is the quotient)
	KindDuration             // a duration
	KindInstant              // an instant
	KindText                 // text only
)

// Value is one derived value.
type Value struct {
	Kind     Kind
	Number   float64       // for numbers, percentages and ratios
	Unit     string        // the unit of a number ("%", "customers", …)
	Duration time.Duration // for durations
	Time     time.Time     // for instants (UTC)
	// Text is the value formatted for display: "3h 47m", "94%", "41,900", "09:47".
	Text string
	// Expl says how the value was computed: "impact_start 09:14 → mitigated 13:01",
	// "recovered / failed_checkouts = 39,600 / 41,900".
	Expl string
}

// String returns v.Text.
func (v Value) String() string { return v.Text }

// MarkerValue is the series value at a chart marker's milestone.
type MarkerValue struct {
	Milestone string
	At        time.Time
	Value     float64
	// OK is false when the instant lies outside the series.
	OK bool
}

// Derived holds every value computed from a document's data. Nil spans mean that a
// milestone they need is missing.
type Derived struct {
	// Location is the display time zone.
	Location *time.Location
	// Duration is the primary impact: impact_start → mitigated (or → resolved when there
	// is no mitigated milestone).
	Duration *Span
	// TTD is time to detect: impact_start → detected.
	TTD *Span
	// TTA is time to acknowledge: detected → acknowledged.
	TTA *Span
	// TTM is time to mitigate, measured from detection: detected → mitigated, so that
	// TTD + TTM = Duration.
	TTM *Span
	// TTR is time to resolve: impact_start → resolved.
	TTR *Span
	// Tail is the residual impact: tail start (default mitigated) → tail end.
	Tail *Span
	// Gaps are the intervals between consecutive timeline entries; Gaps[i] ends at
	// timeline entry i+1.
	Gaps []Span
	// Peak is the series' maximum (its first occurrence); nil without a series.
	Peak *Point
	// Markers holds the series value at each chart marker.
	Markers []MarkerValue
	// Values maps every placeholder name with a fixed value (duration, ttd, tta, ttm,
	// ttr, tail, peak, peak_at, at:NAME, series@NAME, each figure ID, pct:ID:OF) to its
	// value. Parameterised references (gap:A:B, ratio:A:B …) are computed by
	// [Document.Eval].
	Values map[string]Value
}

// Location returns the document's display time zone (UTC if unset or unknown).
func (d *Document) Location() *time.Location {
	if d.TimeZone == "" {
		return time.UTC
	}
	loc, err := time.LoadLocation(d.TimeZone)
	if err != nil {
		return time.UTC
	}
	return loc
}

// Milestone returns the milestone with the given name.
func (d *Document) Milestone(name string) (Milestone, bool) {
	for _, m := range d.Milestones {
		if m.Name == name {
			return m, true
		}
	}
	return Milestone{}, false
}

// Instant returns the instant a name refers to: a milestone name, a timeline entry ID,
// tail_start, tail_end, or an RFC 3339 UTC timestamp.
func (d *Document) Instant(name string) (time.Time, bool) {
	if m, ok := d.Milestone(name); ok {
		return m.At, true
	}
	for _, e := range d.Timeline {
		if e.ID != "" && e.ID == name {
			return e.At, true
		}
	}
	if d.Tail != nil {
		switch name {
		case "tail_end":
			return d.Tail.End, true
		case "tail_start":
			if d.Tail.Start != nil {
				return *d.Tail.Start, true
			}
			if m, ok := d.Milestone(MilestoneMitigated); ok {
				return m.At, true
			}
			return time.Time{}, false
		}
	}
	if t, err := parseUTC(name); err == nil {
		return t, true
	}
	return time.Time{}, false
}

func (d *Document) span(name, from, to string) *Span {
	a, ok1 := d.Instant(from)
	b, ok2 := d.Instant(to)
	if !ok1 || !ok2 {
		return nil
	}
	return &Span{Name: name, From: from, To: to, Start: a, End: b}
}

// Derived computes every derived value of the document. It never fails: values whose
// inputs are missing are left out (nil spans, absent map entries), and [Check] reports
// why.
func (d *Document) Derived() Derived {
	out := Derived{Location: d.Location(), Values: map[string]Value{}}
	end := MilestoneMitigated
	if _, ok := d.Milestone(end); !ok {
		end = MilestoneResolved
	}
	out.Duration = d.span("duration", MilestoneImpactStart, end)
	out.TTD = d.span("ttd", MilestoneImpactStart, MilestoneDetected)
	out.TTA = d.span("tta", MilestoneDetected, MilestoneAcknowledged)
	out.TTM = d.span("ttm", MilestoneDetected, MilestoneMitigated)
	out.TTR = d.span("ttr", MilestoneImpactStart, MilestoneResolved)
	if d.Tail != nil {
		out.Tail = d.span("tail", "tail_start", "tail_end")
	}
	for i := 1; i < len(d.Timeline); i++ {
		from, to := d.entryName(i-1), d.entryName(i)
		out.Gaps = append(out.Gaps, Span{Name: "gap:" + from + ":" + to, From: from, To: to, Start: d.Timeline[i-1].At, End: d.Timeline[i].At})
	}
	if s := d.Series; s != nil && len(s.Points) > 0 {
		p, _ := s.Max()
		out.Peak = &p
		for _, m := range s.Markers {
			at, ok := d.Instant(m.Milestone)
			if !ok {
				continue
			}
			v, ok := s.ValueAt(at)
			out.Markers = append(out.Markers, MarkerValue{Milestone: m.Milestone, At: at, Value: v, OK: ok})
		}
	}
	names := []string{"duration", "ttd", "tta", "ttm", "ttr", "tail", "peak", "peak_at", "zone"}
	for _, m := range d.Milestones {
		names = append(names, "at:"+m.Name, "date:"+m.Name)
		if d.Series != nil {
			names = append(names, "series@"+m.Name)
		}
	}
	for _, f := range d.figures() {
		names = append(names, f.ID)
		if f.Of != "" {
			names = append(names, "pct:"+f.ID+":"+f.Of)
		}
	}
	for _, n := range names {
		if v, err := d.Eval(n); err == nil {
			out.Values[n] = v
		}
	}
	return out
}

// entryName names timeline entry i: its ID, or "timeline[i]".
func (d *Document) entryName(i int) string {
	if id := d.Timeline[i].ID; id != "" {
		return id
	}
	return fmt.Sprintf("timeline[%d]", i)
}

// Max returns the series' maximum (its first occurrence); ok is false without points.
func (s *Series) Max() (p Point, ok bool) {
	if len(s.Points) == 0 {
		return Point{}, false
	}
	p = s.Points[0]
	for _, q := range s.Points[1:] {
		if q.Value > p.Value {
			p = q
		}
	}
	return p, true
}

// ValueAt returns the series value at t: the sample at t, or the linear interpolation
// between the samples around it. ok is false when t is outside the series.
func (s *Series) ValueAt(t time.Time) (v float64, ok bool) {
	pts := s.Points
	i, found := slices.BinarySearchFunc(pts, t, func(p Point, t time.Time) int { return p.At.Compare(t) })
	if found {
		return pts[i].Value, true
	}
	if i == 0 || i == len(pts) {
		return 0, false
	}
	a, b := pts[i-1], pts[i]
	f := float64(t.Sub(a.At)) / float64(b.At.Sub(a.At))
	return a.Value + f*(b.Value-a.Value), true
}

// figures returns the impact figures followed by the facts.
func (d *Document) figures() []Figure {
	return append(slices.Clip(d.Impact), d.Facts...)
}

func (d *Document) figure(id string) (Figure, bool) {
	for _, f := range d.figures() {
		if f.ID == id {
			return f, true
		}
	}
	return Figure{}, false
}

// reserved are the names a figure ID may not take.
var reserved = []string{"duration", "ttd", "tta", "ttm", "ttr", "tail", "peak", "peak_at", "zone", "tail_start", "tail_end"}

// refSyntax matches a reference (as opposed to a formula).
var refSyntax = regexp.MustCompile(`^[a-z][a-z0-9_]*(?:[:@][A-Za-z0-9_.+\-:]+)*$`)

// IsRef reports whether s has the syntax of a reference rather than a formula.
func IsRef(s string) bool { return refSyntax.MatchString(s) }

// Eval computes a reference:
//
//	duration ttd tta ttm ttr tail   the derived spans (see [Derived])
//	gap:A:B                         the time from instant A to instant B
//	at:A  date:A                    instant A as a clock time ("09:47") or date ("12 September 2026")
//	ID  fig:ID                      a figure's value (impact or facts)
//	peak  peak_at                   the series' maximum and its instant
//	series@A                        the series value at instant A
//	pct:X:Y                         X as a percentage of Y
//	ratio:X:Y                       X divided by Y
//	zone                            the display time zone
//
// Instants A, B are milestone names, timeline entry IDs, tail_start, tail_end or RFC 3339
// UTC timestamps. Quantities X, Y are figure IDs, peak or series@A.
func (d *Document) Eval(ref string) (Value, error) { return d.evaluator().eval(ref) }

// evaluator computes references and formulas for one call, remembering the figures it
// has computed (so that a formula over computed figures costs linear time) and the ones
// being computed (to report cycles).
type evaluator struct {
	d      *Document
	active map[string]bool
	memo   map[string]Value
}

func (d *Document) evaluator() *evaluator {
	return &evaluator{d: d, active: map[string]bool{}, memo: map[string]Value{}}
}

func (e *evaluator) eval(ref string) (Value, error) {
	d := e.d
	loc := d.Location()
	dur := func(s *Span, what string) (Value, error) {
		if s == nil {
			return Value{}, fmt.Errorf("%s needs the milestones or instants it spans", what)
		}
		if s.Duration() < 0 {
			return Value{}, fmt.Errorf("%s is negative: %s (%s) is after %s (%s)", what, s.From, d.clock(s.Start), s.To, d.clock(s.End))
		}
		return Value{Kind: KindDuration, Duration: s.Duration(), Text: s.String(),
			Expl: fmt.Sprintf("%s %s → %s %s", s.From, d.stamp(s.Start), s.To, d.stamp(s.End))}, nil
	}
	head, rest, _ := strings.Cut(ref, ":")
	switch {
	case ref == "duration":
		end := MilestoneMitigated
		if _, ok := d.Milestone(end); !ok {
			end = MilestoneResolved
		}
		return dur(d.span(ref, MilestoneImpactStart, end), "duration (impact_start → mitigated)")
	case ref == "ttd":
		return dur(d.span(ref, MilestoneImpactStart, MilestoneDetected), "ttd (impact_start → detected)")
	case ref == "tta":
		return dur(d.span(ref, MilestoneDetected, MilestoneAcknowledged), "tta (detected → acknowledged)")
	case ref == "ttm":
		return dur(d.span(ref, MilestoneDetected, MilestoneMitigated), "ttm (detected → mitigated)")
	case ref == "ttr":
		return dur(d.span(ref, MilestoneImpactStart, MilestoneResolved), "ttr (impact_start → resolved)")
	case ref == "tail":
		if d.Tail == nil {
			return Value{}, fmt.Errorf("tail needs a tail section")
		}
		return dur(d.span(ref, "tail_start", "tail_end"), "tail (tail_start → tail_end)")
	case ref == "zone":
		return Value{Kind: KindText, Text: loc.String()}, nil
	case head == "gap":
		a, b, ok := d.splitInstants(rest)
		if !ok {
			return Value{}, fmt.Errorf("%s: expected gap:FROM:TO with two instant names", ref)
		}
		if _, ok := d.Instant(a); !ok {
			return Value{}, fmt.Errorf("%s: unknown instant %q (expected a milestone name, a timeline entry id, tail_start or tail_end)", ref, a)
		}
		if _, ok := d.Instant(b); !ok {
			return Value{}, fmt.Errorf("%s: unknown instant %q (expected a milestone name, a timeline entry id, tail_start or tail_end)", ref, b)
		}
		return dur(d.span(ref, a, b), ref)
	case head == "at" || head == "date":
		t, ok := d.Instant(rest)
		if !ok {
			return Value{}, fmt.Errorf("%s: unknown instant %q", ref, rest)
		}
		text := d.clock(t)
		if head == "date" {
			text = t.In(loc).Format("2 January 2006")
		}
		return Value{Kind: KindInstant, Time: t, Text: text}, nil
	case head == "pct" || head == "ratio":
		x, y, err := e.splitQuantities(rest)
		if err != nil {
			return Value{}, fmt.Errorf("%s: %v; expected %s:X:Y with X, Y figure IDs, peak or series@INSTANT", ref, err, head)
		}
		a, err := e.quantity(x)
		if err != nil {
			return Value{}, fmt.Errorf("%s: %v", ref, err)
		}
		b, err := e.quantity(y)
		if err != nil {
			return Value{}, fmt.Errorf("%s: %v", ref, err)
		}
		if b.Number == 0 {
			return Value{}, fmt.Errorf("%s: %s is zero", ref, y)
		}
		q := a.Number / b.Number
		expl := fmt.Sprintf("%s / %s = %s / %s", x, y, a.Text, b.Text)
		if head == "pct" {
			return Value{Kind: KindPercent, Number: 100 * q, Unit: "%", Text: FormatPercent(100 * q), Expl: expl}, nil
		}
		return Value{Kind: KindRatio, Number: q, Text: formatRatio(q), Expl: expl}, nil
	case ref == "peak_at":
		if d.Series == nil || len(d.Series.Points) == 0 {
			return Value{}, fmt.Errorf("peak_at needs a series with points")
		}
		p, _ := d.Series.Max()
		return Value{Kind: KindInstant, Time: p.At, Text: d.clock(p.At)}, nil
	}
	return e.quantity(strings.TrimPrefix(ref, "fig:"))
}

// splitInstants splits "A:B" into two instant names; A or B may be a timestamp, which
// contains colons. When no split names two known instants, it splits at the first colon
// so that the error can name the unknown one.
func (d *Document) splitInstants(s string) (string, string, bool) {
	for i := range len(s) {
		if s[i] != ':' {
			continue
		}
		if _, ok := d.Instant(s[:i]); ok {
			if _, ok := d.Instant(s[i+1:]); ok {
				return s[:i], s[i+1:], true
			}
		}
	}
	a, b, ok := strings.Cut(s, ":")
	if !ok || a == "" || b == "" || strings.Contains(b, ":") && !isTimestamp(b) {
		return "", "", false
	}
	return a, b, true
}

func isTimestamp(s string) bool { _, err := parseUTC(s); return err == nil }

// splitQuantities splits "X:Y" where X or Y may be series@TIMESTAMP containing colons.
func (e *evaluator) splitQuantities(s string) (string, string, error) {
	for i := range len(s) {
		if s[i] != ':' {
			continue
		}
		x, y := s[:i], s[i+1:]
		if _, err := e.quantity(x); err == nil {
			if _, err := e.quantity(y); err == nil {
				return x, y, nil
			}
		}
	}
	x, y, ok := strings.Cut(s, ":")
	if !ok {
		return "", "", fmt.Errorf("missing the second quantity")
	}
	if _, err := e.quantity(x); err != nil {
		return "", "", err
	}
	_, err := e.quantity(y)
	return x, y, err
}

// quantity evaluates a figure ID, peak or series@INSTANT.
func (d *Document) quantity(q string) (Value, error) { return d.evaluator().quantity(q) }

func (e *evaluator) quantity(q string) (Value, error) {
	if v, ok := e.memo[q]; ok {
		return v, nil
	}
	v, err := e.quantity1(q)
	if err == nil {
		e.memo[q] = v
	}
	return v, err
}

func (e *evaluator) quantity1(q string) (Value, error) {
	d := e.d
	if q == "peak" || strings.HasPrefix(q, "series@") {
		s := d.Series
		if s == nil || len(s.Points) == 0 {
			return Value{}, fmt.Errorf("%s needs a series with points", q)
		}
		if q == "peak" {
			p, _ := s.Max()
			return Value{Kind: KindNumber, Number: p.Value, Unit: s.Unit, Text: formatWithUnit(p.Value, s.Unit),
				Expl: fmt.Sprintf("series maximum at %s", d.clock(p.At))}, nil
		}
		name := strings.TrimPrefix(q, "series@")
		t, ok := d.Instant(name)
		if !ok {
			return Value{}, fmt.Errorf("%s: unknown instant %q", q, name)
		}
		v, ok := s.ValueAt(t)
		if !ok {
			return Value{}, fmt.Errorf("%s: %s (%s) is outside the series (%s – %s)", q, name, d.clock(t), d.clock(s.Points[0].At), d.clock(s.Points[len(s.Points)-1].At))
		}
		return Value{Kind: KindNumber, Number: v, Unit: s.Unit, Text: formatWithUnit(v, s.Unit),
			Expl: fmt.Sprintf("series at %s %s", name, d.clock(t))}, nil
	}
	f, ok := d.figure(q)
	if !ok {
		return Value{}, fmt.Errorf("unknown name %q (expected duration, ttd, tta, ttm, ttr, tail, gap:A:B, at:A, pct:X:Y, ratio:X:Y, peak, series@A or a figure id)", q)
	}
	switch {
	case f.Value != nil:
		v := Value{Kind: KindNumber, Number: *f.Value, Unit: f.Unit, Text: formatWithUnit(*f.Value, f.Unit), Expl: f.ID}
		if scale, ok := durationUnits[f.Unit]; ok {
			d, err := durationIn(*f.Value, f.Unit, scale)
			if err != nil {
				return Value{}, fmt.Errorf("figure %s: %v", f.ID, err)
			}
			v.Kind, v.Duration = KindDuration, d
		}
		return v, nil
	case f.Computed != "":
		if e.active[q] {
			return Value{}, fmt.Errorf("figure %s is computed from itself", q)
		}
		e.active[q] = true
		defer delete(e.active, q)
		var v Value
		var err error
		if IsRef(f.Computed) {
			v, err = e.eval(f.Computed)
		} else {
			unit := ""
			if _, ok := durationUnits[f.Unit]; ok || f.Unit == "%" {
				unit = f.Unit
			}
			v, err = e.formula(f.Computed, unit)
			if err == nil && unit == "" {
				v.Unit = f.Unit
			}
		}
		if err != nil {
			return Value{}, fmt.Errorf("figure %s: %v", q, err)
		}
		return v, nil
	case f.Display != "":
		return Value{Kind: KindText, Text: f.Display}, nil
	}
	return Value{}, fmt.Errorf("figure %s has no value", q)
}

// numericEnv returns the numeric values of the figure IDs (and peak) a formula names.
func (e *evaluator) numericEnv(refs []formula.Ref) map[string]float64 {
	env := map[string]float64{}
	for _, r := range refs {
		id := r.Name
		if _, done := env[id]; done {
			continue
		}
		if _, ok := e.d.figure(id); !ok && id != "peak" {
			continue
		}
		if v, err := e.quantity(id); err == nil && v.Kind != KindText && v.Kind != KindInstant {
			env[id] = v.Number
		}
	}
	return env
}

// EvalFormula computes an arithmetic formula over figure IDs and peak, such as
// "logical * (1 + edge_retry/100) * (1 + service_retry/100)"; formulas are those of
// evidence packets (numbers, names, + - * / ^, parentheses, abs, ceil, floor, round, min,
// max). unit ("", "%", "ms", "s", "min", "h") says what the number means.
func (d *Document) EvalFormula(formula, unit string) (Value, error) {
	return d.evaluator().formula(formula, unit)
}

func (e *evaluator) formula(src, unit string) (Value, error) {
	refs, err := formula.Parse(src)
	if err != nil {
		return Value{}, fmt.Errorf("formula %q: %v", src, err)
	}
	x, err := formula.Eval(src, e.numericEnv(refs))
	if err != nil {
		return Value{}, fmt.Errorf("formula %q: %v", src, firstLine(err.Error()))
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return Value{}, fmt.Errorf("formula %q is not a finite number", src)
	}
	expl := src
	switch unit {
	case "%":
		return Value{Kind: KindPercent, Number: x, Unit: "%", Text: FormatPercent(x), Expl: expl}, nil
	case "ms", "s", "min", "h":
		dd, err := durationIn(x, unit, durationUnits[unit])
		if err != nil {
			return Value{}, fmt.Errorf("formula %q: %v", src, err)
		}
		return Value{Kind: KindDuration, Duration: dd, Text: FormatDuration(dd), Expl: expl}, nil
	}
	return Value{Kind: KindNumber, Number: x, Text: FormatNumber(x), Expl: expl}, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// stamp formats an instant for explanations: "09:47", or "2 Mar 00:03 UTC" when the
// document spans more than one day.
func (d *Document) stamp(t time.Time) string {
	if d.spansDays() {
		return t.In(d.Location()).Format("2 Jan 15:04 MST")
	}
	return d.clock(t)
}

// clock formats an instant as a clock time in the display zone: "09:47".
func (d *Document) clock(t time.Time) string { return t.In(d.Location()).Format("15:04") }

// durationUnits are the units that make a figure a duration.
var durationUnits = map[string]time.Duration{"ms": time.Millisecond, "s": time.Second, "min": time.Minute, "h": time.Hour}

// durationIn converts x in unit (of length scale) to a Duration; a value beyond a Duration's
// range (about ±292 years) is an error rather than a saturated or wrapped figure.
func durationIn(x float64, unit string, scale time.Duration) (time.Duration, error) {
	ns := x * float64(scale)
	if !floatdur.InRange(ns) {
		return 0, fmt.Errorf("%s %s is out of range; expected a duration within ±292 years (±%d h)", FormatNumber(x), unit, floatdur.Max/time.Hour)
	}
	return floatdur.Trunc(ns), nil
}

// placeholder matches {{ref}} in prose.
var placeholder = regexp.MustCompile(`\{\{\s*([^{}]*?)\s*\}\}`)

// Expand replaces every placeholder {{ref}} in text with the derived value it names (see
// [Document.Eval] for the references). It returns an error naming each unknown or
// uncomputable placeholder; the text is then expanded as far as possible.
func (d *Document) Expand(text string) (string, error) {
	var errs []string
	out := placeholder.ReplaceAllStringFunc(text, func(m string) string {
		ref := placeholder.FindStringSubmatch(m)[1]
		v, err := d.Eval(ref)
		if err != nil {
			errs = append(errs, fmt.Sprintf("{{%s}}: %v", ref, err))
			return m
		}
		return v.Text
	})
	if len(errs) > 0 {
		return out, fmt.Errorf("incident: %s", strings.Join(errs, "; "))
	}
	return out, nil
}

// FormatDuration formats a duration as on a postmortem page, rounded to the minute:
// "33 min" under an hour, "3h 47m" under three days, "36d 5h" beyond; "45 s" under a
// minute.
func FormatDuration(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	if d < time.Minute {
		return fmt.Sprintf("%s%d s", sign, int64(d.Round(time.Second)/time.Second))
	}
	m := int64(d.Round(time.Minute) / time.Minute)
	switch {
	case m < 60:
		return fmt.Sprintf("%s%d min", sign, m)
	case m < 72*60:
		if m%60 == 0 {
			return fmt.Sprintf("%s%dh", sign, m/60)
		}
		return fmt.Sprintf("%s%dh %dm", sign, m/60, m%60)
	}
	h := int64(d.Round(time.Hour) / time.Hour)
	if h%24 == 0 {
		return fmt.Sprintf("%s%dd", sign, h/24)
	}
	return fmt.Sprintf("%s%dd %dh", sign, h/24, h%24)
}

// FormatNumber formats a number as a postmortem page writes it: [numfmt.Short], with
// thousands separators and no trailing zeros: 41900 → "41,900", 14054.4 → "14,054.4",
// 0.6 → "0.6".
func FormatNumber(x float64) string { return numfmt.Short(x) }

// FormatPercent formats a percentage as [numfmt.Percent]: whole percent from 10% up
// ("94%"), one decimal below ("0.6%").
func FormatPercent(p float64) string { return numfmt.Percent(p) }

func formatRatio(q float64) string { return FormatNumber(math.Round(q*10)/10) + "×" }

func formatWithUnit(x float64, unit string) string {
	switch unit {
	case "%":
		return FormatNumber(x) + "%"
	case "":
		return FormatNumber(x)
	case "ms", "s":
		return FormatNumber(x) + " " + unit
	}
	return FormatNumber(x)
}
