// Package report renders a comparison [packet.Packet] for people: the arms side by side
// as a terminal table ([Table]) and as a self-contained HTML page with SVG charts ([HTML]),
// which `goodput replay --out DIR` writes as report.html beside the packet's data files.
//
// # The terminal table
//
// [Table] writes one column pair per arm (the total and the mean per second of simulated
// time) and one row per figure, grouped in sections: logical requests by outcome, attempts
// and amplification by layer, optional features shed, latency from merged histograms,
// queue age, retries, duplicate mutations, wasted work, load-state transitions, objectives
// (✓ or ✗ with the value, the statistic it is and its target), invariants and recovery.
// Each row's label says what it counts. A scenario with cells or circuit breakers adds a
// block under the table for each: a row per arm and cell (offered, goodput of the requests
// the cell held, failed over out and in, refused by the grant, failovers) and per arm and
// guarded dependency (trips, reopens, closes, refused calls, the first trip). Integers carry thousands separators; every number
// is right-aligned.
//
// The tables fit a width: [DefaultWidth] columns, or a terminal's with [Terminal] (the
// command passes the width of the terminal it writes to). Labels wrap and arm names fold
// to fit; narrower, the per-second columns go, and then the arms stack, a line per arm
// under each figure's label. [Trials] and [Vary] fit the same way, a cell's range going
// under its median before the arms stack.
//
//	p, err := model.Run(ctx, sc, model.Options{Seed: 1})
//	if err != nil {
//		return err
//	}
//	return report.Terminal{Width: 80}.Table(os.Stdout, p)
//
// # The report page
//
// [HTML] writes one page that needs nothing else: no script, no stylesheet or font to
// fetch, readable without JavaScript and printable. It opens with each arm's key figures,
// and the tables of the cells and the circuit breakers when there are any,
// then charts the per-tick series on the run's clock with one line per arm (goodput against
// the offered load, attempts per offered request, the oldest queued work, completion
// latency p99, requests in flight, the admission limit, and each dependency's calls in
// service and callers waiting for a connection), each fault window shaded and every fault,
// alert and load-state transition marked with its number in the events table (failover and
// breaker events, which may number hundreds, only on the first chart and only a few: each
// cell's first failover, each dependency's first trip); under the
// goodput chart a band per arm shows its binding constraint over time (the resource or
// control that limits goodput at each tick, coloured by kind, with a legend and the share
// of ticks each held), and a strip per arm shows its load state over time. The full table of [Table] follows, with the
// objectives and invariants marked. Every chart has a generated description of its lines
// (lowest and highest point, with their times) as its caption and accessible name.
//
// Both are pure functions of the packet: identical packets give identical bytes.
package report
