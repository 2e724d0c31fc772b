package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/goodput-lab/goodput/incident"
	"github.com/goodput-lab/goodput/scenario"
)

// runSchema prints the JSON Schema of a user-written file format, generated from its Go types,
// for editor support (e.g. yaml-language-server).
func runSchema(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("schema", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: goodput schema scenario|incident")
		fmt.Fprintln(stderr)
		fmt.Fprintln(stderr, "Prints the JSON Schema of *.scenario.yaml or *.incident.yaml, generated from the Go")
		fmt.Fprintln(stderr, "types, for editors (e.g. yaml-language-server).")
		fmt.Fprintln(stderr)
		exitStatus(stderr, "the output cannot be written", "")
	}
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: schema: %v", errUsage, err)
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: schema takes one format name, scenario or incident", errUsage)
	}
	gen, ok := schemas[pos[0]]
	if !ok {
		return fmt.Errorf("%w: unknown format %q (want scenario or incident)", errUsage, pos[0])
	}
	schema, err := gen()
	if err != nil {
		return err
	}
	_, err = stdout.Write(append(schema, '\n'))
	return err
}

// schemas maps a format name to the function that generates its JSON Schema.
var schemas = map[string]func() ([]byte, error){
	"scenario": scenario.Schema,
	"incident": incident.Schema,
}
