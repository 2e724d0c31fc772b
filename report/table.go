package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/goodput-lab/goodput/internal/numfmt"
	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/trials"
)

// Table writes the arms of p side by side: a header naming the scenario, the seed and the
// simulated span, then one row per figure with, for every arm, its total and its mean per
// second of simulated time; then, when the arms have them, a block per cell (offered,
// goodput, failed over out and in, refused by the grant) and per dependency guarded by
// circuit breakers (trips, refused calls, the first trip); then the transitions, objective
// notes and failed invariants. It fits [DefaultWidth] columns; [Terminal.Table] fits
// another width.
func Table(w io.Writer, p *packet.Packet) error { return writeTable(w, p, DefaultWidth) }

func writeTable(w io.Writer, p *packet.Packet, width int) error {
	var out bytes.Buffer
	header(&out, p, width)
	if len(p.Arms) == 0 {
		out.WriteString("no arms\n")
		_, err := w.Write(out.Bytes())
		return err
	}
	build(p.Arms).render(&out, width)
	for _, b := range breakdowns(p.Arms) {
		b.render(&out, width)
	}
	againstLive(&out, p.Arms, width)
	footer(&out, p.Arms, width)
	_, err := w.Write(out.Bytes())
	return err
}

func header(b *bytes.Buffer, p *packet.Packet, width int) {
	arms := "arms"
	if len(p.Arms) == 1 {
		arms = "arm"
	}
	headerLine(b, width, fmt.Sprintf("%s: %s", tool(p.Arms), p.Scenario), fmt.Sprintf("seed %d", p.Seed), summary(p),
		fmt.Sprintf("%d %s", len(p.Arms), arms))
	if len(p.Set) > 0 {
		writeWrapped(b, "set: "+strings.Join(p.Set, "; "), width)
	}
	for _, a := range p.Arms {
		if len(a.Set) > 0 {
			writeWrapped(b, "arm "+a.Name+" sets: "+strings.Join(a.Set, "; "), width)
		}
	}
	b.WriteString("\n")
}

// table is rows of a label and two cells (total, per second) per arm.
type table struct {
	arms []packet.Arm
	rows []tableRow
}

type tableRow struct {
	label string
	cells []string // 2 per arm; nil for a section heading
}

// section starts a group of rows.
func (t *table) section(title string) {
	t.rows = append(t.rows, tableRow{label: title})
}

// row adds a figure: f returns the total and per-second cells of one arm.
func (t *table) row(label string, f func(a packet.Arm) (total, perSecond string)) {
	r := tableRow{label: "  " + label}
	for _, a := range t.arms {
		tot, ps := f(a)
		r.cells = append(r.cells, tot, ps)
	}
	t.rows = append(t.rows, r)
}

// count adds a population row: its total and its mean per second.
func (t *table) count(label string, f func(a packet.Arm) int64) {
	t.row(label, func(a packet.Arm) (string, string) {
		n := f(a)
		return Int(n), perSecond(n, a.Duration)
	})
}

// value adds a row with one figure per arm and no per-second column.
func (t *table) value(label string, f func(a packet.Arm) string) {
	t.row(label, func(a packet.Arm) (string, string) { return f(a), "" })
}

// render lays the table out to width: the arms side by side with their per-second
// columns, else without them, else stacked (a line per arm under each figure's label).
func (t *table) render(out *bytes.Buffer, width int) {
	// The per-second columns stay while they leave the labels room; the label column
	// wraps before the arms are stacked.
	const minLabel, minLabelPerS = 24, 40
	for _, perS := range []bool{true, false} {
		var b bytes.Buffer
		min := minLabel
		if perS {
			min = minLabelPerS
		} else {
			writeWrapped(&b, fmt.Sprintf("(per-second columns left out to fit %d columns)", width), width)
		}
		if t.grid(perS, false).render(&b, width, min) {
			out.Write(b.Bytes())
			return
		}
	}
	var b bytes.Buffer
	if !t.grid(true, true).render(&b, width, minLabel) {
		b.Reset()
		t.grid(false, true).render(&b, width, 0)
	}
	out.Write(b.Bytes())
}

