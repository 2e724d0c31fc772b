package report

import (
	"github.com/goodput-lab/goodput/packet"
)

// breakerBreakdown is the breakdown of the arms' circuit breakers ([packet.Arm.Breakers]),
// a row per dependency they guard: the trips (closed → open), reopens (a failed probe)
// and closes, the calls refused (on the page also by reason) and when a breaker first
// opened. Nil when no arm has breakers.
func breakerBreakdown(arms []packet.Arm) *breakdown {
	reasons := union(arms, func(a packet.Arm) []string {
		var n []string
		for _, b := range a.Breakers {
			n = append(n, sortedKeys(b.RefusedBy)...)
		}
		return n
	})
	b := &breakdown{id: "breakers", title: "Circuit breakers", part: "dependency",
		note: "every calling instance's breaker of a dependency together: trips closed → open, reopens half-open → open on a failed probe, " +
			"closes half-open → closed; the first trip in seconds from the start",
		cols: []partCol{{name: "trips"}, {name: "reopens"}, {name: "closes"}, {group: "refused", name: "calls"}}}
	for _, r := range reasons {
		b.cols = append(b.cols, partCol{group: "refused", name: r, pageOnly: true})
	}
	b.cols = append(b.cols, partCol{name: "first trip (s)"})
	for _, a := range arms {
		var rows []partRow
		for _, x := range a.Breakers {
			r := partRow{name: x.Dependency, cells: []string{Int(x.Trips), Int(x.Reopens), Int(x.Closes), Int(x.Refused)}}
			for _, reason := range reasons {
				r.cells = append(r.cells, Int(x.RefusedBy[reason]))
			}
			first := "never"
			if x.FirstTrip != nil {
				first = trimZeros(Float(*x.FirstTrip, 3))
			}
			r.cells = append(r.cells, first)
			rows = append(rows, r)
		}
		b.add(a.Name, rows)
	}
	if b.empty() {
		return nil
	}
	return b
}
