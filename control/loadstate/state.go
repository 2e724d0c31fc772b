package loadstate

import "strconv"

// State is one of the four operational load states of the seed's state machine.
// The zero value is Normal.
type State uint8

// The load states, in order of increasing protection.
const (
	// Normal: attempt amplification, queue age, dependency latency and ready reserve are in bounds.
	Normal State = iota
	// Pressured: a leading indicator crossed its warning surface; budgets tighten, capacity prewarms.
	Pressured
	// Protected: a hard gate binds; admission caps physical work, optional work sheds, retries suppress.
	Protected
	// Recovering: the trigger has cleared but debt remains; the controller ramps back with holds.
	Recovering
)

var stateNames = [...]string{"Normal", "Pressured", "Protected", "Recovering"}

// String returns the state's name, e.g. "Protected".
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "State(" + strconv.Itoa(int(s)) + ")"
}
