// Package packet is the comparison packet of a replay: populations, amplification by layer,
// terminal outcomes by class, duplicates, objectives, invariants, load-state transitions,
// latency histograms and a per-tick series on one clock for every arm.
//
// [Packet] is the stable JSON contract written as packet.json; [WriteSeriesCSV] writes the
// per-tick series (series.csv) and [WriteEventsJSONL] the annotations and transitions
// (events.jsonl); [Packet.WriteDir] writes all three. [Read] loads such a directory back
// into the same Packet, so that a report can be redrawn or two packets compared without
// replaying. Durations are time.Duration in memory and milliseconds or seconds in the files.
//
// # Recording an arm
//
// The model drives one [Recorder] per arm, on the arm's goroutine, with virtual time as a
// [time.Duration] since the scenario start. The four populations stay separate: a logical
// request is offered, then admitted or rejected; an admitted one reaches exactly one
// terminal [Outcome]; attempts count physical work at every layer.
//
//	rec := packet.NewRecorder(packet.Config{Arm: "baseline", Tick: time.Second, Duration: time.Minute})
//	rec.Offered(at, "checkout")
//	rec.Admitted(at, "checkout")
//	rec.Attempt(at, "edge")
//	rec.Terminal(done, "checkout", packet.Goodput, done-at)
//	rec.Sample(tick, packet.Sample{QueueAgeMax: age, State: "Normal"})
//	arm := rec.Finish(objectives)
//
// # Live arms
//
// A lab's packet (goodput lab, see live/lab) holds arms measured on a live run, with
// Source "live" and their own figures in [Arm.Live]; with the replay beside them, the
// replay's arms have Source "replay" and the names [ReplayName] gives. A replay's own
// packet leaves Source out. An arm that no Recorder built gets its objectives, recovery
// and invariants from [Arm.Evaluate], by the rules Finish applies.
//
// # Memory and percentiles
//
// A Recorder keeps counters, HdrHistograms and one [Row] per tick: memory grows with the
// number of ticks and names, never with the number of requests. Percentiles over several
// classes come from merged histograms, never from averaged percentiles.
//
// # Determinism
//
// Identical calls give identical packets, and the writers produce identical bytes: maps are
// written with sorted keys and floats are rounded (milliseconds to the microsecond, ratios to
// four decimals).
package packet
