package loadgen

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/internal/draw"
	"github.com/goodput-lab/goodput/scenario"
)

func usersLoad(think scenario.Dist, count int, abandon time.Duration) scenario.Traffic {
	return scenario.Traffic{Users: []scenario.Users{{Name: "u", Count: count, Class: "c", Think: think, AbandonAfter: scenario.Duration(abandon)}}}
}

// A user's think times are the replay's draws: keyed by the seed, the population's name,
// the user and its request number (package model's draw for purpose users/NAME/think),
// read as the replay reads the distribution; at fixed draws for a constant and an
// exponential.
func TestUserThink(t *testing.T) {
	cs := []Class{{Name: "c", Deadline: time.Second}}
	p := mustPlan(t, usersLoad(scenario.Dist{Constant: scenario.Duration(300 * time.Millisecond)}, 3, 0), time.Second, cs, 5)
	if p.users() != 3 || p.think(2, 7) != 300*time.Millisecond {
		t.Errorf("users %d, think %v", p.users(), p.think(2, 7))
	}
	mean := 2 * time.Second
	p = mustPlan(t, usersLoad(scenario.Dist{Mean: scenario.Duration(mean)}, 4, 0), time.Second, cs, 5)
	key := draw.Key(5, "users/u/think")
	for _, tc := range []struct {
		u int
		n uint32
	}{{0, 0}, {3, 0}, {1, 9}} {
		u := draw.Uniform(key, uint64(tc.u), uint64(tc.n))
		want := time.Duration(-float64(mean) * math.Log1p(-u))
		if got := p.think(tc.u, tc.n); got != want {
			t.Errorf("think(%d, %d) = %v, want %v", tc.u, tc.n, got, want)
		}
	}
	if p.think(0, 0) == p.think(0, 1) || p.think(0, 0) == p.think(1, 0) {
		t.Error("two requests drew the same think time")
	}
	// No open-loop requests come from Next with users alone.
	if r, ok := p.Next(); ok {
		t.Errorf("Next = %+v with users only", r)
	}
}

// Closed-loop users send less when the service is slower: with a constant think of
// 100 ms, 4 users for 1 s send up to 9 requests each to an instant target and up to 6 to
// one that answers in 60 ms; a user that abandons a hanging request after 150 ms sends
// again (at 0.1 s, 0.35 s, 0.6 s and 0.85 s), one that waits does not. (Real time, as
// the other attacks of this package.)
func TestAttackUsers(t *testing.T) {
	tg := newTarget(t)
	think := scenario.Dist{Constant: scenario.Duration(100 * time.Millisecond)}
	for _, tc := range []struct {
		name    string
		path    string
		abandon time.Duration
		lo, hi  int64 // offered over the 4 users
		goodput bool  // every request answered 2xx
		timeout time.Duration
	}{
		// At most 9 a user (at 0.1 s, 0.2 s, … 0.9 s), fewer on a loaded machine.
		{name: "instant", path: "/ok", lo: 4 * 7, hi: 4 * 9, goodput: true},
		// At most 6 a user (each 160 ms after the last), well below the instant target's.
		{name: "slow", path: "/slow", lo: 4 * 4, hi: 4 * 6, goodput: true},
		{name: "hang, abandoned", path: "/hang", abandon: 150 * time.Millisecond, timeout: 3 * time.Second, lo: 4 * 3, hi: 4 * 4},
		{name: "hang, waited for", path: "/hang", timeout: 3 * time.Second, lo: 4, hi: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := []Class{{Name: "c", Deadline: 5 * time.Second, Path: tc.path, Timeout: tc.timeout}}
			res := attack(t, tg.URL, usersLoad(think, 4, tc.abandon), time.Second, cs, Options{Drain: 200 * time.Millisecond})
			tot := res.Total
			if tot.Offered < tc.lo || tot.Offered > tc.hi {
				t.Errorf("offered %d; want %d to %d", tot.Offered, tc.lo, tc.hi)
			}
			if tc.goodput && tot.Goodput != tot.Offered {
				t.Errorf("%+v; want every request answered", tot)
			}
		})
	}
}

// More users than MaxInFlight are refused: each is a goroutine and a connection.
func TestUsersBoundedByMaxInFlight(t *testing.T) {
	cs := []Class{{Name: "c", Deadline: time.Second}}
	p := mustPlan(t, usersLoad(scenario.Dist{Mean: scenario.Duration(time.Second)}, 5, 0), time.Second, cs, 1)
	if _, err := New(p, "http://127.0.0.1:1", Options{MaxInFlight: 4}); err == nil || !strings.Contains(err.Error(), "5 closed-loop users, more than MaxInFlight 4") {
		t.Errorf("error %v", err)
	}
	if _, err := New(p, "http://127.0.0.1:1", Options{MaxInFlight: 5}); err != nil {
		t.Error(err)
	}
}
