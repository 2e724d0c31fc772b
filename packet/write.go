package packet

import (
	"bufio"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// The file names of a packet directory.
const (
	JSONFile   = "packet.json"
	SeriesFile = "series.csv"
	EventsFile = "events.jsonl"
)

// WriteJSON writes the packet as indented JSON (packet.json), ending in a newline. Identical
// packets give identical bytes.
func (p *Packet) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(p.wire()); err != nil {
		return fmt.Errorf("packet: encode json: %w", err)
	}
	return nil
}

// WriteDir creates dir if needed and writes packet.json, series.csv and events.jsonl in it.
func (p *Packet) WriteDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("packet: %w", err)
	}
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{
		{JSONFile, p.WriteJSON},
		{SeriesFile, func(w io.Writer) error { return WriteSeriesCSV(w, p.Arms...) }},
		{EventsFile, func(w io.Writer) error { return WriteEventsJSONL(w, p.Arms...) }},
	} {
		if err := writeFile(filepath.Join(dir, f.name), f.write); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("packet: %w", err)
	}
	bw := bufio.NewWriter(f)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("packet: write %s: %w", path, err)
	}
	return nil
}

// seriesColumns are the fixed columns of series.csv; per-dependency columns follow.
var seriesColumns = []string{
	"t_s", "time", "arm",
	"offered_per_s", "admitted_per_s", "rejected_per_s", "attempts_per_s", "retries_per_s",
	"suppressed_per_s", "goodput_per_s", "late_per_s", "expired_per_s", "failed_per_s",
	"ambiguous_per_s", "shed_per_s", "orphans_per_s", "cancellations_completed_per_s",
	"duplicates", "cache_hits_per_s", "cache_misses_per_s", "amplification", "latency_p50_ms", "latency_p99_ms",
	"queue_age_max_ms", "queue_len", "in_flight", "pool_waiters",
	"instances_requested", "instances_process_ready", "instances_route_ready", "instances_warm",
	"state", "generation", "admission_limit", "slack_p10_ms",
}

// constraintColumn is the column of the binding constraint ([Sample.Constraint]). It
// follows the fixed columns when some arm names a binding constraint (every replay's
// does), and is left out otherwise (a live run's, a packet of an older goodput).
const constraintColumn = "constraint"

// seriesLayout is the column layout of series.csv for a set of arms: the fixed columns,
// the constraint column if any, then every layer, dependency and cache of any arm, in
// first-seen order.
type seriesLayout struct {
	header               []string
	constraint           bool
	layers, deps, caches []string
}

// namesConstraints reports whether some sampled tick of some arm names a binding
// constraint.
func namesConstraints(arms []Arm) bool {
	for _, a := range arms {
		for i := range a.Series {
			if r := &a.Series[i]; r.Sampled && r.Constraint != "" {
				return true
			}
		}
	}
	return false
}

func layoutOf(arms []Arm, constraint bool) seriesLayout {
	l := seriesLayout{constraint: constraint}
	for _, a := range arms {
		for _, c := range a.CacheNames {
			if !slices.Contains(l.caches, c) {
				l.caches = append(l.caches, c)
			}
		}
		for _, x := range a.Layers {
			if !slices.Contains(l.layers, x.Name) {
				l.layers = append(l.layers, x.Name)
			}
		}
		for _, d := range a.DependencyNames {
			if !slices.Contains(l.deps, d) {
				l.deps = append(l.deps, d)
			}
		}
	}
	l.header = slices.Clone(seriesColumns)
	if l.constraint {
		l.header = append(l.header, constraintColumn)
	}
	for _, x := range l.layers {
		l.header = append(l.header, "attempts_"+x+"_per_s")
	}
	for _, d := range l.deps {
		l.header = append(l.header, "dep_"+d+"_in_service", "dep_"+d+"_waiting")
	}
	for _, c := range l.caches {
		l.header = append(l.header, "cache_"+c+"_entries")
	}
	return l
}

