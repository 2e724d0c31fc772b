package loadgen

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goodput-lab/goodput/internal/draw"
	"github.com/goodput-lab/goodput/internal/sample"
	"github.com/goodput-lab/goodput/scenario"
)

// Closed-loop users, by the replay's rule (package model, users.go): each user sends a
// request of its class, waits for its answer (its terminal state: a success, a failure,
// a refusal, its deadline) or for abandon_after, whichever comes first, thinks for a draw
// of think, and sends the next; the first request also follows a think, so the users
// start spread out. A user's think times are the replay's draws for the same seed, user
// and request number; the requests' send times follow the service's answers, so they are
// the replay's only while the answers take the replay's times. The users' requests are
// beside the plan's open-loop ones: not in [Plan.Next], each user sending from a
// goroutine of its own (with a connection of its own), and [New] refuses more users than
// MaxInFlight.

// userPop is one population of users, compiled.
type userPop struct {
	name    string
	first   int // the index of its first user over every population
	count   int
	class   int
	think   sample.Dist // as the replay reads it at a uniform draw
	key     uint64      // the think draws' key, as the replay's purpose "users/NAME/think"
	abandon time.Duration
}

// compileUsers compiles load's users over classes, checking them.
func compileUsers(us []scenario.Users, classes []Class, seed uint64) ([]userPop, error) {
	var out []userPop
	var errs []error
	first := 0
	for _, u := range us {
		ci := -1
		for i, c := range classes {
			if c.Name == u.Class {
				ci = i
			}
		}
		switch {
		case ci < 0:
			errs = append(errs, fmt.Errorf("users %q: class %q: expected one of the plan's classes", u.Name, u.Class))
		case u.Count <= 0 || u.Count > 1_000_000:
			errs = append(errs, fmt.Errorf("users %q: count %d: expected 1 to 1,000,000 users", u.Name, u.Count))
		case u.Think.Validate() != nil:
			errs = append(errs, fmt.Errorf("users %q: think: %v", u.Name, u.Think.Validate()))
		case u.AbandonAfter < 0:
			errs = append(errs, fmt.Errorf("users %q: abandon_after %s: expected zero (wait for the answer) or more", u.Name, u.AbandonAfter))
		}
		if ci < 0 {
			continue
		}
		out = append(out, userPop{name: u.Name, first: first, count: u.Count, class: ci, think: sample.New(u.Think),
			key: draw.Key(seed, "users/"+u.Name+"/think"), abandon: u.AbandonAfter.Std()})
		first += u.Count
	}
	return out, errors.Join(errs...)
}

// users is how many users the plan has, over every population.
func (p *Plan) users() int {
	if len(p.pops) == 0 {
		return 0
	}
	last := p.pops[len(p.pops)-1]
	return last.first + last.count
}

// popOf is the population of user u.
func (p *Plan) popOf(u int) *userPop {
	g := &p.pops[0]
	for i := range p.pops {
		if p.pops[i].first <= u {
			g = &p.pops[i]
		}
	}
	return g
}

// think is user u's think time before its request number n: the replay's draw for the
// user and the number.
func (p *Plan) think(u int, n uint32) time.Duration {
	g := p.popOf(u)
	return g.think.Quantile(draw.Uniform(g.key, uint64(u), uint64(n)))
}

// userID is the ID of user u's request number n: above every open-loop request's.
func userID(u int, n uint32) int64 { return 1<<62 | int64(u)<<32 | int64(n) }

// startUsers starts a goroutine for every user of the plan, each in wg; they stop
// sending at the end of the plan or when ctx is done. offered counts their requests by
// class.
func (a *Attacker) startUsers(ctx context.Context, wg *sync.WaitGroup, offered []atomic.Int64, sleep func(time.Duration)) {
	for u := range a.plan.users() {
		wg.Add(1)
		go a.user(ctx, u, wg, offered, sleep)
	}
}

// user runs user u: think, send, wait for the answer or the abandon_after, again.
func (a *Attacker) user(ctx context.Context, u int, wg *sync.WaitGroup, offered []atomic.Int64, sleep func(time.Duration)) {
	defer wg.Done()
	p := a.plan
	g := p.popOf(u)
	c := &a.classes[g.class]
	w := &worker{a: a, hdr: make(http.Header, 4)}
	defer w.closeConn()
	keys := rand.New(rand.NewPCG(p.seed, uint64(u)))
	var zipf *rand.Zipf
	if p.zipf != nil {
		zipf = rand.NewZipf(keys, p.zipfS, 1, uint64(p.nkeys-1))
	}
	var pending sync.WaitGroup // abandoned requests still running
	defer pending.Wait()
	from := time.Duration(0)
	for n := uint32(0); ; n++ {
		d := p.think(u, n)
		if d >= p.duration-from {
			return // sends stop at the end of the plan, as arrivals do
		}
		at := from + d
		if !a.waitUntil(ctx, at, sleep) {
			return
		}
		key := 0
		if zipf != nil {
			key = int(zipf.Uint64())
		} else {
			key = keys.IntN(p.nkeys)
		}
		r := Request{ID: userID(u, n), At: at, Class: g.class, Key: key, Deadline: at + c.Deadline}
		offered[g.class].Add(1)
		a.rows[a.row(at)].offered.Add(1)
		if g.abandon <= 0 {
			w.do(r)
			from = a.since()
			continue
		}
		done := make(chan struct{})
		pending.Add(1)
		go func() {
			defer pending.Done()
			defer close(done)
			aw := &worker{a: a, hdr: make(http.Header, 4)}
			aw.do(r)
			aw.closeConn()
		}()
		t := time.NewTimer(g.abandon)
		select {
		case <-done:
		case <-t.C: // the user stops waiting; the request runs on to its own end
		case <-ctx.Done():
		}
		t.Stop()
		from = a.since()
	}
}
