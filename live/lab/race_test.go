//go:build race

package lab

// raceEnabled reports that the tests run under the race detector, which slows every part of
// the lab several times over: a call can then reach the proxy in the moment between its
// deadline and the caller's cancellation arriving, which a normal run does not see.
const raceEnabled = true
