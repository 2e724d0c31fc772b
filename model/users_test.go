package model

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
)

// usersScenario is 200 closed-loop users of one class whose one stage takes work, with a
// constant think of 1s, through an entry with extra YAML.
func usersScenario(t *testing.T, work, users, entry string) *scenario.Scenario {
	t.Helper()
	src := fmt.Sprintf(`name: closed
clock: {duration: 30s, tick: 1s}
load:
  users: [{name: shoppers, count: 200, class: a, think: {constant: 1s}%s}]
classes:
  - {name: a, deadline: 5s, stages: [{name: w, work: {constant: %s}}]}
topology:
  entries: [{name: e0, target: s0, timeout: 5s%s}]
  services: [{name: s0, instances: 1, workers: 5000, queue: {capacity: 1000}}]
arms: [{name: a0, policy: {}}]
`, users, work, entry)
	sc, err := scenario.Decode("closed.scenario.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestClosedLoopOfferedFallsWhenServerSlows: each user sends one request per answer and
// think, so offered load follows 200 / (think + latency): a server ten times slower
// is offered about half as much.
func TestClosedLoopOfferedFallsWhenServerSlows(t *testing.T) {
	for _, tc := range []struct {
		name, work, users, entry string
		cycle                    time.Duration // a user's time from one request to the next
	}{
		{"fast", "10ms", "", "", 1010 * time.Millisecond},
		{"slow", "1s", "", "", 2 * time.Second},
		{"past the deadline", "20s", "", "", 6 * time.Second},                       // answered at the 5s deadline
		{"abandoned", "20s", ", abandon_after: 500ms", "", 1500 * time.Millisecond}, // stops waiting
		{"refused", "10ms", "", ", rate_limit: 0/s", time.Second},                   // refused at once
	} {
		t.Run(tc.name, func(t *testing.T) {
			pk := runScenario(t, usersScenario(t, tc.work, tc.users, tc.entry), 1)
			a := &pk.Arms[0]
			// Past the first cycles, 200 users send 200 requests a cycle.
			from, to := 10*time.Second, 30*time.Second
			got := float64(offeredBetween(a, from, to))
			want := 200 * (to - from).Seconds() / tc.cycle.Seconds()
			if math.Abs(got-want) > 0.05*want+200 {
				t.Errorf("offered %v in [%v, %v); want about %.0f", got, from, to, want)
			}
			if !slices.ContainsFunc(a.Events, func(e packet.Event) bool { return e.Kind == "users" }) {
				t.Error("no event says the arm's offered load is its own")
			}
		})
	}
}

// TestUsersThinkDraws: a user's think times are draws keyed by the user and its request
// number: the same in two arms whose answers come alike, and different between users.
func TestUsersThinkDraws(t *testing.T) {
	sc := usersScenario(t, "10ms", "", "")
	sc.Load.Users[0].Think = scenario.Dist{Mean: scenario.Duration(time.Second)}
	sc.Arms = append(sc.Arms, scenario.Arm{Name: "a1", Policy: scenario.Policy{Identity: true}})
	pk := runScenario(t, sc, 4)
	if !slices.EqualFunc(pk.Arms[0].Series, pk.Arms[1].Series, func(x, y packet.Row) bool { return x.Offered == y.Offered }) {
		t.Error("two arms answering alike were offered different loads")
	}
	first := pk.Arms[0].Series[0].Offered
	// With exponential thinks and fast answers each user is nearly a Poisson process of
	// rate 1/s, from the start: about 200 requests in the first second, not 200 at 1s.
	if first < 140 || first > 260 {
		t.Errorf("offered %d in the first second; want the users' first thinks spread (about 200)", first)
	}
}
