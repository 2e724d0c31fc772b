package evidence

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzDecode checks that no input makes Decode or Verify panic, that every error is an
// *Error naming the file, and that whatever decodes also validates and verifies.
func FuzzDecode(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*.packet.yaml"))
	paths = append(paths, northstarPath)
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"",
		"title: t\nfigures:\n  x: {formula: 1 + 2, claim: 3}\n",
		"title: t\ninputs:\n  a: {value: 2}\nfigures:\n  x: {formula: a / 0, claim: 1}\n",
		"title: t\nfigures:\n  x: {formula: y, claim: 1}\n  y: {formula: x, claim: 1}\n",
		"title: t\nfigures:\n  x:\n    formula: |\n      1 +\n        q\n    claim: 1\n",
		"title: t\nfigures:\n  x: {formula: 'now() + len(\"a\")', claim: 1}\n",
		"title: t\nfigures:\n  x: {formula: '((((((((1))))))))', claim: 1.5e3, precision: 2}\n",
		"title: &a t\nsource: *a\n",
		"title: t\nfigures: !!map {x: {formula: 1, claim: 1}}\n",
		"- 1\n- 2\n",
		"title: t\n---\ntitle: u\n",
		"{title: t, figures: {x: {formula: 2 ** 2, claim: 4, tolerance: 0}}}",
		"title: t\nfigures:\n  x: {formula: \"1 +\\t2\", claim: 3}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Decode("f.yaml", data)
		if err != nil {
			if p != nil {
				t.Errorf("Decode returned a packet and an error")
			}
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "f.yaml") {
					t.Errorf("error line %q does not start with the file name", line)
				}
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("error %v is not an *Error", err)
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Errorf("decoded packet does not validate: %v", err)
		}
		rep := p.Verify()
		if len(rep.Rows) != len(p.Figures) {
			t.Errorf("%d rows for %d figures", len(rep.Rows), len(p.Figures))
		}
		if _, err := rep.WriteTo(io.Discard); err != nil {
			t.Error(err)
		}
	})
}
