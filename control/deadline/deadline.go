package deadline

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/goodput-lab/goodput/control/internal/nanotime"
)

// Header names. Both are in canonical form, so they can index an
// [http.Header] map directly.
const (
	// Header carries the absolute deadline, RFC 3339 in UTC with nanoseconds.
	Header = "Goodput-Deadline"
	// TimeoutHeader carries the time left when the request was sent, in the
	// gRPC grpc-timeout format (1 to 8 digits and a unit: H M S m u n).
	TimeoutHeader = "Goodput-Timeout"
)

// Errors returned by [CallTimeout], and matched by the errors of the parsers.
var (
	// ErrExpired means the deadline has passed: no time remains.
	ErrExpired = errors.New("deadline: expired")
	// ErrInsufficient means some time remains, but not more than the reserve
	// the rest of the path needs, so a call started now would answer too late.
	ErrInsufficient = errors.New("deadline: insufficient time after reserve")
	// ErrMalformed is matched (with errors.Is) by every [*HeaderError].
	ErrMalformed = errors.New("deadline: malformed header")
)

// HeaderError reports a header value that cannot be parsed and what was
// expected instead. errors.Is(err, ErrMalformed) holds for it.
type HeaderError struct {
	Name   string // the header, e.g. "Goodput-Timeout"
	Value  string // the value received
	Reason string // what is wrong and what is expected
}

// maxQuoted bounds how much of a bad value an error message repeats.
const maxQuoted = 64

func (e *HeaderError) Error() string {
	v := e.Value
	if len(v) > maxQuoted {
		v = v[:maxQuoted] + "..."
	}
	return fmt.Sprintf("deadline: %s %q: %s", e.Name, v, e.Reason)
}

// Is reports whether target is [ErrMalformed].
func (e *HeaderError) Is(target error) bool { return target == ErrMalformed }

// Remaining returns how much of deadline is left at now. It is negative once
// the deadline has passed. A zero deadline counts as long past.
func Remaining(deadline, now time.Time) time.Duration {
	return nanotime.Sub(deadline, now)
}

// DefaultCeiling is the cap on one call's timeout that a client applies when it
// is configured with none: a call made with most of a long deadline left still
// times out after 30 s, and a call made without a deadline gets 30 s. It is the
// one definition of the default, used by control/controlhttp's client and by the
// model's derived timeouts, so that what a replay assumes is what the client does.
const DefaultCeiling = 30 * time.Second

// CallTimeout returns the timeout for one call to a dependency made at now on
// behalf of a request that must finish by deadline: the time remaining minus
// reserve, the time the rest of the path needs after the call returns (the
// response still has to be processed and sent back). When ceiling is positive
// the timeout is capped at it; a ceiling of zero or less means no cap.
//
// CallTimeout returns [ErrExpired] when no time remains and [ErrInsufficient]
// when the time remaining does not exceed reserve; in both cases the call
// should not be made. A negative reserve counts as zero.
//
// A fixed per-call timeout (such as 350 ms) is the defect this function
// replaces: late in the deadline it lets a call run after the caller has given
// up, and it stacks across retries. See the package example.
func CallTimeout(deadline, now time.Time, reserve, ceiling time.Duration) (time.Duration, error) {
	left := nanotime.Sub(deadline, now)
	if left <= 0 {
		return 0, ErrExpired
	}
	if reserve < 0 {
		reserve = 0
	}
	t := left - reserve
	if t <= 0 {
		return 0, ErrInsufficient
	}
	if ceiling > 0 && t > ceiling {
		t = ceiling
	}
	return t, nil
}

// Defaults of [Config] for zero fields.
const (
	// DefaultTimeout is the deadline given to a request that carries none
	// when [Config.Default] is zero.
	DefaultTimeout = 30 * time.Second
	// DefaultMax caps every deadline received when [Config.Max] is zero.
	DefaultMax = 60 * time.Second
)

// Off, as [Config.Default], gives a request that carries no deadline none;
// as [Config.Max], caps no deadline received. [Config.Validate] refuses
// other negative values, as a likely slip; [Extract] treats them as Off.
const Off time.Duration = -1

// AsSent is the Config that reads a deadline as the request carries it: no
// skew margin, no default and no cap. It is for proxies and harnesses that
// observe deadlines; a service should keep the defaults' bounds.
var AsSent = Config{Default: Off, Max: Off}

