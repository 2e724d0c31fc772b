package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/goodput-lab/goodput/model"
)

// runVersion is the 'version' subcommand, also run as 'goodput --version': it prints what
// built the binary and which model it replays with.
func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: goodput version")
		fmt.Fprintln(stderr, "       goodput --version")
		fmt.Fprintln(stderr)
		fmt.Fprintln(stderr, "Prints the module version (\"(devel)\" for a build from a checkout without a version")
		fmt.Fprintln(stderr, "tag), the VCS revision, its time and whether the tree had uncommitted changes (from")
		fmt.Fprintln(stderr, "the build information; \"unknown\" when the binary was built without it), the Go")
		fmt.Fprintln(stderr, "version and model_version, the number a packet records of the model that replayed it.")
		fmt.Fprintln(stderr)
		exitStatus(stderr, "the output cannot be written", "")
	}
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: version: %v", errUsage, err)
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: version takes no arguments, got %s", errUsage, strings.Join(pos, " "))
	}
	bi, _ := debug.ReadBuildInfo()
	_, err = io.WriteString(stdout, versionText(bi))
	return err
}

// versionText is what 'goodput version' prints for the build information bi (nil when the
// binary has none): one "key value" line each, after "goodput VERSION".
func versionText(bi *debug.BuildInfo) string {
	version, goVersion := "unknown", runtime.Version()
	settings := map[string]string{}
	if bi != nil {
		version = cmp.Or(bi.Main.Version, "unknown")
		goVersion = cmp.Or(bi.GoVersion, goVersion)
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "goodput %s\n", version)
	for _, k := range []string{"vcs.revision", "vcs.time", "vcs.modified"} {
		fmt.Fprintf(&b, "%s %s\n", k, cmp.Or(settings[k], "unknown"))
	}
	fmt.Fprintf(&b, "go %s %s/%s\n", goVersion, runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(&b, "model_version %d\n", model.Version)
	return b.String()
}
