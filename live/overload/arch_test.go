package overload_test

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// failsafe-go is a test-only dependency: the harness links it only through its tests.
func TestHarnessLinksNoFailsafe(t *testing.T) {
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goBin, "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Skipf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/failsafe-go/") {
			t.Errorf("live/overload links %s outside its tests", dep)
		}
	}
}
