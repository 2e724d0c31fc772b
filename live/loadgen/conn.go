package loadgen

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/goodput-lab/goodput/control/deadline"
	"github.com/goodput-lab/goodput/control/identity"
)

// The default client path: each worker keeps one keep-alive HTTP/1.1 connection to the
// target and writes its requests on it and reads their answers itself, in its own
// goroutine. net/http's client hands every request to two goroutines of its own per
// connection (a write loop and a read loop) and back; doing without them roughly halves
// the generator's CPU per request. readAnswer reads the answers.
// [Options.Client] selects net/http's client instead.

// conn is a worker's connection to the target.
type conn struct {
	nc   net.Conn
	br   *bufio.Reader
	bw   *bufio.Writer
	used bool        // has carried an answer: a failure before any byte of the next may be a stale keep-alive
	read int64       // bytes read since the last request was written
	stop func() bool // stops the cut at the end of the run
}

// Read reads from the connection, counting.
func (c *conn) Read(p []byte) (int, error) {
	n, err := c.nc.Read(p)
	c.read += int64(n)
	return n, err
}

// endpoint is where the raw path dials: host:port, and TLS for https.
type endpoint struct {
	addr string
	tls  *tls.Config
}

func newEndpoint(scheme, host string, conf *tls.Config) endpoint {
	e := endpoint{addr: host}
	h, port, err := net.SplitHostPort(host)
	if err != nil { // no port
		h, port = host, "80"
		if scheme == "https" {
			port = "443"
		}
		e.addr = net.JoinHostPort(h, port)
	}
	if scheme == "https" {
		if conf == nil {
			conf = &tls.Config{}
		}
		e.tls = conf.Clone()
		if e.tls.ServerName == "" {
			e.tls.ServerName = h
		}
		e.tls.NextProtos = []string{"http/1.1"}
	}
	return e
}

// longAgo is a deadline in the past: it cuts a connection's pending reads and writes.
var longAgo = time.Unix(1, 0)

func (w *worker) dial(until time.Time) (*conn, error) {
	a := w.a
	d := net.Dialer{Deadline: until, KeepAlive: 30 * time.Second}
	if until.IsZero() {
		d.Timeout = 10 * time.Second
	}
	var nc net.Conn
	var err error
	if a.ep.tls != nil {
		nc, err = (&tls.Dialer{NetDialer: &d, Config: a.ep.tls}).DialContext(a.runCtx, "tcp", a.ep.addr)
	} else {
		nc, err = d.DialContext(a.runCtx, "tcp", a.ep.addr)
	}
	if err != nil {
		return nil, err
	}
	c := &conn{nc: nc, bw: bufio.NewWriterSize(nc, 4096)}
	c.br = bufio.NewReaderSize(c, 4096)
	c.stop = context.AfterFunc(a.runCtx, func() { _ = nc.SetDeadline(longAgo) })
	return c, nil
}

func (w *worker) closeConn() {
	if c := w.cn; c != nil {
		c.stop()
		c.nc.Close()
		w.cn = nil
	}
}

// rawAttempt sends one attempt of r on the worker's connection (dialled if need be) and
// reads its answer to the end.
func (w *worker) rawAttempt(r Request, c *Class, id identity.Request, body []byte) (cause, int, string) {
	a := w.a
	var until time.Time
	if c.Timeout > 0 {
		until = a.clock.Now().Add(c.Timeout)
	}
	for try := 0; ; try++ {
		fresh := w.cn == nil
		if fresh {
			cn, err := w.dial(until)
			if err != nil {
				return w.errCause(err), 0, ""
			}
			w.cn = cn
		}
		res, status, reason, err := w.exchange(r, c, id, body, until)
		if err == nil {
			return res, status, reason
		}
		stale := !fresh && w.cn.used && w.cn.read == 0 && try == 0 && staleError(err)
		w.closeConn()
		if !stale {
			return w.errCause(err), 0, ""
		}
		// The server closed the idle connection before this request reached it (net/http's
		// client retries these too): send it again on a new one, as the same attempt.
	}
}

// staleError is a failure that, on a reused connection before any byte of the answer,
// means the server had already closed it (http.ReadResponse reports an EOF before the
// status line as io.ErrUnexpectedEOF).
func staleError(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

func (w *worker) errCause(err error) cause {
	switch {
	case w.a.runCtx.Err() != nil:
		return causeCut
	case errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		return causeTimeout
	}
	return causeError
}

// exchange writes the request and reads the answer on w.cn. An error leaves the
// connection unusable.
func (w *worker) exchange(r Request, c *Class, id identity.Request, body []byte, until time.Time) (cause, int, string, error) {
	a := w.a
	cn := w.cn
	if err := cn.nc.SetDeadline(until); err != nil {
		return 0, 0, "", err
	}
	if a.runCtx.Err() != nil {
		return 0, 0, "", context.Canceled
	}
	h := w.hdr
	deadline.Inject(h, a.start.Add(r.Deadline), a.clock.Now())
	identity.Inject(h, id)
	b := append(w.req[:0], c.Method...)
	b = append(b, ' ')
	b = append(b, w.uri...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, a.host...)
	b = append(b, "\r\nUser-Agent: goodput-attack\r\n"...)
	for _, k := range [...]string{deadline.Header, deadline.TimeoutHeader, identity.Header, identity.AttemptHeader} {
		if v := h[k]; len(v) == 1 {
			b = append(append(append(append(b, k...), ": "...), v[0]...), "\r\n"...)
		}
	}
	if body != nil || methodHasBody(c.Method) {
		b = strconv.AppendInt(append(b, "Content-Length: "...), int64(len(body)), 10)
		b = append(b, "\r\n"...)
	}
	b = append(b, "\r\n"...)
	w.req = b
	cn.read = 0
	if _, err := cn.bw.Write(b); err != nil {
		return 0, 0, "", err
	}
	if _, err := cn.bw.Write(body); err != nil {
		return 0, 0, "", err
	}
	if err := cn.bw.Flush(); err != nil {
		return 0, 0, "", err
	}
	ans, err := readAnswer(cn.br, c.Method == http.MethodHead)
	if err != nil {
		return 0, 0, "", err
	}
	cn.used = true
	if ans.close {
		w.closeConn()
	}
	return classifyStatus(ans.status), ans.status, ans.reason, nil
}

func methodHasBody(m string) bool {
	return m == http.MethodPost || m == http.MethodPut || m == http.MethodPatch
}

// classifyStatus is what an answer is: a 2xx, an overload refusal (429, 503), another
// 5xx (an error, retried on "error"), or another status (not retried).
func classifyStatus(s int) cause {
	switch {
	case s >= 200 && s < 300:
		return causeOK
	case s == http.StatusTooManyRequests || s == http.StatusServiceUnavailable:
		return causeOverload
	case s >= 500:
		return causeError
	default:
		return causeStatus
	}
}
