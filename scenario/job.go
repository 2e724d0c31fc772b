package scenario

import (
	"fmt"
	"slices"
	"strings"
)

// Job kinds.
const (
	// JobRetryFailed re-submits the failed requests of a class by their identity.
	JobRetryFailed = "retry_failed"
)

// maxJobs bounds the jobs of a scenario (the model tells a job's requests apart by it).
const maxJobs = 16

// Job is an operator's job that runs at an instant of the run, in every arm or in the arms
// it names. Kind retry_failed is a retry job, as the one an on-call engineer runs after a
// mitigation: at At it takes every request of Class whose terminal state was recorded
// before At as failed, expired (timed out), rejected (at admission, or by a paused or
// rate-limited entry) or ambiguous (the caller gave up but a mutation may have taken
// effect) — not the late successes, which the caller had — and re-submits each, in the
// order they ended, through the class's entry at Rate (evenly spaced, open loop), with
// the class's deadline from its send. Each re-submission carries the request's logical
// identity and key, so a keyed dependency under a policy with identity answers a mutation
// the first request already made from its idempotency record instead of making it again
// (a payment an orphaned call authorised is not charged twice); without identity it is
// applied again and counted as a duplicate. Admission does not apply to it: the job's
// requests are not offered load: their outcomes are not counted in the class's figures,
// the series' offered and goodput or the alerts' answers (the arms' offered load stays
// identical), while their attempts and calls load the topology and are counted wherever
// attempts are (the layers, amplification, the dependencies). Re-submissions not sent before the end of the clock are
// counted unsent. Each arm of packet.json reports, per job, how many were replayed and how
// many of those were recovered (goodput), late or failed (any other terminal state).
//
// E.g. {name: retry failed checkouts, kind: retry_failed, class: checkout, at: 4h1m,
// rate: 20/s}.
type Job struct {
	// Name names the job in packet.json and on the timeline; names are unique.
	Name string `yaml:"name" json:"name"`
	// Kind is what the job does: retry_failed.
	Kind string `yaml:"kind" json:"kind" jsonschema:"enum=retry_failed"`
	// Class names the class whose failed requests the job re-submits.
	Class string `yaml:"class" json:"class"`
	// At is when the job starts, from the start of the run; inside the run.
	At Duration `yaml:"at" json:"at"`
	// Rate is how fast the job re-submits, e.g. 20/s; more than zero.
	Rate Rate `yaml:"rate" json:"rate"`
	// Arms names the arms the job runs in; empty means every arm.
	Arms []string `yaml:"arms,omitempty" json:"arms,omitempty,omitzero"`
}

// AppliesTo reports whether the job runs in the named arm.
func (j Job) AppliesTo(arm string) bool { return len(j.Arms) == 0 || slices.Contains(j.Arms, arm) }

// jobs checks the scenario's jobs.
func (v *validator) jobs() {
	js := v.s.Jobs
	if len(js) > maxJobs {
		v.addf("$.jobs", "%d jobs; expected at most %d", len(js), maxJobs)
	}
	seen := map[string]bool{}
	arms := map[string]bool{}
	for _, a := range v.s.Arms {
		arms[a.Name] = true
	}
	for i, j := range js {
		p := fmt.Sprintf("$.jobs[%d]", i)
		switch {
		case strings.TrimSpace(j.Name) == "":
			v.addf(p+".name", "name is empty; expected a name, e.g. retry failed checkouts")
		case seen[j.Name]:
			v.addf(p+".name", "job %q appears twice; expected unique job names (packet.json reports each by name)", j.Name)
		}
		seen[j.Name] = true
		if j.Kind != JobRetryFailed {
			v.addf(p+".kind", "unknown job kind %q; expected %s", j.Kind, JobRetryFailed)
		}
		if !slices.ContainsFunc(v.s.Classes, func(c Class) bool { return c.Name == j.Class }) {
			v.addf(p+".class", "class %q is not declared; expected one of %s", j.Class, quoteList(classNames(v.s)))
		}
		switch {
		case j.At < 0:
			v.addf(p+".at", "at is %s; expected an instant inside the run", j.At)
		case v.end > 0 && j.At.Std() >= v.end:
			v.addf(p+".at", "at %s is at or after the end of the run (%s); expected an instant inside the run", j.At, Duration(v.end))
		}
		switch r := j.Rate.PerSecond(); {
		case !(r > 0):
			v.addf(p+".rate", "rate is %s; expected more than 0/s, e.g. 20/s", j.Rate)
		case r > 1e7:
			v.addf(p+".rate", "rate is %s; expected at most 10,000,000/s", j.Rate)
		}
		named := map[string]bool{}
		for k, name := range j.Arms {
			ap := fmt.Sprintf("%s.arms[%d]", p, k)
			switch {
			case !arms[name]:
				v.addf(ap, "arm %q is not declared; expected one of %s", name, quoteList(armNames(v.s)))
			case named[name]:
				v.addf(ap, "arm %q is named twice; expected each arm once", name)
			}
			named[name] = true
		}
	}
}

func classNames(s *Scenario) []string {
	var out []string
	for _, c := range s.Classes {
		out = append(out, c.Name)
	}
	return out
}
