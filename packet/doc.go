// Package packet is the comparison packet of a replay: populations, amplification by layer,
// terminal outcomes by class, duplicates, objectives, invariants, load-state transitions,
// latency histograms and a per-tick series on one clock for every arm.
//
// [Packet] is the stable JSON contract written as packet.json.
package packet
