package identity

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
)

func TestNewKey(t *testing.T) {
	a := NewKey(rand.New(rand.NewPCG(1, 2)))
	b := NewKey(rand.New(rand.NewPCG(1, 2)))
	c := NewKey(rand.New(rand.NewPCG(1, 3)))
	if a != b {
		t.Errorf("same seed gave %q and %q", a, b)
	}
	if a == c {
		t.Errorf("different streams gave the same key %q", a)
	}
	r := rand.New(rand.NewPCG(9, 9))
	seen := map[Key]bool{}
	for range 1000 {
		k := NewKey(r)
		if len(k) != 32 || strings.Trim(string(k), "0123456789abcdef") != "" {
			t.Fatalf("NewKey = %q, want 32 lower-case hex digits", k)
		}
		if err := k.Validate(); err != nil {
			t.Fatal(err)
		}
		if seen[k] {
			t.Fatalf("NewKey repeated %q", k)
		}
		seen[k] = true
	}
	// The hex digits are the two draws, most significant nibble first.
	r1, r2 := rand.New(rand.NewPCG(4, 4)), rand.New(rand.NewPCG(4, 4))
	hi, lo := r2.Uint64(), r2.Uint64()
	want := hex16(hi) + hex16(lo)
	if got := NewKey(r1); string(got) != want {
		t.Errorf("NewKey = %q, want %q", got, want)
	}
}

func hex16(v uint64) string {
	const digits = "0123456789abcdef"
	var b [16]byte
	for i := 15; i >= 0; i-- {
		b[i] = digits[v&0xf]
		v >>= 4
	}
	return string(b[:])
}

