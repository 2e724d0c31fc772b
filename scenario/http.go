package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"text/template"
)

// HTTP methods a class may send (see [HTTP]).
var httpMethods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}

// BodyData is what an [HTTP] body template can use.
type BodyData struct {
	// ID is the logical request's identity, as its Idempotency-Key header carries it
	// (unquoted): the same for every attempt.
	ID string
	// Key is the request's key in the load's key popularity, 0 the most popular.
	Key int
	// Class is the name of the request's class.
	Class string
}

// MaxBodyBytes is the longest body a template may write.
const MaxBodyBytes = 1 << 20

// errBodyTooLong is what [ExecuteBody] returns for a body over [MaxBodyBytes].
var errBodyTooLong = fmt.Errorf("body is longer than %d bytes", MaxBodyBytes)

// BodyTemplate parses h.Body as a text/template; it returns nil for an empty body.
func (h HTTP) BodyTemplate() (*template.Template, error) {
	if h.Body == "" {
		return nil, nil
	}
	return template.New("body").Option("missingkey=error").Parse(h.Body)
}

// ExecuteBody writes t's body for d to buf, at most [MaxBodyBytes] of it.
func ExecuteBody(t *template.Template, buf *bytes.Buffer, d BodyData) error {
	return t.Execute(&limitedWriter{buf: buf, left: MaxBodyBytes}, d)
}

// limitedWriter fails a write past its limit, so a template cannot grow a body without bound.
type limitedWriter struct {
	buf  *bytes.Buffer
	left int
}

func (w *limitedWriter) Write(p []byte) (int, error) {
	if len(p) > w.left {
		return 0, errBodyTooLong
	}
	w.left -= len(p)
	return w.buf.Write(p)
}

// classHTTP checks a class's HTTP mapping: a known method, a path from /, a body template
// that parses and runs.
func (v *validator) classHTTP(p string, h HTTP) {
	if h.Method != "" && !oneOf(h.Method, httpMethods...) {
		v.addf(p+".method", "unknown method %q; expected one of %s (upper case)", h.Method, strings.Join(httpMethods, ", "))
	}
	if h.Path != "" {
		if !strings.HasPrefix(h.Path, "/") {
			v.addf(p+".path", "path %q does not start with /; expected a path on the target, e.g. /checkout", h.Path)
		} else if u, err := url.ParseRequestURI(h.Path); err != nil || u.Host != "" || strings.ContainsAny(h.Path, " \t#") {
			v.addf(p+".path", "path %q is not a request path; expected /path with an optional ?query, no spaces or #fragment", h.Path)
		}
	}
	t, err := h.BodyTemplate()
	if err != nil {
		v.addf(p+".body", "body template does not parse: %s; expected text/template syntax using {{.ID}}, {{.Key}} or {{.Class}}", templateMessage(err))
		return
	}
	if t != nil {
		var buf bytes.Buffer
		if err := ExecuteBody(t, &buf, BodyData{ID: "id", Key: 0, Class: "class"}); err != nil {
			v.addf(p+".body", "body template fails: %s; expected it to use only {{.ID}}, {{.Key}} and {{.Class}}", templateMessage(err))
		}
	}
}

// templateMessage trims text/template's "template: body:" prefix off err.
func templateMessage(err error) string {
	if errors.Is(err, errBodyTooLong) {
		return errBodyTooLong.Error()
	}
	return strings.TrimPrefix(err.Error(), "template: ")
}
