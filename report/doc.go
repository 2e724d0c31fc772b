// Package report renders a comparison [packet.Packet] for people: the arms side by side as a
// terminal table now; HTML with SVG charts and Markdown belong here too.
//
// # The terminal table
//
// [Table] writes one column pair per arm (the total and the mean per second of simulated
// time) and one row per figure, grouped in sections: populations, amplification by layer,
// latency from merged histograms, queue age, retries, duplicates, wasted work, load-state
// transitions, objectives (✓ or ✗ with the value and its target), invariants and recovery.
// Integers carry thousands separators; every number is right-aligned.
//
//	p, err := model.Run(ctx, sc, model.Options{Seed: 1})
//	if err != nil {
//		return err
//	}
//	return report.Table(os.Stdout, p)
//
// The table is a pure function of the packet: identical packets give identical bytes.
package report
