package incident

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/goodput-lab/goodput/internal/floatdur"
)

// figKind is the kind of a figure stated in prose.
type figKind int

const (
	figCount    figKind = iota // a plain number: "41,900", "twelve"
	figPercent                 // "94%", "0.6 percent"
	figRatio                   // "nine times", "1.5616×", "twice"
	figFraction                // "a fifteenth", "half": the value is 1/den
	figDuration                // "3h 47m", "33 minutes", "4.8s"; the value is in seconds
)

func (k figKind) String() string {
	return [...]string{"count", "percentage", "ratio", "fraction", "duration"}[k]
}

// hedge is the qualifier in front of a stated figure.
type hedge int

const (
	hedgeNone    hedge = iota
	hedgeAbout         // about, around, roughly, approximately, ~
	hedgeNearly        // nearly, almost, just under
	hedgeOver          // over, more than, above
	hedgeUnder         // under, less than, fewer than, below
	hedgeAtMost        // within, up to, at most, no more than
	hedgeAtLeast       // at least, no fewer than
)

// aboutTolerance is the relative error a hedge such as "about" or "nearly" admits.
const aboutTolerance = 0.10

// stated is a figure found in prose.
type stated struct {
	kind  figKind
	value float64 // seconds for durations, percent points for percentages
	prec  float64 // the unit of the last stated digit, in the same unit as value
	den   float64 // for fractions: the stated denominator (15 for "a fifteenth")
	hedge hedge
	hword string // the hedge as written
	start int    // byte offset in the text of the figure (after the hedge)
	end   int
	text  string // the figure as written, e.g. "3h 47m"
}

var (
	digitsRe = regexp.MustCompile(`^(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?`)
	smallNum = map[string]float64{
		"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
		"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
		"fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
		"nineteen": 19,
	}
	tensNum = map[string]float64{
		"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
		"eighty": 80, "ninety": 90,
	}
	ordinalDen = map[string]float64{
		"half": 2, "third": 3, "quarter": 4, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
		"eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
		"fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17,
		"eighteenth": 18, "nineteenth": 19, "twentieth": 20, "hundredth": 100,
	}
	multiplierWords = map[string]float64{"twice": 2, "thrice": 3, "tenfold": 10}
	durUnits        = []struct {
		re  *regexp.Regexp
		sec float64
	}{
		{regexp.MustCompile(`^-?\s?(?:milliseconds?|ms)\b`), 0.001},
		{regexp.MustCompile(`^-?\s?(?:seconds?|secs?|s)\b`), 1},
		{regexp.MustCompile(`^-?\s?(?:minutes?|mins?|m)\b`), 60},
		{regexp.MustCompile(`^-?\s?(?:hours?|hrs?|h)\b`), 3600},
		{regexp.MustCompile(`^-?\s?(?:days?|d)\b`), 86400},
		{regexp.MustCompile(`^-?\s?(?:weeks?)\b`), 7 * 86400},
	}
	percentRe = regexp.MustCompile(`^\s?(?:%|percent\b|per cent\b)`)
	ratioRe   = regexp.MustCompile(`^(?:\s?(?:times\b|×)|x\b|-fold\b)`)
	joinRe    = regexp.MustCompile(`^(?:\s*,)?\s*(?:and\s+)?`)
	hedges    = []struct {
		h  hedge
		re *regexp.Regexp
	}{
		{hedgeNearly, regexp.MustCompile(`(?i)\b(?:nearly|almost|just under|close to)\s+(?:a\s+)?$`)},
		{hedgeAtLeast, regexp.MustCompile(`(?i)\b(?:at least|no fewer than|no less than|not less than)\s+(?:a\s+)?$`)},
		{hedgeAtMost, regexp.MustCompile(`(?i)\b(?:within|up to|at most|no more than|not more than)\s+(?:a\s+)?$`)},
		{hedgeAbout, regexp.MustCompile(`(?i)(?:\b(?:about|around|roughly|approximately|approx\.|some|circa)\s+|~\s*|≈\s*)(?:a\s+)?$`)},
		{hedgeOver, regexp.MustCompile(`(?i)\b(?:over|more than|above|exceeding|upwards of)\s+(?:a\s+)?$`)},
		{hedgeUnder, regexp.MustCompile(`(?i)\b(?:under|less than|fewer than|below)\s+(?:a\s+)?$`)},
	}
)

