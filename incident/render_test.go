package incident

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden from the current output")

// renderExamples are the example documents rendered by the golden tests.
var renderExamples = []string{"payment-timeout", "router-limit", "northstar"}

func loadRenderExample(t testing.TB, name string) *Document {
	t.Helper()
	doc, err := Load(filepath.Join("..", "examples", "incidents", name+".incident.yaml"))
	if err != nil {
		t.Fatalf("Load(%s): %v", name, err)
	}
	return doc
}

// golden compares got with testdata/golden/name, or rewrites the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./incident -run %s -update to create it)", err, t.Name())
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs from the golden file (-want +got; rerun with -update if the change is intended):\n%s", path, diff)
	}
}

func TestRenderGolden(t *testing.T) {
	for _, name := range renderExamples {
		doc := loadRenderExample(t, name)
		// The file name the document was loaded with is shown in the footer; make it
		// independent of the directory the test runs in.
		doc.file = name + ".incident.yaml"
		for _, tc := range []struct {
			suffix string
			render func(*bytes.Buffer, RenderOptions) error
			opts   RenderOptions
		}{
			{".html", func(b *bytes.Buffer, o RenderOptions) error { return RenderHTML(b, doc, o) }, RenderOptions{}},
			{".md", func(b *bytes.Buffer, o RenderOptions) error { return RenderMarkdown(b, doc, o) }, RenderOptions{}},
			{".public.html", func(b *bytes.Buffer, o RenderOptions) error { return RenderHTML(b, doc, o) }, RenderOptions{Public: true}},
			{".public.md", func(b *bytes.Buffer, o RenderOptions) error { return RenderMarkdown(b, doc, o) }, RenderOptions{Public: true}},
		} {
			t.Run(name+tc.suffix, func(t *testing.T) {
				var buf bytes.Buffer
				err := tc.render(&buf, tc.opts)
				if tc.opts.Public && doc.Public == nil {
					if !errors.Is(err, ErrNoPublic) {
						t.Fatalf("public form of a document without a public section: err = %v, want ErrNoPublic", err)
					}
					if buf.Len() != 0 {
						t.Errorf("wrote %d bytes despite the error", buf.Len())
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				golden(t, name+tc.suffix, buf.Bytes())
			})
		}
	}
}

func TestRenderChartSVGGolden(t *testing.T) {
	doc := loadRenderExample(t, "payment-timeout")
	var buf bytes.Buffer
	if err := RenderChartSVG(&buf, doc); err != nil {
		t.Fatal(err)
	}
	golden(t, "payment-timeout.chart.svg", buf.Bytes())

	if err := RenderChartSVG(&buf, loadRenderExample(t, "router-limit")); err == nil {
		t.Error("RenderChartSVG of a document without a series: want an error")
	}
}

// TestSeed000Page checks the rendered seed 000 page against the seed: every field the
// seed page shows is on the rendered page, in the seed's order.
func TestSeed000Page(t *testing.T) {
	doc := loadRenderExample(t, "payment-timeout")
	var buf bytes.Buffer
	if err := RenderHTML(&buf, doc, RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	text := visibleText(buf.String())
	inOrder := []string{
		"Incident", "INC-SYNTHETIC-OPERATIONS-REGION-REVIEW-EXTENDED-IDENTIFIER",
		"Status", "Resolved", "Authors", "D. Kaur, R. Idowu", "Reviewed", "18 Sep 2026",
		"Synthetic extended title for an unusually complex cross-functional operating review, including multiple regions, jointly accountable teams, a revised delivery window and the full descriptive name without any ellipsis",
		"Impact", "Duration", "3h 47m", "09:14 – 13:01 UTC", "Customers", "12,400", "18% of active accounts",
		"Failed checkouts", "41,900", "39,600 recovered by retry", "Data loss", "None", "No double charges",
		"A dependency bump raised the payment-provider timeout from two seconds to thirty.",
		"Gridlines 0/30/60%. Dashed: detected 09:47 at 6%, mitigated 13:01. Peak 52% — nine times worse than when the alert fired.",
		"Timeline · 12 September, UTC",
		"09:02", "Release 2026.9.3 rolls out",
		"09:14", "Impact begins", "Impact start",
		"09:47", "Detected", "33 min to detect",
		"10:26", "Scaling up makes it worse",
		"13:01", "Mitigated", "3h 47m total",
		"Root cause", "A timeout raised from 2s to 30s turned a slow dependency into an outage.",
		"A pool's throughput is capacity divided by hold time.",
		"Contributing factors", "01", "The latency SLO is measured at p50", "02", "A behaviour change hid inside a dependency bump",
		"03", "The runbook's first move is the wrong move here",
		"What went well", "Idempotency keys held.", "The rollback was clean.",
		"ID", "Action", "Owner", "Due", "Status",
		"AI-1", "Alert on p99 checkout latency and on success rate, not p50 alone.", "M. Halvorsen", "19 Sep", "Done",
		"AI-2", "R. Idowu", "26 Sep", "In progress",
		"AI-3", "Platform", "3 Oct", "Not started",
		"AI-4", "D. Kaur", "10 Oct", "Not started",
	}
	pos := 0
	for _, s := range inOrder {
		i := strings.Index(text[pos:], s)
		if i < 0 {
			t.Fatalf("%q not found after offset %d of the page's text (in the seed's order); page text:\n%s", s, pos, text)
		}
		pos += i + len(s)
	}
	if strings.Contains(text, "…") || strings.Contains(text, "...") {
		t.Error("the page contains an ellipsis")
	}
}

var (
	tagRe   = regexp.MustCompile(`(?s)<style>.*?</style>|<title[^>]*>.*?</title>|<desc[^>]*>.*?</desc>|<[^>]+>`)
	spaceRe = regexp.MustCompile(`\s+`)
)

// visibleText approximates the text a reader sees: tags, styles and SVG metadata
// removed, entities for quotes and ampersands decoded, spaces collapsed.
func visibleText(html string) string {
	s := tagRe.ReplaceAllString(html, " ")
	s = strings.NewReplacer("&#39;", "'", "&#34;", `"`, "&amp;", "&", "&lt;", "<", "&gt;", ">").Replace(s)
	return spaceRe.ReplaceAllString(s, " ")
}

// hostile is a document with markup in every kind of user text.
const hostile = `id: INC-<script>alert(1)</script>
status: resolved
title: "<script>alert('title')</script> & <b>bold</b> *star* [link](javascript:alert(1))"
authors: ["<img src=x onerror=alert(1)>"]
reviewers: ["</dd><script>r()</script>"]
severity: "<i>SEV</i>"
services: ["<svc>"]
reviewed: 2026-09-18
links:
  - {title: "<script>l()</script>", url: "javascript:alert(1)"}
  - {title: ok, url: "https://example.com/a?b=<c>"}
milestones:
  - {name: impact_start, at: 2026-09-12T09:14:00Z}
  - {name: detected, at: 2026-09-12T09:47:00Z, source: "<alert>"}
  - {name: mitigated, at: 2026-09-12T13:01:00Z}
impact:
  - {id: customers, label: "<script>fig()</script>", value: 12400, unit: "</span><script>u()</script>/s", note: "<script>note()</script>"}
  - {id: data_loss, label: Data loss, display: "<script>disp()</script>"}
summary: "<script>summary()</script> took {{ttd}}"
series:
  label: "<script>series()</script>"
  unit: "<script>unit()</script>"
  caption: "<script>caption()</script>"
  points:
    - {at: 2026-09-12T09:00:00Z, value: 0}
    - {at: 2026-09-12T09:47:00Z, value: 6}
    - {at: 2026-09-12T11:00:00Z, value: 52}
    - {at: 2026-09-12T13:01:00Z, value: 1}
timeline:
  - {at: 2026-09-12T09:14:00Z, phase: impact_start, title: "<script>tl()</script>", text: "<script>tt()</script>"}
  - {at: 2026-09-12T09:47:00Z, phase: "<script>ph()</script>", title: "x", text: "y"}
root_cause: {headline: "<script>rc()</script>", explanation: "<script>rx()</script>"}
factors:
  - {id: "<script>f()</script>", title: "<script>ft()</script>", text: "<script>fx()</script>", accepted: "<script>fa()</script>"}
went_well: ["<script>ww()</script>"]
went_wrong: ["<script>wr()</script>"]
got_lucky: ["<script>gl()</script>"]
actions:
  - {id: "<script>a()</script>", action: "<script>act()</script>", owner: "<script>o()</script>", due: 2026-09-19, status: done, done: 2026-09-18, validation: "<script>v()</script>", ticket: "<script>tk()</script>", addresses: ["<script>f()</script>"]}
record: {initiating_condition: "<script>ic()</script>", amplifiers: "<script>am()</script>"}
decisions:
  - {at: 2026-09-12T10:00:00Z, action: "<script>d()</script>", hypothesis: "<h>", expected_signal: "<e>", safety_boundary: "<s>", owner: "<o>", rollback: "<r>"}
constraints:
  - {at: 2026-09-12T10:00:00Z, constraint: "<script>c()</script>", evidence: "<script>ev()</script>"}
public:
  overview: "<script>pub()</script>"
  who_was_affected: "<script>who()</script>"
  what_happened: "<script>what()</script>"
  prevent_wider_impact: "<script>prev()</script>"
  future_mitigation: "<script>fut()</script>"
replay:
  scenario: "javascript:alert(1)"
  packet: "<script>p()</script>.json"
  claims:
    - {assert: "a < b && c > d"}
`

func TestRenderEscapesUserText(t *testing.T) {
	doc, err := Decode("hostile.incident.yaml", []byte(hostile))
	if err != nil {
		t.Fatal(err)
	}
	for _, public := range []bool{false, true} {
		var h, m bytes.Buffer
		if err := RenderHTML(&h, doc, RenderOptions{Public: public}); err != nil {
			t.Fatal(err)
		}
		if err := RenderMarkdown(&m, doc, RenderOptions{Public: public}); err != nil {
			t.Fatal(err)
		}
		html := h.String()
		for _, bad := range []string{"<script", "<img", "<b>", "<i>", "<svc>", "<alert>", `="javascript:`, "<h>", "<e>", "<s>", "<o>", "<r>", "</span><script"} {
			if strings.Contains(strings.ToLower(html), bad) {
				t.Errorf("public=%v: HTML contains unescaped %q", public, bad)
			}
		}
		if !strings.Contains(html, "&lt;script&gt;") {
			t.Errorf("public=%v: HTML does not show the escaped text &lt;script&gt;", public)
		}
		md := m.String()
		// In Markdown, a "<" that is not preceded by a backslash starts raw HTML.
		if loc := regexp.MustCompile(`(^|[^\\])<[A-Za-z/!?]`).FindStringIndex(md); loc != nil && !strings.Contains(md[loc[0]:loc[1]+3], "<br>") {
			t.Errorf("public=%v: Markdown contains raw HTML at %q", public, md[loc[0]:min(len(md), loc[1]+20)])
		}
		if regexp.MustCompile(`[^\\]\]\(javascript:`).MatchString(md) {
			t.Errorf("public=%v: Markdown links to javascript:", public)
		}
		if !public {
			// The placeholder was expanded, not escaped away.
			if !strings.Contains(html, "took 33 min") || !strings.Contains(md, "took 33 min") {
				t.Error("{{ttd}} in the summary was not expanded to 33 min")
			}
		}
	}
}

func TestRenderUnknownPlaceholderFails(t *testing.T) {
	doc := loadRenderExample(t, "payment-timeout")
	doc.Summary = "It took {{no_such_value}}."
	var buf bytes.Buffer
	err := RenderHTML(&buf, doc, RenderOptions{})
	if err == nil || !strings.Contains(err.Error(), "no_such_value") {
		t.Fatalf("err = %v, want an error naming the placeholder", err)
	}
	if buf.Len() != 0 {
		t.Errorf("wrote %d bytes despite the error", buf.Len())
	}
	if err := RenderMarkdown(&buf, doc, RenderOptions{}); err == nil {
		t.Error("RenderMarkdown: want an error for the unknown placeholder")
	}
}

// TestChartCaptionFromData changes the series and checks that the caption, alt text and
// chart follow the data.
func TestChartCaptionFromData(t *testing.T) {
	doc := loadRenderExample(t, "payment-timeout")
	const want = "Gridlines 0/30/60%. Dashed: detected 09:47 at 6%, mitigated 13:01. Peak 52% — nine times worse than when the alert fired."
	if got := doc.ChartCaption(); got != want {
		t.Fatalf("seed 000 caption:\n got %q\nwant %q", got, want)
	}

	// Raise every point after detection by 40%: the peak becomes 72.8% (shown as 73%),
	// the ratio 12.
	doc.Series.Gridlines = nil // let the chart choose its gridlines from the data
	for i, p := range doc.Series.Points {
		if p.At.After(mustInstant(t, doc, MilestoneDetected)) {
			doc.Series.Points[i].Value = p.Value * 1.4
		}
	}
	got := doc.ChartCaption()
	const want2 = "Gridlines 0/25/50/75%. Dashed: detected 09:47 at 6%, mitigated 13:01. Peak 73%"
	if !strings.HasPrefix(got, want2) {
		t.Errorf("caption after raising the series:\n got %q\nwant prefix %q", got, want2)
	}
	if !strings.Contains(got, "— 12 times worse than when the alert fired.") {
		t.Errorf("caption after raising the series: %q, want the ratio 12", got)
	}
	// The authored caption now disagrees with the data; it is kept as its own sentence
	// (Check reports the disagreement), never silently replacing the computed ratio.
	if !strings.HasSuffix(got, " Nine times worse than when the alert fired.") {
		t.Errorf("caption %q: want the authored caption appended", got)
	}

	var buf bytes.Buffer
	if err := RenderHTML(&buf, doc, RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	esc := got // the caption has no characters that HTML escaping changes
	for _, where := range []string{`aria-label="` + esc + `"`, `-desc">` + esc + `</desc>`, `-caption">` + esc + `</figcaption>`} {
		if !strings.Contains(html, where) {
			t.Errorf("page lacks %s", where)
		}
	}
	if !strings.Contains(html, ">Peak 73%</text>") {
		t.Error("the chart does not label the new peak")
	}

	// Detection at the peak: no ratio phrase.
	doc.Series.Caption = ""
	for i := range doc.Series.Points {
		doc.Series.Points[i].Value = 10
	}
	if got := doc.ChartCaption(); got != "Gridlines 0/5/10%. Dashed: detected 09:47 at 10%, mitigated 13:01. Peak 10%." {
		t.Errorf("flat series caption = %q", got)
	}
}

func mustInstant(t *testing.T, d *Document, name string) time.Time {
	t.Helper()
	v, ok := d.Instant(name)
	if !ok {
		t.Fatalf("no instant %s", name)
	}
	return v
}

// TestPageIsSelfContained checks that the pages make no external requests: no scripts,
// no src, no stylesheet or font links, no url() in CSS; the only addresses are user
// links in <a href>.
func TestPageIsSelfContained(t *testing.T) {
	hostileDoc, err := Decode("hostile.incident.yaml", []byte(hostile))
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]*Document{"hostile": hostileDoc}
	for _, name := range renderExamples {
		docs[name] = loadRenderExample(t, name)
	}
	attrURL := regexp.MustCompile(`(?i)<(\w+)[^>]*\s(src|href|srcset|action|poster|data|xlink:href)\s*=\s*"([^"]*)"`)
	for name, doc := range docs {
		for _, public := range []bool{false, true} {
			if public && doc.Public == nil {
				continue
			}
			var buf bytes.Buffer
			if err := RenderHTML(&buf, doc, RenderOptions{Public: public}); err != nil {
				t.Fatal(err)
			}
			// The one <link> is the empty data: icon that stops browsers asking for
			// /favicon.ico.
			html := strings.Replace(buf.String(), `<link rel="icon" href="data:,">`, "", 1)
			low := strings.ToLower(html)
			for _, bad := range []string{"<script", "<link", "<iframe", "<object", "<embed", "<img", "@import", "url(", "<base"} {
				if strings.Contains(low, bad) {
					t.Errorf("%s (public=%v): contains %q", name, public, bad)
				}
			}
			for _, m := range attrURL.FindAllStringSubmatch(html, -1) {
				tag, attr, val := strings.ToLower(m[1]), strings.ToLower(m[2]), m[3]
				if tag == "a" && attr == "href" {
					continue // user links are followed only when clicked
				}
				t.Errorf("%s (public=%v): <%s %s=%q> would be fetched", name, public, tag, attr, val)
			}
			if strings.Contains(low, "http://") || strings.Contains(low, "https://") {
				for _, m := range regexp.MustCompile(`(?i)https?://[^\s"<]*`).FindAllStringIndex(html, -1) {
					// Allowed only inside an <a href="…">.
					before := html[max(0, m[0]-9):m[0]]
					if !strings.HasSuffix(before, `<a href="`) && !strings.HasSuffix(before, ` href="`) {
						t.Errorf("%s (public=%v): address outside a link: %q", name, public, html[m[0]:m[1]])
					}
				}
			}
		}
	}
}

func TestRenderOptionsValidate(t *testing.T) {
	for _, o := range []RenderOptions{{}, {LinkBase: "../examples/incidents"}, {ChartHref: "chart.svg"}} {
		if err := o.Validate(); err != nil {
			t.Errorf("%+v: %v", o, err)
		}
	}
	for _, o := range []RenderOptions{{LinkBase: "/abs"}, {LinkBase: "https://x"}, {ChartHref: "a b.svg"}, {LinkBase: "a\nb"}} {
		if err := o.Validate(); err == nil {
			t.Errorf("%+v: want an error", o)
		}
	}
}

func TestRenderLinkBase(t *testing.T) {
	doc := loadRenderExample(t, "northstar")
	var buf bytes.Buffer
	if err := RenderHTML(&buf, doc, RenderOptions{LinkBase: "../examples/incidents"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `href="../examples/northstar/northstar.scenario.yaml"`) {
		t.Error("the replay scenario link is not relative to the page")
	}
}

func TestMarkdownChartHref(t *testing.T) {
	doc := loadRenderExample(t, "payment-timeout")
	var buf bytes.Buffer
	if err := RenderMarkdown(&buf, doc, RenderOptions{ChartHref: "payment-timeout.chart.svg"}); err != nil {
		t.Fatal(err)
	}
	want := "![Gridlines 0/30/60%. Dashed: detected 09:47 at 6%, mitigated 13:01. Peak 52% — nine times worse than when the alert fired.](payment-timeout.chart.svg)"
	if !strings.Contains(buf.String(), want) {
		t.Errorf("Markdown lacks the chart image %q", want)
	}
}

func TestMdEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain text":             "plain text",
		"INC_SNAKE_ID":           "INC_SNAKE_ID",
		"_emph_ and *strong*":    `\_emph\_ and \*strong\*`,
		"<script>":               `\<script\>`,
		"a | b":                  `a \| b`,
		"# not a heading":        `\# not a heading`,
		"1. not a list":          `1\. not a list`,
		"[x](javascript:y)":      `\[x\](javascript:y)`,
		"A & B, &amp;":           `A & B, \&amp;`,
		"line\nbreak":            "line break",
		"back\\slash `code`":     "back\\\\slash \\`code\\`",
		"- dash starts the line": `\- dash starts the line`,
	} {
		if got := mdEscape(in); got != want {
			t.Errorf("mdEscape(%q) = %q, want %q", in, got, want)
		}
	}
	if got := mdCode("a `b` c"); got != "`` a `b` c ``" {
		t.Errorf("mdCode = %q", got)
	}
}

func TestParagraphs(t *testing.T) {
	for in, want := range map[string][]string{
		"one":                                {"one"},
		"folded one\nfolded two":             {"folded one", "folded two"},
		"literal\nwrapped\n\nsecond\npara\n": {"literal wrapped", "second para"},
		"  \n ":                              nil,
	} {
		if diff := cmp.Diff(want, paragraphs(in)); diff != "" {
			t.Errorf("paragraphs(%q) (-want +got):\n%s", in, diff)
		}
	}
}

// FuzzRender renders any document Decode accepts: no panic, no markup from the input.
func FuzzRender(f *testing.F) {
	for _, name := range renderExamples {
		b, err := os.ReadFile(filepath.Join("..", "examples", "incidents", name+".incident.yaml"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(hostile))
	f.Add([]byte("id: x\nstatus: resolved\ntitle: t\nmilestones: [{name: detected, at: 2026-01-01T00:00:00Z}]\nseries: {unit: ms, points: [{at: 2026-01-01T00:00:00Z, value: 1}]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Decode("fuzz.incident.yaml", data)
		if err != nil {
			return
		}
		_ = doc.ChartCaption()
		for _, public := range []bool{false, true} {
			var h, m bytes.Buffer
			if err := RenderHTML(&h, doc, RenderOptions{Public: public}); err == nil {
				if low := strings.ToLower(h.String()); strings.Contains(low, "<script") || strings.Contains(low, `="javascript:`) {
					t.Fatalf("public=%v: markup from the input reached the page", public)
				}
			}
			_ = RenderMarkdown(&m, doc, RenderOptions{Public: public})
		}
	})
}

func BenchmarkRenderHTML(b *testing.B) {
	doc := loadRenderExample(b, "payment-timeout")
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := RenderHTML(&buf, doc, RenderOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func ExampleDocument_ChartCaption() {
	doc, err := Decode("example.incident.yaml", []byte(`
id: INC-1
status: resolved
title: Checkout failures
milestones:
  - {name: impact_start, at: 2026-09-12T09:00:00Z}
  - {name: detected, at: 2026-09-12T09:20:00Z, source: error-rate alert}
  - {name: mitigated, at: 2026-09-12T10:00:00Z}
series:
  unit: "%"
  points:
    - {at: 2026-09-12T09:00:00Z, value: 0}
    - {at: 2026-09-12T09:20:00Z, value: 4}
    - {at: 2026-09-12T09:40:00Z, value: 31}
    - {at: 2026-09-12T10:00:00Z, value: 1}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(doc.ChartCaption())
	// Output:
	// Gridlines 0/20/40%. Dashed: detected 09:20 at 4%, mitigated 10:00. Peak 31% — eight times worse than when the alert fired.
}

func ExampleRenderMarkdown() {
	doc, err := Decode("example.incident.yaml", []byte(`
id: INC-2
status: resolved
title: Router limit breached
time_zone: UTC
milestones:
  - {name: impact_start, at: 2024-09-17T05:15:00Z}
  - {name: mitigated, at: 2024-09-17T07:30:00Z}
public:
  overview: Between 5:15 and 7:30 UTC ({{duration}}) some requests failed. We apologise.
  who_was_affected: 0.6% of customers.
  what_happened: A resource limit on the router was reached.
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := RenderMarkdown(os.Stdout, doc, RenderOptions{Public: true}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// # Router limit breached
	//
	// *17 September 2024, 05:15 – 07:30 UTC*
	//
	// Between 5:15 and 7:30 UTC (2h 15m) some requests failed. We apologise.
	//
	// ## Who was affected?
	//
	// 0.6% of customers.
	//
	// ## What happened?
	//
	// A resource limit on the router was reached.
}
