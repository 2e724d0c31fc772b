package incident

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to Decode, and every document it accepts to Check,
// Derived and Expand: bad input must give an error with a position, never a panic.
func FuzzDecode(f *testing.F) {
	for _, name := range examples {
		data, err := os.ReadFile(filepath.Join(exampleDir, name+".incident.yaml"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"",
		"id: [",
		"- a\n- b\n",
		"id: x\ntitel: y\n",
		"milestones:\n  - {name: a, at: 09:47}\n",
		"milestones:\n  - {name: impact_start, at: 2026-09-12T09:14:00Z}\n  - {name: detected, at: 2026-09-12T09:10:00Z}\n",
		"id: &a x\ntitle: *a\n",
		"impact:\n  - {id: a, computed: b}\n  - {id: b, computed: a}\n",
		"impact:\n  - {id: a, computed: 'b * 2'}\n  - {id: b, computed: 'a + 1'}\n",
		"summary: '{{gap:a:b}} {{ratio:peak:series@x}} {{'\n",
		"claims:\n  - {text: nine times, value: 'ratio:peak:series@detected'}\nsummary: nine times\n",
		"claims:\n  - {text: '1', value: '1 +'}\nsummary: '1'\n",
		"series: {unit: '%', points: [{at: 2026-09-12T09:00:00Z, value: 1}], peak: 2, markers: [{milestone: x}]}\n",
		"replay: {scenario: /dev/null, packet: /dev/null, claims: [{assert: 'x'}]}\n",
		"time_zone: Local\n",
		"reviewed: 2026-13-45\n",
		"--- \nid: a\n---\nid: b\n",
		"id: \"\\u0000\"\nsummary: \"\\xff\"\n",
		"? complex\n: key\n",
		"factors: [{id: 01}]\nactions: [{id: AI-1, addresses: ['02']}]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Decode("fuzz.incident.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.incident.yaml") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		for _, d := range Check(doc) {
			if d.File != "fuzz.incident.yaml" || d.Message == "" {
				t.Fatalf("bad diagnostic %+v", d)
			}
		}
		_ = doc.Derived()
		for _, p := range doc.prose() {
			_, _ = doc.Expand(p.text)
		}
	})
}
