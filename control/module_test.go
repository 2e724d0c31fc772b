package control_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// externalMain is a service in another module that links the controls, as a user's would.
const externalMain = `package main

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
	h := controlhttp.Handler(http.NotFoundHandler(), controlhttp.ServerConfig{
		Deadline:  deadline.Config{Default: time.Second},
		Admission: adm,
	})
	fmt.Println(h != nil)
}
`

// TestImportFromAnotherModule builds a module outside this one that imports control/admission
// and control/controlhttp through a replace directive: the module path must be importable.
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
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
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
	write("main.go", externalMain)

	run := func(args ...string) {
		cmd := exec.Command(goBin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s in an external module: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run("mod", "tidy")
	run("build", "-o", filepath.Join(dir, "shop"), ".")
}