// grid is the table as a grid: a column group per arm (total, and per second if perS), or
// stacked: a total and a per-second column, and under each figure's label a line per arm.
func (t *table) grid(perS, stacked bool) *grid {
	units := []string{"total"}
	if perS {
		units = append(units, "per s")
	}
	cells := func(c []string) []string {
		if perS {
			return c
		}
		return c[:1]
	}
	g := &grid{right: true}
	if stacked {
		g.groups = []colGroup{{units: units}}
	} else {
		for _, a := range t.arms {
			g.groups = append(g.groups, colGroup{name: a.Name, units: units})
		}
	}
	for _, r := range t.rows {
		switch {
		case r.cells == nil:
			g.heading(r.label)
		case stacked:
			g.rows = append(g.rows, layoutRow{label: r.label, heading: true, hang: 4}) // under it, the arms at 2
			indent := r.label[:len(r.label)-len(strings.TrimLeft(r.label, " "))]
			for i, a := range t.arms {
				g.row(indent+"  "+a.Name, cells(r.cells[2*i:2*i+2])...)
			}
		default:
			var c []string
			for i := range t.arms {
				c = append(c, cells(r.cells[2*i:2*i+2])...)
			}
			g.row(r.label, c...)
		}
	}
	return g
}

func build(arms []packet.Arm) *table {
	t := &table{arms: arms}

	t.section(sectionPopulations)
	t.count("offered", func(a packet.Arm) int64 { return a.Totals.Offered })
	t.count("admitted", func(a packet.Arm) int64 { return a.Totals.Admitted })
	t.count("rejected", func(a packet.Arm) int64 { return a.Totals.Rejected })
	t.count("goodput", func(a packet.Arm) int64 { return a.Totals.Goodput })
	t.count("late", func(a packet.Arm) int64 { return a.Totals.Late })
	t.count("expired", func(a packet.Arm) int64 { return a.Totals.Expired })
	t.count("failed", func(a packet.Arm) int64 { return a.Totals.Failed })
	t.count("ambiguous", func(a packet.Arm) int64 { return a.Totals.Ambiguous })
	t.value("goodput / offered", func(a packet.Arm) string { return percent(a.Totals.Goodput, a.Totals.Offered) })

	layers := union(arms, func(a packet.Arm) []string { return layerNames(a) })
	t.section(sectionAttempts)
	t.count(attemptsLabel(len(layers)), func(a packet.Arm) int64 { return a.Totals.Attempts })
	t.value("amplification: the most amplified layer", func(a packet.Arm) string { return times(a.Amplification.Total) })
	t.value("the most amplified layer's worst tick", func(a packet.Arm) string {
		if a.Amplification.Peak == 0 {
			return "–"
		}
		return times(a.Amplification.Peak)
	})
	for _, layer := range layers {
		t.value("at "+layer, func(a packet.Arm) string {
			v, ok := a.Amplification.ByLayer[layer]
			if !ok {
				return ""
			}
			return times(v)
		})
	}

	t.section(sectionShed)
	t.count("features shed", func(a packet.Arm) int64 { return a.Totals.Shed })
	for _, feature := range union(arms, func(a packet.Arm) []string { return sortedKeys(a.ShedBy) }) {
		t.count("  "+feature, func(a packet.Arm) int64 { return a.ShedBy[feature] })
	}

	t.section(sectionLatency)
	t.value("mean", func(a packet.Arm) string { return meanCell(a.Latency) })
	t.value("p50", func(a packet.Arm) string { return msCell(a.Latency.Count, a.Latency.P50) })
	t.value("p99", func(a packet.Arm) string { return msCell(a.Latency.Count, a.Latency.P99) })
	t.value("p99.9", func(a packet.Arm) string { return msCell(a.Latency.Count, a.Latency.P999) })
	for _, class := range union(arms, classNames) {
		t.value(class+" p99", func(a packet.Arm) string {
			for _, c := range a.Classes {
				if c.Name == class {
					return msCell(c.Latency.Count, c.Latency.P99)
				}
			}
			return ""
		})
	}

	t.section("Queue (sampled once a tick)")
	t.value("oldest queue age, highest sample (ms)", func(a packet.Arm) string { return sampled(a, a.Queue.AgeMax) })
	t.value("oldest queue age, mean of samples (ms)", func(a packet.Arm) string { return sampled(a, a.Queue.AgeMean) })

	t.section("Retries (every layer)")
	t.count("retries", func(a packet.Arm) int64 { return a.Retry.Retries })
	t.value("retries / admitted", func(a packet.Arm) string { return percent(a.Retry.Retries, a.Totals.Admitted) })
	t.count("retries suppressed (not made)", func(a packet.Arm) int64 { return a.Retry.Suppressed })
	for _, reason := range union(arms, func(a packet.Arm) []string { return sortedKeys(a.Retry.SuppressedBy) }) {
		t.count("  "+reason, func(a packet.Arm) int64 { return a.Retry.SuppressedBy[reason] })
	}
	if slices.ContainsFunc(arms, func(a packet.Arm) bool { return a.Retry.Budget != nil }) {
		t.row("retry budget: tokens used", func(a packet.Arm) (string, string) {
			if a.Retry.Budget == nil {
				return "–", ""
			}
			return Int(a.Retry.Budget.TokensUsed), perSecond(a.Retry.Budget.TokensUsed, a.Duration)
		})
	}

	t.section("Duplicate mutations")
	t.count("payment authorisations", func(a packet.Arm) int64 { return a.Duplicates.PaymentAuthorizations })
	t.count("order commits", func(a packet.Arm) int64 { return a.Duplicates.OrderCommits })
	for _, kind := range union(arms, func(a packet.Arm) []string { return sortedKeys(a.Duplicates.Other) }) {
		t.count(kind, func(a packet.Arm) int64 { return a.Duplicates.Other[kind] })
	}

	t.section("Wasted and stopped work")
	t.count(orphansLabel, func(a packet.Arm) int64 { return a.Totals.Orphans })
	t.count("work stopped by a cancellation", func(a packet.Arm) int64 { return a.Totals.CancelsCompleted })

	if deps := union(arms, depNames); len(deps) > 0 {
		t.section("Dependencies")
		for _, dep := range deps {
			get := func(a packet.Arm) (packet.DependencyStats, bool) {
				for _, d := range a.Dependencies {
					if d.Name == dep {
						return d, true
					}
				}
				return packet.DependencyStats{}, false
			}
			// An arm without the dependency's figures (a live arm measures none) shows
			// dashes, not zeros.
			t.row(dep+" calls", func(a packet.Arm) (string, string) {
				d, ok := get(a)
				if !ok {
					return "–", ""
				}
				return Int(d.Calls), perSecond(d.Calls, a.Duration)
			})
			t.value(dep+" service time p99 (ms)", func(a packet.Arm) string {
				d, ok := get(a)
				if !ok {
					return "–"
				}
				return msCell(d.ServiceTime.Count, d.ServiceTime.P99)
			})
			t.value(dep+" connection wait p99 (ms)", func(a packet.Arm) string {
				d, ok := get(a)
				if !ok {
					return "–"
				}
				return msCell(d.ConnWait.Count, d.ConnWait.P99)
			})
			t.value(dep+" calls in service, highest sample", func(a packet.Arm) string {
				d, ok := get(a)
				if !ok {
					return "–"
				}
				return Int(int64(d.ConcurrencyMax))
			})
		}
	}

	if caches := union(arms, func(a packet.Arm) []string {
		n := make([]string, len(a.Caches))
		for i, c := range a.Caches {
			n[i] = c.Name
		}
		return n
	}); len(caches) > 0 {
		t.section("Caches")
		for _, name := range caches {
			get := func(a packet.Arm) (packet.CacheStats, bool) {
				i := slices.IndexFunc(a.Caches, func(c packet.CacheStats) bool { return c.Name == name })
				if i < 0 {
					return packet.CacheStats{}, false
				}
				return a.Caches[i], true
			}
			t.value(name+" hit ratio", func(a packet.Arm) string {
				c, ok := get(a)
				if !ok {
					return ""
				}
				return percent(c.Hits, c.Hits+c.Misses)
			})
			t.count(name+" misses (backend work)", func(a packet.Arm) int64 { c, _ := get(a); return c.Misses })
			t.count(name+" entries evicted for memory", func(a packet.Arm) int64 { c, _ := get(a); return c.Evictions })
			t.value(name+" entries held, fewest sampled", func(a packet.Arm) string {
				c, ok := get(a)
				if !ok {
					return ""
				}
				return Int(int64(c.EntriesMin))
			})
		}
	}

	if svcs := union(arms, func(a packet.Arm) []string {
		n := make([]string, len(a.Health))
		for i, h := range a.Health {
			n[i] = h.Service
		}
		return n
	}); len(svcs) > 0 {
		t.section("Health checks")
		for _, name := range svcs {
			get := func(a packet.Arm) packet.HealthStats {
				if i := slices.IndexFunc(a.Health, func(h packet.HealthStats) bool { return h.Service == name }); i >= 0 {
					return a.Health[i]
				}
				return packet.HealthStats{}
			}
			t.count(name+" probes with a verdict", func(a packet.Arm) int64 { return get(a).Probes })
			t.count(name+" probes failed", func(a packet.Arm) int64 { return get(a).ProbesFailed })
			t.count(name+" instances taken out of routing", func(a packet.Arm) int64 { return get(a).Removals })
			t.count(name+" instances returned", func(a packet.Arm) int64 { return get(a).Returns })
			t.count(name+" instances restarted", func(a packet.Arm) int64 { return get(a).Restarts })
			t.count(name+" attempts killed with them", func(a packet.Arm) int64 { return get(a).AttemptsKilled })
		}
	}

	if slices.ContainsFunc(arms, func(a packet.Arm) bool { return a.Live != nil }) {
		live := func(f func(l *packet.Live) string) func(a packet.Arm) string {
			return func(a packet.Arm) string {
				if a.Live == nil {
					return "–"
				}
				return f(a.Live)
			}
		}
		cpu := func(d time.Duration) string { return Float(packet.Milliseconds(d), 3) }
		t.section(sectionLive)
		t.value("sent by the generator", live(func(l *packet.Live) string { return Int(l.Sent) }))
		t.value("not sent: every worker busy past the deadline, or no order yet to name", live(func(l *packet.Live) string { return Int(l.Unsent) }))
		t.value("generator's send lateness p99 (ms)", live(func(l *packet.Live) string { return msCell(l.Lateness.Count, l.Lateness.P99) }))
		t.value("generator CPU per attempt (ms)", live(func(l *packet.Live) string { return cpu(l.Overhead.GeneratorCPUPerRequest) }))
		t.value("proxy CPU per call (ms)", live(func(l *packet.Live) string { return cpu(l.Overhead.ProxyCPUPerRequest) }))
		t.value("service CPU per attempt (ms)", live(func(l *packet.Live) string { return cpu(l.Overhead.ServiceCPUPerRequest) }))
		t.value("the lab's share of the machine's CPU", live(func(l *packet.Live) string {
			if l.Overhead.Cores == 0 {
				return "–"
			}
			return Float(100*l.Overhead.CPUShare, 1) + "%"
		}))
		for _, dep := range union(arms, func(a packet.Arm) []string {
			var n []string
			if a.Live != nil {
				for _, p := range a.Live.Proxies {
					n = append(n, p.Dependency)
				}
			}
			return n
		}) {
			proxy := func(f func(p packet.ProxyEvidence) int64) func(a packet.Arm) string {
				return live(func(l *packet.Live) string {
					for _, p := range l.Proxies {
						if p.Dependency == dep {
							return Int(f(p))
						}
					}
					return "–"
				})
			}
			t.value(dep+" calls at its proxy", proxy(func(p packet.ProxyEvidence) int64 { return p.Requests }))
			t.value(dep+" work started after the deadline", proxy(func(p packet.ProxyEvidence) int64 { return p.StartedAfterDeadline }))
			t.value(dep+" work started after the caller left", proxy(func(p packet.ProxyEvidence) int64 { return p.StartedAfterCancel }))
		}
	}

	t.section("Load state")
	t.value("transitions", func(a packet.Arm) string { return Int(int64(len(a.Transitions))) })

	if objs := objectiveRows(arms); len(objs) > 0 {
		t.section("Objectives")
		for _, o := range objs {
			t.value(o.label, func(a packet.Arm) string {
				for _, x := range a.Objectives {
					if x.Name == o.name {
						return objectiveCell(x)
					}
				}
				return ""
			})
		}
	}

	t.alerts(arms)

	t.section("Invariants")
	for _, name := range union(arms, func(a packet.Arm) []string {
		var n []string
		for _, inv := range a.Invariants {
			n = append(n, inv.Name)
		}
		return n
	}) {
		t.value(name, func(a packet.Arm) string {
			for _, inv := range a.Invariants {
				if inv.Name == name {
					return mark(inv.Pass)
				}
			}
			return ""
		})
	}

	rc := arms[0].Recovery
	// Recovery measured from an instant at or after the end of the run has nothing to show.
	recovery := func(a packet.Arm, v *time.Duration, sampledOnly bool) string {
		if a.Recovery.After >= a.Duration && a.Duration > 0 || sampledOnly && a.Samples == 0 {
			return "–"
		}
		return secondsCell(v)
	}
	t.section(recoveryHeading(arms[0]))
	t.value(fmt.Sprintf("%s (every tick ≥ %s%% of offered)", recoveryStable, Float(100*rc.StableFrac, 0)),
		func(a packet.Arm) string { return recovery(a, a.Recovery.Stabilize, false) })
	t.value(fmt.Sprintf("%s (oldest queue age ≤ %s ms)", recoveryDrained, Float(packet.Milliseconds(rc.DrainAge), 0)),
		func(a packet.Arm) string { return recovery(a, a.Recovery.Drain, true) })
	normal := recoveryNormal
	if slices.ContainsFunc(arms, func(a packet.Arm) bool { return a.Recovery.StateSource == "derived" }) {
		normal += " (without a load state: stable and drained)"
	}
	t.value(normal, func(a packet.Arm) string { return recovery(a, a.Recovery.Normal, true) })
	return t
}

