package incident

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/packet"
)

// ledgerPacket records a 10-tick replay of one arm, baseline, whose binding constraint is
// none for 0–3 s, the payment-risk pool for 3–5 s, the checkout queue for 5–8 s and none
// again (named is false: an arm that names no constraint, as a live run's).
func ledgerPacket(named bool) *packet.Packet {
	r := packet.NewRecorder(packet.Config{Arm: "baseline", Start: time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC),
		Tick: time.Second, Duration: 10 * time.Second, Classes: []string{"checkout"}, Layers: []string{"edge"}})
	for tick := range 10 {
		at := time.Duration(tick) * time.Second
		c := "none"
		switch {
		case tick >= 3 && tick < 5:
			c = "pool:checkout->payment-risk"
		case tick >= 5 && tick < 8:
			c = "queue:checkout"
		}
		if !named {
			c = ""
		}
		r.Offered(at, "checkout")
		r.Admitted(at, "checkout")
		r.Attempt(at, "edge")
		r.Terminal(at+time.Millisecond, "checkout", packet.Goodput, time.Millisecond)
		r.Sample(at, packet.Sample{QueueAgeMax: time.Millisecond, Constraint: c})
	}
	a := r.Finish(nil)
	return &packet.Packet{Scenario: "ledger", Seed: 1, Arms: []packet.Arm{a}}
}

// ledgerDir copies testdata/ledger/ledger.incident.yaml, changed by edit, into a new
// directory beside the packet p (none for nil) and returns the document's path.
func ledgerDir(t *testing.T, p *packet.Packet, edit func(string) string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "ledger", "ledger.incident.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if p != nil {
		if err := p.WriteDir(filepath.Join(dir, "packet")); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "ledger.incident.yaml")
	if err := os.WriteFile(path, []byte(edit(string(src))), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestConstraintLedgerReplay checks the ledger's rows against the linked replay: the row
// naming the pool where the replay names the queue is reported at its constraint, with
// what the replay names; the rows that agree are not.
func TestConstraintLedgerReplay(t *testing.T) {
	doc, err := Load(ledgerDir(t, ledgerPacket(true), func(s string) string { return s }))
	if err != nil {
		t.Fatal(err)
	}
	var errs []Diagnostic
	for _, d := range Check(doc) {
		if d.Severity == Error {
			errs = append(errs, d)
		}
	}
	if len(errs) != 1 {
		t.Fatalf("want one error, the third row's; got:%s", dump(errs))
	}
	d := errs[0]
	want := "constraints[2].replay.constraint: the replay's baseline arm names pool:checkout->payment-risk for 0 of its 3 ticks from 5s to 8s, not most of them; it names queue:checkout 3"
	if d.Message != want {
		t.Errorf("message %q\nwant    %q", d.Message, want)
	}
	if d.Line != 21 {
		t.Errorf("reported at line %d; want 21, the third row's replay", d.Line)
	}
}

// TestConstraintLedgerReplayCases covers the rows' own errors and a replay that cannot
// check them.
func TestConstraintLedgerReplayCases(t *testing.T) {
	fixed := func(s string) string {
		return strings.Replace(s, `from: 5s, to: 8s, constraint: "pool:checkout->payment-risk"`, `from: 5s, to: 8s, constraint: "queue:checkout"`, 1)
	}
	for _, tc := range []struct {
		name string
		p    *packet.Packet
		edit func(string) string
		want string // a message's text; "" for none at all
		sev  Severity
	}{
		{name: "all rows agree", p: ledgerPacket(true), edit: fixed},
		{name: "most, not all, ticks", p: ledgerPacket(true), edit: func(s string) string {
			return strings.Replace(fixed(s), "from: 3s, to: 5s", "from: 2s, to: 5s", 1)
		}},
		{name: "half the ticks", p: ledgerPacket(true), edit: func(s string) string {
			return strings.Replace(fixed(s), "from: 3s, to: 5s", "from: 1s, to: 5s", 1)
		}, want: "constraints[1].replay.constraint: the replay's baseline arm names pool:checkout->payment-risk for 2 of its 4 ticks from 1s to 5s", sev: Error},
		{name: "unknown arm", p: ledgerPacket(true), edit: func(s string) string {
			return strings.Replace(fixed(s), "arm: baseline, from: 0s", "arm: protected, from: 0s", 1)
		}, want: `constraints[0].replay.arm: "protected" is not an arm of`, sev: Error},
		{name: "bad duration", p: ledgerPacket(true), edit: func(s string) string {
			return strings.Replace(fixed(s), "from: 0s", "from: soon", 1)
		}, want: `constraints[0].replay.from: "soon" is not a duration`, sev: Error},
		{name: "empty interval", p: ledgerPacket(true), edit: func(s string) string {
			return strings.Replace(fixed(s), "from: 3s, to: 5s", "from: 5s, to: 5s", 1)
		}, want: "constraints[1].replay.to: 5s is not after from (5s)", sev: Error},
		{name: "missing constraint", p: ledgerPacket(true), edit: func(s string) string {
			return strings.Replace(fixed(s), ", constraint: none}", "}", 1)
		}, want: "constraints[0].replay.constraint: missing", sev: Error},
		{name: "outside the replay", p: ledgerPacket(true), edit: func(s string) string {
			return strings.Replace(fixed(s), "from: 0s, to: 3s", "from: 1h, to: 2h", 1)
		}, want: "constraints[0].replay: arm baseline has no sampled tick from 1h0m0s to 2h0m0s", sev: Error},
		{name: "no constraint column", p: ledgerPacket(false), edit: fixed,
			want: "arm baseline names no binding constraint", sev: Error},
		{name: "no packet yet", edit: fixed, want: "constraint-ledger rows not checked", sev: Warning},
		{name: "no replay link", p: ledgerPacket(true), edit: func(s string) string {
			return s[:strings.Index(s, "replay:\n  scenario")]
		}, want: "the document links no replay packet", sev: Warning},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := Load(ledgerDir(t, tc.p, tc.edit))
			if err != nil {
				t.Fatal(err)
			}
			var found bool
			for _, d := range Check(doc) {
				switch {
				case tc.want != "" && strings.Contains(d.Message, tc.want) && d.Severity == tc.sev:
					found = true
				case d.Severity == Error:
					t.Errorf("unexpected error: %s", d)
				}
			}
			if tc.want != "" && !found {
				t.Errorf("no %v containing %q", tc.sev, tc.want)
			}
		})
	}
}
