package scenario

import (
	"fmt"
	"strings"
)

// Users is a closed-loop client population: each of Count users sends a request of
// Class, waits for its answer (a success, a failure, a refusal, its deadline, or
// AbandonAfter, whichever comes first), thinks for a draw of Think, and sends the next.
// Each user's first request also waits one think time, so the population starts spread
// out. Offered load therefore falls when latency rises: what open-loop load shows and
// closed-loop load hides. The think draws come from the seeded streams, keyed by user and
// request number; but as each arm answers at its own pace, arms with users do not share
// offered load (the report's events say so). For example
//
//	users: [{name: shoppers, count: 500, class: checkout, think: {mean: 2s}, abandon_after: 5s}]
type Users struct {
	// Name names the population (in draws and reports). Unique among the users.
	Name string `yaml:"name" json:"name"`
	// Count is how many users there are: 1 to 1,000,000 (over all populations).
	Count int `yaml:"count" json:"count"`
	// Class names the class of every request the users send.
	Class string `yaml:"class" json:"class"`
	// Think is the think time between an answer and the next request, e.g. {mean: 2s}
	// (exponential), {constant: 1s} or {p50: 1s, p99: 8s}. Required.
	Think Dist `yaml:"think" json:"think"`
	// AbandonAfter is how long a user waits for an answer before it stops waiting,
	// thinks and sends its next request (the abandoned request runs on to its own end).
	// Zero (the default) waits for the answer.
	AbandonAfter Duration `yaml:"abandon_after,omitempty" json:"abandon_after,omitempty,omitzero"`
}

// maxUsers is the most users a scenario may declare, over all populations.
const maxUsers = 1_000_000

func (v *validator) users() {
	classes := map[string]bool{}
	for _, c := range v.s.Classes {
		classes[c.Name] = true
	}
	seen := map[string]bool{}
	total := 0
	for i, u := range v.s.Load.Users {
		p := fmt.Sprintf("$.load.users[%d]", i)
		switch {
		case strings.TrimSpace(u.Name) == "":
			v.addf(p+".name", "name is empty; expected a name for the users, e.g. shoppers")
		case seen[u.Name]:
			v.addf(p+".name", "users %q are declared twice; expected unique names", u.Name)
		}
		seen[u.Name] = true
		if u.Count <= 0 || u.Count > maxUsers {
			v.addf(p+".count", "count is %d; expected 1 to %d users", u.Count, maxUsers)
		} else if total += u.Count; total > maxUsers {
			v.addf(p+".count", "count %d brings the users to %d; expected at most %d users in all", u.Count, total, maxUsers)
		}
		switch {
		case u.Class == "":
			v.addf(p+".class", "class is empty; expected the class of the users' requests")
		case !classes[u.Class]:
			v.addf(p+".class", "unknown class %q; expected one of the scenario's classes", u.Class)
		}
		v.errs.Merge(p+".think", u.Think.Validate())
		if u.AbandonAfter < 0 {
			v.addf(p+".abandon_after", "abandon_after is %s; expected zero (wait for the answer) or more", u.AbandonAfter)
		}
	}
}
