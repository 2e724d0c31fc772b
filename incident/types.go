package incident

import (
	"fmt"
	"strings"
	"time"

	"github.com/invopop/jsonschema"

	"github.com/goodput-lab/goodput/yamlfile"
)

// Document is one postmortem: the contents of a *.incident.yaml file.
//
// Times are stored in UTC (RFC 3339 with a Z suffix) and shown in [Document.TimeZone].
// Durations, gaps, percentages and ratios are never typed into the document: they are
// computed by [Document.Derived], referenced from prose with placeholders such as {{ttd}}
// (see [Document.Expand]) and compared with any figure the prose states by [Check].
//
// Get a Document from [Load] (which also reads an external series CSV) or [Decode]. A
// Document built in Go code has no source positions; its diagnostics carry line 0.
type Document struct {
	// ID is the incident identifier, e.g. INC-2026-0912. Required; any length.
	ID string `yaml:"id" json:"id" jsonschema:"required"`
	// Status is the incident's state: investigating, identified, mitigated, resolved or closed.
	Status Status `yaml:"status" json:"status" jsonschema:"required,enum=investigating,enum=identified,enum=mitigated,enum=resolved,enum=closed"`
	// Severity is the organisation's severity label, e.g. SEV-1. Optional, free text.
	Severity string `yaml:"severity,omitempty" json:"severity,omitempty"`
	// Title is the full title. It is rendered in full, never truncated; any length.
	Title string `yaml:"title" json:"title" jsonschema:"required"`
	// Authors wrote the document, in display order.
	Authors []string `yaml:"authors,omitempty" json:"authors,omitempty"`
	// Reviewers reviewed it.
	Reviewers []string `yaml:"reviewers,omitempty" json:"reviewers,omitempty"`
	// Reviewed is the review date (YYYY-MM-DD). Action items are overdue relative to it.
	Reviewed Date `yaml:"reviewed,omitempty" json:"reviewed,omitzero"`
	// Services lists the affected services or components.
	Services []string `yaml:"services,omitempty" json:"services,omitempty"`
	// Links points to chat channels, tickets, dashboards, recordings, public status pages.
	Links []Link `yaml:"links,omitempty" json:"links,omitempty"`
	// TimeZone is the IANA name of the zone times are displayed in (e.g. Europe/Dublin).
	// The zero value "" means UTC.
	TimeZone string `yaml:"time_zone,omitempty" json:"time_zone,omitempty"`

	// Milestones are the named instants of the incident's lifecycle, in chronological
	// order. Known names (see [MilestoneOrder]) must also follow their canonical order;
	// other names (snake_case) may be added anywhere in time order.
	Milestones []Milestone `yaml:"milestones" json:"milestones" jsonschema:"required"`
	// Tail is residual impact after mitigation (a backlog drain, a retry job), recorded
	// separately so that it is not mixed into the primary duration. Optional.
	Tail *Tail `yaml:"tail,omitempty" json:"tail,omitempty"`

	// Impact holds the figures shown in the impact block, in display order.
	Impact []Figure `yaml:"impact,omitempty" json:"impact,omitempty"`
	// Facts are further recorded quantities (counts, configured values) that prose and
	// claims refer to but that are not shown in the impact block. They share one ID
	// namespace with Impact.
	Facts []Figure `yaml:"facts,omitempty" json:"facts,omitempty"`
	// Summary is the opening paragraph. Prose: placeholders are expanded.
	Summary string `yaml:"summary,omitempty" json:"summary,omitempty"`
	// Series is the impact time series drawn as the impact chart. Optional.
	Series *Series `yaml:"series,omitempty" json:"series,omitempty"`
	// Timeline entries, in chronological order.
	Timeline []Entry `yaml:"timeline,omitempty" json:"timeline,omitempty"`
	// RootCause is the headline and the explanation.
	RootCause *RootCause `yaml:"root_cause,omitempty" json:"root_cause,omitempty"`
	// Factors are the numbered contributing factors. Each needs an action item that
	// addresses it or an explicit acceptance.
	Factors []Factor `yaml:"factors,omitempty" json:"factors,omitempty"`
	// WentWell, WentWrong and GotLucky are the lessons, one paragraph each.
	WentWell  []string `yaml:"went_well,omitempty" json:"went_well,omitempty"`
	WentWrong []string `yaml:"went_wrong,omitempty" json:"went_wrong,omitempty"`
	GotLucky  []string `yaml:"got_lucky,omitempty" json:"got_lucky,omitempty"`
	// Actions are the action items.
	Actions []ActionItem `yaml:"actions,omitempty" json:"actions,omitempty"`

	// Record holds the incident-record sections of an overload case study. Optional.
	Record *Record `yaml:"record,omitempty" json:"record,omitempty"`
	// Decisions is the decision log: every action the incident command took. Optional.
	Decisions []Decision `yaml:"decisions,omitempty" json:"decisions,omitempty"`
	// Constraints is the current-constraint ledger: what limited goodput, phase by phase.
	Constraints []ConstraintEntry `yaml:"constraints,omitempty" json:"constraints,omitempty"`
	// Public is the public-summary form of the report. Optional.
	Public *Public `yaml:"public,omitempty" json:"public,omitempty"`
	// Replay links the document to the replay scenario that reproduces it. Optional.
	Replay *Replay `yaml:"replay,omitempty" json:"replay,omitempty"`

	// Claims tie figures stated in prose to the data: each names the exact text of a
	// stated figure and the derived value or formula it must agree with.
	Claims []Claim `yaml:"claims,omitempty" json:"claims,omitempty"`

	file  string              // the file name given to Decode, used in diagnostics
	pos   *yamlfile.Positions // where each value is written, by YAML path ("$.timeline[2].at")
	src   []byte              // the source, to place diagnostics inside multi-line prose
	lines []int               // the byte offset at which each line of src begins
}

