package report

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/goodput-lab/goodput/packet"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

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

func ptr(v float64) *float64 { return &v }

// arm records a small synthetic arm: 10 one-second ticks of 1,000 logical requests, a
// dependency slowdown from 3s to 6s; the protected arm rejects, sheds and suppresses
// retries where the baseline retries at two layers.
func arm(name string, protected bool) packet.Arm { return seededArm(name, protected, 3) }

// seededArm is arm with its random draws from seed.
func seededArm(name string, protected bool, seed uint64) packet.Arm {
	rng := rand.New(rand.NewPCG(seed, 4))
	objectives := []packet.ObjectiveSpec{
		{Name: "completion p99", Metric: "latency_p99", Class: "checkout", Max: ptr(1800)},
		{Name: "goodput floor", Metric: "goodput_rate", From: 3 * time.Second, To: 6 * time.Second, Min: ptr(780)},
		{Name: "no duplicates", Metric: "duplicates", Max: ptr(0)},
		{Name: "retries", Metric: "retry_ratio", Max: ptr(0.02)},
		{Name: "normal amplification", Metric: "amplification", State: "Normal", Max: ptr(1.08)},
		{Name: "return to normal", Metric: "time_to_normal", After: 6 * time.Second, Max: ptr(3)},
	}
	r := packet.NewRecorder(packet.Config{
		Arm: name, Start: time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC), Tick: time.Second, Duration: 10 * time.Second,
		Classes: []string{"checkout", "lookup"}, Layers: []string{"edge", "service", "payment-risk"},
		Dependencies: []string{"payment-risk"},
	})
	state := "Normal"
	for tick := range 10 {
		base := time.Duration(tick) * time.Second
		slow := tick >= 3 && tick < 6
		if protected && tick == 3 {
			r.Transition(base, "Normal", "Protected", 2, "queue age over 500ms", false)
			state = "Protected"
		}
		if protected && tick == 7 {
			r.Transition(base, "Protected", "Normal", 3, "signals clear", false)
			state = "Normal"
		}
		age := 20 * time.Millisecond
		if slow {
			age = 900 * time.Millisecond
			if protected {
				age = 300 * time.Millisecond
			}
		}
		s := packet.Sample{QueueAgeMax: age, Generation: 1, Dependencies: map[string]packet.DependencyGauge{"payment-risk": {InService: 40 + tick}}}
		if protected {
			s.State = state
		}
		r.Sample(base, s)
		for i := range 1000 {
			at := base + time.Duration(i)*time.Millisecond
			class := "checkout"
			if i%10 == 0 {
				class = "lookup"
			}
			draw := rng.Float64()
			lat := time.Duration(50+rng.IntN(300)) * time.Millisecond
			r.Offered(at, class)
			if protected && slow && draw < 0.05 {
				r.Rejected(at, class, "limit")
				continue
			}
			r.Admitted(at, class)
			r.Attempt(at, "edge")
			r.Attempt(at, "service")
			r.Attempt(at, "payment-risk")
			r.DependencyCall(at, "payment-risk", time.Duration(rng.IntN(5))*time.Millisecond, lat/2)
			r.CacheAccess(at, "catalog", draw > 0.2 || (protected && draw > 0.1))
			outcome := packet.Goodput
			if slow {
				switch {
				case protected && draw < 0.3:
					r.Suppressed(at, "budget")
					r.Shed(at, class, "recommendations")
					r.CancelCompleted(at, "payment-risk")
				case !protected && draw < 0.28:
					r.Attempt(at, "edge")
					r.Retry(at, "edge")
					r.Attempt(at, "payment-risk")
					r.Retry(at, "payment-risk")
					r.Orphan(at, "payment-risk")
					lat += 1700 * time.Millisecond
				case !protected && draw < 0.6:
					lat += 1600 * time.Millisecond
				}
			}
			switch {
			case lat > 1800*time.Millisecond && draw < 0.1:
				outcome = packet.Expired
			case lat > 1800*time.Millisecond:
				outcome = packet.Late
			case draw > 0.999:
				outcome = packet.Ambiguous
			case draw > 0.995:
				outcome = packet.Failed
			}
			if !protected && slow && draw > 0.998 {
				r.Duplicate(at+lat, "payment_authorizations")
			}
			r.Terminal(at+lat, class, outcome, lat)
		}
	}
	h := r.Health("checkout")
	for i := range 40 {
		h.Probe(protected || i%3 != 0)
	}
	if protected {
		h.Removed()
		h.Returned()
	} else {
		h.Restarted(120)
		h.Restarted(95)
	}
	return r.Finish(objectives)
}

