package controlotel_test

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// OpenTelemetry is this adapter's: the other control packages, controlhttp
// included, stay without it.
func TestControlsLinkNoOpenTelemetry(t *testing.T) {
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goBin, "list", "../...").CombinedOutput()
	if err != nil {
		t.Skipf("go list: %v\n%s", err, out)
	}
	var pkgs []string
	for _, p := range strings.Fields(string(out)) {
		if !strings.HasSuffix(p, "/control/controlotel") {
			pkgs = append(pkgs, p)
		}
	}
	if len(pkgs) < 2 {
		t.Fatalf("go list ../... found only %v", pkgs)
	}
	out, err = exec.Command(goBin, append([]string{"list", "-deps"}, pkgs...)...).CombinedOutput()
	if err != nil {
		t.Skipf("go list -deps: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "go.opentelemetry.io/") {
			t.Errorf("control/... (without controlotel) links %s", dep)
		}
	}
}