// The scanners below run anchored regular expressions at every token of a text. Each is
// given only the part of the text its match can span, and the rune after it, which \b
// reads: the regexp package's backtracker clears state in proportion to the length of its
// input, so handing it the whole rest of the text at every token made a scan of a long
// text quadratic.

// word returns the run of ASCII letters at the start of s.
func word(s string) string {
	n := 0
	for n < len(s) && (s[n] >= 'a' && s[n] <= 'z' || s[n] >= 'A' && s[n] <= 'Z') {
		n++
	}
	return s[:n]
}

// numberSpan returns the start of s that a number written in digits can occupy: its
// digits, commas and points.
func numberSpan(s string) string {
	n := 0
	for n < len(s) && (s[n] >= '0' && s[n] <= '9' || s[n] == ',' || s[n] == '.') {
		n++
	}
	return s[:n]
}

// unitSpan returns the start of s that a unit after a number can occupy (the longest is
// "-" and a space before "milliseconds", 14 bytes), with room for the rune after it.
func unitSpan(s string) string { return s[:min(len(s), 24)] }

// joinSpan returns the start of s that joinRe can match: blanks, commas and the letters
// of "and".
func joinSpan(s string) string {
	n := 0
	for n < len(s) && strings.IndexByte(" \t\n\f\r,and", s[n]) >= 0 {
		n++
	}
	return s[:n]
}

// parseFigures finds every figure stated in text, in order.
func parseFigures(text string) []stated {
	var out []stated
	for i := 0; i < len(text); {
		f, ok := figureAt(text, i)
		if !ok {
			i = nextToken(text, i)
			continue
		}
		out = append(out, f)
		i = f.end
	}
	return out
}

// nextToken returns the offset after the word, number or character at i.
func nextToken(text string, i int) int {
	if m := word(text[i:]); m != "" {
		return i + len(m)
	}
	if m := digitsRe.FindString(numberSpan(text[i:])); m != "" {
		return i + len(m)
	}
	for j := i + 1; j <= len(text); j++ {
		if j == len(text) || text[j]&0xC0 != 0x80 {
			return j
		}
	}
	return len(text)
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_'
}

// number reads a number at text[i:] written in digits or words. It returns the value,
// its precision, and the offset after it.
func number(text string, i int) (v, prec float64, end int, ok bool) {
	if i > 0 && (isWordByte(text[i-1]) || text[i-1] == '.' || text[i-1] == ':' || text[i-1] == ',') {
		return 0, 0, 0, false
	}
	if m := digitsRe.FindString(numberSpan(text[i:])); m != "" {
		end = i + len(m)
		// Not part of a version (2026.9.3), a time (09:47) or an identifier (p99, eu1).
		if end < len(text) && (text[end] == ':' || text[end] == '.' && end+1 < len(text) && text[end+1] >= '0' && text[end+1] <= '9' || text[end] == ',' && end+1 < len(text) && text[end+1] >= '0' && text[end+1] <= '9') {
			return 0, 0, 0, false
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(m, ",", ""), 64)
		if err != nil {
			return 0, 0, 0, false
		}
		prec = 1
		if _, frac, ok := strings.Cut(m, "."); ok {
			prec = math.Pow(10, -float64(len(frac)))
		}
		return v, prec, end, true
	}
	w := word(text[i:])
	if w == "" {
		return 0, 0, 0, false
	}
	lw := strings.ToLower(w)
	if n, ok := smallNum[lw]; ok {
		return n, 1, i + len(w), true
	}
	if n, ok := tensNum[lw]; ok {
		end = i + len(w)
		if end+1 < len(text) && (text[end] == '-' || text[end] == ' ') {
			if u := word(text[end+1:]); u != "" {
				if d, ok := smallNum[strings.ToLower(u)]; ok && d > 0 && d < 10 {
					return n + d, 1, end + 1 + len(u), true
				}
			}
		}
		return n, 1, end, true
	}
	return 0, 0, 0, false
}

