// Package sim is goodput's discrete-event engine: a typed event queue ordered by (time, seq)
// (a timing wheel kept in exact order), a virtual clock, lazily cancellable timers and named,
// seeded random streams.
//
// A [Sim] runs on one goroutine and never reads the wall clock. Components implement [Handler]
// once and are scheduled with [Sim.Schedule]; an [Event] carries a small typed payload (a kind
// and an integer id), so the hot loop allocates nothing. Events at the same instant run in the
// order they were scheduled, which makes every run reproducible.
//
// Randomness comes from [Streams]: one math/rand/v2 PCG stream per component and purpose, named
// by a string. Two arms of an experiment built from the same seed draw identical numbers for
// identical names (common random numbers), whatever else each arm draws.
//
// # A small program
//
//	s := sim.New(start)
//	s.Schedule(100*time.Millisecond, server, kindArrive, 1)
//	s.Run(time.Minute)
//
// The virtual time of an event is a [time.Duration] since the start; [Sim.Now] converts it to a
// [time.Time] for code, such as goodput's controls, that takes `now` as an argument.
package sim
