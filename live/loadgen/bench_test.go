package loadgen

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/goodput-lab/goodput/internal/proccpu"
	"github.com/goodput-lab/goodput/scenario"
)

// Attack benchmark: goodput's attacker and vegeta's (its attack library, a test-only
// dependency) at the same fixed rate against the same trivial server, each for a fixed
// few seconds (run with -benchtime 1x; -attack.rate and -attack.for change them). Each
// reports sent/s, lateness-p99-ms (actual send time less intended send time) and
// cpu-us/req: the process's CPU (getrusage) over the run divided by the requests sent.
// The server runs in a child process (this test binary again, see TestMain) on loopback,
// so that figure is the generator's own; the two processes share the machine's cores.
var (
	benchRate = flag.Int("attack.rate", 5000, "BenchmarkAttack's rate, per second")
	benchFor  = flag.Duration("attack.for", 3*time.Second, "how long each of BenchmarkAttack's runs sends")
	// For comparisons of the pacer: its quantum, and time.Sleep in place of its timer.
	benchQuantum = flag.Duration("attack.quantum", pacerQuantum, "the goodput pacer's shortest time between wakes")
	benchCoarse  = flag.Bool("attack.coarse", false, "the goodput pacer sleeps with time.Sleep")
)

// serverEnv makes the test binary the benchmark's server: it prints its URL and serves
// "ok" until its standard input closes.
const serverEnv = "LOADGEN_BENCH_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) == "1" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("http://%s\n", ln.Addr())
		go func() { _, _ = io.Copy(io.Discard, os.Stdin); os.Exit(0) }()
		_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) }))
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// benchServer starts the server process and returns its URL; it stops with the benchmark.
func benchServer(b *testing.B) string {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), serverEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	url, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("benchmark server: %v", err)
	}
	return strings.TrimSpace(url)
}

func BenchmarkAttack(b *testing.B) {
	b.Run("goodput", func(b *testing.B) {
		srv := benchServer(b)
		for range b.N {
			p, err := ConstantPlan(scenario.Rate(*benchRate), *benchFor, false, Class{Deadline: 5 * time.Second, Timeout: 5 * time.Second}, 1)
			if err != nil {
				b.Fatal(err)
			}
			a, err := New(p, srv, Options{})
			if err != nil {
				b.Fatal(err)
			}
			a.quantum, a.coarse = *benchQuantum, *benchCoarse
			res, err := a.Run(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			if res.Total.Goodput != res.Total.Offered {
				b.Logf("goodput %d of %d offered: %+v", res.Total.Goodput, res.Total.Offered, res.Total)
			}
			b.ReportMetric(float64(res.Total.Sent)/(*benchFor).Seconds(), "sent/s")
			b.ReportMetric(float64(res.Lateness.P99)/1e6, "lateness-p99-ms")
			b.ReportMetric(float64(res.CPU.Microseconds())/float64(res.Total.Sent), "cpu-us/req")
		}
	})
	b.Run("vegeta", func(b *testing.B) {
		srv := benchServer(b)
		for range b.N {
			atk := vegeta.NewAttacker(vegeta.Timeout(5 * time.Second))
			tr := vegeta.NewStaticTargeter(vegeta.Target{Method: "GET", URL: srv})
			late := newHist(histDigits)
			var first time.Time
			var sent, ok int64
			cpu0 := proccpu.Self()
			for r := range atk.Attack(tr, vegeta.Rate{Freq: *benchRate, Per: time.Second}, *benchFor, "bench") {
				if r.Seq == 0 {
					first = r.Timestamp
				}
				// Vegeta's constant pacer intends hit n at n/rate after the first.
				planned := first.Add(time.Duration(r.Seq) * time.Second / time.Duration(*benchRate))
				record(late, r.Timestamp.Sub(planned))
				sent++
				if r.Code == http.StatusOK {
					ok++
				}
			}
			cpu := proccpu.Self() - cpu0
			if ok != sent {
				b.Logf("vegeta: %d of %d ok", ok, sent)
			}
			b.ReportMetric(float64(sent)/(*benchFor).Seconds(), "sent/s")
			b.ReportMetric(float64(late.ValueAtPercentile(99))/1e3, "lateness-p99-ms")
			b.ReportMetric(float64(cpu.Microseconds())/float64(sent), "cpu-us/req")
		}
	})
}

// A sanity check that the benchmark's figures are what they say, at a rate a test can
// afford: every request sent, each with its lateness, and the process's CPU measured.
func TestBenchFigures(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	p, err := ConstantPlan(200, 200*time.Millisecond, false, Class{Deadline: 5 * time.Second}, 1)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(p, srv.URL, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Total.Sent != 39 || res.Lateness.Count != 39 {
		t.Errorf("sent %d, lateness %+v; want 39 sent, 39 latenesses", res.Total.Sent, res.Lateness)
	}
	if res.CPU <= 0 {
		t.Errorf("CPU %s; want the process's CPU over the run", res.CPU)
	}
}
