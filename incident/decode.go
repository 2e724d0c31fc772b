package incident

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goodput-lab/goodput/yamlfile"

	_ "time/tzdata" // time zones resolve the same on every machine
)

// maxErrors bounds the number of problems one DecodeError lists.
const maxErrors = 50

// maxFileSize bounds how much of a file the document links to (series CSV, packet) is read.
const maxFileSize = 64 << 20

// openRegular opens a regular file (not a device or a pipe, which could block or never end).
func openRegular(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return f, nil
}

// DecodeError is the error [Decode] and [Load] return for a document that cannot be read:
// every problem found, each at its source position.
type DecodeError struct {
	Diagnostics []Diagnostic
}

// Error returns one "file:line:col: error: message" line per problem.
func (e *DecodeError) Error() string {
	lines := make([]string, len(e.Diagnostics))
	for i, d := range e.Diagnostics {
		lines[i] = d.String()
	}
	return strings.Join(lines, "\n")
}

// Load reads and decodes the document at path, then reads its series CSV (if the
// document names one) relative to the document's directory.
func Load(path string) (*Document, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("incident: %w", err)
	}
	doc, err := Decode(path, data)
	if err != nil {
		return nil, err
	}
	if s := doc.Series; s != nil && s.CSV != "" {
		csvPath := doc.resolve(s.CSV)
		f, err := openRegular(csvPath)
		if err != nil {
			return nil, &DecodeError{[]Diagnostic{doc.errorAt("series.csv", "cannot read the series CSV: %v; expected a file with header \"at,value\" beside the document", unwrapPathError(err))}}
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.Size() > maxFileSize {
			return nil, &DecodeError{[]Diagnostic{doc.errorAt("series.csv", "%s is larger than %d MiB", csvPath, maxFileSize>>20)}}
		}
		points, err := ReadSeriesCSV(csvPath, f)
		if err != nil {
			return nil, err
		}
		s.Points = points
	}
	return doc, nil
}

// Decode decodes a document from data. filename is used in error messages and to resolve
// the paths the document names (series CSV, replay scenario and packet); Decode itself
// reads no files, so a document whose series is a CSV has no points until [Load] reads it.
//
// Decoding is strict: unknown keys, values of the wrong type, timestamps that are not RFC
// 3339 UTC, malformed dates, unknown enumeration values and unknown time zones are
// errors. Missing fields are not: [Check] reports them, so that a draft still loads.
// The error is a *[DecodeError].
func Decode(filename string, data []byte) (*Document, error) {
	doc := new(Document)
	pos, err := decoder.Decode(filename, data, doc)
	if err != nil {
		var list yamlfile.ErrorList
		if !errors.As(err, &list) {
			return nil, err
		}
		diags := make([]Diagnostic, len(list))
		for i, e := range list {
			diags[i] = Diagnostic{File: e.File, Line: e.Line, Col: e.Column, Severity: Error, Message: e.Problem()}
		}
		return nil, &DecodeError{diags}
	}
	doc.file, doc.pos, doc.src = filename, pos, []byte(yamlfile.Text(data))
	doc.lines = lineStarts(doc.src)
	return doc, nil
}

// decoder decodes documents strictly, but leaves missing values (nulls) to [Check].
var decoder = yamlfile.Decoder{
	Document:    "incident",
	Nulls:       yamlfile.NullsZero,
	NoMergeKeys: true,
	Scalar:      decodeScalar,
	Expect:      expect,
}

var (
	timeType = reflect.TypeFor[time.Time]()
	dateType = reflect.TypeFor[Date]()
)

// decodeScalar reads times in UTC only and dates as YYYY-MM-DD, and checks text against the
// values a field's jsonschema tag allows (enum=…) and time_zone against the IANA zones.
func decodeScalar(s yamlfile.Scalar) (any, error) {
	switch s.Type {
	case timeType:
		return parseUTC(s.Text)
	case dateType:
		t, err := time.Parse(time.DateOnly, s.Text)
		if err != nil {
			return nil, fmt.Errorf("%q is not a date; expected %s", s.Text, expect(dateType))
		}
		return DateOf(t), nil
	}
	if vals := enumValues(s.Tag); vals != nil && !slices.Contains(vals, s.Text) {
		return nil, fmt.Errorf("%q is not allowed; expected one of: %s", s.Text, strings.Join(nonEmpty(vals), ", "))
	}
	if s.Path == "$.time_zone" && s.Text != "" {
		if _, err := time.LoadLocation(s.Text); err != nil || strings.EqualFold(s.Text, "local") {
			return nil, fmt.Errorf("unknown time zone %q; expected an IANA name such as UTC or Europe/Dublin", s.Text)
		}
	}
	return nil, nil
}

