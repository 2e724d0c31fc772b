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
	// Order is the identity (Idempotency-Key) of a request of one of the class's
	// [HTTP.OrdersFrom] classes acknowledged earlier in the run: an order that exists.
	Order string
}

// MaxBodyBytes is the longest body [ExecuteBody] writes.
const MaxBodyBytes = 1 << 20

// errBodyAction is what [HTTP.BodyTemplate] returns for an action it does not allow.
var errBodyAction = errors.New("expected only {{.ID}}, {{.Key}}, {{.Class}} and {{.Order}} (no functions, pipelines, conditions or loops)")

// errBodyTooLong is what [ExecuteBody] returns for a body over [MaxBodyBytes].
var errBodyTooLong = fmt.Errorf("body is longer than %d bytes", MaxBodyBytes)

// BodyTemplate parses h.Body as a text/template; it returns nil for an empty body. The
// template may hold text and the actions {{.ID}}, {{.Key}}, {{.Class}} and {{.Order}} only
// (no pipelines, functions, conditions or loops), so that writing a body takes time and
// memory in proportion to the template.
func (h HTTP) BodyTemplate() (*template.Template, error) {
	if h.Body == "" {
		return nil, nil
	}
	return parseTemplate("body", h.Body)
}

// PathTemplate parses h.Path as a template with the actions a body may use; it returns nil
// for a path without actions (send h.Path as it is).
func (h HTTP) PathTemplate() (*template.Template, error) {
	if !strings.Contains(h.Path, "{{") {
		return nil, nil
	}
	return parseTemplate("path", h.Path)
}

// UsesOrder reports whether t (a [HTTP.BodyTemplate] or [HTTP.PathTemplate]) uses
// {{.Order}}.
func UsesOrder(t *template.Template) bool {
	if t == nil {
		return false
	}
	for _, n := range t.Tree.Root.Nodes {
		if a, ok := n.(*parse.ActionNode); ok {
			if f, ok := a.Pipe.Cmds[0].Args[0].(*parse.FieldNode); ok && f.Ident[0] == "Order" {
				return true
			}
		}
	}
	return false
}

func parseTemplate(name, text string) (*template.Template, error) {
	t, err := template.New(name).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, err
	}
	if len(t.Templates()) > 1 {
		return nil, fmt.Errorf("%s: {{define}} or {{block}}: %w", name, errBodyAction)
	}
	for _, n := range t.Tree.Root.Nodes {
		switch n := n.(type) {
		case *parse.TextNode, *parse.CommentNode:
			continue
		case *parse.ActionNode:
			if p := n.Pipe; len(p.Decl) == 0 && len(p.Cmds) == 1 && len(p.Cmds[0].Args) == 1 {
				if f, ok := p.Cmds[0].Args[0].(*parse.FieldNode); ok && len(f.Ident) == 1 && oneOf(f.Ident[0], "ID", "Key", "Class", "Order") {
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
		path := h.Path
		pt, err := h.PathTemplate()
		if err == nil && pt != nil {
			var buf bytes.Buffer
			err = ExecuteBody(pt, &buf, sampleData)
			path = buf.String()
		}
		switch {
		case errors.Is(err, errBodyAction):
			v.addf(p+".path", "path template: %s", err)
		case err != nil:
			v.addf(p+".path", "path template does not parse: %s; expected e.g. /orders/{{.Order}}", templateMessage(err))
		case !strings.HasPrefix(path, "/"):
			v.addf(p+".path", "path %q does not start with /; expected a path on the target, e.g. /checkout", h.Path)
		default:
			if u, err := url.ParseRequestURI(path); err != nil || u.Host != "" || strings.ContainsAny(path, " \t#") {
				v.addf(p+".path", "path %q is not a request path; expected /path with an optional ?query, no spaces or #fragment", h.Path)
			}
		}
	}
	t, err := h.BodyTemplate()
	if errors.Is(err, errBodyAction) {
		v.addf(p+".body", "body template: %s", err)
		return
	}
	if err != nil {
		v.addf(p+".body", "body template does not parse: %s; expected text/template syntax using {{.ID}}, {{.Key}}, {{.Class}} or {{.Order}}", templateMessage(err))
		return
	}
	if t != nil {
		var buf bytes.Buffer
		if err := ExecuteBody(t, &buf, sampleData); err != nil {
			v.addf(p+".body", "body template fails: %s; expected it to use only {{.ID}}, {{.Key}}, {{.Class}} and {{.Order}}", templateMessage(err))
		}
	}
}

// sampleData is what validation writes a path or body template with.
var sampleData = BodyData{ID: "id", Key: 0, Class: "class", Order: "order"}

// ordersFrom checks c's http.orders_from against the classes cs: present exactly when c's
// path or body uses {{.Order}}, naming other declared classes.
func (v *validator) ordersFrom(p string, c Class, cs []Class) {
	pt, _ := c.HTTP.PathTemplate()
	bt, _ := c.HTTP.BodyTemplate()
	uses := UsesOrder(pt) || UsesOrder(bt)
	switch {
	case uses && len(c.HTTP.OrdersFrom) == 0:
		v.addf(p, "the path or body uses {{.Order}} but names no class whose orders it looks up; expected e.g. orders_from: [new_checkout]")
		return
	case !uses && len(c.HTTP.OrdersFrom) > 0:
		v.addf(p, "orders_from is set but neither the path nor the body uses {{.Order}}; expected e.g. path: /orders/{{.Order}}")
		return
	}
	for _, name := range c.HTTP.OrdersFrom {
		found := false
		for _, o := range cs {
			found = found || o.Name == name
		}
		switch {
		case name == c.Name:
			v.addf(p, "class %q names its own orders; expected another class, whose requests create them", name)
		case !found:
			v.addf(p, "class %q is not declared; expected one of the scenario's classes", name)
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
