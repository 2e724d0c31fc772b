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
		{First(`a b"\~`), ""}, // any printable ASCII: a structured-field string carries it
		{First("a\tb"), `byte "\t" at offset 1 not allowed; want printable ASCII`},
		{First("a\x7fb"), `byte "\x7f" at offset 1 not allowed`},
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
		{"bad byte", http.Header{Header: {"ab;c"}}, Request{}, false, `byte ";" at offset 2 not allowed in a bare key`},
		{"bare with a space", http.Header{Header: {"order 42"}}, Request{}, false, `byte " " at offset 5 not allowed in a bare key`},
		{"bare token bytes", http.Header{Header: {"!#$%&'*+-.^_`|~:/=Az9"}}, Request{"!#$%&'*+-.^_`|~:/=Az9", 1}, true, ""},
		{"bare UUID", http.Header{Header: {"8e03978e-40d5-43e8-bc93-6894a57f9324"}}, Request{"8e03978e-40d5-43e8-bc93-6894a57f9324", 1}, true, ""},
		{"quoted with spaces", http.Header{Header: {`" order 42 "`}}, Request{" order 42 ", 1}, true, ""},
		{"quoted with escapes", http.Header{Header: {`"a\"b\\c"`}}, Request{`a"b\c`, 1}, true, ""},
		{"quoted punctuation", http.Header{Header: {`"(a),[b];{c}<d>@e?f"`}}, Request{"(a),[b];{c}<d>@e?f", 1}, true, ""},
		{"quoted longest", http.Header{Header: {`"` + long + `"`}}, Request{Key(long), 1}, true, ""},
		{"quoted too long", http.Header{Header: {`"` + long + `k"`}}, Request{}, false, "longer than 255 bytes"},
		{"escaped too long", http.Header{Header: {`"` + strings.Repeat(`\\`, MaxKeyLen+1) + `"`}}, Request{}, false, "longer than 255 bytes"},
		{"bad escape", http.Header{Header: {`"a\b"`}}, Request{}, false, `backslash at offset 2 does not escape " or \`},
		{"trailing backslash", http.Header{Header: {`"a\`}}, Request{}, false, "backslash at offset 2 does not escape"},
		{"control byte quoted", http.Header{Header: {"\"a\x01\""}}, Request{}, false, `byte "\x01" at offset 2 not allowed in a quoted string; want printable ASCII`},
		{"non-ASCII quoted", http.Header{Header: {`"é"`}}, Request{}, false, `byte "\xc3" at offset 1 not allowed in a quoted string`},
		{"parameters", http.Header{Header: {`"abc";v=1`}}, Request{}, false, `";v=1" after the closing quote at offset 4; want the quoted string alone (no parameters)`},
		{"two strings", http.Header{Header: {`"a" "b"`}}, Request{}, false, "after the closing quote"},
		{"a list", http.Header{Header: {`"a", "b"`}}, Request{}, false, "after the closing quote"},
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

// TestInjectEscapes checks a key with quotes and backslashes is written as a
// structured-field string with escapes and read back unchanged.
func TestInjectEscapes(t *testing.T) {
	h := http.Header{}
	r := Request{Key: `say "hi" \o/`, Attempt: 3}
	Inject(h, r)
	if got, want := h.Get(Header), `"say \"hi\" \\o/"`; got != want {
		t.Errorf("%s = %s, want %s", Header, got, want)
	}
	if back, ok, err := Extract(h); err != nil || !ok || back != r {
		t.Errorf("Extract = %+v, %v, %v; want %+v", back, ok, err, r)
	}
}

func TestDerive(t *testing.T) {
	long := Key(strings.Repeat("k", MaxKeyLen))
	for _, tc := range []struct {
		k    Key
		op   string
		want Key
	}{
		{"order-7", "POST/authorise", "order-7:POST/authorise"},
		{"order-7", "POST/capture", "order-7:POST/capture"},
		{"order-7", "authorise", "order-7:authorise"},
		{"order-7", "POST /a:b~c", "order-7:POST~20/a~3Ab~7Ec"},
		{"order-7", "é\x00\"", "order-7:~C3~A9~00~22"},
		{"a:b", "c", "a:b:c"}, // nested: the op never holds a colon
		{"a", "b:c", "a:b~3Ac"},
		{"order-7", "", "order-7"},
		{"", "POST/authorise", ""},
		{long, "x", ""}, // checked by its form below
	} {
		got := tc.k.Derive(tc.op)
		if tc.k == long {
			// The hash is checked by its form, not a pinned value.
			if len(got) != MaxKeyLen || !strings.HasPrefix(string(got), strings.Repeat("k", MaxKeyLen-35)+":~~") ||
				strings.Trim(string(got[MaxKeyLen-32:]), "0123456789abcdef") != "" {
				t.Errorf("Derive of a %d-byte key = %q, want the key cut short, :~~ and 32 hex digits", len(tc.k), got)
			}
		} else if got != tc.want {
			t.Errorf("Key(%q).Derive(%q) = %q, want %q", tc.k, tc.op, got, tc.want)
		}
		if got != "" {
			if err := got.Validate(); err != nil {
				t.Errorf("Key(%q).Derive(%q) = %q, which does not validate: %v", tc.k, tc.op, got, err)
			}
		}
	}
	if a, b := long.Derive("x"), long.Derive("y"); a == b {
		t.Errorf("two operations of a long key derived the same %q", a)
	}
	r := Request{Key: "order-7", Attempt: 2}.Derive("POST/capture")
	if r != (Request{Key: "order-7:POST/capture", Attempt: 2}) {
		t.Errorf("Request.Derive = %+v, want the derived key and the same attempt", r)
	}
}

// TestDeriveDistinct is a property test: over random keys and operations
// (drawn from a small alphabet with the bytes that are escaped, so that
// near-collisions are common), distinct pairs derive distinct keys, each
// derivation is deterministic, valid, and survives Inject and Extract.
func TestDeriveDistinct(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 3))
	const alphabet = "ab:~ /é"
	draw := func(max int) string {
		n := rng.IntN(max + 1)
		b := make([]byte, 0, n)
		for range n {
			b = append(b, alphabet[rng.IntN(len(alphabet))])
		}
		return string(b)
	}
	type pair struct {
		k  Key
		op string
	}
	seen := map[Key]pair{}
	for range 20000 {
		k, op := Key(strings.ToValidUTF8(draw(4), "")), draw(5)
		if k.Validate() != nil || op == "" {
			continue
		}
		if n := rng.IntN(8); n == 0 { // now and then, long enough to be hashed
			k = Key(strings.Repeat("k", MaxKeyLen-rng.IntN(40))) + k
			k = k[:min(len(k), MaxKeyLen)]
		}
		d := k.Derive(op)
		if d != k.Derive(op) {
			t.Fatalf("Derive(%q, %q) is not deterministic", k, op)
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("Derive(%q, %q) = %q: %v", k, op, d, err)
		}
		if p, ok := seen[d]; ok && p != (pair{k, op}) {
			t.Fatalf("Derive(%q, %q) = Derive(%q, %q) = %q", k, op, p.k, p.op, d)
		}
		seen[d] = pair{k, op}
		h := http.Header{}
		Inject(h, First(d))
		if back, ok, err := Extract(h); err != nil || !ok || back.Key != d {
			t.Fatalf("round trip of %q = %+v, %v, %v", d, back, ok, err)
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
