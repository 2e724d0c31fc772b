//go:build !unix

package lab

import "os/exec"

func isolate(*exec.Cmd) {}

func killGroup(int) {}

// canRunParts is false: passing a listener to a child needs a unix system.
const canRunParts = false
