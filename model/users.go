package model

import (
	"fmt"
	"time"

	"github.com/goodput-lab/goodput/internal/sample"
	"github.com/goodput-lab/goodput/scenario"
)

// Closed-loop users (scenario.Users). Each user sends a request, waits for its answer (or
// its abandon_after), thinks, and sends the next, so its offered load falls as the arm's
// latency rises. A user's think times are per-request draws keyed by the user and its
// request number, so two arms draw the same think for the same request; but they answer
// at their own pace, so they do not share offered load (nor, after the first answers,
// the requests' IDs and their draws).

// userPlan is one population of users, compiled.
type userPlan struct {
	name      string
	first     int // the global index of its first user
	count     int
	class     int
	think     sample.Dist
	thinkMean time.Duration
	thinkPurp purp
	abandon   time.Duration // 0: wait for the answer
}

// usersRT is the users' state in an arm.
type usersRT struct {
	seq     []uint32        // each user's request number: of the request in flight, or of the next
	cur     []int64         // the request each user waits for; -1 if it is thinking
	waiting map[int64]int32 // the user waiting for each request
}

func (p *plan) compileUsers(us []scenario.Users) {
	for _, u := range us {
		ci := 0
		for i, c := range p.classes {
			if c.name == u.Class {
				ci = i
			}
		}
		p.users = append(p.users, userPlan{
			name:      u.Name,
			first:     p.nUsers,
			count:     u.Count,
			class:     ci,
			think:     sample.New(u.Think),
			thinkMean: max(u.Think.MeanDuration(), time.Nanosecond),
			thinkPurp: p.purpose("users/" + u.Name + "/think"),
			abandon:   u.AbandonAfter.Std(),
		})
		p.nUsers += u.Count
	}
}

// userOf is the population of global user u.
func (p *plan) userOf(u int32) *userPlan {
	g := &p.users[0]
	for i := range p.users {
		if p.users[i].first <= int(u) {
			g = &p.users[i]
		}
	}
	return g
}

// userID is the event ID of user u's request number n.
func userID(u int32, n uint32) int64 { return int64(u)<<32 | int64(n) }

// beginUsers schedules every user's first request, one think time after the start, and
// notes in the arm's events that its offered load is its own.
func (a *arm) beginUsers() {
	p := a.p
	if p.nUsers == 0 {
		return
	}
	a.users = &usersRT{seq: make([]uint32, p.nUsers), cur: make([]int64, p.nUsers), waiting: map[int64]int32{}}
	for u := range a.users.cur {
		a.users.cur[u] = -1
		a.thinkThen(int32(u))
	}
	a.rec.Annotate(0, "users", fmt.Sprintf("%d closed-loop users: this arm's offered load depends on its own answers, so arms do not share offered load", p.nUsers))
}

// thinkThen schedules user u's request number seq[u] after a think time.
func (a *arm) thinkThen(u int32) {
	n := a.users.seq[u]
	g := a.p.userOf(u)
	d := g.think.Quantile(a.draw(g.thinkPurp, int64(u), int32(n), 0, 0))
	if a.stopped || d >= a.p.duration-a.now() {
		return // arrivals stop at the end of the clock
	}
	a.schedule(d, evUserSend, userID(u, n))
}

// userSend is a user sending its next request (id: userID).
func (a *arm) userSend(id int64) {
	u, n := int32(id>>32), uint32(id)
	us := a.users
	if a.stopped || us.seq[u] != n || us.cur[u] >= 0 {
		return
	}
	g := a.p.userOf(u)
	rid := a.nextID
	a.nextID++
	us.cur[u] = rid
	us.waiting[rid] = u
	if g.abandon > 0 {
		a.schedule(g.abandon, evUserAbandon, id)
	}
	a.offer(a.now(), g.class, rid)
}

// userAnswered is request id's caller having its answer: if a user waits for it, the
// user thinks and sends its next.
func (a *arm) userAnswered(id int64) {
	if a.users == nil {
		return
	}
	u, ok := a.users.waiting[id]
	if !ok {
		return
	}
	a.userNext(u)
}

// userAbandon is a user's abandon_after passing (id: userID): if it still waits for that
// request, it stops waiting.
func (a *arm) userAbandon(id int64) {
	u, n := int32(id>>32), uint32(id)
	if us := a.users; us.seq[u] == n && us.cur[u] >= 0 {
		a.userNext(u)
	}
}

// userNext is user u done with its request: it thinks, then sends the next.
func (a *arm) userNext(u int32) {
	us := a.users
	delete(us.waiting, us.cur[u])
	us.cur[u] = -1
	us.seq[u]++
	a.thinkThen(u)
}