// Status is an incident's state.
type Status string

// The incident states, in lifecycle order.
const (
	StatusInvestigating Status = "investigating"
	StatusIdentified    Status = "identified"
	StatusMitigated     Status = "mitigated"
	StatusResolved      Status = "resolved"
	StatusClosed        Status = "closed"
)

// Label returns the status as shown on a page: "Resolved".
func (s Status) Label() string { return capitalise(strings.ReplaceAll(string(s), "_", " ")) }

// Link is a titled URL.
type Link struct {
	// Title is the link text, e.g. "Incident channel".
	Title string `yaml:"title" json:"title" jsonschema:"required"`
	// URL is the address (any scheme; rendered as text, never fetched).
	URL string `yaml:"url" json:"url" jsonschema:"required"`
}

// Milestone is a named instant of the incident's lifecycle.
type Milestone struct {
	// Name is the milestone's name: one of [MilestoneOrder] or another snake_case word
	// (e.g. rollout_complete). Names are unique and are how prose, timeline phases,
	// series markers and gap placeholders refer to the instant.
	Name string `yaml:"name" json:"name" jsonschema:"required,pattern=^[a-z][a-z0-9_]*$"`
	// At is the instant, in UTC.
	At time.Time `yaml:"at" json:"at" jsonschema:"required"`
	// Earliest and Latest bound the instant when it is uncertain; both are optional and,
	// when given, must satisfy Earliest ≤ At ≤ Latest.
	Earliest *time.Time `yaml:"earliest,omitempty" json:"earliest,omitempty"`
	Latest   *time.Time `yaml:"latest,omitempty" json:"latest,omitempty"`
	// Source is the provenance of At (which system or person recorded it). Required when
	// Alternatives are recorded.
	Source string `yaml:"source,omitempty" json:"source,omitempty"`
	// Alternatives are conflicting values for the same instant, each with its source. At
	// stays the value used for derived figures.
	Alternatives []TimeAlternative `yaml:"alternatives,omitempty" json:"alternatives,omitempty"`
	// Note is free text shown with the milestone.
	Note string `yaml:"note,omitempty" json:"note,omitempty"`
}

// TimeAlternative is a conflicting value of a milestone, with its provenance.
type TimeAlternative struct {
	// At is the alternative instant, in UTC.
	At time.Time `yaml:"at" json:"at" jsonschema:"required"`
	// Source says where this value comes from. Required.
	Source string `yaml:"source" json:"source" jsonschema:"required"`
	// Note is free text.
	Note string `yaml:"note,omitempty" json:"note,omitempty"`
}

