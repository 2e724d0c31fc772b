package packet

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run go test -update after checking):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// Objectives is the objective list of the synthetic recording.
var synthObjectives = []ObjectiveSpec{
	{Name: "completion p99", Metric: "latency_p99", Class: "checkout", Max: ptr(1800)},
	{Name: "goodput floor", Metric: "goodput_rate", From: 2 * time.Second, To: 5 * time.Second, Min: ptr(15)},
	{Name: "no duplicates", Metric: "duplicates", Max: ptr(0)},
	{Name: "queue age", Metric: "queue_age_max", Max: ptr(1000)},
	{Name: "normal amplification", Metric: "amplification", State: "Normal", Max: ptr(1.08)},
	{Name: "return to normal", Metric: "time_to_normal", After: 4 * time.Second, Max: ptr(3)},
}

// synthetic records a small deterministic arm: eight one-second ticks, about twenty logical
// requests per tick in two classes, a slowdown from 2s to 4s and, when protected, a load-state
// machine that sheds and suppresses retries instead of retrying.
func synthetic(name string, protected bool) Arm {
	rng := rand.New(rand.NewPCG(1, 2)) // the same draws in both arms
	r := NewRecorder(Config{
		Arm: name, Start: t0, Tick: time.Second, Duration: 8 * time.Second,
		Classes: []string{"checkout", "lookup"}, Layers: []string{"edge", "service", "risk"},
		Dependencies: []string{"risk"},
	})
	state, gen := "Normal", uint64(1)
	r.Annotate(2*time.Second, "fault", "risk p99 95ms → 410ms")
	r.Annotate(4*time.Second, "fault", "risk restored")
	for tick := range 8 {
		base := time.Duration(tick) * time.Second
		slow := tick >= 2 && tick < 4
		if protected {
			switch {
			case tick == 2:
				r.Transition(base, state, "Protected", gen+1, "queue age 900ms > 500ms", false)
				state, gen = "Protected", gen+1
			case tick == 5:
				r.Transition(base, state, "Recovering", gen+1, "dependency restored", false)
				state, gen = "Recovering", gen+1
			case tick == 6:
				r.Transition(base, state, "Normal", gen+1, "operator", true)
				state, gen = "Normal", gen+1
			}
		}
		age := time.Duration(20+rng.IntN(30)) * time.Millisecond
		if slow {
			age = time.Duration(700+rng.IntN(400)) * time.Millisecond
		}
		s := Sample{
			QueueAgeMax: age, QueueLen: int(age / time.Millisecond / 10), InFlight: 20 + rng.IntN(10),
			PoolWaiters: rng.IntN(5), Instances: Instances{Requested: 4, ProcessReady: 4, RouteReady: 4, Warm: 3},
			Generation: gen, AdmissionLimit: 40, SlackP10: 1800*time.Millisecond - age,
			Dependencies: map[string]DependencyGauge{"risk": {InService: 10 + rng.IntN(10), Waiting: rng.IntN(3)}},
			Constraint:   "none",
		}
		if slow {
			s.Constraint = "pool:service->risk"
		}
		if protected {
			s.State = state
		}
		r.Sample(base, s)
		for i := range 20 {
			at := base + time.Duration(i)*50*time.Millisecond
			class := "checkout"
			if rng.Float64() < 0.2 {
				class = "lookup"
			}
			draw := rng.Float64()
			r.Offered(at, class)
			if protected && slow && draw < 0.1 {
				r.Rejected(at, class, "limit")
				continue
			}
			r.Admitted(at, class)
			r.Attempt(at, "edge")
			r.Attempt(at, "service")
			r.Attempt(at, "risk")
			conn := time.Duration(rng.IntN(20)) * time.Millisecond
			svc := time.Duration(20+rng.IntN(60)) * time.Millisecond
			lat := time.Duration(100+rng.IntN(400)) * time.Millisecond
			if slow {
				svc += 300 * time.Millisecond
				lat += 1200 * time.Millisecond
			}
			r.QueueWait(at, class, age/2)
			r.Remaining(at, class, 1800*time.Millisecond-age/2)
			r.DependencyCall(at, "risk", conn, svc)
			if slow && draw < 0.5 {
				if protected {
					r.Suppressed(at, "budget")
					r.Shed(at, class, "recommendations")
					r.CancelCompleted(at+350*time.Millisecond, "risk")
				} else {
					r.Attempt(at, "edge")
					r.Retry(at, "edge")
					r.Attempt(at, "risk")
					r.Retry(at, "risk")
					r.Orphan(at+400*time.Millisecond, "risk")
					lat += 600 * time.Millisecond
				}
			}
			outcome := Goodput
			switch {
			case lat > 1800*time.Millisecond && draw < 0.3:
				outcome = Expired
			case lat > 1800*time.Millisecond:
				outcome = Late
			case draw > 0.98:
				outcome = Failed
			case draw > 0.97:
				outcome = Ambiguous
			}
			if !protected && slow && draw > 0.95 {
				r.Duplicate(at+lat, "payment_authorizations")
			}
			r.Terminal(at+lat, class, outcome, lat)
		}
	}
	return r.Finish(synthObjectives)
}

