package trials

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// WriteJSON writes the summary as indented JSON (trials.json), ending in a newline.
// Identical summaries give identical bytes.
func (s *Summary) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return fmt.Errorf("trials: encode json: %w", err)
	}
	return nil
}

// WriteDir creates dir if needed and writes trials.json in it.
func (s *Summary) WriteDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("trials: %w", err)
	}
	var b bytes.Buffer
	if err := s.WriteJSON(&b); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, File), b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("trials: %w", err)
	}
	return nil
}

// ReadFile reads a summary from path, or from path/trials.json when path is a directory.
func ReadFile(path string) (*Summary, error) {
	b, path, err := readIn(path, File)
	if err != nil {
		return nil, err
	}
	return Read(b, path)
}

// readIn reads the file at path, or the file named file in the directory path, and
// returns its bytes and the path read.
func readIn(path, file string) ([]byte, string, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, file)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, path, fmt.Errorf("trials: %w", err)
	}
	return b, path, nil
}

// decodeOne decodes b, which must hold exactly one JSON object without unknown fields,
// into v; errors give name's line and column, and say what file was expected (what).
func decodeOne(b []byte, name, what string, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(b, name, what, dec, err)
	}
	end := int(dec.InputOffset())
	if _, err := dec.Token(); err != io.EOF {
		line, col := position(b, skipSpace(b, end))
		return fmt.Errorf("%s:%d:%d: unexpected data after the %s object; expected one JSON object", name, line, col, what)
	}
	return nil
}

