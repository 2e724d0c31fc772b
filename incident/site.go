package incident

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/goodput-lab/goodput/chart"
)

// WriteSite writes a static site of postmortems to outDir (created if needed): one page
// per document, NAME.html, rendered by [RenderHTML] (and NAME.public.html for documents
// with a public section), where NAME is the document's ID in lower case with every run of
// other characters than letters and digits replaced by "-"; and index.html, which lists
// the incidents (ID, title, severity, status, dates, duration, time to detect, time to
// mitigate), newest first, and shows time to detect and time to mitigate as
// distributions — median, range and count, with a dot plot — never as a mean.
//
// Links a document makes to files beside it (the replay scenario and packet) are
// rewritten relative to outDir. Nothing is written when a page cannot be rendered; the
// error names the document.
func WriteSite(outDir string, docs []*Document) error {
	type page struct {
		doc       *Document
		name      string
		html, pub []byte
	}
	pages := make([]page, 0, len(docs))
	byName := map[string]*Document{}
	for i, doc := range docs {
		name := pageName(doc.ID)
		if name == "" {
			name = fmt.Sprintf("incident-%d", i+1)
		}
		if other, dup := byName[name]; dup {
			return fmt.Errorf("incident: %s and %s have the same page name %s.html (IDs %q and %q); give them distinct IDs", other.name(), doc.name(), name, other.ID, doc.ID)
		}
		byName[name] = doc
		opts := RenderOptions{LinkBase: linkBase(outDir, doc.file)}
		var html bytes.Buffer
		if err := RenderHTML(&html, doc, opts); err != nil {
			return err
		}
		p := page{doc: doc, name: name, html: html.Bytes()}
		if doc.Public != nil {
			var pub bytes.Buffer
			opts.Public = true
			if err := RenderHTML(&pub, doc, opts); err != nil {
				return err
			}
			p.pub = pub.Bytes()
		}
		pages = append(pages, p)
	}

	idx := indexView{Count: len(docs)}
	var ttd, ttm []distSample
	for _, p := range pages {
		row := p.doc.indexRow(p.name)
		if p.pub != nil {
			row.PublicHref = p.name + ".public.html"
		}
		idx.Rows = append(idx.Rows, row)
		dv := p.doc.Derived()
		if s := dv.TTD; s != nil && s.Duration() >= 0 {
			ttd = append(ttd, distSample{p.doc.ID, s.Duration()})
		}
		if s := dv.TTM; s != nil && s.Duration() >= 0 {
			ttm = append(ttm, distSample{p.doc.ID, s.Duration()})
		}
	}
	slices.SortStableFunc(idx.Rows, func(a, b indexRow) int {
		switch {
		case a.start.IsZero() && b.start.IsZero():
			return cmp.Compare(a.ID, b.ID)
		case a.start.IsZero():
			return 1
		case b.start.IsZero():
			return -1
		}
		return cmp.Or(b.start.Compare(a.start), cmp.Compare(a.ID, b.ID))
	})
	idx.Dists = []distView{
		distribution("Time to detect", "impact start → detected", "ttd", ttd, len(docs)),
		distribution("Time to mitigate", "detected → mitigated", "ttm", ttm, len(docs)),
	}
	var index bytes.Buffer
	if err := templates.ExecuteTemplate(&index, "index", idx); err != nil {
		return fmt.Errorf("incident: %w", err)
	}

	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return fmt.Errorf("incident: %w", err)
	}
	write := func(name string, b []byte) error {
		if err := os.WriteFile(filepath.Join(outDir, name), b, 0o644); err != nil {
			return fmt.Errorf("incident: %w", err)
		}
		return nil
	}
	for _, p := range pages {
		if err := write(p.name+".html", p.html); err != nil {
			return err
		}
		if p.pub != nil {
			if err := write(p.name+".public.html", p.pub); err != nil {
				return err
			}
		}
	}
	return write("index.html", index.Bytes())
}

// pageName turns an incident ID into a file name: lower case, letters and digits, runs
// of anything else as one "-", at most 120 bytes.
func pageName(id string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(id) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			if b.Len() >= 120 {
				break
			}
			continue
		}
		dash = true
	}
	return b.String()
}

// linkBase is the slash path from outDir to the directory of the document file, or ""
// when either cannot be made absolute or the document was not read from a file.
func linkBase(outDir, file string) string {
	if file == "" {
		return ""
	}
	out, err1 := filepath.Abs(outDir)
	dir, err2 := filepath.Abs(filepath.Dir(file))
	if err1 != nil || err2 != nil {
		return ""
	}
	rel, err := filepath.Rel(out, dir)
	if err != nil || rel == "." {
		return ""
	}
	return filepath.ToSlash(rel)
}

// indexView is the site's index page.
type indexView struct {
	Count int
	Rows  []indexRow
	Dists []distView
}

type indexRow struct {
	Href, PublicHref      string
	ID, Title, Severity   string
	Status, StatusClass   string
	Date, DateISO, Window string
	Duration, TTD, TTM    string
	start                 time.Time
}