// The known milestone names, in canonical order. A document need not use all of them;
// those it uses must appear in this order (equal instants are allowed).
const (
	MilestoneTrigger           = "trigger"            // the change or condition that later caused impact
	MilestoneImpactStart       = "impact_start"       // first customer impact
	MilestoneDetected          = "detected"           // first alert or report
	MilestoneAcknowledged      = "acknowledged"       // a responder took it
	MilestoneDeclared          = "declared"           // declared an incident
	MilestoneIdentified        = "identified"         // cause identified
	MilestoneMitigationStarted = "mitigation_started" // the effective mitigation began
	MilestoneMitigated         = "mitigated"          // primary impact ended
	MilestoneResolved          = "resolved"           // fully resolved
)

// MilestoneOrder lists the known milestone names in canonical order.
var MilestoneOrder = []string{
	MilestoneTrigger, MilestoneImpactStart, MilestoneDetected, MilestoneAcknowledged,
	MilestoneDeclared, MilestoneIdentified, MilestoneMitigationStarted, MilestoneMitigated,
	MilestoneResolved,
}

// Tail is residual impact after the primary impact ended, such as a backlog drain or a
// retry job recovering failed operations.
type Tail struct {
	// Start is when the tail began; the zero value means the mitigated milestone.
	Start *time.Time `yaml:"start,omitempty" json:"start,omitempty"`
	// End is when the residual impact ended, in UTC.
	End time.Time `yaml:"end" json:"end" jsonschema:"required"`
	// Description says what the residual impact was. Prose.
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
}

// Figure is a stated quantity: an impact figure or a fact.
//
// Exactly one of Value, Computed or Display gives the figure's value: Value is a
// measured number; Computed is a reference to a derived value (e.g. "duration"), which
// makes the figure computed, never typed; Display is a non-numeric value such as "None".
type Figure struct {
	// ID names the figure for claims, placeholders ({{fig:ID}} or {{ID}}) and Of.
	// snake_case, unique across Impact and Facts.
	ID string `yaml:"id" json:"id" jsonschema:"required,pattern=^[a-z][a-z0-9_]*$"`
	// Label is the heading shown in the impact block, e.g. "Failed checkouts".
	Label string `yaml:"label,omitempty" json:"label,omitempty"`
	// Value is the measured number (12400, 4.8). Write it without separators.
	Value *float64 `yaml:"value,omitempty" json:"value,omitempty"`
	// Computed is a reference to a derived value, e.g. "duration" or "pct:recovered:failed",
	// or a formula over other figures' IDs, e.g. "logical * (1 + edge_retry/100)".
	Computed string `yaml:"computed,omitempty" json:"computed,omitempty"`
	// Display is shown instead of a number, e.g. "None".
	Display string `yaml:"display,omitempty" json:"display,omitempty"`
	// Unit is the unit of Value: a count noun ("customers", "checkouts"), "%", "ms", "s",
	// "min", "attempts/s" … Optional.
	Unit string `yaml:"unit,omitempty" json:"unit,omitempty"`
	// Of names the figure this one is a part of (its denominator); [Document.Derived]
	// then computes the percentage, and Check requires Value ≤ the whole.
	Of string `yaml:"of,omitempty" json:"of,omitempty"`
	// Note is the line shown under the value, e.g. "09:14 – 13:01 UTC". Prose.
	Note string `yaml:"note,omitempty" json:"note,omitempty"`
	// Basis says how the value was obtained (query, ledger, estimate).
	Basis string `yaml:"basis,omitempty" json:"basis,omitempty"`
	// Source is the provenance of Value. Required when Alternatives are recorded.
	Source string `yaml:"source,omitempty" json:"source,omitempty"`
	// Alternatives are conflicting values of the same quantity, each with its source.
	Alternatives []ValueAlternative `yaml:"alternatives,omitempty" json:"alternatives,omitempty"`
}

