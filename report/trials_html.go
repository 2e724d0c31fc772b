package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/goodput-lab/goodput/chart"
	"github.com/goodput-lab/goodput/trials"
)

// TrialsHTMLFile is the sweep's page in its output directory, beside trials.json.
const TrialsHTMLFile = "trials.html"

var trialsTemplate = template.Must(template.New("trials.html.tmpl").ParseFS(templateFS, "templates/trials.html.tmpl"))

// trialsStyle is the report's stylesheet and the sweep page's own rules.
var trialsStyle = pageStyle("trials.css")

// TrialsHTML writes a sweep's page: one self-contained page (no script, no request) with
// the figures of [Trials] (each arm's median and range across the trials, and each arm's
// difference from the first arm trial by trial), a strip per figure with one dot per trial
// and arm, the objectives' pass counts and values, each alert rule's firings (when the
// sweep has alerts), and the invariants. Identical
// summaries give identical bytes.
func TrialsHTML(w io.Writer, s *trials.Summary) error {
	var buf bytes.Buffer
	if err := trialsTemplate.Execute(&buf, newTrialsPage(s)); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

type trialsPage struct {
	Style      template.CSS
	Scenario   string
	Seeds      string
	Meta       string
	First      string
	Arms       []armView
	Deltas     []string
	Columns    int
	Sections   []trialSection
	Objectives []trialObjective
	// Alerts are the alert rules' rows, a cell per arm; none for a sweep without alerts.
	Alerts     []trialAlert
	Invariants []cell
	Failed     []string
	SeedList   string
	// SetByInputs explains the figures marked set by inputs; empty when none is.
	SetByInputs string
}

type trialSection struct {
	Title string
	Rows  []trialRow
}

type trialRow struct {
	Label  string
	Arms   []spreadView
	Deltas []spreadView
}

// spreadView is one cell: the median, the range under it, a note (missing trials), and
// for a difference the trials it was better in.
type spreadView struct {
	Median, Range, Note, Better string
	Strip                       *strip
}

type trialObjective struct {
	Name  string
	Cells []objectiveView
}

type objectiveView struct {
	Passed, Value, Range, Note, Class string
}

func newTrialsPage(s *trials.Summary) *trialsPage {
	arms := s.Arms()
	p := &trialsPage{Style: trialsStyle, Scenario: s.Scenario, Seeds: s.Seeds()}
	meta := []string{s.Seeds()}
	if s.Complete() {
		meta = append(meta, fmt.Sprintf("%d trials", s.Trials))
	} else {
		meta = append(meta, fmt.Sprintf("shard %s: %d of %d trials", shardOf(s), len(s.Runs), s.Trials))
	}
	meta = append(meta, plural(len(arms), "arm"))
	if len(s.Set) > 0 {
		meta = append(meta, "set: "+strings.Join(s.Set, "; "))
	}
	meta = append(meta, armSetTexts(s)...)
	p.Meta = strings.Join(meta, " · ")
	if len(s.Runs) == 0 {
		return p
	}
	p.First = arms[0]
	for i, a := range arms {
		p.Arms = append(p.Arms, armView{Name: a, Class: armClass(i)})
	}
	for _, d := range s.Deltas {
		p.Deltas = append(p.Deltas, d.Arm+" − "+d.Versus)
	}
	p.Columns = 1 + len(arms) + 2*len(s.Deltas)
	for i, f := range s.Figures {
		if !trials.Shown(i, s) {
			continue
		}
		if len(p.Sections) == 0 || p.Sections[len(p.Sections)-1].Title != f.Section {
			p.Sections = append(p.Sections, trialSection{Title: f.Section})
		}
		row := trialRow{Label: f.Label}
		for j, a := range s.Spread {
			v := spreadOf(f, a.Figures[i], false)
			v.Strip = newStrip(s, j, f, a.Figures[i])
			row.Arms = append(row.Arms, v)
		}
		for _, d := range s.Deltas {
			ds := d.Figures[i]
			v := spreadOf(f, ds.Stats, true)
			v.Better = pairedCell(s, i, f, ds)
			if v.Better == setByInputs {
				v.Better = "set by inputs" // the page's column has the room
			}
			if ds.N >= 2 && ds.CI95Low != ds.CI95High {
				ci := "mean, 95% CI: " + figureValue(f, ds.CI95Low, true) + " – " + figureValue(f, ds.CI95High, true)
				v.Note = strings.TrimPrefix(v.Note+"; "+ci, "; ")
			}
			row.Deltas = append(row.Deltas, v)
		}
		sec := &p.Sections[len(p.Sections)-1]
		sec.Rows = append(sec.Rows, row)
	}
	if anySetByInputs(s) {
		p.SetByInputs = "Set by inputs: " + setByInputsWhy
	}
	if hasObjectives(s) {
		for j, o := range s.Spread[0].Objectives {
			obj := trialObjective{Name: objectiveName(o.Name, o.Statistic)}
			for _, a := range s.Spread {
				if j >= len(a.Objectives) {
					obj.Cells = append(obj.Cells, objectiveView{})
					continue
				}
				obj.Cells = append(obj.Cells, objectiveOf(a.Objectives[j]))
			}
			p.Objectives = append(p.Objectives, obj)
		}
	}
	p.Alerts = trialAlerts(s)
	for _, a := range s.Spread {
		held := len(s.Runs) - a.InvariantFailures
		c := cell{Text: fmt.Sprintf("%s: every invariant held in %d of %d trials", a.Arm, held, len(s.Runs)), Class: "pass"}
		if a.InvariantFailures > 0 {
			c.Class = "fail"
		}
		p.Invariants = append(p.Invariants, c)
	}
	for _, r := range s.Runs {
		for _, a := range r.Arms {
			for _, inv := range a.InvariantsFailed {
				p.Failed = append(p.Failed, fmt.Sprintf("seed %d, %s: %s", r.Seed, a.Name, inv))
			}
		}
	}
	seeds := make([]string, len(s.Runs))
	for i, r := range s.Runs {
		seeds[i] = fmt.Sprint(r.Seed)
	}
	p.SeedList = "Seeds " + strings.Join(seeds, ", ")
	return p
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// spreadOf splits a spread into the cell's lines.
func spreadOf(f trials.Figure, st trials.Stats, signed bool) spreadView {
	if st.N == 0 {
		return spreadView{Median: "–"}
	}
	v := spreadView{Median: figureValue(f, st.Median, signed)}
	if lo, hi := figureValue(f, st.Min, signed), figureValue(f, st.Max, signed); lo != hi {
		v.Range = lo + " – " + hi
	}
	if st.Missing > 0 {
		word := "missing"
		if f.Unit == "s" && !signed {
			word = "never"
		}
		v.Note = fmt.Sprintf("%s in %d", word, st.Missing)
	}
	return v
}

func objectiveOf(o trials.ObjectiveSpread) objectiveView {
	v := objectiveView{Passed: fmt.Sprintf("%d/%d", o.Passed, o.Of), Class: "pass"}
	if o.Passed < o.Of {
		v.Class = "fail"
	}
	st := o.Value
	val := objectiveFormat(o)
	v.Note = objectiveNote(o, val)
	if st.N == 0 {
		v.Value = "n/a"
		if o.Censored > 0 {
			v.Value = "–"
		} else {
			v.Note = ""
		}
		return v
	}
	v.Value = val(st.Median)
	if lo, hi := val(st.Min), val(st.Max); lo != hi {
		v.Range = lo + " – " + hi
	}
	return v
}

// Strip geometry, in the SVG's own units.
const (
	stripW   = 120
	stripH   = 12
	stripPad = 4
)

// strip is a dot plot of one arm's figure across the trials: a dot per trial on the arm's
// own scale, from its lowest value to its highest, and a tick at the median. It shows how
// the trials spread between the range's ends and which seed is an outlier (each dot's
// title names its seed); the range beside it gives the scale.
type strip struct {
	W, H, Y, Top, Bottom, X0, X1 float64
	Class, Label                 string
	MedianX                      float64
	Dots                         []stripDot
}

type stripDot struct {
	X     float64
	Title string
}

// newStrip draws arm j's figure f, whose spread is st; nil when fewer than two trials
// measured it.
func newStrip(s *trials.Summary, j int, f trials.Figure, st trials.Stats) *strip {
	if st.N < 2 {
		return nil
	}
	x := func(v float64) float64 {
		if st.Max == st.Min {
			return stripW / 2
		}
		return chart.Round1(stripPad + (stripW-2*stripPad)*(v-st.Min)/(st.Max-st.Min))
	}
	arm := s.Spread[j].Arm
	sp := &strip{W: stripW, H: stripH, Y: stripH / 2, Top: 1, Bottom: stripH - 1, X0: stripPad, X1: stripW - stripPad,
		Class: armClass(j), MedianX: x(st.Median),
		Label: fmt.Sprintf("%s, %s: %d trials from %s to %s, median %s", arm, f.Label, st.N,
			figureValue(f, st.Min, false), figureValue(f, st.Max, false), figureValue(f, st.Median, false))}
	for _, r := range s.Runs {
		if v := r.Arms[j].Figures[f.Key]; v != nil {
			sp.Dots = append(sp.Dots, stripDot{X: x(*v), Title: fmt.Sprintf("seed %d: %s", r.Seed, figureValue(f, *v, false))})
		}
	}
	return sp
}

// pageStyle is the report's stylesheet followed by a page's own rules, the embedded
// templates/name.
func pageStyle(name string) template.CSS {
	b, err := templateFS.ReadFile("templates/" + name)
	if err != nil {
		panic(err) // embedded at build time
	}
	return style + "\n" + template.CSS(b)
}