func syntheticPacket() *Packet {
	return &Packet{Scenario: "synthetic", Seed: 7, Arms: []Arm{synthetic("baseline", false), synthetic("protected", true)}}
}

func render(t testing.TB, p *Packet) (js, series, events []byte) {
	t.Helper()
	var a, b, c bytes.Buffer
	if err := p.WriteJSON(&a); err != nil {
		t.Fatal(err)
	}
	if err := WriteSeriesCSV(&b, p.Arms...); err != nil {
		t.Fatal(err)
	}
	if err := WriteEventsJSONL(&c, p.Arms...); err != nil {
		t.Fatal(err)
	}
	return a.Bytes(), b.Bytes(), c.Bytes()
}

func TestGolden(t *testing.T) {
	js, series, events := render(t, syntheticPacket())
	golden(t, "packet.json", js)
	golden(t, "series.csv", series)
	golden(t, "events.jsonl", events)
}

func TestDeterministic(t *testing.T) {
	a1, b1, c1 := render(t, syntheticPacket())
	a2, b2, c2 := render(t, syntheticPacket())
	if !bytes.Equal(a1, a2) || !bytes.Equal(b1, b2) || !bytes.Equal(c1, c2) {
		t.Fatal("two identical recordings gave different bytes")
	}
}

func TestWrittenFilesParse(t *testing.T) {
	p := syntheticPacket()
	js, series, events := render(t, p)

	var back Packet
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatalf("packet.json does not parse: %v", err)
	}
	if back.Arms[0].Totals != p.Arms[0].Totals || back.Arms[1].Name != "protected" {
		t.Errorf("packet.json round trip lost data: %+v", back.Arms[0].Totals)
	}
	// The contract's field names.
	for _, key := range []string{`"scenario"`, `"seed"`, `"arms"`, `"totals"`, `"offered"`, `"admitted"`, `"rejected"`,
		`"attempts"`, `"goodput"`, `"late"`, `"expired"`, `"shed"`, `"failed"`, `"ambiguous"`, `"amplification"`,
		`"total"`, `"by_layer"`, `"duplicates"`, `"payment_authorizations"`, `"order_commits"`, `"objectives"`,
		`"pass"`, `"value"`, `"target"`, `"transitions"`, `"from"`, `"to"`, `"generation"`, `"reason"`} {
		if !bytes.Contains(js, []byte(key)) {
			t.Errorf("packet.json lacks %s", key)
		}
	}

	rows, err := csv.NewReader(bytes.NewReader(series)).ReadAll()
	if err != nil {
		t.Fatalf("series.csv does not parse: %v", err)
	}
	// 8 ticks, plus one for requests that complete after the end of the schedule.
	if want := 1 + 9*2; len(rows) != want {
		t.Errorf("series.csv has %d rows, want %d (header + 9 ticks × 2 arms)", len(rows), want)
	}
	if rows[1][0] != "0" || rows[1][2] != "baseline" || rows[2][0] != "0" || rows[2][2] != "protected" || rows[3][0] != "1" {
		t.Errorf("series.csv is not ordered by tick then arm: %v %v %v", rows[1][:3], rows[2][:3], rows[3][:3])
	}
	if h := rows[0]; h[len(h)-2] != "dep_risk_in_service" || h[len(h)-1] != "dep_risk_waiting" {
		t.Errorf("series.csv header ends %v", h[len(h)-2:])
	}

	lines := strings.Split(strings.TrimSuffix(string(events), "\n"), "\n")
	if len(lines) != 2+2+3 { // two faults per arm, three transitions in the protected arm
		t.Errorf("events.jsonl has %d lines, want 7:\n%s", len(lines), events)
	}
	prev := time.Duration(-1)
	for _, l := range lines {
		var e Event
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("events.jsonl line %q: %v", l, err)
		}
		if e.T < prev {
			t.Errorf("events.jsonl not in time order at %q", l)
		}
		prev = e.T
	}
}

func TestWriteDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out", "packet")
	p := syntheticPacket()
	if err := p.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	js, series, events := render(t, p)
	for name, want := range map[string][]byte{JSONFile: js, SeriesFile: series, EventsFile: events} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the writer's output", name)
		}
	}
	// A file where the directory should be.
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := p.WriteDir(file); err == nil {
		t.Error("WriteDir into a regular file succeeded")
	}
}
