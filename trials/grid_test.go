package trials

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func testGrid() *Grid {
	return &Grid{
		Paths:  []string{"faults.0.work_factor", "faults.0.for"},
		Values: [][]string{{"110%", "130%"}, {"10s", "30s", "1m"}},
		Dirs:   []string{"00-110pct/00-10s", "00-110pct/01-30s", "00-110pct/02-1m", "01-130pct/00-10s", "01-130pct/01-30s", "01-130pct/02-1m"},
	}
}

func TestGridRoundTrip(t *testing.T) {
	dir := t.TempDir()
	g := testGrid()
	if err := g.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	back, err := ReadGridFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := Combinations(back.Values); !back.Equal(g) || n != 6 || err != nil {
		t.Errorf("read back %+v, want %+v", back, g)
	}
	other := testGrid()
	other.Values[1][2] = "2m"
	if back.Equal(other) {
		t.Error("grids with other values are equal")
	}
	// A grid that is not one is not written.
	other.Dirs = other.Dirs[:5]
	if err := other.WriteDir(t.TempDir()); err == nil || !strings.Contains(err.Error(), "5 directories for 6 combinations") {
		t.Errorf("write of a short grid: %v", err)
	}
}

func TestReadGridErrors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", "g.json: empty file; expected the JSON of a vary.json"},
		{"{\n  \"paths\": [\"a\"],\n  \"valus\": []\n}", "g.json:3:3: unknown field \"valus\""},
		{`{"paths": ["a"], "values": [["1"]], "dirs": ["00-1"]} {}`, "g.json:1:55: unexpected data after the vary.json object"},
		{`{"paths": "a"}`, "g.json:1:11: paths is a JSON string; expected []string"},
		{`{"paths": ["a"`, "g.json:1:15: the file ends inside the JSON; expected the rest of the vary.json"},
		{`{}`, "g.json: not a grid: 0 inputs with 0 lists of values"},
		{`{"paths": ["a", "a"], "values": [["1"], ["2"]], "dirs": ["x"]}`, `input 2 ("a") is empty or given twice`},
		{`{"paths": ["a"], "values": [[]], "dirs": []}`, "input a has no values"},
		{`{"paths": ["a"], "values": [["1", "1"]], "dirs": ["x", "y"]}`, `input a: value "1" is given twice`},
		{`{"paths": ["a"], "values": [["1", "2"]], "dirs": ["x"]}`, "1 directories for 2 combinations"},
		{`{"paths": ["a"], "values": [["1", "2"]], "dirs": ["x", ".."]}`, `directory 2 ("..") is not 1 names of letters`},
		{`{"paths": ["a"], "values": [["1", "2"]], "dirs": ["x", "/tmp"]}`, `directory 2 ("/tmp") is not 1 names`},
		{`{"paths": ["a", "b"], "values": [["1"], ["2"]], "dirs": ["x/./y"]}`, `directory 1 ("x/./y") is not 2 names`},
		{`{"paths": ["a", "b"], "values": [["1"], ["2"]], "dirs": ["x/.."]}`, `directory 1 ("x/..") is not 2 names`},
		{`{"paths": ["a"], "values": [["1", "2"]], "dirs": ["x", "a%41"]}`, `directory 2 ("a%41") is not 1 names`},
		{`{"paths": ["a"], "values": [["1", "2"]], "dirs": ["x", "h#1"]}`, `directory 2 ("h#1") is not 1 names`},
		{`{"paths": ["a"], "values": [["1", "2"]], "dirs": ["x", "x"]}`, `directory "x" is given twice`},
	} {
		_, err := ReadGrid([]byte(tt.in), "g.json")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadGrid(%q): %v, want %q", tt.in, err, tt.want)
		}
	}
	if _, err := ReadGridFile(filepath.Join(t.TempDir(), "none")); err == nil || !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("a missing file: %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok || u.Unwrap() == nil {
			return err
		}
		err = u.Unwrap()
	}
}

// FuzzReadGrid checks that any input either reads as a grid that is one, and writes back
// what reads the same, or is refused with an error naming the file.
func FuzzReadGrid(f *testing.F) {
	dir := f.TempDir()
	if err := testGrid().WriteDir(dir); err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, GridFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Add(`{}`)
	f.Add(`{"paths": ["a"], "values": [["1", "2"]], "dirs": ["x", "../y"]}`)
	f.Add(`{"paths": ["a", "b"], "values": [["1"], ["2", "3"]], "dirs": ["x/y", "x/z"]}`)
	f.Fuzz(func(t *testing.T, in string) {
		g, err := ReadGrid([]byte(in), "f.json")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.json") {
				t.Fatalf("error without the file's name: %v", err)
			}
			return
		}
		if err := g.check(); err != nil {
			t.Fatalf("read a grid that is not one: %v", err)
		}
		dir := t.TempDir()
		if err := g.WriteDir(dir); err != nil {
			t.Fatal(err)
		}
		back, err := ReadGridFile(dir)
		if err != nil || !back.Equal(g) {
			t.Fatalf("written grid reads back as %+v, %v; want %+v", back, err, g)
		}
	})
}

func TestCombinations(t *testing.T) {
	two := []string{"x", "y"}
	for _, tt := range []struct {
		inputs int
		want   int
		err    bool
	}{{1, 2, false}, {13, 8192, false}, {14, 0, true}, {64, 0, true}, {70, 0, true}} {
		values := make([][]string, tt.inputs)
		for i := range values {
			values[i] = two
		}
		n, err := Combinations(values)
		if n != tt.want || (err != nil) != tt.err {
			t.Errorf("%d inputs of two values: %d, %v; want %d (error: %v)", tt.inputs, n, err, tt.want, tt.err)
		}
	}
	if n, err := Combinations([][]string{{"a"}, {}}); n != 0 || err != nil {
		t.Errorf("an input without values: %d, %v", n, err)
	}
}
