//go:build race

package breaker

// raceEnabled shortens the differential tests under the race detector, which
// slows them tenfold; the concurrent tests are what -race is for.
const raceEnabled = true