// The labels the comparison table shares with the sweep tables and the pages (the sweep's
// figures carry the same words, see trials.Figures).
const (
	sectionPopulations = "Logical requests, by outcome (counted when the caller had its answer or gave up)"
	sectionAttempts    = "Attempts (physical work) and amplification (attempts per offered, by layer)"
	sectionShed        = "Optional features shed (not requests: a request may lose several)"
	sectionLatency     = "Completion latency of admitted requests, any outcome (ms)"
	orphansLabel       = "orphaned work (finished after its caller stopped waiting)"
	recoveryStable     = "goodput stable again"
	recoveryDrained    = "queues drained"
	recoveryNormal     = "back to Normal"
)

// sectionLive heads the live run's own figures; sectionAgainstLive the replay's distance
// from the live run.
const (
	sectionLive        = "Live run: the generator, the lab's own CPU and the fault proxies' evidence"
	sectionAgainstLive = "Replay against the live run"
)

// tool names what wrote the packet: goodput lab for one with a live arm.
func tool(arms []packet.Arm) string {
	if slices.ContainsFunc(arms, func(a packet.Arm) bool { return a.IsLive() }) {
		return "goodput lab"
	}
	return "goodput replay"
}

// livePair is a live arm and the replay beside it in a lab packet.
type livePair struct{ live, replay *packet.Arm }

