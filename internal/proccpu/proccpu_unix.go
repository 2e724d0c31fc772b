//go:build unix

package proccpu

import (
	"syscall"
	"time"
)

// Self is this process's user and system CPU time so far; 0 when the system does not say.
func Self() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