// Read decodes a summary written by [Summary.WriteJSON]; name is the file's name for error
// messages, which give its line and column. Unknown fields are errors. The runs are
// checked (seeds in the sweep and the shard, the same arms in every run) and the spreads
// and deltas recomputed from them, so a summary edited by hand cannot disagree with its
// runs.
func Read(b []byte, name string) (*Summary, error) {
	var s Summary
	if err := decodeOne(b, name, File, &s); err != nil {
		return nil, err
	}
	if s.Scenario == "" {
		return nil, fmt.Errorf("%s: not a trials summary: no \"scenario\"; expected the %s that goodput replay --trials writes", name, File)
	}
	// A summary written before an optional figure existed lacks it: its scenarios could not
	// have measured it, so it reads as missing from every run.
	want := slices.DeleteFunc(slices.Clone(figures), func(f Figure) bool {
		return f.Optional && !slices.ContainsFunc(s.Figures, func(g Figure) bool { return g.Key == f.Key })
	})
	if !slices.EqualFunc(s.Figures, want, func(a, b Figure) bool { return a.Key == b.Key }) {
		return nil, fmt.Errorf("%s: its figures (%s) are not this version's (%s); rerun the sweep with this goodput", name, keys(s.Figures), keys(figures))
	}
	for i := range s.Runs {
		for j := range s.Runs[i].Arms {
			a := &s.Runs[i].Arms[j]
			if a.Figures == nil {
				return nil, fmt.Errorf("%s: run of seed %d, arm %q: no figures", name, s.Runs[i].Seed, a.Name)
			}
			for _, f := range figures {
				if _, ok := a.Figures[f.Key]; !ok && f.Optional && len(want) < len(figures) {
					a.Figures[f.Key] = nil // as a run of this version writes it
				}
			}
			for _, o := range a.Objectives {
				if o.Censored && (o.NoData || o.Pass || o.Value < 0) {
					return nil, fmt.Errorf("%s: run of seed %d, arm %q, objective %q: censored with no_data, pass or a negative value; expected a censored value to be a failing lower bound", name, s.Runs[i].Seed, a.Name, o.Name)
				}
			}
		}
	}
	out, err := newSummary(s.Scenario, s.Digest, s.Set, s.FirstSeed, s.Trials, s.Shard, s.Runs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	out.source = name
	out.ModelVersion = s.ModelVersion
	return out, nil
}

func keys(fs []Figure) string {
	ks := make([]string, len(fs))
	for i, f := range fs {
		ks[i] = f.Key
	}
	return strings.Join(ks, ", ")
}

// skipSpace returns the offset of the first byte at or after off that is not JSON
// whitespace (len(b) if none).
func skipSpace(b []byte, off int) int {
	for off < len(b) && (b[off] == ' ' || b[off] == '\n' || b[off] == '\t' || b[off] == '\r') {
		off++
	}
	return off
}

// decodeError gives a JSON decoding error the file's line and column; what names the kind
// of file expected (trials.json, vary.json).
func decodeError(b []byte, name, what string, dec *json.Decoder, err error) error {
	off := int(dec.InputOffset())
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	msg := err.Error()
	switch {
	case errors.As(err, &syn):
		off = int(syn.Offset) - 1 // the offset is just past the offending byte
		msg = syn.Error() + "; expected the JSON of a " + what
	case errors.As(err, &typ):
		off = valueStart(b, int(typ.Offset))
		msg = fmt.Sprintf("%s is a JSON %s; expected %s", typ.Field, typ.Value, typ.Type)
	case strings.HasPrefix(msg, "json: unknown field "):
		// The decoder stops past the field's value: point at the field's name.
		field := strings.TrimPrefix(msg, "json: unknown field ")
		if i := bytes.LastIndex(b[:min(off, len(b))], []byte(field)); i >= 0 {
			off = i
		}
	case errors.Is(err, io.EOF):
		return fmt.Errorf("%s: empty file; expected the JSON of a %s", name, what)
	case errors.Is(err, io.ErrUnexpectedEOF):
		off = len(b)
		msg = "the file ends inside the JSON; expected the rest of the " + what
	}
	line, col := position(b, off)
	return fmt.Errorf("%s:%d:%d: %s", name, line, col, strings.TrimPrefix(msg, "json: "))
}

// valueStart returns where the scalar JSON value ending at off begins (a string, number,
// true, false or null); for any other value, off itself.
func valueStart(b []byte, off int) int {
	off = min(max(off, 0), len(b))
	end := off
	for end > 0 && (b[end-1] == ' ' || b[end-1] == '\n' || b[end-1] == '\t' || b[end-1] == '\r') {
		end--
	}
	if end == 0 {
		return off
	}
	if b[end-1] == '"' {
		for i := end - 2; i >= 0; i-- {
			if b[i] == '"' {
				bs := 0
				for j := i - 1; j >= 0 && b[j] == '\\'; j-- {
					bs++
				}
				if bs%2 == 0 {
					return i
				}
			}
		}
		return off
	}
	i := end
	for i > 0 && strings.IndexByte("0123456789+-.eEtrufalsn", b[i-1]) >= 0 {
		i--
	}
	if i == end {
		return off
	}
	return i
}

// position returns the 1-based line and column of byte offset off in b.
func position(b []byte, off int) (line, col int) {
	off = min(max(off, 0), len(b))
	line = 1 + bytes.Count(b[:off], []byte("\n"))
	start := bytes.LastIndexByte(b[:off], '\n') + 1
	return line, 1 + len([]rune(string(b[start:off])))
}

// Merge joins the summaries of a sweep's shards into the summary of the whole sweep. They
// must be of one scenario (the same digest), first seed and number of trials, must not
// repeat a seed, and together must hold every trial; the result is byte-for-byte what one
// unsharded run writes.
func Merge(parts ...*Summary) (*Summary, error) {
	if len(parts) == 0 {
		return nil, errors.New("trials: nothing to merge")
	}
	first := parts[0]
	var runs []Trial
	from := map[uint64]int{}
	for i, p := range parts {
		if p.Scenario != first.Scenario || p.Digest != first.Digest {
			return nil, fmt.Errorf("trials: %s is of scenario %s (%s), %s of %s (%s): not one sweep", part(parts, i), p.Scenario, short(p.Digest), part(parts, 0), first.Scenario, short(first.Digest))
		}
		if p.ModelVersion != first.ModelVersion {
			return nil, fmt.Errorf("trials: %s was replayed by model version %d, %s by version %d: replay the older shards again with this goodput", part(parts, i), p.ModelVersion, part(parts, 0), first.ModelVersion)
		}
		if !slices.Equal(p.Set, first.Set) {
			return nil, fmt.Errorf("trials: %s was run with --set %q, %s with %q: not one sweep", part(parts, i), p.Set, part(parts, 0), first.Set)
		}
		if p.FirstSeed != first.FirstSeed || p.Trials != first.Trials {
			return nil, fmt.Errorf("trials: %s is %d trials from seed %d, %s is %d from seed %d: not one sweep", part(parts, i), p.Trials, p.FirstSeed, part(parts, 0), first.Trials, first.FirstSeed)
		}
		for _, r := range p.Runs {
			if j, ok := from[r.Seed]; ok {
				return nil, fmt.Errorf("trials: seed %d is in %s and in %s", r.Seed, part(parts, j), part(parts, i))
			}
			from[r.Seed] = i
			runs = append(runs, r)
		}
	}
	if len(runs) != first.Trials {
		// Name the first ten missing seeds, and the shards they belong to; stop looking
		// there (a sweep may declare far more trials than are at hand).
		var missing, shards []string
		for k := 0; k < first.Trials && len(missing) < 10; k++ {
			seed := first.FirstSeed + uint64(k)
			if _, ok := from[seed]; ok {
				continue
			}
			missing = append(missing, fmt.Sprint(seed))
			if first.Shard != nil && !first.Shard.Whole() {
				if sh := (Shard{Index: k % first.Shard.Count, Count: first.Shard.Count}).String(); !slices.Contains(shards, sh) {
					shards = append(shards, sh)
				}
			}
		}
		if first.Trials-len(runs) > len(missing) {
			missing = append(missing, "…")
		}
		hint := "merge every shard of the sweep"
		if len(shards) > 0 {
			hint = "missing shard " + strings.Join(shards, ", ")
		}
		return nil, fmt.Errorf("trials: %d of %d trials are missing (seeds %s): %s", first.Trials-len(runs), first.Trials, strings.Join(missing, ", "), hint)
	}
	s, err := newSummary(first.Scenario, first.Digest, first.Set, first.FirstSeed, first.Trials, nil, slices.Clone(runs))
	if err != nil {
		return nil, err
	}
	s.ModelVersion = first.ModelVersion
	return s, nil
}

// part names the i-th summary given to Merge: its file, or its place.
func part(parts []*Summary, i int) string {
	if parts[i].source != "" {
		return parts[i].source
	}
	return fmt.Sprintf("part %d", i+1)
}

func short(digest string) string {
	if len(digest) > 19 {
		return digest[:19] + "…"
	}
	return digest
}
