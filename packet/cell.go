package packet

import "time"

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

// The moves a failover event's To names.
const (
	// FailoverOut: the cell fails over, moving its share of traffic to other cells.
	FailoverOut = "out"
	// FailoverBack: the cell fails back and keeps its traffic again.
	FailoverBack = "back"
)

// Failover records an event of kind failover: cell failed over (to [FailoverOut]) or
// failed back (to [FailoverBack]); text describes it.
func (r *Recorder) Failover(at time.Duration, cell, to, text string) {
	r.row(at)
	r.events = append(r.events, Event{
		At: r.cfg.Start.Add(at), T: roundS(at), Arm: r.cfg.Arm, Kind: "failover", Text: text,
		To: to, Cell: cell,
	})
}