// expect names what the types yamlfile does not know are written as, for messages.
func expect(t reflect.Type) string {
	switch t {
	case timeType:
		return "an RFC 3339 timestamp in UTC, such as 2026-09-12T09:14:00Z"
	case dateType:
		return "a date YYYY-MM-DD, such as 2026-09-18"
	}
	return ""
}

// enumValues returns the values a field's jsonschema tag allows, or nil.
func enumValues(tag reflect.StructTag) []string {
	var vals []string
	for part := range strings.SplitSeq(tag.Get("jsonschema"), ",") {
		if v, ok := strings.CutPrefix(part, "enum="); ok {
			vals = append(vals, v)
		}
	}
	return vals
}

func nonEmpty(vals []string) []string {
	var out []string
	for _, v := range vals {
		if v == "" {
			v = `"" (none)`
		}
		out = append(out, v)
	}
	return out
}

// ReadSeriesCSV reads series points from CSV data with a header row "at,value": at is an
// RFC 3339 UTC timestamp, value a number. name is used in error messages.
func ReadSeriesCSV(name string, r io.Reader) ([]Point, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 2
	cr.ReuseRecord = true
	var points []Point
	var diags []Diagnostic
	fail := func(line, col int, format string, args ...any) {
		diags = append(diags, Diagnostic{File: name, Line: line, Col: col, Severity: Error, Message: fmt.Sprintf(format, args...)})
	}
	for row := 0; len(diags) < maxErrors; row++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var perr *csv.ParseError
			if errors.As(err, &perr) {
				fail(perr.Line, perr.Column, "%v; expected two columns: at,value", perr.Err)
				break
			}
			fail(0, 0, "%v", err)
			break
		}
		line, _ := cr.FieldPos(0)
		if row == 0 {
			if strings.TrimSpace(rec[0]) != "at" || strings.TrimSpace(rec[1]) != "value" {
				fail(line, 1, "header is %q; expected \"at,value\"", strings.Join(rec, ","))
			}
			continue
		}
		at, err := parseUTC(strings.TrimSpace(rec[0]))
		if err != nil {
			_, col := cr.FieldPos(0)
			fail(line, col, "%v", err)
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rec[1]), 64)
		if err != nil {
			_, col := cr.FieldPos(1)
			fail(line, col, "value %q is not a number; expected a plain decimal such as 6 or 52.5", rec[1])
			continue
		}
		if n := len(points); n > 0 && !at.After(points[n-1].At) {
			fail(line, 1, "%s is not after the previous row's %s; expected rows in strictly increasing time order", at.Format(time.RFC3339), points[n-1].At.Format(time.RFC3339))
			continue
		}
		points = append(points, Point{At: at, Value: v})
	}
	if len(diags) > 0 {
		return nil, &DecodeError{diags}
	}
	if len(points) == 0 {
		return nil, &DecodeError{[]Diagnostic{{File: name, Line: 1, Col: 1, Severity: Error, Message: "no data rows; expected a header \"at,value\" and at least one row"}}}
	}
	return points, nil
}

// parseUTC parses a strict RFC 3339 timestamp and requires it to be in UTC.
func parseUTC(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a timestamp; expected RFC 3339 in UTC, such as 2026-09-12T09:14:00Z", s)
	}
	if _, off := t.Zone(); off != 0 || !strings.HasSuffix(s, "Z") {
		return time.Time{}, fmt.Errorf("%q is not in UTC; times are stored in UTC (set time_zone for display): write %s", s, t.UTC().Format(time.RFC3339))
	}
	return t.UTC(), nil
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}

// resolve returns a path named in the document relative to the document's directory.
func (d *Document) resolve(p string) string {
	if filepath.IsAbs(p) || d.file == "" {
		return p
	}
	return filepath.Join(filepath.Dir(d.file), filepath.FromSlash(p))
}

// File returns the file name the document was decoded from.
func (d *Document) File() string { return d.file }

// Position returns the 1-based line and column of the value at a YAML path such as
// "timeline[2].at" or "actions[0]" (for a key with no value, of the key), or 0, 0 when the
// path is unknown (for example in a document built in Go code).
func (d *Document) Position(path string) (line, col int) {
	p := "$"
	if path != "" {
		p += "." + path
	}
	if line, col = d.pos.Value(p); line == 0 {
		line, col = d.pos.Key(p)
	}
	return line, col
}

// errorAt returns an error diagnostic at a YAML path of the document.
func (d *Document) errorAt(path, format string, args ...any) Diagnostic {
	line, col := d.Position(path)
	return Diagnostic{File: d.file, Line: line, Col: col, Severity: Error, Message: path + ": " + fmt.Sprintf(format, args...)}
}
