package overload

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWiringIsReadme checks that the goodput variant runs README.md's "Controls in a Go
// service" wiring line for line: wiring.go, after its header comment and package clause,
// is the README's block between the controls-wiring markers.
func TestWiringIsReadme(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "<!-- controls-wiring:begin -->")
	if !ok {
		t.Fatal("README.md has no controls-wiring:begin marker")
	}
	block, _, ok := strings.Cut(rest, "<!-- controls-wiring:end -->")
	if !ok {
		t.Fatal("README.md has no controls-wiring:end marker")
	}
	code, ok := strings.CutPrefix(strings.TrimSpace(block), "```go\n")
	if !ok || !strings.HasSuffix(code, "\n```") {
		t.Fatal("the README's wiring is not one ```go block")
	}
	code = strings.TrimSuffix(code, "```")
	src, err := os.ReadFile("wiring.go")
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(src), "\npackage overload\n\n")
	if !ok {
		t.Fatal("wiring.go has no package clause after its header")
	}
	if body != code {
		t.Errorf("wiring.go differs from README.md's controls wiring; copy the README's block into it again\n--- wiring.go\n%s\n--- README.md\n%s", body, code)
	}
}
