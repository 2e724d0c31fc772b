//go:build !unix

package proccpu

import "time"

// Self is this process's CPU time so far; 0 where it is not measured.
func Self() time.Duration { return 0 }
