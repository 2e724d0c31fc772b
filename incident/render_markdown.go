package incident

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

var mdFuncs = map[string]any{
	"md":   mdEscape,
	"cell": mdCell,
	"url":  mdURL,
	"code": mdCode,
	"milestoneCell": func(m milestoneView) string {
		var parts []string
		if m.Note != "" {
			parts = append(parts, mdEscape(m.Note))
		}
		if m.Source != "" {
			parts = append(parts, "*Source:* "+mdEscape(m.Source))
		}
		if m.Uncertain != "" {
			parts = append(parts, "*"+mdEscape(m.Uncertain)+"*")
		}
		if len(parts) == 0 {
			return " "
		}
		return strings.Join(parts, "<br>")
	},
	"lessonsMD": func(heading string, items []string) lessonsView {
		return lessonsView{Heading: heading, Items: items}
	},
	"sectionMD": func(heading string, text []string) publicSection { return publicSection{heading, text} },
}

// mdCode writes s as a code span, fenced with more backticks than s has in a row.
func mdCode(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	run, longest := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if longest > 0 || strings.HasPrefix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// mdEscape escapes user text for Markdown (CommonMark with GitHub tables) so that it
// reads as written: no emphasis, links, raw HTML or block structure come from it.
func mdEscape(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	var b strings.Builder
	for i, r := range s {
		prev, _ := utf8.DecodeLastRuneInString(s[:i])
		next, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):])
		switch r {
		case '\\', '`', '*', '[', ']', '<', '>', '~', '|':
			b.WriteByte('\\')
		case '_':
			if !isWordRune(prev) || !isWordRune(next) {
				b.WriteByte('\\')
			}
		case '&':
			if next == '#' || unicode.IsLetter(next) {
				b.WriteByte('\\')
			}
		case '#', '-', '+', '=':
			if i == 0 {
				b.WriteByte('\\')
			}
		case '.', ')':
			if isLeadingNumber(s[:i]) && (next == ' ' || next == utf8.RuneError) {
				b.WriteByte('\\')
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isWordRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// isLeadingNumber reports whether s is all digits (an ordered-list marker would follow).
func isLeadingNumber(s string) bool {
	if s == "" || len(s) > 9 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// mdCell escapes text for a table cell: as mdEscape, on one line.
func mdCell(s string) string {
	if s == "" {
		return " "
	}
	return mdEscape(s)
}

// mdURL makes a link destination safe: angle brackets around it when it has spaces or
// parentheses, with the characters that would end it percent-encoded.
// Addresses with a scheme other than http, https or mailto become "#".
func mdURL(s string) string {
	if i := strings.IndexAny(s, ":/?#"); i > 0 && s[i] == ':' {
		switch strings.ToLower(s[:i]) {
		case "http", "https", "mailto":
		default:
			return "#"
		}
	}
	r := strings.NewReplacer("<", "%3C", ">", "%3E", "\n", "%0A", " ", "%20", "(", "%28", ")", "%29")
	return r.Replace(s)
}
