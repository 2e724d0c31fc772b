package main

import (
	"bytes"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/goodput-lab/goodput/model"
)

func TestVersionText(t *testing.T) {
	platform := runtime.GOOS + "/" + runtime.GOARCH
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{
			name: "a build from a checkout with changes",
			bi: &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/goodput-lab/goodput", Version: "(devel)"}, Settings: []debug.BuildSetting{
				{Key: "-compiler", Value: "gc"},
				{Key: "vcs", Value: "git"},
				{Key: "vcs.revision", Value: "e5719f1f773ff99785f428151e2782af1cb5fb9d"},
				{Key: "vcs.time", Value: "2026-12-01T20:30:00Z"},
				{Key: "vcs.modified", Value: "true"},
			}},
			want: "goodput (devel)\nvcs.revision e5719f1f773ff99785f428151e2782af1cb5fb9d\nvcs.time 2026-12-01T20:30:00Z\nvcs.modified true\ngo go1.26.8 " + platform + "\nmodel_version %d\n",
		},
		{
			name: "go install of a tagged version",
			bi:   &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.3.0"}},
			want: "goodput v0.3.0\nvcs.revision unknown\nvcs.time unknown\nvcs.modified unknown\ngo go1.26.0 " + platform + "\nmodel_version %d\n",
		},
		{
			name: "no build information",
			want: "goodput unknown\nvcs.revision unknown\nvcs.time unknown\nvcs.modified unknown\ngo " + runtime.Version() + " " + platform + "\nmodel_version %d\n",
		},
	}
	for _, tt := range tests {
		if got, want := versionText(tt.bi), fmt.Sprintf(tt.want, model.Version); got != want {
			t.Errorf("%s:\n%s\nwant\n%s", tt.name, got, want)
		}
	}
}

// TestVersion runs 'goodput version' and 'goodput --version': the same lines, on stdout.
func TestVersion(t *testing.T) {
	var outs []string
	for _, args := range [][]string{{"version"}, {"--version"}} {
		var stdout, stderr bytes.Buffer
		if err := run(args, &stdout, &stderr); err != nil || stderr.Len() != 0 {
			t.Fatalf("%q: %v, stderr %q", args, err, stderr.String())
		}
		outs = append(outs, stdout.String())
	}
	if outs[0] != outs[1] {
		t.Errorf("version and --version differ:\n%s\n%s", outs[0], outs[1])
	}
	lines := strings.Split(strings.TrimSuffix(outs[0], "\n"), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[0], "goodput ") || lines[5] != fmt.Sprintf("model_version %d", model.Version) ||
		!strings.HasPrefix(lines[4], "go "+runtime.Version()) {
		t.Errorf("version output:\n%s", outs[0])
	}
}
