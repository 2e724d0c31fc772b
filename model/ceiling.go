package model

// The ceiling on derived call timeouts (scenario.DeadlinePolicy.Ceiling). With
// dependency_timeout: derived a call's timeout is the time left before its request's
// deadline less the policy's reserve, at most the ceiling (30 s unless declared, as in
// control/controlhttp's client; none for no cap). A call that the ceiling cuts — its
// timeout was the ceiling, not the deadline's — has its own timer even when cancellation
// lets the request's reserve timer end its other calls, and its timeout is the
// dependency's: the breaker counts it as a failure, where one the caller's deadline cut is
// ignored, as the client tells its breaker. Both are timeouts for the retry rules.

// cutAtCeiling reports whether call c, which is timing out now, was given the ceiling as
// its timeout: its timeout fires at the instant it was asked for plus its timeout, and a
// timeout is the ceiling's when it is not shorter (the client's rule: a timeout short of
// the ceiling is the caller's).
func (a *arm) cutAtCeiling(c *call) bool {
	return a.pol.ceiling > 0 && a.now()-c.asked >= a.pol.ceiling
}
