//go:build !unix

package lab

import "time"

// processCPU is 0 where the lab does not read the process's CPU time.
func processCPU() time.Duration { return 0 }