// ValueAlternative is a conflicting value of a figure, with its provenance.
type ValueAlternative struct {
	// Value is the alternative number.
	Value float64 `yaml:"value" json:"value" jsonschema:"required"`
	// Source says where this value comes from. Required.
	Source string `yaml:"source" json:"source" jsonschema:"required"`
	// Note is free text.
	Note string `yaml:"note,omitempty" json:"note,omitempty"`
}

// Series is the impact time series: inline Points or a CSV file, never both.
type Series struct {
	// Label says what is measured, e.g. "Failed checkouts".
	Label string `yaml:"label,omitempty" json:"label,omitempty"`
	// Unit is the unit of the values, e.g. "%". Required.
	Unit string `yaml:"unit" json:"unit" jsonschema:"required"`
	// CSV is the path of a CSV file relative to the document, with a header row
	// "at,value" and one row per point (at in RFC 3339 UTC). [Load] reads it into Points.
	CSV string `yaml:"csv,omitempty" json:"csv,omitempty"`
	// Points are the samples, in time order.
	Points []Point `yaml:"points,omitempty" json:"points,omitempty"`
	// Gridlines are the values at which the chart draws horizontal gridlines, e.g. 0, 30, 60.
	Gridlines []float64 `yaml:"gridlines,omitempty" json:"gridlines,omitempty"`
	// Markers are the milestones drawn as dashed vertical lines, with the value the
	// document states at each (checked against the series).
	Markers []Marker `yaml:"markers,omitempty" json:"markers,omitempty"`
	// Peak is the stated peak value; it must be the series' maximum. Optional.
	Peak *float64 `yaml:"peak,omitempty" json:"peak,omitempty"`
	// Caption is authored text appended to the generated chart description, e.g.
	// "nine times worse than when the alert fired". Prose.
	Caption string `yaml:"caption,omitempty" json:"caption,omitempty"`
}

// Point is one sample of a series.
type Point struct {
	// At is the sample instant, in UTC.
	At time.Time `yaml:"at" json:"at" jsonschema:"required"`
	// Value is the sample value in the series' unit.
	Value float64 `yaml:"value" json:"value"`
}

// Marker is a milestone drawn on the impact chart.
type Marker struct {
	// Milestone names the milestone (e.g. detected). Required.
	Milestone string `yaml:"milestone" json:"milestone" jsonschema:"required"`
	// At, if given, must equal the milestone's instant.
	At *time.Time `yaml:"at,omitempty" json:"at,omitempty"`
	// Value, if given, is the series value the document states at that instant.
	Value *float64 `yaml:"value,omitempty" json:"value,omitempty"`
}

// Entry is one timeline entry.
type Entry struct {
	// At is the instant, in UTC. Entries are in chronological order.
	At time.Time `yaml:"at" json:"at" jsonschema:"required"`
	// ID names the entry for gap references ({{gap:ID:mitigated}}). Optional, snake_case.
	ID string `yaml:"id,omitempty" json:"id,omitempty"`
	// Phase is the entry's tag: a milestone name (then At must equal the milestone) or a
	// narrative tag (see [PhaseTags]). Optional.
	Phase string `yaml:"phase,omitempty" json:"phase,omitempty"`
	// Title is the entry's headline. Prose.
	Title string `yaml:"title" json:"title" jsonschema:"required"`
	// Text is the entry's body. Prose.
	Text string `yaml:"text,omitempty" json:"text,omitempty"`
}

// PhaseTags are the narrative timeline tags accepted besides milestone names.
var PhaseTags = []string{"change", "trigger", "escalation", "diagnosis", "action", "communication", "recovery", "note"}

// RootCause is the root-cause section.
type RootCause struct {
	// Headline is the one-sentence cause. Prose.
	Headline string `yaml:"headline" json:"headline" jsonschema:"required"`
	// Explanation is the paragraph that follows. Prose.
	Explanation string `yaml:"explanation,omitempty" json:"explanation,omitempty"`
}

// Factor is a numbered contributing factor.
type Factor struct {
	// ID is the factor's number as shown, e.g. "01". Unique; action items refer to it.
	ID string `yaml:"id" json:"id" jsonschema:"required"`
	// Title is the factor's headline. Prose.
	Title string `yaml:"title" json:"title" jsonschema:"required"`
	// Text explains it. Prose.
	Text string `yaml:"text,omitempty" json:"text,omitempty"`
	// Accepted, when set, is the reason the factor is accepted without an action item.
	Accepted string `yaml:"accepted,omitempty" json:"accepted,omitempty"`
}

