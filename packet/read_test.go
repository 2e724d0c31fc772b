package packet

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// committedPackets are the packet directories committed under examples/.
func committedPackets(t testing.TB) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("..", "examples", "*", "packet"))
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob(filepath.Join("..", "examples", "*", "*", "packet"))
	dirs = append(dirs, more...)
	if len(dirs) == 0 {
		t.Fatal("no packet directory under examples/")
	}
	return dirs
}

// rewrite writes p into a new directory and returns the three files' bytes by name.
func rewrite(t testing.TB, p *Packet) map[string][]byte {
	t.Helper()
	dir := t.TempDir()
	if err := p.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, name := range []string{JSONFile, SeriesFile, EventsFile} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = b
	}
	return out
}

// TestReadCommittedRoundTrip reads every committed packet and writes it again: the bytes
// must be the committed ones (durations survive ms/s → time.Duration → ms/s exactly).
func TestReadCommittedRoundTrip(t *testing.T) {
	for _, dir := range committedPackets(t) {
		t.Run(dir, func(t *testing.T) {
			p, err := Read(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range p.Arms {
				if len(a.Series) == 0 || len(a.Events) == 0 {
					t.Errorf("arm %s read back with %d rows and %d events", a.Name, len(a.Series), len(a.Events))
				}
			}
			for name, got := range rewrite(t, p) {
				want, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s written from the read packet differs from the committed file (first difference at byte %d)", name, firstDiff(got, want))
				}
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestReadEqualsRecorded writes a recorded packet and reads it back: the packet read equals
// the recorded one, Series, Events and names included.
func TestReadEqualsRecorded(t *testing.T) {
	p := syntheticPacket()
	dir := t.TempDir()
	if err := p.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	got, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	opts := cmp.Options{
		cmpopts.EquateEmpty(),
		// A recorded row's layer attempts stop at the layers known when it was recorded;
		// a read row has every layer of the arm. Both write the same cells.
		cmp.Transformer("layers", func(r Row) Row {
			r.LayerAttempts = trimZeros(r.LayerAttempts)
			return r
		}),
		cmp.Comparer(func(x, y time.Time) bool { return x.Equal(y) }),
	}
	if diff := cmp.Diff(p, got, opts); diff != "" {
		t.Errorf("read packet differs from the recorded one (-recorded +read):\n%s", diff)
	}
	for _, a := range got.Arms {
		if len(a.Series) == 0 || len(a.Events) == 0 || len(a.DependencyNames) == 0 {
			t.Errorf("arm %s: %d rows, %d events, dependencies %v", a.Name, len(a.Series), len(a.Events), a.DependencyNames)
		}
	}
}

func trimZeros(s []int64) []int64 {
	for len(s) > 0 && s[len(s)-1] == 0 {
		s = s[:len(s)-1]
	}
	return s
}

// TestDurationRoundTrip checks that every value ms and seconds write (microseconds) comes
// back from the duration the reader makes of it: x → Duration → x, exactly.
func TestDurationRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	us := []int64{0, 1, 2, 5, 9, 10, 99, 100, 499, 500, 501, 999, 1000, 1001, 12345, 999_999, 1_000_000,
		2_400_000_000, 86_400_000_000, 1<<40 + 1, -1, -1234567}
	for range 200_000 {
		us = append(us, rng.Int64N(1<<42)) // up to about 50 days
	}
	for _, k := range us {
		d := time.Duration(k) * time.Microsecond
		if x := ms(d); ms(fromMS(x)) != x || fromMS(x) != d {
			t.Fatalf("%d µs: %v ms reads back as %v (%v ms)", k, x, fromMS(x), ms(fromMS(x)))
		}
		if x := seconds(d); seconds(fromS(x)) != x || fromS(x) != d {
			t.Fatalf("%d µs: %v s reads back as %v (%v s)", k, x, fromS(x), seconds(fromS(x)))
		}
	}
	// A duration finer than the microsecond is written rounded; roundMS and roundS are what
	// reading that gives.
	for range 100_000 {
		d := time.Duration(rng.Int64N(1 << 50))
		if got := fromMS(ms(d)); got != roundMS(d) || (got-d).Abs() > 500 {
			t.Fatalf("%v: roundMS %v, read back %v", d, roundMS(d), got)
		}
		if got := fromS(seconds(d)); got != roundS(d) || (got-d).Abs() > 500 {
			t.Fatalf("%v: roundS %v, read back %v", d, roundS(d), got)
		}
	}
}

// TestSeriesColumns pins the fixed column indices the reader uses to the writer's header.
func TestSeriesColumns(t *testing.T) {
	for col, name := range map[int]string{
		colT: "t_s", colTime: "time", colArm: "arm", colOffered: "offered_per_s", colDuplicates: "duplicates",
		colCacheHits: "cache_hits_per_s", colAmplification: "amplification", colLatencyP50: "latency_p50_ms",
		colQueueAgeMax: "queue_age_max_ms", colQueueAgeMax + sampledGaugeCount - 1: "slack_p10_ms",
	} {
		if seriesColumns[col] != name {
			t.Errorf("column %d is %s, the reader takes it for %s", col, seriesColumns[col], name)
		}
	}
	if len(seriesColumns) != colFirstPerLayer {
		t.Errorf("%d fixed columns, the reader expects %d", len(seriesColumns), colFirstPerLayer)
	}
}

// TestReadErrors checks that a damaged packet gives an error naming the file, the line and
// what is wrong.
func TestReadErrors(t *testing.T) {
	js, series, events := render(t, syntheticPacket())
	replace := func(b []byte, old, new string) []byte {
		t.Helper()
		if !bytes.Contains(b, []byte(old)) {
			t.Fatalf("%q not in the file", old)
		}
		return bytes.Replace(b, []byte(old), []byte(new), 1)
	}
	lines := func(b []byte) []string { return strings.SplitAfter(string(b), "\n") }
	seriesLine := func(i int, f func(cells []string)) []byte {
		ls := lines(series)
		cells := strings.Split(strings.TrimSuffix(ls[i-1], "\n"), ",")
		f(cells)
		ls[i-1] = strings.Join(cells, ",") + "\n"
		return []byte(strings.Join(ls, ""))
	}
	tests := []struct {
		name               string
		js, series, events []byte
		missing            string
		want               string
	}{
		{name: "no packet.json", missing: JSONFile, want: "packet.json is missing"},
		{name: "no series.csv", missing: SeriesFile, want: "series.csv is missing"},
		{name: "no events.jsonl", missing: EventsFile, want: "events.jsonl is missing"},
		{name: "empty packet.json", js: []byte{}, want: "packet.json: empty"},
		{name: "syntax", js: replace(js, `"seed": 7`, `"seed": 7,,`), want: "packet.json:3:"},
		{name: "truncated", js: js[:len(js)/2], want: "unexpected end of file"},
		{name: "wrong type", js: replace(js, `"seed": 7`, `"seed": "seven"`), want: "packet.json:3:18: seed is a JSON string; expected a whole number"},
		{name: "newer format", js: replace(js, `"seed": 7,`, `"seed": 7, "format": 2,`), want: `packet.json:3:14: unknown field "format": the packet is from a newer goodput`},
		{name: "trailing data", js: append(bytes.Clone(js), "{}"...), want: "data after the packet's closing brace"},
		{name: "no arms", js: []byte(`{"scenario": "x", "seed": 1, "arms": []}`), want: "has no arms"},
		{name: "duplicate arm", js: replace(js, `"name": "protected"`, `"name": "baseline"`), want: `a second arm named "baseline"`},
		{name: "unknown source", js: replace(js, `"name": "protected",`, `"name": "protected", "source": "simulated",`), want: `packet.json:320:28: arms[1] (protected): source "simulated"`},
		{name: "unknown source position", js: replace(js, `"name": "protected",`, "\"name\": \"protected\",\n\"source\": \"simulated\","), want: `arms[1] (protected): source "simulated"; expected "live" or "replay"`},
		{name: "duration out of range", js: replace(js, `"tick_ms": 1000`, `"tick_ms": 1e300`), want: "arms[0].tick_ms is 1e+300, out of the range of a duration"},
		{name: "empty series", series: []byte{}, want: "series.csv: empty"},
		{name: "header", series: replace(series, "offered_per_s", "offered"), want: `series.csv:1: column 4 is "offered", expected "offered_per_s"`},
		{name: "field count", series: replace(series, "\n0,", "\n0,1,"), want: "series.csv:2: wrong number of fields"},
		{name: "bare quote", series: replace(series, "baseline", `base"line`), want: "series.csv:2:"},
		{name: "unknown arm", series: seriesLine(3, func(c []string) { c[colArm] = "other" }), want: `series.csv:3: arm "other" is not an arm of packet.json`},
		{name: "not a number", series: seriesLine(2, func(c []string) { c[colOffered] = "many" }), want: `series.csv:2: offered_per_s "many": expected a number`},
		{name: "not whole", series: seriesLine(2, func(c []string) { c[colOffered] += ".5" }), want: "series.csv:2: offered_per_s"},
		{name: "skipped tick", series: seriesLine(4, func(c []string) { c[colT] = "5" }), want: `series.csv:4: t_s "5": expected 1, the next tick of arm "baseline"`},
		{name: "time", series: seriesLine(2, func(c []string) { c[colTime] = "2026-01-01T00:00:00Z" }), want: `series.csv:2: time "2026-01-01T00:00:00Z": expected`},
		{name: "amplification", series: seriesLine(2, func(c []string) { c[colAmplification] = "9" }), want: "series.csv:2: amplification \"9\": does not match"},
		{name: "half sampled", series: seriesLine(2, func(c []string) { c[colQueueAgeMax] = "" }), want: "series.csv:2: queue_len"},
		{name: "negative gauge", series: seriesLine(2, func(c []string) { c[colQueueAgeMax+1] = "-1" }), want: `series.csv:2: queue_len "-1": expected a whole number ≥ 0`},
		{name: "event syntax", events: replace(events, `"kind":`, `"kind"`), want: "events.jsonl:1:"},
		{name: "event arm", events: replace(events, `"arm":"baseline"`, `"arm":"nobody"`), want: `events.jsonl:1: arm "nobody" is not an arm`},
		{name: "event field", events: replace(events, `"kind":`, `"colour":"red","kind":`), want: `events.jsonl:1:`},
		{name: "event order", events: append([]byte(lines(events)[len(lines(events))-2]), events...), want: "events.jsonl:2: t_s 2 is before the previous line's"},
		{name: "event time", events: replace(events, `"at":"2026-03-10T14:00:02Z"`, `"at":"yesterday"`), want: `events.jsonl:1: parsing time "yesterday"`},
		{name: "empty event line", events: append([]byte("\n"), events...), want: "events.jsonl:1: empty line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, b := range map[string][]byte{JSONFile: pick(tt.js, js), SeriesFile: pick(tt.series, series), EventsFile: pick(tt.events, events)} {
				if name == tt.missing {
					continue
				}
				if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Read(dir)
			if err == nil {
				t.Fatalf("Read succeeded; want an error containing %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q\nwant it to contain %q", err, tt.want)
			}
			if tt.missing != "" && !errors.Is(err, os.ErrNotExist) {
				t.Errorf("error %q does not wrap os.ErrNotExist", err)
			}
		})
	}
}

func pick(b, def []byte) []byte {
	if b != nil {
		return b
	}
	return def
}

// TestReadLimits checks that a file over its size limit is refused before it is read whole.
func TestReadLimits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(path, bytes.Repeat([]byte("x"), 2<<20+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readFile(path, 2<<20); err == nil || !strings.Contains(err.Error(), "larger than 2 MiB") {
		t.Errorf("readFile over the limit: %v", err)
	}
	if _, err := readFile(t.TempDir(), 2<<20); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("readFile of a directory: %v", err)
	}
	if math.MaxInt64/int64(MaxSeriesRows) < 1 {
		t.Fatal("unreachable")
	}
}

// FuzzRead feeds damaged packet files to the reader: it must never panic, and a packet it
// accepts must write files that read back to the same files.
func FuzzRead(f *testing.F) {
	js, series, events := render(f, syntheticPacket())
	f.Add(js, series, events)
	lab := syntheticPacket()
	lab.Arms[0].Source, lab.Arms[1].Source = SourceLive, SourceReplay
	lab.Arms[0].Live = &Live{Sent: 9, Unsent: 1, FailedBy: map[string]int64{"timeout": 2}, Elapsed: 1500 * time.Millisecond,
		Overhead: Overhead{GeneratorCPUPerRequest: 21 * time.Microsecond, ServiceCPU: 300 * time.Millisecond, ServiceCPUPerRequest: 33 * time.Microsecond, Cores: 2, CPUShare: 0.25},
		Proxies:  []ProxyEvidence{{Dependency: "db", Requests: 12, StartedAfterDeadline: 3}}}
	end := lab.Arms[0].Duration
	lab.Arms[0].Events = append(lab.Arms[0].Events, Event{At: lab.Arms[0].Start.Add(end), T: end, Arm: lab.Arms[0].Name,
		Kind: "failover", Text: "west: fails over 100% of its traffic", To: FailoverOut, Cell: "west"})
	js, series, events = render(f, lab)
	f.Add(js, series, events)
	for _, dir := range committedPackets(f) {
		var b [3][]byte
		for i, name := range []string{JSONFile, SeriesFile, EventsFile} {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				f.Fatal(err)
			}
			b[i] = data
		}
		// The series of the committed packets are large; their first rows are seed enough.
		f.Add(b[0], firstLines(b[1], 40), b[2])
	}
	f.Fuzz(func(t *testing.T, js, series, events []byte) {
		p, err := decodeBytes(js, series, events)
		if err != nil {
			return
		}
		var out [3]bytes.Buffer
		if err := p.WriteJSON(&out[0]); err != nil {
			t.Fatal(err)
		}
		if err := WriteSeriesCSV(&out[1], p.Arms...); err != nil {
			t.Fatal(err)
		}
		if err := WriteEventsJSONL(&out[2], p.Arms...); err != nil {
			t.Fatal(err)
		}
		q, err := decodeBytes(out[0].Bytes(), out[1].Bytes(), out[2].Bytes())
		if err != nil {
			t.Fatalf("a packet written from an accepted one does not read back: %v", err)
		}
		var again [3]bytes.Buffer
		_ = q.WriteJSON(&again[0])
		_ = WriteSeriesCSV(&again[1], q.Arms...)
		_ = WriteEventsJSONL(&again[2], q.Arms...)
		for i := range out {
			if !bytes.Equal(out[i].Bytes(), again[i].Bytes()) {
				t.Fatalf("file %d changes when written, read and written again:\n%s\n---\n%s", i, out[i].Bytes(), again[i].Bytes())
			}
		}
	})
}

func firstLines(b []byte, n int) []byte {
	i := 0
	for range n {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return b
		}
		i += j + 1
	}
	return b[:i]
}

// decodeBytes is Read over the three files' bytes.
func decodeBytes(js, series, events []byte) (*Packet, error) {
	return decode(file{JSONFile, js}, file{SeriesFile, series}, file{EventsFile, events})
}