// livePairs are the live arms of arms that have their replay ([packet.ReplayName]) beside
// them, in the arms' order.
func livePairs(arms []packet.Arm) []livePair {
	var out []livePair
	for i := range arms {
		if !arms[i].IsLive() {
			continue
		}
		name := packet.ReplayName(arms[i].Name)
		if j := slices.IndexFunc(arms, func(a packet.Arm) bool { return a.Name == name && a.Source == packet.SourceReplay }); j >= 0 {
			out = append(out, livePair{&arms[i], &arms[j]})
		}
	}
	return out
}

// pairFigure is one figure of the replay against the live run: a sweep's figure
// ([trials.Figures]), or with rate set that figure per second of the run.
type pairFigure struct {
	label string
	fig   trials.Figure
	rate  bool
}

// pairFigures are the figures the replay is held against the live run by, in order.
func pairFigures() []pairFigure {
	byKey := map[string]trials.Figure{}
	for _, f := range trials.Figures() {
		byKey[f.Key] = f
	}
	return []pairFigure{
		{label: "offered per s", fig: byKey["offered"], rate: true},
		{label: "goodput / offered", fig: byKey["goodput_fraction"]},
		{label: "goodput per s", fig: byKey["goodput"], rate: true},
		{label: "attempts per offered (the most amplified layer)", fig: byKey["amplification"]},
		{label: "completion latency p50 (ms)", fig: byKey["latency_p50_ms"]},
		{label: "completion latency p99 (ms)", fig: byKey["latency_p99_ms"]},
		{label: "oldest queue age, highest sample (ms)", fig: byKey["queue_age_max_ms"]},
		{label: "retries / admitted", fig: byKey["retry_ratio"]},
		{label: "rejected", fig: byKey["rejected"]},
		{label: "duplicate mutations", fig: byKey["duplicates"]},
	}
}