// ActionItem is one follow-up action.
type ActionItem struct {
	// ID is the item's identifier, e.g. AI-1. Unique.
	ID string `yaml:"id" json:"id" jsonschema:"required"`
	// Action says what will be done; specific and testable ("Tune autoscaling" is not).
	Action string `yaml:"action" json:"action" jsonschema:"required"`
	// Type is mitigate, prevent, detect or process. Optional.
	Type string `yaml:"type,omitempty" json:"type,omitempty" jsonschema:"enum=mitigate,enum=prevent,enum=detect,enum=process"`
	// Owner is a person or team. Required.
	Owner string `yaml:"owner" json:"owner" jsonschema:"required"`
	// Due is the due date (YYYY-MM-DD). Required.
	Due Date `yaml:"due" json:"due" jsonschema:"required"`
	// Status is not_started, in_progress, blocked, done or wont_do. Required.
	Status ActionStatus `yaml:"status" json:"status" jsonschema:"required,enum=not_started,enum=in_progress,enum=blocked,enum=done,enum=wont_do"`
	// Done is the completion date; required when Status is done.
	Done Date `yaml:"done,omitempty" json:"done,omitzero"`
	// Validation is the measurable evidence that proves the action worked (a test, a
	// replay, an alert firing at a threshold). Required.
	Validation string `yaml:"validation" json:"validation" jsonschema:"required"`
	// Retirement is the condition under which the action (e.g. a temporary limit) can be
	// removed. Optional.
	Retirement string `yaml:"retirement,omitempty" json:"retirement,omitempty"`
	// Addresses lists the IDs of the contributing factors the action addresses.
	Addresses []string `yaml:"addresses,omitempty" json:"addresses,omitempty"`
	// Ticket is a tracker reference. Optional.
	Ticket string `yaml:"ticket,omitempty" json:"ticket,omitempty"`
}

// ActionStatus is the state of an action item.
type ActionStatus string

// The action-item states.
const (
	ActionNotStarted ActionStatus = "not_started"
	ActionInProgress ActionStatus = "in_progress"
	ActionBlocked    ActionStatus = "blocked"
	ActionDone       ActionStatus = "done"
	ActionWontDo     ActionStatus = "wont_do"
)

// Label returns the status as shown in the action-item table: "In progress".
func (s ActionStatus) Label() string {
	if s == ActionWontDo {
		return "Won't do"
	}
	return capitalise(strings.ReplaceAll(string(s), "_", " "))
}

// Open reports whether the item still needs work (not done and not abandoned).
func (s ActionStatus) Open() bool { return s != ActionDone && s != ActionWontDo }

// Record holds the incident-record sections of an overload case study. Every field is
// prose.
type Record struct {
	// InitiatingCondition is what changed first.
	InitiatingCondition string `yaml:"initiating_condition,omitempty" json:"initiating_condition,omitempty"`
	// Amplifiers are the mechanisms that multiplied the work.
	Amplifiers string `yaml:"amplifiers,omitempty" json:"amplifiers,omitempty"`
	// Stabilization is what the incident command did to stabilise useful work.
	Stabilization string `yaml:"stabilization,omitempty" json:"stabilization,omitempty"`
	// ProtectedResult is what the protected policy achieved.
	ProtectedResult string `yaml:"protected_result,omitempty" json:"protected_result,omitempty"`
	// RejectedActions are the actions considered and rejected, with why.
	RejectedActions string `yaml:"rejected_actions,omitempty" json:"rejected_actions,omitempty"`
	// ResidualRisks are the risks that remain.
	ResidualRisks string `yaml:"residual_risks,omitempty" json:"residual_risks,omitempty"`
	// RevisitTriggers are the conditions that reopen the analysis.
	RevisitTriggers string `yaml:"revisit_triggers,omitempty" json:"revisit_triggers,omitempty"`
}

