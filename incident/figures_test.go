package incident

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestParseFigures(t *testing.T) {
	cases := []struct {
		text  string
		kind  figKind
		value float64
		prec  float64
		hedge hedge
		fig   string
	}{
		{"Duration 3h 47m total", figDuration, 3*3600 + 47*60, 60, hedgeNone, "3h 47m"},
		{"33 min to detect", figDuration, 33 * 60, 60, hedgeNone, "33 min"},
		{"for 24 hours and 11 minutes", figDuration, 24*3600 + 11*60, 60, hedgeNone, "24 hours and 11 minutes"},
		{"Thirty-three minutes passed", figDuration, 33 * 60, 60, hedgeNone, "Thirty-three minutes"},
		{"from 240ms", figDuration, 0.24, 0.001, hedgeNone, "240ms"},
		{"to 4.8s.", figDuration, 4.8, 0.1, hedgeNone, "4.8s"},
		{"a 1.8-second deadline", figDuration, 1.8, 0.1, hedgeNone, "1.8-second"},
		{"recovered 94% within", figPercent, 94, 1, hedgeNone, "94%"},
		{"felt by 0.6% of", figPercent, 0.6, 0.1, hedgeNone, "0.6%"},
		{"nine times worse", figRatio, 9, 1, hedgeNone, "nine times"},
		{"is 1.5616× the demand", figRatio, 1.5616, 0.0001, hedgeNone, "1.5616×"},
		{"twice last quarter", figRatio, 2, 1, hedgeNone, "twice"},
		{"at a fifteenth of the load", figFraction, 1.0 / 15, 0, hedgeNone, "a fifteenth"},
		{"less than half its capacity", figFraction, 0.5, 0, hedgeUnder, "half"},
		{"39,600 recovered", figCount, 39600, 1, hedgeNone, "39,600"},
		{"produced 14,054.4 attempts", figCount, 14054.4, 0.1, hedgeNone, "14,054.4"},
		{"about 10 minutes", figDuration, 600, 60, hedgeAbout, "10 minutes"},
		{"~10 minutes", figDuration, 600, 60, hedgeAbout, "10 minutes"},
		{"nearly 52%", figPercent, 52, 1, hedgeNearly, "52%"},
		{"in under four minutes", figDuration, 240, 60, hedgeUnder, "four minutes"},
		{"over 30 minutes", figDuration, 1800, 60, hedgeOver, "30 minutes"},
		{"within 40 minutes", figDuration, 2400, 60, hedgeAtMost, "40 minutes"},
		{"at least 2 hours", figDuration, 7200, 3600, hedgeAtLeast, "2 hours"},
		{"forty-one file", figCount, 41, 1, hedgeNone, "forty-one"},
		// Not figures: versions, clock times, identifiers.
		{"Release 2026.9.3 at 09:47 on p99 in eu1 -> 8", figCount, 8, 1, hedgeNone, "8"},
	}
	for _, tc := range cases {
		t.Run(tc.text, func(t *testing.T) {
			figs := parseFigures(tc.text)
			if len(figs) != 1 {
				t.Fatalf("found %d figures: %+v", len(figs), figs)
			}
			f := figs[0]
			if f.kind != tc.kind || math.Abs(f.value-tc.value) > 1e-9 || math.Abs(f.prec-tc.prec) > 1e-12 || f.hedge != tc.hedge || f.text != tc.fig {
				t.Errorf("got %v %v prec %v hedge %v %q", f.kind, f.value, f.prec, f.hedge, f.text)
			}
		})
	}
}

