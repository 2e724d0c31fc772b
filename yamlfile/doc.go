// Package yamlfile decodes the YAML files people write (a scenario, an
// incident, a packet) strictly into Go values, and says where every problem
// is: each error reads "file:line:col: path: what is wrong; what is expected".
//
//	var cfg struct {
//		Name    string        `yaml:"name"`
//		Timeout time.Duration `yaml:"timeout"`
//	}
//	err := yamlfile.Unmarshal("svc.yaml", []byte("name: api\ntimeuot: 2s\n"), &cfg)
//	fmt.Println(err) // svc.yaml:2:1: unknown key "timeuot"; did you mean "timeout"?
//
// # Strict decoding
//
// [Unmarshal] walks the goccy/go-yaml syntax tree itself, by reflection over
// the Go types, so that it can report every problem of a file at once (up to
// 50), sorted by position, as an [ErrorList] of [Error]s: unknown keys (with
// the closest known key suggested by [Suggest]), duplicate keys, missing
// required keys, values of the wrong type, an empty file, a second document,
// YAML syntax errors, tabs. Anchors, aliases and merge keys (<<: *base) work.
// Input that would make decoding slow (over 1 MiB, nested over 64 deep, a
// mapping of over 256 keys, or expanding through aliases to over 100,000
// values) is refused with an error, and a panic in the parser is an error
// too. A byte-order mark, a %YAML directive and \r\n line breaks are fine.
//
// # Validation errors with positions
//
// A Validate() error method on the decoded value reports semantic problems as
// [FieldError]s naming a YAML path ("$.classes[1].share"), gathered in
// [Errors]. After a clean decode, Unmarshal calls Validate and turns each
// path into the file:line:col where that value is written (or, for a missing
// key, where its parent is). A struct type that checks itself wherever it is
// decoded from a mapping (exactly one of its forms set, say) implements
// [Checker].
//
// # Formats
//
// A [Decoder] adapts the rules to a format: what a null means ([Nulls]),
// whether anchors, aliases, merge keys and tags are allowed, a hook for the
// scalars the format spells its own way (times in UTC only, durations that
// need a unit, numbers whose text is kept) and the words for what a type is
// written as. [Decoder.Decode] also returns the [Positions] of every value,
// for formats that point at values after decoding.
package yamlfile
