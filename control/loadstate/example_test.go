package loadstate_test

import (
	"fmt"
	"time"

	"github.com/goodput-lab/goodput/control/loadstate"
)

// The Northstar incident, minute by minute: the queue ages past the protected
// gate, the dependency is restored at 14:09, and the machine ramps back to
// Normal through three admission steps.
func Example() {
	start := time.Date(2025, 3, 11, 14, 0, 0, 0, time.UTC)
	m, err := loadstate.New(loadstate.Northstar(), start)
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

// Manual command changes the policy as a new, logged generation.
func ExampleMachine_Override() {
	now := time.Date(2025, 3, 11, 14, 13, 0, 0, time.UTC)
	m, _ := loadstate.New(loadstate.Northstar(), now)
	t := m.Override(now, loadstate.Protected, "IC: suppress nonessential retries and receipt enrichment")
	fmt.Println(t.Manual, t.Generation, m.Policy().RetryRatio, m.Policy().Shed)
	fmt.Println(m.Log()[0])
	// Output:
	// true 2 0.02 Protected
	// 14:13:00 Normal → Protected gen 2 (manual): IC: suppress nonessential retries and receipt enrichment
}

// Policy is what each request reads: a lock-free load of the current policy.
func ExampleMachine_Policy() {
	now := time.Date(2025, 3, 11, 14, 0, 0, 0, time.UTC)
	m, _ := loadstate.New(loadstate.Northstar(), now)
	m.Override(now, loadstate.Recovering, "ramp")
	snap := m.Snapshot()
	fmt.Printf("%v stage %d gen %d: admit %v of the limit, shed the %v set\n",
		snap.State, snap.Stage, snap.Generation, snap.Policy.AdmissionScale, snap.Policy.Shed)
	// Output:
	// Recovering stage 1 gen 2: admit 0.5 of the limit, shed the Recovering set
}
