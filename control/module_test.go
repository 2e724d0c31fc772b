package control_test

import (
	"bytes"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// plainMain is a service in another module that links the controls without
// metrics collection, as a user's would: it must not link Prometheus.
const plainMain = `package main

import (
	"fmt"
	"net/http"
	"time"

	"github.com/goodput-lab/goodput/control/admission"
	"github.com/goodput-lab/goodput/control/controlhttp"
	"github.com/goodput-lab/goodput/control/deadline"
)

func main() {
	adm, err := admission.New(admission.Config{Max: 16})
	if err != nil {
		panic(err)
	}
	metrics := new(controlhttp.Metrics)
	h := controlhttp.Handler(http.NotFoundHandler(), controlhttp.ServerConfig{
		Deadline:  deadline.Config{Default: time.Second},
		Admission: adm,
		Metrics:   metrics,
	})
	fmt.Println(h != nil)
}
`

// Markers around the README's "Controls in a Go service" wiring.
const (
	wiringBegin = "<!-- controls-wiring:begin -->"
	wiringEnd   = "<!-- controls-wiring:end -->"
)

// readmeWiring returns the Go code between the wiring markers of the
// README at root: the import block and the function a service copies.
func readmeWiring(t *testing.T, root string) string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), wiringBegin)
	if !ok {
		t.Fatalf("README.md has no %s marker", wiringBegin)
	}
	block, _, ok := strings.Cut(rest, wiringEnd)
	if !ok {
		t.Fatalf("README.md has no %s marker after %s", wiringEnd, wiringBegin)
	}
	block = strings.TrimSpace(block)
	code, ok := strings.CutPrefix(block, "```go\n")
	if !ok || !strings.HasSuffix(code, "\n```") {
		t.Fatalf("the README's wiring is not one ```go block:\n%s", block)
	}
	return strings.TrimSuffix(code, "```")
}

// wiredMain is the README's wiring as a program: package main, the
// snippet as it stands, and a main that calls it.
func wiredMain(snippet string) string {
	return "package main\n\n" + snippet + `
func main() {
	h, err := newCheckout("http://127.0.0.1:1/score", nil)
	if err != nil || h == nil {
		panic(err)
	}
}
`
}

// TestReadmeWiringFormatted checks the README's wiring is gofmt-formatted,
// so a service that copies it copies tidy code.
func TestReadmeWiringFormatted(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	src := wiredMain(readmeWiring(t, root))
	got, err := format.Source([]byte(src))
	if err != nil {
		t.Fatalf("the README's wiring does not parse: %v\n%s", err, src)
	}
	if !bytes.Equal(got, []byte(src)) {
		t.Errorf("the README's wiring is not gofmt-formatted; gofmt makes it:\n%s", got)
	}
}

// TestImportFromAnotherModule builds a module outside this one through a
// replace directive, as a user's service would: one program imports
// control/admission and control/controlhttp and must not link
// prometheus/client_golang; another is the README's "Controls in a Go
// service" wiring, word for word, which links control/controlprom.
func TestImportFromAnotherModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds another module; skipped in -short")
	}
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		t.Skipf("no go command at %s: %v", goBin, err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := ""
	for _, line := range strings.Split(string(mod), "\n") {
		if strings.HasPrefix(line, "go ") {
			goLine = line
		}
	}
	dir := t.TempDir()
	write := func(name, text string) {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/shop\n\n"+goLine+"\n\n"+
		"require github.com/goodput-lab/goodput v0.0.0\n\n"+
		"replace github.com/goodput-lab/goodput => "+root+"\n")
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write("go.sum", string(sum))
	write("plain/main.go", plainMain)
	write("wired/main.go", wiredMain(readmeWiring(t, root)))

	run := func(args ...string) string {
		cmd := exec.Command(goBin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s in an external module: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("mod", "tidy")
	run("build", "-o", filepath.Join(dir, "bin")+string(filepath.Separator), "./plain", "./wired")

	deps := strings.Fields(run("list", "-deps", "./plain"))
	linked := false
	for _, dep := range deps {
		if strings.HasPrefix(dep, "github.com/prometheus/") {
			t.Errorf("a program importing control/admission and control/controlhttp links %s", dep)
		}
		linked = linked || dep == "github.com/goodput-lab/goodput/control/controlhttp"
	}
	if !linked {
		t.Errorf("go list -deps ./plain does not list control/controlhttp:\n%s", strings.Join(deps, "\n"))
	}
	wired := run("list", "-deps", "./wired")
	if !strings.Contains(wired, "github.com/goodput-lab/goodput/control/controlprom\n") {
		t.Errorf("the README's wiring does not link control/controlprom")
	}
}
