package scenario

import (
	"errors"
	"strings"
	"testing"
)

// TestValidateSchedulesAndUsers breaks the base scenario's ramps, bursts, class
// schedules and users in one place per case, and checks the error's path, position and
// message.
func TestValidateSchedulesAndUsers(t *testing.T) {
	const sched = "schedule: [{at: 0s, rate: 100/s}, {at: 30s, rate: 200/s}]"
	const look = "  - name: look\n    share: 40%\n"
	const users = "  keys: {count: 10000, zipf: 1.1}\n"
	for _, tc := range []struct {
		name, old, new, path, msg string
	}{
		{"ramp too fast", sched, "schedule: [{at: 0s, rate: 100/s, ramp_to: 20000000/s}]", "$.load.schedule[0].ramp_to", "more than 10,000,000/s"},
		{"ramp to itself", sched, "schedule: [{at: 0s, rate: 100/s, ramp_to: 100/s}]", "$.load.schedule[0].ramp_to", "expected a different rate"},
		{"burst with a rate", sched, "schedule: [{at: 0s, rate: 100/s}, {at: 5s, burst: 10, rate: 5/s}]", "$.load.schedule[1].rate", "a burst step does not change the rate"},
		{"burst of none", sched, "schedule: [{at: 0s, rate: 100/s}, {at: 5s, burst: 0, within: 1s}]", "$.load.schedule[1].burst", "expected a positive number of arrivals"},
		{"burst too big", sched, "schedule: [{at: 0s, rate: 100/s}, {at: 5s, burst: 2000000}]", "$.load.schedule[1].burst", "at most 1000000"},
		{"burst past the end", sched, "schedule: [{at: 0s, rate: 100/s}, {at: 50s, burst: 10, within: 20s}]", "$.load.schedule[1].within", "ends after the run"},
		{"burst out of order", sched, "schedule: [{at: 0s, rate: 100/s}, {at: 30s, rate: 200/s}, {at: 5s, burst: 10}]", "$.load.schedule[2].at", "increasing time"},
		{"rate steps at one instant", sched, "schedule: [{at: 0s, rate: 100/s}, {at: 5s, burst: 10}, {at: 5s, rate: 10/s}, {at: 5s, rate: 20/s}]", "$.load.schedule[3].at", "only a burst may share an instant"},
		{"class schedule with a share", look, "  - name: look\n    share: 40%\n    schedule: [{at: 0s, rate: 10/s}]\n", "$.classes[1].share", "expected no share"},
		{"class schedule empty of load", look, "  - name: look\n    schedule: [{at: 0s, rate: 0/s}]\n", "$.classes[1].schedule", "every step has rate 0/s"},
		{"class schedule start", look, "  - name: look\n    schedule: [{at: 3s, rate: 10/s}]\n", "$.classes[1].schedule[0].at", "start at 0s"},
		{"shares without the scheduled class", look, "  - name: look\n    schedule: [{at: 0s, rate: 10/s}]\n", "$.classes", "sum to 60%"},
		{"users' count", users, users + "  users: [{name: u, count: 0, class: buy, think: {mean: 1s}}]\n", "$.load.users[0].count", "expected 1 to 1000000 users"},
		{"users' class", users, users + "  users: [{name: u, count: 5, class: sell, think: {mean: 1s}}]\n", "$.load.users[0].class", `unknown class "sell"`},
		{"users' think", users, users + "  users: [{name: u, count: 5, class: buy}]\n", "$.load.users[0].think", "no distribution set"},
		{"users twice", users, users + "  users: [{name: u, count: 5, class: buy, think: 1s}, {name: u, count: 5, class: buy, think: 1s}]\n", "$.load.users[1].name", "declared twice"},
		{"users' abandon", users, users + "  users: [{name: u, count: 5, class: buy, think: 1s, abandon_after: -1s}]\n", "$.load.users[0].abandon_after", "expected zero"},
		{"too many users", users, users + "  users: [{name: u, count: 900000, class: buy, think: 1s}, {name: v, count: 200000, class: buy, think: 1s}]\n", "$.load.users[1].count", "at most 1000000 users in all"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(validBase, tc.old, tc.new, 1)
			if src == validBase {
				t.Fatalf("case does not change the scenario: %q not found", tc.old)
			}
			_, err := Decode("case.yaml", []byte(src))
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("Decode() = %v; want an ErrorList", err)
			}
			for _, e := range list {
				if e.Path == tc.path && strings.Contains(e.Msg, tc.msg) {
					if e.Line == 0 {
						t.Errorf("%s has no position: %v", tc.path, e)
					}
					return
				}
			}
			t.Errorf("no error at %s containing %q; got:\n%v", tc.path, tc.msg, err)
		})
	}
}

