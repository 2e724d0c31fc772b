package loadgen

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// testCurve is a service that holds 300/s, then rejects, then collapses.
func testCurve() *Curve {
	c := &Curve{Target: "http://127.0.0.1:8080/checkout"}
	for _, s := range []struct {
		rate                                          float64
		sent, unsent, goodput, late, rejected, failed int64
		p50, p99                                      time.Duration
	}{
		{100, 2000, 0, 2000, 0, 0, 0, 2 * time.Millisecond, 5 * time.Millisecond},
		{200, 4000, 0, 3990, 10, 0, 0, 3 * time.Millisecond, 40 * time.Millisecond},
		{400, 8000, 0, 5800, 600, 1500, 100, 90 * time.Millisecond, 900 * time.Millisecond},
		{800, 15000, 1000, 1200, 3000, 6000, 4800, 700 * time.Millisecond, 4 * time.Second},
	} {
		tot := ClassResult{Name: "total", Offered: s.sent + s.unsent, Sent: s.sent, Unsent: s.unsent, Goodput: s.goodput,
			Late: s.late, Rejected: s.rejected, Failed: s.failed, Attempts: s.sent + s.failed,
			Latency: Percentiles{Count: s.sent, P50: s.p50, P99: s.p99}}
		c.Steps = append(c.Steps, CurveStep{Rate: s.rate, Result: &Result{Seed: 1, Duration: 20 * time.Second, MaxInFlight: 10000,
			Total: tot, Lateness: Percentiles{Count: s.sent, P99: time.Duration(s.rate) * time.Microsecond}}})
	}
	return c
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
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
		t.Errorf("%s differs from the output (run go test -update if the change is intended):\n%s", path, got)
	}
}

func TestCurveFiles(t *testing.T) {
	c := testCurve()
	var csv, html, table bytes.Buffer
	if err := c.WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/curve.csv", csv.Bytes())
	golden(t, "testdata/curve.html", html.Bytes())
	golden(t, "testdata/curve.txt", table.Bytes())
	for _, s := range []string{"<svg", "Throughput and goodput", "Terminal outcomes", "Latency from the intended send time", "800/s"} {
		if !strings.Contains(html.String(), s) {
			t.Errorf("curve.html lacks %q", s)
		}
	}
	for _, s := range []string{"<script", "http://", "https://"} {
		if strings.Contains(strings.ReplaceAll(html.String(), c.Target, ""), s) {
			t.Errorf("curve.html has %q: it must stand alone", s)
		}
	}
	// The CSV's throughput at 400/s: (5,800 goodput + 600 late) / 20s.
	if line := strings.Split(csv.String(), "\n")[3]; !strings.HasPrefix(line, "400,400,400,0,320,290,30,75,5,405,90,900,0.4") {
		t.Errorf("CSV row at 400/s: %s", line)
	}
}
