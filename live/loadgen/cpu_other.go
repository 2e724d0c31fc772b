//go:build !unix

package loadgen

import "time"

// processCPU is zero where getrusage is not available.
func processCPU() time.Duration { return 0 }
