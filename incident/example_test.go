package incident_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/goodput-lab/goodput/incident"
)

const doc = `id: INC-2026-0912
status: resolved
title: Checkout failures after a payment-provider timeout change
time_zone: Europe/Dublin
milestones:
  - {name: impact_start, at: 2026-09-12T09:14:00Z}
  - {name: detected, at: 2026-09-12T09:47:00Z}
  - {name: mitigated, at: 2026-09-12T13:01:00Z}
impact:
  - {id: failed, label: Failed checkouts, value: 41900}
  - {id: recovered, value: 39600, of: failed}
summary: >-
  Checkouts failed for {{duration}} from {{at:impact_start}} (Dublin time). Thirty-one
  minutes passed before the alert; a retry job recovered 94% of the failures.
claims:
  - {text: Thirty-one minutes passed, value: ttd}
  - {text: recovered 94%, value: "pct:recovered:failed"}
`

// Decode a document and read the values derived from its milestones and figures.
func ExampleDecode() {
	d, err := incident.Decode("checkout.incident.yaml", []byte(doc))
	if err != nil {
		fmt.Println(err)
		return
	}
	v := d.Derived()
	fmt.Println("duration:", v.Duration)
	fmt.Println("time to detect:", v.TTD)
	fmt.Println("time to mitigate:", v.TTM)
	fmt.Println("recovered:", v.Values["pct:recovered:failed"].Text)
	// Output:
	// duration: 3h 47m
	// time to detect: 33 min
	// time to mitigate: 3h 14m
	// recovered: 95%
}

// Decoding is strict: every problem is reported at its line and column with what is
// expected instead.
func ExampleDecode_errors() {
	_, err := incident.Decode("bad.incident.yaml", []byte("id: x\ntitel: y\nmilestones:\n  - {name: detected, at: 09:47}\n"))
	fmt.Println(err)
	// Output:
	// bad.incident.yaml:2:1: error: unknown key "titel"; did you mean "title"?
	// bad.incident.yaml:4:26: error: milestones[0].at: "09:47" is not a timestamp; expected RFC 3339 in UTC, such as 2026-09-12T09:14:00Z
}

// Check compares every stated figure with the data: here the summary says thirty-one
// minutes to detect where the milestones give 33.
func ExampleCheck() {
	d, _ := incident.Decode("checkout.incident.yaml", []byte(doc))
	for _, diag := range incident.Check(d) {
		fmt.Println(diag)
	}
	// Output:
	// checkout.incident.yaml:13:77: error: summary: stated "Thirty-one minutes" disagrees with the data: ttd is 33 min (impact_start 10:14 → detected 10:47); an unhedged figure must be the computed value rounded or truncated to its last digit (1 min) (claims[0])
}

// Expand replaces placeholders with derived values, so prose cannot drift from the data.
// Times display in the document's zone.
func ExampleDocument_Expand() {
	d, _ := incident.Decode("checkout.incident.yaml", []byte(doc))
	text, err := d.Expand(d.Summary)
	fmt.Println(text, err)
	// Output:
	// Checkouts failed for 3h 47m from 10:14 (Dublin time). Thirty-one minutes passed before the alert; a retry job recovered 94% of the failures. <nil>
}

func ExampleFormatDuration() {
	fmt.Println(incident.FormatDuration(227 * time.Minute))
	fmt.Println(incident.FormatDuration(33 * time.Minute))
	fmt.Println(incident.FormatDuration(24*time.Hour + 11*time.Minute))
	// Output:
	// 3h 47m
	// 33 min
	// 24h 11m
}

// Schema generates the JSON Schema of the format from the Go types, for editors.
func ExampleSchema() {
	b, _ := incident.Schema()
	var s struct {
		Defs map[string]struct {
			Required []string `json:"required"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Defs["Document"].Required)
	fmt.Println(s.Defs["ActionItem"].Required)
	// Output:
	// [id status title milestones]
	// [id action owner due status validation]
}
