package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/goodput-lab/goodput/live/loadgen"
	"github.com/goodput-lab/goodput/report"
	"github.com/goodput-lab/goodput/scenario"
)

// Files 'goodput attack --out DIR' writes.
const (
	attackJSONFile   = "attack.json"
	attackSeriesFile = "attack-series.csv"
	curveCSVFile     = "curve.csv"
	curveHTMLFile    = "curve.html"
)

// Bounds on what one attack may ask for.
const (
	maxAttackRequests = 100_000_000 // logical requests of one run (or of all the steps)
	maxAttackSteps    = 100
	maxAttackRate     = 10_000_000 // per second, as the scenario's schedule allows
)

// runAttack is the 'attack' subcommand: open-loop load against a live URL, from a
// scenario's load or at fixed rates.
func runAttack(args []string, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return attack(ctx, args, stdout, stderr)
}

func attackUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintln(w, "usage: goodput attack FILE.scenario.yaml --target URL [--seed N] [--out DIR] [--json]")
	fmt.Fprintln(w, "       goodput attack URL --rate 500/s --for 30s [--deadline D] [--out DIR] [--json]")
	fmt.Fprintln(w, "       goodput attack URL --rates 100/s,200/s,… --for 20s [--out DIR]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Sends open-loop load to a live service: every logical request at its intended time")
	fmt.Fprintln(w, "whatever the service answers, its latency measured from that time. With a scenario,")
	fmt.Fprintln(w, "the load is the scenario's (schedule, arrivals, classes and their http: requests, keys,")
	fmt.Fprintln(w, "deadlines) and the generator is its entries: their timeouts and retries. Each request")
	fmt.Fprintln(w, "carries Goodput-Deadline, Idempotency-Key and Goodput-Attempt. It prints, by class,")
	fmt.Fprintln(w, "what became of the requests: goodput (2xx before the deadline), late, rejected (429/503,")
	fmt.Fprintln(w, "by reason), failed, and unsent (deadline passed while every worker was busy); --out")
	fmt.Fprintln(w, "writes attack.json and attack-series.csv (one row per second).")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "--rates steps the rate, one attack of --for per rate, and prints the service's")
	fmt.Fprintln(w, "open-loop overload curve (throughput, goodput, latency and outcomes by offered rate);")
	fmt.Fprintln(w, "--out writes curve.csv and curve.html.")
	fmt.Fprintln(w)
	fs.PrintDefaults()
	fmt.Fprintln(w)
	exitStatus(w, "a bad scenario file, an unreachable target, an interrupted run, an output that cannot be written", "")
}

type attackFlags struct {
	file, url       string
	target          string
	rate            scenario.Rate
	rates           []scenario.Rate
	dur             time.Duration
	deadline        time.Duration
	timeout         time.Duration
	drain           time.Duration
	method          string
	arrivals        string
	seed            uint64
	seedSet         bool
	maxInFlight     int
	out             string
	json            bool
	rateSet, durSet bool
}

