package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/scenario"
)

// retryJob is a keyed payment dependency that slows past its caller's 500ms timeout
// from 10s to 20s: the callers give up, and the calls run on as orphans that authorise the
// payments (ambiguous outcomes). A retry job replays the failed checkouts at 30s (%s is
// the jobs section), in an arm with identity and one without. The entry retries once, so
// the provider's ledger has each keyed payment recorded before the job comes.
const retryJob = `
name: retry-job
clock: {duration: 60s, tick: 1s}
load:
  arrivals: uniform
  schedule: [{at: 0s, rate: 50/s}]
classes:
  - name: checkout
    share: 100%%
    deadline: 2s
    stages:
      - {name: pay, dependency: provider, mutation: payment_authorization}
topology:
  entries:
    - {name: clients, target: api, retries: {max: 1}}
  services:
    - {name: api, instances: 2, workers: 200}
  dependencies:
    - {name: provider, service_time: {p50: 10ms, p99: 20ms}, timeout: 500ms, keyed: true}
faults:
  - {at: 10s, for: 10s, dependency: provider, service_time: {p50: 1s, p99: 2s}}
arms:
  - {name: keyed, policy: {identity: true}}
  - {name: unkeyed, policy: {}}
%s`

const retryJobs = `jobs:
  - {name: retry, kind: retry_failed, class: checkout, at: 30s, rate: 100/s}
`

func failedOf(c packet.ClassStats) int64 { return c.Failed + c.Expired + c.Ambiguous + c.Rejected }

// TestRetryJobReplaysFailed: the job re-submits exactly the checkouts that failed before
// it, recovers them once the provider is well again, leaves the offered load and the
// class's figures as they were without it, and charges no payment twice where the
// provider deduplicates by identity — while without identity each one an orphan had
// authorised is charged again.
func TestRetryJobReplaysFailed(t *testing.T) {
	without := fates(t, decode(t, fmt.Sprintf(retryJob, "")), 1)
	with := fates(t, decode(t, fmt.Sprintf(retryJob, retryJobs)), 1)
	for i, a := range with.Arms {
		b := without.Arms[i]
		if len(b.Jobs) != 0 {
			t.Errorf("%s: jobs %+v without any declared", b.Name, b.Jobs)
		}
		if len(a.Jobs) != 1 {
			t.Fatalf("%s: jobs %+v; want the one declared", a.Name, a.Jobs)
		}
		j := a.Jobs[0]
		failed := failedOf(b.Classes[0])
		if failed < 300 || b.Classes[0].Ambiguous < 300 {
			t.Fatalf("%s: %d failed, %d ambiguous; want the slowdown to fail hundreds of checkouts", b.Name, failed, b.Classes[0].Ambiguous)
		}
		if j.Name != "retry" || j.Replayed != failed || j.Unsent != 0 {
			t.Errorf("%s: job %+v; want all %d failed checkouts replayed", a.Name, j, failed)
		}
		if j.Recovered+j.Late+j.Failed != j.Replayed || j.Recovered < j.Replayed*95/100 {
			t.Errorf("%s: job %+v; want nearly all recovered", a.Name, j)
		}
		// The job's attempts load the topology (entry, service and provider: three per
		// replay); nothing else of the totals moves.
		ta, tb := a.Totals, b.Totals
		if ta.Attempts != tb.Attempts+3*j.Replayed {
			t.Errorf("%s: %d attempts with the job, %d without; want 3 more per replay (none is retried)", a.Name, ta.Attempts, tb.Attempts)
		}
		ta.Attempts, tb.Attempts = 0, 0
		if ta != tb || a.Classes[0].Goodput != b.Classes[0].Goodput {
			t.Errorf("%s: totals %+v with the job, %+v without; want the job outside the class's figures", a.Name, ta, tb)
		}
	}
	keyed, unkeyed := with.Arms[0], with.Arms[1]
	if d := keyed.Duplicates.PaymentAuthorizations; d != 0 {
		t.Errorf("keyed: %d payments charged twice; want none: the provider deduplicates the job's by identity", d)
	}
	base := without.Arms[1].Duplicates.PaymentAuthorizations
	if d := unkeyed.Duplicates.PaymentAuthorizations; d < base+without.Arms[1].Classes[0].Ambiguous*9/10 {
		t.Errorf("unkeyed: %d duplicates (%d without the job); want every payment an orphan authorised charged again", d, base)
	}
}