// TestValidateAcceptsSchedulesAndUsers checks what the schedule and users rules allow.
func TestValidateAcceptsSchedulesAndUsers(t *testing.T) {
	const sched = "schedule: [{at: 0s, rate: 100/s}, {at: 30s, rate: 200/s}]"
	for _, tc := range []struct{ name, old, new, old2, new2 string }{
		{name: "ramps and bursts", old: sched, new: "schedule: [{at: 0s, rate: 0/s, ramp_to: 100/s}, {at: 10s, burst: 500}, {at: 10s, rate: 100/s, ramp_to: 0/s}, {at: 30s, burst: 50, within: 30s}]"},
		{name: "a burst at the start", old: sched, new: "schedule: [{at: 0s, burst: 50}, {at: 0s, rate: 100/s}]"},
		{name: "class schedule", old: "  - name: look\n    share: 40%\n", new: "  - name: look\n    schedule: [{at: 0s, rate: 10/s, ramp_to: 50/s}, {at: 20s, burst: 100}]\n", old2: "share: 60%", new2: "share: 100%"},
		{name: "users beside the schedule", old: "  keys: {count: 10000, zipf: 1.1}\n", new: "  keys: {count: 10000, zipf: 1.1}\n  users: [{name: u, count: 50, class: look, think: {p50: 1s, p99: 8s}, abandon_after: 2s}]\n"},
		{name: "users alone", old: "  " + sched + "\n", new: "  users: [{name: u, count: 50, class: look, think: {mean: 1s}}]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(validBase, tc.old, tc.new, 1)
			if src == validBase {
				t.Fatalf("case does not change the scenario: %q not found", tc.old)
			}
			if tc.old2 != "" {
				src = strings.Replace(src, tc.old2, tc.new2, 1)
			}
			if _, err := Decode("case.yaml", []byte(src)); err != nil {
				t.Errorf("rejected:\n%v", err)
			}
		})
	}
}

// TestTruncateSchedules: a shorter run keeps the bursts inside it, cut at its end, and
// the classes' own schedules alike.
func TestTruncateSchedules(t *testing.T) {
	src := strings.Replace(validBase, "schedule: [{at: 0s, rate: 100/s}, {at: 30s, rate: 200/s}]",
		"schedule: [{at: 0s, rate: 100/s}, {at: 10s, burst: 40, within: 20s}, {at: 30s, rate: 200/s}]", 1)
	src = strings.Replace(src, "  - name: look\n    share: 40%\n", "  - name: look\n    schedule: [{at: 0s, rate: 10/s}, {at: 25s, burst: 9}]\n", 1)
	src = strings.Replace(src, "share: 60%", "share: 100%", 1)
	s, err := Decode("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	out := s.Truncate(20e9)
	if err := out.Validate(); err != nil {
		t.Fatalf("truncated scenario is invalid: %v", err)
	}
	if got := out.Load.Schedule; len(got) != 2 || got[1].Within != Duration(10e9) {
		t.Errorf("load schedule %v; want the step at 0s and the burst cut to 10s", got)
	}
	if got := out.Classes[1].Schedule; len(got) != 1 {
		t.Errorf("class schedule %v; want the step at 0s", got)
	}
	if len(s.Classes[1].Schedule) != 2 {
		t.Error("Truncate changed the original's class schedule")
	}
}
