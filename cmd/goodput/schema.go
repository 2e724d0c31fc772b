package main

import (
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
	fs.Usage = func() { fmt.Fprintln(stderr, "usage: goodput schema scenario|incident") }
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("%w: schema takes one format name", errUsage)
	}
	gen, ok := schemas[fs.Arg(0)]
	if !ok {
		return fmt.Errorf("%w: unknown format %q (want scenario or incident)", errUsage, fs.Arg(0))
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
