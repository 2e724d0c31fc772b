package report

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/goodput-lab/goodput/internal/browsertest"
	"github.com/goodput-lab/goodput/trials"
)

// drawn is what the browser test measures on a report page.
type drawn struct {
	DocScrollW float64 `json:"docScrollW"`
	InnerWidth float64 `json:"innerWidth"`
	Scripts    int     `json:"scripts"`
	// KeyOverflow is how far the key figures' table is wider than its box (it scrolls).
	KeyOverflow float64 `json:"keyOverflow"`
	// PartsOverflow is how far each table of the cells or the breakers is wider than its
	// box.
	PartsOverflow []float64 `json:"partsOverflow"`
	Charts        []struct {
		ID      string    `json:"id"`
		Width   float64   `json:"width"`
		Height  float64   `json:"height"`
		Lines   []float64 `json:"lines"`   // the length of each polyline
		Overlap []string  `json:"overlap"` // marker labels whose boxes intersect
	} `json:"charts"`
}

const drawnJS = `(() => {
  const charts = [];
  for (const svg of document.querySelectorAll('svg.chart')) {
    const r = svg.getBoundingClientRect();
    const labels = [...svg.querySelectorAll('text.marker-label')].map(t => ({text: t.textContent, b: t.getBBox()}));
    const overlap = [];
    for (let i = 0; i < labels.length; i++) for (let j = i + 1; j < labels.length; j++) {
      const a = labels[i].b, b = labels[j].b;
      if (a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height)
        overlap.push(labels[i].text + ' / ' + labels[j].text);
    }
    charts.push({id: svg.closest('figure').id, width: r.width, height: r.height,
      lines: [...svg.querySelectorAll('polyline')].map(p => p.getTotalLength()),
      overlap: overlap});
  }
  const key = document.querySelector('#key-figures .scroll');
  const parts = [...document.querySelectorAll('table.parts')].map(t => { const b = t.closest('.scroll'); return b.scrollWidth - b.clientWidth; });
  return {docScrollW: document.documentElement.scrollWidth, innerWidth: innerWidth,
    scripts: document.scripts.length, keyOverflow: key ? key.scrollWidth - key.clientWidth : 0, partsOverflow: parts, charts: charts};
})()`

// TestBrowserReport opens six report pages in headless Chromium — the golden pages of the
// synthetic packet (testdata/report.html), of one with cells and breakers
// (testdata/report-parts.html) and of a lab's (testdata/report-lab.html), the Northstar
// replay's (examples/northstar/packet/report.html), its cache variant's and the failover
// example's (examples/failover/packet/report.html) — at phone (375 px) and desktop
// (1280 px) widths
// and with the print stylesheet on an A4 width (794 px): the page does not scroll sideways
// (wide charts and tables scroll in their own boxes), every chart is drawn with lines of
// some length, no two marker labels overlap, the key figures and the tables of the cells
// and the breakers fit at 1280 px, and the page requests nothing but itself.
// Full-page screenshots go to $GOODPUT_ARTIFACTS (or a temporary directory); with
// $GOODPUT_SCREENSHOT_DIR set, the top of the Northstar page at 1280 px is also written
// there as replay-northstar.png (the README's screenshot).
func TestBrowserReport(t *testing.T) {
	forEachView(t, map[string]string{
		"synthetic": filepath.Join("testdata", "report.html"),
		"northstar": filepath.Join("..", "examples", "northstar", "packet", HTMLFile),
		// With caches: their hit-ratio and entries charts.
		"northstar-cache": filepath.Join("..", "examples", "northstar", "cache", "packet", HTMLFile),
		// A lab's four arms, two live and two replayed: their key figures fit 1280 px.
		"lab": filepath.Join("testdata", "report-lab.html"),
		// Cells and breakers: their tables, and a few of their events marked.
		"parts":    filepath.Join("testdata", "report-parts.html"),
		"failover": filepath.Join("..", "examples", "failover", "packet", HTMLFile),
	}, func(t *testing.T, br *browsertest.Browser, page string, width int64, media string) {
		m, err := chromedp.Run(br.Context(), chromedp.Evaluate[drawn](drawnJS))
		if err != nil {
			t.Fatal(err)
		}
		checkDrawn(t, m)
		if width == 1280 && m.KeyOverflow > 0.5 {
			t.Errorf("the key figures scroll sideways at 1280 px: %v px wider than their box", m.KeyOverflow)
		}
		if want := map[string]int{"parts": 2, "failover": 1}[page]; len(m.PartsOverflow) != want {
			t.Errorf("%d tables of cells and breakers, want %d", len(m.PartsOverflow), want)
		}
		for i, o := range m.PartsOverflow {
			if width == 1280 && o > 0.5 {
				t.Errorf("table %d of the cells and breakers scrolls sideways at 1280 px: %v px wider than its box", i, o)
			}
		}
		if page == "northstar" && width == 1280 && media == "" {
			// The README shows the top of the page: the key figures and the first charts.
			screenshotTop(t, br, 1500, "replay-northstar.png")
		}
	})
}

