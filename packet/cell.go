package packet

// CellStats are one cell's figures in an arm of a scenario with cells: the requests
// offered to it (its share of the load), the goodput it served, the requests its
// failover moved out and those it took in from other cells, those its grant refused (a
// destination's warm reserve was spent) and those a load state that froze failover kept
// in it, and how many times it failed over.
type CellStats struct {
	Name           string `json:"name"`
	Offered        int64  `json:"offered"`
	Goodput        int64  `json:"goodput"`
	FailedOverOut  int64  `json:"failed_over_out"`
	FailedOverIn   int64  `json:"failed_over_in"`
	RefusedByGrant int64  `json:"refused_by_grant"`
	FailoverFrozen int64  `json:"failover_frozen"`
	Failovers      int    `json:"failovers"`
}
