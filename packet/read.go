package packet

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The largest files Read accepts; a replay of 40 simulated minutes at a 1 s tick writes
// about 30 KB of packet.json, 1 MB of series.csv and 5 KB of events.jsonl.
const (
	MaxJSONSize   = 16 << 20
	MaxSeriesSize = 256 << 20
	MaxEventsSize = 16 << 20
	// MaxSeriesRows bounds the rows of series.csv over all arms (a week of 1 s ticks for
	// two arms, and then some).
	MaxSeriesRows = 2 << 20
	// maxEventLine bounds one line of events.jsonl.
	maxEventLine = 1 << 20
)

// Read loads a packet directory as [Packet.WriteDir] writes it: packet.json, series.csv and
// events.jsonl, with every arm's Series, Events, DependencyNames and CacheNames. Writing the
// packet it returns gives the same bytes, and the reports drawn from it are the replay's.
// Errors name the file and the line (and column) of what is wrong.
func Read(dir string) (*Packet, error) {
	var f [3]file
	for i, x := range []struct {
		name  string
		limit int64
	}{{JSONFile, MaxJSONSize}, {SeriesFile, MaxSeriesSize}, {EventsFile, MaxEventsSize}} {
		f[i].name = filepath.Join(dir, x.name)
		var err error
		if f[i].data, err = readFile(f[i].name, x.limit); err != nil {
			return nil, err
		}
	}
	return decode(f[0], f[1], f[2])
}

// file is the contents of a packet file and the name its errors give.
type file struct {
	name string
	data []byte
}

// decode decodes the three files of a packet directory.
func decode(js, series, events file) (*Packet, error) {
	p, err := decodeJSON(js.data, js.name)
	if err != nil {
		return nil, err
	}
	if err := readSeries(p, bytes.NewReader(series.data), series.name); err != nil {
		return nil, err
	}
	if err := readEvents(p, bytes.NewReader(events.data), events.name); err != nil {
		return nil, err
	}
	return p, nil
}

// ReadJSON reads a lone packet.json: the packet without its series and events (Arm.Series
// and Arm.Events are empty; DependencyNames and CacheNames name the arm's dependencies and
// caches). Use [Read] for a whole packet directory.
func ReadJSON(path string) (*Packet, error) {
	data, err := readFile(path, MaxJSONSize)
	if err != nil {
		return nil, err
	}
	return decodeJSON(data, path)
}

// readFile reads a regular file of at most limit bytes.
func readFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("packet: %s is missing; a packet directory holds %s, %s and %s, as goodput replay --out writes them: %w",
			path, JSONFile, SeriesFile, EventsFile, os.ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("packet: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return nil, fmt.Errorf("packet: %w", err)
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("packet: %s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("packet: %w", err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("packet: %s is larger than %d MiB, the most a packet file may be", path, limit>>20)
	}
	return data, nil
}

// decodeJSON decodes packet.json strictly: a field this version does not know is an error
// (the packet is from a newer goodput, or not a packet).
func decodeJSON(data []byte, name string) (*Packet, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var w packetJSON
	if err := dec.Decode(&w); err != nil {
		return nil, jsonError(data, name, 1, name, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s:%s: data after the packet's closing brace; expected one JSON object", name, position(data, dec.InputOffset(), 1))
	}
	if len(w.Arms) == 0 {
		return nil, fmt.Errorf("%s: has no arms; expected a top-level \"arms\" list, as goodput replay writes", name)
	}
	seen := map[string]bool{}
	for i, a := range w.Arms {
		switch {
		case a.Name == "":
			return nil, fmt.Errorf("%s: arms[%d] has no name", name, i)
		case seen[a.Name]:
			return nil, fmt.Errorf("%s: arms[%d]: a second arm named %q; arm names must differ", name, i, a.Name)
		}
		seen[a.Name] = true
		if a.Source != "" && a.Source != SourceReplay && a.Source != SourceLive {
			return nil, fmt.Errorf("%s:%s: arms[%d] (%s): source %q; expected %q or %q", name, position(data, sourceOffset(data, w.Arms[:i]), 1), i, a.Name, a.Source, SourceLive, SourceReplay)
		}
	}
	p, err := w.packet()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for i := range p.Arms {
		a := &p.Arms[i]
		for _, d := range a.Dependencies {
			a.DependencyNames = append(a.DependencyNames, d.Name)
		}
		for _, c := range a.Caches {
			a.CacheNames = append(a.CacheNames, c.Name)
		}
	}
	return p, nil
}

// sourceOffset is the offset in data of the "source" key of the arm after before, the
// arms decoded before it: the next "source" key after theirs.
func sourceOffset(data []byte, before []armJSON) int64 {
	skip := 0
	for _, a := range before {
		if a.Source != "" {
			skip++
		}
	}
	off := 0
	for k := 0; ; k++ {
		i := bytes.Index(data[off:], []byte(`"source"`))
		if i < 0 {
			return 0
		}
		if k == skip {
			return int64(off + i)
		}
		off += i + 1
	}
}

// jsonError gives an error decoding data, which starts on line first of file name, the
// line and column of what is wrong; where locates an error that has no offset (a time that
// does not parse).
func jsonError(data []byte, name string, first int, where string, err error) error {
	at := func(off int64) string { return position(data, off, first) }
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("%s:%s: %v; expected the JSON that goodput replay writes", name, at(syn.Offset), syn)
	case errors.As(err, &typ):
		what := typ.Field
		if what == "" {
			what = "the packet"
		}
		return fmt.Errorf("%s:%s: %s is a JSON %s; expected %s", name, at(typ.Offset), what, typ.Value, jsonKind(typ.Type.Kind().String()))
	case errors.Is(err, io.EOF):
		return fmt.Errorf("%s: empty; expected a JSON object with scenario, seed and arms", name)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s:%s: unexpected end of file; expected the rest of the JSON object", name, at(int64(len(data))))
	}
	if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		off := int64(0)
		if key, uerr := strconv.Unquote(field); uerr == nil {
			if i := bytes.Index(data, []byte(strconv.Quote(key))); i >= 0 {
				off = int64(i)
			}
		}
		return fmt.Errorf("%s:%s: unknown field %s: the packet is from a newer goodput, or not a packet; this version reads the fields goodput replay writes", name, at(off), field)
	}
	return fmt.Errorf("%s: %v", where, err)
}

