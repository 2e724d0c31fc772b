//go:build !race

package lab

// raceEnabled reports that the tests run under the race detector (see race_test.go).
const raceEnabled = false