// Config says how [Extract] turns received headers into a deadline. The zero
// Config trusts the sender's clock, gives a request that carries no deadline
// [DefaultTimeout] (30 s) and cuts every deadline received to at most
// [DefaultMax] (60 s) away, so neither a caller without a deadline nor one
// sending Goodput-Timeout: 99999999H holds the service's work for longer.
type Config struct {
	// SkewMargin is subtracted from an absolute deadline received from
	// another host, to allow for its clock running behind ours. Zero trusts
	// the sender's clock. The relative header is not adjusted.
	SkewMargin time.Duration
	// Default is the time allowed to a request that carries no deadline
	// header. Zero means [DefaultTimeout]; [Off] (or any negative value)
	// means such a request has no deadline (Extract reports ok == false).
	Default time.Duration
	// Max caps the time any request may be given, however far away the
	// deadline it carries: a deadline beyond now+Max is brought forward to
	// it. Zero means [DefaultMax]; [Off] (or any negative value) means no
	// cap.
	Max time.Duration
}

// timeouts returns the effective Default and Max: 0 for none.
func (c Config) timeouts() (def, limit time.Duration) {
	def, limit = c.Default, c.Max
	switch {
	case def == 0:
		def = DefaultTimeout
	case def < 0:
		def = 0
	}
	switch {
	case limit == 0:
		limit = DefaultMax
	case limit < 0:
		limit = 0
	}
	return def, limit
}

// Validate reports whether c is usable: SkewMargin is not negative, and
// the effective Default does not exceed the effective Max when both bound.
func (c Config) Validate() error {
	switch {
	case c.SkewMargin < 0:
		return fmt.Errorf("deadline: SkewMargin %v is negative; want 0 or more", c.SkewMargin)
	case c.Default < 0 && c.Default != Off:
		return fmt.Errorf("deadline: Default %v is negative; want 0 (DefaultTimeout), Off or more", c.Default)
	case c.Max < 0 && c.Max != Off:
		return fmt.Errorf("deadline: Max %v is negative; want 0 (DefaultMax), Off or more", c.Max)
	}
	if def, limit := c.timeouts(); limit > 0 && def > limit {
		if c.Max == 0 {
			return fmt.Errorf("deadline: Default %v exceeds Max %v (DefaultMax, as Max is zero); set Max too", c.Default, limit)
		}
		return fmt.Errorf("deadline: Default %v exceeds Max %v", def, limit)
	}
	return nil
}

// Inject writes deadline into h as both headers: [Header] with the absolute
// instant and [TimeoutHeader] with the time remaining at now (zero when the
// deadline has passed, so the receiver sees an expired request rather than
// none). A zero deadline means there is none to propagate: Inject deletes
// both headers.
func Inject(h http.Header, deadline, now time.Time) {
	if deadline.IsZero() {
		delete(h, Header)
		delete(h, TimeoutHeader)
		return
	}
	h[Header] = []string{FormatDeadline(deadline)}
	h[TimeoutHeader] = []string{FormatTimeout(deadline.Sub(now))}
}

// Extract reads the deadline a request carries, as seen at now.
//
// It prefers [Header] and subtracts cfg.SkewMargin from it; when that header
// is absent it uses [TimeoutHeader], counted from now. When neither is present
// it applies cfg.Default ([DefaultTimeout] when zero; ok is false when it is
// [Off]: the request has no deadline). The deadline is then brought forward to
// at most now+cfg.Max ([DefaultMax] when zero; no cap when Off). A deadline
// that has already passed is returned with ok true; the caller decides how to
// answer an expired request. Extract does not validate cfg.
//
// A present but malformed or repeated header is an error (a [*HeaderError])
// rather than a reason to fall back, so a broken sender is noticed.
func Extract(h http.Header, now time.Time, cfg Config) (d time.Time, ok bool, err error) {
	if v, present, err := single(h, Header); err != nil {
		return time.Time{}, false, err
	} else if present {
		t, err := ParseDeadline(v)
		if err != nil {
			return time.Time{}, false, err
		}
		d = t.Add(-cfg.SkewMargin)
	} else if v, present, err := single(h, TimeoutHeader); err != nil {
		return time.Time{}, false, err
	} else if present {
		t, err := ParseTimeout(v)
		if err != nil {
			return time.Time{}, false, err
		}
		d = now.Add(t)
	} else if def, _ := cfg.timeouts(); def > 0 {
		d = now.Add(def)
	} else {
		return time.Time{}, false, nil
	}
	if _, limit := cfg.timeouts(); limit > 0 && d.Sub(now) > limit {
		d = now.Add(limit)
	}
	return d, true, nil
}

// single returns the one value of header name in h.
func single(h http.Header, name string) (string, bool, error) {
	vs := h[name]
	switch len(vs) {
	case 0:
		return "", false, nil
	case 1:
		return vs[0], true, nil
	}
	return "", false, &HeaderError{Name: name, Value: strings.Join(vs, ", "), Reason: "repeated; want exactly one value"}
}

// FormatDeadline formats t for [Header]: RFC 3339 in UTC with as many
// fractional digits as needed, up to nanoseconds.
func FormatDeadline(t time.Time) string {
	return t.UTC().Format(time.RFC3339Nano)
}

