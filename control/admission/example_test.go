package admission_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/goodput-lab/goodput/control/admission"
)

// With a limit of 10, while continuations and lookups are in demand, new
// checkouts may fill 8 slots (85 %), sheddable work 6 (60 %); the rest stays
// reserved for lookups and payment continuations.
func Example() {
	ctl, err := admission.New(admission.Config{Max: 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	now := time.Date(2026, 3, 14, 14, 15, 0, 0, time.UTC)
	try := func(c admission.Class) {
		d := ctl.Admit(now, admission.Request{Class: c, Slack: 1500 * time.Millisecond, Expected: 400 * time.Millisecond})
		fmt.Printf("%-12v %-8v in flight %d\n", c, d.Reason, ctl.InFlight())
	}
	try(admission.Continuation)
	try(admission.Lookup)
	for range 5 {
		try(admission.Sheddable)
	}
	try(admission.Standard)
	try(admission.Standard)
	try(admission.Standard)
	try(admission.Lookup)
	try(admission.Continuation)
	try(admission.Continuation)

	d := ctl.Admit(now, admission.Request{Class: admission.Continuation, Slack: 200 * time.Millisecond, Expected: 400 * time.Millisecond})
	fmt.Println(d.Reason, d.RetryAfter, d.Err())
	// Output:
	// continuation admitted in flight 1
	// lookup       admitted in flight 2
	// sheddable    admitted in flight 3
	// sheddable    admitted in flight 4
	// sheddable    admitted in flight 5
	// sheddable    admitted in flight 6
	// sheddable    reserved in flight 6
	// standard     admitted in flight 7
	// standard     admitted in flight 8
	// standard     reserved in flight 8
	// lookup       admitted in flight 9
	// continuation admitted in flight 10
	// continuation limit    in flight 10
	// deadline 0s admission: deadline cannot be met
}

// Reserves are lent while the classes they are kept for have no demand: a
// service with only Standard traffic fills the whole limit. The first
// continuation finds it full (borrowed slots are not taken back), but from
// then on Standard work keeps to its 85 % again.
func ExampleController_Admit() {
	ctl, _ := admission.New(admission.Config{Max: 10})
	now := time.Date(2026, 3, 14, 14, 16, 0, 0, time.UTC)
	try := func(c admission.Class) {
		d := ctl.Admit(now, admission.Request{Class: c})
		fmt.Printf("%-12v %-8v in flight %d\n", c, d.Reason, ctl.InFlight())
	}
	for range 10 {
		ctl.Admit(now, admission.Request{Class: admission.Standard})
	}
	fmt.Println("standard alone fills", ctl.InFlight())
	try(admission.Continuation)
	now = now.Add(100 * time.Millisecond)
	for range 3 {
		ctl.Done(now, admission.Sample{Class: admission.Standard, Latency: 100 * time.Millisecond})
	}
	try(admission.Standard)
	try(admission.Standard)
	try(admission.Continuation)
	// Output:
	// standard alone fills 10
	// continuation limit    in flight 10
	// standard     admitted in flight 8
	// standard     reserved in flight 8
	// continuation admitted in flight 9
}

// The AIMD rule lowers the limit 5 % for each window whose mean queueing
// delay exceeds the 20 ms target, and raises it by at least one slot when the
// delay falls and the window used the limit.
func ExampleController_Done() {
	ctl, _ := admission.New(admission.Config{Max: 100, Window: time.Second})
	now := time.Date(2026, 3, 14, 14, 4, 0, 0, time.UTC)
	for _, delay := range []time.Duration{5, 45, 60, 80, 15, 10, 5} {
		for range 60 {
			ctl.Admit(now, admission.Request{Class: admission.Continuation})
		}
		for range 60 {
			ctl.Done(now.Add(delay*time.Millisecond), admission.Sample{
				Class:      admission.Continuation,
				QueueDelay: delay * time.Millisecond,
				Latency:    delay*time.Millisecond + 90*time.Millisecond,
			})
		}
		now = now.Add(time.Second)
		ctl.Admit(now, admission.Request{Slack: -1}) // a refused request still closes the window
		fmt.Printf("queueing %3dms -> limit %d\n", delay, ctl.Limit())
	}
	// Output:
	// queueing   5ms -> limit 100
	// queueing  45ms -> limit 95
	// queueing  60ms -> limit 90
	// queueing  80ms -> limit 85
	// queueing  15ms -> limit 86
	// queueing  10ms -> limit 87
	// queueing   5ms -> limit 88
}

// A staged ramp scales the adaptive limit; a manual command pins it.
func ExampleController_SetScale() {
	ctl, _ := admission.New(admission.Config{Max: 400})
	for _, f := range []float64{0.25, 0.5, 1} {
		ctl.SetScale(f)
		fmt.Println("scale", f, "limit", ctl.Limit())
	}
	ctl.SetStatic(150)
	fmt.Println("static 150 limit", ctl.Limit())
	ctl.SetStatic(0)
	fmt.Println("cleared limit", ctl.Limit())
	// Output:
	// scale 0.25 limit 100
	// scale 0.5 limit 200
	// scale 1 limit 400
	// static 150 limit 150
	// cleared limit 400
}

func ExampleDecision_Err() {
	ctl, _ := admission.New(admission.Config{})
	ctl.SetClassOpen(admission.Sheddable, false)
	d := ctl.Admit(time.Date(2026, 3, 14, 14, 13, 0, 0, time.UTC), admission.Request{Class: admission.Sheddable})
	err := d.Err()
	fmt.Println(errors.Is(err, admission.ErrClassClosed), d.Reason, d.RetryAfter)
	// Output:
	// true class-closed 1s
}