func jsonKind(k string) string {
	switch {
	case strings.HasPrefix(k, "int"), strings.HasPrefix(k, "uint"):
		return "a whole number"
	case strings.HasPrefix(k, "float"):
		return "a number"
	case k == "string":
		return "a string"
	case k == "bool":
		return "true or false"
	case k == "slice":
		return "a list"
	case k == "struct", k == "map":
		return "an object"
	}
	return "a " + k
}

// position is "LINE:COL" (from 1) of byte offset off in data, whose first line is line first.
func position(data []byte, off int64, first int) string {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + first
	col := int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return fmt.Sprintf("%d:%d", line, col)
}

// Column indices of series.csv's fixed columns.
const (
	colT = iota
	colTime
	colArm
	colOffered        // the first of the per-second counters, in Row order up to colCacheMisses
	colDuplicates     = 17
	colCacheHits      = 18
	colAmplification  = 20
	colLatencyP50     = 21
	colQueueAgeMax    = 23 // the first of the 12 sampled gauges
	colFirstPerLayer  = 35 // the first column after the fixed ones: constraint, if there, or the first layer's
	sampledGaugeCount = 12
)

// readSeries reads series.csv into the arms' Series.
func readSeries(p *Packet, r io.Reader, name string) error {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return fmt.Errorf("%s: empty; expected a header line %s,…", name, strings.Join(seriesColumns[:3], ","))
	}
	// The constraint column is there when the writer's arms named binding constraints.
	l := layoutOf(p.Arms, len(header) > len(seriesColumns) && header[len(seriesColumns)] == constraintColumn)
	if err != nil {
		return csvError(name, err, len(l.header))
	}
	if !slices.Equal(header, l.header) {
		for i, h := range l.header {
			if i >= len(header) || header[i] != h {
				got := "missing"
				if i < len(header) {
					got = strconv.Quote(header[i])
				}
				return fmt.Errorf("%s:1: column %d is %s, expected %q: the header does not match %s's arms (a packet.json and series.csv from different replays?)", name, i+1, got, h, JSONFile)
			}
		}
		return fmt.Errorf("%s:1: %d columns, expected %d: the header does not match %s's arms", name, len(header), len(l.header), JSONFile)
	}
	cr.FieldsPerRecord = len(l.header)
	byName := make(map[string]int, len(p.Arms))
	for i, a := range p.Arms {
		byName[a.Name] = i
	}
	rows := 0
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return csvError(name, err, len(l.header))
		}
		line, _ := cr.FieldPos(0)
		if rows++; rows > MaxSeriesRows {
			return fmt.Errorf("%s:%d: more than %d rows, the most a packet may have", name, line, MaxSeriesRows)
		}
		i, ok := byName[rec[colArm]]
		if !ok {
			return fmt.Errorf("%s:%d: arm %q is not an arm of %s; expected one of %s", name, line, rec[colArm], JSONFile, strings.Join(armNames(p.Arms), ", "))
		}
		a := &p.Arms[i]
		row, err := parseRow(rec, a, l)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		a.Series = append(a.Series, row)
	}
}

