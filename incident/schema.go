package incident

import (
	_ "embed"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"strings"

	"github.com/invopop/jsonschema"
)

//go:embed types.go
var typesSource string

// Schema returns the JSON Schema of the *.incident.yaml format, generated from the Go
// types (property names are the YAML keys; descriptions are the fields' doc comments).
// Point an editor at it for completion and validation, e.g. with a yaml-language-server
// modeline: # yaml-language-server: $schema=incident.schema.json
func Schema() ([]byte, error) {
	comments := typeComments()
	r := &jsonschema.Reflector{
		FieldNameTag:               "yaml",
		RequiredFromJSONSchemaTags: true,
		LookupComment: func(t reflect.Type, field string) string {
			if t.PkgPath() != reflect.TypeFor[Document]().PkgPath() {
				return ""
			}
			if field == "" {
				return comments[t.Name()]
			}
			return comments[t.Name()+"."+field]
		},
	}
	s := r.Reflect(&Document{})
	s.ID = "https://goodput.dev/schema/incident.json"
	s.Title = "goodput incident document (*.incident.yaml)"
	return json.MarshalIndent(s, "", "  ")
}

// typeComments maps "Type" and "Type.Field" to their doc comments in types.go.
func typeComments() map[string]string {
	out := map[string]string{}
	f, err := parser.ParseFile(token.NewFileSet(), "types.go", typesSource, parser.ParseComments)
	if err != nil {
		return out
	}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			ts := spec.(*ast.TypeSpec)
			doc := ts.Doc
			if doc == nil {
				doc = gd.Doc
			}
			out[ts.Name.Name] = clean(doc.Text())
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				continue
			}
			var groupDoc string
			for _, fld := range st.Fields.List {
				text := clean(fld.Doc.Text())
				if text == "" {
					text = clean(fld.Comment.Text())
				}
				// A comment above several consecutive fields documents each of them.
				if text == "" {
					text = groupDoc
				} else {
					groupDoc = text
				}
				for _, n := range fld.Names {
					out[ts.Name.Name+"."+n.Name] = text
				}
			}
		}
	}
	return out
}

func clean(s string) string { return strings.Join(strings.Fields(s), " ") }