// Decision is one entry of the decision log. Every field except Generation is required.
type Decision struct {
	// At is when the action was taken, in UTC. Entries are chronological.
	At time.Time `yaml:"at" json:"at" jsonschema:"required"`
	// Generation is the policy generation the action created, if it changed policy.
	Generation int `yaml:"generation,omitempty" json:"generation,omitempty"`
	// Action is what was done. Prose.
	Action string `yaml:"action" json:"action" jsonschema:"required"`
	// Hypothesis is why it should help. Prose.
	Hypothesis string `yaml:"hypothesis" json:"hypothesis" jsonschema:"required"`
	// ExpectedSignal is what should be observed if the hypothesis holds. Prose.
	ExpectedSignal string `yaml:"expected_signal" json:"expected_signal" jsonschema:"required"`
	// SafetyBoundary is the limit at which the action is stopped. Prose.
	SafetyBoundary string `yaml:"safety_boundary" json:"safety_boundary" jsonschema:"required"`
	// Owner is who owns the action.
	Owner string `yaml:"owner" json:"owner" jsonschema:"required"`
	// Rollback says how to undo it. Prose.
	Rollback string `yaml:"rollback" json:"rollback" jsonschema:"required"`
}

// ConstraintEntry is one row of the current-constraint ledger.
type ConstraintEntry struct {
	// At is when this constraint became the one limiting goodput, in UTC.
	At time.Time `yaml:"at" json:"at" jsonschema:"required"`
	// Constraint names the resource or control that limits deadline-valid goodput. Prose.
	Constraint string `yaml:"constraint" json:"constraint" jsonschema:"required"`
	// Evidence is the observation that shows it. Prose.
	Evidence string `yaml:"evidence" json:"evidence" jsonschema:"required"`
	// Replay ties the row to the replay the document links ([Replay.Packet]): the binding
	// constraint the replay names over an interval of its clock. Optional.
	Replay *ConstraintReplay `yaml:"replay,omitempty" json:"replay,omitempty"`
}

// ConstraintReplay is what a ledger row says the linked replay shows: over From to To of
// the replay's clock, arm Arm's binding constraint (series.csv's constraint column, by
// the model's rule: docs/constraint.md) is Constraint. [Check] reads the packet directory
// of [Replay.Packet] and reports the row when the arm names another constraint for most
// of the sampled ticks in the interval, e.g.
//
//	replay: {arm: baseline, from: 0s, to: 2m, constraint: "pool:checkout->payment-risk"}
type ConstraintReplay struct {
	// Arm is the replay's arm, by name. Required.
	Arm string `yaml:"arm" json:"arm" jsonschema:"required"`
	// From and To bound the interval, [From, To), as Go durations from the start of the
	// replay's clock ("0s", "2m", "1h30m"). Required; From before To.
	From string `yaml:"from" json:"from" jsonschema:"required"`
	To   string `yaml:"to" json:"to" jsonschema:"required"`
	// Constraint is the binding constraint's name as series.csv writes it, e.g.
	// "pool:checkout->payment-risk", "queue:checkout", "ready-capacity:checkout", "none".
	// Required.
	Constraint string `yaml:"constraint" json:"constraint" jsonschema:"required"`
}

// Public is the public-summary form of a report, in the order of a public status post.
// Every field is prose.
type Public struct {
	// Overview is the opening paragraph: when, who, an apology.
	Overview string `yaml:"overview" json:"overview" jsonschema:"required"`
	// WhoWasAffected answers "Who was affected?".
	WhoWasAffected string `yaml:"who_was_affected" json:"who_was_affected" jsonschema:"required"`
	// WhatHappened answers "What happened?".
	WhatHappened string `yaml:"what_happened" json:"what_happened" jsonschema:"required"`
	// PreventWiderImpact answers "What did we do to prevent wider impact?".
	PreventWiderImpact string `yaml:"prevent_wider_impact,omitempty" json:"prevent_wider_impact,omitempty"`
	// FutureMitigation answers "What will we do to mitigate problems like this in the future?".
	FutureMitigation string `yaml:"future_mitigation,omitempty" json:"future_mitigation,omitempty"`
}

