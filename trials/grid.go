package trials

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
)

// GridFile is the name of a grid's manifest in its output directory.
const GridFile = "vary.json"

// Grid is the manifest of a sweep run at every combination of several inputs' values
// (goodput replay --vary, given once per input): the inputs, their values, and the
// directory of each combination's summary (its trials.json), relative to the manifest's
// own, in row-major order (the last input's value changes fastest). goodput merge reads
// the shards' manifests to merge a sharded grid combination by combination.
type Grid struct {
	Paths  []string   `json:"paths"`
	Values [][]string `json:"values"`
	Dirs   []string   `json:"dirs"`
}

// MaxCombinations bounds a grid: more combinations than this is an error, not a run of
// days (and the count cannot overflow).
const MaxCombinations = 10_000

// Combinations returns the number of combinations of values, one per list, or an error
// when there are more than MaxCombinations.
func Combinations(values [][]string) (int, error) {
	n := 1
	for _, v := range values {
		if len(v) > 0 && n > MaxCombinations/len(v) {
			return 0, fmt.Errorf("more than %d combinations; vary fewer inputs or fewer values", MaxCombinations)
		}
		n *= len(v)
	}
	return n, nil
}

// Equal reports whether g and o are the same grid: inputs, values and directories.
func (g *Grid) Equal(o *Grid) bool {
	return slices.Equal(g.Paths, o.Paths) && slices.Equal(g.Dirs, o.Dirs) &&
		slices.EqualFunc(g.Values, o.Values, func(a, b []string) bool { return slices.Equal(a, b) })
}

// check reports a grid that is not one: no input, an input without values or given twice,
// a value given twice, a directory per combination missing, repeated, or not a local
// path (an absolute one, or one that climbs out with "..").
func (g *Grid) check() error {
	if len(g.Paths) == 0 || len(g.Values) != len(g.Paths) {
		return fmt.Errorf("%d inputs with %d lists of values; expected at least one input and a list of values for each", len(g.Paths), len(g.Values))
	}
	for k, p := range g.Paths {
		if p == "" || slices.Index(g.Paths, p) < k {
			return fmt.Errorf("input %d (%q) is empty or given twice", k+1, p)
		}
		if len(g.Values[k]) == 0 {
			return fmt.Errorf("input %s has no values", p)
		}
		for i, v := range g.Values[k] {
			if slices.Index(g.Values[k], v) < i {
				return fmt.Errorf("input %s: value %q is given twice", p, v)
			}
		}
	}
	n, err := Combinations(g.Values)
	if err != nil {
		return err
	}
	if len(g.Dirs) != n {
		return fmt.Errorf("%d directories for %d combinations", len(g.Dirs), n)
	}
	for i, d := range g.Dirs {
		if !gridDir(d, len(g.Paths)) {
			return fmt.Errorf("directory %d (%q) is not %d names of letters, digits, '.', '_' and '-' joined by '/'", i+1, d, len(g.Paths))
		}
		if slices.Index(g.Dirs, d) < i {
			return fmt.Errorf("directory %q is given twice", d)
		}
	}
	return nil
}

// gridDir reports whether d is a combination's directory of a grid of depth inputs: one
// name per input, as goodput replay names them ("02-130pct/00-10s"), so that it stays
// inside the grid's directory and needs no escaping in a link.
func gridDir(d string, depth int) bool {
	names := strings.Split(d, "/")
	if len(names) != depth {
		return false
	}
	for _, n := range names {
		if n == "" || n == "." || n == ".." || strings.TrimFunc(n, func(r rune) bool {
			return r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_' || r == '-')
		}) != "" {
			return false
		}
	}
	return true
}

// WriteDir writes g as dir/vary.json, creating dir if needed.
func (g *Grid) WriteDir(dir string) error {
	if err := g.check(); err != nil {
		return fmt.Errorf("trials: grid: %w", err)
	}
	b, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		return fmt.Errorf("trials: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("trials: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, GridFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("trials: %w", err)
	}
	return nil
}

// ReadGrid decodes a grid's manifest; name is the file's name for error messages, which
// give its line and column. Unknown fields are errors, and so is a manifest that is not a
// grid (see [Grid]).
func ReadGrid(b []byte, name string) (*Grid, error) {
	var g Grid
	if err := decodeOne(b, name, GridFile, &g); err != nil {
		return nil, err
	}
	if err := g.check(); err != nil {
		return nil, fmt.Errorf("%s: not a grid: %w", name, err)
	}
	return &g, nil
}

// ReadGridFile reads the manifest at path, or in the directory path.
func ReadGridFile(path string) (*Grid, error) {
	b, path, err := readIn(path, GridFile)
	if err != nil {
		return nil, err
	}
	return ReadGrid(b, path)
}
