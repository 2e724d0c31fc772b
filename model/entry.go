package model

// The entry. It sends a logical request as attempts to its target service, each with its
// own timeout (the time left before the deadline, if that is shorter and deadlines are
// propagated), takes the answer of the attempt it waits for, and after a failure retries
// or gives up as its retry plan and the policy decide (retry.go). An attempt it stopped
// waiting for runs on as an orphan, unless the policy cancels it.

// sendAttempt sends a new attempt of logical li (lg) to the entry's target service.
func (a *arm) sendAttempt(li int32, lg *logical) {
	now := a.now()
	ep := &a.p.entries[lg.entry]
	lg.attempts++
	a.hs.entry[lg.entry].Attempt(now)
	a.tk.attempts++
	a.tk.edgeAttempts++
	if lg.attempts > 1 {
		a.hs.entry[lg.entry].Retry(now)
	}
	ai, at := a.sl.newAttempt(li)
	at.lg = li
	at.num = lg.attempts
	lg.cur = ai
	lg.live++
	timeout := ep.timeout
	if a.pol.propagate {
		left := a.deadline(lg) - now
		if timeout == 0 || left < timeout {
			timeout = left
		}
	}
	if timeout > 0 {
		at.tpos = a.after(a.tqEntry+int(lg.entry), timeout, ref(ai, at.gen))
	}
	a.route(ai, at, lg, ep.target)
}

func (a *arm) entryTimeout(id int64) {
	ai, gen := unref(id)
	at := a.sl.att(ai)
	if at.gen != gen {
		return
	}
	lg := a.sl.lg(at.lg)
	if lg.cur != ai || lg.state != lgActive {
		return
	}
	a.tk.edgeTimeouts++
	lg.cur = -1
	li := at.lg
	if a.pol.cancel {
		a.cancelAttempt(ai)
	} else {
		at.abandoned = true
	}
	if a.pol.propagate && a.now() >= a.deadline(lg) {
		a.giveUp(li, causeExpired)
	} else {
		a.entryRetry(li, causeTimeout)
	}
	a.settle(li, lg)
}

// freeAttempt frees attempt ai (at) of request lg and marks its entry timeout, if still
// queued, dead.
func (a *arm) freeAttempt(ai int32, at *attempt, lg *logical) {
	if at.tpos != 0 {
		a.tqs[a.tqEntry+int(lg.entry)].kill(at.tpos, ref(ai, at.gen))
	}
	a.sl.freeAttempt(ai, at, lg)
}

// respond delivers the result of finished attempt ai (at) of request lg to its entry.
func (a *arm) respond(ai int32, at *attempt, lg *logical) {
	li := at.lg
	res := at.result
	deliver := !at.abandoned && lg.cur == ai && lg.state == lgActive
	if !deliver && res == causeNone {
		a.hs.svc[a.insts[at.inst].svc].Orphan(a.now())
	}
	a.freeAttempt(ai, at, lg)
	lg.live--
	if deliver {
		lg.cur = -1
		if res == causeNone {
			a.succeed(lg)
		} else {
			a.entryRetry(li, res)
		}
	}
	a.settle(li, lg)
}

// entryRetry decides, after the attempt the entry waited for failed with c, whether the
// entry retries or gives up.
func (a *arm) entryRetry(li int32, c cause) {
	lg := a.sl.lg(li)
	ep := &a.p.entries[lg.entry]
	cp := &a.p.classes[lg.class]
	backoff, ok := a.retry(a.retryRule(&ep.retries), retryAsk{
		cause:      c,
		retries:    int(lg.attempts) - 1,
		left:       a.deadline(lg) - a.now(),
		takes:      a.tryTakes(cp),
		idempotent: cp.idempotent,
		u:          a.jitter(&ep.retries, lg, lg.attempts, 0, 0),
	})
	if !ok {
		a.giveUp(li, c)
		return
	}
	if backoff > 0 {
		a.schedule(backoff, evEntryRetry, ref(li, lg.gen))
		return
	}
	a.sendAttempt(li, lg)
}

func (a *arm) entryRetryFire(id int64) {
	li, gen := unref(id)
	lg := a.sl.lg(li)
	if lg.gen != gen || lg.state != lgActive {
		return
	}
	a.sendAttempt(li, lg)
}
