package identity

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
)

// Header names, in canonical form.
const (
	// Header carries the logical request's key.
	Header = "Idempotency-Key"
	// AttemptHeader carries the attempt number, 1 for the first try.
	AttemptHeader = "Goodput-Attempt"
)

// Limits on what [Extract] and [Request.Validate] accept.
const (
	// MaxKeyLen is the longest key, in bytes.
	MaxKeyLen = 255
	// MaxAttempt is the highest attempt number. Retries are budgeted to a few
	// per logical request; anything near this is a runaway loop.
	MaxAttempt = 100
)

// ErrMalformed is matched (with errors.Is) by every [*HeaderError] and by the
// errors of [Key.Validate] and [Request.Validate].
var ErrMalformed = errors.New("identity: malformed")

// HeaderError reports a header value that cannot be accepted and what was
// expected instead. errors.Is(err, ErrMalformed) holds for it.
type HeaderError struct {
	Name   string // the header, e.g. "Idempotency-Key"
	Value  string // the value received
	Reason string // what is wrong and what is expected
}

const maxQuoted = 64

func (e *HeaderError) Error() string {
	v := e.Value
	if len(v) > maxQuoted {
		v = v[:maxQuoted] + "..."
	}
	return fmt.Sprintf("identity: %s %q: %s", e.Name, v, e.Reason)
}

// Is reports whether target is [ErrMalformed].
func (e *HeaderError) Is(target error) bool { return target == ErrMalformed }

// Key identifies one logical request: every attempt of it, at every layer,
// carries the same Key. The empty Key means no identity.
type Key string

// NewKey returns a fresh key of 128 random bits from r, as 32 lower-case hex
// digits. Pass a seeded stream (rand.New(rand.NewPCG(seed, stream))) so that
// replays draw the same keys; r must not be nil.
func NewKey(r *rand.Rand) Key {
	const hexdigits = "0123456789abcdef"
	var buf [32]byte
	for half, v := range [2]uint64{r.Uint64(), r.Uint64()} {
		for i := 0; i < 16; i++ {
			buf[half*16+i] = hexdigits[v>>(60-4*i)&0xf]
		}
	}
	return Key(buf[:])
}

// Validate reports whether k can travel in [Header]: 1 to [MaxKeyLen] bytes
// of printable ASCII (space to ~), what the header's structured-field string
// can carry. [Inject] quotes and escapes it.
func (k Key) Validate() error {
	if reason := checkKey(string(k)); reason != "" {
		return &HeaderError{Name: Header, Value: string(k), Reason: reason}
	}
	return nil
}

func checkKey(k string) string {
	if k == "" {
		return "empty; want 1 to 255 bytes of printable ASCII"
	}
	if len(k) > MaxKeyLen {
		return "longer than 255 bytes"
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; c < 0x20 || c > 0x7e {
			return fmt.Sprintf("byte %s at offset %d not allowed; want printable ASCII", strconv.QuoteToASCII(k[i:i+1]), i)
		}
	}
	return ""
}

// bareByte reports whether c may appear in a key sent bare, without quotes:
// a token character (RFC 9110) or : / =, which covers UUIDs, hex, base64 and
// ULIDs.
func bareByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~:/=", c) >= 0
}

