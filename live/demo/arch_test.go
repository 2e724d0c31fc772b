package demo

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The database drivers are the demo's: the controls a service links stay without them.
func TestControlsLinkNoDatabaseDriver(t *testing.T) {
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goBin, "list", "-deps", "../../control/...").CombinedOutput()
	if err != nil {
		t.Skipf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "modernc.org/") || strings.HasPrefix(dep, "github.com/jackc/") {
			t.Errorf("control/... links %s", dep)
		}
	}
}
