// Package incident keeps postmortems as typed, checked documents: the *.incident.yaml
// format, its strict decoder, the values derived from its data, the checks that compare
// every figure the document states with what its own timeline, figures and impact series
// compute, and its rendering to a static HTML page and Markdown.
//
// A postmortem states numbers in many places: a duration in the header, a time to detect
// in the timeline, "nine times worse" in a chart caption, "94%" in what went well. Today's
// tools store those as text, so they drift from the timeline they describe. Here a
// duration is never typed: it is computed from milestones. Prose refers to computed
// values with placeholders ({{ttd}}), and a figure written out in prose is tied to the
// data by a claim, which [Check] verifies.
//
// # A short program
//
//	doc, err := incident.Load("payment-timeout.incident.yaml")
//	if err != nil {
//		log.Fatal(err) // every problem as file:line:col: error: what is wrong and what is expected
//	}
//	for _, d := range incident.Check(doc) {
//		fmt.Println(d) // payment-timeout.incident.yaml:155:87: error: factors[2].text: stated "62 minutes" disagrees …
//	}
//	v := doc.Derived()
//	fmt.Println(v.Duration, v.TTD) // 3h 47m 33 min
//
// The command `goodput incident check FILE…` does the same and exits non-zero on errors;
// `goodput schema incident` prints the JSON Schema ([Schema]).
//
// # The format
//
// A document ([Document]) has a header (id, status, severity, authors, reviewers,
// reviewed date, title of any length, services, links, display time zone), named
// milestones ([Milestone]: impact_start, detected, acknowledged, declared, identified,
// mitigation_started, mitigated, resolved, or any other snake_case name) stored in UTC
// with an optional uncertainty interval and conflicting alternatives with their source,
// a residual [Tail], impact figures and further facts ([Figure]: value, unit, note, basis,
// or computed from a reference or formula), a summary, an impact [Series] (inline or a CSV
// file beside the document), timeline entries with phase tags, a root cause, numbered
// contributing factors, what went well / wrong / lucky, action items ([ActionItem]), the
// incident-record sections of an overload case study ([Record]), a decision log
// ([Decision]), a current-constraint ledger ([ConstraintEntry]), a public summary
// ([Public]), a link to the replay that reproduces the incident ([Replay]) and claims
// ([Claim]). examples/incidents/ holds three complete documents.
//
// Decoding ([Decode], [Load]) is strict: unknown keys, wrong types, timestamps not in
// RFC 3339 UTC, bad dates, enumeration values and time zones are errors, all reported at
// once in a [DecodeError]. The decoder records the source position of every value, so that
// later diagnostics point at the right line and column, even inside multi-line prose.
//
// # Derived values
//
// [Document.Derived] computes the impact duration (impact_start → mitigated), time to
// detect (impact_start → detected), time to acknowledge, time to mitigate (detected →
// mitigated, so that TTD + TTM = duration), time to resolve, the tail, the gaps between
// timeline entries, the series peak and the series value at each chart marker.
// [Document.Eval] computes any reference:
//
//	duration ttd tta ttm ttr tail   spans          gap:A:B      time from instant A to B
//	at:A  date:A                    clock / date   ID  fig:ID   a figure
//	peak  peak_at  series@A         the series     pct:X:Y      X as a percentage of Y
//	ratio:X:Y                       X / Y          zone         the display time zone
//
// and [Document.Expand] replaces {{ref}} placeholders in prose with them. Durations print
// like a postmortem page ([FormatDuration]: "3h 47m", "33 min").
//
// # What Check finds
//
// [Check] returns [Diagnostic] values in source order, printed as
// "file:line:col: error: message". It finds milestones, timeline entries, decisions and
// ledger rows out of order; timeline phases and chart markers that disagree with their
// milestone; duplicate or unsourced conflicting values; stated figures that disagree with
// the data; a stated peak that is not the series' maximum; action items without owner,
// due date, status or measurable validation, done without a done date, overdue at the
// review date, or vague; contributing factors with neither an action item nor an
// explicit acceptance; unknown placeholders; and replay claims the linked packet
// contradicts. Durations, ratios and clock times in prose that nothing ties to the data
// are errors too, or warnings with [CheckWith] and [CheckOptions] Lenient (goodput incident
// check --lenient).
//
// # How prose figures are tied to data
//
// A claim names the exact phrase and what it must agree with:
//
//	claims:
//	  - {text: nine times worse than when the alert fired, value: "ratio:peak:series@detected"}
//	  - {text: It cost 72 minutes, value: "gap:scale_up:identified"}
//	  - {text: "produced 14,054.4 modeled", value: logical * (1 + edge_retry/100) * (1 + service_retry/100)}
//	  - {text: approved in under four minutes, source: pull request review timestamps}
//
// The phrase must occur in the prose (when it is edited, the figure now in its place is
// checked, at its position). The figure is read from the phrase in digits or words
// ("thirty-three minutes", "a fifteenth", "twice"), with its unit and any hedge inside the
// phrase. The tolerance is the figure's own precision: an unhedged figure must be the
// computed value rounded or truncated to its last digit — "nine times" admits [8.5, 10),
// so 52% / 6% = 8.7 agrees; "94%" admits [93.5, 95), so 39,600 of 41,900 = 94.5% agrees.
// "about"/"roughly" admit 10%; "nearly" up to 10% below; "over"/"under" a strict bound;
// "within"/"at least" an inclusive one. Besides claims, a percentage written next to "X
// of Y" counts is checked against them automatically.
//
// # Rendering
//
// [RenderHTML] writes a self-contained static page (inline SVG impact chart, no
// JavaScript, a print stylesheet) and [RenderMarkdown] the same content as Markdown.
//
// # Concurrency
//
// Decoding builds a Document; nothing in this package modifies it afterwards, so
// [Check], [Document.Derived], [Document.Eval] and [Document.Expand] may be called from
// several goroutines at once.
package incident