// value is the figure on arm a, and whether a measured it.
func (f pairFigure) value(a *packet.Arm) (float64, bool) {
	v, ok := f.fig.Value(a)
	if f.rate {
		secs := packet.Seconds(a.Duration)
		return v / max(secs, 1e-9), ok && secs > 0
	}
	return v, ok
}

// text formats a value of the figure as the sweep tables do (signed for a difference).
func (f pairFigure) text(v float64, signed bool) string {
	if f.rate {
		s := Float(v, 1)
		if signed && strings.Trim(s, "0.,-") != "" {
			if strings.HasPrefix(s, "-") {
				return "−" + s[1:]
			}
			return "+" + s
		}
		return strings.TrimPrefix(s, "-")
	}
	return figureValue(f.fig, v, signed)
}

// againstLive writes, for a packet with live arms and their replays, how far each replay
// is from its live run, figure by figure: live, replay, replay − live and that relative
// to live. A figure an arm did not measure (a live run samples no queue) is a dash.
func againstLive(b *bytes.Buffer, arms []packet.Arm, width int) {
	pairs := livePairs(arms)
	if len(pairs) == 0 {
		return
	}
	g := &grid{right: true, groups: []colGroup{{units: []string{"live", "replay", "replay − live", "%"}}}}
	for _, pr := range pairs {
		g.heading(fmt.Sprintf("  %s (live) against %s", pr.live.Name, pr.replay.Name))
		for _, f := range pairFigures() {
			lv, lok := f.value(pr.live)
			rv, rok := f.value(pr.replay)
			cells := []string{"–", "–", "", ""}
			if lok {
				cells[0] = f.text(lv, false)
			}
			if rok {
				cells[1] = f.text(rv, false)
			}
			if lok && rok {
				cells[2], cells[3] = f.text(rv-lv, true), relative(lv, rv)
			}
			g.row("    "+f.label, cells...)
		}
	}
	var out bytes.Buffer
	out.WriteString("\n")
	writeWrapped(&out, sectionAgainstLive, width)
	if !g.render(&out, width, 24) {
		g.render(&out, width, 0)
	}
	b.Write(out.Bytes())
}

