package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"time"

	"github.com/goodput-lab/goodput/model"
	"github.com/goodput-lab/goodput/report"
	"github.com/goodput-lab/goodput/scenario"
)

// The work budget's defaults: what a replay may need before --max-memory or
// --max-requests must allow it (Northstar needs about 0.1 GiB and 24 M requests an arm).
const (
	defaultMaxMemory   = 4 << 30
	defaultMaxRequests = 1_000_000_000
)

// slowRun is the expected wall time above which a replay says, before it starts, how long
// it will take.
const slowRun = time.Minute

// budgetFlags are the work budget's flags of 'goodput replay': --max-memory, --max-requests
// and --dry-run. The zero value is the defaults.
type budgetFlags struct {
	MaxMemory   sizeFlag
	MaxRequests int64 // 0: defaultMaxRequests
	DryRun      bool
}

// register defines the flags on fs.
func (b *budgetFlags) register(fs *flag.FlagSet) {
	fs.Var(&b.MaxMemory, "max-memory", "refuse a run estimated to need more than `SIZE` of memory at its peak, written as a scenario writes sizes, e.g. 16GiB (default 4GiB)")
	fs.Func("max-requests", "refuse a run that offers more than `N` logical requests an arm (default 1000000000)", func(v string) error {
		var n int64
		if _, err := fmt.Sscan(v, &n); err != nil || n < 1 || fmt.Sprint(n) != strings.TrimSpace(v) {
			return fmt.Errorf("expected a whole number of requests, 1 or more, e.g. 5000000000")
		}
		b.MaxRequests = n
		return nil
	})
	fs.BoolVar(&b.DryRun, "dry-run", false, "print the run's estimated requests, events, memory and time, and exit without running it")
}

func (b budgetFlags) requests() int64 {
	if b.MaxRequests == 0 {
		return defaultMaxRequests
	}
	return b.MaxRequests
}

// sizeFlag is --max-memory: a scenario size; zero means defaultMaxMemory.
type sizeFlag scenario.Size

func (s *sizeFlag) String() string { return scenario.Size(s.bytes()).String() }

func (s *sizeFlag) Set(v string) error {
	sz, err := scenario.ParseSize(v)
	if err != nil {
		return err
	}
	if sz == 0 {
		return fmt.Errorf("size %q is zero; expected a size above 0B, e.g. 16GiB", v)
	}
	*s = sizeFlag(sz)
	return nil
}

func (s *sizeFlag) bytes() int64 {
	if s == nil || *s == 0 {
		return defaultMaxMemory
	}
	return int64(*s)
}

// runPlan is what a replay is about to run, for the budget: each scenario (one, or a
// sweep's variants), the trials of each and how many run at once.
type runPlan struct {
	file     string
	variants []variant
	trials   int // trials of each variant (this shard's)
	parallel int // trials at once
}

// checkBudget estimates the run with estimate and holds it to the budget: with --dry-run
// it prints the estimate on stdout and reports done; above --max-memory or --max-requests
// it returns an error naming the flag that allows the run; a run expected to take over a
// minute says so on stderr (unless quiet). A nil estimate checks nothing.
func checkBudget(b budgetFlags, rp runPlan, quiet bool, stdout, stderr io.Writer, estimate func(*scenario.Scenario) (model.Cost, error)) (done bool, err error) {
	if estimate == nil {
		return false, nil
	}
	costs := make([]model.Cost, len(rp.variants))
	for i, v := range rp.variants {
		if costs[i], err = estimate(v.sc); err != nil {
			return false, fmt.Errorf("replay %s: %w", rp.file, err)
		}
	}
	at := max(1, min(rp.parallel, rp.trials))
	var worst model.Cost // the variant with the highest memory, and the one with the most requests
	var most model.Cost
	var label, mostLabel string
	var events float64
	procs := runtime.GOMAXPROCS(0)
	for i, c := range costs {
		if c.Memory >= worst.Memory {
			worst, label = c, variantLabel(rp.variants[i])
		}
		if c.Requests >= most.Requests {
			most, mostLabel = c, variantLabel(rp.variants[i])
		}
		events += float64(c.Events) * float64(c.Arms) * float64(rp.trials)
	}
	memory := float64(worst.Memory) * float64(at)
	wall := time.Duration(math.Min(events/(model.EventsPerSecond*float64(max(1, min(procs, worst.Arms*at))))*float64(time.Second), math.MaxInt64))
	if b.DryRun {
		printEstimate(stdout, rp, costs, at, memory, wall, b)
		return true, nil
	}
	var over, flags []string
	if memory > float64(b.MaxMemory.bytes()) {
		over = append(over, fmt.Sprintf("needs about %s at its peak%s (%s), above --max-memory %s", aboutBytes(memory), label, inFlight(worst, at), &b.MaxMemory))
		flags = append(flags, "--max-memory")
	}
	if most.Requests > b.requests() {
		over = append(over, fmt.Sprintf("offers about %s logical requests an arm%s, above --max-requests %s", aboutCount(float64(most.Requests)), mostLabel, report.Int(b.requests())))
		flags = append(flags, "--max-requests")
	}
	if len(over) > 0 {
		return false, fmt.Errorf("replay %s: the run %s; raise %s to run it", rp.file, strings.Join(over, ", and "), strings.Join(flags, " and "))
	}
	if wall > slowRun && !quiet {
		fmt.Fprintf(stderr, "goodput: this replay has about %s events; expect %s on this machine\n", aboutCount(events), aboutDuration(wall))
	}
	return false, nil
}

