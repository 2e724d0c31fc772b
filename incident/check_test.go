package incident

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

const exampleDir = "../examples/incidents"

var examples = []string{"payment-timeout", "router-limit", "northstar"}

func dump(diags []Diagnostic) string {
	var b strings.Builder
	for _, d := range diags {
		b.WriteString("\n\t" + d.String())
	}
	return b.String()
}

// TestExamplesPass checks the three example documents: no errors; the only warnings
// allowed are the Northstar replay's scenario and packet that another step produces.
func TestExamplesPass(t *testing.T) {
	for _, name := range examples {
		t.Run(name, func(t *testing.T) {
			doc, err := Load(filepath.Join(exampleDir, name+".incident.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			diags := Check(doc)
			if HasErrors(diags) {
				t.Fatalf("errors:%s", dump(diags))
			}
			for _, d := range diags {
				if !strings.Contains(d.Message, "replay.packet: ") && !strings.Contains(d.Message, "replay.scenario: ") {
					t.Errorf("unexpected warning: %s", d)
				}
			}
		})
	}
}

// positionOf returns the 1-based line and column (in characters) where sub first occurs
// in src. It fails the test when sub does not occur exactly once.
func positionOf(t *testing.T, src, sub string) (int, int) {
	t.Helper()
	i := strings.Index(src, sub)
	if i < 0 {
		t.Fatalf("%q does not occur in the mutated document", sub)
	}
	if strings.Count(src, sub) != 1 {
		t.Fatalf("%q occurs %d times in the mutated document; make it unique", sub, strings.Count(src, sub))
	}
	line := strings.Count(src[:i], "\n") + 1
	start := strings.LastIndex(src[:i], "\n") + 1
	return line, utf8.RuneCountInString(src[start:i]) + 1
}

// mutation is a change to an example and the diagnostic it must produce.
type mutation struct {
	name     string
	example  string
	from, to string // a replacement in the YAML (from must occur)
	csvFrom  string // a replacement in the series CSV
	csvTo    string
	at       string // text of the mutated YAML at whose start the diagnostic must be
	sev      Severity
	msg      string // a substring of the diagnostic's message
}

var mutations = []mutation{
	{
		name: "shifted milestone", example: "payment-timeout",
		from: "    at: 2026-09-12T09:47:00Z\n    source", to: "    at: 2026-09-12T09:10:00Z\n    source",
		at:  "2026-09-12T09:10:00Z",
		msg: "milestones[3].at: detected (09:10 UTC) is earlier than impact_start (09:14 UTC, line ",
	},
	{
		name: "timeline entry off its milestone", example: "payment-timeout",
		from: "  - at: 2026-09-12T09:47:00Z\n    phase: detected", to: "  - at: 2026-09-12T09:49:00Z\n    phase: detected",
		at:  "2026-09-12T09:49:00Z",
		msg: "timeline[2].at: the entry tagged detected is at 09:49 UTC but milestone detected is at 09:47 UTC",
	},
	{
		name: "wrong stated duration", example: "payment-timeout",
		from: "It cost 72\n      minutes", to: "It cost 62\n      minutes",
		at:  "62\n      minutes",
		msg: `factors[2].text: stated "62 minutes" disagrees with the data: gap:scale_up:identified is 1h 12m (scale_up 10:26 → identified 11:38)`,
	},
	{
		name: "wrong stated duration in words", example: "payment-timeout",
		from: "Thirty-three minutes passed", to: "Thirty-one minutes passed",
		at:  "Thirty-one minutes passed",
		msg: `stated "Thirty-one minutes" disagrees with the data: ttd is 33 min (impact_start 09:14 → detected 09:47)`,
	},
	{
		name: "percentage that disagrees with its counts", example: "payment-timeout",
		from: "{id: recovered, value: 39600,", to: "{id: recovered, value: 35600,",
		at:  "94% within 40 minutes.",
		msg: `went_well[0]: stated "94%" disagrees with the data: pct:recovered:failed_checkouts is 84.96% (recovered / failed_checkouts = 35,600 / 41,900)`,
	},
	{
		name: "percentage edited away from its counts", example: "payment-timeout",
		from: "recovered 94% within", to: "recovered 84% within",
		at:  "84% within",
		msg: `went_well[0]: stated "84%" disagrees with the data: pct:recovered:failed_checkouts is 94.51%`,
	},
	{
		name: "stated peak that is not the series' peak", example: "payment-timeout",
		from: "  peak: 52\n", to: "  peak: 55\n",
		at:  "55\n",
		msg: "series.peak: stated peak 55% is not the series' peak: the maximum of payment-timeout.series.csv is 52% at 11:36 UTC",
	},
	{
		name: "series whose peak moved", example: "payment-timeout",
		csvFrom: "2026-09-12T11:00:00Z,45\n", csvTo: "2026-09-12T11:00:00Z,70\n",
		at:  "52\n  caption",
		msg: "series.peak: stated peak 52% is not the series' peak: the maximum of payment-timeout.series.csv is 70% at 11:00 UTC",
	},
	{
		name: "marker value that disagrees with the series", example: "payment-timeout",
		from: "{milestone: detected, value: 6}", to: "{milestone: detected, value: 9}",
		at:  "9}",
		msg: "series.markers[0].value: stated 9% at detected (09:47 UTC) but payment-timeout.series.csv has 6% there",
	},
	{
		name: "ratio in words that disagrees", example: "payment-timeout",
		from: "caption: nine times", to: "caption: twelve times",
		at:  "twelve times",
		msg: `series.caption: stated "twelve times" disagrees with the data: ratio:peak:series@detected is 8.667× (peak / series@detected = 52% / 6%)`,
	},
	{
		name: "action item without an owner", example: "payment-timeout",
		from: "    owner: Platform\n", to: "",
		at:  "id: AI-3",
		msg: "actions[2].owner: AI-3 has no owner; an action item needs a person or team who owns it",
	},
	{
		name: "action item with an empty owner", example: "payment-timeout",
		from: "    owner: Platform\n", to: "    owner: \"\"\n",
		at:  "\"\"\n",
		msg: "actions[2].owner: AI-3 has no owner",
	},
	{
		name: "done without a done date", example: "payment-timeout",
		from: "    done: 2026-09-18 # done by the review; the page gives no exact date\n", to: "",
		at:  "done\n    validation",
		msg: "actions[0].status: AI-1 is done but has no done date",
	},
	{
		name: "overdue at the review date", example: "payment-timeout",
		from: "    due: 2026-09-26\n", to: "    due: 2026-09-10\n",
		at:  "2026-09-10",
		msg: "actions[1].due: AI-2 is In progress and was due 2026-09-10, before the review on 2026-09-18",
	},
	{
		name: "vague action", example: "payment-timeout",
		from: "action: Rewrite the checkout runbook to diagnose saturation before scaling, pool metrics first.", to: "action: Tune autoscaling",
		at:  "Tune autoscaling",
		msg: `actions[3].action: AI-4 is vague: "Tune autoscaling" names no change that can be verified`,
	},
	{
		name: "validation that is not measurable", example: "payment-timeout",
		from: "    validation: >-\n      Replaying this incident pages on the p99 checkout latency alert within 5 minutes of\n      impact start.\n",
		to:   "    validation: Reviewed by the team and looks good.\n",
		at:   "Reviewed by the team",
		msg:  `actions[0].validation: AI-1's validation evidence "Reviewed by the team and looks good." is not measurable`,
	},
	{
		name: "factor without an action or acceptance", example: "payment-timeout",
		from: "    addresses: [\"03\"]\n", to: "",
		at:  "id: \"03\"",
		msg: "factors[2]: factor 03 (The runbook's first move is the wrong move here) has no action item addressing it and is not accepted",
	},
	{
		name: "unknown placeholder", example: "payment-timeout",
		from: "{{recovered}} of", to: "{{recoverd}} of",
		at:  "{{recoverd}}",
		msg: `tail.description: placeholder {{recoverd}}: unknown name "recoverd"`,
	},
	{
		name: "clock time that is not a recorded instant", example: "payment-timeout",
		from: "six regions by 09:11", to: "six regions by 09:12",
		at:  "09:12",
		msg: "timeline[0].text: clock time 09:12 (UTC) is not a recorded instant",
	},
	{
		name: "claim whose text left the prose", example: "payment-timeout",
		from: "It cost 72\n      minutes and raised", to: "It raised",
		at:  "It cost 72 minutes,",
		msg: `claims[1].text: "It cost 72 minutes" does not occur in the document's prose`,
	},
	{
		name: "public percentage edited", example: "router-limit",
		from: "    55% of the EU Common Runtime applications were", to: "    45% of the EU Common Runtime applications were",
		at:  "45% of the EU Common Runtime applications were",
		msg: `public.who_was_affected: stated "45%" disagrees with the data: apps_affected is 55%`,
	},
	{
		name: "public clock time edited", example: "router-limit",
		from: "At 6:33 UTC, more", to: "At 6:35 UTC, more",
		at:  "6:35 UTC",
		msg: "public.what_happened: clock time 6:35 (UTC) is not a recorded instant",
	},
	{
		name: "arithmetic in the record", example: "northstar",
		from: "produced 14,054.4 modeled", to: "produced 14,504.4 modeled",
		at:  "14,504.4 modeled",
		msg: `record.amplifiers: stated "14,504.4" disagrees with the data: attempt_rate is 14,054.4`,
	},
	{
		name: "decision without a rollback", example: "northstar",
		from: "    rollback: Re-enable automatic failover (restore policy generation 1).\n", to: "",
		at:  "at: 2026-09-15T14:12:00Z\n    generation: 2",
		msg: "decisions[0].rollback: missing",
	},
	{
		name: "constraint ledger out of order", example: "northstar",
		from: "  - at: 2026-09-15T14:09:00Z\n    constraint:", to: "  - at: 2026-09-15T14:01:00Z\n    constraint:",
		at:  "2026-09-15T14:01:00Z",
		msg: "constraints[4].at: 14:01 UTC is earlier than the row before it (14:06 UTC)",
	},
	{
		name: "fraction in words", example: "northstar",
		from: "{id: cold_rate, value: 180,", to: "{id: cold_rate, value: 230,",
		at:  "half its eventual capacity, health",
		msg: `record.amplifiers: stated "half" disagrees with the data: cold_rate / warm_rate is 0.5476`,
	},
}

// TestMutations checks that each mutation of an example fails with the expected
// diagnostic at the line and column of the changed text.
func TestMutations(t *testing.T) {
	for _, m := range mutations {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(filepath.Join(exampleDir, m.example+".incident.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			yaml := string(src)
			if m.from != "" {
				if !strings.Contains(yaml, m.from) {
					t.Fatalf("the example no longer contains %q", m.from)
				}
				yaml = strings.Replace(yaml, m.from, m.to, 1)
			}
			dir := t.TempDir()
			path := filepath.Join(dir, m.example+".incident.yaml")
			if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			if csv, err := os.ReadFile(filepath.Join(exampleDir, m.example+".series.csv")); err == nil {
				if m.csvFrom != "" {
					if !strings.Contains(string(csv), m.csvFrom) {
						t.Fatalf("the series no longer contains %q", m.csvFrom)
					}
					csv = []byte(strings.Replace(string(csv), m.csvFrom, m.csvTo, 1))
				}
				if err := os.WriteFile(filepath.Join(dir, m.example+".series.csv"), csv, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			doc, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			diags := Check(doc)
			line, col := positionOf(t, yaml, m.at)
			for _, d := range diags {
				if d.Line == line && d.Col == col && d.Severity == m.sev && strings.Contains(d.Message, m.msg) {
					if d.File != path {
						t.Errorf("diagnostic names file %q, want %q", d.File, path)
					}
					return
				}
			}
			t.Errorf("want %s at %d:%d containing %q; got:%s", m.sev, line, col, m.msg, dump(diags))
		})
	}
}

func decodeString(t *testing.T, src string) *Document {
	t.Helper()
	doc, err := Decode("test.incident.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// findDiag returns the diagnostics whose message contains sub.
func findDiag(diags []Diagnostic, sub string) []Diagnostic {
	var out []Diagnostic
	for _, d := range diags {
		if strings.Contains(d.Message, sub) {
			out = append(out, d)
		}
	}
	return out
}

const base = `id: INC-1
status: resolved
title: Test
`

// TestCheckCases covers rules on small documents: each case lists the messages it must
// produce (want) and the ones it must not (not).
func TestCheckCases(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want []string
		not  []string
	}{
		{
			name: "cross-midnight span",
			src: base + `milestones:
  - {name: impact_start, at: 2026-03-01T22:52:00Z}
  - {name: detected, at: 2026-03-01T23:03:00Z}
  - {name: mitigated, at: 2026-03-02T23:03:00Z}
timeline:
  - {at: 2026-03-01T23:59:00Z, title: before midnight}
  - {at: 2026-03-02T00:04:00Z, title: after midnight}
summary: Customers saw errors for 24h 11m; the page came after about 10 minutes.
claims:
  - {text: 24h 11m, value: duration}
  - {text: about 10 minutes, value: ttd}
`,
			not: []string{"disagrees", "earlier than"},
		},
		{
			name: "cross-midnight span stated wrong",
			src: base + `milestones:
  - {name: impact_start, at: 2026-03-01T22:52:00Z}
  - {name: mitigated, at: 2026-03-02T23:03:00Z}
summary: Customers saw errors for 1h 11m.
claims:
  - {text: 1h 11m, value: duration}
`,
			want: []string{`stated "1h 11m" disagrees with the data: duration is 24h 11m (impact_start 1 Mar 22:52 UTC → mitigated 2 Mar 23:03 UTC)`},
		},
		{
			name: "local time zone",
			src: base + `time_zone: America/Los_Angeles
milestones:
  - {name: impact_start, at: 2026-07-01T23:52:00Z}
  - {name: mitigated, at: 2026-07-02T00:30:00Z}
summary: At 16:52 the pool filled (23:52 UTC); at 17:30 it drained. At 23:52 nothing happened.
`,
			want: []string{"clock time 23:52 (America/Los_Angeles) is not a recorded instant"},
			not:  []string{"clock time 16:52", "clock time 17:30", "clock time 23:52 (UTC)"},
		},
		{
			name: "percent next to its counts",
			src: base + `milestones: [{name: impact_start, at: 2026-03-01T10:00:00Z}, {name: mitigated, at: 2026-03-01T11:00:00Z}]
went_well:
  - A retry job recovered 39,600 of 41,900 checkouts (84%).
  - A retry job recovered 39,600 of 41,900 checkouts (94%).
  - A retry job recovered 39,600 out of 41,900 checkouts, or about 95%.
  - In 2 of 6 regions, 99.9% of requests failed; 3 of 6 regions saw 10% errors.
  - 84% (39,600 of 41,900) were recovered.
`,
			want: []string{
				`went_well[0]: stated "84%" disagrees with its counts: 39,600 of 41,900 is 94.51%`,
				`went_well[4]: stated "84%" disagrees with its counts`,
			},
			not: []string{"went_well[1]", "went_well[2]", "went_well[3]"},
		},
		{
			name: "milestones out of canonical order",
			src: base + `milestones:
  - {name: detected, at: 2026-03-01T09:10:00Z}
  - {name: impact_start, at: 2026-03-01T09:14:00Z}
  - {name: mitigated, at: 2026-03-01T10:00:00Z}
`,
			want: []string{"milestones[0].at: detected (09:10 UTC) is earlier than impact_start (09:14 UTC, line 6); milestones follow the order trigger ≤ impact_start ≤ detected"},
		},
		{
			name: "duplicate milestone",
			src: base + `milestones:
  - {name: impact_start, at: 2026-03-01T09:14:00Z}
  - {name: impact_start, at: 2026-03-01T09:16:00Z}
  - {name: mitigated, at: 2026-03-01T10:00:00Z}
`,
			want: []string{"milestones[1].name: milestone impact_start is recorded twice (also at milestones[0], line 5); record a conflicting value under alternatives, with its source"},
		},
		{
			name: "conflicting values without provenance",
			src: base + `milestones:
  - name: impact_start
    at: 2026-03-01T09:14:00Z
    alternatives: [{at: 2026-03-01T09:11:00Z, source: ""}]
  - {name: mitigated, at: 2026-03-01T10:00:00Z}
impact:
  - {id: users, value: 10, alternatives: [{value: 12, source: support tickets}]}
`,
			want: []string{
				"milestones[0]: impact_start records conflicting values but no source for at",
				"milestones[0].alternatives[0]: alternative 09:11 UTC has no source",
				"impact[0]: users records conflicting values but no source for value",
			},
		},
		{
			name: "conflicting values with provenance",
			src: base + `milestones:
  - name: impact_start
    at: 2026-03-01T09:14:00Z
    source: status page
    alternatives: [{at: 2026-03-01T09:11:00Z, source: load balancer logs}]
  - {name: mitigated, at: 2026-03-01T10:00:00Z}
timeline:
  - {at: 2026-03-01T09:11:00Z, phase: impact_start, title: First errors in the load balancer logs}
`,
			not: []string{"conflicting", "tagged"},
		},
		{
			name: "figures",
			src: base + `milestones: [{name: impact_start, at: 2026-03-01T10:00:00Z}, {name: mitigated, at: 2026-03-01T11:00:00Z}]
impact:
  - {id: whole, value: 10}
  - {id: part, value: 12, of: whole}
  - {id: orphan, value: 1, of: nothing}
  - {id: empty}
  - {id: both, value: 60, computed: duration}
  - {id: ttd, value: 1}
  - {id: loop, computed: loop2}
  - {id: loop2, computed: loop}
`,
			want: []string{
				"impact[1].value: part (12) exceeds its whole whole (10)",
				`impact[2].of: unknown figure "nothing"`,
				"impact[3]: empty has no value",
				"impact[4].value: both is both typed (value) and computed (duration)",
				`impact[5].id: "ttd" is a reserved name`,
				"figure loop is computed from itself",
			},
		},
		{
			name: "hedges",
			src: base + `milestones:
  - {name: impact_start, at: 2026-03-01T10:00:00Z}
  - {name: detected, at: 2026-03-01T10:11:00Z}
  - {name: mitigated, at: 2026-03-01T12:00:00Z}
summary: >-
  Detected after nearly 12 minutes (a); in under 10 minutes (b); within 11 minutes (c);
  after more than 11 minutes (d); after roughly 13 minutes (e); after nearly 11 minutes (f).
claims:
  - {text: nearly 12 minutes (a), value: ttd}
  - {text: under 10 minutes (b), value: ttd}
  - {text: within 11 minutes (c), value: ttd}
  - {text: more than 11 minutes (d), value: ttd}
  - {text: roughly 13 minutes (e), value: ttd}
  - {text: nearly 11 minutes (f), value: ttd}
`,
			want: []string{
				`stated "10 minutes" disagrees with the data: ttd is 11 min (impact_start 10:00 → detected 10:11); "under" needs a smaller value (claims[1])`,
				`stated "11 minutes" disagrees with the data: ttd is 11 min (impact_start 10:00 → detected 10:11); "more than" needs a larger value (claims[3])`,
				`stated "13 minutes" disagrees with the data: ttd is 11 min (impact_start 10:00 → detected 10:11); "roughly" admits 10% either way (claims[4])`,
			},
			not: []string{"claims[0])", "claims[2])", "claims[5])"},
		},
		{
			name: "unverified figures",
			src: base + `milestones:
  - {name: impact_start, at: 2026-03-01T10:00:00Z}
  - {name: mitigated, at: 2026-03-01T12:00:00Z}
summary: It lasted 2 hours and then 17 minutes of cleanup; the queue grew ten times.
`,
			want: []string{
				`summary: duration "17 minutes" matches no interval between recorded instants`,
				`summary: ratio "ten times" is not tied to the data`,
			},
			not: []string{`"2 hours"`},
		},
		{
			name: "status and required fields",
			src: `id: ""
status: resolved
title: ""
milestones: [{name: impact_start, at: 2026-03-01T10:00:00Z}]
actions:
  - {id: AI-1}
decisions:
  - {at: 2026-03-01T10:05:00Z, action: a}
public: {overview: x}
links: [{title: t}]
`,
			want: []string{
				"id: missing", "title: missing",
				"status: is resolved but milestones records neither mitigated nor resolved",
				"actions[0].action: AI-1 has no action", "actions[0].owner: AI-1 has no owner",
				"actions[0].due: AI-1 has no due date", "actions[0].status: AI-1 has no status",
				"actions[0].validation: AI-1 has no validation evidence",
				"decisions[0].hypothesis: missing", "decisions[0].rollback: missing",
				"public.who_was_affected: missing", "links[0].url: missing",
			},
		},
		{
			name: "timeline tags",
			src: base + `milestones: [{name: impact_start, at: 2026-03-01T10:00:00Z}, {name: mitigated, at: 2026-03-01T11:00:00Z}]
timeline:
  - {at: 2026-03-01T10:00:00Z, phase: impact_start, title: a}
  - {at: 2026-03-01T10:05:00Z, phase: detected, title: b}
  - {at: 2026-03-01T10:04:00Z, phase: sparkles, title: c}
  - {at: 2026-03-01T10:30:00Z, id: impact_start, title: d}
`,
			want: []string{
				"timeline[1].phase: tags milestone detected, which milestones does not record",
				"timeline[2].at: 10:04 UTC is earlier than the entry before it (10:05 UTC, line 7)",
				`timeline[2].phase: unknown phase tag "sparkles"`,
				`timeline[3].id: "impact_start" is also a milestone name`,
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			diags := Check(decodeString(t, tc.src))
			for _, w := range tc.want {
				if len(findDiag(diags, w)) == 0 {
					t.Errorf("missing diagnostic %q; got:%s", w, dump(diags))
				}
			}
			for _, n := range tc.not {
				if got := findDiag(diags, n); len(got) > 0 {
					t.Errorf("unexpected diagnostic matching %q: %s", n, got[0])
				}
			}
		})
	}
}

// TestUntiedFigures checks that a figure the prose states without tying it to the data is
// an error, and a warning with CheckOptions.Lenient, at its position.
func TestUntiedFigures(t *testing.T) {
	src := `id: INC-1
status: resolved
title: t
milestones:
  - {name: impact_start, at: 2026-03-01T10:00:00Z}
  - {name: mitigated, at: 2026-03-01T12:00:00Z}
summary: It lasted 2 hours from 10:00, then 17 minutes of cleanup from 12:20; the queue grew ten times.
`
	want := []struct {
		at, msg string
	}{
		{"17 minutes", `summary: duration "17 minutes" matches no interval between recorded instants`},
		{"12:20", `summary: clock time 12:20 (UTC) is not a recorded instant`},
		{"ten times", `summary: ratio "ten times" is not tied to the data`},
	}
	for _, tc := range []struct {
		opts CheckOptions
		sev  Severity
	}{{CheckOptions{}, Error}, {CheckOptions{Lenient: true}, Warning}} {
		diags := CheckWith(decodeString(t, src), tc.opts)
		if len(diags) != len(want) {
			t.Errorf("lenient %v: %d diagnostics, want %d:%s", tc.opts.Lenient, len(diags), len(want), dump(diags))
			continue
		}
		for i, w := range want {
			line, col := positionOf(t, src, w.at)
			if d := diags[i]; d.Line != line || d.Col != col || d.Severity != tc.sev || !strings.HasPrefix(d.Message, w.msg) {
				t.Errorf("lenient %v: got %s, want %s at %d:%d: %s", tc.opts.Lenient, d, tc.sev, line, col, w.msg)
			}
		}
	}
}

// TestCheckDocumentBuiltInGo checks a document that was not decoded: no positions, and
// the problems the decoder would have caught are still reported.
func TestCheckDocumentBuiltInGo(t *testing.T) {
	doc := &Document{ID: "x", Title: "t", Status: StatusMitigated, TimeZone: "Mars/Olympus",
		Milestones: []Milestone{{Name: "impact_start"}}}
	diags := Check(doc)
	for _, want := range []string{`time_zone: unknown time zone "Mars/Olympus"`, "milestones[0].at: missing"} {
		got := findDiag(diags, want)
		if len(got) != 1 || got[0].Line != 0 || got[0].String() != "<incident>: error: "+got[0].Message {
			t.Errorf("want %q without a position; got:%s", want, dump(diags))
		}
	}
}

// TestDiagnosticPositionsInProse checks that diagnostics point at the figure inside
// plain, folded, literal and quoted multi-line scalars.
func TestDiagnosticPositionsInProse(t *testing.T) {
	head := base + `milestones:
  - {name: impact_start, at: 2026-03-01T10:00:00Z}
  - {name: mitigated, at: 2026-03-01T11:00:00Z}
claims: [{text: lasted 50 minutes, value: duration}]
`
	for _, style := range []struct{ name, summary, at string }{
		{"plain", "summary: The outage — a long one — lasted\n  50 minutes in all.\n", "50 minutes in"},
		{"folded", "summary: >\n  The outage — a long one —\n  lasted 50\n  minutes in all.\n", "50\n"},
		{"literal", "summary: |\n  The outage — a long one —\n  lasted 50\n  minutes in all.\n", "50\n"},
		{"double-quoted", "summary: \"The outage — a long one — lasted\n  50 minutes in all.\"\n", "50 minutes in"},
	} {
		t.Run(style.name, func(t *testing.T) {
			src := head + style.summary
			diags := Check(decodeString(t, src))
			got := findDiag(diags, `stated "50 minutes" disagrees`)
			if len(got) != 1 {
				t.Fatalf("want one disagreement; got:%s", dump(diags))
			}
			line, col := positionOf(t, src, style.at)
			if got[0].Line != line || got[0].Col != col {
				t.Errorf("at %d:%d, want %d:%d (%s)", got[0].Line, got[0].Col, line, col, got[0])
			}
		})
	}
}

// TestReplayClaims checks replay claims against a packet written to a temporary
// directory, and the warnings and errors around the packet.
func TestReplayClaims(t *testing.T) {
	packet := `{"scenario": "northstar", "seed": 7, "arms": [
  {"name": "baseline", "totals": {"offered": 1000, "admitted": 1000, "rejected": 0, "goodput": 400},
   "amplification": {"total": 1.56, "by_layer": {"edge": 1.28}}, "duplicates": {"payment_authorizations": 3, "order_commits": 0}},
  {"name": "protected", "totals": {"offered": 1000, "admitted": 950, "rejected": 50, "goodput": 900},
   "amplification": {"total": 1.02}, "duplicates": {"payment_authorizations": 0, "order_commits": 0},
   "recovery": {"normal_s": 540}}]}`
	doc := base + `milestones: [{name: impact_start, at: 2026-03-01T10:00:00Z}, {name: mitigated, at: 2026-03-01T11:00:00Z}]
summary: No duplicate payment was authorised.
replay:
  scenario: s.scenario.yaml
  packet: %s
  claims:
    - {text: No duplicate payment was authorised., assert: protected.duplicates.payment_authorizations == 0}
    - assert: protected.totals.offered == baseline.totals.offered
    - assert: protected.recovery.normal_s <= 12 * 60
    - assert: baseline.duplicates.payment_authorizations == 0
    - assert: protected.totals.goodput > 950
    - assert: protected.nonsense +
    - {text: not in the prose, assert: "true"}
`
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("s.scenario.yaml", "name: x\n")
	write("packet.json", packet)
	write("bad.json", `{"arms": []}`)

	check := func(packetPath string) []Diagnostic {
		p := write("x.incident.yaml", fmt.Sprintf(doc, packetPath))
		d, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		return Check(d)
	}
	diags := check("packet.json")
	for _, want := range []string{
		`replay.claims[3].assert: the replay packet (` + filepath.Join(dir, "packet.json") + `) contradicts "baseline.duplicates.payment_authorizations == 0": baseline.duplicates.payment_authorizations = 3`,
		`replay.claims[4].assert: the replay packet (` + filepath.Join(dir, "packet.json") + `) contradicts "protected.totals.goodput > 950": protected.totals.goodput = 900`,
		"replay.claims[5].assert: ",
		`replay.claims[6].text: "not in the prose" does not occur`,
	} {
		if len(findDiag(diags, want)) == 0 {
			t.Errorf("missing %q; got:%s", want, dump(diags))
		}
	}
	for _, ok := range []string{"claims[0]", "claims[1]", "claims[2]"} {
		if got := findDiag(diags, ok); len(got) > 0 {
			t.Errorf("unexpected %s", got[0])
		}
	}

	diags = check("missing/packet.json")
	if w := findDiag(diags, "does not exist yet"); len(w) != 1 || w[0].Severity != Warning {
		t.Errorf("want one warning for the missing packet; got:%s", dump(diags))
	}
	if HasErrors(findDiag(diags, "replay.claims[0]")) {
		t.Errorf("claims were evaluated without a packet:%s", dump(diags))
	}

	diags = check("bad.json")
	if e := findDiag(diags, "has no arms"); len(e) != 1 || e[0].Severity != Error {
		t.Errorf("want an error for a packet without arms; got:%s", dump(diags))
	}
}

// TestReplayClaimTiesFigures: the figures a replay claim's text states (a clock time, a
// duration) are tied to the packet that checks them, so they need no milestone or other
// claim; the same prose without the replay claim is reported.
func TestReplayClaimTiesFigures(t *testing.T) {
	dir := t.TempDir()
	packet := `{"scenario": "x", "seed": 1, "arms": [{"name": "candidate", "totals": {"offered": 1},
  "alerts": [{"name": "headroom", "first_fired": 4870, "flaps": 0, "cleared": null}]}]}`
	if err := os.WriteFile(filepath.Join(dir, "packet.json"), []byte(packet), 0o644); err != nil {
		t.Fatal(err)
	}
	doc := base + `milestones: [{name: impact_start, at: 2026-03-01T10:00:00Z}, {name: mitigated, at: 2026-03-01T11:00:00Z}]
summary: In the replay the headroom alert fires at 04:36, 62 minutes before the page.
replay:
  scenario: packet.json
  packet: packet.json
  claims:
`
	claim := `    - {text: "fires at 04:36, 62 minutes before", assert: "candidate.alerts[0].first_fired == 4870"}` + "\n"
	for _, tc := range []struct {
		name   string
		claims string
		want   int // diagnostics about the two figures
	}{{"tied", claim, 0}, {"untied", "", 2}} {
		p := filepath.Join(dir, tc.name+".incident.yaml")
		if err := os.WriteFile(p, []byte(doc+tc.claims), 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		diags := Check(d)
		n := len(findDiag(diags, "clock time 04:36")) + len(findDiag(diags, `duration "62 minutes"`))
		if n != tc.want {
			t.Errorf("%s: %d diagnostics about the figures, want %d:%s", tc.name, n, tc.want, dump(diags))
		}
		if tc.want == 0 && HasErrors(diags) {
			t.Errorf("%s: errors:%s", tc.name, dump(diags))
		}
	}
}

func TestDecodeErrorIsDecodeError(t *testing.T) {
	_, err := Decode("x.yaml", []byte("id: [1]\n"))
	var de *DecodeError
	if !errors.As(err, &de) || len(de.Diagnostics) != 1 || de.Diagnostics[0].Line != 1 {
		t.Fatalf("got %v", err)
	}
}
