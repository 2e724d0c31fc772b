package controlhttp

import (
	"bufio"
	"net"
	"net/http"
)

// writer records the status an admitted request was answered with, in the
// manner of promhttp's delegator. newWriter returns a type that implements
// http.Flusher and http.Hijacker exactly when the wrapped writer does, so
// a handler's type assertions see what the server offers; Unwrap gives
// http.ResponseController the rest.
type writer struct {
	http.ResponseWriter
	code  int
	wrote bool
}

func (w *writer) WriteHeader(code int) {
	// 1xx informational answers may precede the final one.
	if !w.wrote && code >= 200 {
		w.code, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *writer) Write(b []byte) (int, error) {
	w.final()
	return w.ResponseWriter.Write(b)
}

// final records the implicit 200 of a body written without a status.
func (w *writer) final() {
	if !w.wrote {
		w.code, w.wrote = http.StatusOK, true
	}
}

// Unwrap lets http.ResponseController reach the server's writer.
func (w *writer) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// status returns the status written so far: 200 when the handler wrote
// nothing (net/http sends 200 for it), 0 after a hijack.
func (w *writer) status() int {
	if !w.wrote {
		return http.StatusOK
	}
	return w.code
}

func (w *writer) flush() {
	w.final()
	w.ResponseWriter.(http.Flusher).Flush()
}

func (w *writer) hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := w.ResponseWriter.(http.Hijacker).Hijack()
	if err == nil {
		w.code, w.wrote = 0, true
	}
	return c, rw, err
}

type (
	flushWriter       struct{ *writer }
	hijackWriter      struct{ *writer }
	flushHijackWriter struct{ *writer }
)

func (w flushWriter) Flush()       { w.flush() }
func (w flushHijackWriter) Flush() { w.flush() }

func (w hijackWriter) Hijack() (net.Conn, *bufio.ReadWriter, error)      { return w.hijack() }
func (w flushHijackWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) { return w.hijack() }

// recorded is what the middleware keeps of the writer it hands to next.
type recorded interface {
	http.ResponseWriter
	status() int
}

func newWriter(rw http.ResponseWriter) recorded {
	w := &writer{ResponseWriter: rw}
	_, f := rw.(http.Flusher)
	_, h := rw.(http.Hijacker)
	switch {
	case f && h:
		return flushHijackWriter{w}
	case f:
		return flushWriter{w}
	case h:
		return hijackWriter{w}
	}
	return w
}