// WriteSeriesCSV writes series.csv: a header, then one row per tick per arm on the shared
// clock, ordered by time and then by arm. Counters are per second of the tick (a terminal
// outcome counts in the tick its caller had its answer or gave up in); gauges are
// the tick's sample (empty when the tick was not sampled); amplification is the tick's
// attempts per offered request at its most amplified layer (see [Amplification]; empty when
// nothing was offered). When some arm names a binding constraint (every replay does), the
// column constraint follows slack_p10_ms: the tick's [Sample.Constraint], the resource or
// control that limits deadline-valid goodput ("none" when nothing is saturated; empty
// when the tick was not sampled or the arm names none). Each layer adds a column
// attempts_LAYER_per_s, each dependency the columns dep_NAME_in_service and
// dep_NAME_waiting, and each cache cache_NAME_entries.
func WriteSeriesCSV(w io.Writer, arms ...Arm) error {
	l := layoutOf(arms, namesConstraints(arms))
	cw := csv.NewWriter(w)
	if err := cw.Write(l.header); err != nil {
		return err
	}
	n := 0
	for _, a := range arms {
		n = max(n, len(a.Series))
	}
	rec := make([]string, 0, len(l.header))
	for i := range n {
		for _, a := range arms {
			if i >= len(a.Series) {
				continue
			}
			rec = seriesRecord(rec[:0], a, a.Series[i], l)
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func seriesRecord(rec []string, a Arm, row Row, l seriesLayout) []string {
	tick := a.Tick
	if tick <= 0 {
		tick = time.Second
	}
	per := func(n int64) string { return fmtFloat(round(float64(n)/tick.Seconds(), 3)) }
	i64 := func(n int64) string { return strconv.FormatInt(n, 10) }
	num := func(n int) string { return strconv.Itoa(n) }
	rec = append(rec,
		fmtFloat(seconds(row.T)), a.Start.Add(row.T).UTC().Format(time.RFC3339Nano), a.Name,
		per(row.Offered), per(row.Admitted), per(row.Rejected), per(row.Attempts), per(row.Retries),
		per(row.Suppressed), per(row.Goodput), per(row.Late), per(row.Expired), per(row.Failed),
		per(row.Ambiguous), per(row.Shed), per(row.Orphans), per(row.CancelsCompleted),
		i64(row.Duplicates), per(row.CacheHits), per(row.CacheMisses),
	)
	if amp, ok := row.Amplification(); ok {
		rec = append(rec, fmtFloat(amp))
	} else {
		rec = append(rec, "")
	}
	if row.LatencyP99 > 0 || row.LatencyP50 > 0 {
		rec = append(rec, fmtFloat(ms(row.LatencyP50)), fmtFloat(ms(row.LatencyP99)))
	} else {
		rec = append(rec, "", "")
	}
	if !row.Sampled {
		for range sampledGaugeCount {
			rec = append(rec, "")
		}
	} else {
		s := row.Sample
		rec = append(rec,
			fmtFloat(ms(s.QueueAgeMax)), num(s.QueueLen), num(s.InFlight), num(s.PoolWaiters),
			num(s.Instances.Requested), num(s.Instances.ProcessReady), num(s.Instances.RouteReady),
			num(s.Instances.Warm), s.State, strconv.FormatUint(s.Generation, 10),
			num(s.AdmissionLimit), fmtFloat(ms(s.SlackP10)),
		)
	}
	if l.constraint {
		if row.Sampled {
			rec = append(rec, row.Constraint)
		} else {
			rec = append(rec, "")
		}
	}
	for _, name := range l.layers {
		var n int64
		if j := slices.IndexFunc(a.Layers, func(x LayerStats) bool { return x.Name == name }); j >= 0 && j < len(row.LayerAttempts) {
			n = row.LayerAttempts[j]
		}
		rec = append(rec, per(n))
	}
	if !row.Sampled {
		for range l.deps {
			rec = append(rec, "", "")
		}
		for range l.caches {
			rec = append(rec, "")
		}
		return rec
	}
	for _, d := range l.deps {
		j := slices.Index(a.DependencyNames, d)
		if j < 0 || j >= len(row.Dependencies) {
			rec = append(rec, "", "")
			continue
		}
		g := row.Dependencies[j]
		rec = append(rec, num(g.InService), num(g.Waiting))
	}
	for _, c := range l.caches {
		j := slices.Index(a.CacheNames, c)
		if j < 0 || j >= len(row.CacheEntries) {
			rec = append(rec, "")
			continue
		}
		rec = append(rec, num(row.CacheEntries[j]))
	}
	return rec
}

func fmtFloat(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// WriteEventsJSONL writes events.jsonl: one JSON object per line for every annotation and
// transition of every arm, ordered by time and then by arm.
func WriteEventsJSONL(w io.Writer, arms ...Arm) error {
	var all []Event
	for _, a := range arms {
		all = append(all, a.Events...)
	}
	// Arms' events are each in time order; a stable sort by time keeps arm order on ties.
	slices.SortStableFunc(all, func(x, y Event) int { return cmp.Compare(x.T, y.T) })
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, e := range all {
		if err := enc.Encode(e.wire()); err != nil {
			return err
		}
	}
	return nil
}