func (d *Document) indexRow(name string) indexRow {
	r := indexRow{Href: name + ".html", ID: d.ID, Severity: d.Severity, Status: d.Status.Label(), StatusClass: string(d.Status)}
	if t, err := d.Expand(d.Title); err == nil {
		r.Title = strings.Join(strings.Fields(t), " ")
	} else {
		r.Title = strings.Join(strings.Fields(d.Title), " ")
	}
	loc := d.Location()
	if start, ok := d.Instant(MilestoneImpactStart); ok {
		r.start = start
		s := start.In(loc)
		r.Date, r.DateISO = s.Format("2 Jan 2006"), start.UTC().Format(time.RFC3339)
		r.Window = s.Format("15:04")
		end, ok := d.Instant(MilestoneMitigated)
		if !ok {
			end, ok = d.Instant(MilestoneResolved)
		}
		if ok {
			e := end.In(loc)
			if e.Format(time.DateOnly) == s.Format(time.DateOnly) {
				r.Window += " – " + e.Format("15:04")
			} else {
				r.Window += " – " + e.Format("2 Jan 15:04")
			}
		}
		r.Window += " " + loc.String()
	}
	dv := d.Derived()
	show := func(s *Span) string {
		if s == nil || s.Duration() < 0 {
			return "—"
		}
		return s.String()
	}
	r.Duration, r.TTD, r.TTM = show(dv.Duration), show(dv.TTD), show(dv.TTM)
	return r
}

// distSample is one incident's duration in a distribution.
type distSample struct {
	id string
	d  time.Duration
}

// distView is a distribution of durations across incidents, ready to show: median,
// range, count and a dot plot on a log-like axis (log of 1 + minutes, so 0 fits).
type distView struct {
	Name, Definition, ID string
	N, Missing           int
	Median, Min, Max     string
	Plot                 *stripPlot
}

type stripPlot struct {
	W, H, Y0, Y1 float64 // the axis runs at Y1; dots sit between Y0 and Y1
	Left, Right  float64
	MedianX      float64
	Dots         []stripDot
	Ticks        []stripTick
}

type stripDot struct {
	X, Y  float64
	Title string // "INC-1: 33 min"
}

type stripTick struct {
	X     float64
	Label string
}

// tickLadder are the durations the dot plot's axis may label.
var tickLadder = []struct {
	d     time.Duration
	label string
}{
	{0, "0"}, {time.Minute, "1m"}, {5 * time.Minute, "5m"}, {15 * time.Minute, "15m"},
	{time.Hour, "1h"}, {4 * time.Hour, "4h"}, {24 * time.Hour, "1d"}, {7 * 24 * time.Hour, "1w"},
	{30 * 24 * time.Hour, "30d"}, {365 * 24 * time.Hour, "1y"},
}

func distribution(name, definition, id string, samples []distSample, total int) distView {
	v := distView{Name: name, Definition: definition, ID: id, N: len(samples), Missing: total - len(samples)}
	if len(samples) == 0 {
		return v
	}
	ds := make([]time.Duration, len(samples))
	for i, s := range samples {
		ds[i] = s.d
	}
	slices.Sort(ds)
	n := len(ds)
	med := ds[n/2]
	if n%2 == 0 {
		med = (ds[n/2-1] + ds[n/2]) / 2
	}
	v.Median, v.Min, v.Max = FormatDuration(med), FormatDuration(ds[0]), FormatDuration(ds[n-1])

	p := &stripPlot{W: 320, H: 56, Y0: 8, Y1: 34, Left: 12, Right: 308}
	scale := func(d time.Duration) float64 { return math.Log10(1 + d.Minutes()) }
	hi := tickLadder[len(tickLadder)-1].d
	for _, t := range tickLadder[1:] {
		if t.d >= ds[n-1] {
			hi = t.d
			break
		}
	}
	x := func(d time.Duration) float64 { return chart.Round1(p.Left + (p.Right-p.Left)*scale(d)/scale(hi)) }
	for _, t := range tickLadder {
		if t.d > hi {
			break
		}
		p.Ticks = append(p.Ticks, stripTick{X: x(t.d), Label: t.label})
	}
	sorted := slices.Clone(samples)
	slices.SortStableFunc(sorted, func(a, b distSample) int { return cmp.Compare(a.d, b.d) })
	for i, s := range sorted {
		// Nearby dots alternate between three heights so that ties stay visible.
		y := (p.Y0+p.Y1)/2 + float64(i%3-1)*7
		p.Dots = append(p.Dots, stripDot{X: x(s.d), Y: y, Title: s.id + ": " + FormatDuration(s.d)})
	}
	p.MedianX = x(med)
	v.Plot = p
	return v
}

// TickEnd is where the axis ticks end, under the axis.
func (p *stripPlot) TickEnd() float64 { return p.Y1 + 4 }

// LabelY is the baseline of the tick labels.
func (p *stripPlot) LabelY() float64 { return p.Y1 + 16 }

// DistLabel describes a dot plot for assistive technology.
func (v indexView) DistLabel(p *stripPlot) string {
	for _, d := range v.Dists {
		if d.Plot == p {
			return fmt.Sprintf("%s of %d incidents: median %s, range %s to %s", d.Name, d.N, d.Median, d.Min, d.Max)
		}
	}
	return ""
}