// relative is replay − live relative to live, as goodput diff writes a change: "+12.5%",
// "−3.0%", "0%"; "–" when live is 0 and the replay not.
func relative(live, replay float64) string {
	switch {
	case live == replay:
		return "0%"
	case live == 0:
		return "–"
	}
	p := 100 * (replay - live) / math.Abs(live)
	s := Float(math.Abs(p), 1)
	if p < 0 {
		return "−" + s + "%"
	}
	return "+" + s + "%"
}

// attemptsLabel says what the attempts total adds up: every try at each of n layers.
func attemptsLabel(n int) string {
	if n == 1 {
		return "attempts (one layer)"
	}
	return fmt.Sprintf("attempts, summed over %d layers", n)
}

// recoveryHeading names the instant arm a's recovery timings count from: the after of
// its time_to_normal objective, or the start of the run without one.
func recoveryHeading(a packet.Arm) string {
	at := Float(packet.Seconds(a.Recovery.After), 0)
	switch {
	case slices.ContainsFunc(a.Objectives, func(o packet.Objective) bool { return o.Metric == "time_to_normal" }):
		return fmt.Sprintf("Recovery, seconds after t=%s s (the time_to_normal objective's after)", at)
	case a.Recovery.After == 0:
		return "Recovery, seconds after t=0 s (the start: no time_to_normal objective)"
	}
	return fmt.Sprintf("Recovery, seconds after t=%s s", at)
}

