//go:build !linux

package loadgen

import "errors"

// newPacerTimer has no precise timer here: the pacer sleeps with time.Sleep.
func newPacerTimer() (pacerTimer, error) { return nil, errors.New("no timerfd") }