// variantLabel names a sweep's variant in a message: "" for the scenario as loaded, else
// " with " and what it sets.
func variantLabel(v variant) string {
	if v.dir == "" || len(v.set) == 0 {
		return ""
	}
	return " with " + strings.Join(v.set, ", ")
}

// inFlight describes the requests in flight at the peak: per arm, and the arms and trials
// running at once.
func inFlight(c model.Cost, at int) string {
	s := fmt.Sprintf("%s requests in flight", aboutCount(float64(c.InFlight)))
	if c.Arms > 1 {
		s += fmt.Sprintf(" in each of %d arms", c.Arms)
	}
	if at > 1 {
		s += fmt.Sprintf(", %d trials at once", at)
	}
	return s
}

// printEstimate writes --dry-run's estimate.
func printEstimate(w io.Writer, rp runPlan, costs []model.Cost, at int, memory float64, wall time.Duration, b budgetFlags) {
	fmt.Fprintf(w, "goodput replay --dry-run: %s\n", rp.file)
	for i, c := range costs {
		if len(costs) > 1 {
			fmt.Fprintf(w, "%s:\n", strings.TrimPrefix(variantLabel(rp.variants[i]), " with "))
		}
		fmt.Fprintf(w, "  arms                 %d, each at once on its own goroutine\n", c.Arms)
		fmt.Fprintf(w, "  requests an arm      up to %s (peak rate %s/s)\n", report.Int(c.Requests), report.Float(c.PeakRate, 1))
		fmt.Fprintf(w, "  attempts an arm      up to %s\n", report.Int(c.Attempts))
		fmt.Fprintf(w, "  events an arm        about %s, up to %s\n", report.Int(c.Events), report.Int(c.EventsMax))
		fmt.Fprintf(w, "  in flight an arm     up to %s requests (a caller keeps one up to %v) × %s B\n", report.Int(c.InFlight), c.Lifetime, report.Int(c.BytesPerRequest))
		fmt.Fprintf(w, "  memory at the peak   about %s, every arm together\n", aboutBytes(float64(c.Memory)))
	}
	switch {
	case len(costs) > 1:
		fmt.Fprintf(w, "sweep: %d trials of each of %d scenarios, %d at once: about %s at the peak\n", rp.trials, len(costs), at, aboutBytes(memory))
	case rp.trials > 1:
		fmt.Fprintf(w, "sweep: %d trials, %d at once: about %s at the peak\n", rp.trials, at, aboutBytes(memory))
	}
	fmt.Fprintf(w, "wall time: %s on this machine, at %s events/s an arm (conservative)\n", aboutDuration(wall), report.Int(model.EventsPerSecond))
	within := memory <= float64(b.MaxMemory.bytes())
	for _, c := range costs {
		within = within && c.Requests <= b.requests()
	}
	verdict := "within the budget"
	if !within {
		verdict = "above the budget: the run would be refused"
	}
	fmt.Fprintf(w, "budget: --max-memory %s, --max-requests %s: %s\n", &b.MaxMemory, report.Int(b.requests()), verdict)
}

// aboutBytes writes n bytes to two or three significant digits: "9.3 GiB", "512 MiB".
func aboutBytes(n float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	if n < 10 && i > 0 {
		return report.Float(n, 1) + " " + units[i]
	}
	return report.Float(n, 0) + " " + units[i]
}

// aboutCount writes a count to three significant digits with a suffix: "12.4 M",
// "600 M", "1.2 G", "950".
func aboutCount(n float64) string {
	for _, u := range []struct {
		v float64
		s string
	}{{1e12, " T"}, {1e9, " G"}, {1e6, " M"}, {1e3, " k"}} {
		if n >= u.v {
			if n/u.v < 100 {
				return report.Float(n/u.v, 1) + u.s
			}
			return report.Float(n/u.v, 0) + u.s
		}
	}
	return report.Float(n, 0)
}

// aboutDuration writes a wall time roughly: "about 40 seconds", "about 1 minute", "about
// 3 hours".
func aboutDuration(d time.Duration) string {
	plural := func(n float64, unit string) string {
		v := math.Round(n)
		if v == 1 {
			return "about 1 " + unit
		}
		return "about " + report.Float(v, 0) + " " + unit + "s"
	}
	switch {
	case d < 90*time.Second:
		if d < time.Minute {
			return plural(max(d.Seconds(), 1), "second")
		}
		return "about 1 minute"
	case d < 90*time.Minute:
		return plural(d.Minutes(), "minute")
	case d < 48*time.Hour:
		return plural(d.Hours(), "hour")
	}
	return plural(d.Hours()/24, "day")
}