// figureAt reads a figure starting at text[i:].
func figureAt(text string, i int) (stated, bool) {
	f := stated{start: i}
	rest := func(j int) string { return unitSpan(text[j:]) }

	// Words that are figures by themselves: twice, half, a fifteenth.
	if w := word(text[i:]); w != "" && (i == 0 || !isWordByte(text[i-1])) {
		lw := strings.ToLower(w)
		if m, ok := multiplierWords[lw]; ok {
			f.kind, f.value, f.prec, f.end = figRatio, m, 1, i+len(w)
			return f.finish(text), true
		}
		if lw == "a" || lw == "one" {
			j := i + len(w)
			if j < len(text) && text[j] == ' ' {
				if o := word(text[j+1:]); o != "" {
					if den, ok := ordinalDen[strings.ToLower(o)]; ok {
						f.kind, f.den, f.value, f.prec, f.end = figFraction, den, 1/den, 0, j+1+len(o)
						return f.finish(text), true
					}
				}
			}
		}
		if lw == "half" {
			f.kind, f.den, f.value, f.end = figFraction, 2, 0.5, i+len(w)
			return f.finish(text), true
		}
	}

	v, prec, j, ok := number(text, i)
	if !ok {
		return stated{}, false
	}
	switch {
	case percentRe.MatchString(rest(j)):
		m := percentRe.FindString(rest(j))
		f.kind, f.value, f.prec, f.end = figPercent, v, prec, j+len(m)
	case ratioRe.MatchString(rest(j)):
		m := ratioRe.FindString(rest(j))
		f.kind, f.value, f.prec, f.end = figRatio, v, prec, j+len(m)
	default:
		unit, n := durationUnit(rest(j))
		if n == 0 {
			f.kind, f.value, f.prec, f.end = figCount, v, prec, j
			break
		}
		f.kind, f.value, f.prec, f.end = figDuration, v*unit, prec*unit, j+n
		// Compound durations: "3h 47m", "2 hours and 11 minutes".
		for {
			k := f.end + len(joinRe.FindString(joinSpan(text[f.end:])))
			v2, p2, j2, ok := number(text, k)
			if !ok {
				break
			}
			u2, n2 := durationUnit(rest(j2))
			if n2 == 0 || u2 >= unit {
				break
			}
			f.value += v2 * u2
			f.prec = p2 * u2
			f.end = j2 + n2
			unit = u2
		}
	}
	return f.finish(text), true
}

func durationUnit(s string) (secPerUnit float64, n int) {
	for _, u := range durUnits {
		if m := u.re.FindString(s); m != "" {
			return u.sec, len(m)
		}
	}
	return 0, 0
}

// finish records the figure's text and the hedge in front of it.
func (f stated) finish(text string) stated {
	f.text = text[f.start:f.end]
	before := text[max(0, f.start-24):f.start]
	if !hedgeMayEnd(before) {
		return f
	}
	for _, h := range hedges {
		if m := h.re.FindString(before); m != "" {
			f.hedge, f.hword = h.h, strings.TrimSuffix(strings.TrimSpace(m), " a")
			break
		}
	}
	return f
}

// hedgeMayEnd reports whether a hedge can end s. A hedge ends in blanks (after its last
// word or an "a"), or in "~" or "≈", so the character before the trailing blanks must
// end a hedge word: checking it spares most figures the six expressions. (Under (?i) only
// s and k fold to other characters, ſ and K; no hedge word ends in either.)
func hedgeMayEnd(s string) bool {
	t := strings.TrimRight(s, " \t\n\f\r") // the blanks of \s
	if strings.HasSuffix(t, "~") || strings.HasSuffix(t, "≈") {
		return true
	}
	if len(t) == len(s) || t == "" {
		return false
	}
	switch t[len(t)-1] | 0x20 { // an ASCII letter in lower case
	case 'a', 'd', 'e', 'f', 'g', 'n', 'o', 'r', 't', 'w', 'y', '.':
		return true
	}
	return false
}

// comparable returns the computed value in the stated figure's unit, or ok = false when
// the kinds cannot be compared (a duration against a percentage).
func (f stated) comparable(v Value) (float64, bool) {
	switch f.kind {
	case figDuration:
		return v.Duration.Seconds(), v.Kind == KindDuration
	case figPercent:
		return v.Number, v.Kind == KindPercent || v.Kind == KindNumber && v.Unit == "%"
	case figRatio, figFraction:
		return v.Number, v.Kind == KindRatio || v.Kind == KindNumber && v.Unit == ""
	case figCount:
		return v.Number, v.Kind == KindNumber && v.Unit != "%" || v.Kind == KindRatio
	}
	return 0, false
}

