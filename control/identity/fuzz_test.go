package identity

import (
	"errors"
	"net/http"
	"testing"
)

func FuzzExtract(f *testing.F) {
	f.Add(`"abc"`, "2", true, true)
	f.Add("abc", "", true, false)
	f.Add("", "2", false, true)
	f.Add(`"`, "1", true, true)
	f.Add(`""`, "0", true, true)
	f.Add("a b", "-1", true, true)
	f.Add("8e03978e-40d5-43e8-bc93-6894a57f9324", "99999999999999999999", true, true)
	f.Add(`"a \"b\" \\c"`, "3", true, true)
	f.Add(`"a\b"`, "1", true, false)
	f.Add(`"abc";p=1`, "1", true, false)
	f.Add("\"\x01\"", "1", true, false)
	f.Fuzz(func(t *testing.T, key, attempt string, hasKey, hasAttempt bool) {
		h := http.Header{}
		if hasKey {
			h[Header] = []string{key}
		}
		if hasAttempt {
			h[AttemptHeader] = []string{attempt}
		}
		r, ok, err := Extract(h)
		if err != nil {
			if ok || !errors.Is(err, ErrMalformed) {
				t.Fatalf("Extract(%q, %q) = %v, %v; want ok false and ErrMalformed", key, attempt, ok, err)
			}
			return
		}
		if !ok {
			if hasKey || hasAttempt {
				t.Fatalf("Extract(%q, %q) found no identity and no error", key, attempt)
			}
			return
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("Extract(%q, %q) = %+v, which does not validate: %v", key, attempt, r, err)
		}
		// Whatever was accepted travels unchanged through Inject and Extract.
		out := http.Header{}
		Inject(out, r)
		back, ok, err := Extract(out)
		if err != nil || !ok || back != r {
			t.Fatalf("round trip of %+v = %+v, %v, %v", r, back, ok, err)
		}
	})
}
