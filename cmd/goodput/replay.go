package main

import (
	"fmt"
	"io"
)

// runReplay is the 'replay' subcommand. (Being built; see the open issue.)
func runReplay(args []string, stdout, stderr io.Writer) error {
	return fmt.Errorf("replay: not built yet")
}
