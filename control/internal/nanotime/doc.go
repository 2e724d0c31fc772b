// Package nanotime turns instants into integer nanoseconds since a base instant, so that the
// controls' hot paths compare and subtract integers: time.Time's Sub and Add cost tens of
// nanoseconds each.
package nanotime
