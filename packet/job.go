package packet

// Job is what one of the scenario's jobs did on an arm (a retry job: scenario.Job): the
// requests it re-submitted and how each ended, and those it had no time left to send.
// Replayed is Recovered + Late + Failed.
type Job struct {
	// Name is the job's name.
	Name string `json:"name"`
	// Replayed counts the re-submissions sent.
	Replayed int64 `json:"replayed"`
	// Recovered counts those that succeeded within the class's deadline (goodput).
	Recovered int64 `json:"recovered"`
	// Late counts those that succeeded after it.
	Late int64 `json:"late"`
	// Failed counts those that ended in any other terminal state.
	Failed int64 `json:"failed"`
	// Unsent counts the requests the job collected but did not send before the end of the
	// run.
	Unsent int64 `json:"unsent"`
}
