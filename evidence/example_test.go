package evidence_test

import (
	"fmt"
	"os"

	"github.com/goodput-lab/goodput/evidence"
)

// The Northstar retry arithmetic: 9,000 logical requests/s with independent 28% edge and 22%
// service retries. The amplification claim is wrong in its last digit.
func Example() {
	src := []byte(`title: retries multiply
inputs:
  logical_rate:  {value: 9000, unit: 1/s}
  edge_retry:    {value: 0.28}
  service_retry: {value: 0.22}
figures:
  attempt_rate:
    formula: logical_rate * (1 + edge_retry) * (1 + service_retry)
    claim: 14054.4
    unit: 1/s
  amplification:
    formula: attempt_rate / logical_rate
    claim: 1.5617
    unit: "×"
`)
	p, err := evidence.Decode("retries.packet.yaml", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	rep := p.Verify()
	for _, row := range rep.Rows {
		fmt.Printf("%s: claimed %s, computed %.5f, tolerance ±%g, ok %v\n",
			row.Name, row.ClaimText, row.Computed, row.Tolerance, row.OK)
	}
	fmt.Println("packet ok:", rep.OK())
	// Output:
	// attempt_rate: claimed 14054.4, computed 14054.40000, tolerance ±0.05, ok true
	// amplification: claimed 1.5617, computed 1.56160, tolerance ±5e-05, ok false
	// packet ok: false
}

// Decode errors say where, what is wrong, and what is expected; inside a formula the column
// points at the offending name.
func ExampleDecode_error() {
	src := []byte(`title: a typo
inputs:
  rate: {value: 9000}
figures:
  attempts: {formula: rte * 1.28, claim: 11520}
`)
	_, err := evidence.Decode("typo.packet.yaml", src)
	fmt.Println(err)
	// Output:
	// typo.packet.yaml:5:23: figure "attempts": unknown name "rte"; expected an input or figure declared in this packet (did you mean "rate"?)
}

func ExampleReport_WriteTo() {
	p := &evidence.Packet{
		Title:  "drain arithmetic",
		Inputs: []evidence.Input{{Name: "queue", Value: 180000}, {Name: "drain_rate", Value: 2400, Unit: "1/s"}},
		Figures: []evidence.Figure{
			{Name: "drain_time", Formula: "queue / drain_rate", Claim: 75, Unit: "s", Tolerance: 0.5, Basis: "whole seconds"},
		},
	}
	p.Verify().WriteTo(os.Stdout)
	// Output:
	// drain arithmetic
	//
	// FIGURE      UNIT  CLAIMED  COMPUTED  DIFFERENCE  TOLERANCE             RESULT
	// drain_time  s     75       75        0           ±0.5 (whole seconds)  ok
	//
	// 1 figure: 1 ok
}
