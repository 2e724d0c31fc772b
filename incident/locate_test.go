package incident

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// refLocate is the one-shot locate that the locator replaced: it aligns the text with the
// source from the value's start for every offset. The locator must agree with it for
// every offset, in any order.
func refLocate(d *Document, path, text string, off int) (line, col int) {
	pl, pc := d.Position(path)
	if pl == 0 {
		return 0, 0
	}
	j := d.srcOffset(pl, pc)
	if j < 0 || j >= len(d.src) {
		return pl, pc
	}
	src := d.src
	switch src[j] {
	case '|', '>':
		for j < len(src) && src[j] != '\n' {
			j++
		}
	case '"', '\'':
		j++
	}
	for i := 0; i < off && i < len(text); {
		if isSpace(text[i]) {
			for i < off && isSpace(text[i]) {
				i++
			}
			for j < len(src) && isSpace(src[j]) {
				j++
			}
			continue
		}
		k := j
		for k < len(src) && src[k] != text[i] && k-j < 8 {
			k++
		}
		if k >= len(src) || src[k] != text[i] {
			return pl, pc
		}
		j, i = k+1, i+1
	}
	for j < len(src) && isSpace(src[j]) {
		j++
	}
	if j >= len(src) {
		return pl, pc
	}
	line, start := 1, 0
	for k := 0; k < j; k++ {
		if src[k] == '\n' {
			line, start = line+1, k+1
		}
	}
	return line, utf8.RuneCount(src[start:j]) + 1
}

// TestLocatorMatchesOneShot places every offset of every prose value of the examples,
// and of a document whose escapes make the alignment fail part-way, with one locator per
// value: in increasing order (as the checks place figures), then in a random order. Each
// must be where the one-shot alignment puts it.
func TestLocatorMatchesOneShot(t *testing.T) {
	type doc struct {
		name string
		src  []byte
	}
	docs := []doc{{
		// The escapes decode to characters the source does not have, so offsets after
		// them fall back to the value's position, and offsets before them do not.
		"escapes", []byte("id: x\nsummary: \"Ninety-four percent, 94%, of\\t checkouts failed\\u00e9 for 33 minutes\"\nroot_cause:\n  explanation: >\n    A folded\n    value   with 3 lines\n\n    and 2 paragraphs.\n"),
	}}
	for _, name := range examples {
		src, err := os.ReadFile(filepath.Join(exampleDir, name+".incident.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, doc{name, src})
	}
	r := rand.New(rand.NewPCG(1, 2))
	fell := false
	for _, dc := range docs { // in a fixed order, so that the shuffles are the same every run
		name := dc.name
		d, err := Decode(name+".incident.yaml", dc.src)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range d.prose() {
			type pos struct{ line, col int }
			want := make([]pos, len(f.text)+1)
			for off := range want {
				want[off].line, want[off].col = refLocate(d, f.path, f.text, off)
			}
			pl, pc := d.Position(f.path)
			fell = fell || want[len(f.text)] == pos{pl, pc} && len(f.text) > 0 && strings.Contains(name, "escapes")
			check := func(how string, loc *locator, offs []int) {
				for _, off := range offs {
					if l, c := loc.at(off); (pos{l, c}) != want[off] {
						t.Fatalf("%s %s, %s: offset %d at %d:%d, want %d:%d", name, f.path, how, off, l, c, want[off].line, want[off].col)
					}
				}
			}
			offs := make([]int, len(want))
			for i := range offs {
				offs[i] = i
			}
			check("increasing", d.locator(f.path, f.text), offs)
			r.Shuffle(len(offs), func(i, j int) { offs[i], offs[j] = offs[j], offs[i] })
			check("random order", d.locator(f.path, f.text), offs)
		}
	}
	if !fell {
		t.Error("no offset of the escapes document fell back to its value's position: the failing alignment is not exercised")
	}
}

// BenchmarkCheckLongProse checks documents whose summary states a figure every few words,
// at two lengths: the time per byte should not grow with the length (it did: every
// diagnostic aligned its value from the start).
func BenchmarkCheckLongProse(b *testing.B) {
	base, err := os.ReadFile(filepath.Join(exampleDir, "payment-timeout.incident.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{100, 1000} {
		sentence := "The pool of 200 connections held 41,900 requests for 30 s, nine times worse at 09:47 and 94% of 12 pods. "
		src := bytes.Replace(base, []byte("summary: >-\n"), []byte("summary: >-\n  "+strings.Repeat(sentence, n)+"\n"), 1)
		b.Run(fmt.Sprintf("%d-sentences", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d, err := Decode("long.incident.yaml", src)
				if err != nil {
					b.Fatal(err)
				}
				Check(d)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(src)), "ns/byte")
		})
	}
}
