package main

import (
	"fmt"
	"io"
)

// runIncident is the 'incident' subcommand. (Being built; see the open issue.)
func runIncident(args []string, stdout, stderr io.Writer) error {
	return fmt.Errorf("incident: not built yet")
}
