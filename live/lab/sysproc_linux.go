package lab

import (
	"os/exec"
	"syscall"
)

// isolate puts a part in a process group of its own (so that a terminal's Ctrl-C reaches
// the parent only, which stops it) and has the kernel kill it if the parent dies.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup kills the part's process group.
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }

const canRunParts = true