// TestAgrees pins down the tolerance rule: an unhedged figure is the computed value
// rounded or truncated to its last digit; hedges widen or direct the interval.
func TestAgrees(t *testing.T) {
	min := func(m float64) float64 { return m * 60 }
	cases := []struct {
		text string
		c    float64
		want bool
	}{
		// Seed 000: peak 52% is nine times the 6% at detection (52/6 = 8.67 rounds to 9).
		{"nine times", 52.0 / 6, true},
		{"nine times", 8.4, false},
		{"nine times", 9.9, true}, // truncation, the conservative reading
		{"nine times", 10, false},
		// 39,600 of 41,900 = 94.51%: "94%" truncates, "95%" rounds; both are honest.
		{"94%", 100 * 39600.0 / 41900, true},
		{"95%", 100 * 39600.0 / 41900, true},
		{"93%", 100 * 39600.0 / 41900, false},
		{"96%", 100 * 39600.0 / 41900, false},
		{"3h 47m", min(227), true},
		{"3h 47m", min(228), false},
		{"3h 47m", min(226), false},
		{"33 min", min(33), true},
		{"fifteen times", 30.0 / 2, true},
		{"a fifteenth", 2.0 / 30, true},
		{"a fifteenth", 2.0 / 20, false},
		{"less than half", 180.0 / 420, true},
		{"less than half", 0.5, false},
		{"about 10 minutes", min(11), true},
		{"about 10 minutes", min(11.5), false},
		{"about 100 minutes", min(109), true},
		{"nearly 12 minutes", min(11), true},
		{"nearly 12 minutes", min(12.6), false},
		{"over 30 minutes", min(30), false},
		{"over 30 minutes", min(31), true},
		{"under four minutes", min(3.5), true},
		{"under four minutes", min(4), false},
		{"within 40 minutes", min(40), true},
		{"within 40 minutes", min(41), false},
		{"at least 2 hours", min(119.5), false},
		{"within 40 minutes", min(40.2), false},
		{"at least 2 hours", min(120), true},
		{"68.97%", 100 * 20.0 / 29, true},
		{"69%", 100 * 20.0 / 29, true},
		{"68.9%", 100 * 20.0 / 29, true},
		{"68.98%", 100 * 20.0 / 29, false},
	}
	for _, tc := range cases {
		figs := parseFigures(tc.text)
		if len(figs) != 1 {
			t.Fatalf("%q: %d figures", tc.text, len(figs))
		}
		if got := figs[0].agrees(tc.c); got != tc.want {
			t.Errorf("%q agrees with %v = %v, want %v", tc.text, tc.c, got, tc.want)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{45 * time.Second, "45 s"},
		{33 * time.Minute, "33 min"},
		{33*time.Minute + 29*time.Second, "33 min"},
		{59*time.Minute + 45*time.Second, "1h"},
		{3*time.Hour + 47*time.Minute, "3h 47m"},
		{24*time.Hour + 11*time.Minute, "24h 11m"},
		{36*24*time.Hour + 5*time.Hour + 20*time.Minute, "36d 5h"},
		{-5 * time.Minute, "-5 min"},
	} {
		if got := FormatDuration(tc.d); got != tc.want {
			t.Errorf("FormatDuration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestFormatNumber(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{41900, "41,900"}, {14054.4, "14,054.4"}, {0.6, "0.6"}, {-1234567, "-1,234,567"},
		{999, "999"}, {1.23456789, "1.2346"},
	} {
		if got := FormatNumber(tc.x); got != tc.want {
			t.Errorf("FormatNumber(%v) = %q, want %q", tc.x, got, tc.want)
		}
	}
	if got := FormatPercent(100 * 39600.0 / 41900); got != "95%" {
		t.Errorf("FormatPercent = %q", got)
	}
	if got := FormatPercent(0.64); got != "0.6%" {
		t.Errorf("FormatPercent = %q", got)
	}
}

// TestHedgeMayEndIsNecessary: finish skips the hedge expressions when hedgeMayEnd says no
// hedge can end the text before a figure, so it must say yes wherever one matches. Random
// endings built from the hedge words, blanks, "a", "~", "≈", letters that fold under (?i)
// and stray bytes; at least a fifth of them match a hedge.
func TestHedgeMayEndIsNecessary(t *testing.T) {
	parts := []string{"nearly", "Almost", "just under", "close to", "at least", "no fewer than",
		"no less than", "not less than", "within", "up to", "at most", "no more than", "not more than",
		"about", "around", "roughly", "approximately", "APPROX.", "some", "circa", "over", "more than",
		"above", "exceeding", "upwards of", "under", "less than", "fewer than", "below",
		"~", "≈", "a", "A", " ", "  ", "\t", "\n", "\f", "\r", "\v", "x", "ſ", "ſome", "almoſt", "K", "é", ".", ",", "(", "9"}
	r := rand.New(rand.NewPCG(3, 4))
	matched := 0
	const n = 200000
	for range n {
		var b strings.Builder
		for k := r.IntN(6); k >= 0; k-- {
			b.WriteString(parts[r.IntN(len(parts))])
			if r.IntN(2) == 0 {
				b.WriteByte(' ')
			}
		}
		s := b.String()
		s = s[max(0, len(s)-24):] // finish looks at the 24 bytes before a figure
		for _, h := range hedges {
			if h.re.MatchString(s) {
				matched++
				if !hedgeMayEnd(s) {
					t.Fatalf("hedge %d matches %q, but hedgeMayEnd says none can", h.h, s)
				}
				break
			}
		}
	}
	if matched < n/5 {
		t.Fatalf("only %d of %d endings match a hedge: the test no longer exercises the filter", matched, n)
	}
}