// Replay links the document to a replay scenario and its packet.
type Replay struct {
	// Scenario is the path of the *.scenario.yaml file, relative to the document.
	Scenario string `yaml:"scenario" json:"scenario" jsonschema:"required"`
	// Packet is the path of the replay's packet.json, relative to the document. If it
	// does not exist yet, Check warns and skips the claims. The rendered page also links
	// the report.html that `goodput replay --out` writes beside it.
	Packet string `yaml:"packet,omitempty" json:"packet,omitempty"`
	// Claims are assertions about the replay, checked against the packet.
	Claims []ReplayClaim `yaml:"claims,omitempty" json:"claims,omitempty"`
}

// ReplayClaim is a boolean assertion over the packet's figures, written as an expression
// (github.com/expr-lang/expr syntax) over the arms by name, e.g.
//
//	protected.duplicates.payment_authorizations == 0
//	protected.totals.goodput > baseline.totals.goodput
//
// Each arm exposes the fields of its packet.json entry: name, totals.{offered, admitted,
// rejected, attempts, goodput, late, expired, shed, failed, ambiguous},
// amplification.{total, by_layer}, duplicates.{payment_authorizations, order_commits} and
// whatever else the packet records (rates_per_s, recovery …); scenario and seed are
// top-level, and arm["name"] reaches an arm by name.
type ReplayClaim struct {
	// Text is the document's statement the assertion backs, e.g. "no duplicate payment
	// authorisation". When given, it must occur in the document's prose.
	Text string `yaml:"text,omitempty" json:"text,omitempty"`
	// Assert is the boolean expression. Required.
	Assert string `yaml:"assert" json:"assert" jsonschema:"required"`
}

// Claim ties a figure stated in prose to the data.
//
// Text is the exact stated phrase, e.g. "nine times worse" or "It cost 72 minutes". It
// must occur in the document's prose; Check parses the figure in it (a number written in
// digits or words, its unit and any hedge such as "about", "nearly", "under") and
// compares it with Value. Claims with Source instead of Value record where an external
// figure comes from and are not compared.
type Claim struct {
	// Text is the stated phrase, copied exactly from the prose. Required.
	Text string `yaml:"text" json:"text" jsonschema:"required"`
	// Value is a reference to a derived value (ttd, gap:A:B, pct:A:B, ratio:A:B, peak,
	// series@A, a figure ID …) or an arithmetic formula over figure IDs, e.g.
	// "logical * (1 + edge_retry/100)".
	Value string `yaml:"value,omitempty" json:"value,omitempty"`
	// Unit says what a plain number computed by Value means: "%", or "ms", "s", "min" or
	// "h" for a duration. References to durations, percentages and ratios carry their own.
	Unit string `yaml:"unit,omitempty" json:"unit,omitempty" jsonschema:"enum=,enum=%,enum=ms,enum=s,enum=min,enum=h"`
	// Source, instead of Value, records where an external figure comes from.
	Source string `yaml:"source,omitempty" json:"source,omitempty"`
}

// Date is a civil date without a time of day, written YYYY-MM-DD. The zero value means
// "not set".
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// ParseDate parses YYYY-MM-DD.
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Date{}, fmt.Errorf("incident: invalid date %q: want YYYY-MM-DD", s)
	}
	return DateOf(t), nil
}

// DateOf returns the date of t in t's location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{y, m, d}
}

// IsZero reports whether the date is unset.
func (d Date) IsZero() bool { return d == Date{} }

// Time returns midnight at the start of the date in loc.
func (d Date) Time(loc *time.Location) time.Time {
	return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, loc)
}

// Before reports whether d is before e.
func (d Date) Before(e Date) bool { return d.Time(time.UTC).Before(e.Time(time.UTC)) }

// Format formats the date with a time layout, e.g. "2 Jan 2006" → "18 Sep 2026".
func (d Date) Format(layout string) string { return d.Time(time.UTC).Format(layout) }

// String returns YYYY-MM-DD, or "" for the zero date.
func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	return d.Format(time.DateOnly)
}

// MarshalText implements encoding.TextMarshaler.
func (d Date) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Date) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*d = Date{}
		return nil
	}
	v, err := ParseDate(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// JSONSchema describes a Date as a JSON Schema string with format date.
func (Date) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Format: "date", Description: "a civil date, YYYY-MM-DD"}
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