func parseAttackFlags(args []string, stderr io.Writer) (attackFlags, error) {
	f := attackFlags{deadline: time.Second, timeout: 10 * time.Second, method: "GET", arrivals: scenario.ArrivalsUniform}
	fs := flag.NewFlagSet("attack", flag.ContinueOnError)
	fs.SetOutput(stderr)
	durFlag := func(p *time.Duration) func(string) error {
		return func(v string) error {
			d, err := scenario.ParseDuration(v)
			if err != nil {
				return err
			}
			if d < 0 {
				return fmt.Errorf("%s is negative; expected zero or more", v)
			}
			*p = d.Std()
			return nil
		}
	}
	fs.StringVar(&f.target, "target", "", "with a scenario: the `URL` to attack (each class's http.path is joined to its path)")
	fs.Func("rate", "without a scenario: the offered `RATE`, e.g. 500/s", func(v string) error {
		r, err := scenario.ParseRate(v)
		f.rate, f.rateSet = r, true
		return err
	})
	fs.Func("rates", "without a scenario: step the rate, `R1,R2,…` (e.g. 100/s,200/s,400/s), one attack of --for each", func(v string) error {
		for _, s := range strings.Split(v, ",") {
			r, err := scenario.ParseRate(s)
			if err != nil {
				return err
			}
			f.rates = append(f.rates, r)
		}
		return nil
	})
	fs.Func("for", "without a scenario: how long each attack sends, `D` (e.g. 30s)", func(v string) error {
		f.durSet = true
		return durFlag(&f.dur)(v)
	})
	fs.Func("deadline", "without a scenario: each request's deadline `D`; a 2xx after it is late (default 1s)", durFlag(&f.deadline))
	fs.Func("timeout", "per-attempt timeout `D` (default: the scenario entries'; without a scenario 10s)", durFlag(&f.timeout))
	fs.Func("drain", "how long requests in flight may run after the last is sent, `D` (default: the longest deadline or attempts)", durFlag(&f.drain))
	fs.StringVar(&f.method, "method", f.method, "without a scenario: the request `METHOD`")
	fs.StringVar(&f.arrivals, "arrivals", f.arrivals, "without a scenario: uniform or poisson arrivals")
	fs.Uint64Var(&f.seed, "seed", 0, "random seed of the plan (default: the scenario's; without a scenario 0)")
	fs.IntVar(&f.maxInFlight, "max-in-flight", loadgen.DefaultMaxInFlight, "most logical requests in flight at once `N` (the workers)")
	fs.StringVar(&f.out, "out", "", "write attack.json and attack-series.csv (with --rates: curve.csv and curve.html) to `DIR`")
	fs.BoolVar(&f.json, "json", false, "write attack.json to standard output instead of the table")
	fs.Usage = func() { attackUsage(stderr, fs) }
	timeoutSet := false
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return f, err
	}
	if err != nil {
		return f, fmt.Errorf("%w: attack: %v", errUsage, err)
	}
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "seed":
			f.seedSet = true
		case "timeout":
			timeoutSet = true
		}
	})
	usage := func(format string, a ...any) error {
		return fmt.Errorf("%w: attack: %s", errUsage, fmt.Sprintf(format, a...))
	}
	if len(pos) != 1 {
		fs.Usage()
		return f, usage("expected one scenario file or URL, got %d arguments", len(pos))
	}
	if f.maxInFlight < 1 {
		return f, usage("--max-in-flight %d: expected 1 or more", f.maxInFlight)
	}
	if strings.HasPrefix(pos[0], "http://") || strings.HasPrefix(pos[0], "https://") {
		f.url = pos[0]
		switch {
		case f.target != "":
			return f, usage("--target goes with a scenario file; the URL is already %s", f.url)
		case f.rateSet == (len(f.rates) > 0):
			return f, usage("give --rate R (one attack) or --rates R1,R2,… (the overload curve)")
		case !f.durSet || f.dur <= 0:
			return f, usage("give --for D, how long each attack sends, e.g. --for 30s")
		case f.deadline <= 0:
			return f, usage("--deadline must be positive")
		case f.arrivals != scenario.ArrivalsUniform && f.arrivals != scenario.ArrivalsPoisson:
			return f, usage("--arrivals %q: expected uniform or poisson", f.arrivals)
		case len(f.rates) > maxAttackSteps:
			return f, usage("--rates has %d steps; expected at most %d", len(f.rates), maxAttackSteps)
		case len(f.rates) > 0 && f.json:
			return f, usage("--json writes one attack's result; with --rates the curve goes to curve.csv under --out")
		}
		rates := f.rates
		if f.rateSet {
			rates = []scenario.Rate{f.rate}
		}
		var total float64
		for _, r := range rates {
			if r <= 0 || r > maxAttackRate {
				return f, usage("rate %s: expected more than 0/s and at most 10,000,000/s", r)
			}
			total += float64(r) * f.dur.Seconds()
		}
		if total > maxAttackRequests {
			return f, usage("%s requests in all; expected at most %s (a lower rate or a shorter --for)", report.Int(int64(total)), report.Int(maxAttackRequests))
		}
		return f, nil
	}
	f.file = pos[0]
	switch {
	case f.target == "":
		return f, usage("a scenario needs --target URL, the service to attack")
	case f.rateSet || len(f.rates) > 0 || f.durSet:
		return f, usage("--rate, --rates and --for go with a URL; a scenario's load has its own schedule and clock")
	}
	if !timeoutSet {
		f.timeout = 0 // the scenario entries' own
	}
	return f, nil
}

func attack(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseAttackFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	opts := loadgen.Options{MaxInFlight: f.maxInFlight, Timeout: f.timeout, Drain: f.drain}
	if f.file != "" {
		sc, err := scenario.Load(f.file)
		if err != nil {
			return err
		}
		seed := sc.Seed
		if f.seedSet {
			seed = f.seed
		}
		if n := float64(sc.Clock.Duration.Std().Seconds()) * maxRate(sc.Load); n > maxAttackRequests {
			return fmt.Errorf("%w: attack: %s offers up to %s requests; expected at most %s", errUsage, f.file, report.Int(int64(n)), report.Int(maxAttackRequests))
		}
		p, err := loadgen.ScenarioPlan(sc, seed)
		if err != nil {
			return fmt.Errorf("attack %s: %w", f.file, err)
		}
		fmt.Fprintf(stderr, "goodput attack: %s against %s for %s\n", sc.Name, f.target, sc.Clock.Duration)
		return runOneAttack(ctx, p, f.target, opts, f, stdout)
	}
	class := loadgen.Class{Name: "request", Deadline: f.deadline, Method: f.method}
	if len(f.rates) == 0 {
		p, err := loadgen.ConstantPlan(f.rate, f.dur, f.arrivals == scenario.ArrivalsPoisson, class, f.seed)
		if err != nil {
			return fmt.Errorf("attack: %w", err)
		}
		return runOneAttack(ctx, p, f.url, opts, f, stdout)
	}
	return runCurve(ctx, f, class, opts, stdout, stderr)
}

