package scenario

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestValidateHTTP gives the base scenario's first class an http mapping per case and
// checks the error (with its file position) or its absence.
func TestValidateHTTP(t *testing.T) {
	const at = "    admission: standard\n"
	for _, tc := range []struct {
		name, http string
		path, msg  string // "" for a valid mapping
	}{
		{"full", `{method: POST, path: "/checkout?x=1", body: '{"id":"{{.ID}}","sku":{{.Key}},"class":"{{.Class}}"}'}`, "", ""},
		{"empty", `{}`, "", ""},
		{"path only", `{path: /items}`, "", ""},
		{"lower-case method", `{method: post}`, "$.classes[0].http.method", `unknown method "post"; expected one of GET, HEAD, POST`},
		{"unknown method", `{method: FETCH}`, "$.classes[0].http.method", "unknown method"},
		{"relative path", `{path: checkout}`, "$.classes[0].http.path", "does not start with /"},
		{"path with space", `{path: "/a b"}`, "$.classes[0].http.path", "not a request path"},
		{"path with fragment", `{path: "/a#b"}`, "$.classes[0].http.path", "not a request path"},
		{"unparsable body", `{body: "{{.ID"}`, "$.classes[0].http.body", "does not parse"},
		{"unknown field", `{body: "{{.Sku}}"}`, "$.classes[0].http.body", "body:1:2: {{.Sku}}: expected only {{.ID}}, {{.Key}}, {{.Class}} and {{.Order}}"},
		{"loop", `{body: "{{range 1000000000}}x{{end}}"}`, "$.classes[0].http.body", "{{range 1000000000}}"},
		{"function", `{body: "{{printf \"%0999999999d\" .Key}}"}`, "$.classes[0].http.body", "expected only"},
		{"condition", `{body: "{{if .Key}}x{{end}}"}`, "$.classes[0].http.body", "expected only"},
		{"define", `{body: "{{define \"x\"}}y{{end}}{{.ID}}"}`, "$.classes[0].http.body", "expected only"},
		{"comment", `{body: "{{/* the id */}}{{.ID}}"}`, "", ""},
		{"order lookup", `{path: "/orders/{{.Order}}?class={{.Class}}", orders_from: [look]}`, "", ""},
		{"order in body", `{method: POST, path: /refund, body: '{"order":"{{.Order}}"}', orders_from: [look]}`, "", ""},
		{"order without source", `{path: "/orders/{{.Order}}"}`, "$.classes[0].http.orders_from", "names no class whose orders it looks up"},
		{"source without order", `{path: /orders, orders_from: [look]}`, "$.classes[0].http.orders_from", "neither the path nor the body uses {{.Order}}"},
		{"unknown source", `{path: "/orders/{{.Order}}", orders_from: [sell]}`, "$.classes[0].http.orders_from", `class "sell" is not declared`},
		{"own source", `{path: "/orders/{{.Order}}", orders_from: [buy]}`, "$.classes[0].http.orders_from", `class "buy" names its own orders`},
		{"path function", `{path: "/orders/{{printf \"%s\" .Order}}", orders_from: [look]}`, "$.classes[0].http.path", "path template: path:1:10"},
		{"path unparsable", `{path: "/orders/{{.Order"}`, "$.classes[0].http.path", "path template does not parse"},
		{"path template relative", `{path: "{{.Order}}", orders_from: [look]}`, "$.classes[0].http.path", "does not start with /"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(validBase, at, at+"    http: "+tc.http+"\n", 1)
			if src == validBase {
				t.Fatal("base scenario has no admission line to add http after")
			}
			_, err := Decode("case.yaml", []byte(src))
			if tc.path == "" {
				if err != nil {
					t.Fatalf("rejected:\n%v", err)
				}
				return
			}
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("Decode() = %v; want an ErrorList", err)
			}
			for _, e := range list {
				if e.Path == tc.path && strings.Contains(e.Msg, tc.msg) {
					if e.Line == 0 {
						t.Errorf("%s has no position: %v", tc.path, e)
					}
					return
				}
			}
			t.Errorf("no error at %s containing %q; got:\n%v", tc.path, tc.msg, err)
		})
	}
}

func TestExecuteBody(t *testing.T) {
	tm, err := HTTP{Body: `{"id":"{{.ID}}","key":{{.Key}},"class":"{{.Class}}"}`}.BodyTemplate()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := ExecuteBody(tm, &buf, BodyData{ID: "abc-7", Key: 42, Class: "buy"}); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), `{"id":"abc-7","key":42,"class":"buy"}`; got != want {
		t.Errorf("body %s; want %s", got, want)
	}
	pt, err := HTTP{Path: "/orders/{{.Order}}"}.PathTemplate()
	buf.Reset()
	if err != nil || !UsesOrder(pt) || UsesOrder(tm) || ExecuteBody(pt, &buf, BodyData{Order: "run-3"}) != nil || buf.String() != "/orders/run-3" {
		t.Errorf("path template: %v, uses order %v, %q; want /orders/run-3", err, UsesOrder(pt), buf.String())
	}
	if pt, err := (HTTP{Path: "/orders"}).PathTemplate(); pt != nil || err != nil {
		t.Errorf("static path: %v, %v; want nil, nil", pt, err)
	}
	if tm, err := (HTTP{}).BodyTemplate(); tm != nil || err != nil {
		t.Errorf("empty body: %v, %v; want nil, nil", tm, err)
	}
}
