package packet

import "time"

// Packet is the comparison packet of one replay: every arm run on the same offered load and
// random draws. Its JSON form (packet.json) is a stable contract: the field names below stay.
type Packet struct {
	Scenario string `json:"scenario"`
	Seed     uint64 `json:"seed"`
	Arms     []Arm  `json:"arms"`
}

// Arm is the result of one policy arm.
type Arm struct {
	Name          string        `json:"name"`
	Totals        Totals        `json:"totals"`
	Amplification Amplification `json:"amplification"`
	Duplicates    Duplicates    `json:"duplicates"`
	Objectives    []Objective   `json:"objectives"`
	Transitions   []Transition  `json:"transitions"`
}

// Totals counts the populations of an arm. Every offered logical request is admitted or
// rejected; every admitted one ends in exactly one of goodput, late, expired, failed or
// ambiguous. Attempts count physical work at every layer; shed counts optional work removed
// (a degraded but correct response is still goodput).
type Totals struct {
	Offered   int64 `json:"offered"`
	Admitted  int64 `json:"admitted"`
	Rejected  int64 `json:"rejected"`
	Attempts  int64 `json:"attempts"`
	Goodput   int64 `json:"goodput"`
	Late      int64 `json:"late"`
	Expired   int64 `json:"expired"`
	Shed      int64 `json:"shed"`
	Failed    int64 `json:"failed"`
	Ambiguous int64 `json:"ambiguous"`
}

// Amplification is attempts per offered logical request, in total and by layer.
type Amplification struct {
	Total   float64            `json:"total"`
	ByLayer map[string]float64 `json:"by_layer"`
}

// Duplicates counts mutations executed more than once for one logical identity.
type Duplicates struct {
	PaymentAuthorizations int64 `json:"payment_authorizations"`
	OrderCommits          int64 `json:"order_commits"`
}

// Objective is one declared objective evaluated on an arm.
type Objective struct {
	Name   string  `json:"name"`
	Pass   bool    `json:"pass"`
	Value  float64 `json:"value"`
	Target float64 `json:"target"`
}

// Transition is one load-state change, with the policy generation it created.
type Transition struct {
	At         time.Time `json:"at"`
	From       string    `json:"from"`
	To         string    `json:"to"`
	Generation uint64    `json:"generation"`
	Reason     string    `json:"reason"`
}
