package report

import (
	"slices"

	"github.com/goodput-lab/goodput/packet"
)

// cellBreakdown is the breakdown of the arms' cells ([packet.Arm.Cells]): per cell the
// requests offered to it, its goodput and what share that is of the requests it held,
// the requests its failover moved out and those it took in, those its grant refused, those
// a frozen failover kept in it (a column only when some cell has any) and how many times
// it failed over. Nil when no arm has cells.
func cellBreakdown(arms []packet.Arm) *breakdown {
	frozen := slices.ContainsFunc(arms, func(a packet.Arm) bool {
		return slices.ContainsFunc(a.Cells, func(c packet.CellStats) bool { return c.FailoverFrozen > 0 })
	})
	b := &breakdown{id: "cells", title: "Cells", part: "cell",
		note: "goodput of held: over the requests a cell held, those offered to it less those failed over out plus those failed over in; " +
			"refused by grant: requests failing over into the cell that its grant refused",
		cols: []partCol{
			{name: "offered"},
			{group: "goodput", name: "requests", pageOnly: true},
			{group: "goodput", name: "of held"},
			{group: "failed over", name: "out"},
			{group: "failed over", name: "in"},
			{group: "refused", name: "by grant"},
		}}
	if frozen {
		b.cols = append(b.cols, partCol{name: "kept in, frozen"})
		b.note += "; kept in, frozen: requests a load state that froze failover kept in the cell"
	}
	b.cols = append(b.cols, partCol{name: "failovers"})
	for _, a := range arms {
		var rows []partRow
		for _, c := range a.Cells {
			r := partRow{name: c.Name, cells: []string{
				Int(c.Offered), Int(c.Goodput), percent(c.Goodput, cellHeld(c)),
				Int(c.FailedOverOut), Int(c.FailedOverIn), Int(c.RefusedByGrant),
			}}
			if frozen {
				r.cells = append(r.cells, Int(c.FailoverFrozen))
			}
			r.cells = append(r.cells, Int(int64(c.Failovers)))
			rows = append(rows, r)
		}
		b.add(a.Name, rows)
	}
	if b.empty() {
		return nil
	}
	return b
}

// cellHeld is the requests cell c was answerable for: those offered to it, less those its
// failover moved out, plus those moved in. (A request its destination's grant refused
// stays in it, or is rejected there: either way it is held and not goodput.)
func cellHeld(c packet.CellStats) int64 { return c.Offered - c.FailedOverOut + c.FailedOverIn }