func armNames(arms []Arm) []string {
	out := make([]string, len(arms))
	for i, a := range arms {
		out[i] = a.Name
	}
	return out
}

func csvError(name string, err error, fields int) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			return fmt.Errorf("%s:%d: wrong number of fields; expected %d, as in the header", name, pe.StartLine, fields)
		}
		return fmt.Errorf("%s:%d:%d: %v", name, pe.Line, pe.Column, pe.Err)
	}
	return fmt.Errorf("%s: %v", name, err)
}

// rowParser parses one record's cells, keeping the first error.
type rowParser struct {
	rec  []string
	head []string
	err  error
}

func (c *rowParser) fail(i int, format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("%s %q: %s", c.head[i], c.rec[i], fmt.Sprintf(format, args...))
	}
}

func (c *rowParser) float(i int) float64 {
	x, err := strconv.ParseFloat(c.rec[i], 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		c.fail(i, "expected a number")
		return 0
	}
	return x
}

func (c *rowParser) int(i int) int {
	n, err := strconv.Atoi(c.rec[i])
	if err != nil || n < 0 || n > math.MaxInt32 {
		c.fail(i, "expected a whole number ≥ 0")
		return 0
	}
	return n
}

func (c *rowParser) uint(i int) uint64 {
	n, err := strconv.ParseUint(c.rec[i], 10, 64)
	if err != nil {
		c.fail(i, "expected a whole number ≥ 0")
	}
	return n
}

func (c *rowParser) ms(i int) time.Duration {
	d, err := durationOf("", c.float(i), 1)
	if err != nil {
		c.fail(i, "out of the range of a duration")
	}
	return d
}

// count is the events of a tick from a per-second counter cell: the inverse of WriteSeriesCSV's
// rounding, which must give the cell back.
func (c *rowParser) count(i int, tick time.Duration) int64 {
	x := c.float(i)
	if c.err != nil {
		return 0
	}
	n := math.Round(x * tick.Seconds())
	if n < 0 || n > 1<<53 || fmtFloat(round(n/tick.Seconds(), 3)) != c.rec[i] {
		c.fail(i, "expected a count per second of a whole number of events in a tick of %v", tick)
		return 0
	}
	return int64(n)
}