// Derive returns the key of one operation made on behalf of the logical
// request k, such as its payment authorisation or its capture: each
// operation gets its own key, the same every time it is derived, so that a
// dependency deduplicating by key tells the operations apart yet recognises
// a retry of either. The key is k, a colon and op with every byte other than
// a bare-key byte, and any colon or tilde, written as ~ and two upper-case
// hex digits ("order-7:POST/authorise"), so distinct (k, op) pairs give
// distinct keys. When that is longer than [MaxKeyLen], k is cut short and
// op is replaced by ~~ and 32 hex digits of a SHA-256 of k and op (two such
// keys collide with a chance of 2⁻¹²⁸). An empty op or an empty k returns k
// itself.
func (k Key) Derive(op string) Key {
	if k == "" || op == "" {
		return k
	}
	const hexdigits = "0123456789ABCDEF"
	b := make([]byte, 0, len(k)+1+len(op))
	b = append(append(b, k...), ':')
	for i := 0; i < len(op); i++ {
		if c := op[i]; bareByte(c) && c != ':' && c != '~' {
			b = append(b, c)
		} else {
			b = append(b, '~', hexdigits[c>>4], hexdigits[c&0xf])
		}
	}
	if len(b) <= MaxKeyLen {
		return Key(b)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%d:%s%s", len(k), k, op)
	sum := h.Sum(nil)
	const tail = len(":~~") + 32
	b = append(b[:0], k[:min(len(k), MaxKeyLen-tail)]...)
	b = append(b, ":~~"...)
	return Key(hex.AppendEncode(b, sum[:16]))
}

// Request is one attempt of a logical request: its Key and its Attempt
// number, 1 for the first try. Every layer that retries uses [Request.Retry],
// so the attempt number counts tries of the logical request, not of one hop.
type Request struct {
	Key     Key
	Attempt int
}

// First returns the first attempt of the logical request k.
func First(k Key) Request { return Request{Key: k, Attempt: 1} }

// Retry returns the next attempt of the same logical request: the same Key
// and Attempt plus one. An Attempt below 1 counts as 1.
func (r Request) Retry() Request {
	a := r.Attempt
	if a < 1 {
		a = 1
	}
	return Request{Key: r.Key, Attempt: a + 1}
}

// Derive returns the request of the operation op made on behalf of r: the
// key [Key.Derive] gives and the same Attempt, which keeps counting the
// tries of the logical request. Retries of that operation are its
// [Request.Retry].
func (r Request) Derive(op string) Request {
	return Request{Key: r.Key.Derive(op), Attempt: r.Attempt}
}

// Validate reports whether r has a valid Key and an Attempt from 1 to
// [MaxAttempt].
func (r Request) Validate() error {
	if err := r.Key.Validate(); err != nil {
		return err
	}
	if reason := checkAttempt(r.Attempt); reason != "" {
		return &HeaderError{Name: AttemptHeader, Value: strconv.Itoa(r.Attempt), Reason: reason}
	}
	return nil
}

func checkAttempt(a int) string {
	if a < 1 || a > MaxAttempt {
		return "out of range; want 1 to 100"
	}
	return ""
}

// String returns the key and attempt as key#attempt, e.g. "c0ffee#2", the
// form used in traces and logs.
func (r Request) String() string {
	return string(r.Key) + "#" + strconv.Itoa(r.Attempt)
}

// Inject writes r into h: [Header] with the key as a structured-field string
// (quoted, with " and \ escaped by a backslash) and
// [AttemptHeader] with the attempt number (an Attempt below 1 is written as
// 1). Inject does not validate r; a request whose key came from outside
// should have passed [Extract] or [Request.Validate]. A Request with an empty
// Key has no identity to propagate: Inject deletes both headers.
func Inject(h http.Header, r Request) {
	if r.Key == "" {
		delete(h, Header)
		delete(h, AttemptHeader)
		return
	}
	a := r.Attempt
	if a < 1 {
		a = 1
	}
	h[Header] = []string{quote(string(r.Key))}
	h[AttemptHeader] = []string{strconv.Itoa(a)}
}

// Extract reads the identity a request carries. ok is false, with no error,
// when it carries none. The key may be a structured-field string, as the
// IETF Idempotency-Key draft has it and [Inject] writes ("abc", printable
// ASCII with \" and \\ escapes), or bare, as many clients send it (abc, a
// UUID: letters, digits and !#$%&'*+-.^_`|~:/=); structured-field
// parameters are not accepted. The attempt defaults to 1 when
// [AttemptHeader] is absent. A malformed or repeated header, or an attempt
// number without a key, is an error (a [*HeaderError]).
func Extract(h http.Header) (Request, bool, error) {
	keys, attempts := h[Header], h[AttemptHeader]
	if len(keys) == 0 {
		if len(attempts) > 0 {
			return Request{}, false, &HeaderError{Name: AttemptHeader, Value: strings.Join(attempts, ", "),
				Reason: "present without Idempotency-Key; an attempt number needs the identity it counts"}
		}
		return Request{}, false, nil
	}
	if len(keys) > 1 {
		return Request{}, false, &HeaderError{Name: Header, Value: strings.Join(keys, ", "), Reason: "repeated; want exactly one value"}
	}
	k, reason := parseKey(strings.Trim(keys[0], " \t"))
	if reason == "" {
		reason = checkKey(k)
	}
	if reason != "" {
		return Request{}, false, &HeaderError{Name: Header, Value: keys[0], Reason: reason}
	}
	r := Request{Key: Key(k), Attempt: 1}
	switch len(attempts) {
	case 0:
	case 1:
		a, reason := parseAttempt(strings.Trim(attempts[0], " \t"))
		if reason != "" {
			return Request{}, false, &HeaderError{Name: AttemptHeader, Value: attempts[0], Reason: reason}
		}
		r.Attempt = a
	default:
		return Request{}, false, &HeaderError{Name: AttemptHeader, Value: strings.Join(attempts, ", "), Reason: "repeated; want exactly one value"}
	}
	return r, true, nil
}

// parseKey reads the key of an Idempotency-Key value without its surrounding
// spaces: a structured-field string (RFC 9651, section 3.3.3) or a bare key.
// It returns what is wrong when it cannot.
func parseKey(v string) (string, string) {
	if len(v) > 2*MaxKeyLen+2 { // even quoted with every byte escaped
		return "", "longer than 255 bytes"
	}
	if !strings.HasPrefix(v, `"`) {
		for i := 0; i < len(v); i++ {
			if !bareByte(v[i]) {
				return "", fmt.Sprintf("byte %s at offset %d not allowed in a bare key; want letters, digits or !#$%%&'*+-.^_`|~:/=, or a quoted string",
					strconv.QuoteToASCII(v[i:i+1]), i)
			}
		}
		return v, ""
	}
	var b strings.Builder
	for i := 1; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"':
			if i != len(v)-1 {
				return "", fmt.Sprintf("%s after the closing quote at offset %d; want the quoted string alone (no parameters)", strconv.QuoteToASCII(v[i+1:]), i)
			}
			return b.String(), ""
		case c == '\\':
			if i++; i == len(v) || v[i] != '"' && v[i] != '\\' {
				return "", fmt.Sprintf("backslash at offset %d does not escape \" or \\", i-1)
			}
			b.WriteByte(v[i])
		case c < 0x20 || c > 0x7e:
			return "", fmt.Sprintf("byte %s at offset %d not allowed in a quoted string; want printable ASCII", strconv.QuoteToASCII(v[i:i+1]), i)
		default:
			b.WriteByte(c)
		}
	}
	return "", "unterminated quoted string"
}

// quote writes k as a structured-field string.
func quote(k string) string {
	if !strings.ContainsAny(k, `"\`) {
		return `"` + k + `"`
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(k); i++ {
		if k[i] == '"' || k[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(k[i])
	}
	b.WriteByte('"')
	return b.String()
}

// parseAttempt parses a decimal attempt number without sign.
func parseAttempt(s string) (int, string) {
	if s == "" {
		return 0, "empty; want a number from 1 to 100"
	}
	if len(s) > 9 {
		return 0, "out of range; want 1 to 100"
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, "want a decimal number from 1 to 100"
		}
		n = n*10 + int(c-'0')
	}
	if reason := checkAttempt(n); reason != "" {
		return 0, reason
	}
	return n, ""
}

type contextKey struct{}

// NewContext returns a copy of parent that carries r.
func NewContext(parent context.Context, r Request) context.Context {
	return context.WithValue(parent, contextKey{}, r)
}

// FromContext returns the Request carried by ctx, if any.
func FromContext(ctx context.Context) (Request, bool) {
	r, ok := ctx.Value(contextKey{}).(Request)
	return r, ok
}
