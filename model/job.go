package model

import (
	"fmt"
	"math"
	"time"

	"github.com/goodput-lab/goodput/internal/floatdur"
	"github.com/goodput-lab/goodput/internal/numfmt"
	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
)

// Jobs (scenario.Job). A retry_failed job collects, until its instant, the requests of its
// class whose terminal state was recorded as failed, expired, rejected or ambiguous, with
// the mutations each had applied; at its instant it re-submits them, in the order they
// ended, one every 1/rate, each as a new logical request of the same identity: its id
// carries the job's number above jobShift, so that its draws (service times, hangs,
// errors, routing) are its own, while its identity (the ledger's key) and its key (the
// caches') are the first request's. It starts with the first request's mutations and
// ledger records, so a keyed dependency under identity answers a repeat from its record,
// and without identity a repeat counts as a duplicate. A job's requests are not offered
// load: they skip admission and their outcomes are counted in the job's figures only (not
// the class's, the series' goodput, the alerts' answers or the hooks'), while their attempts
// and calls load the topology and are counted as any other's.

// jobShift is where a job request's id carries its job's number plus one (at most
// scenario's 16 jobs); the identity is the bits below.
const jobShift = 56

// identityOf is the logical identity of request id: a job request's is the first
// request's.
func identityOf(id int64) int64 { return id & (1<<jobShift - 1) }

// jobOf is the job that sent request lg, or -1 for a request of the offered load.
func jobOf(lg *logical) int { return int(lg.id>>jobShift) - 1 }

// jobPlan is a job, compiled.
type jobPlan struct {
	name  string
	class int
	at    time.Duration
	rate  float64 // re-submissions per second
	arms  func(string) bool
}

// compileJobs compiles the scenario's jobs into p.
func (p *plan) compileJobs(sc *scenario.Scenario) {
	for _, j := range sc.Jobs {
		ci := 0
		for i, c := range sc.Classes {
			if c.Name == j.Class {
				ci = i
			}
		}
		p.jobs = append(p.jobs, jobPlan{name: j.Name, class: ci, at: j.At.Std(), rate: j.Rate.PerSecond(), arms: j.AppliesTo})
	}
}

// jobItem is one request a job will re-submit: its identity and the mutations it made.
type jobItem struct {
	id       int64
	class    int // the class the request ran as: with cells, its cell's copy
	execs    [numMut]uint8
	recorded [numMut]bool
}

// jobRun is a job's state in an arm.
type jobRun struct {
	on      bool // the job runs in this arm
	started bool
	items   []jobItem // what it collected, then re-submits
	out     packet.Job
}

// jobsRT is the jobs' state in an arm; nil when none runs in it.
type jobsRT struct {
	runs []jobRun // by plan.jobs
}

// newJobs is the state of the plan's jobs in the named arm: nil if none runs in it.
func newJobs(p *plan, arm string) *jobsRT {
	var js *jobsRT
	for k, j := range p.jobs {
		if !j.arms(arm) {
			continue
		}
		if js == nil {
			js = &jobsRT{runs: make([]jobRun, len(p.jobs))}
		}
		js.runs[k].on = true
		js.runs[k].out.Name = j.name
	}
	return js
}

// jobEvent is the ID of job k's event n: 0 starts it, i+1 sends its item i.
func jobEvent(k, n int) int64 { return int64(k)<<40 | int64(n) }

// beginJobs schedules the start of every job of the arm.
func (a *arm) beginJobs() {
	if a.jobs == nil {
		return
	}
	for k := range a.jobs.runs {
		if a.jobs.runs[k].on {
			a.s.ScheduleAt(a.p.jobs[k].at, a, evJob, jobEvent(k, 0))
		}
	}
}

// jobCounts reports whether a terminal outcome is one a retry job re-submits (as are
// requests rejected at the door, which have none).
func jobCounts(out packet.Outcome) bool {
	switch out {
	case packet.Failed, packet.Expired, packet.Ambiguous:
		return true
	}
	return false
}

// jobCollect gives request id of class ci, failed (lg nil for one rejected at the door),
// to the jobs not yet started.
func (a *arm) jobCollect(ci int, id int64, lg *logical) {
	for k := range a.jobs.runs {
		r := &a.jobs.runs[k]
		if !r.on || r.started || a.p.jobs[k].class != ci%a.p.nClasses {
			continue
		}
		it := jobItem{id: id, class: ci}
		if lg != nil {
			it.execs, it.recorded = lg.execs, lg.recorded
		}
		r.items = append(r.items, it)
	}
}

// jobOutcome records the terminal state of job request lg in its job's figures.
func (a *arm) jobOutcome(lg *logical, out packet.Outcome) {
	o := &a.jobs.runs[jobOf(lg)].out
	switch out {
	case packet.Goodput:
		o.Recovered++
	case packet.Late:
		o.Late++
	default:
		o.Failed++
	}
}

// jobFire is job event id (jobEvent): the start of a job or one of its re-submissions.
func (a *arm) jobFire(id int64) {
	k, n := int(id>>40), int(id&(1<<40-1))
	r := &a.jobs.runs[k]
	jp := &a.p.jobs[k]
	now := a.now()
	if n == 0 {
		r.started = true
		a.rec.Annotate(now, "job", fmt.Sprintf("%s: re-submits %d failed %s requests at %s/s", jp.name, len(r.items), a.p.classes[jp.class].name, numfmt.Plain(jp.rate)))
		if len(r.items) == 0 {
			return
		}
	} else {
		it := &r.items[n-1]
		a.jobSend(k, it.class, it)
		r.out.Replayed++
	}
	if n == len(r.items) {
		r.items = nil
		return
	}
	// The next one, on the job's own clock: item i is sent i/rate after its start.
	next := jp.at + floatdur.Trunc(math.Min(float64(n)/jp.rate*float64(time.Second), float64(floatdur.Max)))
	if next >= a.p.duration {
		r.out.Unsent = int64(len(r.items) - n)
		a.rec.Annotate(now, "job", fmt.Sprintf("%s: %d re-submissions left unsent at the end of the run", jp.name, r.out.Unsent))
		r.items = nil
		return
	}
	a.s.ScheduleAt(next, a, evJob, jobEvent(k, n+1))
}

// jobSend sends item it of job k again, as a request of class ci.
func (a *arm) jobSend(k, ci int, it *jobItem) {
	li, lg := a.newRequest(a.now(), ci, it.id|int64(k+1)<<jobShift)
	lg.execs, lg.recorded = it.execs, it.recorded
	a.sendAttempt(li, lg)
}

// jobResults are the arm's jobs for packet.json, in the scenario's order (nil without).
func (a *arm) jobResults() []packet.Job {
	if a.jobs == nil {
		return nil
	}
	var out []packet.Job
	for _, r := range a.jobs.runs {
		if r.on {
			out = append(out, r.out)
		}
	}
	return out
}