func TestRetry(t *testing.T) {
	r := First("k1")
	for want := 2; want <= 4; want++ {
		r = r.Retry()
		if r.Key != "k1" || r.Attempt != want {
			t.Fatalf("Retry = %+v, want {k1 %d}", r, want)
		}
	}
	if got := (Request{Key: "k"}).Retry(); got.Attempt != 2 {
		t.Errorf("Retry of Attempt 0 = %d, want 2 (0 counts as the first try)", got.Attempt)
	}
	if got := First("c0ffee").Retry().String(); got != "c0ffee#2" {
		t.Errorf("String = %q", got)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		r   Request
		err string
	}{
		{First("8e03978e-40d5-43e8-bc93-6894a57f9324"), ""},
		{Request{Key: "tenant:order/42+x=_~.", Attempt: MaxAttempt}, ""},
		{First(Key(strings.Repeat("a", MaxKeyLen))), ""},
		{First(""), `identity: Idempotency-Key "": empty`},
		{First(Key(strings.Repeat("a", MaxKeyLen+1))), "longer than 255 bytes"},
		{First("a b"), `byte " " at offset 1 not allowed; want letters, digits or - _ . ~ : + / =`},
		{First(`a"b`), `byte "\"" at offset 1 not allowed`},
		{First("é"), `byte "\xc3" at offset 0 not allowed`},
		{Request{Key: "k", Attempt: 0}, `identity: Goodput-Attempt "0": out of range; want 1 to 100`},
		{Request{Key: "k", Attempt: MaxAttempt + 1}, "out of range"},
	} {
		err := tc.r.Validate()
		if tc.err == "" {
			if err != nil {
				t.Errorf("%+v.Validate() = %v", tc.r, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrMalformed) {
			t.Errorf("%+v.Validate() = %v; want ErrMalformed containing %q", tc.r, err, tc.err)
		}
	}
}

func TestInjectExtract(t *testing.T) {
	h := http.Header{}
	Inject(h, First("abc").Retry())
	if got := h.Get(Header); got != `"abc"` {
		t.Errorf("%s = %s, want the quoted string", Header, got)
	}
	if got := h.Get(AttemptHeader); got != "2" {
		t.Errorf("%s = %s", AttemptHeader, got)
	}
	if r, ok, err := Extract(h); err != nil || !ok || r != (Request{"abc", 2}) {
		t.Errorf("Extract after Inject = %+v, %v, %v", r, ok, err)
	}
	Inject(h, Request{Key: "abc"}) // Attempt 0 is written as 1
	if got := h.Get(AttemptHeader); got != "1" {
		t.Errorf("Attempt 0 written as %q, want 1", got)
	}
	Inject(h, Request{})
	if len(h) != 0 {
		t.Errorf("Inject of no identity left %v", h)
	}
}

func TestExtract(t *testing.T) {
	long := strings.Repeat("k", MaxKeyLen)
	for _, tc := range []struct {
		name string
		h    http.Header
		want Request
		ok   bool
		err  string
	}{
		{"none", http.Header{}, Request{}, false, ""},
		{"quoted", http.Header{Header: {`"abc"`}, AttemptHeader: {"3"}}, Request{"abc", 3}, true, ""},
		{"bare, as Stripe sends", http.Header{Header: {"abc"}}, Request{"abc", 1}, true, ""},
		{"spaces around", http.Header{Header: {` "abc" `}, AttemptHeader: {" 2 "}}, Request{"abc", 2}, true, ""},
		{"longest key", http.Header{Header: {long}}, Request{Key(long), 1}, true, ""},
		{"highest attempt", http.Header{Header: {"a"}, AttemptHeader: {"100"}}, Request{"a", 100}, true, ""},
		{"attempt without key", http.Header{AttemptHeader: {"2"}}, Request{}, false,
			`identity: Goodput-Attempt "2": present without Idempotency-Key`},
		{"empty key", http.Header{Header: {""}}, Request{}, false, `identity: Idempotency-Key "": empty`},
		{"empty quoted key", http.Header{Header: {`""`}}, Request{}, false, `identity: Idempotency-Key "\"\"": empty`},
		{"unterminated quote", http.Header{Header: {`"abc`}}, Request{}, false, "unterminated quoted string"},
		{"lone quote", http.Header{Header: {`"`}}, Request{}, false, "unterminated quoted string"},
		{"bad byte", http.Header{Header: {"ab;c"}}, Request{}, false, `byte ";" at offset 2 not allowed`},
		{"too long", http.Header{Header: {long + "k"}}, Request{}, false, "longer than 255 bytes"},
		{"repeated key", http.Header{Header: {"a", "b"}}, Request{}, false, `identity: Idempotency-Key "a, b": repeated`},
		{"repeated attempt", http.Header{Header: {"a"}, AttemptHeader: {"1", "2"}}, Request{}, false, "repeated"},
		{"attempt zero", http.Header{Header: {"a"}, AttemptHeader: {"0"}}, Request{}, false, "out of range; want 1 to 100"},
		{"attempt too high", http.Header{Header: {"a"}, AttemptHeader: {"101"}}, Request{}, false, "out of range"},
		{"attempt huge", http.Header{Header: {"a"}, AttemptHeader: {"99999999999999999999"}}, Request{}, false, "out of range"},
		{"attempt negative", http.Header{Header: {"a"}, AttemptHeader: {"-1"}}, Request{}, false, "want a decimal number from 1 to 100"},
		{"attempt empty", http.Header{Header: {"a"}, AttemptHeader: {""}}, Request{}, false, "empty; want a number from 1 to 100"},
	} {
		r, ok, err := Extract(tc.h)
		if tc.err != "" {
			if err == nil || ok || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrMalformed) {
				t.Errorf("%s: Extract = %+v, %v, %v; want ErrMalformed containing %q", tc.name, r, ok, err, tc.err)
			}
			continue
		}
		if err != nil || ok != tc.ok || r != tc.want {
			t.Errorf("%s: Extract = %+v, %v, %v; want %+v, %v", tc.name, r, ok, err, tc.want, tc.ok)
		}
	}
}

func TestContext(t *testing.T) {
	if _, ok := FromContext(context.Background()); ok {
		t.Fatal("Background carries an identity")
	}
	ctx := NewContext(context.Background(), First("k").Retry())
	if r, ok := FromContext(ctx); !ok || r != (Request{"k", 2}) {
		t.Errorf("FromContext = %+v, %v", r, ok)
	}
}