func comparison() *packet.Packet {
	return &packet.Packet{Scenario: "synthetic", Seed: 42, Arms: []packet.Arm{arm("baseline", false), arm("protected", true)}}
}

// TestTableGolden pins the comparison table at the default width and fitted to 80 and
// 120 columns.
func TestTableGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Table(&b, comparison()); err != nil {
		t.Fatal(err)
	}
	golden(t, "table.txt", b.Bytes())
	for _, width := range []int{80, 120} {
		b.Reset()
		if err := (Terminal{Width: width}).Table(&b, comparison()); err != nil {
			t.Fatal(err)
		}
		golden(t, fmt.Sprintf("table-%d.txt", width), b.Bytes())
	}
}

func TestTableDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	if err := Table(&a, comparison()); err != nil {
		t.Fatal(err)
	}
	if err := Table(&b, comparison()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("identical packets gave different tables")
	}
}

// TestTableAligned checks that rows with every cell filled end in the same column, and
// that the seed is in the header.
func TestTableAligned(t *testing.T) {
	var b bytes.Buffer
	p := comparison()
	p.Arms[0].Invariants[1].Pass = false
	p.Arms[0].Invariants[1].Message = "3 admitted without a terminal state"
	if err := (Terminal{Width: 200}).Table(&b, p); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.HasPrefix(out, "goodput replay: synthetic   seed 42   10s simulated, tick 1s") {
		t.Errorf("header: %q", strings.SplitN(out, "\n", 2)[0])
	}
	width := -1
	for _, l := range strings.Split(out, "\n") {
		for _, label := range []string{"  offered ", "  attempts ", "  goodput ", "  retries "} {
			if !strings.HasPrefix(l, label) || !strings.ContainsAny(strings.TrimSpace(l[len(label):])[:1], "0123456789") {
				continue // not the row itself but one with a longer label
			}
			if w := utf8.RuneCountInString(l); width == -1 {
				width = w
			} else if w != width {
				t.Errorf("row %q is %d wide, others %d", l, w, width)
			}
		}
	}
	if width == -1 {
		t.Fatal("no population rows found")
	}
	for _, want := range []string{"10,000", "1,000.0", "✗", "✓", "t=3.0 s  Normal → Protected  generation 2  queue age over 500ms", "Failed invariants\n  baseline  admitted = goodput + late + expired + failed + ambiguous: 3 admitted without a terminal state"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q", want)
		}
	}
}

