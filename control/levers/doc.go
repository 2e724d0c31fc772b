// Package levers is the one place where a load state's policy becomes the
// settings of the other controls: the retry budget's ratio, the admission
// scale, the set of optional features shed, the failover freeze, prewarming
// and background work.
//
// The simulator (package model) and a real service (controlhttp.Stepper)
// both go through an [Applier], so a replayed arm and a shipped service apply
// the same levers at the same policy generations, from the first instant:
// the Normal policy is in force from the moment the Applier first syncs, not
// from the first transition.
//
// # Which method to call
//
//   - [Of] maps a [loadstate.Snapshot] (which already carries manual
//     overrides: [loadstate.Machine.Override] is a new generation) and a
//     compiled [shed.Table] to [Levers]. It reads no clock and changes
//     nothing.
//   - [Levers.Apply] sets the levers on the [Controls] that own them.
//   - An [Applier] does both once per new generation: call [Applier.Sync]
//     when the applier starts and after every [loadstate.Machine.Step]; per
//     request, read [Applier.Levers], a lock-free load.
//
// Like the load-state machine, nothing here reads a clock: Sync and Apply
// take the instant as an argument.
package levers
