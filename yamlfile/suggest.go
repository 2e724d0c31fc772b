package yamlfile

import (
	"fmt"
	"math"
	"strings"
)

// Suggest returns the known name that key is most likely a misspelling of, or
// "" if none is close enough: a typo or two in a long enough word (by
// Levenshtein distance, ignoring case), or a truncation. Unmarshal uses it for
// "unknown key …; did you mean …?"; formats use it for names of their own.
func Suggest(key string, known []string) string {
	key = strings.ToLower(key)
	best, bestDist := "", math.MaxInt
	for _, k := range known {
		if d := editDistance(key, strings.ToLower(k)); d < bestDist {
			best, bestDist = k, d
		}
	}
	if best == "" || !suggestible(key, strings.ToLower(best), bestDist) {
		return ""
	}
	return best
}

// suggestible reports whether a key is close enough to a known one to
// suggest it: a typo or two in a long enough word, or a truncation.
func suggestible(key, known string, dist int) bool {
	n := len([]rune(key))
	switch {
	case dist <= 1:
		return true
	case dist <= 2 && n >= 5, dist <= 3 && n >= 9:
		return true
	}
	common := 0
	for common < len(key) && common < len(known) && key[common] == known[common] {
		common++
	}
	return common >= max(4, n-1)
}

// editDistance is the Levenshtein distance between a and b, in characters;
// strings over 64 characters are never close (math.MaxInt).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		return math.MaxInt
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			c := 1
			if ra[i-1] == rb[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// unknownKey says a key is unknown, suggesting the closest known key or
// listing them all.
func unknownKey(key string, names []string) string {
	if s := Suggest(key, names); s != "" {
		return fmt.Sprintf("unknown key %s; did you mean %q?", quoteShort(key), s)
	}
	switch len(names) {
	case 0:
		return fmt.Sprintf("unknown key %s; expected no keys here", quoteShort(key))
	case 1:
		return fmt.Sprintf("unknown key %s; expected only %s", quoteShort(key), names[0])
	}
	return fmt.Sprintf("unknown key %s; expected one of %s", quoteShort(key), strings.Join(names, ", "))
}