// screenshotTop writes the top height px of the page open in br, at 1280 px wide, to
// $GOODPUT_SCREENSHOT_DIR/name when that is set (the screenshots in README.md and docs/).
func screenshotTop(t *testing.T, br *browsertest.Browser, height int64, name string) {
	t.Helper()
	dir := os.Getenv("GOODPUT_SCREENSHOT_DIR")
	if dir == "" {
		return
	}
	if err := chromedp.Do(br.Context(), chromedp.EmulateViewport(1280, height)); err != nil {
		t.Fatal(err)
	}
	top, err := chromedp.Run(br.Context(), chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	small, err := browsertest.CompactPNG(top)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), small, 0o644); err != nil {
		t.Fatal(err)
	}
}

// forEachView opens each page (name → file) in headless Chromium at 375 px, at 1280 px and
// with the print stylesheet on an A4 width (794 px), runs check on it in a subtest, checks
// that the page requested nothing but itself, and saves a full-page screenshot to
// $GOODPUT_ARTIFACTS (or a temporary directory).
func forEachView(t *testing.T, files map[string]string, check func(t *testing.T, br *browsertest.Browser, page string, width int64, media string)) {
	t.Helper()
	var pages []browsertest.Page
	for _, name := range slices.Sorted(maps.Keys(files)) {
		html, err := os.ReadFile(files[name])
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, browsertest.Page{Name: name, HTML: html})
	}
	br := browsertest.Start(t, 60*time.Second, pages...)
	artifacts := browsertest.Artifacts(t)
	for _, page := range pages {
		for _, view := range []struct {
			width int64
			media string
		}{{375, ""}, {1280, ""}, {794, "print"}} {
			name := page.Name + "-" + strconv.FormatInt(view.width, 10)
			if view.media != "" {
				name = page.Name + "-" + view.media
			}
			t.Run(name, func(t *testing.T) {
				if err := br.Load(page.Name, view.width, view.media); err != nil {
					t.Fatal(err)
				}
				check(t, br, page.Name, view.width, view.media)
				for _, u := range br.Foreign(page.Name) {
					t.Errorf("the page requested %s", u)
				}
				shot, err := chromedp.Run(br.Context(), chromedp.FullScreenshot(100))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(artifacts, "report-"+name+".png"), shot, 0o644); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// checkDrawn reports what is wrong with a page's measured drawing.
func checkDrawn(t *testing.T, m drawn) {
	t.Helper()
	if m.DocScrollW > m.InnerWidth {
		t.Errorf("the page scrolls sideways: scrollWidth %v > innerWidth %v", m.DocScrollW, m.InnerWidth)
	}
	if m.Scripts != 0 {
		t.Errorf("the page has %d scripts", m.Scripts)
	}
	if len(m.Charts) < 5 {
		t.Errorf("%d charts drawn, want at least five", len(m.Charts))
	}
	for _, c := range m.Charts {
		if c.Width < 300 || c.Height < 30 {
			t.Errorf("%s: drawn %v × %v px", c.ID, c.Width, c.Height)
		}
		for i, l := range c.Lines {
			if l <= 0 {
				t.Errorf("%s: line %d has no length", c.ID, i)
			}
		}
		if len(c.Overlap) > 0 {
			t.Errorf("%s: marker labels overlap: %v", c.ID, c.Overlap)
		}
	}
}

// stripsJS measures a sweep page: the page's width and its strips' drawn sizes.
const stripsJS = `(() => ({docScrollW: document.documentElement.scrollWidth, innerWidth: innerWidth,
  scripts: document.scripts.length,
  strips: [...document.querySelectorAll('svg.strip')].map(s => { const r = s.getBoundingClientRect(); return [r.width, r.height]; }),
  dots: document.querySelectorAll('svg.strip circle').length}))()`

type stripsDrawn struct {
	pageBox
	Strips [][]float64 `json:"strips"`
	Dots   int         `json:"dots"`
}

// pageBox is what every page must keep: its width within the window's, and no script.
type pageBox struct {
	DocScrollW float64 `json:"docScrollW"`
	InnerWidth float64 `json:"innerWidth"`
	Scripts    int     `json:"scripts"`
}

func (b pageBox) check(t *testing.T) {
	t.Helper()
	if b.InnerWidth == 0 {
		t.Error("the page's width was not measured")
	}
	if b.DocScrollW > b.InnerWidth {
		t.Errorf("the page scrolls sideways: scrollWidth %v > innerWidth %v", b.DocScrollW, b.InnerWidth)
	}
	if b.Scripts != 0 {
		t.Errorf("the page has %d scripts", b.Scripts)
	}
}

// TestBrowserTrials opens two sweep pages — the golden synthetic one (testdata/trials.html)
// and ten seeds of Northstar (examples/northstar/trials/trials.html) — at 375 px, 1280 px
// and in print: the page does not scroll sideways (its table scrolls in its own box), it
// has no script and requests nothing, and every strip is drawn at a readable size.
func TestBrowserTrials(t *testing.T) {
	forEachView(t, map[string]string{
		"synthetic-trials": filepath.Join("testdata", "trials.html"),
		"northstar-trials": filepath.Join("..", "examples", "northstar", "trials", TrialsHTMLFile),
	}, func(t *testing.T, br *browsertest.Browser, _ string, _ int64, _ string) {
		m, err := chromedp.Run(br.Context(), chromedp.Evaluate[stripsDrawn](stripsJS))
		if err != nil {
			t.Fatal(err)
		}
		m.check(t)
		if len(m.Strips) < 40 || m.Dots < 5*len(m.Strips) {
			t.Errorf("%d strips with %d dots", len(m.Strips), m.Dots)
		}
		for i, s := range m.Strips {
			if s[0] < 80 || s[1] < 6 {
				t.Errorf("strip %d drawn %v × %v px", i, s[0], s[1])
			}
		}
	})
}

// gridsJS measures a grid page: the page's width and each grid table's drawn size.
const gridsJS = `(() => ({docScrollW: document.documentElement.scrollWidth, innerWidth: innerWidth,
  scripts: document.scripts.length,
  grids: [...document.querySelectorAll('table.grid')].map(t => { const r = t.getBoundingClientRect(); return [r.width, r.height]; })}))()`

type gridsDrawn struct {
	pageBox
	Grids [][]float64 `json:"grids"`
}

// TestBrowserVary opens the golden grid page (testdata/vary.html: x.y = 1, 2 × z = a, b, c)
// at 375 px, 1280 px and in print: the page does not scroll sideways (a wide grid scrolls
// in its own box), it has no script and requests nothing, and every grid — one per arm of
// each objective, per arm and difference of each figure, per arm of the invariants — is
// drawn with some size.
func TestBrowserVary(t *testing.T) {
	example := filepath.Join("..", "examples", "northstar", "metastable")
	m, err := trials.ReadGridFile(example)
	if err != nil {
		t.Fatal(err)
	}
	ns, err := trials.ReadFile(filepath.Join(example, filepath.FromSlash(m.Dirs[0])))
	if err != nil {
		t.Fatal(err)
	}
	// A grid per figure for each arm and difference, per objective (and all at once) and
	// per alert rule for each arm, and the invariants' for each arm.
	grids := func(s *trials.Summary) int {
		shown := 0
		for i := range s.Figures {
			if trials.Shown(i, s) {
				shown++
			}
		}
		return shown*(len(s.Spread)+len(s.Deltas)) + (len(s.Spread[0].Objectives)+2+len(alertNames(s)))*len(s.Spread)
	}
	want := map[string]int{
		"synthetic-vary":       grids(varyGrid(t, []string{"x.y", "z"}, [][]string{{"1", "2"}, {"a", "b", "c"}}).Sums[0]),
		"northstar-metastable": grids(ns),
	}
	forEachView(t, map[string]string{
		"synthetic-vary":       filepath.Join("testdata", VaryHTMLFile),
		"northstar-metastable": filepath.Join(example, VaryHTMLFile),
	}, func(t *testing.T, br *browsertest.Browser, page string, width int64, media string) {
		m, err := chromedp.Run(br.Context(), chromedp.Evaluate[gridsDrawn](gridsJS))
		if err != nil {
			t.Fatal(err)
		}
		m.check(t)
		if len(m.Grids) != want[page] {
			t.Errorf("%d grids drawn, want %d", len(m.Grids), want[page])
		}
		for i, r := range m.Grids {
			if r[0] < 100 || r[1] < 40 {
				t.Errorf("grid %d drawn %v × %v px", i, r[0], r[1])
			}
		}
		if page == "northstar-metastable" && width == 1280 && media == "" {
			// docs/northstar.md shows the top: the grid of every objective at once.
			screenshotTop(t, br, 1900, "vary-northstar.png")
		}
	})
}

// columnsJS measures a grid page's tables and overload curve: each table whose box scrolls
// or has a cell outside the box or the window (a column hidden at the right), and each
// curve panel's drawn size with its lines and bands.
const columnsJS = `(() => {
  const hidden = [];
  const tables = document.querySelectorAll('table.grid');
  for (const t of tables) {
    const box = t.closest('.scroll'), b = box.getBoundingClientRect();
    const name = (t.caption ? t.caption.textContent + ' ' : '') + (t.closest('.grids').previousElementSibling || {}).textContent;
    if (box.scrollWidth > box.clientWidth + 0.5) hidden.push(name + ': scrolls, ' + box.scrollWidth + ' > ' + box.clientWidth + ' px');
    for (const c of t.querySelectorAll('th, td')) {
      const r = c.getBoundingClientRect();
      if (r.right > b.right + 0.5 || r.right > innerWidth) { hidden.push(name + ': "' + c.textContent + '" ends at ' + r.right + ' px, past ' + b.right); break; }
    }
  }
  return {docScrollW: document.documentElement.scrollWidth, innerWidth: innerWidth,
    scripts: document.scripts.length, tables: tables.length, hidden: hidden,
    curves: [...document.querySelectorAll('svg.curve')].map(s => { const r = s.getBoundingClientRect();
      return [r.width, r.height, s.querySelectorAll('polyline').length, s.querySelectorAll('polygon').length]; })};
})()`

type columnsDrawn struct {
	pageBox
	Tables int         `json:"tables"`
	Hidden []string    `json:"hidden"`
	Curves [][]float64 `json:"curves"`
}

// TestBrowserVaryColumns opens the golden page of one offered rate at four values
// (testdata/vary-rate.html) and the example grid with the longest paths (the catalog
// dependency's timeout × concurrency) at 375 px, 1280 px and in print: at 1280 px and in
// print every column of every table is in view (none scrolled out of its box: the column
// of the highest value is where the cliff is), the page never scrolls sideways, and on
// the rate page each panel of the overload curve is drawn at a readable size with a line
// and a band per arm.
func TestBrowserVaryColumns(t *testing.T) {
	forEachView(t, map[string]string{
		"rate-vary":    filepath.Join("testdata", "vary-rate.html"),
		"catalog-vary": filepath.Join("..", "examples", "northstar", "cache", "catalog", VaryHTMLFile),
	}, func(t *testing.T, br *browsertest.Browser, page string, width int64, media string) {
		m, err := chromedp.Run(br.Context(), chromedp.Evaluate[columnsDrawn](columnsJS))
		if err != nil {
			t.Fatal(err)
		}
		m.check(t)
		if m.Tables == 0 {
			t.Error("no tables drawn")
		}
		if width >= 794 {
			for _, h := range m.Hidden {
				t.Errorf("a column is out of view: %s", h)
			}
		}
		if page != "rate-vary" {
			if len(m.Curves) != 0 {
				t.Errorf("%d curve panels on a page that varies no offered rate", len(m.Curves))
			}
			return
		}
		if len(m.Curves) != len(curveFigures) {
			t.Errorf("%d curve panels drawn, want %d", len(m.Curves), len(curveFigures))
		}
		for i, c := range m.Curves {
			if c[0] < 280 || c[1] < 150 || c[2] != 2 || c[3] != 2 {
				t.Errorf("panel %d drawn %v × %v px with %v lines and %v bands", i, c[0], c[1], c[2], c[3])
			}
		}
	})
}