// objectiveName is an objective's name and, when the packet says, the statistic its
// value is: "goodput floor: goodput per second, mean over t=180–540 s".
func objectiveName(name, statistic string) string {
	if statistic == "" {
		return name
	}
	return name + ": " + statistic
}

// footer lists the transitions, objective notes and failed invariants of every arm.
func footer(b *bytes.Buffer, arms []packet.Arm, width int) {
	var tr, notes, failed []string
	for _, a := range arms {
		for _, x := range a.Transitions {
			manual := ""
			if x.Manual {
				manual = " (manual)"
			}
			tr = append(tr, fmt.Sprintf("  %s  t=%s s  %s → %s  generation %d%s  %s",
				a.Name, Float(packet.Seconds(x.T), 1), x.From, x.To, x.Generation, manual, x.Reason))
		}
		for _, o := range a.Objectives {
			if o.Note != "" {
				notes = append(notes, fmt.Sprintf("  %s  %s: %s", a.Name, o.Name, o.Note))
			}
		}
		for _, inv := range a.Invariants {
			if !inv.Pass {
				failed = append(failed, fmt.Sprintf("  %s  %s: %s", a.Name, inv.Name, inv.Message))
			}
		}
	}
	for _, s := range []struct {
		title string
		lines []string
	}{{"Transitions", tr}, {"Objective notes", notes}, {"Failed invariants", failed}} {
		if len(s.lines) == 0 {
			continue
		}
		fmt.Fprintf(b, "\n%s\n", s.title)
		for _, l := range s.lines {
			writeWrapped(b, l, width)
		}
	}
}

type objectiveRow struct{ name, label string }

func objectiveRows(arms []packet.Arm) []objectiveRow {
	var rows []objectiveRow
	for _, a := range arms {
		for _, o := range a.Objectives {
			if slices.ContainsFunc(rows, func(r objectiveRow) bool { return r.name == o.Name }) {
				continue
			}
			rows = append(rows, objectiveRow{name: o.Name, label: objectiveName(o.Name, o.Statistic) + " " + target(o)})
		}
	}
	return rows
}

// target renders an objective's bound: "≤ 1,800 ms".
func target(o packet.Objective) string {
	op := map[string]string{"<=": "≤", ">=": "≥", "in": "≤"}[o.Op]
	if asPercent(o) {
		return op + " " + trimZeros(Float(100*o.Target, 2)) + "%"
	}
	v := numberIn(o.Unit, o.Target)
	if o.Target == math.Trunc(o.Target) && o.Unit != "x" {
		v = Float(o.Target, 0)
	}
	s := strings.TrimSpace(op + " " + v)
	switch {
	case strings.HasPrefix(o.Unit, "/"):
		s += o.Unit // 7,800/s
	case o.Unit != "" && o.Unit != "x":
		s += " " + o.Unit
	}
	if o.Unit == "x" {
		s += "×"
	}
	return s
}

