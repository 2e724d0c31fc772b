package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"text/template"
	"text/template/parse"
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

// MaxBodyBytes is the longest body [ExecuteBody] writes.
const MaxBodyBytes = 1 << 20

// errBodyAction is what [HTTP.BodyTemplate] returns for an action it does not allow.
var errBodyAction = errors.New("expected only {{.ID}}, {{.Key}} and {{.Class}} (no functions, pipelines, conditions or loops)")

// errBodyTooLong is what [ExecuteBody] returns for a body over [MaxBodyBytes].
var errBodyTooLong = fmt.Errorf("body is longer than %d bytes", MaxBodyBytes)

// BodyTemplate parses h.Body as a text/template; it returns nil for an empty body. The
// template may hold text and the actions {{.ID}}, {{.Key}} and {{.Class}} only (no
// pipelines, functions, conditions or loops), so that writing a body takes time and
// memory in proportion to the template.
func (h HTTP) BodyTemplate() (*template.Template, error) {
	if h.Body == "" {
		return nil, nil
	}
	t, err := template.New("body").Option("missingkey=error").Parse(h.Body)
	if err != nil {
		return nil, err
	}
	if len(t.Templates()) > 1 {
		return nil, fmt.Errorf("body: {{define}} or {{block}}: %w", errBodyAction)
	}
	for _, n := range t.Tree.Root.Nodes {
		switch n := n.(type) {
		case *parse.TextNode, *parse.CommentNode:
			continue
		case *parse.ActionNode:
			if p := n.Pipe; len(p.Decl) == 0 && len(p.Cmds) == 1 && len(p.Cmds[0].Args) == 1 {
				if f, ok := p.Cmds[0].Args[0].(*parse.FieldNode); ok && len(f.Ident) == 1 && oneOf(f.Ident[0], "ID", "Key", "Class") {
					continue
				}
			}
		}
		loc, _ := t.ErrorContext(n)
		return nil, fmt.Errorf("%s: %s: %w", loc, n, errBodyAction)
	}
	return t, nil
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
	if errors.Is(err, errBodyAction) {
		v.addf(p+".body", "body template: %s", err)
		return
	}
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