// parseRow parses one record of arm a.
func parseRow(rec []string, a *Arm, l seriesLayout) (Row, error) {
	c := &rowParser{rec: rec, head: l.header}
	tick := a.Tick
	if tick <= 0 {
		tick = time.Second
	}
	var row Row
	layer0 := colFirstPerLayer // the first per-layer column
	if l.constraint {
		layer0++
	}
	if t := c.float(colT); c.err == nil {
		want := time.Duration(len(a.Series)) * tick
		if d, err := durationOf("", t, 1000); err != nil || d != want {
			c.fail(colT, "expected %s, the next tick of arm %q", fmtFloat(seconds(want)), a.Name)
		}
		row.T = want
	}
	if c.err == nil && rec[colTime] != a.Start.Add(row.T).UTC().Format(time.RFC3339Nano) {
		c.fail(colTime, "expected %s, the arm's start plus t_s", a.Start.Add(row.T).UTC().Format(time.RFC3339Nano))
	}
	counters := []*int64{
		&row.Offered, &row.Admitted, &row.Rejected, &row.Attempts, &row.Retries,
		&row.Suppressed, &row.Goodput, &row.Late, &row.Expired, &row.Failed,
		&row.Ambiguous, &row.Shed, &row.Orphans, &row.CancelsCompleted,
	}
	for j, n := range counters {
		*n = c.count(colOffered+j, tick)
	}
	if d, err := strconv.ParseInt(rec[colDuplicates], 10, 64); err != nil || d < 0 {
		c.fail(colDuplicates, "expected a whole number ≥ 0")
	} else {
		row.Duplicates = d
	}
	row.CacheHits = c.count(colCacheHits, tick)
	row.CacheMisses = c.count(colCacheHits+1, tick)

	for j, name := range l.layers {
		k := slices.IndexFunc(a.Layers, func(x LayerStats) bool { return x.Name == name })
		n := c.count(layer0+j, tick)
		if k < 0 || n == 0 {
			continue
		}
		if row.LayerAttempts == nil {
			row.LayerAttempts = make([]int64, len(a.Layers))
		}
		row.LayerAttempts[k] = n
	}
	if c.err == nil {
		amp, ok := row.Amplification()
		if want := fmtFloat(amp); !ok && rec[colAmplification] != "" || ok && rec[colAmplification] != want {
			c.fail(colAmplification, "does not match the tick's attempts per offered request (%s)", want)
		}
	}

	switch p50, p99 := rec[colLatencyP50], rec[colLatencyP50+1]; {
	case p50 == "" && p99 == "":
	case p50 == "" || p99 == "":
		c.fail(colLatencyP50, "latency_p50_ms and latency_p99_ms are both empty or both numbers")
	default:
		row.LatencyP50, row.LatencyP99 = c.ms(colLatencyP50), c.ms(colLatencyP50+1)
	}

	dep0 := layer0 + len(l.layers)
	cache0 := dep0 + 2*len(l.deps)
	if rec[colQueueAgeMax] == "" {
		for j := colQueueAgeMax; j < colQueueAgeMax+sampledGaugeCount; j++ {
			if rec[j] != "" {
				c.fail(j, "expected an empty cell: queue_age_max_ms is empty, so the tick was not sampled")
			}
		}
		if l.constraint && rec[colFirstPerLayer] != "" {
			c.fail(colFirstPerLayer, "expected an empty cell: the tick was not sampled")
		}
		for j := dep0; j < len(rec); j++ {
			if rec[j] != "" {
				c.fail(j, "expected an empty cell: the tick was not sampled")
			}
		}
		return row, c.err
	}
	row.Sampled = true
	g := colQueueAgeMax
	s := &row.Sample
	s.QueueAgeMax = c.ms(g)
	s.QueueLen, s.InFlight, s.PoolWaiters = c.int(g+1), c.int(g+2), c.int(g+3)
	s.Instances = Instances{Requested: c.int(g + 4), ProcessReady: c.int(g + 5), RouteReady: c.int(g + 6), Warm: c.int(g + 7)}
	s.State = rec[g+8]
	s.Generation = c.uint(g + 9)
	s.AdmissionLimit = c.int(g + 10)
	s.SlackP10 = c.ms(g + 11)
	if l.constraint {
		s.Constraint = rec[colFirstPerLayer]
	}

	// Dependencies and caches: the cells of the arm's own, in its order, up to the last
	// one filled (a sample holds the names known when it was taken).
	for j, d := range a.DependencyNames {
		k := dep0 + 2*slices.Index(l.deps, d)
		if rec[k] == "" && rec[k+1] == "" {
			for _, later := range a.DependencyNames[j:] {
				if k := dep0 + 2*slices.Index(l.deps, later); rec[k] != "" || rec[k+1] != "" {
					c.fail(k, "expected an empty cell after the empty gauges of %s", d)
				}
			}
			break
		}
		row.Dependencies = append(row.Dependencies, DependencyGauge{InService: c.int(k), Waiting: c.int(k + 1)})
	}
	for j, name := range a.CacheNames {
		k := cache0 + slices.Index(l.caches, name)
		if rec[k] == "" {
			for _, later := range a.CacheNames[j:] {
				if k := cache0 + slices.Index(l.caches, later); rec[k] != "" {
					c.fail(k, "expected an empty cell after the empty entries of %s", name)
				}
			}
			break
		}
		row.CacheEntries = append(row.CacheEntries, c.int(k))
	}
	return row, c.err
}

// readEvents reads events.jsonl into the arms' Events.
func readEvents(p *Packet, r io.Reader, name string) error {
	byName := make(map[string]int, len(p.Arms))
	for i, a := range p.Arms {
		byName[a.Name] = i
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxEventLine)
	line := 0
	var last time.Duration
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(bytes.TrimSpace(b)) == 0 {
			return fmt.Errorf("%s:%d: empty line; expected one JSON object per line, an event", name, line)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		var w eventJSON
		if err := dec.Decode(&w); err != nil {
			return jsonError(b, name, line, fmt.Sprintf("%s:%d", name, line), err)
		}
		if dec.More() {
			return fmt.Errorf("%s:%d: more than one JSON object on the line; expected one event per line", name, line)
		}
		var c durations
		e := w.event(&c)
		if c.err != nil {
			return fmt.Errorf("%s:%d: %v", name, line, c.err)
		}
		i, ok := byName[e.Arm]
		if !ok {
			return fmt.Errorf("%s:%d: arm %q is not an arm of %s; expected one of %s", name, line, e.Arm, JSONFile, strings.Join(armNames(p.Arms), ", "))
		}
		if line > 1 && e.T < last {
			return fmt.Errorf("%s:%d: t_s %s is before the previous line's; expected the events in time order", name, line, fmtFloat(seconds(e.T)))
		}
		last = e.T
		p.Arms[i].Events = append(p.Arms[i].Events, e)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s:%d: a line longer than %d KiB; expected one event per line", name, line+1, maxEventLine>>10)
		}
		return fmt.Errorf("%s: %v", name, err)
	}
	return nil
}
