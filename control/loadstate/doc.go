// Package loadstate provides a Normal/Pressured/Protected/Recovering
// load-state machine: one authority that turns
// leading indicators into one policy for retries, admission, shedding,
// failover and prewarming, so that those controls cannot contradict each
// other during an incident.
//
// # States
//
//   - [Normal]: every gate is in bounds; optional features run.
//   - [Pressured]: a warning gate (attempt amplification, slack at
//     admission, oldest useful queue age, dependency saturation, ready
//     reserve) has stayed breached for Config.Sustain. Background work stops,
//     retry budgets tighten, requested capacity prewarms.
//   - [Protected]: a hard gate binds. Admission caps work, optional features
//     shed, retries are suppressed, failover freezes.
//   - [Recovering]: the initiating dependency is healthy and every gate is
//     back within its exit threshold for Hold.Protected. Admission ramps back
//     in stages; any gate breach returns straight to Protected. Normal comes
//     only after the last stage and Hold.Recovering.
//
// Exit thresholds lie strictly on the safe side of the enter thresholds, so a
// signal that oscillates between them does not make the machine flap.
//
// # Which method to call
//
// [New] builds a [Machine] from a [Config]. The zero Config is valid (no
// gates, [DefaultPolicies]; it moves only by Override); declare the gates the
// service measures. The Northstar case study's config lives with its
// scenario (package scenario, NorthstarLoadState). Apply the policy in force
// with package levers (controlhttp.Stepper does).
// Call [Machine.Step] once per control interval with the measured [Signals]
// and the current instant; it applies at most one [Transition]. Per request,
// call [Machine.Policy] — a lock-free load that does not allocate — and stamp
// the decision with [Machine.Generation] (or read both, consistently, with
// [Machine.Snapshot]). [Machine.Override] is the manual command: it changes
// the state as a new, logged generation. [Machine.Log] returns every
// transition with the gate and values that caused it.
//
// # Time
//
// Like etcd raft's RawNode, the machine is pure and synchronous: it reads no
// clock, starts no goroutine and sets no timer. Holds and sustains are
// measured between the instants passed to Step, so the discrete-event
// simulator steps it on virtual time and a service on a ticker (see
// control/controlhttp), and both run the same code.
//
// # A short program
//
//	m, err := loadstate.New(loadstate.Config{
//		Gates: loadstate.Gates{
//			QueueAge: loadstate.DurationGate{Warn: 250 * time.Millisecond, Hard: time.Second, Exit: 200 * time.Millisecond},
//		},
//		Sustain: 30 * time.Second,
//	}, now)
//	if err != nil {
//		return err
//	}
//	// every second:
//	if t, ok := m.Step(now, loadstate.Signals{
//		Amplification:        attempts / logical,
//		Slack:                slackP10,
//		QueueAge:             oldestUseful,
//		DependencySaturation: inUse / poolSize,
//		ReadyReserve:         spare / capacity,
//		TriggerHealthy:       riskP99 < 150*time.Millisecond,
//	}); ok {
//		log.Print(t) // 14:04:00 Pressured → Protected gen 3: queue_age 1.2s ≥ 1s
//		admit.SetScale(m.Policy().AdmissionScale)
//	}
//	// per request:
//	snap := m.Snapshot() // snap.Policy.Shed, snap.Policy.RetryRatio, snap.Generation
//
// A Machine is safe for concurrent use: Step and Override take a mutex;
// Policy, Snapshot, State and Generation only load an atomic pointer.
package loadstate
