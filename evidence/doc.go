// Package evidence checks declared arithmetic: the figures a document claims, recomputed from
// the inputs it states.
//
// An incident write-up says "9,000 requests/s with 28% edge and 22% service retries is
// 14,054.4 attempts/s". A packet (a `*.packet.yaml` file) declares that sentence as named
// inputs and a figure with its formula and claim; [Packet.Verify] recomputes every figure and
// says which claims do not follow from the inputs. `goodput verify` is the command-line form.
//
// # The packet file
//
//	title: Northstar overload incident — declared arithmetic
//	source: seed 004                      # free text
//	inputs:
//	  logical_rate:  {value: 9000, unit: 1/s, note: "logical requests/s at peak"}
//	  edge_retry:    {value: 0.28}
//	  service_retry: {value: 0.22}
//	figures:
//	  attempt_rate:
//	    formula: logical_rate * (1 + edge_retry) * (1 + service_retry)
//	    claim: 14054.4
//	    unit: 1/s
//	  amplification:
//	    formula: attempt_rate / logical_rate
//	    claim: 1.5616
//	    precision: 4       # or tolerance: 0.0001 (absolute); by default, as written
//
// An input has a value and, optionally, a unit and a note. A figure has a formula and a claim
// and, optionally, a unit, a note, and either a tolerance or a precision. Units are labels,
// never conversions: write a percentage input as a fraction and give a figure with unit "%" a
// formula that yields the percent. Inputs and figures share one namespace, and a formula may
// use any of them in any order, as long as no figure depends on itself.
//
// Formulas are github.com/expr-lang/expr expressions cut down to arithmetic: numbers, names,
// + - * /, ^ or ** for powers, unary minus, parentheses, and abs, ceil, floor, round, min and
// max. All arithmetic is in float64.
//
// # Comparing a claim
//
// A claim matches when |computed − claim| is at most the figure's tolerance. The tolerance is
// the declared `tolerance`, else half a unit in the last place of the declared `precision`
// (precision 2 allows ±0.005, so a claim of 68.97 matches 68.9655…), else half a unit in the
// last digit the claim is written with. Declaring the precision makes a claim edited to a
// coarser value (69 for 68.97) fail; leaving it to the written claim accepts any correct
// rounding. The report says, for every figure, which tolerance it applied and why.
//
// # Errors
//
// [Decode] is strict: unknown or duplicated keys, numbers written as text, missing formulas or
// claims, bad or reserved names, unknown names in formulas, operators other than arithmetic,
// and cycles are all errors, each reported as `file:line:col: what is wrong, what is
// expected`, with the column pointing into the formula where that makes sense.
// [Packet.Verify] never fails as a whole: a figure that cannot be computed (a division by
// zero, say) is a failed row with its error.
//
// # A short program
//
//	p, err := evidence.Load("examples/northstar/northstar.packet.yaml")
//	if err != nil {
//		log.Fatal(err) // file:line:col: what is wrong, what is expected
//	}
//	rep := p.Verify()
//	rep.WriteTo(os.Stdout) // claimed, computed, difference, tolerance, ok or MISMATCH
//	if !rep.OK() {
//		os.Exit(1)
//	}
//
// A Packet is not changed by Verify, so one Packet may be verified from several goroutines.
package evidence