// wants returns the figure kinds that can state a value of kind v.
func wants(v Value) []figKind {
	switch v.Kind {
	case KindDuration:
		return []figKind{figDuration}
	case KindPercent:
		return []figKind{figPercent}
	case KindRatio:
		return []figKind{figRatio, figFraction, figCount}
	case KindNumber:
		if v.Unit == "%" {
			return []figKind{figPercent}
		}
		if v.Unit == "" {
			return []figKind{figCount, figRatio, figFraction}
		}
		return []figKind{figCount}
	}
	return nil
}

// agrees reports whether the computed value c agrees with the stated figure.
//
// An unhedged figure states the computed value rounded half-up, or truncated, to the
// precision of its last digit: "52%" admits [51.5, 53), "3h 47m" admits [3h 46m 30s,
// 3h 48m), "nine times" admits [8.5, 10). A fraction "a fifteenth" states that 1/c rounds
// or truncates to 15. Hedges widen or direct the interval: "about" admits an error of
// 10% of the stated value (or one unit of its last digit, if larger); "nearly" the same
// but only from below; "over"/"under" need c strictly above/below the stated value;
// "within"/"up to"/"at most" c ≤ the stated value; "at least" c ≥ the stated value.
func (f stated) agrees(c float64) bool {
	const eps = 1e-9
	v, p := f.value, f.prec
	if f.kind == figFraction {
		if f.hedge == hedgeNone {
			if c <= 0 {
				return false
			}
			v, p, c = f.den, 1, 1/c
		}
	}
	tol := math.Max(p, aboutTolerance*math.Abs(v))
	switch f.hedge {
	case hedgeAbout:
		return math.Abs(c-v) <= tol+eps
	case hedgeNearly:
		return c >= v-tol-eps && c < v+p/2+eps
	case hedgeOver:
		return c > v+eps
	case hedgeUnder:
		return c < v-eps
	case hedgeAtMost:
		return c <= v+eps
	case hedgeAtLeast:
		return c >= v-eps
	}
	return c >= v-p/2-eps && c < v+p-eps
}

// rule explains the tolerance applied to f, for messages.
func (f stated) rule() string {
	unit := f.formatPrec()
	switch f.hedge {
	case hedgeAbout:
		return fmt.Sprintf("%q admits 10%% either way", f.hword)
	case hedgeNearly:
		return fmt.Sprintf("%q admits up to 10%% below", f.hword)
	case hedgeOver:
		return fmt.Sprintf("%q needs a larger value", f.hword)
	case hedgeUnder:
		return fmt.Sprintf("%q needs a smaller value", f.hword)
	case hedgeAtMost:
		return fmt.Sprintf("%q needs a value no larger", f.hword)
	case hedgeAtLeast:
		return fmt.Sprintf("%q needs a value no smaller", f.hword)
	}
	if f.kind == figFraction {
		return fmt.Sprintf("a fraction 1/%s needs the inverse ratio to round to %s", FormatNumber(f.den), FormatNumber(f.den))
	}
	return fmt.Sprintf("an unhedged figure must be the computed value rounded or truncated to its last digit (%s)", unit)
}

func (f stated) formatPrec() string {
	if f.kind == figDuration {
		switch {
		case f.prec >= 86400:
			return FormatNumber(f.prec/86400) + " d"
		case f.prec >= 3600:
			return FormatNumber(f.prec/3600) + " h"
		case f.prec >= 60:
			return FormatNumber(f.prec/60) + " min"
		case f.prec >= 1:
			return FormatNumber(f.prec) + " s"
		}
		return FormatNumber(f.prec*1000) + " ms"
	}
	if f.kind == figPercent {
		return FormatNumber(f.prec) + " point"
	}
	return FormatNumber(f.prec)
}

// formatComputed formats a computed value c in the unit of figure f.
func (f stated) formatComputed(c float64) string {
	switch f.kind {
	case figDuration:
		if f.prec < 60 {
			return FormatNumber(math.Round(c*1000)/1000) + " s"
		}
		return FormatDuration(floatdur.Trunc(c * float64(time.Second)))
	case figPercent:
		return FormatNumber(math.Round(c*100)/100) + "%"
	case figRatio:
		return FormatNumber(math.Round(c*1000)/1000) + "×"
	case figFraction:
		if c > 0 {
			return fmt.Sprintf("%s (1/%s)", FormatNumber(math.Round(c*10000)/10000), FormatNumber(math.Round(10/c)/10))
		}
	}
	return FormatNumber(math.Round(c*10000) / 10000)
}
