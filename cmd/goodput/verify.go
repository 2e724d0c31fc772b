package main

import (
	"fmt"
	"io"
)

// runVerify is the 'verify' subcommand. (Being built; see the open issue.)
func runVerify(args []string, stdout, stderr io.Writer) error {
	return fmt.Errorf("verify: not built yet")
}