func TestTableEmpty(t *testing.T) {
	var b bytes.Buffer
	if err := Table(&b, &packet.Packet{Scenario: "x", Seed: 1}); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "goodput replay: x   seed 1   0 arms\n\nno arms\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestNumbers(t *testing.T) {
	ints := []struct {
		n    int64
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1,000"}, {21600000, "21,600,000"}, {-1234567, "-1,234,567"}, {100000, "100,000"}}
	for _, c := range ints {
		if got := Int(c.n); got != c.want {
			t.Errorf("Int(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	floats := []struct {
		x    float64
		dec  int
		want string
	}{{9000.04, 1, "9,000.0"}, {1.5616, 3, "1.562"}, {0, 1, "0.0"}, {-0.01, 1, "0.0"}, {-1234.5, 1, "-1,234.5"}, {14054.4, 0, "14,054"}, {999.96, 1, "1,000.0"}}
	for _, c := range floats {
		if got := Float(c.x, c.dec); got != c.want {
			t.Errorf("Float(%v, %d) = %q, want %q", c.x, c.dec, got, c.want)
		}
	}
}

// A replay with inputs changed by --set says so under the header, on the terminal and on
// the page.
func TestSetShown(t *testing.T) {
	p := comparison()
	p.Set = []string{"topology.services.checkout.instances=30", "seed=3"}
	var b bytes.Buffer
	if err := Table(&b, p); err != nil {
		t.Fatal(err)
	}
	if lines := strings.SplitN(b.String(), "\n", 3); lines[1] != "set: topology.services.checkout.instances=30; seed=3" {
		t.Errorf("second line %q", lines[1])
	}
	b.Reset()
	if err := HTML(&b, p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), " · set: topology.services.checkout.instances=30; seed=3</p>") {
		t.Error("the page does not say what was set")
	}
}

// labPacket is a lab's packet: each arm run live (no samples, the lab's own figures) and
// its replay beside it.
func labPacket() *packet.Packet {
	p := &packet.Packet{Scenario: "synthetic", Seed: 42}
	for i, name := range []string{"baseline", "protected"} {
		live := seededArm(name, i == 1, 9)
		live.Source, live.Samples = packet.SourceLive, 0
		live.Series = append([]packet.Row(nil), live.Series...)
		for j := range live.Series {
			live.Series[j].Sampled, live.Series[j].Sample = false, packet.Sample{}
		}
		live.Transitions = []packet.Transition{}
		live.Dependencies = []packet.DependencyStats{} // a live arm measures no simulated dependency, as live/lab writes it
		live.Live = &packet.Live{Sent: live.Totals.Offered - 3, Unsent: 3, Lateness: packet.Percentiles{Count: 9997, P99: 2 * time.Millisecond},
			Overhead: packet.Overhead{GeneratorCPUPerRequest: 21 * time.Microsecond, ProxyCPUPerRequest: 9 * time.Microsecond, ServiceCPUPerRequest: 40 * time.Microsecond, Cores: 2, CPUShare: 0.0315},
			Proxies:  []packet.ProxyEvidence{{Dependency: "payment-risk", Requests: 10400, WorkStarted: 10390, StartedAfterDeadline: int64(120 - 110*i), StartedAfterCancel: 4}}}
		replay := seededArm(name, i == 1, 3)
		replay.Name, replay.Source = packet.ReplayName(name), packet.SourceReplay
		for j := range replay.Events {
			replay.Events[j].Arm = replay.Name
		}
		p.Arms = append(p.Arms, live, replay)
	}
	return p
}

// TestTableLabGolden pins the table of a lab's packet: the live run's own figures and the
// replay against the live run, figure by figure.
func TestTableLabGolden(t *testing.T) {
	for _, width := range []int{100, 80} {
		var b bytes.Buffer
		if err := (Terminal{Width: width}).Table(&b, labPacket()); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, want := range []string{"goodput lab: synthetic", "run live and simulated", "Replay against the live run", "baseline (live) against baseline_replay"} {
			if !strings.Contains(out, want) {
				t.Errorf("width %d: the table lacks %q", width, want)
			}
		}
		// The live arms have no dependency figures: dashes, where zeros were shown before.
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "  payment-risk ") && (strings.Count(line, "–") != 2 || strings.Contains(line, " 0 ")) {
				t.Errorf("width %d: %q; want a dash in each live arm's column", width, line)
			}
		}
		golden(t, fmt.Sprintf("table-lab-%d.txt", width), b.Bytes())
	}
}

func TestRelative(t *testing.T) {
	tests := []struct {
		live, replay float64
		want         string
	}{
		{100, 110, "+10.0%"}, {100, 90, "−10.0%"}, {0, 0, "0%"}, {0, 5, "–"}, {-2, -1, "+50.0%"}, {0.9, 0.85, "−5.6%"},
	}
	for _, tt := range tests {
		if got := relative(tt.live, tt.replay); got != tt.want {
			t.Errorf("relative(%v, %v) = %q, want %q", tt.live, tt.replay, got, tt.want)
		}
	}
}