// TestRetryJobArmsAndEnd: a job runs only in the arms it names, and what it cannot send
// before the end of the run is counted unsent.
func TestRetryJobArmsAndEnd(t *testing.T) {
	jobs := `jobs:
  - {name: late, kind: retry_failed, class: checkout, at: 58s, rate: 10/s, arms: [keyed]}
`
	pk := fates(t, decode(t, fmt.Sprintf(retryJob, jobs)), 1)
	keyed, unkeyed := pk.Arms[0], pk.Arms[1]
	if len(unkeyed.Jobs) != 0 {
		t.Errorf("unkeyed: jobs %+v; want none (the job names keyed only)", unkeyed.Jobs)
	}
	if len(keyed.Jobs) != 1 {
		t.Fatalf("keyed: jobs %+v; want one", keyed.Jobs)
	}
	j := keyed.Jobs[0]
	if j.Replayed != 20 || j.Unsent != failedOf(keyed.Classes[0])-20 {
		t.Errorf("keyed: job %+v; want 20 sent in the last 2s at 10/s and the rest unsent", j)
	}
	var buf strings.Builder
	for _, e := range keyed.Events {
		if e.Kind == "job" {
			buf.WriteString(e.Text + "\n")
		}
	}
	if !strings.Contains(buf.String(), "late: re-submits") || !strings.Contains(buf.String(), "left unsent") {
		t.Errorf("job events %q; want its start and what it left unsent", buf.String())
	}
}

// jobSeeds are inputs of addPoolAcquireAndJob: a dependency, its acquire timeout, the job's
// class, instant and rate, and whether it runs in one arm.
var jobSeeds = [][]byte{
	{0, 10, 0, 100, 200, 0},
	{0, 255, 0, 0, 20, 1},
	{0, 1, 0, 254, 1, 0},
}

// TestFuzzAddsPoolAcquireAndJob: each job seed adds an acquire timeout and a retry job to
// a scenario that stays valid and replays under FuzzReplay's checks (conservation, one
// terminal state, determinism, the estimate's bounds).
func TestFuzzAddsPoolAcquireAndJob(t *testing.T) {
	for i, in := range jobSeeds {
		sc := minimalScenario()
		sc.Topology.Dependencies = []scenario.Dependency{{
			Name: "d0", ServiceTime: scenario.Quantiles{P50: scenario.Duration(5 * time.Millisecond), P99: scenario.Duration(40 * time.Millisecond)},
			HangRate: 0.3, Timeout: scenario.Duration(100 * time.Millisecond), Keyed: true,
		}}
		sc.Classes[0].Stages = append(sc.Classes[0].Stages, scenario.Stage{Name: "call", Dependency: "d0", Mutation: scenario.MutationPaymentAuthorization})
		before, err := json.Marshal(sc)
		if err != nil {
			t.Fatal(err)
		}
		addPoolAcquireAndJob(sc, &fuzzBytes{b: in})
		after, err := json.Marshal(sc)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(before, after) || len(sc.Jobs) != 1 || sc.Topology.Dependencies[0].Pool.AcquireTimeout == 0 {
			t.Errorf("seed %d: %s; want an acquire timeout and a job", i, after)
			continue
		}
		if err := sc.Validate(); err != nil {
			t.Errorf("seed %d: %v", i, err)
			continue
		}
		checkReplay(t, sc, 1)
	}
}