func maxRate(l scenario.Traffic) float64 {
	var m float64
	for _, st := range l.Schedule {
		m = max(m, float64(st.Rate))
	}
	return m
}

func runOneAttack(ctx context.Context, p *loadgen.Plan, target string, opts loadgen.Options, f attackFlags, stdout io.Writer) error {
	a, err := loadgen.New(p, target, opts)
	if err != nil {
		return fmt.Errorf("attack: %w", err)
	}
	res, err := a.Run(ctx)
	if err != nil {
		return fmt.Errorf("attack: %w", err)
	}
	if f.out != "" {
		if err := writeAttackDir(res, f.out); err != nil {
			return err
		}
	}
	if f.json {
		err = writeAttackJSON(stdout, res)
	} else {
		err = attackTable(stdout, res)
	}
	if err != nil {
		return err
	}
	if res.Interrupted {
		return errors.New("attack interrupted: the figures cover the requests offered until then")
	}
	return nil
}

func writeAttackJSON(w io.Writer, res *loadgen.Result) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func writeAttackDir(res *loadgen.Result, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("attack: %w", err)
	}
	if err := writePage(filepath.Join(dir, attackJSONFile), func(w io.Writer) error { return writeAttackJSON(w, res) }); err != nil {
		return err
	}
	return writePage(filepath.Join(dir, attackSeriesFile), res.WriteSeriesCSV)
}

// attackTable prints one attack's result: a row per class and the total, then the
// generator's own figures and the rejections and failures by kind.
func attackTable(w io.Writer, res *loadgen.Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "class\toffered\tsent\tunsent\tgoodput\tlate\trejected\tfailed\tattempts\tp50 ms\tp99 ms\tp99.9 ms\t")
	rows := res.Classes
	if len(rows) > 1 {
		rows = append(rows[:len(rows):len(rows)], res.Total)
	}
	for _, c := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", c.Name, report.Int(c.Offered), report.Int(c.Sent),
			report.Int(c.Unsent), report.Int(c.Goodput), report.Int(c.Late), report.Int(c.Rejected), report.Int(c.Failed),
			report.Int(c.Attempts), msText(c.Latency.P50), msText(c.Latency.P99), msText(c.Latency.P999))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nplan of %s, run ended at %s; generator lateness p50 %s ms, p99 %s ms, max %s ms; peak in flight %s of %s",
		res.Duration, res.Elapsed.Round(time.Millisecond), msText(res.Lateness.P50), msText(res.Lateness.P99), msText(res.Lateness.Max),
		report.Int(int64(res.PeakInFlight)), report.Int(int64(res.MaxInFlight)))
	if res.Total.Sent > 0 && res.CPU > 0 {
		fmt.Fprintf(w, "; process CPU %s µs per request", report.Float(float64(res.CPU.Microseconds())/float64(res.Total.Sent), 1))
	}
	fmt.Fprintln(w)
	for _, c := range rows {
		var parts []string
		for _, r := range c.Rejections {
			parts = append(parts, fmt.Sprintf("rejected %s: %s", r, report.Int(r.Count)))
		}
		for _, f := range c.Failures {
			parts = append(parts, fmt.Sprintf("failed %s: %s", f.Cause, report.Int(f.Count)))
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "%s: %s\n", c.Name, strings.Join(parts, "; "))
		}
	}
	return nil
}

func msText(d time.Duration) string { return report.Float(float64(d)/1e6, 1) }

// runCurve runs one attack per rate, in the order given, and writes the curve.
func runCurve(ctx context.Context, f attackFlags, class loadgen.Class, opts loadgen.Options, stdout, stderr io.Writer) error {
	curve := &loadgen.Curve{Target: f.url}
	for i, r := range f.rates {
		p, err := loadgen.ConstantPlan(r, f.dur, f.arrivals == scenario.ArrivalsPoisson, class, f.seed)
		if err != nil {
			return fmt.Errorf("attack: %w", err)
		}
		a, err := loadgen.New(p, f.url, opts)
		if err != nil {
			return fmt.Errorf("attack: %w", err)
		}
		res, err := a.Run(ctx)
		if err != nil {
			return fmt.Errorf("attack: %w", err)
		}
		t := res.Total
		fmt.Fprintf(stderr, "goodput attack: step %d/%d at %s: sent %s, goodput %s, rejected %s, failed %s, unsent %s\n", i+1, len(f.rates), r,
			report.Int(t.Sent), report.Int(t.Goodput), report.Int(t.Rejected), report.Int(t.Failed), report.Int(t.Unsent))
		if res.Interrupted {
			return errors.New("attack interrupted: no curve written")
		}
		curve.Steps = append(curve.Steps, loadgen.CurveStep{Rate: float64(r), Result: res})
	}
	if err := curve.WriteTable(stdout); err != nil {
		return err
	}
	if f.out == "" {
		return nil
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return fmt.Errorf("attack: %w", err)
	}
	if err := writePage(filepath.Join(f.out, curveCSVFile), curve.WriteCSV); err != nil {
		return err
	}
	return writePage(filepath.Join(f.out, curveHTMLFile), curve.WriteHTML)
}
