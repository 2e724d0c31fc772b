package loadstate_test

import (
	"fmt"
	"time"

	"github.com/goodput-lab/goodput/control/loadstate"
)

// The Northstar incident, minute by minute: the queue ages past the protected
// gate, the dependency is restored at 14:09, and the machine ramps back to
// Normal through three admission steps. The config is the case study's (the
// scenario layer's northstar preset): the seed fixes the queue-age gates, the
// 1.08 amplification bound and Protected's 2% retries; the rest is goodput's
// calibration.
func Example() {
	northstar := loadstate.Config{
		Gates: loadstate.Gates{
			Amplification:        loadstate.Gate{Warn: 1.08, Hard: 1.3, Exit: 1.05},
			Slack:                loadstate.DurationGate{Warn: 1200 * time.Millisecond, Hard: 600 * time.Millisecond, Exit: 1400 * time.Millisecond},
			QueueAge:             loadstate.DurationGate{Warn: 250 * time.Millisecond, Hard: time.Second, Exit: 200 * time.Millisecond},
			DependencySaturation: loadstate.Gate{Warn: 0.8, Hard: 0.95, Exit: 0.7},
			ReadyReserve:         loadstate.Gate{Warn: 0.10, Exit: 0.15},
		},
		Sustain: 30 * time.Second,
		Hold:    loadstate.Holds{Pressured: time.Minute, Protected: 2 * time.Minute, Recovering: 6 * time.Minute},
		Ramp: []loadstate.RampStep{
			{Admission: 0.5, Hold: 2 * time.Minute},
			{Admission: 0.75, Hold: 2 * time.Minute},
			{Admission: 1, Hold: 2 * time.Minute},
		},
		Policies: loadstate.Policies{
			Normal:     loadstate.Policy{RetryRatio: 0.05, AdmissionScale: 1, Shed: loadstate.Normal},
			Pressured:  loadstate.Policy{RetryRatio: 0.03, AdmissionScale: 1, Shed: loadstate.Pressured, Prewarm: true, StopBackground: true},
			Protected:  loadstate.Policy{RetryRatio: 0.02, AdmissionScale: 0.5, Shed: loadstate.Protected, FreezeFailover: true, Prewarm: true, StopBackground: true},
			Recovering: loadstate.Policy{RetryRatio: 0.02, Shed: loadstate.Recovering, FreezeFailover: true, Prewarm: true, StopBackground: true},
		},
	}
	start := time.Date(2025, 3, 11, 14, 0, 0, 0, time.UTC)
	m, err := loadstate.New(northstar, start)
	if err != nil {
		panic(err)
	}
	calm := loadstate.Signals{
		Amplification:        1.02,
		Slack:                1600 * time.Millisecond,
		QueueAge:             50 * time.Millisecond,
		DependencySaturation: 0.5,
		ReadyReserve:         0.3,
	}
	for minute := 0; minute <= 20; minute++ {
		s := calm
		switch {
		case minute < 4:
			s.DependencySaturation = 0.9 // the payment-risk pool saturates
		case minute < 6:
			s.Amplification, s.QueueAge = 1.56, 1200*time.Millisecond
		}
		s.TriggerHealthy = minute >= 9 // the dependency is restored at 14:09
		if t, ok := m.Step(start.Add(time.Duration(minute)*time.Minute), s); ok {
			fmt.Println(t)
		}
	}
	p := m.Policy()
	fmt.Printf("%v: admission %v, retries %v\n", m.State(), p.AdmissionScale, p.RetryRatio)
	// Output:
	// 14:01:00 Normal → Pressured gen 2: dependency_saturation 0.9 ≥ 0.8 for 1m0s
	// 14:04:00 Pressured → Protected gen 3: amplification 1.56 ≥ 1.3
	// 14:11:00 Protected → Recovering stage 1 gen 4: trigger healthy and all gates within exit for 2m0s
	// 14:13:00 Recovering → Recovering stage 2 gen 5: ramp step 2/3: admission 0.75 after 2m0s within exit
	// 14:15:00 Recovering → Recovering stage 3 gen 6: ramp step 3/3: admission 1 after 2m0s within exit
	// 14:17:00 Recovering → Normal gen 7: ramp complete: 2m0s within exit, 6m0s in Recovering
	// Normal: admission 1, retries 0.05
}

// Manual command changes the policy as a new, logged generation. The zero
// Config has no gates, so only an Override moves it; its policies are
// DefaultPolicies.
func ExampleMachine_Override() {
	now := time.Date(2025, 3, 11, 14, 13, 0, 0, time.UTC)
	m, _ := loadstate.New(loadstate.Config{}, now)
	t := m.Override(now, loadstate.Protected, "IC: suppress nonessential retries and receipt enrichment")
	fmt.Println(t.Manual, t.Generation, m.Policy().RetryRatio, m.Policy().Shed)
	fmt.Println(m.Log()[0])
	// Output:
	// true 2 0.01 Protected
	// 14:13:00 Normal → Protected gen 2 (manual): IC: suppress nonessential retries and receipt enrichment
}

// Policy is what each request reads: a lock-free load of the current policy.
func ExampleMachine_Policy() {
	now := time.Date(2025, 3, 11, 14, 0, 0, 0, time.UTC)
	m, _ := loadstate.New(loadstate.Config{Ramp: []loadstate.RampStep{{Admission: 0.5}, {Admission: 1}}}, now)
	m.Override(now, loadstate.Recovering, "ramp")
	snap := m.Snapshot()
	fmt.Printf("%v stage %d gen %d: admit %v of the limit, shed the %v set\n",
		snap.State, snap.Stage, snap.Generation, snap.Policy.AdmissionScale, snap.Policy.Shed)
	// Output:
	// Recovering stage 1 gen 2: admit 0.5 of the limit, shed the Recovering set
}
