package loadstate

import "time"

// Revise records a manual change of the inputs the policy works on that is not a change
// of state: an operator raising a limit, scaling a service or rolling back a release. The
// machine stays in its state and ramp step, with its holds running on, and starts a new
// policy generation, marked Manual, with reason (the operator's words) in the log; the
// policy in force is the state's, as before. So every decision made after the command
// carries a generation that names it. An empty reason is "manual revision".
func (m *Machine) Revise(now time.Time, reason string) Transition {
	if reason == "" {
		reason = "manual revision"
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now = m.clamp(now)
	m.gen++
	t := Transition{At: now, From: m.state, To: m.state, Generation: m.gen, Stage: m.publish(), Reason: reason, Manual: true}
	m.log = append(m.log, t)
	return t
}
