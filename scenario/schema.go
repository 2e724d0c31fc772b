package scenario

import (
	"embed"
	"encoding/json"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"reflect"
	"strings"
	"sync"

	"github.com/invopop/jsonschema"
)

// sources holds this package's Go files, so that the schema can carry the doc
// comments of the types and fields as descriptions without a source tree at
// run time.
//
//go:embed *.go
var sources embed.FS

// Schema returns the JSON Schema (draft 2020-12) of a scenario file,
// generated from the Go types: property names from the yaml tags, unknown
// keys forbidden, the unit-bearing value types as string patterns, and each
// type's and field's doc comment as its description. The output is indented
// and deterministic. Point an editor's YAML language server at it:
//
//	# yaml-language-server: $schema=scenario.schema.json
func Schema() ([]byte, error) {
	r := &jsonschema.Reflector{
		FieldNameTag:               "yaml",
		RequiredFromJSONSchemaTags: true,
		ExpandedStruct:             true,
		Anonymous:                  true,
		LookupComment:              lookupComment,
		// An untagged field's key is its lower-cased Go name, as in the decoder.
		KeyNamer: func(name string) string {
			if name != "" && 'A' <= name[0] && name[0] <= 'Z' {
				return strings.ToLower(name)
			}
			return name
		},
	}
	s := r.Reflect(new(Scenario))
	s.Title = "goodput scenario"
	if s.Description == "" {
		s.Description = "A goodput scenario (*.scenario.yaml): the inputs of a deterministic overload replay."
	}
	return json.MarshalIndent(s, "", "  ")
}

var (
	commentsOnce sync.Once
	comments     map[string]string // "Type" or "Type.Field" → doc text
)

// lookupComment returns the doc comment of a type of this package (field ""),
// or of one of its fields.
func lookupComment(t reflect.Type, field string) string {
	if t.PkgPath() != reflect.TypeFor[Duration]().PkgPath() {
		return ""
	}
	commentsOnce.Do(func() { comments = parseComments(sources) })
	key := t.Name()
	if field != "" {
		key += "." + field
	}
	return comments[key]
}

// parseComments collects the doc comments of the exported types and struct
// fields in the non-test Go files of fsys. A type's description is its first
// sentence; a field's is its whole comment, as one line.
func parseComments(fsys fs.FS) map[string]string {
	out := map[string]string{}
	fset := token.NewFileSet()
	var files []*ast.File
	names, _ := fs.Glob(fsys, "*.go")
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			continue
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			continue
		}
		files = append(files, f)
	}
	var p doc.Package
	for _, f := range files {
		var group string // doc of the enclosing type ( … ) group
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.GenDecl:
				group = x.Doc.Text()
			case *ast.TypeSpec:
				if !x.Name.IsExported() {
					return false
				}
				text := x.Doc.Text()
				if text == "" {
					text = group
				}
				if text != "" {
					out[x.Name.Name] = oneLine(p.Synopsis(text))
				}
				st, ok := x.Type.(*ast.StructType)
				if !ok {
					return false
				}
				for _, fld := range st.Fields.List {
					text := fld.Doc.Text()
					if text == "" {
						text = fld.Comment.Text()
					}
					if text == "" {
						continue
					}
					for _, name := range fld.Names {
						if name.IsExported() {
							out[x.Name.Name+"."+name.Name] = oneLine(text)
						}
					}
				}
				return false
			}
			return true
		})
	}
	return out
}

// oneLine joins a comment's lines with spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
