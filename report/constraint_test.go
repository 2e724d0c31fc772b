package report

import (
	"regexp"
	"strings"
	"testing"
)

// TestHTMLConstraintBand checks the binding constraint's band under the goodput chart: a
// strip per arm with a stretch per run of ticks that name one constraint, coloured by its
// kind; a legend of every constraint named; and a caption with each one's share of the
// ticks. A packet that names no constraint has no band, and its goodput chart keeps its
// height.
func TestHTMLConstraintBand(t *testing.T) {
	page := render(t, annotated())
	goodput := chartSVG(t, page, "goodput")
	var got []string
	for _, m := range regexp.MustCompile(`<rect class="(constraint-[a-z-]+)" x="[^"]*" y="[^"]*" width="[^"]*" height="[^"]*"><title>([^<]*)</title>`).FindAllStringSubmatch(goodput, -1) {
		got = append(got, m[1]+" "+m[2])
	}
	want := []string{
		"constraint-none none 14:00:00–14:00:03",
		"constraint-pool pool:checkout-&gt;payment-risk 14:00:03–14:00:04",
		"constraint-queue queue:checkout 14:00:04–14:00:07",
		"constraint-none none 14:00:07–14:00:10",
		"constraint-none none 14:00:00–14:00:03",
		"constraint-pool pool:checkout-&gt;payment-risk 14:00:03–14:00:06",
		"constraint-none none 14:00:06–14:00:10",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("band stretches:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(goodput, `>binding constraint</text>`) {
		t.Error("the band has no heading")
	}
	for _, arm := range []string{"baseline", "protected"} {
		if !strings.Contains(goodput, `text-anchor="end">`+arm+`</text>`) {
			t.Errorf("the band has no strip labelled %s", arm)
		}
	}
	// The legend lists the constraints along the request path, then none.
	legend := regexp.MustCompile(`<span class="swatch (constraint-[a-z-]+)" aria-hidden="true"></span>([^<]+)</span>`).FindAllStringSubmatch(page, -1)
	var keys []string
	for _, m := range legend {
		keys = append(keys, m[2])
	}
	if got, want := strings.Join(keys, " "), "queue:checkout pool:checkout-&gt;payment-risk none"; got != want {
		t.Errorf("legend %q, want %q", got, want)
	}
	if !strings.Contains(page, `Binding constraint, baseline: none 60% of ticks, queue:checkout 30% of ticks, pool:checkout-&gt;payment-risk 10% of ticks; protected: none 70% of ticks, pool:checkout-&gt;payment-risk 30% of ticks.`) {
		t.Error("the band's caption does not give each constraint's share of the ticks")
	}
	if !strings.Contains(page, `aria-labelledby="chart-goodput-title chart-goodput-desc chart-goodput-constraints"`) {
		t.Error("the goodput chart's accessible name leaves out the band's caption")
	}
	viewBox := regexp.MustCompile(`viewBox="0 0 720 ([0-9.]+)"`)
	if h := viewBox.FindStringSubmatch(goodput)[1]; h == "240" {
		t.Errorf("the goodput chart with a band is %s high, as without one", h)
	}

	plain := annotated()
	for i := range plain.Arms {
		for j := range plain.Arms[i].Series {
			plain.Arms[i].Series[j].Constraint = ""
		}
	}
	page = render(t, plain)
	if strings.Contains(page, "binding constraint") || strings.Contains(page, "constraint-") {
		t.Error("a packet that names no constraint has a band")
	}
	if h := viewBox.FindStringSubmatch(chartSVG(t, page, "goodput"))[1]; h != "240" {
		t.Errorf("the goodput chart without a band is %s high, want 240", h)
	}
}

func TestConstraintClass(t *testing.T) {
	for name, want := range map[string]string{
		"none": "constraint-none", "admission": "constraint-admission", "pool:a->b": "constraint-pool",
		"dependency:b:concurrency": "constraint-dependency", "ready-capacity:a": "constraint-ready-capacity",
		"cache-misses:c": "constraint-cache-misses", "queue:a": "constraint-queue", "workers:a": "constraint-workers",
		"gc:a": "constraint-other", "": "constraint-other",
	} {
		if got := constraintClass(name); got != want {
			t.Errorf("constraintClass(%q) = %q, want %q", name, got, want)
		}
	}
}