func objectiveCell(o packet.Objective) string {
	if o.NoData {
		return "– n/a"
	}
	return mark(o.Pass) + " " + objectiveValue(o.Metric, o.Unit, o.Value)
}

// objectiveValue formats an objective's value of metric in unit.
func objectiveValue(metric, unit string, v float64) string {
	if asPercent(packet.Objective{Metric: metric, Unit: unit}) {
		return Float(100*v, 2) + "%"
	}
	s := numberIn(unit, v)
	if unit == "x" {
		s += "×"
	}
	return s
}

// asPercent reports whether an objective's ratio reads better as a percentage: a fraction of
// a population rather than an amplification.
func asPercent(o packet.Objective) bool {
	return o.Unit == "x" && (o.Metric == "goodput_fraction" || o.Metric == "retry_ratio")
}

// trimZeros drops trailing zeros after a decimal point: "90.00" → "90", "2.50" → "2.5".
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

// numberIn formats a value in an objective's unit.
func numberIn(unit string, v float64) string {
	switch unit {
	case "x":
		return Float(v, 3)
	case "s":
		return Float(v, 0)
	case "":
		if v == math.Trunc(v) {
			return Float(v, 0)
		}
		return Float(v, 2)
	}
	return Float(v, 1)
}

func mark(pass bool) string {
	if pass {
		return "✓"
	}
	return "✗"
}

// meanCell formats a mean in ms, or a dash when there is none (no count, or a packet
// written before its arm had means).
func meanCell(p packet.Percentiles) string {
	if p.Mean == 0 {
		return "–"
	}
	return msCell(p.Count, p.Mean)
}

func msCell(count int64, v time.Duration) string {
	if count == 0 {
		return "–"
	}
	return Float(packet.Milliseconds(v), 1)
}

// sampled formats a gauge in ms, or a dash when the arm took no samples.
func sampled(a packet.Arm, v time.Duration) string {
	if a.Samples == 0 {
		return "–"
	}
	return Float(packet.Milliseconds(v), 1)
}

func secondsCell(v *time.Duration) string {
	if v == nil {
		return "never"
	}
	return Float(packet.Seconds(*v), 0)
}

func times(v float64) string { return Float(v, 3) + "×" }

func percent(n, d int64) string {
	if d == 0 {
		return "–"
	}
	return Float(100*float64(n)/float64(d), 1) + "%"
}

func perSecond(n int64, d time.Duration) string {
	seconds := packet.Seconds(d)
	if seconds <= 0 {
		return ""
	}
	return Float(float64(n)/seconds, 1)
}

// Int formats n with thousands separators (as [numfmt.Int]): 21600000 → "21,600,000".
func Int(n int64) string { return numfmt.Int(n) }

// Float formats x with dec decimals and thousands separators (as [numfmt.Fixed]):
// 9000.04, 1 → "9,000.0"; NaN and infinities are "–".
func Float(x float64, dec int) string { return numfmt.Fixed(x, dec) }

// union returns the names f gives for every arm, in first-seen order.
func union(arms []packet.Arm, f func(packet.Arm) []string) []string {
	var out []string
	for _, a := range arms {
		for _, n := range f(a) {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// layerNames lists an arm's layers in report order, falling back to the amplification map
// (sorted) for a packet without layer details.
func layerNames(a packet.Arm) []string {
	if len(a.Layers) > 0 {
		n := make([]string, len(a.Layers))
		for i, l := range a.Layers {
			n[i] = l.Name
		}
		return n
	}
	return sortedKeys(a.Amplification.ByLayer)
}

func classNames(a packet.Arm) []string {
	n := make([]string, len(a.Classes))
	for i, c := range a.Classes {
		n[i] = c.Name
	}
	return n
}

func depNames(a packet.Arm) []string {
	n := make([]string, len(a.Dependencies))
	for i, d := range a.Dependencies {
		n[i] = d.Name
	}
	return n
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
