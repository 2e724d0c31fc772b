package scenario

import (
	"strings"
	"testing"
)

// jobBase is validBase with a retry job; TestJobErrors replaces a part of it.
const jobBase = validBase + `jobs:
  - {name: retry, kind: retry_failed, class: buy, at: 40s, rate: 20/s, arms: [protected]}
`

func TestJobAccepted(t *testing.T) {
	sc, err := Decode("job.yaml", []byte(jobBase))
	if err != nil {
		t.Fatalf("job scenario rejected:\n%v", err)
	}
	j := sc.Jobs[0]
	if j.Kind != JobRetryFailed || j.Class != "buy" || j.Rate.PerSecond() != 20 || !j.AppliesTo("protected") || j.AppliesTo("baseline") {
		t.Errorf("job decoded as %+v", j)
	}
}

// TestJobErrors: each bad field of a job is reported at its file position with what is
// expected.
func TestJobErrors(t *testing.T) {
	for _, tc := range []struct {
		old, new, want string
	}{
		{"name: retry,", "name: ' ',", "job.yaml:59:12: jobs[0].name: name is empty"},
		{"kind: retry_failed", "kind: replay", `job.yaml:59:25: jobs[0].kind: unknown job kind "replay"; expected retry_failed`},
		{"class: buy, at", "class: sell, at", `job.yaml:59:46: jobs[0].class: class "sell" is not declared; expected one of "buy", "look"`},
		{"at: 40s, rate", "at: 1m, rate", "job.yaml:59:55: jobs[0].at: at 1m is at or after the end of the run (1m)"},
		{"rate: 20/s", "rate: 0/s", "job.yaml:59:66: jobs[0].rate: rate is 0/s; expected more than 0/s"},
		{"arms: [protected]", "arms: [protect]", `job.yaml:59:79: jobs[0].arms[0]: arm "protect" is not declared`},
		{"arms: [protected]}\n", "arms: [protected]}\n  - {name: retry, kind: retry_failed, class: buy, at: 40s, rate: 20/s}\n", `job.yaml:60:12: jobs[1].name: job "retry" appears twice`},
		{"  - name: protected\n", "  - name: protected\n    set: {jobs.0.rate: 10/s}\n", `arm "protected" may not set jobs.0.rate: jobs are the scenario's timeline`},
	} {
		src := strings.Replace(jobBase, tc.old, tc.new, 1)
		if src == jobBase {
			t.Fatalf("%q not found", tc.old)
		}
		_, err := Decode("job.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s → %s: got\n%v\nwant %q", tc.old, tc.new, err, tc.want)
		}
	}
}
