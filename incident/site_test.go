package incident

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func loadRenderExamples(t *testing.T) []*Document {
	t.Helper()
	var docs []*Document
	for _, name := range renderExamples {
		docs = append(docs, loadRenderExample(t, name))
	}
	return docs
}

func TestWriteSite(t *testing.T) {
	out := filepath.Join(t.TempDir(), "site")
	docs := loadRenderExamples(t)
	if err := WriteSite(out, docs); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{
		"inc-eu-common-runtime-router-limit.html",
		"inc-eu-common-runtime-router-limit.public.html",
		"inc-northstar-checkout-overload.html",
		"inc-synthetic-operations-region-review-extended-identifier.html",
		"index.html",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("site files (-want +got):\n%s", diff)
	}

	// Each page is the document's page, with links rewritten relative to the site.
	for _, doc := range docs {
		b, err := os.ReadFile(filepath.Join(out, pageName(doc.ID)+".html"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(`<h1 class="title" id="title">`)) || !bytes.Contains(b, []byte(doc.ID)) {
			t.Errorf("%s: page does not show the document", doc.ID)
		}
	}
	ns, _ := os.ReadFile(filepath.Join(out, "inc-northstar-checkout-overload.html"))
	href := regexp.MustCompile(`href="([^"]*northstar\.scenario\.yaml)"`).FindSubmatch(ns)
	if href == nil {
		t.Fatal("the Northstar page has no replay scenario link")
	}
	got, _ := filepath.Abs(filepath.Join(out, filepath.FromSlash(string(href[1]))))
	wantPath, _ := filepath.Abs(filepath.Join("..", "examples", "northstar", "northstar.scenario.yaml"))
	if got != wantPath {
		t.Errorf("replay link %s resolves to %s, want %s", href[1], got, wantPath)
	}

	index, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "site-index.html", index)
	text := visibleText(string(index))
	for _, s := range []string{
		// Newest first: Northstar (15 Sep 2026), seed 000 (12 Sep 2026), seed 003 (17 Sep 2024).
		"INC-NORTHSTAR-CHECKOUT-OVERLOAD", "SEV-1", "Resolved", "15 Sep 2026", "14:00 – 14:18 UTC", "18 min", "2 min", "16 min",
		"INC-SYNTHETIC-OPERATIONS-REGION-REVIEW-EXTENDED-IDENTIFIER", "12 Sep 2026", "09:14 – 13:01 UTC", "3h 47m", "33 min", "3h 14m",
		"INC-EU-COMMON-RUNTIME-ROUTER-LIMIT", "public summary", "17 Sep 2024", "05:15 – 07:30 UTC", "2h 15m", "39 min", "1h 36m",
	} {
		i := strings.Index(text, s)
		if i < 0 {
			t.Fatalf("index lacks %q (in order); text:\n%s", s, text)
		}
		text = text[i+len(s):]
	}
	ix := visibleText(string(index))
	for _, s := range []string{
		"median 33 min range 2 min – 39 min · n = 3",
		"median 1h 36m range 16 min – 3h 14m · n = 3",
	} {
		if !strings.Contains(ix, s) {
			t.Errorf("index lacks the distribution %q", s)
		}
	}
	// "mean" appears only in the sentence that explains why there is none.
	why := regexp.MustCompile(`(?s)<p class="why">.*?</p>`)
	rest := strings.ToLower(why.ReplaceAllString(string(index), ""))
	for _, bad := range []string{"mean", "mttr", "average"} {
		if strings.Contains(rest, bad) {
			t.Errorf("index mentions %q outside the explanation", bad)
		}
	}
	if !why.MatchString(string(index)) {
		t.Error("index does not explain why it shows no mean")
	}
	low := strings.ToLower(strings.Replace(string(index), `<link rel="icon" href="data:,">`, "", 1))
	for _, bad := range []string{"<script", "<link", "src=", "url(", "http://", "https://"} {
		if strings.Contains(low, bad) {
			t.Errorf("index contains %q", bad)
		}
	}
}

func TestWriteSiteDuplicateIDs(t *testing.T) {
	a := loadRenderExample(t, "router-limit")
	b := loadRenderExample(t, "router-limit")
	b.ID = strings.ToLower(a.ID) // a different ID with the same page name
	out := filepath.Join(t.TempDir(), "site")
	err := WriteSite(out, []*Document{a, b})
	if err == nil || !strings.Contains(err.Error(), "same page name") {
		t.Fatalf("err = %v, want a page-name clash", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the site directory was created despite the error")
	}
}

func TestWriteSiteRenderError(t *testing.T) {
	doc := loadRenderExample(t, "router-limit")
	doc.Summary = "{{nope}}"
	if err := WriteSite(t.TempDir(), []*Document{doc}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("err = %v, want the placeholder error", err)
	}
}

func TestPageName(t *testing.T) {
	for in, want := range map[string]string{
		"INC-2026-0912":          "inc-2026-0912",
		"INC 12 / Ünïcode!!":     "inc-12-n-code",
		"--x--":                  "x",
		"<script>":               "script",
		"":                       "",
		strings.Repeat("a", 300): strings.Repeat("a", 120),
	} {
		if got := pageName(in); got != want {
			t.Errorf("pageName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDistribution(t *testing.T) {
	m := time.Minute
	for _, tc := range []struct {
		name             string
		ds               []time.Duration
		median, min, max string
	}{
		{"odd", []time.Duration{33 * m, 2 * m, 39 * m}, "33 min", "2 min", "39 min"},
		{"even", []time.Duration{10 * m, 2 * m, 30 * m, 4 * time.Hour}, "20 min", "2 min", "4h"},
		{"one", []time.Duration{0}, "0 s", "0 s", "0 s"},
		// Skewed: the median stays with the typical incident; a mean would be 10h 12m.
		{"skewed", []time.Duration{5 * m, 6 * m, 7 * m, 8 * m, 50 * time.Hour}, "7 min", "5 min", "50h"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var samples []distSample
			for i, d := range tc.ds {
				samples = append(samples, distSample{id: string(rune('A' + i)), d: d})
			}
			v := distribution("TTD", "", "ttd", samples, len(samples)+1)
			if v.Median != tc.median || v.Min != tc.min || v.Max != tc.max || v.N != len(tc.ds) || v.Missing != 1 {
				t.Errorf("got median %s, range %s – %s, n %d, missing %d; want %s, %s – %s, n %d, missing 1",
					v.Median, v.Min, v.Max, v.N, v.Missing, tc.median, tc.min, tc.max, len(tc.ds))
			}
			p := v.Plot
			if len(p.Dots) != len(tc.ds) {
				t.Fatalf("%d dots for %d incidents", len(p.Dots), len(tc.ds))
			}
			for i, d := range p.Dots {
				if d.X < p.Left || d.X > p.Right {
					t.Errorf("dot %d at x=%v outside the axis [%v, %v]", i, d.X, p.Left, p.Right)
				}
				if i > 0 && d.X < p.Dots[i-1].X {
					t.Errorf("dots are not in increasing order of duration")
				}
			}
			if last := p.Ticks[len(p.Ticks)-1]; last.X < p.Dots[len(p.Dots)-1].X {
				t.Errorf("the axis ends (%s at %v) before the longest incident (%v)", last.Label, last.X, p.Dots[len(p.Dots)-1].X)
			}
		})
	}
	if v := distribution("TTD", "", "ttd", nil, 2); v.N != 0 || v.Plot != nil || v.Missing != 2 {
		t.Errorf("empty distribution: %+v", v)
	}
}
