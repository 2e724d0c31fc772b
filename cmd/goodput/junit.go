package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"strings"
)

// JUnit XML, as Jenkins, GitLab and GitHub test reporters read it: testsuites, a testsuite
// per arm, a testcase per objective and per invariant. Times are 0: the file holds no wall
// clock, so that the same replay writes the same file.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Errors   int         `xml:"errors,attr"`
		Skipped  int         `xml:"skipped,attr"`
		Time     string      `xml:"time,attr"`
		Cases    []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		ClassName string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr"`
		Failure   *junitFailure `xml:"failure"`
	}
	junitFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",cdata"`
	}
)

// writeJUnit writes the outcomes as JUnit XML to path; it does nothing for an empty path.
// A test case is an objective (named for it) or an invariant ("invariant: NAME") of an
// arm (its class name); in a sweep it fails when it failed in any trial.
func (o *outcomes) writeJUnit(path string) error {
	if path == "" {
		return nil
	}
	var b bytes.Buffer
	if err := o.junit(&b); err != nil {
		return err
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("replay: --junit: %w", err)
	}
	return nil
}

// junit writes the outcomes as JUnit XML to w.
func (o *outcomes) junit(w io.Writer) error {
	doc := junitSuites{Name: "goodput replay " + o.scenario, Time: "0"}
	for _, s := range o.suites() {
		js := junitSuite{Name: s.name, Time: "0"}
		for _, c := range s.cases {
			jc := junitCase{Name: c.name, ClassName: s.name, Time: "0"}
			kind := "objective"
			if !c.objective {
				jc.Name, kind = "invariant: "+c.name, "invariant"
			}
			if len(c.failures) > 0 {
				jc.Failure = &junitFailure{Message: c.message(o.sweep), Type: kind, Text: c.detail(o.sweep)}
				js.Failures++
			}
			js.Cases = append(js.Cases, jc)
		}
		js.Tests = len(js.Cases)
		doc.Tests += js.Tests
		doc.Failures += js.Failures
		doc.Suites = append(doc.Suites, js)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("replay: --junit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// detail is a failure's text: every failed trial, one a line, with the objective's metric
// and notes.
func (c *testCase) detail(sweep bool) string {
	var b strings.Builder
	if c.objective {
		fmt.Fprintf(&b, "%s, target %s\n", c.metric, c.target)
	}
	for _, f := range c.failures {
		if sweep {
			fmt.Fprintf(&b, "seed %d: ", f.seed)
		}
		b.WriteString(f.text)
		if f.note != "" {
			b.WriteString(" (" + f.note + ")")
		}
		b.WriteByte('\n')
	}
	return b.String()
}