// ParseDeadline parses an absolute deadline in RFC 3339 form, with or without
// fractional seconds, in UTC (Z) or with a numeric offset. Surrounding spaces
// and tabs are ignored. The result is in UTC.
func ParseDeadline(s string) (time.Time, error) {
	v := strings.Trim(s, " \t")
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		reason := "want an RFC 3339 time such as 2026-03-14T14:12:01.8Z"
		var pe *time.ParseError
		if errors.As(err, &pe) && pe.Message != "" {
			reason += " (" + strings.TrimPrefix(pe.Message, ": ") + ")"
		}
		return time.Time{}, &HeaderError{Name: Header, Value: s, Reason: reason}
	}
	t = t.UTC()
	if y := t.Year(); y < 0 || y > 9999 {
		// A numeric offset can move a year-9999 time past the range RFC 3339 can write.
		return time.Time{}, &HeaderError{Name: Header, Value: s, Reason: "year out of range in UTC; want 0000 to 9999"}
	}
	return t, nil
}

// maxTimeoutValue is the largest value grpc-timeout allows (8 digits).
const maxTimeoutValue = 99_999_999

// timeoutUnits lists the units from coarsest to finest.
var timeoutUnits = [...]struct {
	unit byte
	d    time.Duration
}{
	{'H', time.Hour},
	{'M', time.Minute},
	{'S', time.Second},
	{'m', time.Millisecond},
	{'u', time.Microsecond},
	{'n', time.Nanosecond},
}

// FormatTimeout formats d for [TimeoutHeader]. It uses the coarsest unit that
// represents d exactly in at most 8 digits (350ms is "350m", 2s is "2S");
// when no unit does, it uses the finest unit that fits and rounds down, so
// the receiver is never given more time than remains (by less than one part
// in 100,000). A d of zero or less is "0n".
func FormatTimeout(d time.Duration) string {
	if d <= 0 {
		return "0n"
	}
	for _, u := range timeoutUnits {
		if d%u.d == 0 && d/u.d <= maxTimeoutValue {
			return formatTimeout(int64(d/u.d), u.unit)
		}
	}
	for i := len(timeoutUnits) - 1; i >= 0; i-- {
		u := timeoutUnits[i]
		if d/u.d <= maxTimeoutValue {
			return formatTimeout(int64(d/u.d), u.unit)
		}
	}
	panic("unreachable: every time.Duration fits in 8 digits of hours")
}

func formatTimeout(v int64, unit byte) string {
	var buf [9]byte
	i := len(buf) - 1
	buf[i] = unit
	for {
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return string(buf[i:])
}

// ParseTimeout parses a relative timeout in the grpc-timeout format: 1 to 8
// ASCII digits followed by one unit letter, H (hours), M (minutes),
// S (seconds), m (milliseconds), u (microseconds) or n (nanoseconds).
// Surrounding spaces and tabs are ignored. Values too large for a
// time.Duration (more than about 292 years) saturate at its maximum.
func ParseTimeout(s string) (time.Duration, error) {
	v := strings.Trim(s, " \t")
	bad := func(reason string) (time.Duration, error) {
		return 0, &HeaderError{Name: TimeoutHeader, Value: s, Reason: reason}
	}
	if v == "" {
		return bad("empty; want 1 to 8 digits and a unit H M S m u n, such as 350m")
	}
	digits, unit := v[:len(v)-1], v[len(v)-1]
	var scale time.Duration
	for _, u := range timeoutUnits {
		if u.unit == unit {
			scale = u.d
		}
	}
	if scale == 0 {
		if unit >= '0' && unit <= '9' {
			return bad("missing unit; want one of H M S m u n after the digits")
		}
		return bad("unit must be one of H M S m u n")
	}
	if digits == "" {
		return bad("missing value; want 1 to 8 digits before the unit")
	}
	if len(digits) > 8 {
		return bad("value has more than 8 digits")
	}
	var n int64
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return bad("value must be ASCII digits 0-9")
		}
		n = n*10 + int64(c-'0')
	}
	if n > int64(maxDuration/scale) {
		return maxDuration, nil
	}
	return time.Duration(n) * scale, nil
}

const maxDuration = time.Duration(1<<63 - 1)

// NewContext returns a copy of parent that is cancelled when d passes (or
// when parent is done, or cancel is called), so cancellation reaches every
// goroutine and outgoing call working for the request. A zero d means no
// deadline: the context is only cancellable. Because the context package arms
// a wall-clock timer, NewContext is for real services; the simulator works
// with deadline instants directly.
func NewContext(parent context.Context, d time.Time) (context.Context, context.CancelFunc) {
	if d.IsZero() {
		return context.WithCancel(parent)
	}
	return context.WithDeadline(parent, d)
}

// FromContext returns the deadline of ctx: the earliest of the deadlines set
// on it and its parents, by [NewContext] or otherwise. ok is false when ctx
// has none.
func FromContext(ctx context.Context) (d time.Time, ok bool) {
	return ctx.Deadline()
}
